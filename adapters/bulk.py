"""The command line's bulk jobs: many random games played and written as records (`simulate`),
many records read and checked (`replay --check`), in one process or in several.

Each game and each file is one piece of work, done the same way in any process; the results
come back in the order asked, so the output of `--jobs N` is that of `--jobs 1`. Records are
written and read with orjson; a file orjson refuses is read again with the standard library,
which says why (and reads what it alone accepts: UTF-16, NaN, very large numbers).
"""

import random
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple, TypeVar

import orjson

from engine import Options, Phase, RecordError, check_record, export_record, step
from engine.randomplay import new_game, random_command
from engine.state import GameState

Job = TypeVar("Job")
Result = TypeVar("Result")


class BadRecord(Exception):
    """A file that is not a valid game record; the message says why, on one line."""


class GameJob(NamedTuple):
    """One game of `simulate`: its seed, and where its record goes (None: nowhere)."""

    players: int
    options: Options
    seed: int
    path: Path | None


class Played(NamedTuple):
    """What `simulate` keeps of a game: the totals, or why its record could not be written."""

    totals: list[int]
    error: str | None


def in_order(
    work: Callable[[Job], Result], jobs: Iterable[Job], processes: int
) -> Iterator[Result]:
    """`work` done on each of `jobs`, in `processes` processes; the results in the jobs' order."""
    if processes <= 1:
        yield from map(work, jobs)
        return
    from multiprocessing import get_context  # only for more than one process

    with get_context("fork").Pool(processes) as pool:
        yield from pool.imap(work, jobs, chunksize=4)


def play_random(players: int, options: Options, seed: int) -> GameState:
    """The game `engine.randomplay.play_random_game` plays, without keeping its events."""
    state = new_game(players, options, seed)
    rng = random.Random(seed)
    finished = Phase.FINISHED
    while state.phase is not finished:
        step(state, random_command(state, rng))
    return state


def record_bytes(state: GameState) -> bytes:
    """The record of a finished game as one line of JSON."""
    return orjson.dumps(export_record(state)) + b"\n"


def simulate_game(job: GameJob) -> Played:
    """Play one game of `simulate` and write its record, if asked."""
    state = play_random(job.players, job.options, job.seed)
    if job.path is not None:
        try:
            job.path.write_bytes(record_bytes(state))
        except OSError as error:
            return Played(state.totals, f"cannot write {job.path}: {error.strerror or error}")
    return Played(state.totals, None)


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


def load_record(path: str) -> GameState:
    """Read and check the game record in `path`; raise BadRecord with a one-line reason."""
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


def valid(path: str, state: GameState) -> str:
    """The verdict's line of a valid record: its totals."""
    names = [player.name for player in state.players]
    totals = ", ".join(f"{n} {t}" for n, t in zip(names, state.totals, strict=True))
    return f"{path}: ok, totals {totals}"
