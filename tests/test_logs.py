"""Log lines: the JSON and text formats, the chat and game that every line about a game carries
(through tasks, threads, the outbox and the timer loop), the secrets masked, and a whole
Telegram game with secret bids and wings marks, and a Discord game, whose lines at any level show
no card, no bid and no token; a recurring failure's traceback once; hostile names one line."""

import asyncio
import contextlib
import contextvars
import io
import itertools
import json
import logging
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterable, Iterator
from datetime import datetime

import pytest
import redis.asyncio as aioredis
from test_discord import Bot as DiscordBot
from test_discord import people
from test_discord import play_on as discord_play_on
from test_discord import running as discord_running
from test_discord import seat as discord_seat
from test_telegram import GROUP, PLAYERS, Bot, has_moves, is_mark, move, running, seat

from adapters.outbox import FAST, Outbox
from bot import logs
from bot.commands import Kind
from bot.config import Config, DiscordConfig, TelegramConfig, WebConfig
from bot.messages import Outcome
from bot.requests import Request, User
from bot.service import GameService
from bot.show.i18n import texts
from bot.show.themes import Theme, card_face, card_name, cards_line
from bot.store import Store
from bot.table import Settings, Table
from bot.timers import timer_loop
from engine import JESTER, WIZARD, Card

CHAT = "tg:-100123"
TOKEN = "123456:AAEsecretsecretsecret"


class Capture(logging.Handler):
    """Keeps every record, with its chat and game (as the configured handler puts them)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.addFilter(logs.Where())

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def captured() -> Iterator[Capture]:
    """Every record from DEBUG up, the loggers `logs.setup` holds kept at the levels it keeps
    them at."""
    root = logging.getLogger()
    handler, level = Capture(), root.level
    quiet = {name: logging.getLogger(name).level for name in logs.HELD}
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    logs.hold()
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        for name, was in quiet.items():
            logging.getLogger(name).setLevel(was)


def lines(config: Config, log: logging.Logger) -> io.StringIO:
    """What `log` writes with the configured handler (and nothing else)."""
    out = io.StringIO()
    log.handlers[:] = [logs.handler(config, out)]
    log.propagate = False
    log.setLevel(logging.DEBUG)
    return out


# --- the formats ------------------------------------------------------------------------------


def test_json_lines_parse_and_carry_the_fields() -> None:
    config = Config(log_format="json", telegram=TelegramConfig(token=TOKEN))
    log = logging.getLogger("tests.logs.json")
    out = lines(config, log)
    log.info("outside any game")
    with logs.about(CHAT):
        logs.playing("4f2a1c")
        log.warning("a line about a game\nover two lines")
        try:
            raise ValueError(f"the token {TOKEN} in an error")
        except ValueError:
            log.exception("failed")
    parsed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(parsed) == 3
    first, second, third = parsed
    assert set(first) == {"time", "level", "logger", "message", "chat", "game"}
    assert (first["chat"], first["game"], first["level"]) == (None, None, "INFO")
    assert first["logger"] == "tests.logs.json"
    assert first["time"].endswith("Z")
    assert (
        datetime.fromisoformat(first["time"].replace("Z", "+00:00")).utcoffset().total_seconds()
        == 0
    )  # type: ignore[union-attr]
    assert second["message"] == "a line about a game\nover two lines"
    assert (second["chat"], second["game"], second["level"]) == (CHAT, "4f2a1c", "WARNING")
    assert "ValueError: the token *** in an error" in third["exception"]
    assert "Traceback" in third["exception"]
    assert TOKEN not in out.getvalue()


def test_text_lines_name_the_chat_and_game_and_mask_secrets() -> None:
    config = Config(
        redis_url="redis://:hunter22@redis.example:6379/0",
        telegram=TelegramConfig(token=TOKEN, webhook_secret="s3cret-hook"),
        discord=DiscordConfig(token="discord-token-xyz"),
    )
    log = logging.getLogger("tests.logs.text")
    out = lines(config, log)
    log.info("plain")
    with logs.about(CHAT, "g7"):
        log.info("token %s hook %s redis %s", TOKEN, "s3cret-hook", "hunter22")
        log.info("discord %s", "discord-token-xyz")
    first, second, third = out.getvalue().splitlines()
    assert re.fullmatch(r"\S+ \S+ INFO tests\.logs\.text: plain", first)
    assert second.endswith(
        "INFO tests.logs.text: token *** hook *** redis *** chat=tg:-100123 game=g7"
    )
    assert third.endswith("discord *** chat=tg:-100123 game=g7")


def test_the_web_links_key_and_a_decoded_redis_password_are_masked_too() -> None:
    """The key web links are signed with is a secret like the tokens; a Redis password with
    characters its URL must escape is masked as written there and as the client sends it."""
    config = Config(
        log_format="json",
        redis_url="redis://bob:p%40ss%2Fw0rd@redis.example:6379/0",
        web=WebConfig(secret="link-signing-key-42"),
    )
    log = logging.getLogger("tests.logs.secrets")
    out = lines(config, log)
    log.info(
        "key %s url-password %s password %s", "link-signing-key-42", "p%40ss%2Fw0rd", "p@ss/w0rd"
    )
    (entry,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert entry["message"] == "key *** url-password *** password ***"


HOSTILE = "Ann\nINFO forged line\r\x1b[2J\x85\u2028\u2029\u202eRTL\u2066\u200f \ud800 \x7f end"
"""A name as a person may set it: line breaks of every kind, a terminal escape, bidi overrides
and isolates, a lone surrogate (a Telegram name arrives as UTF-16 and may carry one)."""
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.mark.parametrize("log_format", ["json", "text"])
def test_a_hostile_name_stays_on_its_line_and_in_its_json(log_format: str) -> None:
    """Each record is one line, in either format, however the text it shows breaks lines or
    turns text around; a JSON line reads back as the very message."""
    config = Config(log_format=log_format)
    log = logging.getLogger(f"tests.logs.hostile.{log_format}")
    out = lines(config, log)
    log.info("joined: %s", HOSTILE)
    with logs.about(CHAT, HOSTILE):
        log.warning("%s", HOSTILE)
    written = out.getvalue()
    written.encode("utf-8")  # a lone surrogate would make a strict stream fail the record
    assert written.endswith("\n")
    got = written.splitlines()  # splits at \x85, \u2028... as many readers do
    assert len(got) == 2
    assert not [line for line in got if UNSAFE.search(line)]
    if log_format == "json":
        first, second = (json.loads(line) for line in got)
        assert first["message"] == f"joined: {HOSTILE}"
        assert (second["message"], second["game"]) == (HOSTILE, HOSTILE)


SET_UP = """
import logging, sys
from bot import logs
from bot.config import Config
logs.setup(Config(log_level=sys.argv[1]))
for name in ("telegram.Bot", "httpx", "discord.http", "bot.service"):
    for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR):
        logging.getLogger(name).log(level, "%s", name)
