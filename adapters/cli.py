"""The `wizard-bot` command line: the bot itself (`run`), its health check (`health`) and its
backups (`backup`, `restore`), the terminal table (`play`), a demo game, simulations, and
checking or replaying records."""

import argparse
import getpass
import io
import json
import os
import random
import select
import shutil
import stat
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from bot import Config, ConfigError, load_config
from bot.config import AI_LEVELS
from engine import (
    Options,
    RecordError,
    RuleError,
    check_record,
    export_record,
    hand_sizes,
    parse_option,
)
from engine.options import MAX_PLAYERS, MIN_PLAYERS
from engine.randomplay import play_random_game
from engine.state import GameState
from engine.views import table_view

if TYPE_CHECKING:
    from adapters.console import PlayArgs
    from bot.show.look import Look

PROG = "wizard-bot"
USAGE_ERROR = 2
TOP_LEVEL_FLAGS = ("-h", "--help", "--version")


class UsageError(Exception):
    """A command line that cannot be run as given (exit status 2)."""


class BadRecord(Exception):
    """A file that is not a valid game record; the message says why, on one line."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on `argv` (default: the process's arguments); return the exit status."""
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or (words[0].startswith("-") and words[0] not in TOP_LEVEL_FLAGS):
        words.insert(0, "run")  # no command: run the bot, with any options given
    try:
        args = parser.parse_args(words)
    except SystemExit as exit_:  # argparse: --help, --version, or a usage error
        return exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except UsageError as error:
        print(f"{PROG} {args.command}: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `wizard-bot replay FILE | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `wizard-bot` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Wizard, the card game (Amigo): chat bots for Telegram and Discord, a "
        "terminal table, AI players, and the rules engine's game records.",
        epilog=f"Without a command, {PROG} runs the bot ({PROG} run [play options]): the "
        "terminal table until a chat front end is configured.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    commands = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="run the bot: the chat front ends if configured, else the terminal table (default)",
        description="Start the chat front ends configured (a Telegram or Discord token); with "
        "none configured, say how to configure one and start the terminal table instead, with "
        "the options of `play` (or, when standard input is closed, as in a container, stop "
        "with that message).",
    )
    _play_arguments(run)
    run.set_defaults(handler=run_bot)

    play = commands.add_parser(
        "play",
        help="play a game in the terminal against AI players",
        description="Play one seat of a game against AI seats, in the terminal, through the "
        "game service and its Redis store (the embedded one in data_dir unless redis_url is "
        "configured). An unfinished game is resumed automatically; --new starts a new one.",
    )
    _play_arguments(play)
    play.set_defaults(handler=run_play)

    demo = commands.add_parser(
        "demo",
        help="play a game with random players and show its score sheet",
        description="Play one game with random legal players and print its score sheet.",
    )
    _game_arguments(demo)
    demo.set_defaults(handler=run_demo)

    simulate = commands.add_parser(
        "simulate",
        help="play many games with random players; sum up, save records",
        description="Play N games with random legal players (game i uses seed S+i), print a "
        "summary and optionally write each game's record to DIR/game-NNNN.json.",
    )
    simulate.add_argument(
        "--games", "-n", type=_positive, default=100, metavar="N", help="games (default 100)"
    )
    _game_arguments(simulate)
    simulate.add_argument("--records", metavar="DIR", help="write a record of each game to DIR")
    simulate.set_defaults(handler=run_simulate)

    replay = commands.add_parser(
        "replay",
        help="check game records, or replay them round by round",
        description="Check wizard-record/1 game records against the rules; print each game "
        "round by round with its score sheet, or with --check only the verdict. "
        "Exit status: 0 all valid, 1 some invalid, 2 usage error.",
    )
    replay.add_argument("files", nargs="+", metavar="FILE", help="a JSON game record")
    replay.add_argument(
        "--check", action="store_true", help="only check: one line per file, ok or why not"
    )
    replay.set_defaults(handler=run_replay)

    arena = commands.add_parser(
        "arena",
        help="play AI levels against each other; print the figures as JSON",
        description="Play N games between AI levels, the seats rotated one place a game (each "
        "deal, seed S+d, is played once per rotation), and print as JSON per level: mean "
        "points a game, win rate (ties shared), bid accuracy overall and by bidding "
        "position, decision time p50/p95 in ms.",
    )
    arena.add_argument(
        "--games", "-n", type=_positive, default=100, metavar="N", help="games (default 100)"
    )
    _game_arguments(arena)
    arena.add_argument(
        "--seats",
        type=_levels,
        metavar="LEVELS",
        help="the level of each seat, comma-separated, or one for all "
        "(default: hard, then normal in the other seats)",
    )
    arena.add_argument(
        "--jobs", "-j", type=_positive, default=1, metavar="J", help="processes (default 1)"
    )
    arena.add_argument(
        "--no-times",
        action="store_true",
        help="leave out the decision times (then the output depends on the seed alone)",
    )
    arena.set_defaults(handler=run_arena)

    backup = commands.add_parser(
        "backup",
        help="copy every key the bot keeps in Redis to a file, while the bot runs",
        description="Write every key of the bot in the configured Redis (redis_url, a Cluster "
        "with redis_cluster) or the embedded one in data_dir to FILE: gzip'd JSON lines, each "
        "chat as of one moment (docs/operations.md, Backups). Exit status: 0 written, 1 not.",
    )
    backup.add_argument("file", metavar="FILE", help="the backup to write (-: standard output)")
    backup.set_defaults(handler=run_backup)

    restore = commands.add_parser(
        "restore",
        help="restore a backup into a Redis that holds none of the bot's keys",
        description="Check the backup in FILE whole, then write it into the configured Redis "
        "(or the embedded one in data_dir), each chat in one step. A Redis with keys of the "
        "bot is refused unless --replace. Exit status: 0 restored, 1 not.",
    )
    restore.add_argument("file", metavar="FILE", help="the backup to read (-: standard input)")
    restore.add_argument(
        "--replace",
        action="store_true",
        help="replace the bot's keys there: they end exactly as in the backup",
    )
    restore.set_defaults(handler=run_restore)

    health = commands.add_parser(
        "health",
        help="ask the running bot's health server whether it is well (exit 0) or not (1)",
        description="GET /healthz (with --ready: /readyz) of the health server at "
        "metrics.listen (WIZARD_METRICS_LISTEN), as a container's health check does; 0.0.0.0 "
        "and [::] are asked on the loopback address. Exit status: 0 when it answers 200, "
        "else 1 with one line saying why.",
    )
    health.add_argument(
        "--ready",
        action="store_true",
        help="ask /readyz instead: whether the bot can serve (its store reached)",
    )
    health.add_argument(
        "--timeout",
        type=_seconds,
        default=3.0,
        metavar="S",
        help="seconds to wait for the answer (default 3)",
    )
    health.set_defaults(handler=run_health)
    return parser


