"""Helpers for the game-service tests: a clock, clients, a store that notes what it wrote, a
driver that presses the buttons outcomes carry, checks of what every message shows, and a
worker script that other processes run (`python tests/service_helpers.py MODE ARGS`)."""

import asyncio
import contextlib
import contextvars
import hashlib
import json
import random
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
import redis.asyncio as aioredis

from bot import coaching, tokens
from bot.ai.normal import NormalAI
from bot.commands import Kind
from bot.config import Config
from bot.messages import OPTIONS, Message, Outcome
from bot.requests import Request, User
from bot.service import GameService
from bot.show.i18n import error_text, texts
from bot.show.themes import Theme, card_face, cards_line
from bot.store import Store, Write, keys
from bot.table import Settings, Table
from engine import (
    DECK,
    JESTER,
    WIZARD,
    Bid,
    Card,
    ChooseTrump,
    Command,
    ErrorCode,
    GameState,
    Join,
    MarkWings,
    Phase,
    Play,
    PlayerView,
    SetOptions,
    Start,
    Suit,
    legal_bids,
    legal_plays,
    parse_option,
    step,
    table_view,
)

CHAT = "chat:-100"
ROUND_PHASES = (Phase.TRUMP, Phase.BIDDING, Phase.PLAYING)
MOVES = "tbp"
"""Button actions that answer the decision the game waits for: trump, bid, play."""
T = texts("en")
NOBODY_HOSTS = (
    "Only the host of a table that has not started can set its options. The first to /join "
    "opens a table and hosts it."
)
"""A private /options from someone who hosts no lobby (both platforms' tests)."""


class CountedRedis(aioredis.Redis):
    """A Redis client that counts the calls made with it (a pipeline is one)."""

    calls: Counter[str]

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        self.calls[str(args[0])] += 1
        return await super().execute_command(*args, **options)

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Any:
        self.calls["pipeline"] += 1
        return super().pipeline(transaction, shard_hint)


def human(number: int) -> User:
    return User(f"tg:{number}", f"Player{number}")


NAMES = ("Ann", "Bob", "Cid", "Dot", "Eve", "Fay")
ANN, BOB, CID, DOT, EVE, FAY = (User(f"tg:{n}", name) for n, name in enumerate(NAMES, start=1))


JOINED = "You joined the table. Your cards will come to you privately once the game starts."
"""The answer to a join (English)."""


def refusal(code: ErrorCode, phase: Phase | None = None) -> str:
    """The answer a refused request with `code` gets (English), at a table in `phase`."""
    return error_text(T, code, phase)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def client(url: str) -> "aioredis.Redis":
    """A redis-py client of the test server, as the bot uses; it waits as long as Redis takes
    to answer, as the `redis_client` fixture does."""
    return aioredis.from_url(url, socket_timeout=None)


# --- a store that notes its writes ---------------------------------------------------------------

LABEL: contextvars.ContextVar[str] = contextvars.ContextVar("label", default="")
"""What the running task is doing, for RecordingStore's notes."""


@dataclass(frozen=True, slots=True)
class Written:
    """One write: its label (the request), the version it made, the game's seq, the blob, the
    update id it applies (None: none) and its chat."""

    label: str
    version: int
    seq: int | None
    blob: bytes | None
    update_id: str | None = None
    chat: str = ""


class RecordingStore(Store):
    """A Store that notes every write Redis acknowledged (`acked`) and every write it tried
    (`tried`, also those whose answer never came back)."""

    def __init__(self, redis_client: "aioredis.Redis", defaults: Settings | None = None) -> None:
        super().__init__(redis_client, defaults or Settings())
        self.acked: list[Written] = []
        self.tried: list[Written] = []

    async def save(
        self,
        chat: str,
        version: int,
        write: Write,
        update_id: str | None = None,
        journal: tuple[str, float] | None = None,
    ) -> bool | None:
        table = write.table
        note = Written(
            LABEL.get(),
            version + 1,
            None if table is None else table.game.seq,
            None if table is None else table.to_bytes(),
            update_id,
            chat,
        )
        self.tried.append(note)
        saved = await super().save(chat, version, write, update_id, journal)
        if saved:
            self.acked.append(note)
        return saved


