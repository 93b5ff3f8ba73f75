"""HTTP throughput of the real API against a ceiling app of the same stack, measured with wrk.

    python -m bench.http [--warehouse PATH] [--duration SECONDS] [--json OUT]

The real app runs as `oracle serve` does (uvicorn, one worker, default loop and http, the
oracle's own access log written to stdout) with a key of the `internal` tier, so rate limits
never bite. The ceiling app (`bench/ceiling.py`) is the bare stack: Litestar under uvicorn with
no access log, serving each endpoint's real response bytes as a constant, so the ratio
real/ceiling is the share of the stack's capacity left after the oracle's own work, its access
log included. Requests ask for no compression unless the label says so (`brotli`: the real app
sends its precompressed answer, the ceiling the plain bytes, as a bare stack would).

Side by side: a comparison over all models at 32 connections and a forward curve at 32 more,
both at once, for the latency each keeps while the other runs. In process: each POST with a new
body each time, through the whole app called as ASGI in this process (no network, the same key,
the access log written to /dev/null), its median time beside its p50 over HTTP at one connection.
Real and ceiling runs are interleaved per endpoint, in `--rounds` rounds whose order alternates,
so a noisy machine hits both alike: a ratio is the median of the rounds' ratios. Only ratios from
the same run should be compared across machines. Exit 1 if any response is not
2xx (or a socket error occurs, or a run completes no request), 2 if wrk is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
@dataclass(frozen=True)
class Endpoint:
    label: str
    method: str
    path: str
    body: dict | None = None  # JSON
    headers: dict[str, str] | None = None  # beside the key
    # A new body on every request (its n_in counts up), so no answer is a repeat sent from memory:
    # what is measured is the computation. Otherwise every request repeats the same body.
    fresh: bool = False


PRICE = {"model": "SONNET-4", "n_in": 30000, "n_out": 800, "eta": 0.6}
COMPARE = {"n_in": 30000, "n_out": 800, "eta": 0.6}
# The Monte Carlo GET is asked with a new seed each time (see lua_script): the same seed twice is
# the same answer, which the server sends from memory, and what is measured is the simulation.
ENDPOINTS = [
    Endpoint("GET /v1/spots", "GET", "/v1/spots"),
    Endpoint("GET /v1/spots, brotli", "GET", "/v1/spots", headers={"Accept-Encoding": "br"}),
    Endpoint("GET /v1/forwards/SONNET-4", "GET", "/v1/forwards/SONNET-4"),
    Endpoint("POST /v1/price", "POST", "/v1/price", PRICE),
    Endpoint("POST /v1/price, new body each time", "POST", "/v1/price", PRICE, fresh=True),
    Endpoint("POST /v1/compare", "POST", "/v1/compare", COMPARE),
    Endpoint("POST /v1/compare, new body each time", "POST", "/v1/compare", COMPARE, fresh=True),
    Endpoint("GET /v1/monte-carlo/SONNET-4", "GET", "/v1/monte-carlo/SONNET-4?taskCategory=chat&horizonMonths=3"),
]
LOADS = [(1, 1), (2, 32)]  # (wrk threads, connections)
# Measured at once, 32 connections each: comparisons computed afresh beside a forward curve.
BESIDE = ("POST /v1/compare, new body each time", "GET /v1/forwards/SONNET-4")
WARM_UP_SECONDS = 2


@dataclass
class WrkResult:
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    non_2xx: int
    socket_errors: int


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def create_internal_key(data_dir: Path) -> str:
    """A fresh `internal` key in `data_dir`, through the CLI as an operator would make it."""
    out = subprocess.run([sys.executable, str(ROOT / "cli.py"), "keys", "create", "--name", "bench",
                          "--tier", "internal", "--data", str(data_dir)],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return re.search(r"^key:\s*(\S+)", out, re.M).group(1)


def start_server(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    """A server in a process group of its own, so stopping it reaches every child."""
    return subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def wait_healthy(base: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server for {base} exited with {process.returncode}")
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server for {base} not healthy within {timeout:.0f} s")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


# The real answer's headers that the ceiling sends too with --ceiling-headers: all but those the
# stack writes itself (type, length, date).
STACK_HEADERS = {"content-type", "content-length", "date"}


def fetch_real_responses(base: str, key: str) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Each endpoint's real response body, fetched once (these exact bytes are the ceiling's), and
    its headers other than STACK_HEADERS."""
    payloads, headers = {}, {}
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=60) as client:
        for e in ENDPOINTS:
            response = client.request(e.method, e.path, json=e.body, headers={"Accept-Encoding": "identity"})
            if response.status_code != 200:
                raise RuntimeError(f"{e.label}: {response.status_code} {response.text[:300]}")
            payloads[e.path.split("?")[0]] = response.content.decode()
            headers[e.path.split("?")[0]] = {k: v for k, v in response.headers.items() if k not in STACK_HEADERS}
    return payloads, headers


