"""Screen a variant of the hard AI: the arena with a module constant or a `Budget` field changed.

The last line printed is JSON (the arena's summary, times left out, and the changes made).

    python benchmarks/ai_variants.py [--games N] [--players P] [--seed S] [--jobs J]
                                     [--opponent LEVEL] [--times] [CHANGE ...]

A CHANGE is `budget.FIELD=VALUE` (a field of `bot.ai.hard.Budget` for the `hard` level) or
`MODULE.NAME=VALUE` (a constant, e.g. `bot.ai.hard.HIT_BONUS=0`); VALUE is a Python literal.
Seats are one `hard` and `--opponent` (a level or an arena style, default `normal`) in the
others, rotated as in `wizard-bot arena`; the workers are forked after the change, so they play
the variant (`budget.read=False`: `hard` before it read the others' bids). `--times` keeps the
decision times in the summary. docs/ai.md lists the screens run.
"""

import argparse
import ast
import dataclasses
import importlib
import json
import sys
from pathlib import Path

# benchmarks/engine.py would shadow the engine package: keep this folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from bot import ai  # noqa: E402
from bot.ai.arena import run_arena, summary  # noqa: E402
from bot.ai.hard import HardAI  # noqa: E402
from engine import Options  # noqa: E402


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
    parser.add_argument("changes", nargs="*", metavar="CHANGE")
    args = parser.parse_args()
    for change in args.changes:
        apply(change)
    seats = ("hard", *[args.opponent] * (args.players - 1))
    results = run_arena(seats, Options(), args.games, args.seed, args.jobs)
    head = {"changes": args.changes, "seats": seats, "seed": args.seed}
    print(json.dumps({**head, **summary(results, timing=args.times)}))


if __name__ == "__main__":
    main()
