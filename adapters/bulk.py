"""The command line's bulk jobs: many random games played and written as records (`simulate`),
many records read and checked (`replay --check`), in one process or in several.

`simulate` plays its games with `bot.simulation.randomgames`: the games the engine's random
players play (`engine.randomplay`), the same records byte for byte, several times as fast.

Each game and each file is one piece of work, done the same way in any process (this one, or
a forked copy of it: `in_order`); the results come back in the order asked, so the output of
`--jobs N` is that of `--jobs 1`. Records are
written and read with orjson; a file orjson refuses is read again with the standard library,
which says why (and reads what it alone accepts: UTF-16, NaN, very large numbers).
"""

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple, NoReturn, TypeVar

import orjson

from adapters import stops
from bot.simulation.randomgames import random_record
from engine.names import NAMES
from engine.options import Options

if TYPE_CHECKING:
    from engine.state import GameState

Job = TypeVar("Job")
Result = TypeVar("Result")


MAX_RECORD = 16 * 2**20
"""The most bytes a record file may hold (a game's is some kilobytes): a larger one is refused
after its first MAX_RECORD bytes, not read to its end."""


class BadRecord(Exception):
    """A file that is not a valid game record; the message says why, on one line."""


class BulkError(Exception):
    """A process of `--jobs` failed; the message says how, on one line."""


class GameJob(NamedTuple):
    """One game of `simulate`: its seed, and where its record goes (None: nowhere)."""

    players: int
    options: Options
    seed: int
    path: str | None


class Played(NamedTuple):
    """What `simulate` keeps of a game: the totals, or why its record could not be written."""

    totals: list[int]
    error: str | None


def in_order(
    work: Callable[[Job], Result],
    jobs: Iterable[Job],
    processes: int,
    count: int | None = None,
) -> Iterator[Result]:
    """`work` done on each of `jobs`, in `processes` processes; the results in the jobs' order.

    The jobs are cut into `processes` shares in their order (`count` of them; None: `jobs` is
    a list). This process does the first share, yielding as it goes; each other share goes to
    a copy of this process (`os.fork`: no pool to load or start, which would cost more than a
    few hundred games), which writes its results to a temporary file as it goes, read back
    one by one once it is done. So nothing grows with the jobs in memory: a job is made when
    its turn comes (in each process, from the same `jobs`, taken over by the fork before any
    was made), and a result let go once taken. A copy that fails raises `BulkError` here;
    closing the iterator early stops the copies."""
    if count is None:
        jobs = list(jobs)
        count = len(jobs)
    processes = min(processes, count)  # no copy without a job
    todo = iter(jobs)
    if processes <= 1:
        yield from map(work, itertools.islice(todo, count))
        return
    import os
    import signal
    from contextlib import suppress

    bounds = [count * share // processes for share in range(processes + 1)]
    copies: list[tuple[int, BinaryIO]] = []  # (pid, the file its results are written to)
    try:
        for share in range(1, processes):
            spool = _spool()
            pid = os.fork()
            if pid == 0:  # the copy: its share, its results to the file, and out
                signal.signal(signal.SIGTERM, signal.SIG_DFL)  # what stops it early (below)
                _work_share(work, itertools.islice(todo, *bounds[share : share + 2]), spool)
            copies.append((pid, spool))
        yield from map(work, itertools.islice(todo, bounds[1]))
        while copies:
            pid, spool = copies[0]
            _, status = os.waitpid(pid, 0)
            copies.pop(0)
            with spool:
                yield from _results(spool, status)
    finally:
        for pid, spool in copies:  # stopped early: by an error, or by the caller
            spool.close()
            with suppress(ProcessLookupError, ChildProcessError):  # it may have ended already
                # SIGTERM, not SIGKILL: a copy writing a record ends once it is whole (`whole`)
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)


def _spool() -> BinaryIO:
    """A file without a name for a copy's results, gone once closed: made by the kernel where
    it can (O_TMPFILE, without importing `tempfile`, which costs more than a few games)."""
    import os

    try:
        number = os.open(os.environ.get("TMPDIR") or "/tmp", os.O_TMPFILE | os.O_RDWR, 0o600)
    except OSError:  # a file system without it
        import tempfile

        return tempfile.TemporaryFile()
    return os.fdopen(number, "w+b")


DONE, RESULT, FAILED = range(3)
"""What each entry of a copy's results file is: the end of its share, a result, or why it
failed."""


def _results(spool: BinaryIO, status: int) -> Iterator[Any]:
    """The results a copy that ended with `status` wrote to `spool`, one by one; `BulkError`,
    before any of them, if it failed (they are of no use: the run stops), or when they end
    before its last entry (`DONE`)."""
    import pickle

    spool.seek(0)
    while True:
        try:
            kind, value = pickle.load(spool)
        except EOFError:
            raise BulkError(
                f"a --jobs process ended without its results (status {status})"
            ) from None
        if kind == FAILED:
            raise BulkError(f"a --jobs process failed: {value} (status {status})")
        if kind == DONE and not status:
            return
        if not status:
            yield value


