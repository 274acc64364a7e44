"""The terminal table's session and prompt loop.

`play` connects to the configured Redis, or starts the embedded one in the data directory (and
stops it on the way out), and runs one game in the chat `console:<hash of host and data dir>`
for the person `console:you`: through `GameService.handle`, exactly as a chat front end does.
Every move is saved before the next prompt, so a game that is stopped (quit, Ctrl-C, a closed
terminal, kill) is resumed by the next `wizard-bot play` on the same data directory.

Turn timers never fire here: the service gets a configuration whose timeouts are years long, and
this front end runs no timers.
"""

import asyncio
import contextlib
import fcntl
import hashlib
import importlib
import inspect
import io
import logging
import os
import random
import signal
import socket
import sys
import warnings
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO, TypeVar

from adapters import stops
from adapters.console import render
from adapters.console.reader import (
    NO_CHOICES,
    Ask,
    Choices,
    Command,
    Press,
    Problem,
    Send,
    offered,
    read,
)
from adapters.stops import STOPS, Interrupted
from adapters.text import tolerant
from bot import (
    Config,
    GameService,
    Kind,
    Message,
    Outcome,
    RedisClient,
    Request,
    StoreErrors,
    User,
    tokens,
)
from bot.clock import ServerClock, keeping
from bot.show.i18n import Texts, texts
from bot.show.look import Look, look_of
from bot.show.screens import options_line
from bot.show.seating import seating
from bot.show.themes import Theme
from bot.store import keys, presence, reached, redis_client, server_time
from bot.store.redis_server import RedisServerError, configured_redis, unusable
from bot.table import Table
from bot.tokens import Action
from engine import ROUND_PHASES, Phase, table_view

USER_ID = "console:you"
LOCK_FILE = "console.lock"
DEFAULT_NAME = "You"
FOREVER = 10 * 365 * 24 * 3600
"""The turn and lobby timeouts the terminal table runs with: no deadline ever comes."""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PlayArgs:
    """What `wizard-bot play` was asked for."""

    players: int = 4
    options: tuple[str, ...] = ()
    seed: int | None = None
    level: str | None = None
    """The AI seats' level, or one per AI seat comma-separated (`hard,normal,easy`); None: the
    configured `ai_level`."""
    name: str = DEFAULT_NAME
    new: bool = False
    """Start a new game even when an unfinished one could be resumed."""
    given: tuple[str, ...] = ()
    """The options given that set up a new game (`--players`, `--option`, ...): resuming an
    unfinished game says they are not used."""
    command: str = "play"
    """The subcommand that was run (`run` starts the terminal table too): messages name it."""


def chat_id(config: Config) -> str:
    """The terminal table's chat: one per host and data directory, the same on every run."""
    place = f"{socket.gethostname()}:{config.data_dir.absolute()}"
    return "console:" + hashlib.sha256(place.encode()).hexdigest()[:12]


def play(args: PlayArgs, config: Config, out: TextIO | None = None) -> int:
    """Run the terminal table until the game ends or the person stops; the exit status."""
    stream = out or sys.stdout
    _prepare_terminal(stream)
    client: RedisClient | None = None
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(_only_table(config.data_dir))
        except OSError as error:
            print(f"wizard-bot {args.command}: {error}", file=sys.stderr)
            return EXIT_FAILED
        waiting = Waiting()
        stack.enter_context(_stop_signals(waiting))
        loop = asyncio.new_event_loop()
        # The AI's and the stats' threads: a stop signal must reach the main thread at its
        # prompt, not one of them (it would be taken there, and the prompt would wait on).
        loop.set_default_executor(ThreadPoolExecutor(initializer=_deaf))
        try:
            try:
                url = stack.enter_context(
                    configured_redis(config.redis_url, config.data_dir, config.redis_fsync)
                )
            except (RedisServerError, OSError) as error:
                print(
                    f"wizard-bot {args.command}: cannot start the embedded Redis: {error}",
                    file=sys.stderr,
                )
                return EXIT_FAILED
            client = redis_client(url, config.redis_timeout, config.redis_cluster)
            try:
                loop.run_until_complete(reached(client))
            except StoreErrors as error:
                print(
                    f"wizard-bot {args.command}: cannot reach the Redis of WIZARD_REDIS_URL "
                    f"(redis_url): {error}",
                    file=sys.stderr,
                )
                return EXIT_FAILED
            service = GameService.on_redis(
                client,
                replace(config, turn_timeout=FOREVER, lobby_timeout=FOREVER, ai_grace=FOREVER),
                rng=random.Random(args.seed),
            )
            chat = chat_id(config)
            stack.enter_context(_beating(url, config, keys.scope(chat), service))
            table = ConsoleTable(service, chat, args, waiter(loop, waiting), stream)
            return table.run()
        finally:  # a stop signal now is ignored until the Redis and its beats have stopped
            stops.ignore()
            stop_pending(loop)
            if client is not None:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(client.aclose())
            loop.close()


