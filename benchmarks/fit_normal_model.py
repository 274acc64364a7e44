"""Fit the hard AI's model of how `normal` plays (`bot.ai.fastsim`: LEAD_NEED, LEAD_SATED,
TAKE_WEIGHTS) to `normal`'s own choices, and print the weights and how often they predict it.

    python benchmarks/fit_normal_model.py [--games N] [--seed S]

Plays N games of `normal` alone (3 to 6 players, 4 most often) and records, with the features
computed by the same functions the playouts use: every lead with a choice (by whether the bid
is made) and every follow in which a player needing tricks could both take the trick and leave
it. Each model is a choice model (a card chosen in proportion to exp(weights . features); taking
or leaving is a choice of two, leaving scored 0), fitted by Newton's method to the maximum of
the likelihood with a small ridge. The last line printed is JSON.
"""

import argparse
import json
import math
import random
import sys
from pathlib import Path

# benchmarks/engine.py would shadow the engine package: keep this folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from bot.ai import fastsim  # noqa: E402
from bot.ai.normal import NormalAI  # noqa: E402
from bot.ai.sampler import read_view  # noqa: E402
from engine import Options, Phase, Play, player_view, step  # noqa: E402
from engine.randomplay import new_game  # noqa: E402
from engine.views import waiting_seats  # noqa: E402

Sample = tuple[list[tuple[float, ...]], int]
"""The features of each option, and the index of the one `normal` chose."""
RIDGE = 0.01
TABLES = (4, 4, 3, 5, 6, 4)
"""Players per game, in turn."""


def collect(games: int, seed: int) -> dict[str, list[Sample]]:
    """The choices of `normal` in `games` games of `normal` alone."""
    normal = NormalAI()
    out: dict[str, list[Sample]] = {"lead_need": [], "lead_sated": [], "take": []}
    for game in range(games):
        players = TABLES[game % len(TABLES)]
        state = new_game(players, Options(), seed + game)
        rng = random.Random(seed + game)
        while state.phase is not Phase.FINISHED:
            seat = waiting_seats(state)[0]
            view = player_view(state, seat)
            command = normal.decide(view, rng)
            if isinstance(command, Play) and command.card and len(view.legal_cards) > 1:
                know = read_view(view)
                need = (view.bid or 0) - know.won[seat]
                turned = view.table.trump_card
                played = [card for cards in know.played for card in cards]
                gone = fastsim.seen_masks(played + fastsim.to_ints([turned] if turned else []))
                hand = know.hand
                card = fastsim.TO_INT[command.card]
                lead, wizard, _, best = fastsim.trick_state(know.trick, know.trump)
                if not know.trick:
                    rows = fastsim.lead_features(hand, know.trump, players, gone)
                    key = "lead_need" if need > 0 else "lead_sated"
                    out[key].append((rows, hand.index(card)))
                elif need > 0 and not wizard:
                    played_now = len(know.trick)
                    take = fastsim.card_to_take(
                        hand, know.trump, lead, best, played_now, players, need
                    )
                    if take >= 0:
                        row = fastsim.take_features(
                            hand, know.trump, take, played_now, players, need, gone
                        )
                        took = fastsim.KEY[know.trump, lead][card] > best
                        out["take"].append(([row, (0.0,) * len(row)], 0 if took else 1))
            step(state, command)
    return out


def _probabilities(rows: list[tuple[float, ...]], weights: list[float]) -> list[float]:
    scores = [sum(w * x for w, x in zip(weights, row, strict=True)) for row in rows]
    top = max(scores)
    exps = [math.exp(score - top) for score in scores]
    total = sum(exps)
    return [value / total for value in exps]


def fit(samples: list[Sample], steps: int = 12) -> list[float]:
    """The weights of the most likely choice model (with a ridge of RIDGE), by Newton's method."""
    size = len(samples[0][0][0])
    weights = [0.0] * size
    for _ in range(steps):
        grad = [-2 * RIDGE * w for w in weights]
        hess = [[-2 * RIDGE * (i == j) for j in range(size)] for i in range(size)]
        for rows, chosen in samples:
            probs = _probabilities(rows, weights)
            mean = [
                sum(p * row[i] for p, row in zip(probs, rows, strict=True)) for i in range(size)
            ]
            for i in range(size):
                grad[i] += rows[chosen][i] - mean[i]
            for p, row in zip(probs, rows, strict=True):
                if p < 1e-12:
                    continue
                for i in range(size):
                    di = row[i] - mean[i]
                    if di:
                        for j in range(size):
                            hess[i][j] -= p * di * (row[j] - mean[j])
        step_ = _solve(hess, [-g for g in grad])
        weights = [w + d for w, d in zip(weights, step_, strict=True)]
        if max(abs(d) for d in step_) < 1e-6:
            break
    return weights


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix . x = vector (Gaussian elimination, partial pivoting)."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(size):
            if r != col and rows[r][col]:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][size] / rows[i][i] for i in range(size)]


def predicted(samples: list[Sample], weights: list[float]) -> float:
    """The share of choices in which the likeliest option is the one `normal` chose."""
    hits = 0
    for rows, chosen in samples:
        probs = _probabilities(rows, weights)
        hits += max(range(len(rows)), key=probs.__getitem__) == chosen
    return hits / len(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--seed", type=int, default=3000)
    args = parser.parse_args()
    data = collect(args.games, args.seed)
    report = {}
    for name, samples in data.items():
        weights = fit(samples)
        report[name] = {
            "choices": len(samples),
            "weights": [round(w, 3) for w in weights],
            "predicted": round(predicted(samples, weights), 3),
        }
        print(name, report[name], flush=True)
    print(json.dumps({"games": args.games, "seed": args.seed, **report}))


if __name__ == "__main__":
    main()
