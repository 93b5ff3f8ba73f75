"""Rebuild warehouse/seed/genai_release_history.csv.gz from every released genai-prices wheel.

A price in the genai-prices catalogue carries no date of its own, but each release is a dated
statement: the wheel uploaded on day D listed model M at price P. This script loads the price
data of every release up to the pinned one, each in isolation (the wheel is imported from the
zip in a fresh subprocess, with that release's own types.py, and never installed), takes the
price of each model in force at the release's upload time (what that release's own
ModelInfo.get_prices gives at 12:00 UTC on the upload day, so peak/off-peak windows resolve
to the midday price and start dates to the upload day), and folds consecutive
releases that list the same (input, output, cache_read, cache_write) and the same deprecation
flag into one span per (provider_id, model_id). A model absent from a release and listed again later starts a new span.

    python scripts/build_genai_release_history.py [--out DIR] [--wheel-dir DIR] [--jobs N]

Wheels are fetched with pip (no dependencies, no install) and checked against the sha256 pinned
below; with --wheel-dir, wheels already there with the right checksum are reused.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

from warehouse.release_history import GENAI_RELEASE_HISTORY as OUT_FILE
from warehouse.release_history import GENAI_RELEASE_HISTORY_COLUMNS as COLUMNS
from warehouse.release_history import GENAI_RELEASE_HISTORY_META as META_FILE
from warehouse.release_history import PRICE_COLUMNS as PRICE_KEYS
from warehouse.seed_files import Release, check_wheel, download_wheel, gzip_csv, in_wheel_dir, write_seed

PACKAGE = "genai-prices"
REPOSITORY = "https://github.com/pydantic/genai-prices"
REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "warehouse" / "seed"
LICENCE_FILE = "LICENSE.genai-prices"


# Every wheel of genai-prices up to and including 0.2.3, in release order (version order and
# upload order agree). One wheel per release; no release was yanked.
RELEASES: tuple[Release, ...] = (
    Release("0", "genai_prices-0-py3-none-any.whl",
            "492028e5d64cdeb18e21f3019e2a3e39583d39d356170ed0407cda6c6459faa3", "2025-07-11T17:41:26.977388Z"),
    Release("0.0.1", "genai_prices-0.0.1-py3-none-any.whl",
            "758438413a39582d7beb02ec1339ae61f917a3a2676af4e604b95b3ed796314e", "2025-07-12T20:30:32.449007Z"),
    Release("0.0.2", "genai_prices-0.0.2-py3-none-any.whl",
            "f331748d767ee75c6a12369edc315e273f628b50d3e60a62041c1cd0d33b7daa", "2025-07-13T03:25:42.318539Z"),
    Release("0.0.3", "genai_prices-0.0.3-py3-none-any.whl",
            "dcae66dec82ccc609e2d4365c3b8b6f192115a39f378d9e5fd5728f21edad80d", "2025-07-13T03:29:41.157737Z"),
    Release("0.0.4", "genai_prices-0.0.4-py3-none-any.whl",
            "d6648acbccda97048e0caa3a67643b7a0f10ae6e8231b63dfc1afdd750465445", "2025-07-31T11:54:31.478518Z"),
    Release("0.0.17", "genai_prices-0.0.17-py3-none-any.whl",
            "fe96d7edd1a7d3301c062ef8e58b4f1de9196f90e81247e9c7b5346cb9085ea2", "2025-08-07T05:21:12.430148Z"),
    Release("0.0.18", "genai_prices-0.0.18-py3-none-any.whl",
            "92c0c2f2a569391eea0a09f09e405ed72fb439a9a744fb3b092f060e3a8c4265", "2025-08-07T05:37:43.080562Z"),
    Release("0.0.20", "genai_prices-0.0.20-py3-none-any.whl",
            "ed1b308a6545d1bf84e5ee38215c1a3fc86813738c970401bec2d6745cd37bdc", "2025-08-09T14:03:53.816346Z"),
    Release("0.0.21", "genai_prices-0.0.21-py3-none-any.whl",
            "1d7027ccba6e32054fa37dd0f3bc04c7748ef7e763388d0b7e69aaaed938c0fa", "2025-08-11T17:28:42.033325Z"),
    Release("0.0.22", "genai_prices-0.0.22-py3-none-any.whl",
            "1ae496bdf517047bc489421c1eff653872e5d456d5eb86d113dfb49d2977a041", "2025-08-12T12:04:50.884385Z"),
    Release("0.0.23", "genai_prices-0.0.23-py3-none-any.whl",
            "a7de9e6ce9c366bea451da998f61c9cd7bf635fd088ca97cbe57bf48dd51d3b3", "2025-08-18T09:31:07.534796Z"),
    Release("0.0.24", "genai_prices-0.0.24-py3-none-any.whl",
            "620beb35a845b32463201bb2816060181500e15c0a715b3bfa2583ef58e0702d", "2025-08-26T12:12:56.162526Z"),
    Release("0.0.25", "genai_prices-0.0.25-py3-none-any.whl",
            "47b412e6927787caa00717a5d99b2e4c0858bed507bb16473b1bcaff48d5aae9", "2025-09-01T17:30:41.012683Z"),
    Release("0.0.26", "genai_prices-0.0.26-py3-none-any.whl",
            "ac83f64b25c4f11c6377c1a6f4826fdd186014909b42339f47ca83e2ebf7cf52", "2025-09-10T18:04:00.025321Z"),
    Release("0.0.27", "genai_prices-0.0.27-py3-none-any.whl",
            "3f95bf72378ddfc88992755e33f1b208f15242697807d71ade5c1627caa56ce1", "2025-09-10T19:02:19.416855Z"),
    Release("0.0.28", "genai_prices-0.0.28-py3-none-any.whl",
            "5b879bd02e901ffc6740d42eaffb9f5dfeb8c99f4a6b9e680b0046c84fb2de1b", "2025-09-27T03:17:07.472740Z"),
    Release("0.0.29", "genai_prices-0.0.29-py3-none-any.whl",
            "447d10a3d38fe1b66c062a2678253c153761a3b5807f1bf8a1f2533971296f7d", "2025-09-29T20:42:48.381672Z"),
    Release("0.0.30", "genai_prices-0.0.30-py3-none-any.whl",
            "8fa326931957c95cf30b13cc663973ae8e51e619b787b1c4e2d3e58860f70adb", "2025-10-07T18:56:20.231533Z"),
    Release("0.0.31", "genai_prices-0.0.31-py3-none-any.whl",
            "28707214a81122ac6cb74b1f3d255c8bccf0c11dba32366527e7d608fa49908a", "2025-10-09T08:19:14.447289Z"),
    Release("0.0.32", "genai_prices-0.0.32-py3-none-any.whl",
            "49d53594070c0582922f9e34a057b751bde48cc15b3ae81cb95e2d79aeca9362", "2025-10-15T09:16:10.135807Z"),
    Release("0.0.33", "genai_prices-0.0.33-py3-none-any.whl",
            "c4bb8605124c92b42a8c4908f7b2d58c0bc02a0f7b3d10d084068c607ab5fa06", "2025-10-16T08:35:57.366789Z"),
    Release("0.0.34", "genai_prices-0.0.34-py3-none-any.whl",
            "67fba842ee5248f8144ab70afa96c3a8622f9f7c1f72582546e9c134d7b607d1", "2025-10-16T09:54:20.238202Z"),
    Release("0.0.35", "genai_prices-0.0.35-py3-none-any.whl",
            "4e53f19ffe4151074bf7e60f2dd1a0b65593b4c4a9134149bd940e3e77467db2", "2025-10-19T10:05:44.464385Z"),
    Release("0.0.36", "genai_prices-0.0.36-py3-none-any.whl",
            "7ad39e04fbcdb5cfdc3891e68de6ca1064b6660e06e9ba76fa6f161ff12b32e4", "2025-11-05T14:04:12.133439Z"),
    Release("0.0.37", "genai_prices-0.0.37-py3-none-any.whl",
            "0e545a8744688522da077da0d174e7df89d682687677698a61871e40b16ef042", "2025-11-07T16:05:56.976815Z"),
    Release("0.0.38", "genai_prices-0.0.38-py3-none-any.whl",
            "c1ddf9040877116e23c4e1dfb390f8e9683b533c758e5d756494e1a26159ea4f", "2025-11-10T11:46:36.988204Z"),
    Release("0.0.39", "genai_prices-0.0.39-py3-none-any.whl",
            "349b575cebcdd5eaa612f5a9b80fb25c92714ad627b26c0f3a25a0fbf1ddee07", "2025-11-13T23:15:44.342212Z"),
    Release("0.0.40", "genai_prices-0.0.40-py3-none-any.whl",
            "dd06a067599166c1dc95d46ac9392f2306d7a84e2a6cb1494249d4a02adba54d", "2025-11-18T18:23:46.300892Z"),
    Release("0.0.41", "genai_prices-0.0.41-py3-none-any.whl",
            "2c2f4902039dc4a86bbc1d183002b4ff56c8f60b13bdaf9c584de76b190354cf", "2025-11-18T22:02:15.313856Z"),
    Release("0.0.42", "genai_prices-0.0.42-py3-none-any.whl",
            "55e9d8f497db6120947e4cc12500cf17ec99d9bacf8aa494e9390ba8cfac8f24", "2025-11-19T16:12:53.919421Z"),
    Release("0.0.43", "genai_prices-0.0.43-py3-none-any.whl",
            "21139694963cadd4c425ce41f13c440b3114d146eb160ae2c12b4f60057f27f0", "2025-11-21T10:44:08.866644Z"),
    Release("0.0.44", "genai_prices-0.0.44-py3-none-any.whl",
            "668debbd3d670f0e46af4f5bd0ce815a74847ee8d62d292ee33319ada3733009", "2025-11-21T17:58:23.641875Z"),
    Release("0.0.45", "genai_prices-0.0.45-py3-none-any.whl",
            "18f66789ed85417770533c00211b96d07a377fe5a18b4fbeb74a08f7d2579e86", "2025-11-25T02:07:40.726429Z"),
    Release("0.0.46", "genai_prices-0.0.46-py3-none-any.whl",
            "c4ff7656b7d0d578a85e9828f3404079622d280af2ca004b300684a44a97c1f6", "2025-11-25T18:31:44.702509Z"),
    Release("0.0.47", "genai_prices-0.0.47-py3-none-any.whl",
            "735e45950d2299276f2c00cd18075b77a124cd24ee58243f236ee29af3210594", "2025-11-25T18:38:16.464451Z"),
    Release("0.0.48", "genai_prices-0.0.48-py3-none-any.whl",
            "88ed3f9ab399389ae7acf6e62a5f7007332d2653926f205671b29e2f2ec5b27c", "2025-12-12T13:18:37.737090Z"),
    Release("0.0.49", "genai_prices-0.0.49-py3-none-any.whl",
            "dd3efbebcd865d89cd849793530729e7f7e1ca59d2b17a091ad1aa6aa76daf0d", "2025-12-17T10:47:28.300859Z"),
    Release("0.0.50", "genai_prices-0.0.50-py3-none-any.whl",
            "ac70a5a0a532cb19591f8a465b24799d887b0241777f612ddac1d7604befa4d0", "2026-01-06T15:03:15.486987Z"),
    Release("0.0.51", "genai_prices-0.0.51-py3-none-any.whl",
            "4e0f5892a7ec757d59f343c5dbf9675b0f9e8ed65f4fe26ac7df600e34788ca0", "2026-01-13T12:49:12.867831Z"),
    Release("0.0.52", "genai_prices-0.0.52-py3-none-any.whl",
            "639e7a2ae7eddf5710febb9779b9c9e31ff5acf464b4eb1f6018798ea642e6d3", "2026-01-28T12:07:47.921701Z"),
    Release("0.0.53", "genai_prices-0.0.53-py3-none-any.whl",
            "5a5dfd92089e9e8a174f7097a1521e36f4e75c74cfbdfb1ec56283bae3c0c96e", "2026-02-11T20:47:16.774850Z"),
    Release("0.0.54", "genai_prices-0.0.54-py3-none-any.whl",
            "5b45012b2981b7d4d42c49c8614ee95420fec244c87542542045786b36fc2235", "2026-02-17T20:26:05.186577Z"),
    Release("0.0.55", "genai_prices-0.0.55-py3-none-any.whl",
            "ccd795c90c926b3c71066bf5656f14c67fc11fdba6d71e072c7fb4fa311e1b12", "2026-02-26T17:56:40.502364Z"),
    Release("0.0.56", "genai_prices-0.0.56-py3-none-any.whl",
            "dbe86be8f3f556bed1b72209ed36851fec8b01793b3b220f42921a4e7da945f6", "2026-03-20T20:33:02.555868Z"),
    Release("0.0.57", "genai_prices-0.0.57-py3-none-any.whl",
            "14e50fb69cdc5a06ddb2a6df5a7fe06741b9e44304ce3f1728f56abdf1856cca", "2026-04-21T13:42:51.236139Z"),
    Release("0.0.59", "genai_prices-0.0.59-py3-none-any.whl",
            "88fd8818e6807374e5a5c03f293b574ade5f18a3060622080cdd94a03cf43115", "2026-05-07T12:08:39.075615Z"),
    Release("0.0.60", "genai_prices-0.0.60-py3-none-any.whl",
            "096a5c31963687e99d752789382b9e8e71c0a56f9569b9760fd0de402f8b084a", "2026-05-15T17:40:28.337083Z"),
    Release("0.0.61", "genai_prices-0.0.61-py3-none-any.whl",
            "d77142f61c13e69909ac19c8e44fd315fd65f3afd714e8d55e914fab0eaf47a2", "2026-05-19T17:01:37.858931Z"),
    Release("0.0.62", "genai_prices-0.0.62-py3-none-any.whl",
            "5d9ab0d9e5d81e035f88bf591fb6a8dde527922786acf1ee2737358f7bbe0167", "2026-05-25T18:47:17.642151Z"),
    Release("0.0.63", "genai_prices-0.0.63-py3-none-any.whl",
            "70d331671b56b514ba73e6f0a06b77f0643c8a06baee9e6fbb1bd3e4d67562c4", "2026-06-05T06:54:28.928290Z"),
    Release("0.0.64", "genai_prices-0.0.64-py3-none-any.whl",
            "ffa7a3bd5e75dcddba236d18096d21d998bc57f513fc39ded63d8cf132d79c1c", "2026-06-05T21:42:21.813634Z"),
    Release("0.0.65", "genai_prices-0.0.65-py3-none-any.whl",
            "6f9239a21ce13c9fb329825dc7e06520bc582227b83b51fe82ab71f2dd3850da", "2026-06-06T19:39:29.219543Z"),
    Release("0.0.66", "genai_prices-0.0.66-py3-none-any.whl",
            "86b83f107c1cf04bb449a120cd8d4439ceb6843660d9128cde560eb511686d7b", "2026-06-09T21:51:13.523241Z"),
    Release("0.0.67", "genai_prices-0.0.67-py3-none-any.whl",
            "08977f1e83b4132abcfc60dabf21ff13c2d25958afb9199e59c4407bf5c9ed3f", "2026-06-24T20:16:22.400345Z"),
    Release("0.0.68", "genai_prices-0.0.68-py3-none-any.whl",
            "cde3eed2501c845473663286268d51dab1f1a64cc5fec6b855548560003af0fc", "2026-07-01T23:53:42.226422Z"),
    Release("0.0.69", "genai_prices-0.0.69-py3-none-any.whl",
            "281821349e301e938e00ba9a9e8df5be23336e2f04218a4979f6c5f89db083bb", "2026-07-02T09:40:20.844985Z"),
    Release("0.0.70", "genai_prices-0.0.70-py3-none-any.whl",
            "c7cb9da4944860329450b086dad402f17237b7552165fd3b61b24e291d1ddb88", "2026-07-07T18:11:02.373253Z"),
    Release("0.0.71", "genai_prices-0.0.71-py3-none-any.whl",
            "1d13111563af2b1ce43ccfacf77b7ac3216ad704c644408a56e11b181fe0d128", "2026-07-10T00:38:29.252203Z"),
    Release("0.0.72", "genai_prices-0.0.72-py3-none-any.whl",
            "21281d8df34d9bfbb736e0763a60ceda02226938cd47379ae437a44fcf8ba23d", "2026-07-22T21:11:02.911848Z"),
    Release("0.0.73", "genai_prices-0.0.73-py3-none-any.whl",
            "64dfbbf55df91db6b74ff2b24ac752b8154952e0aed4e62868d6cd42710bf742", "2026-07-29T12:48:57.194730Z"),
    Release("0.1.0", "genai_prices-0.1.0-py3-none-any.whl",
            "337695a7d4d4f63bcd2ee91c3aa07e7b34b947745edafd6d1e47edfad3476d05", "2026-07-30T13:01:18.917014Z"),
    Release("0.1.1", "genai_prices-0.1.1-py3-none-any.whl",
            "de2e3d8ea3ca1d0d292025995c598da447a74e94f22cd3342df46941aeb5416b", "2026-08-01T09:02:48.308674Z"),
    Release("0.1.2", "genai_prices-0.1.2-py3-none-any.whl",
            "bdcdb9b358de01d9c3d4337a86b8dbfbf4e8044c2c064e6e3c4a6fef2f640382", "2026-08-12T17:20:32.159008Z"),
    Release("0.1.3", "genai_prices-0.1.3-py3-none-any.whl",
            "a2603841429c843da91c987d9ef598c73bd940caf44e844ab046d551791c04bb", "2026-08-15T00:10:30.595702Z"),
    Release("0.1.4", "genai_prices-0.1.4-py3-none-any.whl",
            "1d1b01cc7ab1adfa17c3a1121f4c13990bd0a4377640ecd37ebfde5836768240", "2026-08-19T23:53:24.520173Z"),
    Release("0.1.5", "genai_prices-0.1.5-py3-none-any.whl",
            "5215706950decd833ce3527a9e1e745ad0dbdd35ce1b33ac1f7167699640b82a", "2026-08-31T09:36:21.364570Z"),
    Release("0.1.6", "genai_prices-0.1.6-py3-none-any.whl",
            "35ac8043dbcf2958488129413bfecba7304fe12a68ad4a78c5b0d15281e82814", "2026-09-02T14:53:53.758172Z"),
    Release("0.1.7", "genai_prices-0.1.7-py3-none-any.whl",
            "090ba285549e0d2ea3187d05f091a5f0ae722e652143fa844ac809205aecd023", "2026-09-15T11:24:09.540121Z"),
    Release("0.1.8", "genai_prices-0.1.8-py3-none-any.whl",
            "40ca900089b50052597d44fc5189122addcfdccba7772dd11099b4ad574a0d9f", "2026-09-23T00:01:09.720844Z"),
    Release("0.1.9", "genai_prices-0.1.9-py3-none-any.whl",
            "3da8faa0a126e4df7be36696b90abe2be1fea8826bfcf45d39d91bc397fa9d1d", "2026-09-25T03:47:26.483829Z"),
    Release("0.1.10", "genai_prices-0.1.10-py3-none-any.whl",
            "1f0eb9ff0b02f3a40b3aa590098fbc3bfc9e08ef124fa0bd132e9d899a6fec88", "2026-10-09T17:58:14.463796Z"),
    Release("0.1.11", "genai_prices-0.1.11-py3-none-any.whl",
            "b7e652e0deb28d6c3505dc755824d6f9bbfd64a1d7757720c3473b5927478435", "2026-10-12T14:14:49.254841Z"),
    Release("0.1.12", "genai_prices-0.1.12-py3-none-any.whl",
            "89d98303c5b7a366a05136ba03884c5951ec9a9ceb28fef62c7fa719f2828182", "2026-10-14T11:22:22.688141Z"),
    Release("0.1.13", "genai_prices-0.1.13-py3-none-any.whl",
            "6d2b40760a2f7f5e207bac9b98de0af80e60c58ead497872a5331a7cee610477", "2026-10-15T09:47:03.424108Z"),
    Release("0.2.0", "genai_prices-0.2.0-py3-none-any.whl",
            "21ede75742043b3489a6cec3ad5722782640b34676563c6c755b52061812e6a3", "2026-10-29T14:41:08Z"),
    Release("0.2.1", "genai_prices-0.2.1-py3-none-any.whl",
            "b438753161537f2e2a5c937887721467dd5a24297a52ae77f946f541ce22c3a0", "2026-10-30T19:03:15Z"),
    Release("0.2.2", "genai_prices-0.2.2-py3-none-any.whl",
            "8cb0d611939158f9657166b292788ceef855f787adb873069db3609c34e574b2", "2026-11-10T01:41:45Z"),
    Release("0.2.3", "genai_prices-0.2.3-py3-none-any.whl",
            "56976ce2b04ec206117f7d0e53f4849211a6724ab3a12119afec304eba63ee25", "2026-11-10T21:51:41Z"),
)

# Runs in a fresh interpreter per wheel. The package's __init__ is bypassed (it pulls in
# network and CLI helpers that differ between releases); only data.py and the modules it
# imports are loaded, from the zip, with that release's own types.py.
LOADER = r'''
import datetime as dt, json, sys, types
from decimal import Decimal

wheel, uploaded = sys.argv[1], sys.argv[2]
package = types.ModuleType("genai_prices")
package.__path__ = [wheel + "/genai_prices"]
sys.modules["genai_prices"] = package
import genai_prices.data as data
assert data.__file__.startswith(wheel), data.__file__
at = dt.datetime.fromisoformat(uploaded.replace("Z", "+00:00"))
NOON = 12 * 60  # minutes after midnight UTC

def utc_minutes(value):
    if value.tzinfo is not None:
        value = dt.datetime.combine(dt.date(1970, 1, 1), value).astimezone(dt.timezone.utc)
    return value.hour * 60 + value.minute

def active(constraint):
    if constraint is None:
        return True
    kind = type(constraint).__name__
    if kind == "TimeOfDateConstraint":  # peak/off-peak windows: the price at 12:00 UTC
        start, end = utc_minutes(constraint.start_time), utc_minutes(constraint.end_time)
        return start <= NOON < end if start <= end else NOON >= start or NOON < end
    if kind != "StartDateConstraint":
        raise TypeError("unknown price constraint " + kind)
    start = getattr(constraint, "start_date", None) or constraint.start
    if isinstance(start, dt.datetime):  # the first releases pinned a datetime
        return at >= (start if start.tzinfo else start.replace(tzinfo=dt.timezone.utc))
    return at.date() >= start

def standard(prices):
    if not isinstance(prices, list):
        return prices
    for conditional in reversed(prices):  # the last active price wins
        if active(conditional.constraint):
            return conditional.prices
    return prices[0].prices if prices else None

def number(value):
    if value is None:
        return None
    return str(Decimal(getattr(value, "base", value)))  # TieredPrices: its base price

def equals(clause):
    kind = type(clause).__name__
    if kind == "ClauseEquals":
        return [clause.equals]
    if kind == "ClauseOr":
        return [alias for inner in clause.or_ for alias in equals(inner)]
    return []

out = []
for provider in data.providers:
    for model in provider.models:
        price = standard(model.prices)
        row = {"provider_id": provider.id, "model_id": model.id,
               "name": getattr(model, "name", None),
               "context_window": getattr(model, "context_window", None),
               "deprecated": getattr(model, "deprecated", None),
               "aliases": sorted(set(equals(model.match)))}
        for key in ("input", "output", "cache_read", "cache_write"):
            row[key] = number(getattr(price, key + "_mtok", None)) if price is not None else None
        out.append(row)
json.dump(out, sys.stdout)
'''


def fetch(release: Release, wheel_dir: Path) -> Path:
    """The pinned wheel, downloaded unless already present; its sha256 must match the pin."""
    path = wheel_dir / release.wheel
    if not path.exists() and download_wheel(PACKAGE, release.version, wheel_dir, "--quiet") != path:
        raise SystemExit(f"pip did not fetch {release.wheel}")
    check_wheel(path, release.sha256)
    return path


def load(release: Release, wheel: Path) -> list[dict]:
    """The models one release lists, with the standard price in force at its upload time."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", LOADER, str(wheel.resolve()), release.uploaded],
        capture_output=True, text=True, cwd=wheel.parent,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{release.wheel}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def price(value: str | None) -> float | None:
    if value is None:
        return None
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"unusable price {value!r}")
    return number


