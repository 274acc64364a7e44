"""The garbage collector of a long-running worker, set for many live games.

A worker keeps the last table of each chat it serves (`Store.known`), so its heap grows with
the games it holds: about a hundred tracked objects a game (104 for a game state in round 11),
a million with 10,000 games. At its defaults CPython's collector looks at the young objects
every 700 allocations, and at the whole heap once it has grown by a quarter; and each command
allocates many objects (views, screens, texts) that die with it. `settle` is called once a
worker has imported what it runs: what exists then (modules, functions, catalogs) is frozen
out of every later collection, and the young generation is collected less often
(`THRESHOLDS`), so the older ones are too. Cycles are still collected; the collections are
only fewer. docs/service.md ("Garbage collection") gives the measurements.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLDS = (10_000, 10, 10)
"""`gc.set_threshold`: net allocations between collections of the young generation (700 by
default), then, as by default, ten young collections to one of the middle generation and ten of
those to a full one (when the heap has also grown by a quarter)."""


def settle() -> None:
    """Freeze what the process holds now out of later collections, and set `THRESHOLDS`."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)


@contextmanager
def settled() -> Iterator[None]:
    """`settle` for the length of a bulk job (`simulate`), without the collection: frozen, what
    is loaded stays untouched in the job's forked copies too; afterwards the collector is as it
    was, for a process that goes on (the tests run the command line in theirs)."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