def _levels(text: str) -> tuple[str, ...]:
    levels = tuple(part.strip().lower() for part in text.split(","))
    for level in levels:
        if level not in AI_LEVELS:
            known = ", ".join(AI_LEVELS)
            raise argparse.ArgumentTypeError(f"unknown AI level {level!r} (known: {known})")
    return levels


def _game_arguments(parser: argparse.ArgumentParser, default_players: int = 4) -> None:
    parser.add_argument(
        "--players",
        "-p",
        type=_players,
        default=default_players,
        metavar="P",
        help=f"players, {MIN_PLAYERS} to {MAX_PLAYERS} (default {default_players})",
    )
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="OPT",
        dest="options",
        help="a table option, repeatable: notequal, bids=hidden|secret, "
        "rounds=short|tournament, dmmixed, foresight, wings; NAME=off switches one off",
    )
    parser.add_argument("--seed", "-s", type=int, metavar="S", help="random seed (default: any)")


def _play_arguments(parser: argparse.ArgumentParser) -> None:
    _game_arguments(parser, default_players=4)
    parser.add_argument(
        "--level",
        "-l",
        type=_levels,
        metavar="LEVEL",
        help=f"how well the AI players play: {', '.join(AI_LEVELS)}, or one level per AI "
        "seat comma-separated, e.g. hard,normal,easy (default: ai_level of the "
        "configuration, normal)",
    )
    parser.add_argument(
        "--name",
        "-N",
        type=_name,
        help="your name at the table (default: your login name, else You)",
    )
    parser.add_argument(
        "--new", action="store_true", help="start a new game even if one could be resumed"
    )