def listing(models: list[dict]) -> tuple[dict[tuple[str, str], dict], int]:
    """Index one release by (provider_id, model_id); a repeated id keeps its first entry."""
    by_key, repeats = {}, 0
    for model in models:
        key = (model["provider_id"], model["model_id"])
        if key in by_key:
            repeats += 1
            continue
        by_key[key] = {**model, "prices": tuple(price(model[k]) for k in PRICE_KEYS)}
    return by_key, repeats


def spans(listings: list[dict[tuple[str, str], dict]]) -> list[tuple]:
    """Fold consecutive releases listing a model at identical prices and the same deprecation
    flag into one row per span (so the first span flagged deprecated starts at the first release
    that says so)."""
    finished, current = [], {}  # current: key -> [first index, last index, last entry]

    for i, listed in enumerate(listings):
        for key in [k for k, (_, last, _) in current.items() if k not in listed]:
            finished.append((key, *current.pop(key)))
        for key, entry in listed.items():
            span = current.get(key)
            if (span is not None and span[2]["prices"] == entry["prices"]
                    and span[2]["deprecated"] == entry["deprecated"]):
                span[1], span[2] = i, entry
                continue
            if span is not None:
                finished.append((key, *current.pop(key)))
            current[key] = [i, i, entry]
    finished.extend((key, *span) for key, span in current.items())
    finished.sort(key=lambda s: (s[0], s[1]))

    rows = []
    for (provider_id, model_id), first, last, entry in finished:
        deprecated = entry["deprecated"]
        rows.append((
            provider_id, model_id,
            RELEASES[first].version, RELEASES[first].released,
            RELEASES[last].version, RELEASES[last].released,
            *entry["prices"],
            "" if deprecated is None else str(bool(deprecated)).lower(),
            entry["name"] or "",
            "" if entry["context_window"] is None else int(entry["context_window"]),
            ";".join(entry["aliases"]),
        ))
    return rows


