"""The `wizard-bot` command line: the bot itself (`run`), its health check (`health`) and its
backups (`backup`, `restore`), the terminal table (`play`), a demo game, simulations, and
checking or replaying records."""

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from adapters import stops

# Each command imports what it uses when it runs (`--version` and `--help` load no more than
# argparse): the rules engine, the bot, the AI, Redis or the JSON libraries cost a start-up
# they do not need.
if TYPE_CHECKING:
    from adapters.console import PlayArgs
    from bot import Config
    from bot.show.look import Look
    from engine import Options

PROG = "wizard-bot"
USAGE_ERROR = 2
TOP_LEVEL_FLAGS = ("-h", "--help", "--version")
SAME_OUTPUT = "; the output is that of one process"
PLAY_PLAYERS = 4
"""The players at a new terminal table when `--players` is not given."""


class UsageError(Exception):
    """A command line that cannot be run as given (exit status 2)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on `argv` (default: the process's arguments); return the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or (words[0].startswith("-") and words[0] not in TOP_LEVEL_FLAGS):
        words.insert(0, "run")  # no command: run the bot, with any options given
    parser = build_parser(words[0])
    try:
        args, extra = parser.parse_known_args(words)
        if extra:  # said by the command's own parser: its usage, its name
            command_parser: argparse.ArgumentParser = args.parser
            command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exit_:  # argparse: --help, --version, or a usage error
        status = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
        problem = _flushed()
        return status if problem is None else _unwritten(PROG, problem)
    handler: Callable[[argparse.Namespace], int] = args.handler
    said = f"{PROG} {args.command}"
    try:
        with stops.raising():  # SIGTERM and SIGHUP stop a command as Ctrl-C does
            status = handler(args)
            problem = _flushed()
            if problem is not None:
                raise problem
            return status
    except UsageError as error:
        print(f"{said}: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt as stop:  # Ctrl-C, or a stop signal's Interrupted
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 128 + getattr(stop, "signum", 2)  # 2: SIGINT
    except BrokenPipeError:  # e.g. `wizard-bot replay FILE | head`: stop quietly
        _drop_output()
        return 1
    except OSError as error:  # the output cannot be written: a full disk, an I/O error
        _flushed()
        return _unwritten(said, error)


def _flushed() -> OSError | None:
    """Write out what was printed; the error if it cannot be. The rest of the output is then
    let go (the null device), so that the exit does not try again and add the interpreter's
    own lines about it."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError as error:
        _drop_output()
        return error
    return None


def _drop_output() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _unwritten(said: str, error: OSError) -> int:
    """Exit status 1, said in one line: an OSError no command foresaw. Each names the files it
    reads or writes in its own messages, so one with no file name is the output's (a full
    disk, a closed or broken terminal); a pipe closed by its reader (`| head`) is said by
    nobody."""
    if isinstance(error, BrokenPipeError):
        return 1
    where = f"{error.filename}: " if error.filename else "cannot write the output: "
    print(f"{said}: {where}{error.strerror or error}", file=sys.stderr)
    return 1


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of `wizard-bot` and its subcommands. Given the `command` to be run,
    only that one gets its arguments: the others' need imports (the AI levels, the players'
    limits) that the command does not."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Wizard, the card game (Amigo): chat bots for Telegram and Discord, a "
        "terminal table, AI players, and the rules engine's game records.",
        epilog=f"Without a command, {PROG} runs the bot ({PROG} run [play options]): the "
        "terminal table until a chat front end is configured.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")
    for entry in COMMANDS:
        subparser = commands.add_parser(entry.name, help=entry.help, description=entry.about)
        if command in (None, entry.name):
            entry.arguments(subparser)
        subparser.set_defaults(handler=entry.handler, parser=subparser)
    return parser