def _deaf() -> None:
    """Block the stop signals in the calling thread (one other than the main thread): the
    kernel gives a signal sent to the process to any thread that does not block it, and
    Python runs its handler in the main thread only once that thread runs again, which one
    waiting at the prompt for a line does not."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)


@contextlib.contextmanager
def _beating(url: str, config: Config, scope: str, service: GameService) -> Iterator[None]:
    """Beat while inside (`bot.store.presence`), so that a restore into this Redis is refused
    while the game runs: from a thread with an event loop and a client of its own, as the
    table's loop runs only while it waits on the service, not at the prompt. The beats, and
    the service, go by the Redis server's clock (`bot.clock`), read first and then now and then
    on that thread, as the web table's worker does: a restore reads the beats by it."""
    loop = asyncio.new_event_loop()
    client = redis_client(url, config.redis_timeout, config.redis_cluster)
    clock, worker = service.clock, service.worker
    with contextlib.suppress(*StoreErrors):  # the first before the game is shown
        if isinstance(clock, ServerClock):
            clock.anchor(loop.run_until_complete(server_time(client)))
        loop.run_until_complete(presence.beat(client, scope, worker, clock()))
    task = loop.create_task(_beats(client, scope, worker, clock))

    def run() -> None:
        with contextlib.suppress(asyncio.CancelledError):
            loop.run_until_complete(task)
        with contextlib.suppress(Exception):
            loop.run_until_complete(client.aclose())
        loop.close()

    thread = stops.deaf_thread(run, "console beats")
    try:
        yield
    finally:
        with contextlib.suppress(RuntimeError):  # its loop closed already: it stopped
            loop.call_soon_threadsafe(task.cancel)
        thread.join(config.redis_timeout + presence.EVERY)


async def _beats(client: RedisClient, scope: str, worker: str, clock: Callable[[], float]) -> None:
    """Beat by `clock`, and keep it to the Redis server's (`bot.clock.keeping`), until cancelled."""
    if not isinstance(clock, ServerClock):  # a clock of its own: nothing to read
        await presence.beating(client, scope, worker, clock)
        return
    keep = asyncio.ensure_future(keeping(clock, lambda: server_time(client)))
    try:
        await presence.beating(client, scope, worker, clock)
    finally:
        keep.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keep


class Waiting:
    """What the terminal table's event loop runs for it now (`waiter`), for a stop signal taken
    meanwhile (`_stop_signals`). Raised wherever the main thread stood, a stop could land just
    as the loop took a callback from its queue, before it ran it: that callback, a task's
    wake-up (the AI's moves after a request), was lost, the task waited on a future already
    done, and the stop's cleanup (`stop_pending`) waited for it forever. So while the loop
    runs, a stop cancels the task it runs for the table instead (the loop stays whole), and
    `waiter` raises it once the loop is out."""

    def __init__(self) -> None:
        self.task: asyncio.Task[Any] | None = None
        self.signum: int | None = None
        """The stop signal taken while the loop ran (`take`), not yet raised."""

    def take(self, signum: int) -> bool:
        """Whether the stop `signum` is taken here: the loop runs the table's task (cancelled
        now); else the handler raises it where the main thread is."""
        task = self.task
        if task is None or not task.get_loop().is_running():
            return False
        self.signum = signum
        task.cancel()
        return True


def waiter(
    loop: asyncio.AbstractEventLoop, waiting: Waiting | None = None
) -> Callable[[Coroutine[Any, Any, Any]], Any]:
    """Run a coroutine to its end on `loop`. One that a stop signal cut off before it began is
    closed (it will never run, and Python would warn that it was never awaited). With
    `waiting`, a stop taken while the loop runs cancels it, and is raised here (`Waiting`)."""
    held = waiting or Waiting()

    def wait(work: Coroutine[Any, Any, Any]) -> Any:
        try:
            held.task = loop.create_task(work)
            return loop.run_until_complete(held.task)
        except asyncio.CancelledError:
            if held.signum is None:
                raise
            return None  # raised below
        finally:
            held.task = None
            if inspect.getcoroutinestate(work) == inspect.CORO_CREATED:
                work.close()
            if held.signum is not None:
                raise Interrupted(held.signum)

    return wait


