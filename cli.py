"""The `oracle` command: `refresh`, `serve`, `up` and `keys`.

    oracle refresh [--warehouse PATH] [--as-of DATE] [--allow-future]   build and publish a snapshot
    oracle refresh --replay DATE [--warehouse PATH]   rebuild DATE's snapshot from the kept live copies
    oracle refresh --clean [...]   first remove what failed or killed refreshes left staged
    oracle serve [--host H] [--port P] [--warehouse PATH] [--data PATH]   run the HTTP API
    oracle up [--warehouse PATH]   refresh if empty, then the API (8000) and Dagster with its daemon (3000)
    oracle keys create --name N --tier T | keys list | keys revoke KEY_ID   manage API keys

Settings come from arguments, else from `ORACLE_*` environment variables, read when the command
runs. Each subcommand imports its room only when called, so `refresh` never loads the API. Bad
input is refused before any work, in one line on stderr, with exit status 2.
"""

import argparse
import os
import re
import sys
from datetime import UTC, date, datetime

KEY_TIERS = ("developer", "enterprise", "internal")  # `free` is the keyless tier, never issued
KEY_NAME = re.compile(r"[A-Za-z0-9 _.@-]{1,64}")


class Refused(Exception):
    """Input the command cannot work with: said in one line, exit status 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="oracle", description="The Inference Pricing Oracle.")
    commands = parser.add_subparsers(dest="command", required=True)
    refresh = commands.add_parser("refresh", help="materialise every asset and publish a snapshot")
    refresh.add_argument("--warehouse", default=None,
                         help="snapshot folder or fsspec URL (default: $ORACLE_WAREHOUSE, else warehouse/snapshots)")
    refresh.add_argument("--as-of", default=None,
                         help="snapshot date, YYYY-MM-DD, from the bundled data's first day to today (default: "
                              "$ORACLE_AS_OF, else today in UTC)")
    refresh.add_argument("--allow-future", action="store_true",
                         help="accept an --as-of after today (a rehearsal of a day ahead: announced prices only)")
    refresh.add_argument("--clean", action="store_true",
                         help="first remove every staging folder that no running refresh owns (what failed or "
                              "killed runs left behind), then refresh")
    refresh.add_argument("--replay", default=None, metavar="DATE",
                         help="rebuild the snapshot of DATE from the live sources' kept raw copies alone, "
                              "fetching nothing (to rebuild or investigate a day)")
    for name, help_text in (("serve", "run the HTTP API"),
                            ("up", "refresh if needed, then run the API and the Dagster UI with its daemon")):
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--host", default=os.environ.get("ORACLE_HOST", "127.0.0.1"),
                             help="address to bind (default: %(default)s, from $ORACLE_HOST when set); 0.0.0.0 "
                                  "listens on every interface")
        command.add_argument("--port", type=int, default=int(os.environ.get("ORACLE_PORT", "8000")),
                             help="the API's port (default: %(default)s, from $ORACLE_PORT when set)")
        command.add_argument("--warehouse", default=None,
                             help="snapshot folder or fsspec URL (default: $ORACLE_WAREHOUSE, "
                                  "else warehouse/snapshots)")
        command.add_argument("--data", default=None,
                             help="folder of the key database and counters (default: $ORACLE_DATA, else data)")
        if name == "serve":
            command.add_argument("--workers", type=int, default=int(os.environ.get("ORACLE_WORKERS", "1")),
                                 help="server processes on the one port (default: %(default)s, from "
                                      "$ORACLE_WORKERS when set; share limits only through a counter store "
                                      "URL: ORACLE_COUNTER_STORE_URL=redis://...)")
        if name == "up":
            command.add_argument("--dagster-port", type=int, default=3000,
                                 help="the Dagster UI's port (default: %(default)s)")
    _add_keys(commands)
    return parser


def _add_keys(commands) -> None:
    store = argparse.ArgumentParser(add_help=False)
    store.add_argument("--data", default=None, help="data folder (default: $ORACLE_DATA, else data)")
    store.add_argument("--key-store-url", default=None,
                       help="postgresql://… for a shared store (default: $ORACLE_KEY_STORE_URL, else SQLite "
                            "in the data folder)")
    keys = commands.add_parser("keys", help="create, list and revoke API keys")
    actions = keys.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", parents=[store], help="make a key and show it once")
    create.add_argument("--name", required=True, type=_key_name,
                        help="1-64 letters, digits, spaces or -_.@")
    create.add_argument("--tier", required=True, choices=KEY_TIERS)
    actions.add_parser("list", parents=[store], help="every key, without the keys themselves")
    revoke = actions.add_parser("revoke", parents=[store], help="revoke a key by its id")
    revoke.add_argument("key_id")


def _key_name(value: str) -> str:
    if not KEY_NAME.fullmatch(value) or not value.strip():
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a valid name: use 1 to 64 letters, digits, spaces or the characters - _ . @")
    return value


def _keys(args) -> int:
    from datetime import UTC, datetime

    from serve.access.factory import key_store_from

    try:
        store = key_store_from(data=args.data or os.environ.get("ORACLE_DATA") or "data",
                               key_store_url=args.key_store_url or os.environ.get("ORACLE_KEY_STORE_URL", ""))
    except (ValueError, ImportError) as err:  # a misconfigured store: say so, without a traceback
        print(f"oracle keys: {err}", file=sys.stderr)
        return 2
    now = datetime.now(UTC)
    try:
        if args.action == "create":
            key, record = store.create(args.name, args.tier, now)
            print(f"key:    {key}\nkey_id: {record.key_id}\nname:   {record.name}\ntier:   {record.tier}")
            print("The key is shown only this once; only its hash is stored.", file=sys.stderr)
        elif args.action == "list":
            _print_keys(store.list_keys())
        elif not store.revoke(args.key_id, now):
            print(f"no unrevoked key with id {args.key_id!r}", file=sys.stderr)
            return 1
        else:
            print(f"revoked {args.key_id}")
    finally:
        store.close()
    return 0


def _print_keys(records) -> None:
    def when(moment):
        return moment.strftime("%Y-%m-%d %H:%M:%SZ") if moment else "-"

    rows = [("id", "name", "tier", "created", "last used", "revoked")]
    rows += [(r.key_id, r.name, r.tier, when(r.created), when(r.last_used), when(r.revoked)) for r in records]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def _serve(host: str, port: int, warehouse: str | None, workers: int = 1, data: str | None = None) -> None:
    import uvicorn

    from serve.app import server_app
    from serve.http_protocol import SERVER_OPTIONS
    from serve.settings import Settings

    if workers <= 1:
        uvicorn.run(server_app(Settings.from_env(warehouse=warehouse, data=data)), host=host, port=port,
                    **SERVER_OPTIONS)
        return
    # Each worker process builds its own app from the environment, so the settings travel there.
    for name, value in (("ORACLE_WAREHOUSE", warehouse), ("ORACLE_DATA", data)):
        if value:
            os.environ[name] = value
    uvicorn.run("serve.app:app_from_env", factory=True, host=host, port=port, workers=workers, **SERVER_OPTIONS)


def _up(args) -> int:
    """The API in this process, Dagster's UI and daemon in a child; stopping one stops both."""
    import subprocess
    from pathlib import Path

    from warehouse.snapshot import SnapshotStore

    warehouse = args.warehouse or os.environ.get("ORACLE_WAREHOUSE") or "warehouse/snapshots"
    if "://" not in warehouse:  # a path: absolute, so Dagster's processes find the same folder
        warehouse = str(Path(warehouse).resolve())
    if SnapshotStore(warehouse).current() is None:
        from assets.refresh import refresh

        if not refresh(warehouse):
            return 1
    from assets.instance import ensure_instance

    home = Path(os.environ.get("DAGSTER_HOME", ".dagster_home")).resolve()
    ensure_instance(home)
    env = {**os.environ, "ORACLE_WAREHOUSE": warehouse, "DAGSTER_HOME": str(home)}
    # Dagster runs in a process group of its own, so stopping it reaches its webserver, daemon
    # and code servers together, whether the API stopped on Ctrl-C, a signal or an error.
    dagster = subprocess.Popen([sys.executable, "-m", "dagster", "dev", "-w", "workspace.yaml",
                                "-h", args.host, "-p", str(args.dagster_port)], env=env, start_new_session=True)
    try:
        _serve(args.host, args.port, warehouse, data=args.data)
    finally:
        _stop_group(dagster)
    return 0


