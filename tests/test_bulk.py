"""The bulk jobs' processes (adapters/bulk.py `in_order`): the results of every share in the
jobs' order, a failure in another process raised here, and no process left behind when the
caller stops early."""

import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from nobody import as_nobody

from adapters.bulk import BulkError, GameJob, in_order, simulate_game
from engine.options import Options


def square(number: int) -> int:
    return number * number


@pytest.mark.parametrize("processes", [1, 2, 3, 4])
@pytest.mark.parametrize("count", [0, 1, 2, 5, 31])
def test_the_results_come_in_the_jobs_order(processes: int, count: int) -> None:
    assert list(in_order(square, range(count), processes)) == [n * n for n in range(count)]


def test_each_share_is_worked_in_a_process_of_its_own() -> None:
    def pid(_: int) -> int:
        return os.getpid()

    pids = list(in_order(pid, range(9), 3))
    assert pids[:3] == [os.getpid()] * 3  # the first share here
    assert len(set(pids[3:6])) == len(set(pids[6:])) == 1
    assert len(set(pids)) == 3


def test_no_process_is_started_without_a_job(monkeypatch: pytest.MonkeyPatch) -> None:
    forks: list[int] = []
    fork = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted)
    assert list(in_order(square, range(2), 4)) == [0, 1]
    assert len(forks) == 1  # the second job's copy, and no idle ones
    assert list(in_order(square, range(1), 4)) == [0]
    assert len(forks) == 1


def fail_on_seven(number: int) -> int:
    if number == 7:
        raise ValueError("seven")
    return number


def test_a_failure_in_another_process_is_raised_here() -> None:
    results = in_order(fail_on_seven, range(10), 2)
    assert [next(results) for _ in range(5)] == [0, 1, 2, 3, 4]  # this process's share
    with pytest.raises(BulkError, match=r"ValueError\('seven'\) at .*test_bulk\.py:\d+"):
        next(results)


def test_stopping_early_leaves_no_process_behind(tmp_path: Path) -> None:
    def slow(number: int) -> int:
        if number >= 2:  # the other process's share: note who works it, then take long
            (tmp_path / "pid").write_text(str(os.getpid()))
            time.sleep(60)
        return number

    results = in_order(slow, range(4), 2)
    assert next(results) == 0
    deadline = time.monotonic() + 30
    while not (tmp_path / "pid").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    other = int((tmp_path / "pid").read_text())
    os.kill(other, 0)  # still working
    started = time.monotonic()
    results.close()
    assert time.monotonic() - started < 5
    with pytest.raises(ProcessLookupError):
        os.kill(other, 0)  # stopped and reaped


def test_a_record_that_cannot_be_opened_is_left_as_it_was() -> None:
    """`whole` removes what it began to write and could not finish, never a file it could not
    open: a record made read-only by its owner stays (as an unprivileged user in a folder of
    theirs, since root may open any file)."""
    import shutil
    import tempfile

    from adapters import bulk

    base = Path(tempfile.mkdtemp())  # not tmp_path: its parent is closed to other users
    try:
        base.chmod(0o777)
        kept = base / "game-0000.json"
        kept.write_bytes(b"kept\n")
        kept.chmod(0o444)

        def write() -> str:
            try:
                bulk.whole(str(kept), b"new\n")
            except OSError as error:
                return error.strerror or str(error)
            return "written"

        said = as_nobody(write)
        assert said == "Permission denied"
        assert kept.read_bytes() == b"kept\n"
    finally:
        shutil.rmtree(base)


LIMIT = 1000
"""Jobs a test's endless supply gives before it refuses: far more than the jobs a test takes,
and far fewer than a run that made every job first would ask for."""


def supply(made: list[int], path: Path | None = None) -> Iterator[GameJob]:
    """Endless games of three players (their records in `path`), noting in `made` each one
    made in this process; past `LIMIT`, a job made is one made ahead of the games."""
    for index in itertools.count():
        if index >= LIMIT:
            raise AssertionError(f"{index} jobs made ahead of the games")
        made.append(index)
        where = None if path is None else str(path / f"game-{index:04d}.json")
        yield GameJob(3, Options(), index, where)


@pytest.mark.parametrize("processes", [1, 2])
def test_the_jobs_are_made_as_they_are_worked_not_all_first(tmp_path: Path, processes: int) -> None:
    """`simulate -n <huge>` once made all its jobs first, and kept every game's totals: memory
    grew with the games asked. The jobs are now made as they are worked, each game's record is
    written as it is played, before the run ends, and its results are let go once taken."""
    made: list[int] = []
    results = in_order(simulate_game, supply(made, tmp_path), processes, count=10**9)
    for index in range(3):
        assert next(results).error is None
        assert (tmp_path / f"game-{index:04d}.json").is_file()
        assert made == list(range(index + 1))  # in this process: no job made ahead
    results.close()
