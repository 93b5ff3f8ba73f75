"""How fast the dashboard's pages get their data from a warm server, measured in Chromium.

    python -m bench.dashboard [--warehouse PATH] [--loads N] [--json OUT]

Starts `oracle serve` on the snapshot (free tier lifted, so the limit never bites), loads every
page once to warm the server, then loads each page N times, each time in a fresh browser context
(an empty HTTP cache, so every /v1 request reaches the server). For each load it reads the
Performance resource timing of the page's own /v1 requests and keeps the slowest; it prints,
per page, the median and the worst of those, and the median time until the page was filled in.
The target is every page's slowest /v1 request under 300 ms; exit 1 if a worst figure is above
it, 2 if Chromium or Playwright is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.http import free_port, start_server, stop_server, wait_healthy

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
# The page's own /v1 requests, each from its start to the last byte of its answer.
API_TIMINGS = """() => performance.getEntriesByType('resource')
    .filter(entry => new URL(entry.name).pathname.startsWith('/v1'))
    .map(entry => ({path: new URL(entry.name).pathname + new URL(entry.name).search,
                    ms: entry.responseEnd - entry.startTime}))"""


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", default=os.environ.get("ORACLE_WAREHOUSE") or "warehouse/snapshots")
    parser.add_argument("--loads", type=int, default=10, help="measured loads per page")
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("Playwright is not installed (pip install -e '.[test]')", file=sys.stderr)
        return 2
    if not CHROMIUM.exists():
        print(f"no browser at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 2
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="bench-dashboard-") as tmp:
        server = start_server([sys.executable, str(ROOT / "cli.py"), "serve", "--host", "127.0.0.1", "--port",
                               str(port), "--warehouse", str(Path(args.warehouse).resolve())],
                              {"ORACLE_DATA": str(Path(tmp) / "data"), "ORACLE_FREE_REQUESTS_PER_HOUR": str(10**9)})
        try:
            wait_healthy(base, server)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                try:
                    rows = measure(browser, base, args.loads)
                finally:
                    browser.close()
        finally:
            stop_server(server)
    print_table(rows)
    if args.json:
        Path(args.json).write_text(json.dumps({"target_ms": TARGET_MS, "rows": rows}, indent=2) + "\n")
    slow = [row["page"] for row in rows if row["slowest_v1_worst_ms"] > TARGET_MS]
    for page in slow:
        print(f"FAIL {page}: a /v1 request took more than {TARGET_MS:.0f} ms", file=sys.stderr)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
