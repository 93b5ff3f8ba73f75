"""In-process benchmark of the oracle's hot paths.

    python -m bench.inprocess [--warehouse PATH] [--json OUT] [--quick]

Every time is the median of repeated `time.perf_counter` timings, each long enough (>= 50 ms of
inner iterations) to rise above timer noise; every ratio compares two measurements taken in the
same run, interleaved, so a noisy shared machine slows both sides alike.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from pipelines.forecast import read_processes
from pipelines.pricing import PriceBook, Rates, task_cost
from pipelines.spots import rate_columns
from warehouse.snapshot import SnapshotStore

ROOT = Path(__file__).resolve().parents[1]
MIN_TIMING = 0.05  # seconds one timing must last at least
N_IN, N_OUT, ETA = 30000, 800, 0.6
HORIZONS, PATHS, SEED = [1, 2, 3, 4, 5, 6], 100_000, 1
GENAI_WHEN = datetime(2026, 11, 22, tzinfo=UTC)  # fixed, so genai-prices never looks at the clock


def _inner(fn) -> int:
    """How many calls make one timing last at least MIN_TIMING."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - start >= MIN_TIMING:
            return n
        n *= 2


def timed(fns: dict[str, object], repeats: int) -> dict[str, float]:
    """Median seconds per call of each function; the functions' timings are interleaved."""
    inner = {name: _inner(fn) for name, fn in fns.items()}
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            n = inner[name]
            start = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - start) / n)
    return {name: statistics.median(values) for name, values in samples.items()}


def row(measure, ours, reference, unit, target, met, note="") -> dict:
    ratio = ours / reference if reference else None
    return {"measure": measure, "unit": unit, "ours": ours, "reference": reference, "ratio": ratio,
            "target": target, "met": met, "note": note}


def bench_task_cost(spots, repeats: int) -> list[dict]:
    from genai_prices import Usage, calc_price

    sonnet = spots.loc[spots["ticker"] == "SONNET-4"].iloc[0]
    rates = Rates.from_row(sonnet, rate_columns("sync"))
    usage = Usage(input_tokens=N_IN, cache_read_tokens=int(N_IN * ETA), output_tokens=N_OUT)

    def ours():
        return task_cost(rates, n_in=N_IN, n_out=N_OUT, eta=ETA)

    def theirs():
        return calc_price(usage, model_ref="claude-sonnet-4-20250514", provider_id="anthropic",
                          genai_request_timestamp=GENAI_WHEN)

    a, b = ours().spot_cost, float(theirs().total_price)
    agree = abs(a - b) <= 1e-9 * max(1.0, abs(b))
    t = timed({"ours": ours, "theirs": theirs}, repeats)
    speedup = t["theirs"] / t["ours"]
    return [row("task_cost SONNET-4 (µs/call) vs genai_prices.calc_price", t["ours"] * 1e6, t["theirs"] * 1e6,
                "µs", "ours ≥10× faster", speedup >= 10,
                f"speedup {speedup:.1f}×; ${a:.6f} vs ${b:.6f}" + ("" if agree else " DISAGREE"))]