def _stop_group(process, grace_seconds: float = 20.0) -> None:
    import signal
    import subprocess

    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=grace_seconds)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)  # whatever is still there after the grace period
    except ProcessLookupError:
        pass


def _day(option: str, text: str, allow_future: bool = False) -> str:
    """`text` as a snapshot day (ISO), or Refused saying why: not a date, before the bundled
    data's first day (nothing was known then), or after today without `allow_future`."""
    from warehouse.seed_files import first_known_day

    try:
        day = date.fromisoformat(text)
    except ValueError as err:
        raise Refused(f"{option} {text!r} is not a date ({err}): give YYYY-MM-DD") from None
    first, today = first_known_day(), datetime.now(UTC).date()
    if day < first:
        raise Refused(f"{option} {day} is before {first}, the first day the bundled data knows a price")
    if day > today and not allow_future:
        raise Refused(f"{option} {day} is after today ({today}, UTC); add --allow-future to build a day ahead")
    return day.isoformat()


def _refresh(args) -> int:
    if args.replay and args.as_of and args.as_of != args.replay:
        raise Refused("--replay DATE is the snapshot date; give --as-of only with the same date")
    warehouse = args.warehouse or os.environ.get("ORACLE_WAREHOUSE")
    if args.replay:
        day = _day("--replay", args.replay)
        _refuse_empty_replay(warehouse, day)
    elif args.as_of or os.environ.get("ORACLE_AS_OF"):
        day = _day("--as-of" if args.as_of else "ORACLE_AS_OF", args.as_of or os.environ["ORACLE_AS_OF"],
                   args.allow_future)
    else:
        day = ""
    if args.clean:
        from assets.resources import WarehouseResource
        from warehouse.runs import clean

        removed = clean(WarehouseResource(root=args.warehouse or "").store(), datetime.now(UTC))
        print(f"Removed {len(removed)} staging folder{'s' * (len(removed) != 1)} no running refresh owns"
              + (f": {', '.join(removed)}" if removed else ""))
    from assets.refresh import refresh

    return 0 if refresh(warehouse, day, replay=bool(args.replay)) else 1


def _refuse_empty_replay(warehouse: str | None, day: str) -> None:
    """A replay rebuilds a day from the live sources' kept copies: with none kept for that day it
    would quietly build from the bundled data alone, so it is refused."""
    from assets.resources import WarehouseResource
    from pipelines.upstream_formats import UPSTREAMS

    raw = WarehouseResource(root=warehouse or "").raw()
    if not any(raw.on_day(source, day) for source in UPSTREAMS):
        raise Refused(f"--replay {day}: no live source's copy is kept for that day in {raw.storage.url}/raw; "
                      "a replay rebuilds only from kept copies")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "refresh":
            return _refresh(args)
        if args.command == "serve":
            _serve(args.host, args.port, args.warehouse, args.workers, args.data)
            return 0
        if args.command == "up":
            return _up(args)
        if args.command == "keys":
            return _keys(args)
    except Refused as refused:
        print(f"oracle {args.command}: {refused}", file=sys.stderr)
        return 2
    return 2

if __name__ == "__main__":
    sys.exit(main())