def service(
    redis_client: "aioredis.Redis",
    seed: int = 0,
    clock: Clock | None = None,
    config: Config | None = None,
) -> GameService:
    return GameService(
        RecordingStore(redis_client),
        config or Config(),
        clock=clock or Clock(),
        rng=random.Random(seed),
    )


def recorded(svc: GameService) -> RecordingStore:
    assert isinstance(svc.store, RecordingStore)
    return svc.store


async def raw(redis_client: "aioredis.Redis", chat: str = CHAT) -> tuple[int, bytes | None]:
    """The chat's game hash as stored: the version `v` and the table blob `t`."""
    version, blob = await redis_client.hmget(keys.game(chat), ["v", "t"])
    return int(version or 0), blob


async def table_of(redis_client: "aioredis.Redis", chat: str = CHAT) -> Table | None:
    """The chat's table as stored (its finished rounds, field `r`, included)."""
    blob, results = await redis_client.hmget(keys.game(chat), ["t", "r"])
    return None if blob is None else Table.from_bytes(blob, results)


async def indexed_in_time(redis_client: "aioredis.Redis", chat: str = CHAT) -> None:
    """The chat's entry in the timer index is no later than its table's time."""
    table = await table_of(redis_client, chat)
    assert table is not None
    wake = table.wake()
    assert wake is not None
    indexed = await redis_client.zscore(keys.timers(chat), chat)
    assert indexed is not None
    assert indexed <= wake


async def game_of(redis_client: "aioredis.Redis", chat: str = CHAT) -> GameState:
    table = await table_of(redis_client, chat)
    assert table is not None, "no table"
    return table.game


# --- what people may see -------------------------------------------------------------------------


def payloads(message: Message) -> list[str]:
    return [button.payload for row in message.buttons for button in row]


def all_payloads(outcomes: Iterable[Outcome]) -> list[str]:
    return [payload for outcome in outcomes for m in outcome.messages for payload in payloads(m)]


def check_payload(payload: str) -> tokens.Token:
    """A payload the service emits: at most 64 bytes, and one of our tokens."""
    assert len(payload.encode()) <= tokens.MAX_LENGTH, payload
    return tokens.decode(payload)


def faces(theme: Theme) -> dict[str, Card]:
    """Card faces that name one card (not the four alike Wizards and Jesters)."""
    return {card_face(card, theme): card for card in DECK if card not in (WIZARD, JESTER)}


def shown_cards(text: str, theme: Theme) -> set[Card]:
    """The cards (but Wizards and Jesters) whose faces `text` shows."""
    named = faces(theme)
    return {named[word] for word in re.split(r"[\s()·:,→]+", text) if word in named}


SEAT_LINE = re.compile(
    r"^(?:▶️|▫️) .*: (−?\d+) pts · (?:no bid yet|(\d+)/(\S+) tricks(?: · ⇢ (−?\d+))?)$"
)
"""A seat's line on the group's table (its points written with the minus sign, U+2212)."""


def public_cards(table: Table) -> set[Card]:
    """The cards the group may see now: the trump card, this round's tricks, the last trick."""
    view = table_view(table.game)
    seen: set[Card] = set(view.trick)
    if view.trump_card is not None:
        seen.add(view.trump_card)
    for trick in view.tricks:
        seen.update(trick.cards)
    if view.last_trick is not None:
        seen.update(view.last_trick.cards)
    return seen


def check_group(message: Message, table: Table, theme: Theme) -> None:
    """A group message shows no hand, no DM, no card nobody has played, no unrevealed bid."""
    text = message.text
    for private in ("Your hand", "Your bid", "Foresight"):
        assert private not in text, text
    state = table.game
    rnd = state.round
    shown = shown_cards(text, theme)
    assert shown <= public_cards(table), f"group shows {shown - public_cards(table)}:\n{text}"
    if rnd is not None and state.phase in ROUND_PHASES:
        for hand in rnd.hands:
            if len(hand) > 1:
                assert cards_line(hand, theme) not in text, text
    if message.slot != "table" or rnd is None or state.phase not in ROUND_PHASES:
        return
    lines = [match for line in text.splitlines() if (match := SEAT_LINE.match(line))]
    assert len(lines) == len(state.players), text
    for seat, match in enumerate(lines):
        total, won, bid, projected = match.groups()
        assert int(total.replace("−", "-")) == state.totals[seat], text
        made = rnd.bids[seat]
        if made is None:
            assert won is None, text  # "no bid yet"
            continue
        assert int(won) == rnd.won[seat], text
        if rnd.revealed:
            assert bid == str(made), text
            assert projected is not None, text
        else:
            assert bid == "?", f"an unrevealed bid shows:\n{text}"
            assert projected is None, text


