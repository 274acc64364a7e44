"""Every script under benchmarks/ still runs: each is started as its README line says, with the
smallest work it takes, and must end with its JSON line. Nothing is timed here (the figures
are the scripts' own, read by people, as ratios measured in one run); this only keeps the
scripts from rotting while the code they drive changes (three had: an AI seat's move waited
for ever, a second game's closed-DM player had no notice, Debian's redis-server was run by the
name of the program it links to)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

RUNS = {
    "ai": ["--games", "2"],
    "ai_variants": ["--games", "1", "--jobs", "1", "--times", "--short"],
    "backup": ["--chats", "20"],
    "coach": ["--games", "1", "--players", "3", "--short"],
    "commands": [
        *("--games", "1", "--runs", "1", "--ai", "1", "--languages"),
        *("--options", "wings=on,foresight=on,bids=hidden"),
    ],
    "discord": ["--games", "2", "--players", "3", "--closed"],
    "engine": ["--games", "5", "--runs", "1"],
    "fit_normal_model": ["--games", "1"],
    "native": ["--games", "1", "--runs", "1", "--short"],
    "redis_servers": ["--starts", "1", "--games", "1", "--runs", "1"],
    "service": [
        *("--games", "1", "--record", "1", "--chats", "20", "--in-flight", "5"),
        *("--seconds", "1", "--live", "0", "--fsync-runs", "0"),
    ],
    "simulate": ["--games", "5", "--runs", "1", "--jobs", "1"],
    "startup": ["--repeat", "1", "--runs", "1"],
    "stats": ["--games", "5", "--runs", "1"],
    "stored_form": ["--games", "1"],
    "telegram": ["--games", "2"],
    "web": ["--games", "1"],
}


def test_every_benchmark_is_run_here() -> None:
    assert {path.stem for path in (ROOT / "benchmarks").glob("*.py")} == set(RUNS)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_benchmark_runs_to_its_figures(name: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), *RUNS[name]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    figures = json.loads(last)
    assert isinstance(figures, dict), last
    assert figures, last