def stop_pending(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what a stop signal left half done (a request, the AI's moves after it): what it
    saved stays saved, and the next `play` goes on from there, so it ends quietly rather than
    failing later on a closed connection."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        with contextlib.suppress(BaseException):
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


@contextlib.contextmanager
def _only_table(data_dir: Path) -> Iterator[None]:
    """Hold the data directory's console lock: a second terminal table on it would play the
    same game and, with the embedded Redis, stop the first one's server."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        held = (data_dir / LOCK_FILE).open("a")
    except OSError as error:  # what the config's check could not foresee (it changed since)
        raise OSError(unusable(data_dir, error)) from error
    with held as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OSError(
                f"another wizard-bot play is running on {data_dir.absolute()}: "
                "finish that game first"
            ) from None
        yield


def _prepare_terminal(stream: TextIO) -> None:
    """Line editing and history at the prompt in a terminal; cards and marks shown as `?`
    rather than failing where the output cannot encode them."""
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):
            importlib.import_module("readline")  # input() then edits lines and keeps history
    tolerant(stream)


def columns(stream: TextIO) -> int | None:
    """The width of the terminal `stream` writes to, read as each text is printed (a window
    may be resized): COLUMNS where it is set, as a shell sets it; None for a pipe or a file,
    whose lines are kept whole."""
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        return os.get_terminal_size(stream.fileno()).columns if stream.isatty() else None
    except (OSError, ValueError, io.UnsupportedOperation):
        return None


def _stop_signals(waiting: Waiting | None = None) -> contextlib.AbstractContextManager[None]:
    """SIGINT, SIGTERM and SIGHUP raise Interrupted while inside, so the Redis started is
    stopped. (SIGINT too where the process was started ignoring it: a shell that starts the
    game in the background makes it ignore SIGINT, and Python then raises no
    KeyboardInterrupt.) One that comes as the prompt is written, before the read of the line
    begins, stops it too (`wake`): it would be taken only once a line came. One that comes
    while the event loop runs for the table is raised once it is out (`waiting`)."""
    handed = waiting.take if waiting is not None else lambda _: False
    return stops.raising(_cut_off_quietly, even_ignored=True, wake=True, handed=handed)


def _cut_off_quietly() -> None:
    """Say nothing of what a stop cuts off. A stop signal is raised wherever the main thread
    stands: between making a coroutine and awaiting it too (`return await method(...)`,
    `wait(service.handle(...))`), or as the loop wraps it in a task. What it cut off is meant
    never to run (what was saved stays saved), so neither Python's warning of a coroutine never
    awaited nor asyncio's of a task destroyed pending has anything to tell. Called before the
    stop is raised: a coroutine held only on the stack of the code it cut off is collected, and
    warns, as the stop unwinds that code, before any `except` that catches it runs."""
    warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)


class ConsoleTable:
    """One person at the terminal: sets up or resumes the game, then shows and asks."""

    def __init__(
        self,
        service: GameService,
        chat: str,
        args: PlayArgs,
        wait: Callable[[Coroutine[Any, Any, Any]], Any],
        out: TextIO,
        read_line: Callable[[str], str] = input,
        echo: bool | None = None,
    ) -> None:
        self.service = service
        self.chat = chat
        self.args = args
        self.user = User(USER_ID, args.name)
        self._wait = wait
        self.out = out
        self.read_line = read_line
        self.echo = (not sys.stdin.isatty()) if echo is None else echo
        self.t: Texts = texts(None)
        self.theme = Theme.COLOURS
        self.table: Message | None = None
        self.hand: Message | None = None
        self.shown_table: str | None = None
        self.shown_hand: str | None = None
        self.shown_choices: Choices = NO_CHOICES
        self.over = False

    # --- plumbing -------------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        print(render.wrapped(text, columns(self.out)), file=self.out, flush=True)

    def handle(self, request: Request) -> Outcome:
        outcome: Outcome = self._wait(self.service.handle(self.chat, self.user, request))
        return outcome

    def load_table(self) -> Table | None:
        """The stored table (read only), and the chat's language and deck theme."""
        look = look_of(self._wait(self.service.settings(self.chat)))
        self.t, self.theme = look.t, look.theme
        table: Table | None = self._wait(self.service.table(self.chat))
        return table

    def look(self) -> Look:
        return Look(self.t, self.theme)

    # --- the session ----------------------------------------------------------------------------

    def run(self) -> int:
        """Set up or resume the game, then play it; the exit status."""
        try:
            status = self.begin()
            if status is not None:
                return status
            return self.loop()
        except KeyboardInterrupt as stop:  # Interrupted too
            _cut_off_quietly()  # done already by a stop signal of ours (`_stop_signals`)
            with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
                self.say()
                self.say(self.t("Stopped. The game is saved: wizard-bot play resumes it."))
            return 128 + (stop.signum if isinstance(stop, Interrupted) else signal.SIGINT)

    def begin(self) -> int | None:
        """Resume the unfinished game, or start a new one; an exit status if that fails."""
        table = self.load_table()
        t = self.t
        if table is not None and table.game.phase in ROUND_PHASES:
            seated = table.game.seat_of(USER_ID) is not None
            if seated and not self.args.new:
                return self.resume(table)
            outcome = self.handle(Request(Kind.CANCEL))
            if outcome.alert:
                self.say(render.refusal(outcome.answer or ""))
                return EXIT_FAILED
            self.say(t("The unfinished game is cancelled."))
        elif table is not None and table.game.phase is Phase.LOBBY:
            # A game interrupted while it was being set up: set it up again.
            self.handle(Request(Kind.CANCEL))
        return self.new_game()

    def resume(self, table: Table) -> int | None:
        t = self.t
        view = table_view(table.game)
        if self.args.given:
            self.say(
                t(
                    "Resuming your unfinished game: round {round} of {rounds}. The options "
                    "given ({given}) are for a new game: wizard-bot play --new starts one "
                    "with them.",
                    round=view.round,
                    rounds=view.rounds,
                    given=", ".join(self.args.given),
                )
            )
        else:
            self.say(
                t(
                    "Resuming your unfinished game: round {round} of {rounds}. "
                    "(wizard-bot play --new starts a new one.)",
                    round=view.round,
                    rounds=view.rounds,
                )
            )
        if USER_ID in table.away:
            self.show(self.handle(Request(Kind.RESUME)))
        # No request re-sends the group's table: the service shows it again, as it is now.
        self.show(self._wait(self.service.show_again(self.chat)))
        self.show(self.handle(Request(Kind.HAND)))
        return None

    def new_game(self) -> int | None:
        args = self.args
        levels = (args.level or self.service.config.ai_level).split(",")
        if len(levels) == 1:
            levels *= args.players - 1
        steps = [Request(Kind.JOIN)]
        steps += [Request(Kind.ADD_AI, level) for level in levels]
        steps += [Request(Kind.OPTION, option) for option in args.options]
        for request in steps:
            outcome = self.handle(request)
            if outcome.alert:
                what = f"--option {request.arg}: " if request.kind is Kind.OPTION else ""
                self.say(render.refusal(what + (outcome.answer or "")))
                self.handle(Request(Kind.CANCEL))
                return EXIT_USAGE if request.kind is Kind.OPTION else EXIT_FAILED
        table = self.load_table()
        if table is not None:
            self.say(
                render.header(
                    self.t,
                    list(seating(table).names),
                    options_line(self.look(), table.game.options, table.coach),
                )
            )
        outcome = self.handle(Request(Kind.START))
        if outcome.alert:
            self.say(render.refusal(outcome.answer or ""))
            self.handle(Request(Kind.CANCEL))
            return EXIT_USAGE
        self.show(outcome)
        return None

    def loop(self) -> int:
        """Show what changed, ask, act; until the game is over or the person stops."""
        t = self.t
        while not self.over:
            choices = self.screen()
            if choices.ask is Ask.NOTHING:
                self.show(self.handle(Request(Kind.HAND)))
                choices = self.screen()
                if choices.ask is Ask.NOTHING and not self.over:
                    self.say(render.refusal(t("The game cannot go on: there is nothing to do.")))
                    return EXIT_FAILED
                if self.over:
                    break
            try:
                line = self.read_line(render.prompt(choices, t))
            except EOFError:
                self.say()
                self.say(t("Input ended. The game is saved: wizard-bot play resumes it."))
                return EXIT_OK
            if self.echo:
                self.say(line)
            reading = read(line, choices, t, self.theme)
            if reading is None:
                continue
            if isinstance(reading, Problem):
                self.say(render.refusal(reading.text))
            elif isinstance(reading, Press):
                self.move(Request(Kind.BUTTON, reading.payload))
            elif isinstance(reading, Send):
                self.move(reading.request)
            elif isinstance(reading, Command):
                if reading.name == "quit":
                    self.say(t("The game is saved: wizard-bot play resumes it."))
                    return EXIT_OK
                self.command(reading.name)
        self.reviews()  # the last round's, at a coach table
        self.say()
        self.say(t("Another game: wizard-bot play"))
        return EXIT_OK

    def move(self, request: Request) -> None:
        outcome = self.handle(request)
        if outcome.alert:
            self.say(render.refusal(outcome.answer or ""))
            return
        self.show(outcome, framed=True)
        self.reviews()

    def reviews(self) -> None:
        """Print the coach's reviews of the rounds (`--option coach`) that are ready: they are
        worked out in the background while the game goes on (at its end, wait for the last)."""
        scope = self.chat.partition(":")[0]
        for _chat, outcome in self._wait(self.service.reviews(scope, wait=self.over)):
            self.show(outcome)

    def command(self, name: str) -> None:
        if name == "help":
            self.say(render.help_text(self.t, self.theme))
        elif name == "show":
            self.shown_table = self.shown_hand = None
            self.shown_choices = NO_CHOICES
        elif name == "hint" and not self._coached():
            self.say(
                render.refusal(
                    self.t(
                        "Hints are for coach tables: wizard-bot play --new --option coach "
                        "starts one."
                    )
                )
            )
        elif name in ("scores", "rules", "hint"):
            kinds = {"scores": Kind.SCORES, "rules": Kind.RULES, "hint": Kind.HINT}
            outcome = self.handle(Request(kinds[name]))
            if outcome.alert:
                self.say(render.refusal(outcome.answer or ""))
            self.show(outcome)

    def _coached(self) -> bool:
        """Whether the game has the coach (the service's refusal names the chats' lobby)."""
        table = self.load_table()
        return table is None or table.coach

    # --- showing --------------------------------------------------------------------------------

    def show(self, outcome: Outcome, framed: bool = False) -> None:
        """Take in what an outcome carries: print group messages (round summaries, the end of
        the game) and private notes at once; keep the latest table and hand to draw."""
        if outcome.answer and not outcome.alert and framed:
            self.say(outcome.answer)
        for message in outcome.messages:
            if message.to not in (None, USER_ID):
                continue  # another person's private message: there are none here
            if message.strip or message.delete or message.slot == "lobby":
                continue  # nothing to print: buttons taken off, a reminder deleted, the lobby
            if self.over and message.slot == "hand":
                continue  # the person's own result: the standings said it all here
            if message.slot == "table" and message.to is None:
                self.table = message
            elif message.slot == "hand":
                self.hand = message
            else:
                if self._ends_game(message):
                    self.over = True
                    if self.table is not None and self.table.text.startswith("🏁"):
                        self.say(render.round_end(self.table))  # the last round as it ended
                    self.table = self.hand = None
                text = render.message_block(message)
                if framed and message.to is None:
                    text = render.round_end(message)
                self.say(text)

    def screen(self) -> Choices:
        """Print the table and the hand if they changed since they were last printed, then the
        decisions on offer; return those."""
        choices = offered(self.table, self.hand)
        parts = []
        table_shown = None
        if self.table is not None and self.table.text != self.shown_table:
            parts.append(render.rule() + "\n" + self.table.text)
            self.shown_table = table_shown = self.table.text
        hand = ""
        if self.hand is not None and self.hand.text != self.shown_hand:
            hand = render.hand_block(self.hand, table_shown)
            self.shown_hand = self.hand.text
        if hand or parts or choices != self.shown_choices:
            listed = render.choice_list(choices)
            hand = "\n".join(part for part in (hand, listed) if part)
            self.shown_choices = choices
        if hand:
            parts.append(hand)
        if parts:
            self.say("\n\n".join(parts))
        return choices

    @staticmethod
    def _ends_game(message: Message) -> bool:
        """Whether this is the end of the game (it offers the rematch button)."""
        for row in message.buttons:
            for button in row:
                with contextlib.suppress(tokens.TokenError):
                    if tokens.decode(button.payload).action is Action.AGAIN:
                        return True
        return False