class _Version(argparse.Action):
    """`--version`: the installed package's version, read only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib import metadata

        try:
            version = metadata.version(PROG)
        except metadata.PackageNotFoundError:
            version = "unknown"
        print(f"{PROG} {version}")
        parser.exit()


def _simulate_arguments(parser: argparse.ArgumentParser) -> None:
    _games_argument(parser)
    _game_arguments(parser)
    parser.add_argument(
        "--records", type=_path, metavar="DIR", help="write a record of each game to DIR"
    )
    _jobs_argument(parser, SAME_OUTPUT)


def _replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=_path, metavar="FILE", help="a JSON game record")
    parser.add_argument(
        "--check", action="store_true", help="only check: one line per file, ok or why not"
    )
    _jobs_argument(parser, " to check the files in, with --check" + SAME_OUTPUT)


def _arena_arguments(parser: argparse.ArgumentParser) -> None:
    _games_argument(parser)
    _game_arguments(parser)
    parser.add_argument(
        "--seats",
        type=_arena_seats,
        metavar="LEVELS",
        help="the level of each seat, comma-separated, or one for all "
        "(default: hard, then normal in the other seats); besides the levels, the arena's "
        "opponent styles (an unknown name lists them)",
    )
    _jobs_argument(parser)
    parser.add_argument(
        "--no-times",
        action="store_true",
        help="leave out the decision times (then the output depends on the seed alone)",
    )


def _backup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", type=_path, metavar="FILE", help="the backup to write (-: standard output)"
    )


def _restore_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", type=_path, metavar="FILE", help="the backup to read (-: standard input)"
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="replace the bot's keys there: they end exactly as in the backup",
    )


def _health_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ready",
        action="store_true",
        help="ask /readyz instead: whether the bot can serve (its store reached, its chat front "
        "ends connected)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=3.0,
        metavar="S",
        help="seconds to wait for the answer (default 3)",
    )


def _games_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games", "-n", type=_positive, default=100, metavar="N", help="games (default 100)"
    )


def _jobs_argument(parser: argparse.ArgumentParser, note: str = "") -> None:
    parser.add_argument(
        "--jobs", "-j", type=_positive, default=1, metavar="J", help=f"processes (default 1){note}"
    )


def _named(text: str, allowed: Sequence[str], known: str) -> tuple[str, ...]:
    """Comma-separated AI levels (or arena seats) of `text`, each one of `allowed`; `known`
    says which there are when one is not."""
    names = tuple(part.strip().lower() for part in text.split(","))
    for name in names:
        if name not in allowed:
            raise argparse.ArgumentTypeError(f"unknown AI level {name!r} (known: {known})")
    return names


def _levels(text: str) -> tuple[str, ...]:
    from bot.config import AI_LEVELS

    return _named(text, AI_LEVELS, ", ".join(AI_LEVELS))


def _arena_seats(text: str) -> tuple[str, ...]:
    """Arena seats: AI levels, or the opponent styles only the arena seats."""
    from bot.ai.styles import STYLES
    from bot.config import AI_LEVELS

    known = f"{', '.join(AI_LEVELS)}; arena styles: {', '.join(STYLES)}"
    return _named(text, (*AI_LEVELS, *STYLES), known)


def _game_arguments(parser: argparse.ArgumentParser, default_players: int = 4) -> None:
    from engine.options import MAX_PLAYERS, MIN_PLAYERS

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
        "rounds=short|tournament, dmmixed, foresight, wings, and for play coach (hints and "
        "reviews); NAME=off switches one off",
    )
    parser.add_argument(
        "--seed", "-s", type=_seed_value, metavar="S", help="random seed (default: any)"
    )


def _play_arguments(parser: argparse.ArgumentParser) -> None:
    from bot.config import AI_LEVELS

    _game_arguments(parser, default_players=PLAY_PLAYERS)
    parser.set_defaults(players=None)  # None: not given (an unfinished game is resumed as it is)
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
    import getpass

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


def _path(text: str) -> str:
    """A file or folder named on the command line: not empty (a shell variable left unset)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    return text