def check_private(message: Message, table: Table, theme: Theme) -> None:
    """A DM goes to a seated person and shows their own hand, bid and moves, nobody else's;
    or it takes the buttons off a host's private option toggles (slot `OPTIONS`), which stay
    theirs once they have left the table (they say so, and offer nothing)."""
    state = table.game
    to = message.to
    assert to is not None
    if message.slot == OPTIONS and message.strip:
        assert not message.buttons, message
        return
    seat = state.seat_of(to)
    assert seat is not None, f"a DM to {to}, who is not seated"
    assert to not in table.ai
    rnd = state.round
    if message.slot != "hand" or rnd is None:
        return
    text = message.text
    if message.round is not None and message.round < rnd.number:
        # the round just ended, on the message before a new one: its bid and tricks won
        ended = state.results[-1]
        assert message.round == ended.number, text
        assert f"Your bid: {ended.bids[seat]} · tricks won: {ended.won[seat]}" in text, text
        assert "Your hand" not in text, text
        assert not message.buttons, text
        return
    own = rnd.hands[seat]
    public = public_cards(table)  # the trick a turn message shows, as the group sees it
    if rnd.rules.foresight:
        assert "Your hand" not in text, text
        others = {card for other, hand in enumerate(rnd.hands) if other != seat for card in hand}
        shown = shown_cards(text, theme) - public
        assert shown == others - {WIZARD, JESTER}, f"{to} sees {shown}, not {others}:\n{text}"
        for card in others & {WIZARD, JESTER}:
            assert card_face(card, theme) in text, text
    else:
        if own:
            assert f"Your hand: {cards_line(own, theme)}\n" in text + "\n", (own, text)
        shown = shown_cards(text, theme) - public
        assert shown <= set(own), f"{to} sees {shown - set(own)}, not their own:\n{text}"
    bid = rnd.bids[seat]
    if bid is not None:  # a bid to change (notequal, hidden bids) is said in its question
        said = (f"Your bid: {bid} ", f"Your bid of {bid} makes the bids add up")
        assert any(words in text for words in said), text
    for payload in payloads(message):
        token = check_payload(payload)
        if token.action == "p" and token.arg:
            assert token.arg in legal_plays(state, seat), (token, text)
        elif token.action == "b":
            assert int(token.arg) in legal_bids(state, seat), (token, text)
        elif token.action == "t":
            assert state.phase is Phase.TRUMP
            assert seat == rnd.dealer


def check_outcome(outcome: Outcome, table: Table | None, theme: Theme = Theme.COLOURS) -> None:
    """Every message of `outcome` (the state after it is `table`) shows only what it may."""
    for message in outcome.messages:
        for payload in payloads(message):
            check_payload(payload)
        if table is None:
            continue
        if message.to is None:
            check_group(message, table, theme)
        else:
            check_private(message, table, theme)


# --- people pressing buttons ---------------------------------------------------------------------


@dataclass
class Screens:
    """What a front end shows: the last message per (recipient, slot), and every message."""

    latest: dict[tuple[str | None, str | None], Message] = field(default_factory=dict)
    shown: list[Message] = field(default_factory=list)

    def show(self, outcome: Outcome) -> None:
        for message in outcome.messages:
            self.shown.append(message)
            if message.slot is not None:
                self.latest[(message.to, message.slot)] = message

    def hand(self, user: User) -> Message | None:
        return self.latest.get((user.id, "hand"))

    def group(self, slot: str = "table") -> Message | None:
        return self.latest.get((None, slot))


