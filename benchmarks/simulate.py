"""`wizard-bot simulate` writing records, against a plain simulator of the same job. Prints one
JSON line a run and a last line with the medians and spreads.

    python benchmarks/simulate.py [--games 300] [--runs 3] [--jobs 1,2]

Each run times, one after the other, the reference and `wizard-bot simulate --games N --players
4 --records DIR --jobs J` for each J, each as a fresh process (start-up included). The
reference is what one would write first: a straightforward Wizard of four players (the standard
table) with random legal players, each game a loop over rounds, bids and tricks on lists of
card strings, its record a dict written with the standard library's json. It deals and decides
by the same seeded protocol as the engine's random player (engine.randomplay: the shuffle of
engine.game.shuffled_deck, a draw from the hand and, if that card may not be played, a draw
among the legal cards), so it writes the same records, byte for byte: each run checks that.

- ref_s, cli_jJ_s: seconds of each; speed_jJ: ref_s / cli_jJ_s (above 1: simulate is faster).
"""

import argparse
import filecmp
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = 4
NAMES = ["Ann", "Bob", "Cid", "Dee"]
SUITS = "BGRY"
DECK = [f"{suit}{rank}" for suit in SUITS for rank in range(1, 14)] + ["W"] * 4 + ["J"] * 4
STANDARD = {
    "notequal": False,
    "bids": "open",
    "rounds": "standard",
    "dmmixed": False,
    "foresight": False,
    "wings": False,
}


def suit(card: str) -> str | None:
    return None if card in ("W", "J") else card[0]


def lead_suit(trick: list[str]) -> str | None:
    for card in trick:
        if card == "W":
            return None
        if card != "J":
            return card[0]
    return None


def may_play(card: str, hand: list[str], trick: list[str]) -> bool:
    lead = lead_suit(trick)
    if lead is None or suit(card) in (None, lead):
        return True
    return not any(suit(other) == lead for other in hand)


def winner_index(trick: list[str], trump: str | None) -> int:
    if "W" in trick:
        return trick.index("W")
    lead = lead_suit(trick)
    best, best_key = 0, -1
    for index, card in enumerate(trick):
        if card == "J":
            continue
        rank = int(card[1:])
        key = rank + 100 if card[0] == trump else rank if card[0] == lead else -1
        if key > best_key:
            best, best_key = index, key
    return best


def reference_game(seed: int) -> dict[str, Any]:
    """One game of four random legal players, as its record."""
    rng = random.Random(seed)
    first_dealer = random.Random(f"{seed}:dealer").randrange(PLAYERS)
    totals = [0] * PLAYERS
    rounds = []
    for number in range(1, len(DECK) // PLAYERS + 1):
        key = random.Random(f"{seed}:{number}").random
        deck = sorted(DECK, key=lambda _card: key())
        dealer = (first_dealer + number - 1) % PLAYERS
        hands = [deck[seat * number : (seat + 1) * number] for seat in range(PLAYERS)]
        trump_card = deck[PLAYERS * number] if PLAYERS * number < len(deck) else None
        trump = None if trump_card is None else suit(trump_card)
        if trump_card == "W":
            trump = rng.choice(SUITS)  # the dealer chooses
        bids = [0] * PLAYERS
        for offset in range(1, PLAYERS + 1):
            bids[(dealer + offset) % PLAYERS] = int(rng.random() * (number + 1))
        held = [list(hand) for hand in hands]
        won = [0] * PLAYERS
        tricks = []
        leader = (dealer + 1) % PLAYERS
        for _ in range(number):
            trick: list[str] = []
            for offset in range(PLAYERS):
                hand = held[(leader + offset) % PLAYERS]
                card = hand[int(rng.random() * len(hand))]
                if not may_play(card, hand, trick):
                    lead = lead_suit(trick)
                    legal = [c for c in hand if suit(c) == lead] + [c for c in hand if not suit(c)]
                    card = legal[int(rng.random() * len(legal))]
                hand.remove(card)
                trick.append(card)
            winner = (leader + winner_index(trick, trump)) % PLAYERS
            won[winner] += 1
            tricks.append({"leader": leader, "cards": trick, "winner": winner})
            leader = winner
        points = [
            20 + 10 * taken if bid == taken else -10 * abs(bid - taken)
            for bid, taken in zip(bids, won, strict=True)
        ]
        totals = [total + gain for total, gain in zip(totals, points, strict=True)]
        rounds.append(
            {
                "number": number,
                "cards": number,
                "dealer": dealer,
                "hands": hands,
                "trump_card": trump_card,
                "trump": trump,
                "bids": bids,
                "tricks": tricks,
                "won": won,
                "points": points,
            }
        )
    return {
        "format": "wizard-record/1",
        "players": NAMES,
        "options": STANDARD,
        "first_dealer": first_dealer,
        "rounds": rounds,
        "totals": totals,
        "seed": seed,
    }


def reference(games: int, seed: int, folder: Path) -> None:
    """The reference job: `games` games from `seed` on, a record file each."""
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(games):
        record = reference_game(seed + index)
        text = json.dumps(record, separators=(",", ":")) + "\n"
        (folder / f"game-{index:04d}.json").write_text(text, encoding="utf-8")


ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
"""The processes' environment: bytecode cached, as an installed package has it."""


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=ENV, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def same_files(one: Path, other: Path) -> bool:
    names = sorted(path.name for path in one.iterdir())
    if names != sorted(path.name for path in other.iterdir()):
        return False
    _, mismatch, errors = filecmp.cmpfiles(one, other, names, shallow=False)
    return not mismatch and not errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per job")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", default="1,2", help="the --jobs values to time, comma-separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reference", metavar="DIR", help=argparse.SUPPRESS)  # one reference job
    args = parser.parse_args()
    if args.reference:
        reference(args.games, args.seed, Path(args.reference))
        return

    jobs = [int(part) for part in args.jobs.split(",")]
    speeds: dict[int, list[float]] = {job: [] for job in jobs}
    simulate = [sys.executable, "-m", "adapters.cli", "simulate", "--players", str(PLAYERS)]
    with tempfile.TemporaryDirectory() as temporary:
        timed([*simulate, "--games", "1", "--records", temporary])  # bytecode written
        for run in range(args.runs):
            base = Path(temporary, str(run))
            ref_dir = base / "reference"
            game_args = ["--games", str(args.games), "--seed", str(args.seed)]
            figures: dict[str, Any] = {"run": run + 1, "games": args.games}
            ref_s = timed([sys.executable, __file__, *game_args, "--reference", str(ref_dir)])
            figures["ref_s"] = round(ref_s, 3)
            for job in jobs:
                out = base / f"jobs{job}"
                cli_s = timed([*simulate, *game_args, "--records", str(out), "--jobs", str(job)])
                if not same_files(ref_dir, out):
                    raise SystemExit(f"--jobs {job} wrote other records than the reference")
                figures[f"cli_j{job}_s"] = round(cli_s, 3)
                figures[f"speed_j{job}"] = round(ref_s / cli_s, 3)
                speeds[job].append(ref_s / cli_s)
            print(json.dumps(figures), flush=True)
    summary: dict[str, Any] = {"games": args.games, "runs": args.runs, "same_records": True}
    for job, values in speeds.items():
        summary[f"speed_j{job}_median"] = round(statistics.median(values), 3)
        summary[f"speed_j{job}_spread"] = [round(min(values), 3), round(max(values), 3)]
    summary.update(python=platform.python_version(), cpus=os.cpu_count())
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