def _default_name() -> str:
    try:
        login = getpass.getuser()
    except (OSError, KeyError):
        return "You"
    if not login.isalpha() or login == "root" or len(login) > 32:
        return "You"
    return login.capitalize()


def _name(text: str) -> str:
    name = " ".join(text.split())
    if not 1 <= len(name) <= 32 or not name.isprintable():
        raise argparse.ArgumentTypeError("a name is 1 to 32 printable characters")
    return name


def _players(text: str) -> int:
    count = _int(text)
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(
            f"Wizard is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {count}"
        )
    return count


def _positive(text: str) -> int:
    count = _int(text)
    if count < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {count}")
    return count


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < seconds <= 60:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 60, not {text}")
    return seconds


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def _version() -> str:
    try:
        return metadata.version(PROG)
    except metadata.PackageNotFoundError:
        return "unknown"


def _options(texts: Sequence[str], players: int) -> Options:
    """Options from `--option` texts, checked against the number of players."""
    options = Options()
    for text in texts:
        try:
            options = parse_option(options, text)
            hand_sizes(options, players)
        except RuleError as error:
            raise UsageError(f"--option {text}: {error.message}") from None
    return options


def _seed(args: argparse.Namespace) -> int:
    seed: int | None = args.seed
    return random.randrange(1_000_000) if seed is None else seed


def _look() -> "Look":
    """How demo and replay show a game: as a new chat's default settings say (English, the
    default deck)."""
    from bot.show.look import look_of
    from bot.table import Settings

    return look_of(Settings())


def _width() -> int:
    from bot.show.formatters import WIDTH

    if sys.stdout.isatty():
        return shutil.get_terminal_size((WIDTH, 24)).columns
    return WIDTH


def run_demo(args: argparse.Namespace) -> int:
    """`wizard-bot demo`: one game with random players, shown as a score sheet."""
    from adapters.text import tolerant
    from bot.show.formatters import final_standings, score_sheet

    tolerant(sys.stdout)
    players: int = args.players
    options = _options(args.options, players)
    seed = _seed(args)
    state, _ = play_random_game(players, options, seed)
    view = table_view(state)
    names = [seat.name for seat in view.seats]
    look = _look()
    print(
        f"Wizard: a game of {players} random players, {len(state.results)} rounds "
        f"(options: {options.describe()}; seed {seed})"
    )
    print()
    print(score_sheet(names, view.sheet, _width(), look.t))
    print()
    print("\n".join([look.t("Final standings"), "", *final_standings(look, view)]))
    print()
    print(f"Replay this game: {PROG} demo --seed {seed}" + "".join(_option_args(args.options)))
    print(
        f"Play one yourself: {PROG} play. For the other commands: {PROG} --help "
        "(or ./dev run --help)."
    )
    return 0


def _load_config() -> Config:
    try:
        return load_config()
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _play_args(args: argparse.Namespace) -> "PlayArgs":
    from adapters.console import PlayArgs  # the terminal table loads Redis: only when asked

    players: int = args.players
    _options(args.options, players)  # checked before anything starts
    levels: tuple[str, ...] | None = args.level
    if levels is not None and len(levels) not in (1, players - 1):
        raise UsageError(
            f"--level names {len(levels)} levels for {players - 1} AI seats (give one, or one "
            "per AI seat)"
        )
    return PlayArgs(
        players=players,
        options=tuple(args.options),
        seed=args.seed,
        level=None if levels is None else ",".join(levels),
        name=args.name or _default_name(),
        new=args.new,
        command=args.command,
    )


def run_play(args: argparse.Namespace) -> int:
    """`wizard-bot play`: one game in the terminal against AI players."""
    from adapters.console import play

    play_args = _play_args(args)
    return play(play_args, _load_config())