def _work_share(work: Callable[[Job], Result], jobs: Iterable[Job], spool: BinaryIO) -> NoReturn:
    """In a copy: do `jobs`, each result written to `spool` once it is there, then that they
    are done, or why they failed; and exit."""
    import os
    import pickle

    status = 1
    try:
        try:
            for job in jobs:
                pickle.dump((RESULT, work(job)), spool)
            pickle.dump((DONE, None), spool)
            status = 0
        except BaseException as error:  # even an interrupt: the parent is told, and raises
            where, at = error.__traceback__, ""
            while where is not None:  # to the line that raised
                at = f" at {where.tb_frame.f_code.co_filename}:{where.tb_lineno}"
                where = where.tb_next
            pickle.dump((FAILED, f"{error!r}{at}"), spool)
        spool.flush()
    finally:
        os._exit(status)  # never back into the parent's code


def simulate_game(job: GameJob) -> Played:
    """Play one game of `simulate` and write its record, if asked."""
    record = random_record(NAMES[: job.players], job.options, job.seed)
    totals: list[int] = record["totals"]
    if job.path is not None:
        try:
            whole(job.path, orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE))
        except OSError as error:
            return Played(totals, f"cannot write {job.path}: {error.strerror or error}")
    return Played(totals, None)


def whole(path: str, data: bytes) -> None:
    """Write `data` to `path` whole or not at all, as far as a stop goes: the stop signals wait
    while it is written (blocked, then taken once the file is whole, or gone when it was begun
    and could not be finished; a file that cannot be opened, a record its owner made read-only,
    is left as it was). Only a kill no process can hold back (SIGKILL, a crash of the machine)
    can cut a record short (`parse_json` says so of such a file). No temporary file renamed: on
    this project's machines a rename cost as much as the write, and `simulate` lost a third of
    its speed to it."""
    import os
    from contextlib import suppress

    with stops.held():
        file = open(path, "wb")  # noqa: SIM115 - one that cannot be opened is left as it was
        try:
            with file:
                file.write(data)
        except OSError:  # begun and not finished (a full disk): not left cut short
            with suppress(OSError):  # gone already
                os.unlink(path)
            raise


UNFINISHED = re.compile(r"-?\d*(\.\d*)?([eE][-+]?\d*)?|t(r(ue?)?)?|f(a(l(se?)?)?)?|n(u(ll?)?)?")
"""What JSON's reader stops at when a file ends in the middle of a number or a word."""


def parse_json(raw: bytes) -> object:
    """The JSON value in `raw`; raise BadRecord with a one-line reason if there is none. A file
    that ends inside its JSON, all well-formed up to there (what a SIGKILL leaves of a record
    `simulate` was writing), is said to be cut short, with its length: the other readings of
    it (an unexpected character at its end) would send one looking for damage that is not
    there."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass  # the standard library reads a little more, and says why in its own words
    import json

    cut = BadRecord(f"cut short: the file ends inside its record ({len(raw)} bytes)")
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        if not raw.strip():
            raise BadRecord("empty: the file holds no record") from None
        rest = error.doc[error.pos :].rstrip()
        if error.msg.startswith("Unterminated string") or UNFINISHED.fullmatch(rest):
            raise cut from None
        raise BadRecord(
            f"not JSON (line {error.lineno} column {error.colno}: {error.msg})"
        ) from None
    except UnicodeDecodeError as error:
        if error.reason == "unexpected end of data":  # cut in the middle of a letter
            raise cut from None
        raise BadRecord("not JSON (not UTF-8 text)") from None
    except ValueError as error:
        if "digits" in str(error):  # Python reads no int of more than 4,300 digits
            raise BadRecord("a number of too many digits") from None
        raise BadRecord(f"not JSON ({error})") from None
    except RecursionError as error:
        raise BadRecord(f"not JSON ({error})") from None


def load_record(path: str) -> "GameState":
    """Read and check the game record in `path`; raise BadRecord with a one-line reason."""
    from engine.records import RecordError, check_record  # the rules: not for `simulate`

    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_RECORD + 1)
    except OSError as error:
        raise BadRecord(f"cannot read: {error.strerror or error}") from None
    if len(raw) > MAX_RECORD:
        raise BadRecord(f"too large for a record (over {MAX_RECORD >> 20} MiB)")
    data = parse_json(raw)
    try:
        return check_record(data)
    except RecordError as error:
        # Round 0 is the record as a whole (format, players, totals), trick 0 a round as a
        # whole (its tricks won, its points): the reason says it all, after the round.
        if error.round == 0:
            raise BadRecord(error.reason) from None
        if error.trick == 0:
            raise BadRecord(f"round {error.round}: {error.reason}") from None
        raise BadRecord(str(error)) from None
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