class Driver:
    """People at one chat's table: they send requests, watch what comes back, and press the
    buttons their screens show. Every outcome is checked against the state it left."""

    def __init__(
        self,
        svc: GameService,
        humans: Sequence[User],
        chat: str = CHAT,
        seed: int = 0,
        theme: Theme = Theme.COLOURS,
        wings_rate: float = 0.15,
    ) -> None:
        self.svc = svc
        self.humans = list(humans)
        self.chat = chat
        self.rng = random.Random(seed)
        self.theme = theme
        self.wings_rate = wings_rate
        self.screens = Screens()
        self.outcomes: list[Outcome] = []
        self.presses = 0
        self.requests: dict[str, tuple[User, Request]] = {}
        """Every request sent, by the label its writes are noted under."""
        self.last_labels: list[str] = []
        """The labels of the requests of the last `at_once`, in order."""

    @property
    def redis(self) -> "aioredis.Redis":
        return self.svc.store.client

    async def send(
        self, user: User, request: Request, update_id: str | None = None, check: bool = True
    ) -> Outcome:
        self.label(user, request)
        outcome = await self.svc.handle(self.chat, user, request, update_id)
        self.outcomes.append(outcome)
        self.screens.show(outcome)
        if check:
            check_outcome(outcome, await table_of(self.redis, self.chat), self.theme)
        return outcome

    def label(self, user: User, request: Request) -> str:
        """Name the request for the writes it makes (in the running task's context)."""
        label = f"r{len(self.requests)}"
        self.requests[label] = (user, request)
        LABEL.set(label)
        return label

    async def at_once(
        self, items: Sequence[tuple[User, Request]], check: bool = True
    ) -> list[Outcome]:
        """Send all `items` concurrently; show the outcomes in the order their writes were
        made (as the chat would see them), then check what each person's screen shows."""

        async def one(user: User, request: Request) -> tuple[str, Outcome]:
            label = self.label(user, request)
            return label, await self.svc.handle(self.chat, user, request)

        results = await asyncio.gather(*(one(user, request) for user, request in items))
        self.last_labels = [label for label, _ in results]
        made = {note.label: note.version for note in recorded(self.svc).acked}
        for _, outcome in sorted(results, key=lambda item: made.get(item[0], 0)):
            self.outcomes.append(outcome)
            self.screens.show(outcome)
        if check:
            table = await table_of(self.redis, self.chat)
            for message in self.screens.latest.values():
                if message.to is not None and table is not None:
                    check_private(message, table, self.theme)
        return [outcome for _, outcome in results]

    async def ok(self, user: User, kind: Kind, arg: str = "") -> Outcome:
        """Send a request that must succeed."""
        outcome = await self.send(user, Request(kind, arg))
        assert not outcome.alert, (kind, arg, outcome.answer)
        return outcome

    async def press(self, user: User, payload: str, update_id: str | None = None) -> Outcome:
        return await self.send(user, Request(Kind.BUTTON, payload), update_id)

    async def lobby(self, options: Sequence[str] = (), ai: int = 0, start: bool = True) -> None:
        """Everybody joins, the host adds `ai` AI seats, sets `options` and starts."""
        host = self.humans[0]
        for user in self.humans:
            await self.ok(user, Kind.JOIN)
        for _ in range(ai):
            await self.ok(host, Kind.ADD_AI)
        for option in options:
            await self.ok(host, Kind.OPTION, option)
        if start:
            await self.ok(host, Kind.START)

    def choices(self) -> list[tuple[User, str]]:
        """The moves people can make with the buttons on their screens."""
        found = []
        group = self.screens.group()
        group_bids = [p for p in payloads(group) if tokens.decode(p).action == "b"] if group else []
        for user in self.humans:
            hand = self.screens.hand(user)
            if hand is None:
                continue
            found += [(user, p) for p in payloads(hand) if tokens.decode(p).action in MOVES]
            if "Your bid?" in hand.text and group_bids:
                found += [(user, p) for p in group_bids]
        return found

    def marks(self) -> list[tuple[User, str]]:
        """The wings marks people can set with their buttons."""
        found = []
        for user in self.humans:
            hand = self.screens.hand(user)
            if hand is not None:
                found += [(user, p) for p in payloads(hand) if tokens.decode(p).action == "w"]
        return found

    async def move(self) -> Outcome:
        """One person presses one button: a wings mark now and then, else a move."""
        marks = self.marks()
        if marks and self.rng.random() < self.wings_rate:
            user, payload = self.rng.choice(marks)
        else:
            moves = self.choices()
            assert moves, f"nobody can move; screens: {self.screens.latest}"
            user, payload = self.rng.choice(moves)
        outcome = await self.press(user, payload)
        assert not outcome.alert, (user, payload, outcome.answer)
        self.presses += 1
        return outcome

    def applied(self) -> list[tuple[int, User, Request]]:
        """The requests Redis acknowledged a write for, with the game's seq after each."""
        found = []
        for note in recorded(self.svc).acked:
            assert note.seq is not None
            user, request = self.requests[note.label]
            found.append((note.seq, user, request))
        return found

    async def play_to_end(self, limit: int = 5000) -> GameState:
        """Press buttons until the game is over."""
        for _ in range(limit):
            table = await table_of(self.redis, self.chat)
            assert table is not None
            if table.game.phase is Phase.FINISHED:
                return table.game
            await self.move()
        raise AssertionError("the game did not end")

    async def play_until(self, done: Callable[[Any], bool], limit: int = 5000) -> GameState:
        """Press buttons until `done(state)` holds."""
        for _ in range(limit):
            state = await game_of(self.redis, self.chat)
            if done(state):
                return state
            await self.move()
        raise AssertionError("never got there")