"""


@pytest.mark.parametrize(
    ("level", "written"),
    [
        ("DEBUG", {"bot.service DEBUG", "telegram.Bot INFO", "httpx WARNING"}),
        ("ERROR", {"bot.service ERROR", "telegram.Bot ERROR", "httpx ERROR"}),
    ],
)
def test_a_held_logger_is_never_louder_than_log_level(level: str, written: set[str]) -> None:
    """`logs.setup` holds the libraries' loud loggers at INFO or WARNING: that is a floor, not
    a level of their own, so with `log_level = "error"` they write errors only, like the rest.
    (The lowest level each writes at, in a process set up as `wizard-bot run` sets it up.)"""
    done = subprocess.run(
        [sys.executable, "-c", SET_UP, level], capture_output=True, text=True, check=True
    )
    lowest: dict[str, str] = {}
    for line in done.stderr.splitlines():
        _, _, name_level = line.partition(" ")[2].partition(" ")
        said, _, name = name_level.partition(" ")
        lowest.setdefault(name.partition(":")[0], said)
    assert {f"{name} {said}" for name, said in lowest.items()} >= written
    assert len(lowest) == 4


def test_setup_leaves_logging_alone_where_a_program_set_it_up() -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    if not before:  # pytest always has its handlers on the root: the case that matters here
        pytest.skip("no handler on the root logger")
    logs.setup(Config(log_format="json"))
    assert root.handlers == before


# --- the place: chat and game ------------------------------------------------------------------


def test_the_place_reaches_threads_and_tasks_and_an_error_keeps_it(captured: Capture) -> None:
    log = logging.getLogger("tests.logs.place")

    async def main() -> BaseException:
        with logs.about(CHAT):
            logs.playing("g1")
            await asyncio.to_thread(log.info, "in a thread")
            await asyncio.create_task(asyncio.to_thread(log.info, "in a task's thread"))
            with logs.about("tg:-999", "g9"):
                log.info("another chat")
            with logs.about(CHAT):  # the same chat: the game stays
                log.info("the same chat")
        log.info("after")
        try:
            with logs.about(CHAT, "g2"):
                raise RuntimeError("boom")
        except RuntimeError as error:
            with logs.after(error):
                log.warning("reported later: %s", error)
            log.error("reported with the error", exc_info=error)
            return error
        raise AssertionError("not raised")

    error = asyncio.run(main())
    got = [(r.getMessage(), r.chat, r.game) for r in captured.records if r.name == log.name]  # type: ignore[attr-defined]
    assert got == [
        ("in a thread", CHAT, "g1"),
        ("in a task's thread", CHAT, "g1"),
        ("another chat", "tg:-999", "g9"),
        ("the same chat", CHAT, "g1"),
        ("after", None, None),
        ("reported later: boom", CHAT, "g2"),
        ("reported with the error", CHAT, "g2"),
    ]
    assert logs.carried(error) == (CHAT, "g2")
    assert logs.here() == (None, None)
    # explicit fields win over the place
    with logs.about(CHAT, "g1"):
        log.info("explicit", extra={"chat": "tg:5", "game": "g5"})
    assert (captured.records[-1].chat, captured.records[-1].game) == ("tg:5", "g5")  # type: ignore[attr-defined]


class _Pause:
    """An awaitable that suspends its coroutine once (no event loop needed)."""

    def __await__(self) -> Iterator[None]:
        yield


def test_a_place_left_outside_the_context_it_was_entered_in_is_left_quietly() -> None:
    """A coroutine suspended inside `about` and closed from another context (collected as a
    stop unwinds the terminal table: seen as an "Exception ignored" ValueError on its standard
    error) leaves quietly, and the closing context's place is as it was."""

    async def served() -> None:
        with logs.about(CHAT, "g1"):
            await _Pause()

    coroutine = served()
    contextvars.copy_context().run(coroutine.send, None)
    with logs.about("tg:-999", "g9"):
        coroutine.close()
        assert logs.here() == ("tg:-999", "g9")
    assert logs.here() == (None, None)