def _players(text: str) -> int:
    from engine.options import MAX_PLAYERS, MIN_PLAYERS

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


MAX_SEED = 2**63 - 1
"""The largest seed: a record holds its game's seed as a 64-bit integer."""


def _seed_value(text: str) -> int:
    seed = _int(text)
    if not 0 <= seed <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_SEED}, not {seed}")
    return seed


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


def _options(texts: Sequence[str], players: int) -> "Options":
    """Options from `--option` texts, checked against the number of players."""
    from engine import Options, RuleError, hand_sizes, parse_option

    options = Options()
    for text in texts:
        try:
            options = parse_option(options, text)
            hand_sizes(options, players)
        except RuleError as error:
            raise UsageError(f"--option {text}: {error.message}") from None
    return options


def _seed(args: argparse.Namespace) -> int:
    import random

    seed: int | None = args.seed
    return random.randrange(1_000_000) if seed is None else seed


def _look() -> "Look":
    """How demo and replay show a game: as a new chat's default settings say (English, the
    default deck)."""
    from bot.show.look import look_of
    from bot.table import Settings

    return look_of(Settings())


def _width() -> int:
    import shutil

    from bot.show.formatters import WIDTH

    if sys.stdout.isatty():
        return shutil.get_terminal_size((WIDTH, 24)).columns
    return WIDTH


def run_demo(args: argparse.Namespace) -> int:
    """`wizard-bot demo`: one game with random players, shown as a score sheet."""
    from adapters.text import tolerant
    from bot.show.formatters import final_standings, score_sheet
    from engine.randomplay import play_random_game
    from engine.views import table_view

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
    again = f"{PROG} demo --seed {seed}" + (f" --players {players}" if players != 4 else "")
    print(f"Replay this game: {again}" + "".join(_option_args(args.options)))
    print(
        f"Play one yourself: {PROG} play. For the other commands: {PROG} --help "
        "(or ./dev run --help)."
    )
    return 0


def _load_config() -> "Config":
    from bot import ConfigError, load_config

    try:
        return load_config()
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _play_args(args: argparse.Namespace) -> "PlayArgs":
    from adapters.console import PlayArgs  # the terminal table loads Redis: only when asked
    from bot.table import COACH

    players: int = args.players or PLAY_PLAYERS
    rules = [text for text in args.options if text.partition("=")[0].strip().lower() != COACH]
    _options(rules, players)  # checked before anything starts (coach is the table's own)
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
        given=tuple(
            flag
            for flag, value in (
                ("--players", args.players),
                ("--option", args.options or None),
                ("--level", args.level),
                ("--seed", args.seed),
                ("--name", args.name),
            )
            if value is not None
        ),
        command=args.command,
    )


def run_play(args: argparse.Namespace) -> int:
    """`wizard-bot play`: one game in the terminal against AI players."""
    from adapters.console import play

    play_args = _play_args(args)
    return play(play_args, _load_config())


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    _play_arguments(parser)
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PART",
        help="run only this front end, repeatable: telegram, discord or web (a web-only "
        "worker hands its pages' moves to the workers that run the chats)",
    )


def run_bot(args: argparse.Namespace) -> int:
    """`wizard-bot run`: the chat front ends configured (those of `--only`), else the terminal
    table."""
    if args.only:
        from adapters import serve

        return serve.main(args.only)
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
    import io
    import select
    import stat

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
    from bot import ConfigError, load_config

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
    """`wizard-bot restore FILE`: a backup, into the configured Redis. Once it is restored,
    an output that cannot take what it restored (a full disk) is status 1 as for any command,
    said on stderr with the summary: the restore is done, and must not read as failed."""
    from adapters import backups

    done = backups.restore(_load_config(), args.file, args.replace)
    if isinstance(done, int):
        return done
    try:
        print(f"{PROG} restore: {done}", flush=True)
    except BrokenPipeError:
        raise  # a reader that closed the pipe: stopped quietly (`main`)
    except OSError as error:
        _drop_output()
        why = error.strerror or error
        print(
            f"{PROG} restore: restored, but standard output cannot take this summary ({why}): "
            f"{done}",
            file=sys.stderr,
        )
        return 1
    return 0


