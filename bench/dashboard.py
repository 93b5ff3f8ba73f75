"""How fast the dashboard's pages get their data: on a warm server, and on a first visit over a
slow connection.

    python -m bench.dashboard [--warehouse PATH] [--loads N] [--slow-loads N] [--json OUT] [--write]

Starts `oracle serve` on the snapshot (free tier lifted, so the limit never bites) and Chromium.

- **Warm server:** loads every page once to warm the server, then each page N times, each in a
  fresh browser context (an empty HTTP cache, so every /v1 request reaches the server), and reads
  the Performance resource timing of the page's own /v1 requests, keeping the slowest. Target:
  every page's slowest /v1 request under 300 ms.
- **First visit, slow connection:** each page in a fresh context at phone size, the network
  throttled through the DevTools protocol to DevTools' "Slow 4G" (562.5 ms added to every
  request, 1.44 Mbit/s down, 675 kbit/s up). Measured per load: the bytes transferred (every
  response of the page, headers included, as Chromium counts them) and the time to data, from
  the start of the navigation to when the page has shown itself and the last of its /v1 answers
  has arrived. The median of the loads is kept. Target: the board under 300 KB and under 3 s.

Prints both tables; `--write` also writes the second into docs/benchmarks.md. Exit 1 if a target
is missed, 2 if Chromium or Playwright is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from bench.http import free_port, start_server, stop_server, wait_healthy
from bench.report import write_document

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PAGES = [
    ("board", "/dashboard"),
    ("model", "/dashboard/models/GPT-4O"),
    ("calculator", "/dashboard/calculator?n_in=30000&n_out=800&eta=0.6&n_think=2000&horizon=3"),
    ("index", "/dashboard/index"),
    ("accuracy", "/dashboard/accuracy?tenor=3M"),
]
TARGET_MS = 300.0
# DevTools' "Slow 4G" preset, as Chromium applies it: latency per request, throughput in bytes/s.
SLOW_4G = {"offline": False, "latency": 562.5, "downloadThroughput": 1.6e6 * 0.9 / 8,
           "uploadThroughput": 750e3 * 0.9 / 8}
PHONE = {"width": 390, "height": 844}
BOARD_TARGETS = {"kilobytes": 300.0, "seconds": 3.0}
# The page's own /v1 requests, each from its start to the last byte of its answer (`ms`), and when
# that last byte came, in ms from the start of the navigation (`end`).
API_TIMINGS = """() => performance.getEntriesByType('resource')
    .filter(entry => new URL(entry.name).pathname.startsWith('/v1'))
    .map(entry => ({path: new URL(entry.name).pathname + new URL(entry.name).search,
                    ms: entry.responseEnd - entry.startTime, end: entry.responseEnd}))"""


def load(browser, url: str) -> tuple[float, list[dict]]:
    """(milliseconds until the page was filled in, its /v1 request timings)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        started = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("main[aria-busy='false']", timeout=30_000)
        ready_ms = (time.perf_counter() - started) * 1000
        page.wait_for_load_state("networkidle")  # every request's timing entry is complete
        return ready_ms, page.evaluate(API_TIMINGS)
    finally:
        context.close()


def measure(browser, base: str, loads: int) -> list[dict]:
    for _, path in PAGES:  # warm: the server's snapshot tables and kept answers
        load(browser, base + path)
    rows = []
    for name, path in PAGES:
        slowest, ready, requests = [], [], 0
        for _ in range(loads):
            ready_ms, timings = load(browser, base + path)
            if not timings:
                raise RuntimeError(f"{name}: the page made no /v1 request")
            worst = max(timings, key=lambda timing: timing["ms"])
            slowest.append(worst)
            ready.append(ready_ms)
            requests = len(timings)
        rows.append({
            "page": name, "path": path, "loads": loads, "v1_requests": requests,
            "slowest_v1_median_ms": round(statistics.median(t["ms"] for t in slowest), 1),
            "slowest_v1_worst_ms": round(max(t["ms"] for t in slowest), 1),
            "slowest_v1_path": max(slowest, key=lambda timing: timing["ms"])["path"],
            "ready_median_ms": round(statistics.median(ready), 1),
        })
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"{'page':<11} {'/v1 calls':>9} {'slowest /v1 median':>19} {'worst':>8} {'page ready':>11}  slowest call")
    for row in rows:
        print(f"{row['page']:<11} {row['v1_requests']:>9} {row['slowest_v1_median_ms']:>16.1f} ms "
              f"{row['slowest_v1_worst_ms']:>5.1f} ms {row['ready_median_ms']:>8.1f} ms  {row['slowest_v1_path']}")