async def test_a_post_is_delivered_about_the_place_it_was_put_in(captured: Capture) -> None:
    """The outbox's task for a chat serves posts put for several games (a private chat): each
    delivery's lines name the game of its own post, not the one that started the task."""
    seen: list[logs.Place] = []

    async def deliver(item: str) -> str:
        seen.append(logs.here())
        logging.getLogger("tests.logs.deliver").info("delivering %s", item)
        return item

    outbox: Outbox[str] = Outbox(deliver, FAST)
    with logs.about("tg:-1", "ga"):
        outbox.put(42, "first")
    with logs.about("tg:-2", "gb"):
        outbox.put(42, "second")
    await outbox.flush()
    assert seen == [("tg:-1", "ga"), ("tg:-2", "gb")]
    posted = [r for r in captured.records if r.name == "adapters.outbox"]
    assert [(r.chat, r.game) for r in posted] == [("tg:-1", "ga"), ("tg:-2", "gb")]  # type: ignore[attr-defined]
    await outbox.close()


async def test_a_timeout_fired_by_the_timer_loop_is_logged_with_its_chat_and_game(
    redis_client: aioredis.Redis, captured: Capture
) -> None:
    now, running = [1_000_000.0], [False]

    def clock() -> float:  # a second a reading once running: shorter steps than an outage
        now[0] += running[0]
        return now[0]

    service = GameService(Store(redis_client, Settings()), Config(), clock=clock)
    await service.handle("chat:1", User("tg:1", "Ann"), Request(Kind.JOIN))
    table = await service.table("chat:1")
    assert table is not None
    shown: list[str] = []

    async def show(chat: str, outcome: Outcome) -> None:
        shown.append(chat)
        raise RuntimeError("the platform is down")

    task = asyncio.create_task(timer_loop(service, show, "chat", interval=0.001))
    running[0] = True
    for _ in range(10_000):  # until the idle lobby times out
        await asyncio.sleep(0.001)
        if shown:
            break
    task.cancel()
    failed = [r for r in captured.records if r.name == "bot.timers"]
    assert failed, "the failing show was not logged"
    assert (failed[0].chat, failed[0].game) == ("chat:1", table.game_id)  # type: ignore[attr-defined]
    applied = [r for r in captured.records if "applied for timer" in r.getMessage()]
    assert [(r.chat, r.game) for r in applied] == [("chat:1", table.game_id)]  # type: ignore[attr-defined]


