"""The `oracle` command: `oracle refresh [--warehouse PATH] [--as-of DATE]`.

Settings come from arguments, else from `ORACLE_*` environment variables, read when the command
runs. Each subcommand imports its room only when called, so `refresh` never loads the API.
"""

import argparse
import os
import sys


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="oracle", description="The Inference Pricing Oracle.")
    commands = parser.add_subparsers(dest="command", required=True)
    refresh = commands.add_parser("refresh", help="materialise every asset and publish a snapshot")
    refresh.add_argument("--warehouse", default=None,
                         help="snapshot folder (default: $ORACLE_WAREHOUSE, else warehouse/snapshots)")
    refresh.add_argument("--as-of", default=None,
                         help="snapshot date, YYYY-MM-DD (default: $ORACLE_AS_OF, else today in UTC)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "refresh":
        from assets.refresh import refresh

        published = refresh(args.warehouse or os.environ.get("ORACLE_WAREHOUSE"),
                            args.as_of or os.environ.get("ORACLE_AS_OF", ""))
        return 0 if published else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