def run_bot(args: argparse.Namespace) -> int:
    """`wizard-bot run`: the chat front ends configured, else the terminal table."""
    from adapters.console import play

    play_args = _play_args(args)
    config = _load_config()
    if config.telegram.token or config.discord.token:
        # every configured front end, in one process (one asyncio loop, one Redis); a
        # platform's library loads only when it is used
        from adapters import serve

        return serve.run(config)
    if _stdin_at_end():
        raise UsageError(
            "no chat front end is configured (set WIZARD_TELEGRAM_TOKEN or "
            "WIZARD_DISCORD_TOKEN, or a token in wizard.toml) and standard input is closed, "
            "so the terminal table cannot be played either"
        )
    print(
        "No chat front end is configured: set WIZARD_TELEGRAM_TOKEN or WIZARD_DISCORD_TOKEN, "
        "or a token in wizard.toml (see config.example.toml)."
    )
    print(f"Meanwhile, the terminal table: you against AI players ({PROG} play --help).")
    return play(play_args, config)


def _stdin_at_end() -> bool:
    """Whether standard input has nothing to give, now or later: closed, /dev/null (a container's
    or a service manager's), an empty file read to its end, a pipe closed with nothing left in
    it. A terminal, or a pipe still open or with lines waiting, is not at its end."""
    stream = sys.stdin
    try:
        descriptor = stream.fileno()
        if os.isatty(descriptor):
            return False
        info = os.fstat(descriptor)
    except (AttributeError, OSError, ValueError):  # no stdin, or closed
        return True
    if stat.S_ISCHR(info.st_mode):
        return info.st_rdev == os.stat(os.devnull).st_rdev
    if stat.S_ISREG(info.st_mode):
        return os.lseek(descriptor, 0, os.SEEK_CUR) >= info.st_size
    readable, _, _ = select.select([descriptor], [], [], 0)
    buffer = getattr(stream, "buffer", None)
    if not readable or not isinstance(buffer, io.BufferedReader):
        return False  # an open pipe with nothing yet: lines may come
    return not buffer.peek(1)  # readable and empty is the end; a peek keeps what is there


def run_health(args: argparse.Namespace) -> int:
    """`wizard-bot health`: the health server's answer as an exit status (0 well, 1 not)."""
    from adapters.healthcheck import HEALTH_PATH, READY_PATH, check

    def unwell(reason: str) -> int:
        print(f"{PROG} health: {reason}", file=sys.stderr)
        return 1  # never 2: a container's health check reserves it

    try:
        config = load_config()
    except ConfigError as error:
        return unwell(str(error))
    if config.metrics.listen is None:
        return unwell("metrics.listen is not set (WIZARD_METRICS_LISTEN): no health server")
    verdict = check(config.metrics.listen, READY_PATH if args.ready else HEALTH_PATH, args.timeout)
    if not verdict.healthy:
        return unwell(verdict.line)
    print(verdict.line)
    return 0


def run_backup(args: argparse.Namespace) -> int:
    """`wizard-bot backup FILE`: every key of the bot, to FILE."""
    from adapters import backups

    return backups.backup(_load_config(), args.file)


def run_restore(args: argparse.Namespace) -> int:
    """`wizard-bot restore FILE`: a backup, into the configured Redis."""
    from adapters import backups

    return backups.restore(_load_config(), args.file, args.replace)


def _option_args(texts: Sequence[str]) -> list[str]:
    return [f" --option {text}" for text in texts]


def run_simulate(args: argparse.Namespace) -> int:
    """`wizard-bot simulate`: many games with random players, summed up per seat."""
    games: int = args.games
    players: int = args.players
    options = _options(args.options, players)
    seed = _seed(args)
    folder = None if args.records is None else Path(args.records)
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"{PROG}: cannot create {folder}: {error.strerror or error}", file=sys.stderr)
            return 1
    started = time.perf_counter()
    totals: list[list[int]] = []
    names: list[str] = []
    for index in range(games):
        state, _ = play_random_game(players, options, seed + index)
        names = [player.name for player in state.players]
        totals.append(state.totals)
        if folder is not None:
            path = folder / f"game-{index:04d}.json"
            try:
                path.write_text(json.dumps(export_record(state)) + "\n", encoding="utf-8")
            except OSError as error:
                print(f"{PROG}: cannot write {path}: {error.strerror or error}", file=sys.stderr)
                return 1
    elapsed = time.perf_counter() - started
    print(_summary(games, names, options, seed, totals, elapsed, folder))
    return 0