async def test_a_tick_that_keeps_failing_logs_its_traceback_once(
    redis_client: aioredis.Redis, captured: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug that fails every tick (tried again each second) is logged with its traceback the
    first time, then in one line a tick while the same error recurs; another error, or the
    same after a tick that worked, has its traceback again."""
    service = GameService(Store(redis_client, Settings()), Config())
    errors = [*[RuntimeError("a bug")] * 4, None, RuntimeError("a bug"), KeyError("x")]
    done = asyncio.Event()

    async def tick(scope: str) -> list[tuple[str, Outcome]]:
        if not errors:
            done.set()
            return []
        error = errors.pop(0)
        if error is not None:
            raise error
        return []

    monkeypatch.setattr(service, "tick", tick)

    async def show(chat: str, outcome: Outcome) -> None:
        return None

    task = asyncio.create_task(timer_loop(service, show, "chat", interval=0))
    await done.wait()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    failed = [r for r in captured.records if r.name == "bot.timers"]
    assert [(r.levelno, r.exc_info is not None) for r in failed] == [
        (logging.ERROR, True),
        (logging.ERROR, False),
        (logging.ERROR, False),
        (logging.ERROR, False),
        (logging.ERROR, True),  # the same again after a tick that worked
        (logging.ERROR, True),  # another error
    ]
    assert "RuntimeError: a bug" in failed[1].getMessage()


# --- a whole game: what the lines never show ----------------------------------------------------


def word(text: str) -> re.Pattern[str]:
    """`text` standing alone (`🔺1` is not found in `🔺13`, nor `W` in `Wizards`)."""
    return re.compile(rf"(?<!\w){re.escape(text)}(?!\w)")


def renderings(card: Card) -> set[str]:
    """Every way the code shows a card: its code, its face and its name in each theme."""
    t = texts("en")
    shown = {str(card)}
    for theme in Theme:
        shown.add(card_face(card, theme))
        if card not in (WIZARD, JESTER):  # "Wizard", "Jester": words of every help text
            shown.add(card_name(t, card, theme))
    return shown


def private(table: Table, token: str) -> list[tuple[str, re.Pattern[str]]]:
    """What no line at INFO or above may show, each with what it is: every card each player
    held (each rendering, and whole hands as lines), each player's bid by their name or id,
    the buttons' payloads (they carry bids and cards), and the bot's token."""
    found = [("the bot token", re.compile(re.escape(token)))]
    found.append(("a button's payload", re.compile(rf"(?<!\w){table.game_id}\.\S+\.\w")))
    players = table.game.players
    for result in table.game.results:
        for seat_number, hand in enumerate(result.hands):
            player = players[seat_number]
            where = f"{player.name}'s hand in round {result.number}"
            for card in hand:
                found += [(f"{card} of {where}", word(text)) for text in renderings(card)]
            found += [(where, word(cards_line(hand, theme))) for theme in Theme]
            who = "|".join(re.escape(name) for name in (player.name, player.id))
            bid = result.bids[seat_number]
            said = re.compile(rf"(?:{who})(?!\w).*\bbids?\b\D*(?<!\d){bid}(?!\d)")
            found.append((f"{player.name}'s bid in round {result.number}", said))
    return found


def leaks(
    records: Iterable[logging.LogRecord],
    forbidden: list[tuple[str, re.Pattern[str]]],
    floor: int = logging.INFO,
) -> list[str]:
    """What of `forbidden` the records from `floor` up show (message, error and stack)."""
    plain = logging.Formatter()
    found = []
    for record in records:
        if record.levelno < floor:
            continue
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + plain.formatException(record.exc_info)
        if record.stack_info:
            text += "\n" + record.stack_info
        found += [
            f"{what}: {record.name}: {text!r}" for what, seen in forbidden if seen.search(text)
        ]
    return found


@pytest.fixture
async def telegram(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Bot]:
    """The Telegram bot, its games' ids g1, g2…"""
    counter = itertools.count(1)
    monkeypatch.setattr("bot.chat.new_game_id", lambda: f"g{next(counter)}")
    async with running(redis_url) as bot:
        yield bot


async def play_marking(bot: Bot) -> int:
    """Play the game to its end, each person marking (wings) the last card of their hand
    once a round while it is not their turn; the number of marks made."""
    marked: set[tuple[int, str]] = set()
    for _ in range(600):
        if any("The game is over" in text for text in bot.group_texts()):
            return len(marked)
        for user in PLAYERS:
            hand = bot.hand(user)
            data = [b.callback_data for row in hand.keyboard for b in row if b.callback_data]
            heading = hand.text.partition(" · ")[0]
            marks = [d for d in data if is_mark(d)]
            if marks and not has_moves(hand) and (user.id, heading) not in marked:
                marked.add((user.id, heading))
                await bot.press(user.id, user, hand.message_id, marks[-1])
                break
        else:
            await move(bot)
    raise AssertionError("the game did not end")


async def test_a_whole_game_logs_no_card_bid_or_token_and_names_its_chat_and_game(
    telegram: Bot, captured: Capture
) -> None:
    await seat(telegram)
    begun = len(captured.records)
    await telegram.command(GROUP, PLAYERS[0], "/options bids=secret")
    await telegram.command(GROUP, PLAYERS[0], "/options wings")
    await telegram.command(GROUP, PLAYERS[0], "/addbot")
    await telegram.command(GROUP, PLAYERS[0], "/start")
    marks = await play_marking(telegram)
    assert marks >= 3
    await telegram.idle()
    finished = (await Store(telegram.client, Settings()).load(CHAT)).table
    assert finished is not None
    assert len(finished.game.results) == 5
    forbidden = private(finished, telegram.fake.token)
    assert leaks(captured.records, forbidden) == []
    # Nor at DEBUG, as `logs.setup` keeps the libraries' loggers that dump each update and
    # each Bot API call's parameters (the hands' texts, the buttons' payloads).
    assert leaks(captured.records, forbidden, logging.DEBUG) == []
    # The check finds what it looks for: a hand, a card, a bid, a payload, the token, when
    # logged at INFO (and lets it pass at DEBUG).
    log = logging.getLogger("bot.service")
    result, (first, *_) = finished.game.results[-1], finished.game.players
    hand = result.hands[0]
    planted = [
        cards_line(hand, Theme.COLOURS),
        f"played {card_face(hand[0], Theme.FRENCH)}",
        f"played {hand[0]}",
        f"{first.name} bids {result.bids[0]}",
        f"pressed {finished.game_id}.5b0.b{result.bids[0]}",
        f"connecting with {telegram.fake.token}",
    ]
    mark = len(captured.records)
    for text in planted:
        log.info("%s", text)
        log.debug("%s", text)
    caught = leaks(captured.records[mark:], forbidden)
    assert len(caught) >= len(planted)
    assert all(any(text in line for line in caught) for text in planted)
    del captured.records[mark:]
    # Every line of ours in the game's handling names its chat and game.
    ours = [r for r in captured.records[begun:] if r.name.startswith(("bot.", "adapters."))]
    assert {r.name for r in ours} >= {"bot.service", "adapters.outbox"}
    assert len(ours) > 100
    unplaced = [r.getMessage() for r in ours if (r.chat, r.game) != (CHAT, "g1")]  # type: ignore[attr-defined]
    assert unplaced == []
    loud = [r for r in captured.records if r.levelno >= logging.INFO]
    print(  # with -s: the measure docs/operations.md quotes
        f"\nthe game's records: {len(captured.records)} from DEBUG up, {len(ours)} of the "
        f"bot's own during the game, {len(loud)} at INFO and up"
    )
    # As written, at any level, no line shows the token.
    for formatter in (
        logs.TextFormatter([telegram.fake.token]),
        logs.JsonFormatter([telegram.fake.token]),
    ):
        assert not [r for r in captured.records if telegram.fake.token in formatter.format(r)]


@pytest.fixture
async def dc(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[DiscordBot]:
    """The Discord bot, logged in to the fake Discord."""
    async with discord_running(redis_url, monkeypatch) as bot:
        yield bot


async def test_a_whole_discord_game_logs_no_card_bid_or_token_even_at_debug(
    dc: DiscordBot, captured: Capture
) -> None:
    """discord.py writes each API call's body at DEBUG (the DMs' hands, the buttons'
    payloads): held as `logs.setup` holds it, no record of a game with secret bids shows one."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    await discord_seat(dc, [ann, bob, cid], bids="secret")
    await dc.press_label(dc.channel, bob, dc.lobby(), "Start")
    await discord_play_on(dc)
    finished = (await Store(dc.client, Settings()).load(f"dc:{dc.channel}")).table
    assert finished is not None
    assert len(finished.game.results) == 5
    assert leaks(captured.records, private(finished, dc.fake.token), logging.DEBUG) == []
    assert any(r.name.startswith("discord.") for r in captured.records)