def check_ceiling_sizes(base: str, payloads: dict[str, str]) -> None:
    for path, body in payloads.items():
        served = httpx.get(f"{base}{path}", timeout=30).content
        if served != body.encode():
            raise RuntimeError(f"ceiling serves {len(served)} bytes on {path}, real {len(body.encode())}")


def _counting(request: str) -> list[str]:
    """Lua lines making each request with `request`, a wrk.format expression of `counter`, which
    each thread counts up from a random start of its own, new on every run."""
    return ["math.randomseed(os.time())",
            'function setup(thread) thread:set("counter", math.random(0, 2000000) * 1000) end',
            "request = function()", "  counter = counter + 1", f"  return {request}", "end"]


def lua_script(directory: Path, endpoint: Endpoint, key: str) -> Path:
    """A wrk script setting the method, the key header, any other headers and, for POST, the
    JSON body (a new one per request if the endpoint is `fresh`); a Monte Carlo path gets a
    fresh seed per request."""
    method, body, path, headers = endpoint.method, endpoint.body, endpoint.path, endpoint.headers
    lines = [f'wrk.method = "{method}"', f'wrk.headers["X-API-Key"] = "{key}"']
    lines += [f'wrk.headers["{name}"] = "{value}"' for name, value in (headers or {}).items()]
    if body is not None:
        lines += ['wrk.headers["Content-Type"] = "application/json"', f"wrk.body = {json.dumps(json.dumps(body))}"]
    if endpoint.fresh:  # n_in grows by a millionth a request from a random start: no two requests alike
        rest = json.dumps({k: v for k, v in body.items() if k != "n_in"})[1:]
        lines += _counting(f"wrk.format(nil, nil, nil, '{{\"n_in\": ' .. ({body['n_in']} + counter / 1e6) .. ', ' .. "
                           f"{json.dumps(rest)})")
    if "monte-carlo" in path:
        lines += _counting(f'wrk.format(nil, "{path}&seed=" .. counter)')
    script = directory / f"{method.lower()}-{abs(hash(endpoint.label))}.lua"
    script.write_text("\n".join(lines) + "\n")
    return script


def to_ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", value).groups()
    return float(number) * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4, "h": 3.6e6}[unit]


def parse_wrk(output: str) -> WrkResult:
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", output, re.M))
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return WrkResult(rps=float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
                     p50_ms=to_ms(latency["50"]), p99_ms=to_ms(latency["99"]),
                     requests=int(re.search(r"(\d+) requests in", output).group(1)),
                     non_2xx=int(non_2xx.group(1)) if non_2xx else 0,
                     socket_errors=sum(map(int, errors.groups())) if errors else 0)


