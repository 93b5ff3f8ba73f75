"""Sustained load: the API driven at its top rate by many keyed clients, loopback only.

    python -m bench.load [--warehouse PATH] [--seconds 120] [--keys 50] [--connections 64]

`oracle serve` runs on a fresh key database holding `--keys` enterprise keys; wrk (Debian's
package) keeps `--connections` connections busy for `--seconds`, each request with the next key
and the next request of a mix (snapshot GETs, prices, a comparison, a Monte Carlo run with a new
seed). Reported: requests, errors (non-2xx and socket errors; the run fails on any), latency
percentiles, and the server's resident memory after the warm-up and at the end. The figures go
into docs/benchmarks.md between the load markers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from bench.http import ROOT, free_port, parse_wrk, start_server, stop_server, wait_healthy
from bench.report import write_document

MIX = [  # (method, path, body); repeated entries weigh more
    *[("GET", "/v1/spots", None)] * 3,
    *[("GET", "/v1/forwards/SONNET-4", None)] * 3,
    *[("GET", "/v1/spots/O3", None)] * 2,
    ("GET", "/v1/greeks/GPT-5", None),
    ("GET", "/v1/history/O3?from=2025-06-01&to=2025-07-01", None),
    ("GET", "/v1/ici?type=unified", None),
    ("GET", "/v1/events?limit=20", None),
    *[("POST", "/v1/price", {"model": "SONNET-4", "n_in": 30000, "n_out": 800, "eta": 0.6})] * 3,
    ("POST", "/v1/providers", {"model": "SONNET-4", "n_in": 30000, "n_out": 800}),
    ("POST", "/v1/compare", {"n_in": 30000, "n_out": 800, "eta": 0.6}),
    ("GET", "/v1/monte-carlo/SONNET-4?taskCategory=chat&horizonMonths=3&paths=2000&seed=", None),
]


def lua_script(keys: list[str]) -> str:
    def entry(method: str, path: str, body: dict | None) -> str:
        return f"  {{{json.dumps(method)}, {json.dumps(path)}, {json.dumps(json.dumps(body)) if body else 'nil'}}}"

    entries = ",\n".join(entry(*request) for request in MIX)
    return "\n".join([
        "keys = {" + ", ".join(json.dumps(k) for k in keys) + "}",
        "mix = {\n" + entries + "\n}",
        "math.randomseed(os.time())",
        'function setup(thread) thread:set("counter", math.random(0, 2000000) * 1000) end',
        "request = function()",
        "  counter = counter + 1",
        "  local entry = mix[(counter % #mix) + 1]",
        "  local path = entry[2]",
        '  if string.sub(path, -5) == "seed=" then path = path .. counter end',  # a new simulation each time
        '  local headers = {["X-API-Key"] = keys[(counter % #keys) + 1]}',
        '  if entry[3] then headers["Content-Type"] = "application/json" end',
        "  return wrk.format(entry[1], path, headers, entry[3])",
        "end",
    ]) + "\n"


def rss_mib(pid: int) -> float:
    """Resident memory of the server process and its children (uvicorn runs in the process itself)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1)) / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", default=os.environ.get("ORACLE_WAREHOUSE") or "warehouse/snapshots")
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--keys", type=int, default=50)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    args = parser.parse_args(argv)
    from serve.access.factory import key_store_from

    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        data = Path(tmp) / "data"
        store = key_store_from(data)
        keys = [store.create(f"load {i}", "enterprise", datetime.now(UTC))[0] for i in range(args.keys)]
        store.close()
        script = Path(tmp) / "load.lua"
        script.write_text(lua_script(keys))
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = start_server([sys.executable, str(ROOT / "cli.py"), "serve", "--host", "127.0.0.1", "--port",
                               str(port), "--warehouse", str(Path(args.warehouse).resolve())],
                              {"ORACLE_DATA": str(data)})
        try:
            wait_healthy(base, server)
            wrk = ["wrk", "-t2", f"-c{args.connections}", "--timeout", "30s", "--latency", "-s", str(script)]
            subprocess.run([*wrk, "-d10s", base], capture_output=True, check=True)  # warm-up: every answer made once
            start_rss = rss_mib(server.pid)
            done = subprocess.run([*wrk, f"-d{args.seconds}s", base], capture_output=True, text=True, check=True)
            end_rss = rss_mib(server.pid)
        finally:
            stop_server(server)
    result = parse_wrk(done.stdout)
    percentiles = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", done.stdout, re.M))
    errors = result.non_2xx + result.socket_errors
    table = "\n".join([
        "| measure | value |", "|---|---|",
        f"| duration, connections, keys | {args.seconds} s, {args.connections}, {args.keys} enterprise keys |",
        f"| requests (mix of {len(MIX)}: snapshot GETs, prices, a comparison, Monte Carlo) | {result.requests:,} |",
        f"| requests per second | {result.rps:,.0f} |",
        f"| errors (non-2xx, socket) | {result.non_2xx}, {result.socket_errors} |",
        "| latency p50 / p75 / p90 / p99 | " + " / ".join(percentiles.get(p, "—") for p in ("50", "75", "90", "99"))
        + " |",
        f"| server RSS after warm-up → at the end | {start_rss:,.0f} MiB → {end_rss:,.0f} MiB "
        f"({end_rss - start_rss:+,.0f} MiB) |",
    ]) + "\n"
    print(table)
    write_document(table, Path(args.out), marker="load")
    return 1 if errors or result.requests == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
