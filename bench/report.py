"""One table from the four benchmarks' JSON, printed and written to docs/benchmarks.md.

    python -m bench.report --inprocess bench-inprocess.json --http bench-http.json \\
        --pipeline bench-pipeline.json --scheduled bench-scheduled.json [--out docs/benchmarks.md]

Each row is a measure with the oracle's figure, its reference measured in the same run (the
ceiling app, genai-prices' calculator, the random-draw floor, the bundled-data refresh), their
ratio, the target and whether it is met. A missing input is left out and said so.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from bench.pipeline import peak_with_workers

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT_GETS = ("GET /v1/spots", "GET /v1/forwards/SONNET-4")
HTTP_TARGETS = {**dict.fromkeys(SNAPSHOT_GETS, 0.7), "POST /v1/price": 0.6}  # real/ceiling at 32 connections
P99_TARGET_MS = 20.0
# p99 at 32 connections, alone and beside the other (bench/http.py BESIDE): a comparison computed
# afresh for every request, and a forward curve while comparisons run.
FRESH_COMPARE = "POST /v1/compare, new body each time"
P99_TARGETS_MS = {**dict.fromkeys(HTTP_TARGETS, P99_TARGET_MS), FRESH_COMPARE: 100.0}
BESIDE_P99_TARGETS_MS = {FRESH_COMPARE: 100.0, "GET /v1/forwards/SONNET-4": 20.0}
REFRESH_TARGET_S, LARGE_REFRESH_TARGET_S = 60.0, 300.0
LARGE_RSS_TARGET_MIB = 6 * 1024  # the 100x1 universe's peak resident memory
GROWTH_TARGET = 10.0  # 10x1 to 100x1: ten times the rows may cost at most ten times the time
SCHEDULED_TARGET = 2.0  # the run the daemon launches may take at most twice `oracle refresh`'s time


def _row(area, measure, ours, reference, ratio, target, met, note="") -> dict:
    return {"area": area, "measure": measure, "ours": ours, "reference": reference, "ratio": ratio,
            "target": target, "met": met, "note": note}


def inprocess_rows(data: dict) -> list[dict]:
    return [_row("in process", r["measure"], r["ours"], r["reference"], r["ratio"], r["target"], r["met"], r["note"])
            for r in data["rows"]]


def http_rows(data: dict) -> list[dict]:
    rows = []
    for r in data["rows"]:
        endpoint, conns = r["endpoint"], r["connections"]
        floor = HTTP_TARGETS.get(endpoint) if conns == 32 else None
        rows.append(_row("HTTP", f"{endpoint}, {conns} conn: requests/s, real vs ceiling", r["rps_real"],
                         r["rps_ceiling"], r["ratio"], f"≥ {floor}" if floor else "—",
                         None if floor is None else r["ratio"] >= floor,
                         f"p50 {r['real']['p50_ms']:.2f} ms (ceiling {r['ceiling']['p50_ms']:.2f})"))
        p99 = r["real"]["p99_ms"]
        limit = P99_TARGETS_MS.get(endpoint) if conns == 32 else None
        rows.append(_row("HTTP", f"{endpoint}, {conns} conn: p99 latency (ms)", p99, r["ceiling"]["p99_ms"],
                         p99 / r["ceiling"]["p99_ms"] if r["ceiling"]["p99_ms"] else None,
                         f"< {limit:g} ms" if limit else "—", None if limit is None else p99 < limit))
    for r in data.get("beside", []):
        limit = BESIDE_P99_TARGETS_MS.get(r["endpoint"])
        rows.append(_row("HTTP", f"{r['endpoint']}, 32 conn beside {r['beside']}, 32 conn: p99 latency (ms)",
                         r["real"]["p99_ms"], None, None, f"< {limit:g} ms" if limit else "—",
                         None if limit is None else r["real"]["p99_ms"] < limit,
                         f"{r['real']['rps']:,.0f} requests/s, p50 {r['real']['p50_ms']:.2f} ms"))
    for label, ms in data.get("in_process_ms", {}).items():
        http = next(r for r in data["rows"] if r["endpoint"] == label and r["connections"] == 1)["real"]["p50_ms"]
        rows.append(_row("HTTP", f"{label}, 1 conn: p50 over HTTP against in process (ms)", http, ms, http / ms,
                         "≤ 2×", http / ms <= 2))
    if data.get("workers"):
        workers = data["workers"]
        rows.append(_row("HTTP", f"{workers['endpoint']}, 32 conn: --workers 2 against --workers 1, requests/s",
                         None, None, workers["ratio"], "—", None,
                         "rounds " + ", ".join(f"{ratio:.2f}" for ratio in workers["ratios"])))
    return rows


def pipeline_rows(data: dict) -> list[dict]:
    rows = []
    base = next((r for r in data["rows"] if r["universe"] == "1x1" and r.get("published")), None)
    for r in data["rows"]:
        label = f"refresh, universe {r['universe']} ({r['copies']}× tickers, {r['history']}× archive history)"
        if not r.get("published"):
            rows.append(_row("pipeline", label, None, None, None, "—", False, r.get("error", "not published")))
            continue
        target = {"1x1": REFRESH_TARGET_S, "100x1": LARGE_REFRESH_TARGET_S}.get(r["universe"])
        rows.append(_row("pipeline", f"{label}: wall (s)", r["wall_s"], base["wall_s"] if base else None,
                         r["wall_s"] / base["wall_s"] if base else None, f"< {target:g} s" if target else "—",
                         None if target is None else r["wall_s"] < target,
                         f"{r['tickers']:,} tickers, {r['price_history_rows']:,} history rows, peak RSS "
                         f"{r['peak_rss_mib']:,.0f} MiB"))
        if r["universe"] == "100x1":
            whole = peak_with_workers(r)
            rows.append(_row("pipeline", "refresh, universe 100x1: peak RSS with its workers' (MiB)", whole,
                             base["peak_rss_mib"] if base else None,
                             whole / base["peak_rss_mib"] if base else None,
                             f"< {LARGE_RSS_TARGET_MIB:,} MiB", whole < LARGE_RSS_TARGET_MIB,
                             f"the refresh's own {r['peak_rss_mib']:,.0f} MiB; {r.get('workers', 0)} worker "
                             "process(es) beside it in the backtest"))
    done = {r["universe"]: r for r in data["rows"] if r.get("published")}
    if "10x1" in done and "100x1" in done:
        small, large = done["10x1"], done["100x1"]
        rows.append(_row("pipeline", "refresh, 100x1 over 10x1 (ten times the rows): wall time ratio",
                         large["wall_s"], small["wall_s"], large["wall_s"] / small["wall_s"], f"≤ {GROWTH_TARGET:g}",
                         large["wall_s"] / small["wall_s"] <= GROWTH_TARGET,
                         f"{large['price_history_rows'] / small['price_history_rows']:.1f}× the history rows"))
    return rows


def scheduled_rows(data: dict) -> list[dict]:
    scheduled, cli = data["scheduled_median_s"], data["cli_median_s"]
    queued = max(r["queued_s"] for r in data["scheduled"])
    return [_row("pipeline", "refresh as the daemon runs it (run queue, run worker) vs `oracle refresh`: wall (s)",
                 scheduled, cli, scheduled / cli, f"≤ {SCHEDULED_TARGET:g}×", scheduled / cli <= SCHEDULED_TARGET,
                 f"median of {len(data['scheduled'])} each, alternating; at most {queued:.1f} s in the queue")]


def _cell(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "**no**"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def markdown(rows: list[dict], machines: dict[str, dict], missing: list[str]) -> str:
    lines = ["| area | measure | ours | reference | ratio | target | met | note |",
             "|---|---|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(_cell(r[k]) for k in ("area", "measure", "ours", "reference", "ratio", "target",
                                                         "met", "note")) + " |" for r in rows]
    described = "; ".join(f"{name}: " + ", ".join(f"{k} {v}" for k, v in info.items())
                          for name, info in machines.items())
    text = "\n".join(lines) + f"\n\nMachine — {described}.\n"
    if missing:
        text += f"\nNot measured in this run: {', '.join(missing)}.\n"
    return text


def write_document(table: str, out: Path, marker: str = "bench:table") -> None:
    """Replace the generated block between `<!-- {marker}:start -->` and its end marker,
    keeping the prose around it (the block is added at the end the first time)."""
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    block = f"{start}\n_Generated on {stamp}._\n\n{table}{end}"
    text = out.read_text() if out.exists() else "# Benchmarks\n"
    if start not in text:
        text = text.rstrip("\n") + f"\n\n{start}\n{end}\n"
    before, rest = text.split(start, 1)
    out.write_text(before + block + rest.split(end, 1)[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inprocess", default="bench-inprocess.json")
    parser.add_argument("--http", default="bench-http.json")
    parser.add_argument("--pipeline", default="bench-pipeline.json")
    parser.add_argument("--scheduled", default="bench-scheduled.json")
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    args = parser.parse_args(argv)
    rows, machines, missing = [], {}, []
    for name, path, convert in [("in process", args.inprocess, inprocess_rows), ("HTTP", args.http, http_rows),
                                ("pipeline", args.pipeline, pipeline_rows),
                                ("scheduled", args.scheduled, scheduled_rows)]:
        if not Path(path).exists():
            missing.append(f"{name} ({path} not found)")
            continue
        data = json.loads(Path(path).read_text())
        rows += convert(data)
        machines[name] = data.get("machine", {})
    table = markdown(rows, machines, missing)
    print(table)
    write_document(table, Path(args.out))
    return 0 if all(r["met"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