def run_wrk(url: str, script: Path, threads: int, connections: int, seconds: int) -> WrkResult:
    argv = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s",
            "--latency", "-s", str(script), url]
    completed = subprocess.run(argv, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {completed.stderr.strip() or completed.stdout.strip()}")
    return parse_wrk(completed.stdout)


def measure(bases: dict[str, str], script_dir: Path, key: str, seconds: int, endpoints: list[Endpoint],
            rounds: int = 1) -> list[dict]:
    """Every endpoint at every load, real and ceiling back to back, each after a warm-up run, in
    `rounds` rounds; which goes first alternates, so a drift in the machine's speed does not
    favour one. A row holds the round whose ratio is the median (its rates and latencies), and
    every round's ratio."""
    rows, turn = [], 0
    for endpoint in endpoints:
        label, path = endpoint.label, endpoint.path
        script = lua_script(script_dir, endpoint, key)
        for threads, connections in LOADS:
            measured = []
            for _ in range(rounds):
                order = ["real", "ceiling"] if turn % 2 == 0 else ["ceiling", "real"]
                turn += 1
                results = {}
                for app in order:
                    run_wrk(bases[app] + path, script, threads, connections, WARM_UP_SECONDS)
                    results[app] = run_wrk(bases[app] + path, script, threads, connections, seconds)
                real, ceiling = results["real"], results["ceiling"]
                measured.append((real.rps / ceiling.rps if ceiling.rps else 0.0, real, ceiling))
                print(f"  {label:30} c={connections:<3} real {real.rps:9.1f}/s  ceiling {ceiling.rps:9.1f}/s",
                      file=sys.stderr, flush=True)
            ratio, real, ceiling = sorted(measured, key=lambda m: m[0])[(len(measured) - 1) // 2]
            rows.append({"endpoint": label, "connections": connections,
                         "rps_real": real.rps, "rps_ceiling": ceiling.rps, "ratio": ratio,
                         "ratios": [m[0] for m in measured], "real": asdict(real), "ceiling": asdict(ceiling)})
    return rows


def in_process_ms(warehouse: str, data_dir: Path, key: str, endpoints: list[Endpoint], calls: int = 2000) -> dict:
    """Each POST endpoint's median time through the whole app called as ASGI in this process, with
    a new body each call as its `fresh` wrk script sends (n_in counting up by a millionth)."""
    import asyncio

    from serve.app import create_app
    from serve.settings import Settings

    settings = Settings(warehouse=warehouse, data=str(data_dir), access_log="/dev/null")
    app = create_app(settings)

    async def one(endpoint: Endpoint, n_in: float) -> None:
        body = json.dumps({**endpoint.body, "n_in": n_in}).encode()
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                 "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 40000), "root_path": "",
                 "path": endpoint.path, "raw_path": endpoint.path.encode(), "query_string": b"",
                 "headers": [(b"host", b"127.0.0.1"), (b"x-api-key", key.encode()),
                             (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]}
        pending = [{"type": "http.request", "body": body, "more_body": False}]
        statuses = []

        async def receive():
            return pending.pop() if pending else {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.start":
                statuses.append(message["status"])

        await app(scope, receive, send)
        if statuses != [200]:
            raise RuntimeError(f"in process {endpoint.label}: status {statuses}")

    async def run() -> dict:
        times = {}
        async with app.lifespan():
            for endpoint in endpoints:
                start = endpoint.body["n_in"] + 0.5  # apart from the bodies wrk sent the server
                for i in range(calls // 10):  # warm-up
                    await one(endpoint, start + i / 1e6)
                taken = []
                for i in range(calls):
                    began = time.perf_counter()
                    await one(endpoint, start + (calls + i) / 1e6)
                    taken.append(time.perf_counter() - began)
                times[endpoint.label] = 1e3 * sorted(taken)[len(taken) // 2]
        return times

    return asyncio.run(run())


def measure_beside(base: str, script_dir: Path, key: str, seconds: int) -> list[dict]:
    """The BESIDE endpoints loaded at once on the real app, 32 connections each (one wrk thread
    each, as two loads share the machine): each one's rate and latency while the other runs."""
    chosen = [next(e for e in ENDPOINTS if e.label == label) for label in BESIDE]
    scripts = [lua_script(script_dir, endpoint, key) for endpoint in chosen]
    results: dict[str, WrkResult] = {}

    def one(label: str, path: str, script: Path, run_seconds: int) -> None:
        results[label] = run_wrk(base + path, script, 1, 32, run_seconds)

    for run_seconds in (WARM_UP_SECONDS, seconds):
        loads = [threading.Thread(target=one, args=(label, path, script, run_seconds))
                 for (label, path), script in zip([(e.label, e.path) for e in chosen], scripts, strict=True)]
        for load in loads:
            load.start()
        for load in loads:
            load.join()
    rows = [{"endpoint": label, "beside": [other for other in BESIDE if other != label][0], "connections": 32,
             "real": asdict(results[label])} for label in BESIDE]
    for row in rows:
        print(f"  {row['endpoint']:30} c=32 beside {row['beside']}: {row['real']['rps']:9.1f}/s "
              f"p99 {row['real']['p99_ms']:.1f} ms", file=sys.stderr, flush=True)
    return rows


WORKERS_ENDPOINT = "GET /v1/forwards/SONNET-4"


def measure_workers(bases: dict[str, str], script_dir: Path, key: str, seconds: int, rounds: int) -> dict:
    """A forward curve at 32 connections from `oracle serve --workers 2` against `--workers 1`,
    in turns: the throughput ratio is the median of the rounds'."""
    endpoint = next(e for e in ENDPOINTS if e.label == WORKERS_ENDPOINT)
    script = lua_script(script_dir, endpoint, key)
    ratios = []
    for turn in range(rounds):
        rates = {}
        for server in (["one", "two"] if turn % 2 == 0 else ["two", "one"]):
            run_wrk(bases[server] + endpoint.path, script, 2, 32, WARM_UP_SECONDS)
            rates[server] = run_wrk(bases[server] + endpoint.path, script, 2, 32, seconds).rps
        ratios.append(rates["two"] / rates["one"])
        print(f"  {WORKERS_ENDPOINT} c=32  --workers 1 {rates['one']:9.1f}/s  --workers 2 {rates['two']:9.1f}/s",
              file=sys.stderr, flush=True)
    return {"endpoint": WORKERS_ENDPOINT, "connections": 32, "ratios": ratios,
            "ratio": sorted(ratios)[(rounds - 1) // 2]}


def machine() -> dict[str, str | int]:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout.splitlines()
    return {"cpu": model.group(1).strip() if model else platform.processor() or "unknown",
            "cores": os.cpu_count() or 0, "python": platform.python_version(),
            "wrk": wrk[0].split(" Copyright")[0] if wrk else "unknown"}


def print_table(rows: list[dict], host: dict) -> None:
    print(f"machine: {host['cpu']}, {host['cores']} cores, Python {host['python']}, {host['wrk']}")
    header = ("endpoint", "conns", "rps real", "rps ceil", "real/ceil",
              "p50 real", "p99 real", "p50 ceil", "p99 ceil")
    print(f"{header[0]:30} {header[1]:>5} " + " ".join(f"{h:>9}" for h in header[2:]) + "   (latencies ms)")
    for r in rows:
        real, ceil = r["real"], r["ceiling"]
        print(f"{r['endpoint']:30} {r['connections']:>5} {r['rps_real']:>9.1f} {r['rps_ceiling']:>9.1f} "
              f"{r['ratio']:>9.3f} {real['p50_ms']:>9.2f} {real['p99_ms']:>9.2f} "
              f"{ceil['p50_ms']:>9.2f} {ceil['p99_ms']:>9.2f}")


def print_in_process(rows: list[dict], in_process: dict[str, float]) -> None:
    """Each fresh POST's p50 over HTTP at one connection against its median time in process."""
    for label, ms in in_process.items():
        http = next(r for r in rows if r["endpoint"] == label and r["connections"] == 1)["real"]["p50_ms"]
        print(f"{label}: p50 over HTTP at 1 connection {http:.3f} ms, in process {ms:.3f} ms, "
              f"{http / ms:.2f} times")


def failures(rows: list[dict]) -> list[str]:
    found = []
    for r in rows:
        for app in ("real", "ceiling"):
            result = r[app]
            if result["requests"] == 0:
                found.append(f"{r['endpoint']} c={r['connections']} {app}: no request completed")
            elif result["non_2xx"] or result["socket_errors"]:
                found.append(f"{r['endpoint']} c={r['connections']} {app}: {result['non_2xx']} non-2xx, "
                             f"{result['socket_errors']} socket errors")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", default=os.environ.get("ORACLE_WAREHOUSE") or "warehouse/snapshots")
    parser.add_argument("--duration", type=int, default=10, help="whole seconds per measured run")
    parser.add_argument("--json", help="also write the rows and the machine here")
    parser.add_argument("--only", help="measure only the endpoints whose label matches this regular expression")
    parser.add_argument("--rounds", type=int, default=3, help="real and ceiling runs per endpoint and load")
    parser.add_argument("--ceiling-headers", action="store_true",
                        help="the ceiling sends each real answer's headers too (ETag, Cache-Control, the rate limits)")
    parser.add_argument("--workers", action="store_true",
                        help="also measure `oracle serve --workers 2` against one worker on a forward curve")
    args = parser.parse_args()
    endpoints = [e for e in ENDPOINTS if not args.only or re.search(args.only, e.label)]
    if shutil.which("wrk") is None:
        print("wrk is not installed (apt-get install -y wrk)", file=sys.stderr)
        return 2
    warehouse = str(Path(args.warehouse).resolve())
    servers: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        workdir = Path(tmp)
        try:
            key = create_internal_key(workdir / "data")
            real_port, ceiling_port = free_port(), free_port()
            bases = {"real": f"http://127.0.0.1:{real_port}", "ceiling": f"http://127.0.0.1:{ceiling_port}"}
            serve = [sys.executable, str(ROOT / "cli.py"), "serve", "--host", "127.0.0.1", "--warehouse", warehouse]
            servers.append(start_server([*serve, "--port", str(real_port)], {"ORACLE_DATA": str(workdir / "data")}))
            wait_healthy(bases["real"], servers[-1])
            payloads, headers = fetch_real_responses(bases["real"], key)
            (workdir / "payloads.json").write_text(json.dumps(payloads))
            (workdir / "headers.json").write_text(json.dumps(headers))
            ceiling_env = {"CEILING_PAYLOADS": str(workdir / "payloads.json"),
                           "CEILING_HEADERS": str(workdir / "headers.json") if args.ceiling_headers else ""}
            servers.append(start_server([sys.executable, "-m", "bench.ceiling", "--host", "127.0.0.1",
                                         "--port", str(ceiling_port)], ceiling_env))
            wait_healthy(bases["ceiling"], servers[-1])
            check_ceiling_sizes(bases["ceiling"], payloads)
            rows = measure(bases, workdir, key, args.duration, endpoints, args.rounds)
            fresh_posts = [e for e in endpoints if e.method == "POST" and e.fresh]
            in_process = in_process_ms(warehouse, workdir / "data", key, fresh_posts)
            chosen = {e.label for e in endpoints}
            beside = measure_beside(bases["real"], workdir, key, args.duration) if chosen >= set(BESIDE) else []
            workers = None
            if args.workers:
                two = f"http://127.0.0.1:{free_port()}"
                servers.append(start_server([*serve, "--port", two.rsplit(":", 1)[1], "--workers", "2"],
                                            {"ORACLE_DATA": str(workdir / "data")}))
                wait_healthy(two, servers[-1])
                workers = measure_workers({"one": bases["real"], "two": two}, workdir, key, args.duration, args.rounds)
        finally:
            for process in reversed(servers):
                stop_server(process)
    host = machine()
    print_table(rows, host)
    print_in_process(rows, in_process)
    if workers:
        print(f"{WORKERS_ENDPOINT}, 32 connections: --workers 2 against --workers 1, throughput ratio "
              f"{workers['ratio']:.2f} (rounds: {', '.join(f'{r:.2f}' for r in workers['ratios'])})")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": host, "duration_seconds": args.duration,
                                               "rounds": args.rounds, "ceiling_headers": args.ceiling_headers,
                                               "rows": rows, "beside": beside,
                                               "in_process_ms": in_process, "workers": workers}, indent=2) + "\n")
    problems = failures(rows) + failures([{**row, "ceiling": row["real"]} for row in beside])
    for problem in problems:
        print(f"FAIL {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
