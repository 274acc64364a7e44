"""Screen a variant of the hard AI: the arena with a module constant or a `Budget` field changed.

The last line printed is JSON (the arena's summary, times left out, and the changes made).

    python benchmarks/ai_variants.py [--games N] [--players P] [--seed S] [--jobs J]
                                     [--opponent LEVEL] [--times] [--short] [CHANGE ...]

A CHANGE is `budget.FIELD=VALUE` (a field of `bot.ai.hard.Budget` for the `hard` level) or
`MODULE.NAME=VALUE` (a constant, e.g. `bot.ai.hard.HIT_BONUS=0`); VALUE is a Python literal.
Seats are one `hard` and `--opponent` (a level or an arena style, default `normal`) in the
others, rotated as in `wizard-bot arena`; the workers are forked after the change, so they play
the variant (`budget.read=False`: `hard` before it read the others' bids). `--times` keeps the
decision times in the summary. `--oracle` deals `hard` the others' true hands: every deal it
samples is the real one (what no reading of the table can beat: the bound on what reading the
others' hands may still gain). `--oracle bids` deals them only for the decisions before the
play (trump and bid), `--oracle play` only for the cards: what the hands are worth at each.
`--short` plays rounds 1 to 5 alone (the rounds=short option; what tests/test_benchmarks.py runs).
docs/ai.md lists the screens run.
"""

import argparse
import ast
import dataclasses
import importlib
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# benchmarks/engine.py would shadow the engine package: keep this folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from bot import ai  # noqa: E402
from bot.ai import arena, hard  # noqa: E402
from bot.ai.arena import run_arena, summary  # noqa: E402
from bot.ai.fastsim import TO_INT  # noqa: E402
from bot.ai.hard import HardAI  # noqa: E402
from bot.ai.sampler import Knowledge  # noqa: E402
from engine import GameState, Options, PlayerView, RoundsPlan  # noqa: E402

_TRUE: list[list[int]] = []
"""The hands of the round being played, as the arena last showed a seat its view."""


ORACLE_AT = {"both": ("trump", "bid", "play"), "bids": ("trump", "bid"), "play": ("play",)}
"""The `HardAI` decisions that `--oracle WHEN` deals the true hands to."""


def deal_true_hands(when: str) -> None:
    """`--oracle WHEN`: the arena notes the true hands as it shows a seat its view, and `hard`'s
    sampler draws them as every candidate deal in the decisions of `ORACLE_AT[when]` (the
    others deal as they always do)."""
    show = arena.player_view
    sample = hard.candidates
    knowing = [False]

    def noting(state: GameState, seat: int) -> PlayerView:
        if state.round is not None:
            _TRUE[:] = [[TO_INT[card] for card in hand] for hand in state.round.hands]
        return show(state, seat)

    def true_deals(know: Knowledge, count: int, rng: random.Random) -> list[list[list[int]]]:
        if not knowing[0]:
            return sample(know, count, rng)
        return [[list(hand) for hand in _TRUE] for _ in range(count)]

    def knowing_in(decide: Callable[..., Any]) -> Callable[..., Any]:
        def decision(self: HardAI, view: PlayerView, rng: random.Random) -> Any:
            knowing[0] = True
            try:
                return decide(self, view, rng)
            finally:
                knowing[0] = False

        return decision

    setattr(arena, "player_view", noting)  # noqa: B010 - a name arena imported
    setattr(hard, "candidates", true_deals)  # noqa: B010 - a name hard imported
    for name in ORACLE_AT[when]:
        setattr(HardAI, name, knowing_in(getattr(HardAI, name)))


def apply(change: str) -> None:
    """Make one CHANGE (see the module docstring)."""
    name, _, text = change.partition("=")
    value = ast.literal_eval(text)
    if name.startswith("budget."):
        hard = ai.LEVELS["hard"]
        assert isinstance(hard, HardAI)
        ai.LEVELS["hard"] = HardAI(dataclasses.replace(hard.budget, **{name[7:]: value}))
        return
    module_name, _, attribute = name.rpartition(".")
    module = importlib.import_module(module_name)
    if not hasattr(module, attribute):
        raise SystemExit(f"{module_name} has no {attribute}")
    setattr(module, attribute, value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=80)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=202)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--opponent", default="normal", help="a level or an arena style")
    parser.add_argument("--times", action="store_true", help="report the decision times")
    parser.add_argument("--short", action="store_true", help="rounds=short, not all rounds")
    parser.add_argument(
        "--oracle",
        nargs="?",
        const="both",
        choices=sorted(ORACLE_AT),
        help="deal hard the true hands (in its bids, its play, or both: the default)",
    )
    parser.add_argument("changes", nargs="*", metavar="CHANGE")
    args = parser.parse_args()
    for change in args.changes:
        apply(change)
    if args.oracle:
        deal_true_hands(args.oracle)
    seats = ("hard", *[args.opponent] * (args.players - 1))
    options = Options(rounds=RoundsPlan.SHORT if args.short else RoundsPlan.STANDARD)
    results = run_arena(seats, options, args.games, args.seed, args.jobs)
    head = {"changes": args.changes, "oracle": args.oracle, "seats": seats, "seed": args.seed}
    head["rounds"] = str(options.rounds)
    print(json.dumps({**head, **summary(results, timing=args.times)}))


if __name__ == "__main__":
    main()
