"""AI strength and speed in 4-player standard games: normal against easy, and normal alone.

The last line printed is JSON.

    python benchmarks/ai.py [--games N]

- mixed: N games, seats normal/easy/normal/easy rotated one seat a game. Per level: mean
  points a game, win rate (games in which a seat of the level finished first, ties counted for
  each level tied), bid accuracy (bids met exactly).
- normal_only: N games of four normal players: mean points and bid accuracy.
- decision_ms: time of `decide` per level over all those games, p50 and p95.
"""

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

# benchmarks/engine.py would shadow the engine package: keep this folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from bot.ai import get_ai  # noqa: E402
from engine import GameState, Options, Phase, player_view, step, table_view  # noqa: E402
from engine.randomplay import new_game  # noqa: E402

PLAYERS = 4


def play_game(levels: list[str], seed: int, timings: dict[str, list[float]]) -> GameState:
    """One whole game with the AI of `levels` in the seats; decision times go to `timings`."""
    state = new_game(PLAYERS, Options(), seed)
    ais = [get_ai(level) for level in levels]
    rng = random.Random(seed)
    while state.phase is not Phase.FINISHED:
        seat = table_view(state).waiting[0]
        view = player_view(state, seat)
        start = time.perf_counter()
        command = ais[seat].decide(view, rng)
        timings[levels[seat]].append((time.perf_counter() - start) * 1000)
        step(state, command)
    return state


def summary(games: list[tuple[list[str], GameState]]) -> dict[str, dict[str, float]]:
    points: dict[str, list[int]] = {}
    wins: dict[str, int] = {}
    hits: dict[str, list[bool]] = {}
    for levels, state in games:
        best = max(state.totals)
        for level in set(levels):
            wins[level] = wins.get(level, 0) + any(
                total == best and levels[seat] == level for seat, total in enumerate(state.totals)
            )
        for seat, level in enumerate(levels):
            points.setdefault(level, []).append(state.totals[seat])
            for result in state.results:
                hits.setdefault(level, []).append(result.bids[seat] == result.won[seat])
    return {
        level: {
            "mean_points": round(statistics.mean(points[level]), 1),
            "win_rate": round(wins[level] / len(games), 3),
            "bid_accuracy": round(statistics.mean(hits[level]), 3),
        }
        for level in sorted(points)
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games of each kind")
    args = parser.parse_args()

    timings: dict[str, list[float]] = {"normal": [], "easy": []}
    mixed = []
    for game in range(args.games):
        levels = ["normal", "easy"] * (PLAYERS // 2)
        levels = levels[game % PLAYERS :] + levels[: game % PLAYERS]
        mixed.append((levels, play_game(levels, seed=game, timings=timings)))
    alone = []
    for game in range(args.games):
        levels = ["normal"] * PLAYERS
        alone.append((levels, play_game(levels, seed=10_000 + game, timings=timings)))
    normal_only = summary(alone)["normal"]
    del normal_only["win_rate"]
    result = {
        "players": PLAYERS,
        "games": args.games,
        "mixed": summary(mixed),
        "normal_only": normal_only,
        "decision_ms": {
            level: {"p50": percentile(times, 0.5), "p95": percentile(times, 0.95)}
            for level, times in timings.items()
        },
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
