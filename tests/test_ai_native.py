"""The hard AI's compiled playouts (bot/native.py): compiled where the install compiled them
and only while their sources are the ones compiled, and making the same moves as the sources."""

import shutil
from pathlib import Path

from conftest import fresh_lines

import bot.ai  # noqa: F401 - imported, it chooses the playouts to run (native.STATE)
from bot import native

ROOT = Path(__file__).resolve().parents[1]

GAMES = """
import random
import bot.ai
from bot.ai.hard import Budget, HardAI
from engine import Options, Phase, player_view, step, waiting_seats
from engine.randomplay import new_game
hard = HardAI(Budget(bid_samples=8, bid_plays=400, play_samples=6, play_plays=300, min_samples=2))
print(sorted(set(bot.native.STATE.values())))
for seed in range(4):
    state = new_game(4, Options(), seed)
    while state.phase is not Phase.FINISHED and len(state.results) < 7:
        seat = waiting_seats(state)[0]
        command = hard.decide(player_view(state, seat), random.Random(f"{seed}:{state.seq}"))
        print(repr(command))
        step(state, command)
"""
"""Four games of seven rounds with `hard` in every seat: the state of the playouts, then every
move."""


def play(env: dict[str, str], path: Path = ROOT) -> list[str]:
    """The lines GAMES prints, run by a fresh interpreter with `path` first on its path."""
    return fresh_lines(GAMES, {**env, "PYTHONPATH": str(path)}, path, timeout=300)


def compiled_here() -> bool:
    """Whether this checkout holds compiled playouts (an install that had a C compiler)."""
    return native.is_compiled("bot.ai.fastsim")


def test_an_install_runs_its_compiled_playouts_while_they_are_current() -> None:
    expected = "compiled" if compiled_here() else "source"
    assert {native.STATE[name] for name in native.AI} == {expected}, native.STATE


def test_compiled_and_source_playouts_make_the_same_moves() -> None:
    compiled = play({})
    source = play({native.PURE_ENV: "1"})
    assert source[0] == repr(["source (WIZARD_PURE_PYTHON is set)"])
    assert compiled[0] == repr(["compiled" if compiled_here() else "source"])
    assert len(compiled) > 150  # bids and cards of 28 rounds
    assert compiled[1:] == source[1:]


def test_a_changed_source_runs_instead_of_its_stale_compiled_module(tmp_path: Path) -> None:
    for part in ("engine", "bot"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    for library in ROOT.glob("*__mypyc*.so"):  # the compiled group's shared library, if any
        shutil.copy2(library, tmp_path)
    sampler = tmp_path / "bot" / "ai" / "sampler.py"
    sampler.write_text(sampler.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    lines = play({}, tmp_path)
    if compiled_here():
        changed = "source (bot.ai.sampler changed since it was compiled: reinstall to compile it)"
        assert lines[0] == repr([changed])
    else:
        assert lines[0] == repr(["source"])
    assert lines[1:] == play({native.PURE_ENV: "1"})[1:]