def licence_text(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
        if len(names) != 1:
            raise SystemExit(f"{wheel}: expected one dist-info licence, found {names}")
        return zf.read(names[0])


def build(wheel_dir: Path, out_dir: Path, jobs: int) -> dict:
    """Write the history, its meta JSON and the licence; return the metadata written."""
    uploads = [datetime.fromisoformat(r.uploaded.replace("Z", "+00:00")) for r in RELEASES]
    if uploads != sorted(uploads):
        raise SystemExit("RELEASES must be in upload order")
    wheels = [fetch(r, wheel_dir) for r in RELEASES]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        loaded = list(pool.map(load, RELEASES, wheels))

    listings, repeats = zip(*(listing(models) for models in loaded), strict=True)
    rows = spans(list(listings))
    data = gzip_csv(COLUMNS, rows)
    meta = {
        "source": PACKAGE,
        "source_version": RELEASES[-1].version,
        "repository": REPOSITORY,
        "licence": "MIT",
        "versions": [r.version for r in RELEASES],
        "first_version": RELEASES[0].version,
        "last_version": RELEASES[-1].version,
        "releases": len(RELEASES),
        "release_files": [
            {"version": r.version, "wheel": r.wheel, "sha256": r.sha256, "uploaded": r.uploaded,
             "models": len(listed), "repeated_ids": n}
            for r, listed, n in zip(RELEASES, listings, repeats, strict=True)
        ],
        "rows": len(rows),
        "columns": list(COLUMNS),
        "file": OUT_FILE,
        "file_sha256": hashlib.sha256(data).hexdigest(),
        "price_rule": (
            "USD per million tokens; the price in force at the release's upload time: the last "
            "active conditional price, start dates taken at the upload time and time-of-day "
            "(peak/off-peak) windows at 12:00 UTC; tiered prices at their base; no request "
            "variants (batch, priority). A span is consecutive releases with the same prices and "
            "the same deprecated flag. name, context_window and "
            "aliases (ids the model's match clause lists with equals) are as listed in the "
            "span's last release; empty where that release does not state them."
        ),
        "attribution": (
            f"Price history derived from every release of {PACKAGE} up to {RELEASES[-1].version} "
            f"by Pydantic ({REPOSITORY}), MIT licence."
        ),
    }
    write_seed(out_dir, {OUT_FILE: data, LICENCE_FILE: licence_text(wheels[-1])}, META_FILE, meta,
               attribution_md(meta))
    return meta


def attribution_md(meta: dict) -> str:
    """This file's section of ATTRIBUTION.md: the MIT notice has to travel with the copy."""
    first, last = RELEASES[0], RELEASES[-1]
    pinned = "each wheel's sha256 is pinned in the script and listed in"
    return f"""# Attribution: {OUT_FILE}

`{OUT_FILE}` records what every release of {PACKAGE} stated: {meta['rows']} rows, one
per (provider_id, model_id) and span of consecutive releases that listed the model at the same
input, output, cache read and cache write price (USD per million tokens), with the first and last
release's version and upload date.

## Source

- Project: {PACKAGE} by Pydantic, <{REPOSITORY}>
- Package: [{PACKAGE}](https://pypi.org/project/{PACKAGE}/), all {meta['releases']} releases from `{first.version}`
  ({first.uploaded[:10]}) to {last.version} ({last.uploaded[:10]}); {pinned}
  `{META_FILE}`. Read from each wheel's `genai_prices/data.py`.

## Changes

- Per model, the price in force at the release's upload time (time-of-day windows at 12:00 UTC,
  tiered prices at their base); other price kinds and request variants dropped.
- Consecutive releases with identical prices and the same deprecation flag folded into one row;
  name, context window and `equals` aliases as stated by the span's last release.

## Licence

MIT; the original licence text is in `{LICENCE_FILE}`.

## Regenerate

    python scripts/build_genai_release_history.py

Details are recorded in `{META_FILE}`.
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="output directory (default: warehouse/seed)")
    parser.add_argument("--wheel-dir", type=Path,
                        help="keep wheels here and reuse those already present (default: a temp dir)")
    parser.add_argument("--jobs", type=int, default=4, help="wheels loaded in parallel")
    args = parser.parse_args(argv)
    meta = in_wheel_dir(args.wheel_dir, lambda wheels: build(wheels, args.out, args.jobs))
    repeated = sum(f["repeated_ids"] for f in meta["release_files"])
    print(f"{meta['rows']} spans from {meta['releases']} releases "
          f"({meta['first_version']}..{meta['last_version']}), {repeated} repeated ids skipped")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
