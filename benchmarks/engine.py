"""Engine speed on one core: full random 4-player standard games per second, and the cost of
one command. Every line printed is JSON; the last one holds the figures.

    python benchmarks/engine.py [--games N] [--runs R]
    python benchmarks/engine.py --baseline PATH [--games N] [--runs R]
    python benchmarks/engine.py --compare openspiel [--games N] [--runs R]

- games_per_s: whole games, random legal players deciding every move (engine.randomplay), the
  engine applying each command in place (engine.step); the median of R runs.
  decisions_per_s: the commands of those games per second (a decision and its step each).
- us_per_command: engine.step alone, replaying the commands of recorded games (no decisions).
- us_per_command_pure: engine.apply (copy, then step), as a caller that keeps the old state pays.
- state_json_bytes / us_to_json / us_from_json: a mid-game 4-player state (round 8) serialized.

--baseline PATH measures another checkout's engine against this one (PATH holds its `engine/`,
e.g. `git worktree add /tmp/engine-before <commit>`): each run measures both in fresh
processes, one after the other in alternating order, and the ratios (speedups of this engine
over the baseline) are taken run by run; the last line gives their median and spread. Both
engines must play the very same games (the same commands a game), or the comparison stops.

--compare openspiel plays random full 4-player games of OpenSpiel's `oh_hell` (its C++ engine
through pyspiel, a chance node's outcome and a player's action drawn uniformly) in the same
process, run for run interleaved with this engine's random Wizard games, each side making as
many decisions as the other; it prints decisions per second of both and their ratio. OpenSpiel
is not a dependency of the project: `pip install open-spiel` (a wheel from PyPI) first; without
it the option prints one line saying so and exits 0.
"""

import argparse
import json
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# This file is named after the package it measures: keep its own folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]
_ENGINE_FROM = "--engine-from"
if _ENGINE_FROM in sys.argv:  # a measuring process of --baseline: that checkout's engine
    sys.path.insert(0, sys.argv[sys.argv.index(_ENGINE_FROM) + 1])

from engine import Command, GameState, Options, Phase, apply, step  # noqa: E402
from engine.randomplay import new_game, random_command  # noqa: E402

PLAYERS = 4


def play_game(seed: int) -> int:
    """Play one whole random game; return the number of commands applied."""
    state = new_game(PLAYERS, Options(), seed)
    rng = random.Random(seed)
    finished = Phase.FINISHED
    commands = 0
    while state.phase is not finished:
        step(state, random_command(state, rng))
        commands += 1
    return commands


def play_games(games: int) -> tuple[float, int]:
    """Seconds to play `games` random games (seeds 0, 1, …), and the commands they took."""
    start = time.perf_counter()
    commands = sum(play_game(seed) for seed in range(games))
    return time.perf_counter() - start, commands


def record_games(count: int) -> list[tuple[int, list[Command]]]:
    games = []
    for seed in range(count):
        state = new_game(PLAYERS, Options(), seed)
        rng = random.Random(seed)
        commands = []
        while state.phase is not Phase.FINISHED:
            command = random_command(state, rng)
            commands.append(command)
            step(state, command)
        games.append((seed, commands))
    return games


def replay(games: list[tuple[int, list[Command]]], pure: bool) -> float:
    """Seconds spent applying the recorded commands (dealing the first round excluded)."""
    spent = 0.0
    for seed, commands in games:
        state = new_game(PLAYERS, Options(), seed)
        start = time.perf_counter()
        if pure:
            for command in commands:
                state, _events = apply(state, command)
        else:
            for command in commands:
                step(state, command)
        spent += time.perf_counter() - start
    return spent


def mid_game_state() -> GameState:
    state = new_game(PLAYERS, Options(), 7)
    rng = random.Random(7)
    while state.round is not None and state.round.number < 8:
        step(state, random_command(state, rng))
    for _ in range(10):
        step(state, random_command(state, rng))
    return state


def json_times(reps: int = 2000) -> dict[str, Any]:
    state = mid_game_state()
    text = state.to_json()
    start = time.perf_counter()
    for _ in range(reps):
        state.to_json()
    to_json = (time.perf_counter() - start) / reps * 1e6
    start = time.perf_counter()
    for _ in range(reps):
        GameState.from_json(text)
    from_json = (time.perf_counter() - start) / reps * 1e6
    return {
        "state_json_bytes": len(text.encode()),
        "us_to_json": round(to_json, 1),
        "us_from_json": round(from_json, 1),
    }


def one_run(games: int) -> dict[str, Any]:
    """One run of every figure but the JSON ones (what --baseline compares)."""
    seconds, commands = play_games(games)
    recorded = record_games(games)
    count = sum(len(commands) for _, commands in recorded)
    return {
        "games_per_s": round(games / seconds, 1),
        "decisions_per_s": round(commands / seconds),
        "commands_per_game": round(commands / games, 1),
        "us_per_command": round(replay(recorded, pure=False) / count * 1e6, 3),
        "us_per_command_pure": round(replay(recorded, pure=True) / count * 1e6, 3),
    }


