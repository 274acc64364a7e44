"""The Python a command costs outside Redis: whole games played through the command table
(`bot.dispatch.apply`) and rendered (`bot.show.render.render`), the table serialized as the
store writes it and parsed as a read of new bytes does, with no Redis and no event loop.

    python benchmarks/commands.py [--games N] [--runs R] [--seed S] [--ai K]
                                  [--options TEXT] [--languages] [--profile [FILE]]

Each game has four seats, K of them AI (0 unless told) and the rest people, who press the
buttons of a legal move of whoever must act (a move of `engine.randomplay`, as its button's
payload). Per command it prints the mean microseconds of each part: `apply_us` (the handler:
the move, the AI seats' moves, which private messages changed), `render_us`, `to_bytes_us`
(with the finished rounds when they changed), `from_bytes_us`, and `total_us` (the four, as
one command of a chat whose bytes another worker wrote), each the best of R runs of the same
games (3 unless told). `messages_digest` is a digest of every message shown in the run, and
`tables_digest` of every table as it was stored: the same seed must give the same
`messages_digest` before and after a change that must not change what players see.
`--languages` lets the people's apps speak three languages. The last line printed is JSON.
"""

import argparse
import cProfile
import hashlib
import json
import pstats
import random
import sys
import time
from pathlib import Path

# This folder holds a script named after the engine package: keep it off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import bot.chat  # noqa: E402
from bot import dispatch, tokens  # noqa: E402
from bot.chat import Context, RobotMove, decide, robot_move, robot_seats  # noqa: E402
from bot.commands import Kind  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.requests import Request, User  # noqa: E402
from bot.service import ROBOT  # noqa: E402
from bot.show.look import look_of  # noqa: E402
from bot.show.render import render  # noqa: E402
from bot.store import Snapshot  # noqa: E402
from bot.table import Settings, Table  # noqa: E402
from bot.tokens import Action  # noqa: E402
from engine import (  # noqa: E402
    ROUND_PHASES,
    Bid,
    ChooseTrump,
    MarkWings,
    Options,
    Phase,
    Play,
    player_view,
)
from engine.options import parse_option  # noqa: E402
from engine.randomplay import random_command  # noqa: E402

SEATS = 4
LANGUAGES = ("de", "fr", None)