def _summary(
    games: int,
    names: Sequence[str],
    options: Options,
    seed: int,
    totals: Sequence[Sequence[int]],
    elapsed: float,
    folder: Path | None,
) -> str:
    seats = range(len(names))
    means = [statistics.fmean(game[seat] for game in totals) for seat in seats]
    wins = [sum(game[seat] == max(game) for game in totals) for seat in seats]
    lines = [
        f"games    {games} (seeds {seed} to {seed + games - 1})",
        f"players  {len(names)}: {', '.join(names)}",
        f"options  {options.describe()}",
        "mean     " + ", ".join(f"{names[s]} {means[s]:.1f}" for s in seats),
        "wins     " + ", ".join(f"{names[s]} {wins[s]}" for s in seats) + "  (ties count for all)",
    ]
    if folder is not None:
        lines.append(f"records  {games} files in {folder}")
    lines.append(f"elapsed  {elapsed:.2f} s ({1000 * elapsed / games:.1f} ms a game)")
    return "\n".join(lines)


def run_arena(args: argparse.Namespace) -> int:
    """`wizard-bot arena`: AI levels against each other, the figures as JSON."""
    from bot.ai import arena  # the AI loads only when asked

    players: int = args.players
    options = _options(args.options, players)
    seats: tuple[str, ...] = args.seats or ("hard",) + ("normal",) * (players - 1)
    if len(seats) == 1:
        seats *= players
    if len(seats) != players:
        raise UsageError(f"--seats names {len(seats)} levels for {players} players")
    seed = _seed(args)
    results = arena.run_arena(seats, options, args.games, seed, args.jobs)
    report = {
        "seats": list(seats),
        "options": options.describe(),
        "seed": seed,
        **arena.summary(results, timing=not args.no_times),
    }
    print(json.dumps(report))
    return 0


def run_replay(args: argparse.Namespace) -> int:
    """`wizard-bot replay`: check records; print each game unless only checking."""
    from adapters.text import shown, tolerant
    from bot.show.formatters import game_log

    tolerant(sys.stdout)
    status = 0
    files: list[str] = args.files
    for index, name in enumerate(files):
        try:
            state = load_record(name)
        except BadRecord as error:
            print(shown(f"{name}: {error}"))  # one line, whatever the file name or record holds
            status = 1
            continue
        names = [player.name for player in state.players]
        totals = ", ".join(f"{n} {t}" for n, t in zip(names, state.totals, strict=True))
        if not args.check and index:
            print()
        print(shown(f"{name}: ok, totals {totals}"))
        if not args.check:
            print()
            print("\n".join(map(shown, game_log(_look(), state, _width()).splitlines())))
    return status


def load_record(path: str) -> GameState:
    """Read and check the game record in `path`; raise BadRecord with a one-line reason."""
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise BadRecord(f"cannot read: {error.strerror or error}") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise BadRecord(
            f"not JSON (line {error.lineno} column {error.colno}: {error.msg})"
        ) from None
    except UnicodeDecodeError:
        raise BadRecord("not JSON (not UTF-8 text)") from None
    except (ValueError, RecursionError) as error:
        raise BadRecord(f"not JSON ({error})") from None
    try:
        return check_record(data)
    except RecordError as error:
        # Round 0 is the record as a whole (format, players, totals): the reason says it all.
        raise BadRecord(error.reason if error.round == 0 else str(error)) from None
    except Exception as error:  # a malformed record the checker did not foresee
        raise BadRecord(f"not a valid record ({type(error).__name__}: {error})") from None


if __name__ == "__main__":
    sys.exit(main())
