"""Engine speed on one core: full random 4-player standard games per second, and the cost of
one command. The last line printed is JSON.

    python benchmarks/engine.py [--games N] [--runs R]

- games_per_s: whole games, random legal players deciding every move (engine.randomplay), the
  engine applying each command in place (engine.step); the median of R runs.
- us_per_command: engine.step alone, replaying the commands of recorded games (no decisions).
- us_per_command_pure: engine.apply (copy, then step), as a caller that keeps the old state pays.
- state_json_bytes / us_to_json / us_from_json: a mid-game 4-player state (round 8) serialized.
"""

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

# This file is named after the package it measures: keep its own folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per run")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    rates = []
    commands = 0
    for _ in range(args.runs):
        start = time.perf_counter()
        commands = sum(play_game(seed) for seed in range(args.games))
        rates.append(args.games / (time.perf_counter() - start))
        print(f"run: {rates[-1]:.0f} games/s ({commands / args.games:.0f} commands a game)")

    games = record_games(args.games)
    count = sum(len(commands) for _, commands in games)
    in_place = min(replay(games, pure=False) for _ in range(args.runs)) / count * 1e6
    pure = min(replay(games, pure=True) for _ in range(max(1, args.runs // 2))) / count * 1e6

    state = mid_game_state()
    text = state.to_json()
    reps = 2000
    start = time.perf_counter()
    for _ in range(reps):
        state.to_json()
    to_json = (time.perf_counter() - start) / reps * 1e6
    start = time.perf_counter()
    for _ in range(reps):
        GameState.from_json(text)
    from_json = (time.perf_counter() - start) / reps * 1e6

    result = {
        "players": PLAYERS,
        "games_per_run": args.games,
        "games_per_s": round(statistics.median(rates)),
        "commands_per_game": round(commands / args.games, 1),
        "us_per_command": round(in_place, 2),
        "us_per_command_pure": round(pure, 2),
        "state_json_bytes": len(text.encode()),
        "us_to_json": round(to_json, 1),
        "us_from_json": round(from_json, 1),
        "python": platform.python_version(),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