class Run:
    """The games of one run, and the time each part of a command took."""

    def __init__(self, seed: int, ai: int, options: str, languages: bool) -> None:
        self.rng = random.Random(seed)
        self.service_rng = random.Random(seed + 1)
        self.config = Config()
        self.settings = Settings()
        self.people = [
            User(
                f"tg:{seat + 1}",
                f"P{seat + 1}",
                language=LANGUAGES[seat % len(LANGUAGES)] if languages else None,
            )
            for seat in range(SEATS - ai)
        ]
        self.ai = ai
        self.options = [part for part in options.split(",") if part]
        self.table: Table | None = None
        self.stored = b""
        """The table's finished rounds as last stored."""
        self.version = 0
        self.now = 1_700_000_000.0
        self.times = {"apply": 0.0, "render": 0.0, "to_bytes": 0.0, "from_bytes": 0.0}
        self.commands = 0
        self.messages = hashlib.blake2b(digest_size=8)
        self.tables = hashlib.blake2b(digest_size=8)
        self.ids = iter(f"{n:06x}" for n in range(1, 1 << 24))

    def command(self, user: User, request: Request, robot: RobotMove | None = None) -> None:
        """Apply one request (or the AI's move `robot`, made aside) as the service does, and
        time its parts."""
        self.now += 1.0
        snap = Snapshot(
            self.version, None if self.table is None else self.table.copy(), self.settings
        )
        look = look_of(self.settings)
        ctx = Context(snap, user, look, self.config, self.now, self.service_rng)
        started = time.perf_counter()
        result = dispatch.apply(ctx, request) if robot is None else robot_move(ctx, robot)
        applied = time.perf_counter()
        write = result.write
        table = snap.table if write is None else write.table
        blob = results = b""
        if write is not None and write.table is not None:
            blob = write.table.to_bytes()
            if write.table.results_changed():
                results = write.table.results_bytes()
        written = time.perf_counter()
        if write is not None and write.table is not None:
            Table.from_bytes(blob, results or self.stored)
        read = time.perf_counter()
        messages = render(look, table, result.shown)
        rendered = time.perf_counter()
        self.commands += 1
        self.times["apply"] += applied - started
        self.times["to_bytes"] += written - applied
        self.times["from_bytes"] += read - written
        self.times["render"] += rendered - read
        if write is not None:
            self.version += 1
            self.table = write.table
            if self.table is not None:
                self.stored = results or self.stored
                self.table.stored = (self.table.game_id, len(self.table.game.results))
        self.messages.update(repr(messages).encode())
        self.tables.update(blob)

    def game(self) -> None:
        """One game, from the first join to its end."""
        first, *others = self.people
        self.table = None
        self.stored = b""
        self.command(first, Request(Kind.JOIN))
        for user in others:
            self.command(user, Request(Kind.JOIN))
        for _ in range(self.ai):
            self.command(first, Request(Kind.ADD_AI, "normal"))
        for text in self.options:
            self.command(first, Request(Kind.OPTION, text))
        self.command(first, Request(Kind.START))
        table = self.table
        while table is not None and table.game.phase in ROUND_PHASES:
            state = table.game
            seats = robot_seats(table)
            if seats:  # the AI's move, made aside as the service makes it (`robot_move`)
                view = player_view(state, seats[0])
                decided = decide("normal", view, self.rng, None)
                move = RobotMove(table.game_id, seats[0], view, decided)
                self.command(ROBOT, Request(Kind.BUTTON), robot=move)
                table = self.table
                continue
            people = {user.id: user for user in self.people}
            move = random_command(state, self.rng, wings=0.05)
            while move.player not in people:  # a wings mark of an AI seat's: another move
                move = random_command(state, self.rng, wings=0.05)
            user = people[move.player]
            if isinstance(move, Play):
                payload = tokens.make(table.game_id, state, Action.PLAY, move.card or "")
            elif isinstance(move, Bid):
                payload = tokens.make(table.game_id, state, Action.BID, str(move.bid))
            elif isinstance(move, ChooseTrump):
                payload = tokens.make(table.game_id, state, Action.TRUMP, move.suit.value)
            elif isinstance(move, MarkWings):
                card = "" if move.card is None else move.card
                payload = tokens.for_round(table.game_id, state, Action.WINGS, card)
            else:
                raise TypeError(move)
            self.command(user, Request(Kind.BUTTON, payload))
            table = self.table
        if table is None or table.game.phase is not Phase.FINISHED:
            raise RuntimeError("the game did not finish")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3, help="runs; each part's best is shown")
    parser.add_argument("--ai", type=int, default=0, help="AI seats of the four (default 0)")
    parser.add_argument("--options", default="", help="options set in the lobby: wings=on,...")
    parser.add_argument("--languages", action="store_true", help="people speak three languages")
    parser.add_argument("--profile", nargs="?", const="", default=None, metavar="FILE")
    args = parser.parse_args()
    for text in args.options.split(","):
        if text:
            parse_option(Options(), text)  # a bad option fails here, not mid-game
    runs = []
    for _ in range(args.runs):
        run = Run(args.seed, args.ai, args.options, args.languages)
        bot.chat.new_game_id = lambda run=run: next(run.ids)  # the same ids, the same messages
        profiler = cProfile.Profile() if args.profile is not None else None
        if profiler is not None:
            profiler.enable()
        for _ in range(args.games):
            run.game()
        if profiler is not None:
            profiler.disable()
            stats = pstats.Stats(profiler).sort_stats("tottime")
            stats.print_stats(25)
            if args.profile:
                stats.dump_stats(args.profile)
        runs.append(run)
    if len({run.messages.hexdigest() for run in runs}) != 1:
        raise RuntimeError("the runs showed different messages")
    best = {part: min(run.times[part] for run in runs) for part in run.times}
    per = {f"{part}_us": round(spent / run.commands * 1e6, 1) for part, spent in best.items()}
    print(
        json.dumps(
            {
                **per,
                "total_us": round(sum(best.values()) / run.commands * 1e6, 1),
                "commands": run.commands,
                "games": args.games,
                "runs": args.runs,
                "ai": args.ai,
                "options": args.options,
                "languages": args.languages,
                "messages_digest": run.messages.hexdigest(),
                "tables_digest": run.tables.hexdigest(),
                "python": sys.version.split()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