def standalone(games: int, runs: int) -> None:
    rates = []
    commands = 0
    for _ in range(runs):
        seconds, commands = play_games(games)
        rates.append(games / seconds)
        print(json.dumps({"run": len(rates), "games_per_s": round(rates[-1], 1)}))

    recorded = record_games(games)
    count = sum(len(commands) for _, commands in recorded)
    in_place = min(replay(recorded, pure=False) for _ in range(runs)) / count * 1e6
    pure = min(replay(recorded, pure=True) for _ in range(max(1, runs // 2))) / count * 1e6
    result = {
        "players": PLAYERS,
        "games_per_run": games,
        "games_per_s": round(statistics.median(rates)),
        "decisions_per_s": round(statistics.median(rates) * commands / games),
        "commands_per_game": round(commands / games, 1),
        "us_per_command": round(in_place, 2),
        "us_per_command_pure": round(pure, 2),
        **json_times(),
        "python": platform.python_version(),
    }
    print(json.dumps(result))


# --- --baseline ------------------------------------------------------------------------------

_FASTER = {  # figure: True when more is faster
    "games_per_s": True,
    "decisions_per_s": True,
    "us_per_command": False,
    "us_per_command_pure": False,
}


def measure_in_process(engine_from: Path, games: int) -> dict[str, Any]:
    """One run in a fresh process importing the engine of the checkout `engine_from`."""
    command = [sys.executable, __file__, "--one-run", "--games", str(games)]
    command += [_ENGINE_FROM, str(engine_from)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    figures: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return figures


def spread(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 3),
        "min": round(min(values), 3),
        "max": round(max(values), 3),
    }


def against_baseline(baseline: Path, games: int, runs: int) -> None:
    if not (baseline / "engine" / "__init__.py").is_file():
        sys.exit(f"--baseline: no engine/ in {baseline}")
    this = _HERE.parent
    figures: dict[str, list[dict[str, Any]]] = {"baseline": [], "this": []}
    for run in range(runs):
        order = [("baseline", baseline), ("this", this)]
        for name, root in order if run % 2 == 0 else order[::-1]:
            figures[name].append(measure_in_process(root, games))
            print(json.dumps({"run": run + 1, "engine": name, **figures[name][-1]}))
        if figures["baseline"][-1]["commands_per_game"] != figures["this"][-1]["commands_per_game"]:
            sys.exit("the engines played different games: not the same rules")
    result: dict[str, Any] = {"players": PLAYERS, "games_per_run": games, "runs": runs}
    for figure, more_is_faster in _FASTER.items():
        pairs = zip(figures["baseline"], figures["this"], strict=True)
        ratios = [
            this_run[figure] / base_run[figure]
            if more_is_faster
            else base_run[figure] / this_run[figure]
            for base_run, this_run in pairs
        ]
        result[figure] = {
            name: round(statistics.median(run[figure] for run in figures[name]), 3)
            for name in figures
        }
        result[f"speedup_{figure}"] = spread(ratios)
    result["baseline"] = str(baseline)
    result["python"] = platform.python_version()
    print(json.dumps(result))


# --- --compare openspiel -----------------------------------------------------------------------


def openspiel_player() -> Callable[[int], tuple[float, int]] | None:
    """A function that plays random 4-player oh_hell games until it has made at least N
    decisions and returns (seconds, decisions); None when pyspiel is not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": PLAYERS})

    def play(decisions: int) -> tuple[float, int]:
        rng = random.Random(0)
        made = 0
        start = time.perf_counter()
        while made < decisions:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
                else:
                    actions = state.legal_actions()
                    state.apply_action(actions[int(rng.random() * len(actions))])
                    made += 1
        return time.perf_counter() - start, made

    return play


def against_openspiel(games: int, runs: int) -> None:
    play_openspiel = openspiel_player()
    if play_openspiel is None:
        skipped = "open-spiel is not installed (pip install open-spiel): no comparison"
        print(json.dumps({"compare": "openspiel", "skipped": skipped}))
        return
    ours: list[float] = []
    theirs: list[float] = []
    for run in range(runs):
        seconds, decisions = play_games(games)
        ours.append(decisions / seconds)
        their_seconds, their_decisions = play_openspiel(decisions)
        theirs.append(their_decisions / their_seconds)
        print(
            json.dumps(
                {
                    "run": run + 1,
                    "decisions": decisions,
                    "engine_decisions_per_s": round(ours[-1]),
                    "openspiel_decisions_per_s": round(theirs[-1]),
                    "ratio": round(ours[-1] / theirs[-1], 3),
                }
            )
        )
    result = {
        "compare": "openspiel",
        "game": "oh_hell, 4 players, random full games",
        "runs": runs,
        "engine_decisions_per_s": round(statistics.median(ours)),
        "openspiel_decisions_per_s": round(statistics.median(theirs)),
        "ratio": spread([mine / other for mine, other in zip(ours, theirs, strict=True)]),
        "python": platform.python_version(),
    }
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="a checkout whose engine to compare with")
    parser.add_argument("--compare", choices=["openspiel"], help="compare with another engine")
    parser.add_argument("--one-run", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(_ENGINE_FROM, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_run:
        print(json.dumps(one_run(args.games)))
    elif args.baseline is not None:
        against_baseline(args.baseline.resolve(), args.games, args.runs)
    elif args.compare == "openspiel":
        against_openspiel(args.games, args.runs)
    else:
        standalone(args.games, args.runs)


if __name__ == "__main__":
    main()
