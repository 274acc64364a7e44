"""The command line's bulk jobs: many random games played and written as records (`simulate`),
many records read and checked (`replay --check`), in one process or in several.

`simulate` plays its games with `bot.simulation.randomgames`: the games the engine's random
players play (`engine.randomplay`), the same records byte for byte, several times as fast.

Each game and each file is one piece of work, done the same way in any process; the results
come back in the order asked, so the output of `--jobs N` is that of `--jobs 1`. Records are
written and read with orjson; a file orjson refuses is read again with the standard library,
which says why (and reads what it alone accepts: UTF-16, NaN, very large numbers).
"""

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import orjson

from bot.simulation.randomgames import random_record
from engine.options import Options
from engine.randomplay import NAMES

if TYPE_CHECKING:
    from engine.state import GameState

Job = TypeVar("Job")
Result = TypeVar("Result")


class BadRecord(Exception):
    """A file that is not a valid game record; the message says why, on one line."""


class Games(NamedTuple):
    """A run of `simulate`'s games: game `index` has seed `seed + index` and its record goes to
    `folder/game-NNNN.json` (no folder: nowhere)."""

    players: int
    options: Options
    seed: int
    indices: range
    folder: Path | None


class Played(NamedTuple):
    """What `simulate` keeps of a game: the totals, or why its record could not be written."""

    totals: list[int]
    error: str | None


def in_order(
    work: Callable[[Job], Result], jobs: Iterable[Job], processes: int, chunk: int = 4
) -> Iterator[Result]:
    """`work` done on each of `jobs`, in `processes` processes (sent `chunk` jobs at a time);
    the results in the jobs' order."""
    if processes <= 1:
        yield from map(work, jobs)
        return
    from multiprocessing import get_context  # only for more than one process

    with get_context("fork").Pool(processes) as pool:
        yield from pool.imap(work, jobs, chunksize=chunk)


def runs(games: int, processes: int) -> Iterator[range]:
    """The games' indices cut into runs, two a process, each sent to a process whole: a game
    costs less than sending it, and a second run evens out a process that falls behind."""
    size = max(1, -(-games // (processes * 2)))
    return (range(start, min(start + size, games)) for start in range(0, games, size))


def simulate_games(job: Games) -> list[Played]:
    """Play a run of `simulate`'s games and write their records, if asked; stop at a record that
    cannot be written."""
    names = NAMES[: job.players]
    played = []
    for index in job.indices:
        record = random_record(names, job.options, job.seed + index)
        totals: list[int] = record["totals"]
        if job.folder is not None:
            path = job.folder / f"game-{index:04d}.json"
            try:
                path.write_bytes(orjson.dumps(record) + b"\n")
            except OSError as error:
                played.append(Played(totals, f"cannot write {path}: {error.strerror or error}"))
                break
        played.append(Played(totals, None))
    return played


def parse_json(raw: bytes) -> object:
    """The JSON value in `raw`; raise BadRecord with a one-line reason if there is none."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass  # the standard library reads a little more, and says why in its own words
    import json

    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise BadRecord(
            f"not JSON (line {error.lineno} column {error.colno}: {error.msg})"
        ) from None
    except UnicodeDecodeError:
        raise BadRecord("not JSON (not UTF-8 text)") from None
    except (ValueError, RecursionError) as error:
        raise BadRecord(f"not JSON ({error})") from None


def load_record(path: str) -> "GameState":
    """Read and check the game record in `path`; raise BadRecord with a one-line reason."""
    from engine.records import RecordError, check_record  # the rules: not for `simulate`

    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise BadRecord(f"cannot read: {error.strerror or error}") from None
    data = parse_json(raw)
    try:
        return check_record(data)
    except RecordError as error:
        # Round 0 is the record as a whole (format, players, totals): the reason says it all.
        raise BadRecord(error.reason if error.round == 0 else str(error)) from None
    except Exception as error:  # a malformed record the checker did not foresee
        raise BadRecord(f"not a valid record ({type(error).__name__}: {error})") from None


def check_file(path: str) -> tuple[bool, str]:
    """Whether the record in `path` is valid, and the verdict's line (unescaped): the totals
    when it is, why not when it is not."""
    try:
        state = load_record(path)
    except BadRecord as error:
        return False, f"{path}: {error}"
    return True, valid(path, state)


def valid(path: str, state: "GameState") -> str:
    """The verdict's line of a valid record: its totals."""
    names = [player.name for player in state.players]
    totals = ", ".join(f"{n} {t}" for n, t in zip(names, state.totals, strict=True))
    return f"{path}: ok, totals {totals}"
