"""How long the coach takes: a hint per decision, and a whole game's review.

    python benchmarks/coach.py [--games N] [--players P] [--short]

Plays N standard games of P `normal` players (seeded, so every run plays the same games); at each
decision of seat 0 with a choice (a bid, or one of several cards) it times the hint that
player would get (`bot.ai.coach`), and after each game the review of seat 0's decisions
(`bot.ai.review.review_game`, its default budget). Prints one JSON line: hint p50, p95 and max
in milliseconds over all those decisions (the target: the AI's own time for a move, p95 at
most 250 ms on one core), and each review's seconds. `--short` plays rounds 1 to 5 alone (the
rounds=short option): hints and a review as in a whole game, on fewer and smaller hands (what
tests/test_benchmarks.py runs).
"""

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

# benchmarks/engine.py would shadow the engine package: keep this folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from bot.ai import get_ai  # noqa: E402
from bot.ai.coach import bid_hints, card_hints  # noqa: E402
from bot.ai.review import review_game  # noqa: E402
from engine import Options, Phase, RoundsPlan, export_record, player_view, step, table_view  # noqa: E402
from engine.randomplay import new_game  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--short", action="store_true", help="rounds=short, not all rounds")
    args = parser.parse_args()
    options = Options(rounds=RoundsPlan.SHORT if args.short else RoundsPlan.STANDARD)
    normal = get_ai("normal")
    hints: list[float] = []
    reviews: list[float] = []
    for game in range(args.games):
        state = new_game(args.players, options, 1000 + game)
        rng = random.Random(game)
        while state.phase is not Phase.FINISHED:
            seat = table_view(state).waiting[0]
            view = player_view(state, seat)
            if seat == 0 and (len(view.legal_bids) > 1 or len(view.legal_cards) > 1):
                started = time.perf_counter()
                if view.legal_bids:
                    bid_hints(view, random.Random(len(hints)))
                else:
                    card_hints(view, random.Random(len(hints)))
                hints.append(1000 * (time.perf_counter() - started))
            step(state, normal.decide(view, rng))
        started = time.perf_counter()
        review_game(export_record(state), 0, random.Random(game))
        reviews.append(round(time.perf_counter() - started, 2))
    print(
        json.dumps(
            {
                "games": args.games,
                "players": args.players,
                "rounds": str(options.rounds),
                "hints": len(hints),
                "hint_ms": {
                    "p50": round(statistics.median(hints), 1),
                    "p95": round(percentile(hints, 0.95), 1),
                    "max": round(max(hints), 1),
                },
                "review_game_s": reviews,
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