# --- replaying what was accepted -----------------------------------------------------------------


def command_for(state: GameState, user: User, request: Request) -> Command:
    """The engine command an accepted request made (no AI in these games)."""
    kind, arg = request.kind, request.arg
    if kind is Kind.BUTTON:
        token = tokens.decode(arg)
        kind = {"b": Kind.BID, "p": Kind.PLAY, "t": Kind.TRUMP, "w": Kind.WINGS, "j": Kind.JOIN}[
            token.action
        ]
        arg = token.arg
    if kind is Kind.JOIN:
        return Join(user.id, user.name)
    if kind is Kind.OPTION:
        return SetOptions(parse_option(state.options, arg))
    if kind is Kind.BID:
        return Bid(user.id, int(arg))
    if kind is Kind.PLAY:
        return Play(user.id, Card(arg) if arg else None)
    if kind is Kind.TRUMP:
        return ChooseTrump(user.id, Suit(arg))
    if kind is Kind.WINGS:
        return MarkWings(user.id, Card(arg) if arg else None)
    raise AssertionError(f"no command for {kind}")


def replay(applied: Iterable[tuple[int, User, Request]], seed: int, final: GameState) -> GameState:
    """Replay accepted requests through the engine alone, in the order of the game's seq after
    each (with no AI seats every write moves it by one, which is checked on the way), and
    compare with `final`; a Start takes the seed the service drew (`seed`)."""
    state = GameState()
    for seq, user, request in sorted(applied, key=lambda item: item[0]):
        if request.kind is Kind.START:
            command: Command = Start(seed=seed)
        else:
            command = command_for(state, user, request)
        step(state, command)
        assert state.seq == seq, (seq, state.seq, request)
    assert state.to_dict() == final.to_dict()
    return state


# --- the worker: another process with its own service and Redis connection -----------------------