def _option_args(texts: Sequence[str]) -> list[str]:
    return [f" --option {text}" for text in texts]


def run_simulate(args: argparse.Namespace) -> int:
    """`wizard-bot simulate`: many games with random players, summed up per seat."""
    import time  # and not pathlib: a few milliseconds of a job of a tenth of a second

    from adapters import bulk
    from bot.memory import settled
    from engine.names import NAMES

    games: int = args.games
    players: int = args.players
    options = _options(args.options, players)
    seed = _seed(args)
    folder: str | None = args.records
    if folder is not None:
        try:
            os.makedirs(folder, exist_ok=True)
        except FileExistsError:  # there, and not a directory
            print(
                f"{PROG} simulate: cannot write records in {folder}: it is not a directory",
                file=sys.stderr,
            )
            return 1
        except OSError as error:
            print(
                f"{PROG} simulate: cannot create {folder}: {error.strerror or error}",
                file=sys.stderr,
            )
            return 1
    started = time.perf_counter()
    work = (
        bulk.GameJob(
            players,
            options,
            seed + index,
            None if folder is None else os.path.join(folder, f"game-{index:04d}.json"),
        )
        for index in range(games)
    )
    sums, wins = [0] * players, [0] * players  # the games' totals, summed as they come
    with settled():  # what is loaded stays out of the collector's way, here and in the copies
        for played in bulk.in_order(bulk.simulate_game, work, args.jobs, count=games):
            if played.error is not None:
                print(f"{PROG} simulate: {played.error}", file=sys.stderr)
                return 1
            best = max(played.totals)
            for seat, total in enumerate(played.totals):
                sums[seat] += total
                wins[seat] += total == best
    elapsed = time.perf_counter() - started
    means = [total / games for total in sums]  # exact sums: as statistics.fmean of them
    print(_summary(games, NAMES[:players], options, seed, (means, wins), elapsed, folder))
    return 0


def _summary(
    games: int,
    names: Sequence[str],
    options: "Options",
    seed: int,
    figures: tuple[Sequence[float], Sequence[int]],
    elapsed: float,
    folder: str | None,
) -> str:
    """What `simulate` prints: the games, their players and options, each seat's mean total
    and wins (`figures`), where the records are, and how long it took."""
    seats = range(len(names))
    means, wins = figures
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
    import json

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
    from adapters import bulk
    from adapters.text import shown, tolerant

    tolerant(sys.stdout)
    files: list[str] = args.files
    if args.check:
        status = 0
        for ok, line in bulk.in_order(bulk.check_file, files, args.jobs):
            print(shown(line))  # one line, whatever the file name or record holds
            if not ok:
                status = 1
        return status
    if args.jobs > 1:
        raise UsageError("--jobs is for --check: replaying prints each game in turn")
    return _replay_games(files)


def _replay_games(files: Sequence[str]) -> int:
    """Each record's verdict, and the game round by round when it is valid."""
    from adapters import bulk
    from adapters.text import shown
    from bot.show.formatters import game_log

    status = 0
    for index, name in enumerate(files):
        try:
            state = bulk.load_record(name)
        except bulk.BadRecord as error:
            print(shown(f"{name}: {error}"))
            status = 1
            continue
        if index:
            print()
        print(shown(bulk.valid(name, state)))
        print()
        print("\n".join(map(shown, game_log(_look(), state, _width()).splitlines())))
    return status


class Command(NamedTuple):
    """A subcommand: its name, its line in `--help`, its own help's description, the function
    that adds its arguments and the one that runs it."""

    name: str
    help: str
    about: str
    arguments: Callable[[argparse.ArgumentParser], None]
    handler: Callable[[argparse.Namespace], int]