def bench_compare(spots, warehouse: Path, repeats: int) -> list[dict]:
    """A comparison over all models as the server makes one: `rank` on the snapshot's price book
    and roster, which the server keeps per snapshot (fit checks, every cost, the order, the
    reasons of those left out); then the same plus the answer's records."""
    from pipelines.quotes import Roster, rank
    from pipelines.tasks import Profile

    book, roster = PriceBook.of(spots, rate_columns("sync")), Roster.of(spots)
    profile = Profile(N_IN, N_OUT, ETA)
    t = timed({"rank": lambda: rank(spots, profile, "sync", book=book, roster=roster)}, repeats)
    ranking = rank(spots, profile, "sync", book=book, roster=roster)
    rows = [row(f"compare {len(spots)} models: rank on the price book (ms)", t["rank"] * 1e3, None, "ms",
                "< 2 ms", t["rank"] < 2e-3, f"{len(ranking.order)} ranked, {len(ranking.excluded_rows)} excluded")]
    try:
        from serve.api.pricing import CompareRequest, compare_data
        from serve.state import SnapshotState
    except ImportError as error:  # the serve layer is optional for this piece
        return rows + [row("compare_data end to end (ms)", None, None, "ms", "—", None, f"skipped: {error}")]
    snapshot = SnapshotState(warehouse, timedelta(hours=1e6)).current()
    body = CompareRequest(n_in=N_IN, n_out=N_OUT, eta=ETA)
    start = time.perf_counter()
    compare_data(snapshot, body)  # reads the tables and fills the per-snapshot memo
    cold = time.perf_counter() - start
    t = timed({"serve": lambda: compare_data(snapshot, body)}, repeats)
    return rows + [row("compare_data: rank + the answer's records, warm snapshot (ms)", t["serve"] * 1e3, None,
                       "ms", "—", None, f"first call {cold * 1e3:.0f} ms")]


def _draws_only(paths: int) -> None:
    """The floor: the random numbers a path draws (a uniform for its time of change, one for its
    ratio), in the same order, and nothing else."""
    rng = np.random.default_rng(SEED)
    rng.random(paths)
    rng.random(paths)


def bench_montecarlo(processes, change_laws, repeats: int) -> list[dict]:
    fitted = read_processes(processes, change_laws)
    key = max(fitted, key=lambda k: fitted[k].by_month[-1])
    process = fitted[key]

    def simulate():
        return process.sample(HORIZONS, PATHS, np.random.default_rng(SEED))

    t = timed({"sim": simulate, "floor": lambda: _draws_only(PATHS)}, repeats)
    tracemalloc.start()
    result = simulate()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    need = result.nbytes / 2**20
    return [
        row(f"Process.sample {key[0]} {PATHS:,}×{len(HORIZONS)} (ms) vs RNG draws alone",
            t["sim"] * 1e3, t["floor"] * 1e3, "ms", "—", None,
            f"P(change by 12 months) {process.by_month[-1]:.3f}"),
        row("Process.sample peak traced memory (MiB) vs result array", peak, need, "MiB", "—", None),
    ]


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__}


def _fmt(value) -> str:
    if value is None:
        return "—"
    return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"


def print_table(rows: list[dict], info: dict) -> None:
    header = ("measure", "ours", "reference", "ratio", "target", "met?")
    lines = [(r["measure"], _fmt(r["ours"]), _fmt(r["reference"]),
              "—" if r["ratio"] is None else f"{r['ratio']:.3g}", r["target"],
              "—" if r["met"] is None else ("yes" if r["met"] else "NO")) for r in rows]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *lines, strict=True)]
    for cells in [header, tuple("-" * w for w in widths), *lines]:
        print("  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
    for r in rows:
        if r["note"]:
            print(f"  * {r['measure']}: {r['note']}")
    print(f"machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}, numpy {info['numpy']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", default=os.environ.get("ORACLE_WAREHOUSE") or "warehouse/snapshots")
    parser.add_argument("--json", dest="json_out", default=None, help="write the rows as JSON here")
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args(argv)
    warehouse = Path(args.warehouse).resolve()
    store = SnapshotStore(warehouse)
    manifest = store.current()
    if manifest is None:
        parser.error(f"no snapshot in {warehouse}")
    spots = store.read_table("spots", manifest)
    repeats = 3 if args.quick else 9

    rows = bench_task_cost(spots, repeats)
    rows += bench_compare(spots, warehouse, repeats)
    rows += bench_montecarlo(store.read_table("processes", manifest), store.read_table("change_laws", manifest),
                             repeats)
    info = machine() | {"snapshot": manifest.snapshot_id, "repeats": repeats}
    print_table(rows, info)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"machine": info, "rows": rows}, indent=2, ensure_ascii=False))
    return 0 if all(r["met"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
