"""Wall time and peak memory of a full refresh, on the bundled data and on larger synthetic universes.

    python -m bench.pipeline [--universes 1x1,10x1,100x1,1x10] [--json OUT]

A universe `KxM` lists every real model K times and repeats the archive's history M times
(`bench/synthetic.py`); `1x1` is the bundled data itself. Each universe is refreshed in a process
of its own (so its peak RSS is its own), into a temporary warehouse, with the same code path as
`oracle refresh`. The table gives the wall time, the peak RSS, the published row counts, and the
time per thousand price_history rows, whose constancy is what "growing linearly" means here.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
AS_OF = "2026-11-22"
DEFAULT_UNIVERSES = "1x1,10x1,100x1,1x10"


def run_one(copies: int, history: int) -> dict:
    """Refresh one universe in this process; the figures as a dict."""
    from assets.refresh import refresh
    from assets.worker_processes import spare_cores
    from bench.synthetic import SyntheticSources
    from warehouse.snapshot import SnapshotStore

    with tempfile.TemporaryDirectory(prefix="oracle-bench-pipeline-") as tmp, TreeMemory() as together:
        start = time.perf_counter()
        published = refresh(tmp, AS_OF, write=lambda _: None,
                            sources=SyntheticSources(copies=copies, history=history))
        wall = time.perf_counter() - start
        rows = {}
        if published:
            rows = {name: table.rows for name, table in SnapshotStore(tmp).current().tables.items()}
    return {"universe": f"{copies}x{history}", "copies": copies, "history": history, "published": published,
            "wall_s": wall, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            # The most the refresh and the worker processes it started held at once (sampled; a
            # child's own peak is no guide: a process forked to start one counts the parent's memory).
            "workers": spare_cores(), "peak_rss_with_workers_mib": together.peak_mib,
            "tickers": rows.get("models"), "price_history_rows": rows.get("price_history"),
            "backtest_rows": rows.get("backtest"), "observations": rows.get("price_observations")}


class TreeMemory:
    """The largest sum of resident memory of this process and its descendants (the refresh's
    worker processes), sampled every half second while the block runs (every tenth of a second,
    the sampling took 7% of the refresh's samples in a profile). Each process's own peak
    (`getrusage`) may come at another moment than the others', so their sum overstates it."""

    def __init__(self, every_s: float = 0.5):
        self.every_s, self.peak_mib = every_s, 0.0
        self._done = threading.Event()
        self._sampler = threading.Thread(target=self._sample, name="tree-memory", daemon=True)

    def __enter__(self) -> TreeMemory:
        self._sampler.start()
        return self

    def __exit__(self, *_) -> None:
        self._done.set()
        self._sampler.join()

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._done.wait(self.every_s):
            total = 0
            for process in [me, *me.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.Error:  # ended between the listing and the reading
                    pass
            self.peak_mib = max(self.peak_mib, total / 2**20)


def measure(universe: str, timeout: float) -> dict:
    copies, history = (int(x) for x in universe.lower().split("x"))
    done = subprocess.run([sys.executable, "-m", "bench.pipeline", "--one", universe], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        return {"universe": universe, "copies": copies, "history": history, "published": False,
                "error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def print_table(rows: list[dict]) -> None:
    base = next((r for r in rows if r.get("universe") == "1x1" and r.get("published")), None)
    print(f"{'universe':>9} {'tickers':>8} {'history rows':>13} {'wall s':>8} {'× 1x1':>6} {'peak MiB':>9} "
          f"{'+workers':>9} {'µs/row':>7}")
    for r in rows:
        if not r.get("published"):
            print(f"{r['universe']:>9}  FAILED: {r.get('error', 'not published')}")
            continue
        factor = f"{r['wall_s'] / base['wall_s']:.1f}" if base else "—"
        per_row = r["wall_s"] / r["price_history_rows"] * 1e6
        print(f"{r['universe']:>9} {r['tickers']:>8,} {r['price_history_rows']:>13,} {r['wall_s']:>8.1f} "
              f"{factor:>6} {r['peak_rss_mib']:>9.0f} {peak_with_workers(r):>9.0f} {per_row:>7.1f}")


def peak_with_workers(row: dict) -> float:
    """The most the refresh and its workers held at once: sampled, and never below its own peak."""
    return max(row["peak_rss_mib"], row.get("peak_rss_with_workers_mib", 0.0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--universes", default=DEFAULT_UNIVERSES, help="comma-separated KxM, e.g. 1x1,10x1")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds allowed per universe")
    parser.add_argument("--json", help="also write the rows and the machine here")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child: refresh one universe, print JSON
    args = parser.parse_args(argv)
    if args.one:
        copies, history = (int(x) for x in args.one.lower().split("x"))
        print(json.dumps(run_one(copies, history)))
        return 0
    rows = []
    for universe in args.universes.split(","):
        rows.append(measure(universe.strip(), args.timeout))
        print(f"  {universe}: {rows[-1].get('wall_s', float('nan')):.1f} s", file=sys.stderr, flush=True)
    print_table(rows)
    host = {"cores": os.cpu_count(), "python": platform.python_version()}
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": host, "rows": rows}, indent=2) + "\n")
    return 0 if all(r.get("published") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
