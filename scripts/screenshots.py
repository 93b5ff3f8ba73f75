"""Screenshots of every dashboard page at desktop and phone sizes, for the README.

    python scripts/screenshots.py [--warehouse PATH] [--out docs/screenshots]

Serves the snapshot with `oracle serve`, opens each page of `bench.dashboard.PAGES` in headless
Chromium (Debian's package) at 1440×900 and at 390×844, waits until the page has its data, and
saves what the visitor sees first (the viewport) as `<page>-desktop.png` and `<page>-phone.png`.
The server has the default limits, so the pages show what a visitor without a key is told.
`make screenshots` builds the snapshot first and runs this.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.dashboard import PAGES, PHONE, NoBrowser, served_to_chromium  # noqa: E402

SIZES = {"desktop": {"width": 1440, "height": 900}, "phone": PHONE}


def take(browser, url: str, viewport: dict, target: Path) -> None:
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("main[aria-busy='false']", timeout=30_000)
        page.wait_for_load_state("networkidle")  # the calculator's budget, the board's changes
        page.screenshot(path=str(target))
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", default=os.environ.get("ORACLE_WAREHOUSE") or "warehouse/snapshots")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        with served_to_chromium(args.warehouse, lifted=False) as (browser, base):
            for name, path in PAGES:
                for size, viewport in SIZES.items():
                    target = out / f"{name}-{size}.png"
                    take(browser, base + path, viewport, target)
                    print(target.relative_to(ROOT) if target.is_relative_to(ROOT) else target)
    except NoBrowser as missing:
        print(missing, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
