"""The hard AI's compiled playouts against their Python sources: the same decisions, timed.

    python benchmarks/native.py [--games 2] [--runs 3] [--short]

Each run plays the same 4-player standard games (`hard` in seat 1, `normal` in the others, seed
1 on) twice, each in a fresh process, in alternating order: once as installed (the compiled
playouts where the install compiled them) and once with WIZARD_PURE_PYTHON=1 (the sources).
`--short` plays rounds 1 to 5 alone (the rounds=short option): bids and cards as in a whole
game, 20 of `hard`'s decisions a game instead of 135 (what tests/test_benchmarks.py runs). It
times `hard`'s decisions by the process's CPU time (the machine's other load left out) and
checks that both made the same moves. One JSON line a run; the last line has the medians:
compiled_ms and source_ms (mean CPU time of a decision), their p95, and speedup (source over
compiled, above 1: the compiled playouts are faster). Where nothing is compiled it says so and
stops.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GAMES = """
import hashlib, json, random, sys, time
import bot.ai
from bot.ai import get_ai
from engine import Options, Phase, RoundsPlan, player_view, step, waiting_seats
from engine.randomplay import new_game
hard, normal = get_ai("hard"), get_ai("normal")
times, moves = [], hashlib.sha256()
options = Options(rounds=RoundsPlan(sys.argv[2]))
for game in range(int(sys.argv[1])):
    state = new_game(4, options, 1 + game)
    rng = random.Random(game)
    while state.phase is not Phase.FINISHED:
        seat = waiting_seats(state)[0]
        view = player_view(state, seat)
        start = time.process_time()
        command = (hard if seat == 0 else normal).decide(view, rng)
        if seat == 0:
            times.append((time.process_time() - start) * 1000)
        moves.update(repr(command).encode())
        step(state, command)
print(json.dumps({"state": sorted(set(bot.native.STATE.values())), "times": times,
                  "moves": moves.hexdigest()}))
"""


def measure(games: int, pure: bool, rounds: str = "standard") -> dict[str, object]:
    env = {key: value for key, value in os.environ.items() if key != "WIZARD_PURE_PYTHON"}
    if pure:
        env["WIZARD_PURE_PYTHON"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", GAMES, str(games), rounds],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--short", action="store_true", help="rounds=short, not all rounds")
    args = parser.parse_args()
    rounds = "short" if args.short else "standard"
    if measure(0, False)["state"] != ["compiled"]:
        print(json.dumps({"compiled": False, "why": "nothing compiled in this install"}))
        return
    figures: dict[str, list[float]] = {"compiled_ms": [], "source_ms": [], "speedup": []}
    tails: dict[str, list[float]] = {"compiled_p95_ms": [], "source_p95_ms": []}
    for run in range(args.runs):
        order = [False, True] if run % 2 == 0 else [True, False]
        found = {pure: measure(args.games, pure, rounds) for pure in order}
        compiled, source = found[False], found[True]
        if compiled["moves"] != source["moves"]:
            raise SystemExit("the compiled and the source playouts made different moves")
        compiled_times = compiled["times"]
        source_times = source["times"]
        assert isinstance(compiled_times, list)
        assert isinstance(source_times, list)
        line = {
            "run": run + 1,
            "decisions": len(compiled_times),
            "compiled_ms": round(statistics.mean(compiled_times), 2),
            "source_ms": round(statistics.mean(source_times), 2),
            "compiled_p95_ms": round(p95(compiled_times), 1),
            "source_p95_ms": round(p95(source_times), 1),
        }
        line["speedup"] = round(line["source_ms"] / line["compiled_ms"], 3)
        for key, values in (figures | tails).items():
            values.append(float(line[key]))
        print(json.dumps(line), flush=True)
    summary: dict[str, object] = {"games": args.games, "rounds": rounds, "runs": args.runs}
    summary["same_moves"] = True
    for key, values in (figures | tails).items():
        summary[key] = {
            "median": round(statistics.median(values), 3),
            "min": round(min(values), 3),
            "max": round(max(values), 3),
        }
    summary.update(python=platform.python_version())
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