async def _wait_for(redis_client: "aioredis.Redis", key: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not await redis_client.exists(key):
        if time.monotonic() > deadline:
            raise TimeoutError(key)
        await asyncio.sleep(0.002)


def digest(state: GameState) -> str:
    return hashlib.sha256(state.to_json().encode()).hexdigest()


def emit(data: dict[str, Any]) -> None:
    print(json.dumps(data), flush=True)


async def worker_join(url: str, chat: str, index: int, users: list[int]) -> None:
    """Join `users` all at once when the test says go; print who got a seat."""
    redis_client = client(url)
    svc = service(redis_client, seed=index)
    await redis_client.set(f"test:ready:{index}", 1)
    await _wait_for(redis_client, "test:go")

    async def join(number: int) -> None:
        LABEL.set(str(number))
        outcome = await svc.handle(chat, human(number), Request(Kind.JOIN))
        emit({"user": number, "ok": not outcome.alert, "answer": outcome.answer})

    await asyncio.gather(*(join(number) for number in users))
    for note in recorded(svc).acked:
        emit({"applied": note.label, "seq": note.seq, "version": note.version})
    await redis_client.aclose()


async def worker_play(url: str, chat: str, index: int) -> None:
    """Play for every seated person at once, choosing moves of our own (others choose theirs),
    until the game is over; print every request that was applied with its seq."""
    redis_client = client(url)
    svc = service(redis_client, seed=index)
    rng = random.Random(index)
    await redis_client.set(f"test:ready:{index}", 1)
    await _wait_for(redis_client, "test:go")
    store = recorded(svc)
    refused = 0
    while True:
        snap = await store.load(chat)
        table = snap.table
        if table is None or table.game.phase is Phase.FINISHED:
            break
        state = table.game
        presses = []
        for seat in table_view(state).waiting:
            player = state.players[seat]
            user = User(player.id, player.name)
            if state.phase is Phase.TRUMP:
                action, arg = "t", rng.choice(list(Suit)).value
            elif state.phase is Phase.BIDDING:
                action, arg = "b", str(rng.choice(legal_bids(state, seat)))
            else:
                action, arg = "p", rng.choice(legal_plays(state, seat))
            presses.append((user, tokens.make(table.game_id, state, action, arg)))

        async def press(user: User, payload: str) -> bool:
            LABEL.set(json.dumps([user.id, user.name, payload]))
            outcome = await svc.handle(chat, user, Request(Kind.BUTTON, payload))
            return outcome.alert

        refused += sum(await asyncio.gather(*(press(user, p) for user, p in presses)))
    emit({"refused": refused, "worker": index})
    for note in store.acked:
        emit({"applied": note.label, "seq": note.seq, "version": note.version, "worker": index})
    await redis_client.aclose()


async def worker_crash(url: str, chat: str, seed: int, pause: float) -> None:
    """Play a game of three people through the service (joining and starting it if need be),
    printing every acknowledged write, slowly enough to be killed in the middle."""
    redis_client = client(url)
    svc = service(redis_client, seed=seed)
    driver = Driver(svc, [ANN, BOB, CID], chat=chat, seed=seed, wings_rate=0)
    store = recorded(svc)
    table = await table_of(redis_client, chat)
    if table is None:
        await driver.lobby(["rounds=short", "bids=hidden"])
    else:
        for user in driver.humans:  # a restarted bot: people ask for their hands again
            await driver.ok(user, Kind.HAND)
    done = 0
    while True:
        state = await game_of(redis_client, chat)
        rnd = state.round
        for note in store.acked[done:]:
            last = note is store.acked[-1]
            emit(
                {
                    "version": note.version,
                    "seq": note.seq,
                    "round": rnd.number if rnd and last else None,
                    "trick": len(rnd.trick) if rnd and last else None,
                    "digest": digest(state) if last else None,
                }
            )
        done = len(store.acked)
        if state.phase is Phase.FINISHED:
            emit({"finished": True})
            break
        await driver.move()
        await asyncio.sleep(pause)
    await redis_client.aclose()


def main(argv: list[str]) -> None:
    mode, url, chat, *rest = argv
    if mode == "join":
        asyncio.run(worker_join(url, chat, int(rest[0]), [int(n) for n in rest[1:]]))
    elif mode == "play":
        asyncio.run(worker_play(url, chat, int(rest[0])))
    elif mode == "crash":
        asyncio.run(worker_crash(url, chat, int(rest[0]), float(rest[1])))
    else:
        raise SystemExit(f"unknown mode {mode}")


def worker_command(mode: str, url: str, chat: str, *args: object) -> list[str]:
    return [sys.executable, __file__, mode, url, chat, *map(str, args)]


def lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


async def reviews_posted(
    group_texts: Sequence[str],
    rounds_over: int,
    services: "GameService | Sequence[GameService]",
    interval: float,
    idle: Callable[[], Awaitable[None]],
) -> int:
    """After a move at a coach table: once the group shows a round's end not seen before
    (`rounds_over` of them were), wait until its reviews are worked out (in the background, by
    whichever of the workers' `services` ended the round), handed over by a tick of that
    worker's timer loop (every `interval` seconds) and posted; the round ends the group shows
    now. No time is assumed enough: the reviews are taken by a tick, and that tick's outcomes
    are shown before the next tick starts."""
    over = sum("is over" in text or "Final table" in text for text in group_texts)
    if over > rounds_over:
        every = [services] if isinstance(services, GameService) else list(services)
        for svc in every:
            await svc.coach.settled()
        deadline = time.monotonic() + 30
        for svc in every:
            ticks = counted_ticks(svc)
            while svc.coach.waiting():
                assert time.monotonic() < deadline, "no tick took the reviews"
                await asyncio.sleep(interval / 4)
            taken = ticks.count
            while ticks.count <= taken:
                assert time.monotonic() < deadline, "the worker does not tick"
                await asyncio.sleep(interval / 4)
        await idle()
    return over


def round_ends(language: str, shown: Iterable[str]) -> list[str]:
    """The texts of `shown` that end a round (`Round {round} is over.`, or the final table) in
    `language`, each as `reviews_posted` counts it: that reads English words."""
    t = texts(language)
    marks = [
        max(t(msgid).split("{round}"), key=len).strip()
        for msgid in ("Round {round} is over.", "🏁 Final table · round {round} of {rounds}")
    ]
    return ["is over" for text in shown if any(mark in text for mark in marks)]


@contextlib.contextmanager
def reviews_held(services: "GameService | Sequence[GameService]") -> Iterator[None]:
    """While inside, no tick of `services` hands over the coach's reviews: those worked out
    wait (`Coach.waiting` counts them) for the first tick after. A move whose posts are paced
    (a person's private chat takes about one a second) meets its round's reviews in the outbox
    or not, as the reviews are worked out in time or not: held while the move is handled, they
    come after its posts always, and a game's transcript reads the same every run."""
    every = [services] if isinstance(services, GameService) else list(services)
    coaches = [svc.coach for svc in every]
    for coach in coaches:
        coach.ready = lambda scope: []  # type: ignore[method-assign]
    try:
        yield
    finally:
        for coach in coaches:
            del coach.ready  # the class's own again


@dataclass
class Ticks:
    count: int = 0


def counted_ticks(svc: GameService) -> Ticks:
    """Count the service's ticks from now on (once a service: its `tick` wrapped)."""
    found = getattr(svc, "_counted_ticks", None)
    if found is not None:
        return cast(Ticks, found)
    ticks = Ticks()
    tick = svc.tick

    async def counted(scope: str) -> list[tuple[str, Outcome]]:
        ticks.count += 1
        return await tick(scope)

    svc.tick = counted  # type: ignore[method-assign]
    svc._counted_ticks = ticks  # type: ignore[attr-defined]
    return ticks


class Pondering(NormalAI):
    """An AI seat that, on its first move, thinks until another chat's request was answered."""

    def __init__(self) -> None:
        self.thinking = threading.Event()
        self.answered = threading.Event()

    def decide(self, view: PlayerView, rng: random.Random) -> Command:
        self.thinking.set()
        assert self.answered.wait(10), "a chat waited for another chat's AI to move"
        return super().decide(view, rng)


def held_bid_hints(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """A bid's hint held while being worked out: `started` is set once one is, and it goes on
    when `release` is set (to see what a stop does with a hint under way)."""
    started, release = threading.Event(), threading.Event()
    bid_hints = coaching.bid_hints

    def slow(*args: Any, **kwargs: Any) -> Any:
        started.set()
        release.wait()
        return bid_hints(*args, **kwargs)

    monkeypatch.setattr(coaching, "bid_hints", slow)
    return started, release


if __name__ == "__main__":
    main(sys.argv[1:])


def failing(monkeypatch: pytest.MonkeyPatch, service: GameService) -> list[Exception]:
    """Make every request `service` handles fail with the list's first error, a bug at first;
    the list, to put another error in (the store away)."""
    failure: list[Exception] = [RuntimeError("a bug")]

    async def broken(*args: object, **kwargs: object) -> None:
        raise failure[0]

    monkeypatch.setattr(service, "handle", broken)
    return failure