def first_visit(browser, url: str) -> dict:
    """One cold load of `url` over the slow connection: bytes, requests, time to data."""
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        devtools = context.new_cdp_session(page)
        devtools.send("Network.enable")
        devtools.send("Network.emulateNetworkConditions", SLOW_4G)
        received: dict[str, int] = {}
        devtools.on("Network.loadingFinished",
                    lambda event: received.__setitem__(event["requestId"], event["encodedDataLength"]))
        page.goto(url)
        page.wait_for_selector("main[aria-busy='false']", timeout=60_000)
        shown_ms = page.evaluate("() => performance.now()")
        page.wait_for_load_state("networkidle")
        last_answer_ms = max([timing["end"] for timing in page.evaluate(API_TIMINGS)], default=0.0)
        return {"bytes": sum(received.values()), "requests": len(received),
                "ms": max(shown_ms, last_answer_ms)}
    finally:
        context.close()


def measure_first_visits(browser, base: str, loads: int) -> list[dict]:
    rows = []
    for name, path in PAGES:
        visits = [first_visit(browser, base + path) for _ in range(loads)]
        rows.append({"page": name, "path": path, "loads": loads,
                     "kilobytes": round(statistics.median(v["bytes"] for v in visits) / 1000, 1),
                     "requests": int(statistics.median(v["requests"] for v in visits)),
                     "seconds": round(statistics.median(v["ms"] for v in visits) / 1000, 2)})
    return rows


def first_visit_table(rows: list[dict]) -> str:
    lines = ["| page | address | transferred (KB) | requests | time to data (s) | target |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        target = (f"< {BOARD_TARGETS['kilobytes']:.0f} KB, < {BOARD_TARGETS['seconds']:.0f} s: "
                  + ("met" if board_meets(row) else "**not met**")) if row["page"] == "board" else "—"
        lines.append(f"| {row['page']} | `{row['path']}` | {row['kilobytes']:.1f} | {row['requests']} | "
                     f"{row['seconds']:.2f} | {target} |")
    return "\n".join(lines) + (f"\n\nMedian of {rows[0]['loads']} first visits per page, each in a new browser "
                               "context at 390×844, over DevTools' Slow 4G.\n")


def board_meets(row: dict) -> bool:
    return all(row[measure] < limit for measure, limit in BOARD_TARGETS.items())


class NoBrowser(RuntimeError):
    """Playwright or Chromium is not on this machine."""


@contextmanager
def served_to_chromium(warehouse: str, lifted: bool = True):
    """(Chromium, the base URL of `oracle serve` on `warehouse`); `lifted`: with no limit that
    could bite, else with the default limits."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as missing:
        raise NoBrowser("Playwright is not installed (pip install -e '.[test]')") from missing
    if not CHROMIUM.exists():
        raise NoBrowser(f"no browser at {CHROMIUM} (apt-get install chromium)")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    limits = {"ORACLE_FREE_REQUESTS_PER_HOUR": str(10**9), "ORACLE_DASHBOARD_REQUESTS_PER_HOUR": str(10**9)}
    with tempfile.TemporaryDirectory(prefix="dashboard-") as tmp:
        server = start_server([sys.executable, str(ROOT / "cli.py"), "serve", "--host", "127.0.0.1", "--port",
                               str(port), "--warehouse", str(Path(warehouse).resolve())],
                              {"ORACLE_DATA": str(Path(tmp) / "data"), **(limits if lifted else {})})
        try:
            wait_healthy(base, server)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                try:
                    yield browser, base
                finally:
                    browser.close()
        finally:
            stop_server(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", default=os.environ.get("ORACLE_WAREHOUSE") or "warehouse/snapshots")
    parser.add_argument("--loads", type=int, default=10, help="measured loads per page")
    parser.add_argument("--slow-loads", type=int, default=3, help="first visits per page on the slow connection")
    parser.add_argument("--json", help="also write the rows here")
    parser.add_argument("--write", action="store_true", help="write the first visits' table into docs/benchmarks.md")
    args = parser.parse_args()
    try:
        with served_to_chromium(args.warehouse) as (browser, base):
            rows = measure(browser, base, args.loads)
            visits = measure_first_visits(browser, base, args.slow_loads)
    except NoBrowser as missing:
        print(missing, file=sys.stderr)
        return 2
    print_table(rows)
    visits_table = first_visit_table(visits)
    print()
    print(visits_table)
    if args.write:
        write_document(visits_table, ROOT / "docs" / "benchmarks.md", marker="dashboard")
    if args.json:
        Path(args.json).write_text(json.dumps({"target_ms": TARGET_MS, "rows": rows, "first_visits": visits},
                                              indent=2) + "\n")
    slow = [row["page"] for row in rows if row["slowest_v1_worst_ms"] > TARGET_MS]
    for page in slow:
        print(f"FAIL {page}: a /v1 request took more than {TARGET_MS:.0f} ms", file=sys.stderr)
    heavy = [row["page"] for row in visits if row["page"] == "board" and not board_meets(row)]
    for page in heavy:
        print(f"FAIL {page}: a first visit over the slow connection missed its targets", file=sys.stderr)
    return 1 if slow or heavy else 0


if __name__ == "__main__":
    sys.exit(main())