COMMANDS = (
    Command(
        "run",
        "run the bot: the chat front ends if configured, else the terminal table (default)",
        "Start the chat front ends configured (a Telegram or Discord token); with none "
        "configured, say how to configure one and start the terminal table instead, with the "
        "options of `play` (or, when standard input is closed, as in a container, stop with "
        "that message). --only runs the front ends named alone (each when configured).",
        _run_arguments,
        run_bot,
    ),
    Command(
        "play",
        "play a game in the terminal against AI players",
        "Play one seat of a game against AI seats, in the terminal, through the game service "
        "and its Redis store (the embedded one in data_dir unless redis_url is configured). An "
        "unfinished game is resumed automatically; --new starts a new one.",
        _play_arguments,
        run_play,
    ),
    Command(
        "demo",
        "play a game with random players and show its score sheet",
        "Play one game with random legal players and print its score sheet.",
        _game_arguments,
        run_demo,
    ),
    Command(
        "simulate",
        "play many games with random players; sum up, save records",
        "Play N games with random legal players (game i uses seed S+i), print a summary and "
        "optionally write each game's record to DIR/game-NNNN.json.",
        _simulate_arguments,
        run_simulate,
    ),
    Command(
        "replay",
        "check game records, or replay them round by round",
        "Check wizard-record/1 game records against the rules; print each game round by round "
        "with its score sheet, or with --check only the verdict. Exit status: 0 all valid, 1 "
        "some invalid, 2 usage error.",
        _replay_arguments,
        run_replay,
    ),
    Command(
        "arena",
        "play AI levels against each other; print the figures as JSON",
        "Play N games between AI levels, the seats rotated one place a game (each deal, seed "
        "S+d, is played once per rotation), and print as JSON per level: mean points a game, "
        "win rate (ties shared), bid accuracy overall and by bidding position, decision time "
        "p50/p95 in ms.",
        _arena_arguments,
        run_arena,
    ),
    Command(
        "backup",
        "copy every key the bot keeps in Redis to a file, while the bot runs",
        "Write every key of the bot in the configured Redis (redis_url, a Cluster with "
        "redis_cluster) or the embedded one in data_dir to FILE: gzip'd JSON lines, each chat "
        "as of one moment (docs/operations.md, Backups). Exit status: 0 written, 1 not.",
        _backup_arguments,
        run_backup,
    ),
    Command(
        "restore",
        "restore a backup into a Redis that holds none of the bot's keys",
        "Check the backup in FILE whole, then write it into the configured Redis (or the "
        "embedded one in data_dir), each chat in one step. A Redis with keys of the bot is "
        "refused unless --replace. Exit status: 0 restored, 1 not.",
        _restore_arguments,
        run_restore,
    ),
    Command(
        "health",
        "ask the running bot's health server whether it is well (exit 0) or not (1)",
        "GET /healthz (with --ready: /readyz) of the health server at metrics.listen "
        "(WIZARD_METRICS_LISTEN), as a container's health check does; 0.0.0.0 and [::] are "
        "asked on the loopback address. Exit status: 0 when it answers 200, else 1 with one "
        "line saying why.",
        _health_arguments,
        run_health,
    ),
)
"""The subcommands, in the order `--help` lists them."""


def program() -> int:
    """The `wizard-bot` program (pyproject.toml's script, `python -m adapters.cli`): `main` on
    the process's arguments, its exit status returned to be exited with. What the process
    loaded is frozen out of the garbage collector first: on the way out CPython collects
    whatever it can still reach, some milliseconds (a tenth of a short `simulate`) for memory
    the system takes back anyway. Tests call `main`, whose process goes on."""
    import gc

    status = main()
    gc.freeze()
    return status


if __name__ == "__main__":
    sys.exit(program())
