"""The cyclic garbage collector's view of a server process: what lives as long as the process is
taken out of it once the process has started.

Each full collection walks every object the collector tracks. In a server process that is about
150,000 of them (the modules' functions and types, the framework's routes, the snapshot's
records), nearly all made at start-up and alive until the end; under load, a full collection held
the event loop long enough to be the slowest answers' wait (`docs/benchmarks.md`), a pause every
request in flight waited through. Once the process has read its snapshot,
`gc.freeze` moves every object alive into a permanent generation the collector skips, so a full
collection walks only what was made since. Objects frozen are still freed when their last
reference goes; only a reference cycle among them (of the first snapshot's, after a newer one
replaced it) is never collected, a one-off cost bounded by that snapshot.
"""

from __future__ import annotations

import gc


def freeze_what_lives() -> None:
    gc.collect()  # what is garbage already is freed, not frozen
    gc.freeze()
