"""The Discord front end end to end: the real discord.py client, logged in against the fake
Discord API of `tests/fake_discord.py` (every REST call goes there), fed real `INTERACTION_CREATE`
payloads through its connection state, with the real game service and a real redis-server. The
tests act as the people: slash commands and presses in the channel and in DMs; they read back
what the channel and each DM show."""

import asyncio
import contextlib
import copy
import difflib
import itertools
import logging
import os
import random
import re
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import discord
import pytest
import reading
import redis
import redis.asyncio as aioredis
from fake_discord import APP_PERMISSIONS, ATTACH_FILES, SEND_MESSAGES, FakeDiscord, Person, Stored
from service_helpers import (
    CountedRedis,
    counted_ticks,
    failing,
    held_bid_hints,
    reviews_held,
    reviews_posted,
    round_ends,
)

from adapters.discord.app import DiscordFrontEnd
from adapters.discord.ids import chat_key, user_key
from adapters.discord.render import MAX_CONTENT, content
from adapters.discord.slots import Slots
from adapters.outbox import FAST, Limits
from adapters.slots import hand_slot
from bot import Button, Kind, Message, Outcome, Request, User, tokens
from bot import chat as bot_chat
from bot.config import Config, DiscordConfig
from bot.service import HINT_SENT, SORRY, STOPPED_HINT, STORE_AWAY, GameService
from bot.show.i18n import texts
from bot.show.picture import SheetPicture
from bot.store import Store, keys
from bot.store.redis_server import RedisServer
from bot.table import Settings
from bot.tokens import Action
from engine import Phase
from engine.views import ScoreRow

GOLDEN = Path(__file__).parent / "golden" / "discord"
SUPPRESS_NOTIFICATIONS = 1 << 12
"""A message's flag: posted @silent (no notification)."""
OVER = "The game is over"
TABLE_PAUSED = (
    "⏸ Paused: nobody is playing. Make your move, or press Resume under your cards, to go on"
)
"""What the channel's table says while the game is paused (its Resume is on each hand)."""


@dataclass
class Bot:
    """The bot under test, the fake Discord it talks to, and the people."""

    fake: FakeDiscord
    front: DiscordFrontEnd
    client: "aioredis.Redis"
    people: list[Person] = field(default_factory=list)
    limits: Limits = FAST
    turn_timeout: int = 90
    lobby_timeout: int = 1800
    worker_of: dict[int, DiscordFrontEnd] = field(default_factory=dict)
    """Person → another worker of the same bot (one Redis) that the gateway gives their
    interactions to (everyone else's go to `front`)."""

    @property
    def channel(self) -> int:
        return self.fake.channel

    def workers(self) -> list[DiscordFrontEnd]:
        return [self.front, *(w for w in set(self.worker_of.values()) if w is not self.front)]

    async def act(self, payload: dict[str, Any]) -> None:
        """Deliver one gateway payload to the client, as the gateway would; wait until it is
        answered and everything it caused is posted."""
        person = int((payload.get("member") or payload)["user"]["id"])
        worker = self.worker_of.get(person, self.front)
        worker.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        await self.fake.wait_answered(int(payload["id"]))
        await self.idle()

    async def idle(self) -> None:
        """Wait until every worker handled the interactions it was given (`busy`), made the
        AI moves left aside and had its timer loop show them (`aside`), and posted all that
        (its outbox flushed, the fake idle)."""
        for _ in range(5000):
            await asyncio.sleep(0)
            if all(worker.busy == 0 for worker in self.workers()):
                for worker in self.workers():
                    await aside(worker)
                    await worker.outbox.flush()
                if all(w.busy == 0 for w in self.workers()) and not self.fake.busy():
                    return
            await asyncio.sleep(0.002)
        raise AssertionError("the bot did not go quiet")

    async def command(
        self, user: Person, name: str, /, view: int | None = None, **opts: str | Person
    ) -> None:
        await self.act(self.fake.command(view or self.channel, user, name, **opts))

    async def press(self, view: int, user: Person, message: Stored, custom_id: str) -> None:
        await self.act(self.fake.press(view, user, message, custom_id))

    async def press_label(self, view: int, user: Person, message: Stored, label: str) -> None:
        await self.press(view, user, message, message.button(label))

    async def restart(self) -> None:
        """Stop the front end and start another on the same Redis (a restart)."""
        await self.front.stop()
        self.front = _front(
            self.fake, self.client, self.limits, self.turn_timeout, self.lobby_timeout
        )
        await self.front.start(connect=False)

    def channel_texts(self) -> list[str]:
        return self.fake.texts(self.channel)

    def lobby(self) -> Stored:
        return next(m for m in self.fake.shown(self.channel) if "a new table" in m.content)

    def table(self) -> Stored:
        tables = [m for m in self.fake.shown(self.channel) if m.content.startswith("🔮 Round ")]
        return tables[-1]

    def hand(self, user: Person) -> Stored | None:
        """The person's newest hand: in their DM, or shown to them alone in the channel."""
        if user.id not in self.fake.closed_dms:
            hands = [m for m in self.fake.shown(user.id) if "Round " in m.content]
        else:
            mine = self.fake.shown(self.channel, user)
            hands = [m for m in mine if m.only == user.id and "Round " in m.content]
        return hands[-1] if hands else None

    def last_reply(self, view: int | None = None) -> str:
        actions = [line for line in self.fake.transcripts[view or self.channel] if line.action]
        return actions[-1].replies[-1] if actions and actions[-1].replies else ""


async def aside(worker: DiscordFrontEnd) -> None:
    """Wait until the worker made the AI moves left aside (`GameService.moved`: a timer's
    run, and a player's move's moves it took over) and its timer loop showed them
    (`aside_shown`): queued in its outbox. A worker stopped (its outbox closed) shows none."""
    if worker.outbox.closed:
        return
    await asyncio.wait_for(worker.service.moved(), 30)
    await asyncio.wait_for(worker.service.aside_shown(), 30)


@pytest.fixture
def game_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game ids g1, g2, ... instead of random ones (stable payloads)."""
    counter = itertools.count(1)
    monkeypatch.setattr("bot.chat.new_game_id", lambda: f"g{next(counter)}")


def _front(
    fake: FakeDiscord,
    client: "aioredis.Redis",
    limits: Limits = FAST,
    turn_timeout: int = 90,
    lobby_timeout: int = 1800,
) -> DiscordFrontEnd:
    config = Config(
        turn_timeout=turn_timeout,
        lobby_timeout=lobby_timeout,
        discord=DiscordConfig(token=fake.token, base_url=fake.base_url),
    )
    service = GameService(Store(client, Settings()), config, rng=random.Random(11))
    return DiscordFrontEnd(config, service, client, limits=limits, timer_interval=0.2)


@contextlib.asynccontextmanager
async def running(
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    *,
    limits: Limits = FAST,
    turn_timeout: int = 90,
    lobby_timeout: int = 1800,
    rate_limits: tuple[int, float] | None = None,
) -> AsyncIterator[Bot]:
    """The fake Discord, and the front end logged in to it (no gateway: the tests feed it)."""
    async with FakeDiscord(rate_limits=rate_limits) as fake:
        monkeypatch.setattr(discord.http.Route, "BASE", fake.base_url)
        client = aioredis.Redis.from_url(redis_url)
        front = _front(fake, client, limits, turn_timeout, lobby_timeout)
        bot = Bot(fake, front, client, [], limits, turn_timeout, lobby_timeout)
        await bot.front.start(connect=False)
        try:
            yield bot
        finally:
            await bot.front.stop()
            await client.aclose()


@pytest.fixture
async def dc(redis_url: str, game_ids: None, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Bot]:
    async with running(redis_url, monkeypatch) as bot:
        yield bot


def people(bot: Bot, *names: str, closed: tuple[str, ...] = ()) -> list[Person]:
    found = [bot.fake.add_user(name, dms=name not in closed) for name in names]
    bot.people = found
    return found


async def seat(bot: Bot, players: list[Person], **options: str) -> None:
    """The players join; the host picks 5 rounds and the other options."""
    for user in players:
        await bot.command(user, "join")
    await bot.command(players[0], "options", setting="rounds=short")
    for name, value in options.items():
        await bot.command(players[0], "options", setting=f"{name}={value}")


def is_mark(custom_id: str) -> bool:
    """Whether a button marks a card (or clears the mark) for wings."""
    payload = custom_id.split(":", 2)[-1]
    try:
        return tokens.decode(payload).action is Action.WINGS
    except tokens.TokenError:
        return False


def moves_of(message: Stored) -> list[str]:
    """The custom ids of the message's buttons that make a move: no wings mark (the game does
    not wait for one), no link to the table."""
    return [custom_id for custom_id in message.custom_ids() if not is_mark(custom_id)]


@dataclass
class Playing:
    """How `move` plays: which of the offered choices it takes (the first, by default), and
    whether each person marks a card (wings) while not on turn."""

    pick: Callable[[list[str]], str] = field(default=lambda choices: choices[0])
    marked: set[int] | None = None
    """The hand messages marked from so far (None: nobody marks): each person not on turn
    marks the last card of a hand message not marked from yet."""


def in_turn(start: int = 0) -> Playing:
    """Choices taken in turn, the next one each time: the 1st, 2nd, 3rd... (modulo their
    number), and wings marks made, so that a game goes down other paths than the first
    choice's."""
    count = itertools.count(start)
    return Playing(pick=lambda choices: choices[next(count) % len(choices)], marked=set())


async def move(bot: Bot, after: int = 0, playing: Playing | None = None) -> bool:
    """One move by whoever the game waits for (the first choice offered, or as `playing`
    says); False once over (`after`: the channel's messages up to this id are of earlier
    games)."""
    how = playing or Playing()
    if after == 0 and any(OVER in text for text in bot.channel_texts()):
        return False
    if after and any(OVER in m.content for m in bot.fake.shown(bot.channel) if m.id > after):
        return False
    closed = bot.fake.closed_dms
    for user in sorted(bot.people, key=lambda person: person.id in closed):
        hand = bot.hand(user)
        if user.id in closed and (hand is None or not moves_of(hand)):
            notices = [m for m in bot.fake.shown(bot.channel) if f"<@{user.id}>" in m.content]
            if notices:  # their DMs are closed: they look at their hand in the channel
                await bot.press_label(bot.channel, user, notices[-1], "Your hand")
                hand = bot.hand(user)
        if hand is None:
            continue
        view = bot.channel if user.id in closed else user.id
        marks = [custom_id for custom_id in hand.custom_ids() if is_mark(custom_id)]
        if how.marked is not None and marks and hand.id not in how.marked:
            how.marked.add(hand.id)
            await bot.press(view, user, hand, marks[-1])
        if moves_of(hand):  # a move to make
            await bot.press(view, user, hand, how.pick(moves_of(hand)))
            return True
        if "Your bid?" in hand.content:  # an open bid: the buttons are under the table
            table = bot.table()
            await bot.press(bot.channel, user, table, how.pick(table.custom_ids()))
            return True
    raise AssertionError("nobody's turn, and the game is not over")


async def play_on(bot: Bot, limit: int = 600, playing: Playing | None = None) -> int:
    """Moves until the game is over (`move`); after each, what the channel shows a player
    whose DMs are closed, to them alone, offers buttons on one message at most, the newest
    (`check_hands_last`). The number of moves."""
    shut = [person for person in bot.people if person.id in bot.fake.closed_dms]
    for moves in range(limit):
        if not await move(bot, playing=playing):
            return moves
        check_hands_last(bot, shut)
    raise AssertionError("the game did not end")


def refusals(bot: Bot) -> list[str]:
    """Ephemeral answers that refused something, over the whole channel."""
    words = ("not your turn", "out of date", "not one of ours", "not playing", "over")
    return [
        reply
        for line in bot.fake.transcripts[bot.channel]
        for reply in line.replies
        if "only" in reply and any(word in reply for word in words)
    ]


def compare_golden(request: pytest.FixtureRequest, name: str, now: str) -> None:
    update = request.config.getoption("--update-golden") or os.environ.get("UPDATE_GOLDEN")
    path = GOLDEN / name
    now += "\n"
    if update:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(now, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if now != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), now.splitlines(), "golden", "now", lineterm=""
        )
        pytest.fail(f"{name} changed (rewrite with pytest --update-golden):\n" + "\n".join(diff))


# --- whole games ------------------------------------------------------------------------------


async def test_a_whole_game_with_golden_transcripts(
    dc: Bot, request: pytest.FixtureRequest
) -> None:
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    await dc.command(bob, "hand")  # no game yet: refused
    await seat(dc, [ann, bob, cid])
    assert {"join", "start", "hand", "language"} <= {c["name"] for c in dc.fake.commands}
    lobby = dc.lobby()
    assert all(name in lobby.content for name in ("Ann", "Bob", "Cid"))
    await dc.press_label(dc.channel, bob, lobby, "Start")
    moves = await play_on(dc)
    assert moves >= 3 * (1 + 2 + 3 + 4 + 5) + 3 * 5
    over = [text for text in dc.channel_texts() if OVER in text]
    assert len(over) == 1
    await dc.command(cid, "scores")
    await dc.command(ann, "record")
    assert "wizard-game.json" in dc.last_reply()
    # The channel never shows a hand; each went to its owner's DM.
    for text in dc.channel_texts():
        assert "Your hand" not in text
    for user in (ann, bob, cid):
        assert any("Your hand" in text for text in dc.fake.texts(user.id))
    # Each round's table and end are posted @silent (the player to move is told in a DM); the
    # lobby and the end of the game notify as before.
    posted = [m for m in dc.fake.messages.values() if m.channel == dc.channel and m.only is None]
    rounds = [m for m in posted if re.match(r"🔮 Round |🏁 Final|Round \d is over", m.content)]
    assert len(rounds) == 5 + 4  # the last round's table is the final table now
    assert all(m.flags & SUPPRESS_NOTIFICATIONS for m in rounds)
    assert not any(m.flags & SUPPRESS_NOTIFICATIONS for m in posted if m not in rounds)
    assert dc.fake.errors == []
    assert dc.fake.late == []
    compare_golden(request, "channel.txt", dc.fake.format_transcript(dc.channel))
    compare_golden(request, "ann.txt", dc.fake.format_transcript(ann.id))


@pytest.mark.parametrize(
    ("names", "bids", "closed"),
    [
        (("Ann", "Bob", "Cid", "Dan"), "hidden", ("Dan",)),
        (("Ann", "Bob", "Cid", "Dan", "Eve"), "secret", ()),
        (("Ann", "Bob", "Cid", "Dan", "Eve", "Fay"), "open", ("Bob",)),
    ],
)
async def test_whole_games_for_more_players_each_bid_mode(
    dc: Bot, names: tuple[str, ...], bids: str, closed: tuple[str, ...]
) -> None:
    players = people(dc, *names, closed=closed)
    await seat(dc, players, bids=bids)
    assert f"{bids} bids" in dc.lobby().content
    await dc.command(players[-1], "start")
    moves = await play_on(dc)
    assert moves >= len(players) * (1 + 2 + 3 + 4 + 5)
    assert len([text for text in dc.channel_texts() if OVER in text]) == 1
    # Nothing private reaches the channel: a hand is only ever shown to its owner.
    for line in dc.fake.transcripts[dc.channel]:
        assert "Your hand:" not in line.text
        for reply in line.replies:
            if "Your hand:" in reply:
                assert "(only " in reply.splitlines()[0]
    for user in players:
        private = [t for t in dc.fake.texts(user.id) if not t.startswith(user.name)]
        if user.name in closed:  # no DM got through; the channel told them where to look
            assert private == []
            assert any(f"<@{user.id}>" in m.content for m in dc.fake.shown(dc.channel))
        else:
            assert any("Your hand:" in text for text in private)
    assert [e for e in dc.fake.errors if e[1] != 50007] == []
    assert dc.fake.late == []
    assert refusals(dc) == []  # every press of the game was accepted


async def coach_turn(bot: Bot, rounds_over: int) -> int:
    """The reviews of a round that ended, posted (`service_helpers.reviews_posted`), whichever
    worker works them out."""
    services = [worker.service for worker in bot.workers()]
    return await reviews_posted(
        bot.channel_texts(), rounds_over, services, bot.front.timer_interval, bot.idle
    )


def check_hands_last(bot: Bot, people: Iterable[Person]) -> None:
    """Each person's hand that asks for a press is the newest message of their DM, or, their
    DMs closed, of what the channel shows them alone (`reading.check_buttons_last`), and the
    only one there with buttons (`reading.check_one_with_buttons`). A link button (the web
    table's) asks the bot nothing: it is not counted."""
    for user in people:
        if user.id in bot.fake.closed_dms:
            mine = [m for m in bot.fake.shown(bot.channel, user) if m.only == user.id]
        else:
            mine = bot.fake.shown(user.id)
        shown = [(m.content, m.pressed()) for m in mine]
        reading.check_buttons_last(user.name, shown)
        reading.check_one_with_buttons(user.name, shown)


async def test_a_coach_game_reads_well(dc: Bot, request: pytest.FixtureRequest) -> None:
    """A whole game at a coach table: Ann asks for a hint at a bid and at a card (the Hint
    button of her turn message), every person gets each round's review in their DM, and
    /review sends Ann her costliest decisions; the channel sees none of it. A hint or a
    review never comes below the hand it would push up: the hand is posted again under it.
    A round's reviews come after what its last move posts (`reviews_held`): so the transcript
    reads the same every run."""
    ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players, coach="on")
    await dc.command(cid, "addbot")
    assert "coach" in dc.lobby().content
    await dc.command(ann, "start")
    asked: set[str] = set()
    over = 0
    for _ in range(400):
        if any(OVER in text for text in dc.channel_texts()):
            break
        hand = dc.hand(ann)
        if hand is not None and "Round 2 " in hand.content and hand.custom_ids():
            kind = "bid" if "Your bid?" in hand.content else "card"
            if kind not in asked and any("💡 Hint" in row for row in hand.labels()):
                asked.add(kind)
                await dc.press_label(ann.id, ann, hand, "💡 Hint")
                assert any("bot: 💡 Hint for" in text for text in dc.fake.texts(ann.id)[-3:])
                check_hands_last(dc, players)
                continue
        with reviews_held([worker.service for worker in dc.workers()]):  # one order: its posts
            assert await move(dc)
        over = await coach_turn(dc, over)
        check_hands_last(dc, players)
    else:
        raise AssertionError("the game did not end")
    assert asked == {"bid", "card"}
    await coach_turn(dc, over)
    check_hands_last(dc, players)  # the result with Play again under the last reviews
    await dc.command(ann, "review")
    assert dc.last_reply().endswith("Your review is being worked out: it comes to you privately.")
    await coach_turn(dc, -1)
    check_hands_last(dc, players)  # her result with Play again under it too
    shown = dc.fake.shown(ann.id)
    assert shown[-2].content.startswith("💬 \u2068#wizards\u2069 · 📝 Your last game")
    assert not any("💡" in text or "📝" in text for text in dc.channel_texts())
    assert any("📝" in text for user in players for text in dc.fake.texts(user.id))
    assert dc.fake.errors == []
    shown = [f"=== the channel\n{dc.fake.format_transcript(dc.channel)}"]
    shown += [f"=== {user.name}\n{dc.fake.format_transcript(user.id)}" for user in players]
    compare_golden(request, "coach.txt", "\n\n".join(shown))


def unchanged_edits(bot: Bot, view: int) -> list[str]:
    """The edits in a view's transcript that show what their message showed already (a REST
    call for nothing)."""
    shown: dict[str, str] = {}
    found = []
    for line in bot.fake.transcripts[view]:
        for text in (line.text, *line.replies):
            name, _, rest = text.partition(" ")
            if not name.startswith("#"):
                continue
            kind, _, body = rest.partition(": ")
            if kind.endswith("edited") and shown.get(name) == body:
                found.append(text)
            shown[name] = body
    return found


async def test_a_game_with_foresight_wings_and_closed_dms_reads_well(
    dc: Bot, request: pytest.FixtureRequest
) -> None:
    """A whole 5-round game with foresight (round 1: each sees the others' cards, not their
    own) and wings (each person marks their hand's last card once a round while not on turn;
    Bob clears his mark once), an AI seat, and Cid, whose DMs are closed, playing from his
    ephemeral hands in the channel: what the channel and every DM show, compared with
    tests/golden/discord/foresight_wings.txt. A mark shows in its owner's hand alone: the
    channel is never edited for one. The hand that asks for a press is the newest message of
    a DM, under a notice that a mark could not be played too, and of what the channel shows
    Cid alone (`check_hands_last`)."""
    ann, bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, players, foresight="on", wings="on")
    await dc.command(cid, "addbot")
    await dc.command(ann, "start")
    marked: set[tuple[str, str]] = set()
    cleared = False
    for _ in range(600):
        if any(OVER in text for text in dc.channel_texts()):
            break
        for user in players:
            hand = dc.hand(user)
            if hand is None or moves_of(hand):
                continue
            marks = [custom_id for custom_id in hand.custom_ids() if is_mark(custom_id)]
            heading = hand.content.partition(" · ")[0]
            if not marks or (user.name, heading) in marked:
                continue
            marked.add((user.name, heading))
            view = dc.channel if user is cid else user.id
            public = [looks(m) for m in dc.fake.shown(dc.channel) if m.only is None]
            await dc.press(view, user, hand, marks[-1])
            assert "🪽 Marked to play by itself" in hand.content  # (edited in place)
            if user is bob and heading == "Round 3 of 5":
                await dc.press_label(view, user, hand, "Clear the mark")
                assert "🪽 Mark a card to have it played by itself" in hand.content
                cleared = True
            assert [looks(m) for m in dc.fake.shown(dc.channel) if m.only is None] == public
            break
        else:
            assert await move(dc)
        check_hands_last(dc, players)  # in the DMs, and what the channel shows Cid alone
    else:
        raise AssertionError("the game did not end")
    assert len(marked) >= 10
    assert cleared
    # Round 1: each sees the others' cards, not their own, and plays it unseen.
    for user in (ann, bob):
        first = dc.fake.texts(user.id)[0]
        assert "Foresight: you cannot see your card. The others hold:" in first
        assert user.name not in first.partition("The others hold:")[2]
    ephemeral = [r for line in dc.fake.transcripts[dc.channel] for r in line.replies]
    assert any("(only Cid sees)" in r and "[Play your unseen card]" in r for r in ephemeral)
    # A mark that could not be played is said to its owner alone: in Ann's DM, and to Cid in
    # the channel as an ephemeral message (a followup of his last press there).
    dropped = "could not be played: choose a card."
    assert any(dropped in text for text in dc.fake.texts(ann.id))
    assert any("(only Cid sees) bot: 🪽" in r and dropped in r for r in ephemeral)
    assert not any(dropped in line.text for line in dc.fake.transcripts[dc.channel])
    # Cid's comes with his hand as it is now under it, with its buttons, and he plays from it:
    # not from the round's "Your hand" notice further up, which pings only once a round.
    told = next(r for r in ephemeral if "(only Cid sees) bot: 🪽" in r and dropped in r)
    assert "Your turn: play a card." in told
    assert re.search(r"\n\s*\[", told), told  # its buttons
    name = re.findall(r"#e\d+", told)[0]
    pressed = [line.text for line in dc.fake.transcripts[dc.channel] if line.action]
    assert any(text.startswith("Cid presses") and text.endswith(f"on {name}") for text in pressed)
    # Nothing private in the channel: no hand, no mark, no unseen card's owner told it.
    for message in dc.fake.shown(dc.channel):
        if message.only is None:
            assert "Your hand" not in message.content or f"<@{cid.id}>" in message.content
            assert "🪽 Mark" not in message.content
            assert "Foresight:" not in message.content
    # No edit for nothing, and nothing superseded keeps a button or still asks for a move.
    for view in (dc.channel, ann.id, bob.id):
        assert unchanged_edits(dc, view) == [], view
        shown = [(m.content, m.labels()) for m in dc.fake.shown(view) if m.only is None]
        reading.check_no_stale_buttons(str(view), shown)
        reading.check_no_stale_asks(str(view), [text for text, _labels in shown])
    assert [e[1] for e in dc.fake.errors] == [50007]  # Cid's DM, tried once
    assert dc.fake.texts(cid.id) == []
    shown = [f"=== the channel\n{dc.fake.format_transcript(dc.channel)}"]
    shown += [f"=== {user.name}\n{dc.fake.format_transcript(user.id)}" for user in players]
    compare_golden(request, "foresight_wings.txt", "\n\n".join(shown))


def action_of(custom_id: str) -> Action | None:
    """What a button does (None: no button of a game's)."""
    try:
        return tokens.decode(custom_id.split(":", 2)[-1]).action
    except tokens.TokenError:
        return None


def dm_moves(bot: Bot, user: Person) -> tuple[Stored, list[str]] | None:
    """The newest message of the person's DM that offers a move, in any language (`Bot.hand`
    reads English), with its moves' custom ids (a hint's among them)."""
    for message in reversed(bot.fake.shown(user.id)):
        if found := moves_of(message):
            return message, found
    return None


ENGLISH = re.compile(r"\b(?:Round|Your|tricks?|bids?|Trump|points?|Waiting|turn)\b")
"""English words of the texts a game shows, which no Spanish, Portuguese or Italian text has."""


CHANGE_BID = "The bids add up to the number of tricks: {name} (dealer) must change their bid."


ROMANCE = (("Sofía", "es-ES"), ("João", "pt-BR"), ("Giulia", "it"))
LANGUAGE_GAMES = {
    "romance_it": ("it", ROMANCE, {"foresight": "on", "coach": "on"}),
    "romance_pt": ("pt", ROMANCE, {"foresight": "on", "coach": "on"}),
    "european": ("pl", (("Amélie", "fr"), ("Zosia", "pl"), ("Daan", "nl")), {"wings": "on"}),
}
"""Whole games in a channel whose players' clients are in other languages, by golden name: the
channel's language, its people (name, Discord locale), and the options played beside hidden
bids with notequal."""
ENGLISH_BUT_POINTS = re.compile(r"\b(?:Round|Your|tricks?|bids?|Trump|Waiting|turn)\b")
"""`ENGLISH` but for "points", a French word too."""


@pytest.mark.parametrize("name", list(LANGUAGE_GAMES))
async def test_a_game_reads_in_each_players_language(
    dc: Bot, request: pytest.FixtureRequest, name: str
) -> None:
    """A whole 5-round game (hidden bids with notequal, so a dealer is told to change a bid; an
    AI seat; foresight and a coach table, or wings) in an Italian, Portuguese or Polish channel,
    its players' clients in Spanish, Portuguese and Italian, or French, Polish and Dutch. At a
    coach table the first asks for a hint at a bid and at a card in round 2, each gets every
    round's review in their DM, and the first asks for /review at the end; /scores in the
    channel, /help and /stats in each DM. Each DM reads in its player's language and the
    channel in its own, with no English word left (`ENGLISH`). Compared with
    tests/golden/discord/<name>.txt."""
    language, who, options = LANGUAGE_GAMES[name]
    players = [dc.fake.add_user(person, locale=locale) for person, locale in who]
    dc.people = players
    first = players[0]
    await dc.command(first, "language", code=language)
    await seat(dc, players, bids="hidden", notequal="on", **options)
    await dc.command(players[1], "addbot")
    await dc.command(first, "start")
    coach = "coach" in options
    count = itertools.count()
    asked: set[Action] = set()
    over = 0
    services = [worker.service for worker in dc.workers()]
    for _ in range(300):
        snap = await dc.front.service.store.load(chat_key(dc.channel))
        assert snap.table is not None
        if snap.table.game.phase is Phase.FINISHED:
            break
        user, (hand, found) = next(
            (u, seen) for u in players if (seen := dm_moves(dc, u)) is not None
        )
        actions = [action_of(custom_id) for custom_id in found]
        hints = [c for c, action in zip(found, actions, strict=True) if action is Action.HINT]
        kind = Action.BID if Action.BID in actions else Action.PLAY
        now = snap.table.game.round
        if user is first and hints and kind not in asked and now and now.number == 2:
            asked.add(kind)
            await dc.press(user.id, user, hand, hints[0])
            continue
        found = [c for c in found if c not in hints]
        with reviews_held(services):  # one order: its posts, then the reviews
            await dc.press(user.id, user, hand, found[next(count) % len(found)])
        if coach:
            ends = round_ends(language, dc.channel_texts())
            over = await reviews_posted(ends, over, services, dc.front.timer_interval, dc.idle)
    else:
        raise AssertionError("the game did not end")
    if coach:
        assert asked == {Action.BID, Action.PLAY}
        ends = round_ends(language, dc.channel_texts())
        await reviews_posted(ends, over, services, dc.front.timer_interval, dc.idle)
        await dc.command(first, "review")
        await reviews_posted(["is over"], -1, services, dc.front.timer_interval, dc.idle)
    await dc.command(players[1], "scores")
    for user in players:
        await dc.command(user, "help", view=user.id)
        await dc.command(user, "stats", view=user.id)
    told = texts(language)(CHANGE_BID).partition("{name}")[0]
    assert told in dc.fake.format_transcript(dc.channel)  # a dealer told to change a bid
    french = {user.id for user in players if user.locale == "fr"}
    for view in (dc.channel, *(user.id for user in players)):
        said = [text for line in dc.fake.transcripts[view] for text in (line.text, *line.replies)]
        said = [text for text in said if " presses " not in text and "bot" in text]
        english = ENGLISH_BUT_POINTS if view in french else ENGLISH
        assert not [text for text in said if english.search(text)], view
    assert dc.fake.errors == []
    shown = [f"=== the channel\n{dc.fake.format_transcript(dc.channel)}"]
    shown += [f"=== {user.name}\n{dc.fake.format_transcript(user.id)}" for user in players]
    compare_golden(request, f"{name}.txt", "\n\n".join(shown))


async def test_a_dealer_asked_to_bid_again_with_closed_dms_is_told_where(dc: Bot) -> None:
    """Hidden bids with notequal and wings, nobody's DMs open: the dealer bids first, and once the
    last bid makes the bids add up to the one trick, the dealer is asked to bid again. The
    round's notices pinged once; the dealer's ephemeral hand still shows their bid. They are
    told where to act: their hand as it is now, with its buttons, follows up their newest
    interaction, shown to them alone; nobody is pinged, and the channel says only what the
    table says. With wings, the hand they bid on still offered a mark: it is left behind
    without its buttons, so one copy of their hand alone asks."""
    players = people(dc, "Ann", "Bob", "Cid", closed=("Ann", "Bob", "Cid"))
    await seat(dc, players, bids="hidden", notequal="on", wings="on")
    await dc.command(players[0], "start")
    line = next(text for text in dc.table().content.splitlines() if "(dealer)" in text)
    deals = next(user for user in players if f" {user.name} (dealer)" in line)
    last = [user for user in players if user is not deals]
    for user in (deals, *last):
        pinged = [m for m in dc.fake.shown(dc.channel) if f"<@{user.id}>" in m.content]
        await dc.press_label(dc.channel, user, pinged[-1], "Your hand")
        hand = dc.hand(user)
        assert hand is not None
        await dc.press_label(dc.channel, user, hand, "1" if user is deals else "0")
        if user is deals:
            mentions = [m.allowed_mentions for m in dc.fake.shown(dc.channel) if m.only is None]
    why = "Your bid of 1 makes the bids add up to 1: bid 0 instead."
    assert "The bids add up to the number of tricks" in dc.table().content  # to everyone
    told = dc.hand(deals)
    assert told is not None
    assert why in told.content, told.content
    assert told.labels() == [["0"]], told.content
    assert told.only == deals.id
    check_hands_last(dc, players)  # the one copy of his hand that asks
    for user in last:  # the others, who have nothing to do, are told nothing
        hand = dc.hand(user)
        assert hand is not None
        assert why not in hand.content
    public = [m for m in dc.fake.shown(dc.channel) if m.only is None]
    assert [m.allowed_mentions for m in public] == mentions  # no new post, no ping
    assert not any("Your hand:" in m.content or "Your bid" in m.content for m in public)
    await dc.press_label(dc.channel, deals, told, "0")
    assert why.partition(":")[0] not in dc.table().content
    assert "Your bid: 0" in told.content  # (edited in place)
    assert [e[1] for e in dc.fake.errors] == [50007] * 3


@pytest.mark.parametrize("token", ["expired", "refused"])
async def test_a_dealer_asked_to_bid_again_long_after_acting_finds_it_in_the_notice(
    dc: Bot, caplog: pytest.LogCaptureFixture, token: str
) -> None:
    """As above, but the dealer's newest interaction in the channel is too old to follow up:
    its token gone from Redis (kept 14 minutes, Discord takes followups for 15), or kept but
    refused by Discord. Nothing is sent for them (and nothing else is), no error is raised, one
    line is logged; the round's notice still has its button, which shows the hand asking for
    a new bid, and the bid made there counts."""
    caplog.set_level(logging.INFO, "adapters.discord.app")
    players = people(dc, "Ann", "Bob", "Cid", closed=("Ann", "Bob", "Cid"))
    await seat(dc, players, bids="hidden", notequal="on")
    await dc.command(players[0], "start")
    line = next(text for text in dc.table().content.splitlines() if "(dealer)" in text)
    deals = next(user for user in players if f" {user.name} (dealer)" in line)
    last = [user for user in players if user is not deals]
    remembered = keys.follow_up(chat_key(dc.channel), deals.id)
    for user in (deals, *last):
        if user is last[-1]:
            webhooks = dc.fake.calls["POST /webhooks/{id}/{token}"]
            if token == "expired":
                await dc.client.delete(remembered)
            else:
                await dc.client.set(remembered, "itoken-999999999")
        pinged = [m for m in dc.fake.shown(dc.channel) if f"<@{user.id}>" in m.content]
        await dc.press_label(dc.channel, user, pinged[-1], "Your hand")
        hand = dc.hand(user)
        assert hand is not None
        await dc.press_label(dc.channel, user, hand, "1" if user is deals else "0")
    why = "Your bid of 1 makes the bids add up to 1: bid 0 instead."
    assert "The bids add up to the number of tricks" in dc.table().content  # to everyone
    stale = dc.hand(deals)
    assert stale is not None
    assert why not in stale.content  # nothing came
    tried = 0 if token == "expired" else 1  # Discord would refuse an expired token
    assert dc.fake.calls["POST /webhooks/{id}/{token}"] == webhooks + tried
    lost = "is dropped" if token == "expired" else "could not follow up"
    logged = [r for r in caplog.records if lost in r.getMessage()]
    assert len(logged) == 1
    assert logged[0].levelno == logging.INFO
    notice = [m for m in dc.fake.shown(dc.channel) if f"<@{deals.id}>" in m.content][-1]
    assert notice.labels() == [["Your hand"]]
    await dc.press_label(dc.channel, deals, notice, "Your hand")
    told = dc.hand(deals)
    assert told is not None
    assert why in told.content
    await dc.press_label(dc.channel, deals, told, "0")
    assert why.partition(":")[0] not in dc.table().content
    assert dc.fake.calls["POST /webhooks/{id}/{token}"] == webhooks + tried
    assert [e[1] for e in dc.fake.errors] == [50007] * 3 + [10015] * tried


@pytest.mark.parametrize("options", [{}, {"notequal": "on"}, {"bids": "secret"}])
async def test_a_4_player_game_reads_well_from_the_dms(dc: Bot, options: dict[str, str]) -> None:
    """A whole 4-player game played from the DMs alone, each turn message read as its player
    reads it before pressing (`reading.check_turn`); every bid made there. At the end nothing
    superseded keeps a button, and every round's end reached the channel."""
    players = people(dc, "Ann", "Bob", "Cid", "Dee")
    await seat(dc, players, **options)
    await dc.command(players[0], "start")
    bids = dict.fromkeys(p.id for p in players)
    for _ in range(400):
        if any(OVER in text for text in dc.channel_texts()):
            break
        user, hand = next((u, h) for u in players if (h := dc.hand(u)) is not None and h.components)
        custom_id = hand.custom_ids()[0]
        reading.check_turn(hand.content, hand.labels())
        payload = custom_id.split(":", 2)[2]
        if tokens.decode(payload).action is Action.BID:
            bids[user.id] = (bids[user.id] or 0) + 1
        await dc.press(user.id, user, hand, custom_id)
    else:
        raise AssertionError("the game did not end")
    assert all(count == 5 for count in bids.values()), bids  # a bid a round, from the DM
    reading.check_round_ends(dc.channel_texts(), rounds=5)
    for view in (dc.channel, *(p.id for p in players)):
        shown = [(m.content, m.labels()) for m in dc.fake.shown(view)]
        reading.check_no_stale_buttons(str(view), shown)
        reading.check_no_stale_asks(str(view), [text for text, _labels in shown])
    assert dc.fake.errors == []


async def test_a_closed_dm_is_tried_once_then_the_channel_is_used(
    dc: Bot, request: pytest.FixtureRequest
) -> None:
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "start")
    await play_on(dc)
    refused = [e for e in dc.fake.errors if e[1] == 50007]
    assert len(refused) == 1  # remembered: not tried again for every hand
    # The notices ping Cid alone; nothing else pings anybody.
    for message in dc.fake.shown(dc.channel):
        mentions = message.allowed_mentions or {}
        assert mentions.get("parse") == [], message.content
        pinged = [str(user) for user in mentions.get("users", [])]
        assert pinged == ([str(cid.id)] if f"<@{cid.id}>" in message.content else [])
    # One notice a round (one ping each, never deleted and posted again); only the newest keeps
    # its button while the game goes on, and only the first explained. The game's end adds no
    # notice and takes the last one's button off: there is no hand to show any more.
    notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
    assert len(notices) == 5
    assert "your DMs are closed" in notices[0].content
    assert all(m.content == f"<@{cid.id}>: your cards: press “Your hand”." for m in notices[1:])
    assert [bool(m.components) for m in notices] == [False] * 5
    assert not any("deleted" in line for line in dc.fake.format_transcript(dc.channel).split("\n"))
    # /hand shows one's hand ephemerally, whatever the DMs
    await dc.command(cid, "hand")
    assert "(only Cid sees)" in dc.last_reply()
    assert "No round is being played" in dc.last_reply()
    compare_golden(request, "closed_dms.txt", dc.fake.format_transcript(dc.channel))


async def test_a_closed_dm_gets_its_notices_in_the_next_game_too(dc: Bot) -> None:
    """The channel's next game tells Cid again where his cards are, one notice a round: the
    last game's notices (whose slots every game's rounds share) stand for nothing now, and
    are not edited again (their buttons came off in their own game)."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "start")
    await play_on(dc)
    mine = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
    assert len(mine) == 5
    assert [bool(m.components) for m in mine] == [False] * 5
    since = len(dc.fake.transcripts[dc.channel])
    over = [m for m in dc.fake.shown(dc.channel) if OVER in m.content][-1]
    await dc.press_label(dc.channel, bob, over, "Play again")
    for user in (ann, cid):
        await dc.command(user, "join")
    await dc.command(bob, "start")
    await dc.idle()
    notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content][5:]
    assert len(notices) == 1
    assert "your DMs are closed" in notices[0].content  # the first of a game says why
    await dc.press_label(dc.channel, cid, notices[0], "Your hand")
    assert "Round 1 of 5" in dc.last_reply()
    while not any("Round 3 of 5" in m.content for m in dc.fake.shown(dc.channel) if m.id > over.id):
        assert await move(dc, after=over.id)
    await dc.idle()
    notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content][5:]
    assert [bool(m.components) for m in notices] == [False, True]
    edited = {f"#{m.number} edited" for m in mine}
    lines = [line.text for line in dc.fake.transcripts[dc.channel][since:]]
    assert [text for text in lines if text.split(":")[0] in edited] == []


class Clock:
    """A clock the test moves on by hand (the sender's, for how long a closed DM is kept)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def until_round(dc: Bot, number: int, after: int = 0) -> None:
    """Moves until the channel shows round `number`'s table."""
    while not any(f"Round {number} of" in m.content for m in dc.fake.shown(dc.channel)[after:]):
        assert await move(dc)
    await dc.idle()


def played_out(hand: Stored | None, number: int) -> bool:
    """Whether the hand is of a round after `number`, or shows no cards left in it."""
    if hand is None or f"Round {number - 1} of" in hand.content:
        return False
    return f"Round {number} of" not in hand.content or "Your hand:" not in hand.content


async def test_a_player_who_opens_their_dms_gets_the_next_rounds_hand_there(dc: Bot) -> None:
    """Cid's DMs are closed: his cards are in the channel. A new round's hand tries his DMs
    again (a minute or more after they refused one): refused while they stay closed, with the
    round's notice as before; once he opens them, the next round's hand goes there, the last
    notice loses its button and no other follows. One refused call a round, not one a hand."""
    clock = Clock()
    dc.front.sender.clock = clock
    ann, bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "start")
    clock.now += 61
    await until_round(dc, 2)
    refused = [e for e in dc.fake.errors if e[1] == 50007]
    assert len(refused) == 2  # round 1's first hand, and round 2's: still closed
    assert not any("Round " in text for text in dc.fake.texts(cid.id))
    while not played_out(dc.hand(cid), 2):  # he plays his round 2 in the channel
        assert await move(dc)
    dc.fake.closed_dms.discard(cid.id)  # then opens his DMs
    clock.now += 61
    await until_round(dc, 3)
    assert any("Round 3 of 5" in text for text in dc.fake.texts(cid.id))
    await play_on(dc)
    assert [e for e in dc.fake.errors if e[1] == 50007] == refused
    notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
    assert len(notices) == 2  # rounds 1 and 2; none since
    assert any("Round 5 of 5" in text for text in dc.fake.texts(cid.id))
    for view in (dc.channel, *(p.id for p in players)):
        shown = [(m.content, m.labels()) for m in dc.fake.shown(view)]
        reading.check_no_stale_buttons(str(view), shown)
    assert [e for e in dc.fake.errors if e[1] != 50007] == []


async def test_a_player_who_opened_their_dms_gets_the_next_games_hands_there(dc: Bot) -> None:
    """Cid opens his DMs after a game played from the channel: the channel's next game, a
    minute later, deals his first hand to his DMs, and the channel gets no notice for him."""
    clock = Clock()
    dc.front.sender.clock = clock
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "start")
    await play_on(dc)
    dc.fake.closed_dms.discard(cid.id)
    clock.now += 61
    over = [m for m in dc.fake.shown(dc.channel) if OVER in m.content][-1]
    await dc.press_label(dc.channel, bob, over, "Play again")
    for user in (ann, cid):
        await dc.command(user, "join")
    await dc.command(bob, "start")
    await dc.idle()
    assert any("Round 1 of 5" in text for text in dc.fake.texts(cid.id))
    notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
    assert len(notices) == 5  # the first game's
    assert [e[1] for e in dc.fake.errors] == [50007]


async def test_a_worker_that_never_saw_the_dms_closed_takes_the_notices_button_off(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker A finds Cid's DMs closed and posts his notices; Cid opens his DMs, and worker B,
    started since (it never saw them closed), deals the next round: its hand goes to his DMs,
    and the newest notice loses its button, known from the slot map (B's memory knows of no
    notice). From then on his hands cost B what they cost when his DMs were always open (the
    same game played again so): the same Discord calls and the same slot-map calls to Redis."""
    opened = await a_worker_started_mid_game(redis_url, monkeypatch, closed=True)
    always = await a_worker_started_mid_game(redis_url, monkeypatch, closed=False)
    assert opened == always


@contextlib.asynccontextmanager
async def afresh(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Bot]:
    """A worker on an emptied Redis, its game ids g1, g2, ... (two of these in one test
    compare what the same games cost)."""
    counter = itertools.count(1)
    monkeypatch.setattr("bot.chat.new_game_id", lambda: f"g{next(counter)}")
    flush = aioredis.Redis.from_url(redis_url)
    await flush.flushall()
    await flush.aclose()
    async with running(redis_url, monkeypatch) as dc:
        yield dc


@contextlib.asynccontextmanager
async def worker_b(dc: Bot, redis_url: str, players: list[Person]) -> AsyncIterator[CountedRedis]:
    """Worker B, started now beside `dc`'s worker, whose slot map counts its calls to Redis
    (the `CountedRedis` yielded): the players' interactions go to it from now on."""
    other = _front(dc.fake, dc.client)
    counted = CountedRedis.from_url(redis_url)
    counted.calls = Counter()
    other.slots = other.sender.slots = Slots(counted)
    await other.start(connect=False)
    try:
        for person in players:
            dc.worker_of[person.id] = other
        yield counted
    finally:
        await other.stop()
        await counted.aclose()


async def a_worker_started_mid_game(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, *, closed: bool
) -> tuple[Counter[str], Counter[str]]:
    """A game whose rounds 1 and 2 worker A serves (Cid's DMs `closed` or open), then worker B,
    started then: what round 3 and the deal of round 4 cost B in Discord calls and slot-map
    calls to Redis."""
    async with afresh(redis_url, monkeypatch) as dc:
        ann, bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",) if closed else ())
        await seat(dc, [ann, bob, cid])
        await dc.command(ann, "start")
        while not played_out(dc.hand(cid), 2):  # round 2 on worker A, Cid's last card too
            assert await move(dc)
        await dc.idle()
        assert "Round 2 of 5" in dc.table().content
        if closed:
            assert [e[1] for e in dc.fake.errors] == [50007]  # A's: not tried again
            assert not any("Round " in text for text in dc.fake.texts(cid.id))
            notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
            assert [bool(m.components) for m in notices] == [False, True]
            dc.fake.closed_dms.discard(cid.id)  # Cid opens his DMs
        async with worker_b(dc, redis_url, players) as counted:
            await until_round(dc, 3)
            assert any("Round 3 of 5" in text for text in dc.fake.texts(cid.id))
            notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
            assert [bool(m.components) for m in notices] == ([False, False] if closed else [])
            calls, slot_calls = Counter(dc.fake.calls), Counter(counted.calls)
            await until_round(dc, 4)  # a further round, and its hand in Cid's DMs
            assert any("Round 4 of 5" in text for text in dc.fake.texts(cid.id))
        assert [e[1] for e in dc.fake.errors] == ([50007] if closed else [])
        return dc.fake.calls - calls, counted.calls - slot_calls


async def test_a_game_that_ended_with_the_dms_closed_leaves_no_mark_behind(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cid's DMs are closed for a whole game, served by worker A: its end takes the refusal's
    mark out of the slot map (his notices lost their buttons with it: nothing is left for the
    mark to tidy). He opens his DMs, and the next game in the channel, served by worker B,
    costs B the same slot-map calls to Redis as when his DMs were always open (B does not go
    looking for a notice to take a button off: 20 calls before), and the same Discord calls
    but one: his DM result of the first game, which only then was there, loses "Play
    again"."""
    opened = await the_next_game(redis_url, monkeypatch, closed=True)
    always = await the_next_game(redis_url, monkeypatch, closed=False)
    assert opened[1] == always[1]
    strip = Counter({"PATCH /channels/{id}/messages/{id}": 1})  # Play again off his DM result
    assert opened[0] + strip == always[0]


async def test_a_game_ended_by_a_worker_that_forgot_the_dm_channel_leaves_no_mark(
    dc: Bot,
) -> None:
    """Cid's DMs are closed; the worker that ends the game still remembers that, but no longer
    his DM channel (it keeps at most 100,000 of them, and forgets them all at once past that,
    apart from the people it found closed): the end still takes the refusal's mark out of the
    slot map, asking Discord for the DM channel (before, the mark stayed)."""
    ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, players)
    await dc.command(ann, "start")
    dm = keys.discord(chat_key(dc.fake.dm_of[cid.id]))
    assert any(field.endswith(b"#closed") for field in await dc.client.hkeys(dm))
    dc.front.sender._dms.clear()
    await play_on(dc)
    await dc.idle()
    assert not any(field.endswith(b"#closed") for field in await dc.client.hkeys(dm))
    assert [e[1] for e in dc.fake.errors] == [50007]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("closed", ["Ann", "Bob", "Cid"])
async def test_a_player_whose_dms_are_closed_gets_their_result_at_the_game_s_end(
    dc: Bot, closed: str, workers: int
) -> None:
    """A player whose DMs are closed gets their own result (place, points, bids met, rating)
    once, shown to them alone in the channel, whoever made the game's last move: the one who
    did, as its answer; the others, as a followup of their newest interaction there. Before,
    the others got nothing: the count of their bids met was nowhere to read as text. After
    every move, what they are shown alone offers buttons on its newest message at most
    (`play_on`), with one worker, or two (their interactions reaching the second)."""
    players = people(dc, "Ann", "Bob", "Cid", closed=(closed,))
    dc.people = list(players)
    shut = players[("Ann", "Bob", "Cid").index(closed)]
    await seat(dc, list(players))
    async with contextlib.AsyncExitStack() as stack:
        if workers == 2:
            other = _front(dc.fake, dc.client)
            await other.start(connect=False)
            stack.push_async_callback(other.stop)
            dc.worker_of[shut.id] = other
        await dc.command(players[0], "start")
        await play_on(dc)
        await dc.idle()
        check_hands_last(dc, [shut])
    results = [m for m in dc.fake.shown(dc.channel, shut) if "Your place" in m.content]
    assert [m.only for m in results] == [shut.id]
    assert "bids met" in results[0].content
    for user in players:
        if user is not shut:
            assert not any("Your place" in m.content for m in dc.fake.shown(dc.channel, user))


async def the_next_game(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, *, closed: bool
) -> tuple[Counter[str], Counter[str]]:
    """A game worker A serves (Cid's DMs `closed` or open), to its end; then worker B, started
    then, serves the next game in the channel: what its first round costs B in Discord calls
    and slot-map calls to Redis."""
    async with afresh(redis_url, monkeypatch) as dc:
        shut = ("Cid",) if closed else ()
        ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=shut)
        await seat(dc, players)
        await dc.command(ann, "start")
        await play_on(dc)
        await dc.idle()
        dm = keys.discord(chat_key(dc.fake.dm_of[cid.id]))
        assert not any(field.endswith(b"#closed") for field in await dc.client.hkeys(dm))
        if closed:
            assert [e[1] for e in dc.fake.errors] == [50007]
            notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
            assert notices
            assert not any(m.components for m in notices)
            dc.fake.closed_dms.discard(cid.id)  # Cid opens his DMs
        async with worker_b(dc, redis_url, players) as counted:
            for person in players:
                await dc.command(person, "join")
            await dc.command(ann, "options", setting="rounds=short")
            calls, slot_calls = Counter(dc.fake.calls), Counter(counted.calls)
            await dc.command(ann, "start")
            after = max(m.id for m in dc.fake.shown(dc.channel))
            while not played_out(dc.hand(cid), 1):
                assert await move(dc, after)
            await dc.idle()
            assert any("Round 1 of 5" in text for text in dc.fake.texts(cid.id)[-3:])
        assert [e[1] for e in dc.fake.errors] == ([50007] if closed else [])
        return dc.fake.calls - calls, counted.calls - slot_calls


async def test_a_notice_posted_after_the_hand_reached_the_dms_loses_its_button(
    dc: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cid's DMs are closed. Worker A serves round 2 to Cid's turn, and its notice for him
    waits in A's queue for the channel (Discord is slow to take it); meanwhile Cid opens his
    DMs, and worker B, which takes the next presses, sends his round 2 hand there: B finds no
    round 2 notice to take a button off yet. When A's notice is posted at last, its button
    comes off: the hand it stands for is in his DMs. (Before, it kept it, stale.)"""
    ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, players)
    await dc.command(ann, "start")
    chat = chat_key(dc.channel)
    first, second = dc.front, _front(dc.fake, dc.client)
    await second.start(connect=False)
    gate, held = asyncio.Event(), asyncio.Event()
    deliver = first.outbox._deliver

    async def slow(item: Any) -> Any:
        if item.user is None and (item.slot or "").endswith(":r2") and not item.bare:
            held.set()
            await gate.wait()
        return await deliver(item)

    async def quiet() -> None:  # as `Bot.idle`, but for A's queue for the channel once held
        for _ in range(5000):
            await asyncio.sleep(0.002)
            if first.busy or second.busy:
                continue
            for worker in (first, second):
                await aside(worker)  # queued only: none waits for the held post
            await second.outbox.flush()
            waiting = [
                queue.task
                for target, queue in first.outbox._queues.items()
                if queue.task is not None and not queue.task.done()
                if not (held.is_set() and target == f"c{dc.channel}")
            ]
            if waiting:
                await asyncio.wait(waiting, timeout=0.05)
            elif not dc.fake.busy():
                return
        raise AssertionError("the bot did not go quiet")

    monkeypatch.setattr(first.outbox, "_deliver", slow)
    idle = dc.idle
    monkeypatch.setattr(dc, "idle", quiet)
    try:
        while not held.is_set():  # round 1's last card, and round 2 on A to Cid's turn
            assert await move(dc)
        dc.fake.closed_dms.discard(cid.id)  # Cid opens his DMs
        for person in players:  # their presses go to worker B from now on
            dc.worker_of[person.id] = second
        while not any("Round 2 of 5" in text for text in dc.fake.texts(cid.id)):
            table = await second.service.table(chat)
            assert table is not None
            assert table.game.round is not None
            if table.game.players[table.game.round.turn].id == user_key(cid.id):
                await dc.press(dc.channel, cid, dc.table(), dc.table().custom_ids()[0])
            else:
                assert await move(dc)
        gate.set()
        monkeypatch.setattr(dc, "idle", idle)
        await dc.idle()
    finally:
        gate.set()
        await second.stop()
    notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
    assert len(notices) == 2  # rounds 1 and 2
    assert [m.labels() for m in notices] == [[], []]


async def test_a_closed_dm_notice_ends_with_the_game_whoever_ends_it(
    redis_url: str, game_ids: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player whose DMs are closed does not make the last move: the game's end adds no
    notice (it would ping them to press for a hand there is no more)."""
    async with running(redis_url, monkeypatch) as dc:
        ann, bob, cid = people(dc, "Ann", "Bob", "Cid", closed=("Ann",))
        await seat(dc, [ann, bob, cid])
        await dc.command(ann, "start")
        while not any("Round 5 of 5" in text for text in dc.channel_texts()):
            await move(dc)
        await dc.idle()
        dc.front.notices.clear()  # as a worker started since knows them: from the slots alone
        await play_on(dc)
        notices = [m for m in dc.fake.shown(dc.channel) if f"<@{ann.id}>" in m.content]
        assert len(notices) == 5
        assert [bool(m.components) for m in notices] == [False] * 5


async def test_a_press_on_an_ephemeral_hand_that_changes_nothing_shows_it_as_it_is_now(
    dc: Bot,
) -> None:
    """Cid's DMs are closed: he marks a card on an ephemeral hand, and his turn comes (the card
    is played by itself, or the mark dropped). A hand shown to him anew leaves that one without
    its buttons, but not where it could not be reached (its interaction no longer kept, as 14
    minutes on: here its mark forgotten): that hand still says the card is marked and offers
    "Clear the mark"; a press on it clears nothing, and is answered with the hand as it is now,
    in place, instead of leaving it as it was (nothing else could ever update it). The hand
    "Your hand" then shows him leaves that one behind, without its buttons."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, [ann, bob, cid], wings="on")
    await dc.command(ann, "start")
    marked: Stored | None = None
    for _ in range(200):
        hand = dc.hand(cid)
        if marked is None and hand is not None and "Round 2 " in hand.content:
            marks = [custom_id for custom_id in hand.custom_ids() if is_mark(custom_id)]
            if marks and not moves_of(hand):
                await dc.press(dc.channel, cid, hand, marks[-1])
                marked = hand
                await dc.client.delete(keys.follow_up_hand(chat_key(dc.channel), cid.id))
                continue
        if marked is not None and hand is not marked and "Round 3 " in dc.table().content:
            break
        assert await move(dc)
    assert marked is not None
    assert "🪽 Marked to play by itself" in marked.content  # (the fake edits it in place)
    await dc.press_label(dc.channel, cid, marked, "Clear the mark")
    pressed = marked
    assert "Marked to play by itself" not in pressed.content
    assert not any("Clear the mark" in row for row in pressed.labels())
    notice = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content][-1]
    await dc.press_label(dc.channel, cid, notice, "Your hand")
    now = dc.hand(cid)
    assert now is not None
    assert now is not pressed
    assert now.content.startswith(pressed.content)  # the hand as it is now, in both
    assert pressed.labels() == [], pressed.content  # left behind: one copy asks
    assert now.labels() != []
    assert dc.fake.errors[1:] == []


async def test_a_paused_game_keeps_its_buttons_and_abandoned_leaves_none_to_press(
    redis_url: str, game_ids: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everybody timed out: the game pauses, the table says so, and each hand says it too and
    keeps its bids and Resume. Nobody comes back: once the pause is over the game is abandoned,
    and the table, the hands and the closed-DM notice lose their buttons, as when a game is
    cancelled. The table, which has no Resume, says where it is: under each one's cards."""
    async with running(redis_url, monkeypatch, turn_timeout=2, lobby_timeout=2) as dc:
        ann, bob, cid = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
        await seat(dc, [ann, bob, cid], bids="hidden")
        await dc.command(ann, "start")
        for _ in range(150):
            if any("abandoned" in text for text in dc.channel_texts()):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the game was not abandoned")
        await dc.idle()
        paused = "⏸ Paused: nobody is playing. Make your move or press Resume to go on"
        tables = [t for t in dc.channel_texts() if t.startswith("#") and "⏸ Paused" in t]
        assert tables
        for table in tables:  # the table has no Resume: it says where the button is
            assert "[Resume]" not in table, table
            assert f"{TABLE_PAUSED};" in table, table
        for person in (ann, bob):  # each hand said so, with its bids and Resume, until the end
            said = [text for text in dc.fake.texts(person.id) if paused in text]
            assert said, person
            assert "[Resume]" in said[-1], said[-1]
            assert "[0]" in said[-1], said[-1]
        for view in (dc.channel, ann.id, bob.id):
            assert [m.content for m in dc.fake.shown(view) if m.custom_ids()] == []


async def test_a_new_table_after_a_game_is_a_new_message(dc: Bot) -> None:
    """ "Play again" opens the next table at the foot of the channel, not in the last one's
    lobby message above the whole game before."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, [ann, bob, cid])
    first = dc.lobby()
    await dc.command(ann, "start")
    await play_on(dc)
    over = [m for m in dc.fake.shown(dc.channel) if OVER in m.content][-1]
    newest = max(m.id for m in dc.fake.shown(dc.channel) if m.only is None)
    await dc.press_label(dc.channel, bob, over, "Play again")
    lobby = dc.lobby()
    assert lobby.id > newest
    assert "1. Bob" in lobby.content
    assert first.content != lobby.content  # the first lobby says its game started


async def a_play_again_table(dc: Bot) -> list[Person]:
    """Ann, Bob and Cid play a game to its end and Bob presses "Play again": the three."""
    players = people(dc, "Ann", "Bob", "Cid")
    dc.people = list(players)
    await seat(dc, list(players))
    await dc.command(players[0], "start")
    await play_on(dc)
    over = [m for m in dc.fake.shown(dc.channel) if OVER in m.content][-1]
    await dc.press_label(dc.channel, players[1], over, "Play again")
    return list(players)


async def a_next_table_cid_sits_out(dc: Bot) -> tuple[list[Person], Stored]:
    """Ann, Bob and Cid play a game; Bob's "Play again" opens the next table, where Dan and Ann
    sit down and Cid does not: Ann, Bob, Cid, Dan and Cid's own result (still with its button)."""
    ann, bob, cid, dan = people(dc, "Ann", "Bob", "Cid", "Dan")
    dc.people = [ann, bob, cid]
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "start")
    await play_on(dc)
    over = [m for m in dc.fake.shown(dc.channel) if OVER in m.content][-1]
    await dc.press_label(dc.channel, bob, over, "Play again")
    await dc.command(dan, "join")
    await dc.command(ann, "join")
    result = next(m for m in dc.fake.shown(cid.id) if "Your place" in m.content)
    assert result.labels() == [["Play again"]]
    return [ann, bob, cid, dan], result


async def test_a_player_who_sits_out_the_next_game_keeps_no_play_again_once_it_starts(
    dc: Bot,
) -> None:
    """Cid's own result in his DM keeps its "Play again" while the next table waits for
    players, and loses it when that game, which he sits out, starts."""
    (_, bob, cid, _), _ = await a_next_table_cid_sits_out(dc)
    await dc.command(bob, "start")
    result = next(m for m in dc.fake.shown(cid.id) if "Your place" in m.content)
    assert result.labels() == []
    assert dc.fake.errors == []


async def test_a_cancelled_play_again_table_takes_the_last_games_play_again_off(
    dc: Bot,
) -> None:
    """Bob presses "Play again" and cancels the new table before it starts: the channel's end
    of the game and each player's own result in their DM lose their "Play again" (a press
    would be refused: its game is over, and no table is left)."""
    players = await a_play_again_table(dc)
    for user in players:
        result = next(m for m in dc.fake.shown(user.id) if "Your place" in m.content)
        assert result.labels() == [["Play again"]]
    await dc.command(players[1], "cancel")
    await dc.idle()
    assert [m.labels() for m in dc.fake.shown(dc.channel) if m.labels()] == []
    for user in players:
        result = next(m for m in dc.fake.shown(user.id) if "Your place" in m.content)
        assert result.labels() == [], user.name
    assert dc.fake.errors == []


async def sent(bot: Bot, payload: dict[str, Any]) -> None:
    """Deliver one gateway payload and wait until it is answered, not until what it caused
    is posted (a chat may be `stall`ed)."""
    bot.front.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
    await bot.fake.wait_answered(int(payload["id"]))


async def until(done: Callable[[], bool], what: str) -> None:
    """Wait until `done()` holds (AssertionError naming `what` after about 5 s)."""
    for _ in range(500):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"not within 5 s: {what}")


async def one_card_left(bot: Bot) -> bool:
    """Whether the game's next move is its last: one card left in the last round."""
    snap = await bot.front.service.store.load(chat_key(bot.channel))
    assert snap.table is not None
    state = snap.table.game
    if state.round is None or state.round.number < len(state.plan):
        return False
    return sum(len(hand) for hand in state.round.hands) == 1


async def test_a_result_waiting_as_the_table_it_opened_is_cancelled_comes_without_its_button(
    dc: Bot,
) -> None:
    """Discord is slow to answer in a player's DM (not Ann's) as someone else plays the game's
    last card: their hand's last edit is on its way, their own result (a new message, with
    "Play again") waits. Ann presses "Play again" and cancels that table at once: the post that
    takes the last game's "Play again" off their result came for their slot while the result
    waited. The result comes all the same, without the button (before, that post took its
    place: they never saw their place and points)."""
    players = people(dc, "Ann", "Bob", "Cid")
    ann = players[0]
    await seat(dc, players)
    await dc.command(ann, "start")
    while not await one_card_left(dc):
        await move(dc)
    mover, hand = next((u, h) for u in players if (h := dc.hand(u)) and moves_of(h))
    slow = next(player for player in players if player not in (mover, ann))
    held = dc.fake.stall(slow.id)
    await sent(dc, dc.fake.press(mover.id, mover, hand, moves_of(hand)[0]))
    await until(
        lambda: (
            bool(held)
            and any("Your place" in p.text for p in dc.front.outbox.waiting(f"u{slow.id}"))
        ),
        "their result waiting behind a post on its way",
    )
    await until(lambda: any(OVER in text for text in dc.channel_texts()), "the end")
    over = [m for m in dc.fake.shown(dc.channel) if OVER in m.content][-1]
    await sent(dc, dc.fake.press(dc.channel, ann, over, over.button("Play again")))
    await sent(dc, dc.fake.command(dc.channel, ann, "cancel"))
    await until(
        lambda: any(p.bare or not p.keys for p in dc.front.outbox.waiting(f"u{slow.id}")),
        "the cancel's post that takes their button off, queued",
    )
    dc.fake.unstall(slow.id)
    await dc.idle()
    (result,) = [m for m in dc.fake.shown(slow.id) if "Your place" in m.content]
    assert result.labels() == []
    assert [m.labels() for m in dc.fake.shown(dc.channel) if m.labels()] == []
    assert dc.fake.errors == []


# --- a person seated in two channels -----------------------------------------------------------


def games_shown(bot: Bot, user: Person, since: int = 0) -> list[str]:
    """What the person's DM showed of a game (hands, hints, results) from transcript line
    `since` on, as each message read when it was sent or edited."""
    lines = bot.fake.transcripts[user.id][since:]
    texts = [line.text.partition(": ")[2] for line in lines if not line.action]
    kinds = ("Round ", "Your place", "💡 Hint")
    return [text for text in texts if any(kind in text for kind in kinds)]


async def play_through(bot: Bot, channel: int, players: list[Person], hint: Person) -> None:
    """Make moves in `channel`'s game, each its player's first button in their DM (on their
    newest hand, which is of this game), until the game there is over; `hint` asks for one
    hint first, the first time they have a choice."""
    asked = False
    for _ in range(400):
        if any(OVER in text for text in bot.fake.texts(channel)):
            return
        for user in players:
            hand = bot.hand(user)
            if hand is not None and hand.custom_ids():
                break
        else:
            raise AssertionError("nobody's turn, and the game is not over")
        if user is hint and not asked and any("💡 Hint" in row for row in hand.labels()):
            await bot.press_label(user.id, user, hand, "💡 Hint")
            asked = True
            continue
        await bot.press(user.id, user, hand, hand.custom_ids()[0])
    raise AssertionError("the game did not end")


async def test_a_person_in_two_channels_is_told_which_each_dm_is_of(dc: Bot) -> None:
    """Ann sits in two channels at once: each DM of either game (hands, a hint, her result)
    names its channel first, and only while she has a live seat in the other one; the people
    seated in one channel only see none named."""
    ann, bob, cid, dan = people(dc, "Ann", "Bob", "Cid", "Dan")
    friday = dc.fake.add_channel("friday-night\u202e" + "-and-then-some" * 10)
    named_friday = "💬 \u2068#friday-night-and-then-…\u2069 · "
    named_wizards = "💬 \u2068#wizards\u2069 · "
    await seat(dc, [ann, bob, cid])  # at the #wizards lobby
    for user in (ann, dan):
        await dc.command(user, "join", view=friday)
    await dc.command(ann, "options", view=friday, setting="rounds=short")
    await dc.command(ann, "options", view=friday, setting="coach=on")
    await dc.command(dan, "addbot", view=friday)
    await dc.command(dan, "start", view=friday)
    await play_through(dc, friday, [ann, dan], hint=ann)
    shown = games_shown(dc, ann)
    assert len(shown) > 10
    assert all(text.startswith(named_friday) for text in shown), shown
    assert any(text.startswith(named_friday + "💡 Hint for") for text in shown), shown
    assert "Your place: " in shown[-1]
    assert not any("💬" in text for text in games_shown(dc, dan))

    # Ann sits at Friday's next table; the #wizards game starts: hers name #wizards.
    over = next(m for m in dc.fake.shown(friday) if OVER in m.content)
    await dc.press_label(friday, ann, over, "Play again")
    since = {user.id: len(dc.fake.transcripts[user.id]) for user in (ann, bob, cid)}
    dc.people = [ann, bob, cid]
    await dc.command(ann, "start")
    for _ in range(6):
        assert await move(dc)
    shown = games_shown(dc, ann, since[ann.id])
    assert shown
    assert all(text.startswith(named_wizards + "Round 1 of 5") for text in shown), shown
    for user in (bob, cid):
        assert not any("💬" in text for text in games_shown(dc, user, since[user.id]))

    # Once she leaves Friday's table, her #wizards DMs name no channel.
    await dc.command(ann, "leave", view=friday)
    left = len(dc.fake.transcripts[ann.id])
    await play_on(dc)
    shown = games_shown(dc, ann, left)
    assert shown
    assert not any("💬" in text for text in shown), shown
    assert dc.fake.errors == []


# --- refusals, stale and forged presses, redelivery --------------------------------------------


async def test_wrong_person_stale_and_forged_presses_are_refused(dc: Bot) -> None:
    ann, bob, cid, dan = people(dc, "Ann", "Bob", "Cid", "Dan")
    dc.people = [ann, bob, cid]
    await seat(dc, [ann, bob, cid])
    await dc.press_label(dc.channel, ann, dc.lobby(), "Start")
    table = dc.table()
    bidder = next(u for u in (ann, bob, cid) if "Your bid?" in (dc.hand(u) or table).content)
    other = next(u for u in (ann, bob, cid) if u != bidder)
    before = dc.table().content
    calls = sum(dc.fake.calls.values())

    async def refused(view: int, user: Person, message: Stored, custom_id: str, why: str) -> None:
        await dc.press(view, user, message, custom_id)
        reply = dc.last_reply(view)
        assert f"(only {user.name} sees)" in reply, reply
        assert why in reply.lower(), reply
        assert dc.table().content == before

    await refused(dc.channel, other, table, table.custom_ids()[0], "not your turn")
    await refused(dc.channel, dan, table, table.custom_ids()[0], "not playing at this table")
    forged = f"wz:{dc.channel}:g1.1b0.b7"  # well formed, but not among the message's buttons
    await refused(dc.channel, bidder, table, forged, "not one of ours")
    await refused(dc.channel, bidder, table, "other-bot:button", "not one of ours")
    other_game = table.custom_ids()[0].replace(":g1.", ":g9.")
    table.components[0]["components"][0]["custom_id"] = other_game  # as if it were shown so
    await refused(dc.channel, bidder, table, other_game, "game that is over")
    table.components[0]["components"][0]["custom_id"] = other_game.replace(":g9.", ":g1.")
    garbage = f"wz:{dc.channel}:garbage!"
    table.components[0]["components"][0]["custom_id"] = garbage
    await refused(dc.channel, bidder, table, garbage, "not one of ours")
    table.components[0]["components"][0]["custom_id"] = other_game.replace(":g9.", ":g1.")
    # every refusal was an ephemeral answer and nothing else
    assert sum(dc.fake.calls.values()) - calls == 6
    # A double press: both sent before the first is shown; the second is out of date.
    while True:
        hands = [(u, dc.hand(u)) for u in (ann, bob, cid)]
        mine = [(u, h) for u, h in hands if h is not None and h.components]
        if mine:
            break
        await move(dc)
    user, hand = mine[0]
    first = dc.fake.press(user.id, user, hand, hand.custom_ids()[0])
    second = dc.fake.press(user.id, user, hand, hand.custom_ids()[0])
    await dc.act(first)
    await dc.act(second)
    reply = " ".join(dc.fake.interactions[int(second["id"])].line.replies)
    assert "out of date" in reply or "not your turn" in reply.lower(), reply
    # A DM press naming another channel than the hand's game: not on the message, refused.
    late = f"wz:{dc.channel + 1}:g1.1-0.pW"
    await dc.press(user.id, user, hand, late)
    assert "not one of ours" in dc.last_reply(user.id)


async def test_a_finished_games_buttons_are_refused(dc: Bot) -> None:
    ann, bob = people(dc, "Ann", "Bob")
    await dc.command(ann, "join")
    lobby = dc.lobby()
    join = lobby.button("Join")
    await dc.command(ann, "cancel")
    assert "cancelled" in dc.last_reply()
    assert lobby.components == []  # the cancelled lobby's buttons are gone
    await dc.press(dc.channel, bob, lobby, join)  # a press from a client not yet updated
    assert "not one of ours" in dc.last_reply()
    await dc.command(bob, "cancel")
    assert "no game here" in dc.last_reply()


async def test_an_ai_seat_is_taken_off_the_lobby_by_slash_command_or_button(dc: Bot) -> None:
    """Ann adds two AI seats; Bob takes the last one off with /removebot, then Merlin with the
    lobby's button, on a row of its own only while an AI seat is seated. A name that is no AI
    seat, and /removebot with none left, are told to the asker alone and change nothing."""
    ann, bob, dan = people(dc, "Ann", "Bob", "Dan")
    for user in (ann, bob):
        await dc.command(user, "join")
    assert dc.lobby().labels() == [["Join", "Leave", "Start"], ["Add AI", "Options", "Cancel"]]
    await dc.command(ann, "addbot")
    await dc.command(ann, "addbot", level="hard")
    assert dc.lobby().labels()[2:] == [["Remove 🤖 Morgana"]]
    await dc.command(bob, "removebot")
    lobby = dc.lobby()
    assert "Morgana" not in lobby.content
    assert "🤖 Merlin" in lobby.content
    assert lobby.labels()[2:] == [["Remove 🤖 Merlin"]]
    before = lobby.content
    await dc.command(bob, "removebot", name="Ann")
    assert "No AI player here is called Ann." in dc.last_reply()
    assert "(only Bob sees)" in dc.last_reply()
    await dc.press_label(dc.channel, dan, lobby, "Remove 🤖 Merlin")  # not seated
    assert "You are not playing at this table." in dc.last_reply()
    assert dc.lobby().content == before
    await dc.press_label(dc.channel, bob, lobby, "Remove 🤖 Merlin")
    lobby = dc.lobby()
    assert "🤖" not in lobby.content
    assert lobby.labels() == [["Join", "Leave", "Start"], ["Add AI", "Options", "Cancel"]]
    await dc.command(ann, "removebot")
    assert "There is no AI player to remove." in dc.last_reply()
    await dc.command(ann, "addbot")
    await dc.command(ann, "removebot", name="merlin")
    assert "🤖" not in dc.lobby().content
    assert dc.fake.errors == []


async def test_admins_may_cancel_and_others_not(dc: Bot) -> None:
    ann, bob = people(dc, "Ann", "Bob")
    boss = dc.fake.add_user("Boss", admin=True)
    await dc.command(ann, "join")
    await dc.command(bob, "cancel")
    assert "host or a chat admin" in dc.last_reply()
    await dc.command(boss, "cancel")
    assert "Boss cancelled the game" in dc.last_reply()


async def test_a_redelivered_interaction_applies_once(dc: Bot) -> None:
    ann, _bob = people(dc, "Ann", "Bob")
    await dc.command(ann, "join")
    payload = dc.fake.command(dc.channel, ann, "addbot")
    await dc.act(payload)
    dc.fake.interactions[int(payload["id"])].answered = None  # let it be answered again
    await dc.act(payload)
    assert dc.lobby().content.count("🤖") == 1


# --- restart, timers, deferral, pacing --------------------------------------------------------


async def test_a_restart_mid_game(dc: Bot) -> None:
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(players[0], "start")
    for _ in range(8):
        await move(dc)
    table = dc.table()
    before = table.content
    assert before.startswith("🔮 Round 2 of 5")
    await dc.restart()  # a new client and worker: the buttons and slots still work
    await move(dc)  # a move by a button the old worker sent
    assert dc.table().id == table.id  # the same table message, edited by the new worker
    assert dc.table().content != before
    await play_on(dc)
    tables = [m for m in dc.fake.shown(dc.channel) if m.content.startswith("🔮 Round ")]
    final = [m for m in dc.fake.shown(dc.channel) if m.content.startswith("🏁 Final table")]
    assert (len(tables), len(final)) == (4, 1)  # one per round, edited in place across the restart
    assert dc.fake.errors == []


async def dies_after(bot: Bot, user: Person, kind: Kind, arg: str = "") -> str:
    """The worker applies `user`'s request (its write, journaled) and dies before it posts
    anything of it; another starts on the same Redis. The dead worker's name."""
    dead = bot.front.service
    asker = User(user_key(user.id), user.name)
    await dead.handle(chat_key(bot.channel), asker, Request(kind, arg))
    await bot.restart()
    return dead.worker


async def taken_over(bot: Bot, dead: str) -> None:
    """Wait until another worker took the dead one's journal over (once its heartbeat is
    older than the lease) and posted what it showed again (the tick after has begun)."""
    ticks = counted_ticks(bot.front.service)
    for _ in range(1000):
        if not await bot.client.exists(keys.journal("dc", dead)):
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("nobody took the dead worker's journal over")
    taken = ticks.count
    for _ in range(1000):
        if ticks.count > taken:
            break
        await asyncio.sleep(0.01)
    await bot.idle()


def posts(bot: Bot) -> int:
    """The messages sent or edited so far, in the channel and the DMs."""
    return sum(n for route, n in bot.fake.calls.items() if "/messages" in route)


async def test_a_start_a_crash_left_unposted_closes_the_lobby_when_shown_again(dc: Bot) -> None:
    """The worker died after the start's write, before any post: the lobby kept its buttons
    (each press refused, the game having started). The worker that takes its journal over
    shows the game again, the lobby closed among it."""
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    lobby = dc.lobby()
    assert lobby.custom_ids()
    await taken_over(dc, await dies_after(dc, players[0], Kind.START))
    assert lobby.content.startswith("🔮 Wizard: the game has started.")
    assert lobby.components == []
    await play_on(dc)
    assert dc.fake.errors == []


async def test_a_cancel_a_crash_left_unposted_takes_the_buttons_off(dc: Bot) -> None:
    """The worker died after the cancel's write: with no table left, the worker that takes
    its journal over takes the buttons off the lobby, which says it was cancelled, as the
    lost post did; so for a game's cancel, off the table (an open bid's). A new table opened
    after keeps its own, even from what was read of the channel before it."""
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    lobby = dc.lobby()
    await taken_over(dc, await dies_after(dc, players[0], Kind.CANCEL))
    assert (lobby.content, lobby.components) == ("🔮 Wizard: this table was cancelled.", [])
    late = await dc.front.service.current(chat_key(dc.channel))  # shown again, but late
    await seat(dc, players)
    (opened,) = [m for m in dc.fake.shown(dc.channel) if m.custom_ids()]
    was = looks(opened)
    await dc.front.show(chat_key(dc.channel), late)
    await dc.idle()
    assert looks(opened) == was
    await dc.command(players[0], "start")
    for _ in range(2):
        await move(dc)
    await taken_over(dc, await dies_after(dc, players[0], Kind.CANCEL))
    assert [m.labels() for m in dc.fake.shown(dc.channel) if m.components] == []
    assert dc.fake.errors == []


async def test_a_cancel_a_crash_left_unposted_edits_no_message_of_an_older_game(dc: Bot) -> None:
    """After a game, a new table is opened whose lobby post never went (the worker had it
    applied, then posted nothing), and is cancelled by a worker that dies before any post: the
    channel's lobby slot still names the last game's lobby, closed at its start. The worker
    that takes the journal over leaves it as it was: the note names the cancelled game."""
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    lobby = dc.lobby()
    await dc.command(players[0], "start")
    await play_on(dc)
    started = lobby.content
    assert started.startswith("🔮 Wizard: the game has started.")
    asker = User(user_key(players[0].id), players[0].name)
    await dc.front.service.handle(chat_key(dc.channel), asker, Request(Kind.JOIN))  # posts lost
    await taken_over(dc, await dies_after(dc, players[0], Kind.CANCEL))
    assert lobby.content == started
    assert [m.labels() for m in dc.fake.shown(dc.channel) if m.components] == []
    assert dc.fake.errors == []


def dm_buttons(bot: Bot, players: list[Person]) -> dict[int, list[int]]:
    """The messages with buttons to press (not links) in each player's DM, by user id."""
    found = {user.id: [m.id for m in bot.fake.shown(user.id) if m.custom_ids()] for user in players}
    return {user: ids for user, ids in found.items() if ids}


async def test_a_game_cancel_a_crash_left_unposted_takes_the_hands_buttons_off(dc: Bot) -> None:
    """The worker died after a running game's cancel was written, before any post: the hands
    in the players' DMs kept their buttons (each press refused). The cancel noted who sat at
    the table beside the channel's version, so the worker that takes its journal over takes
    their buttons off too, each saying the game was cancelled as the lost post did (the
    channel as before: no button left)."""
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(players[0], "start")
    for _ in range(20):
        if dm_buttons(dc, players):
            break
        await move(dc)
    buttoned = dm_buttons(dc, players)
    assert buttoned
    hands = [
        m for user in players for m in dc.fake.shown(user.id) if m.id in buttoned.get(user.id, [])
    ]
    await taken_over(dc, await dies_after(dc, players[0], Kind.CANCEL))
    assert dm_buttons(dc, players) == {}
    assert [m.content for m in hands] == ["The game was cancelled."] * len(hands)
    assert [m.labels() for m in dc.fake.shown(dc.channel) if m.components] == []
    assert dc.fake.errors == []


async def test_a_game_cancel_a_crash_left_unposted_says_so_where_no_button_was_left(
    dc: Bot,
) -> None:
    """The worker died after a game's cancel was written, while cards were being played: the
    hands of the players not asked for a card and the channel's table (no open bid under it)
    had no buttons, and kept saying what they said as if the game went on. The worker that
    takes its journal over edits them too, to what the lost posts said, once: shown again
    later, nothing is edited again."""
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(players[0], "start")
    for _ in range(20):
        if not dc.table().components and 0 < len(dm_buttons(dc, players)) < len(players):
            break
        await move(dc)
    slot = hand_slot(chat_key(dc.channel))
    named = [await dc.front.slots.get(dc.fake.dm_of[user.id], slot) for user in players]
    hands = [m for user in players for m in dc.fake.shown(user.id) if m.id in named]
    assert len(hands) == len(players)
    assert [m for m in hands if not m.components]
    table = dc.table()
    assert not table.components
    await taken_over(dc, await dies_after(dc, players[0], Kind.CANCEL))
    assert [m.content for m in hands] == ["The game was cancelled."] * len(hands)
    assert table.content.endswith("Ann cancelled the game."), table.content

    def edits() -> int:
        return sum(n for route, n in dc.fake.calls.items() if route.startswith("PATCH"))

    before = edits()
    await dc.front.show(chat_key(dc.channel), await dc.front.service.current(chat_key(dc.channel)))
    await dc.idle()
    assert edits() == before
    assert dc.fake.errors == []


async def test_a_play_again_lobby_cancel_a_crash_left_unposted_takes_every_play_again_off(
    dc: Bot,
) -> None:
    """A table opened by "Play again" is cancelled and the worker dies before any post: the
    worker that takes its journal over takes "Play again" off the channel's end of the last
    game and off each of its players' own result in their DM."""
    players = await a_play_again_table(dc)
    results = [next(m for m in dc.fake.shown(u.id) if "Your place" in m.content) for u in players]
    assert all(result.labels() == [["Play again"]] for result in results)
    await taken_over(dc, await dies_after(dc, players[1], Kind.CANCEL))
    assert [m.labels() for m in dc.fake.shown(dc.channel) if m.labels()] == []
    assert [result.labels() for result in results] == [[], [], []]
    assert dc.fake.errors == []


async def test_a_play_again_start_a_crash_left_unposted_takes_the_play_again_off_who_sits_out(
    dc: Bot,
) -> None:
    """Cid plays a game and not the next, which the worker dies starting, before any post: the
    worker that takes its journal over takes "Play again" off Cid's own result in his DM."""
    (ann, bob, _, dan), result = await a_next_table_cid_sits_out(dc)
    await taken_over(dc, await dies_after(dc, bob, Kind.START))
    assert result.labels() == []
    dc.people = [ann, bob, dan]
    await play_on(dc)
    assert dc.fake.errors == []


async def test_a_start_and_a_cancel_that_were_posted_are_not_posted_again(dc: Bot) -> None:
    """Shown again where nothing is behind, nothing is posted: the lobby shows the start
    already (the moves since changed nothing of it), and once cancelled none of its messages
    has buttons left."""
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(players[0], "start")
    await move(dc)
    for command in ("cancel", None):
        made = posts(dc)
        dead = dc.front.service.worker
        await dc.restart()
        await taken_over(dc, dead)
        assert posts(dc) == made
        if command is not None:
            await dc.command(players[0], command)
    assert dc.fake.errors == []


def hand_map(bot: Bot, user: Person) -> str:
    """The slot map of the person's DM channel (where their hand messages are named)."""
    return keys.discord(chat_key(bot.fake.dm_of[user.id]))


def looks(message: Stored) -> tuple[str, list[Any]]:
    """What a message shows now (a copy: the fake edits it in place)."""
    return message.content, copy.deepcopy(message.components)


async def a_lost_turn_message(bot: Bot) -> tuple[Person, Stored, Stored]:
    """Play on until a move brings someone a new turn message in their DM, then lose its
    record the way a crash does (the worker died after Discord took the message, before Redis
    had its id): the slot map of their DM is put back as it was before the move. The player,
    the message it names again and the new one (the newest in their DM)."""
    for _ in range(100):
        before = {u.id: await bot.client.hgetall(hand_map(bot, u)) for u in bot.people}
        shown = {u.id: hand.id for u in bot.people if (hand := bot.hand(u)) is not None}
        await move(bot)
        for user in bot.people:
            hand = bot.hand(user)
            if hand is not None and hand.id != shown[user.id] and hand.custom_ids():
                await bot.client.delete(hand_map(bot, user))
                await bot.client.hset(hand_map(bot, user), mapping=before[user.id])
                return user, bot.fake.messages[shown[user.id]], hand
    raise AssertionError("nobody got a new turn message")


async def lost_record_game(bot: Bot) -> tuple[Person, Stored, Stored]:
    """A game under way in which someone's newest hand message is one the slot map lost."""
    await seat(bot, people(bot, "Ann", "Bob", "Cid"))
    await bot.command(bot.people[0], "start")
    user, older, newer = await a_lost_turn_message(bot)
    named = await bot.front.slots.get(bot.fake.dm_of[user.id], hand_slot(chat_key(bot.channel)))
    assert named == older.id
    return user, older, newer


async def test_a_press_on_a_dm_hand_whose_record_was_lost_adopts_it(dc: Bot) -> None:
    """The press is taken, and what it changes is shown in the message pressed (the newest),
    not in the one before that the slot map still named."""
    user, older, newer = await lost_record_game(dc)
    was = looks(older)
    await dc.press(user.id, user, newer, newer.custom_ids()[0])
    assert refusals(dc) == []
    assert dc.last_reply(user.id) == ""
    assert looks(older) == was  # left alone
    assert newer.content != older.content
    named = await dc.front.slots.get(dc.fake.dm_of[user.id], hand_slot(chat_key(dc.channel)))
    assert named == newer.id
    await play_on(dc)  # the newest hand message is the live one, to the end
    assert dc.fake.errors == []


async def test_a_stale_press_on_a_dm_hand_whose_record_was_lost_shows_the_hand_there(
    dc: Bot,
) -> None:
    """The player moved on the web table after the crash (applied and shown as the relay does):
    that move edited the message before, and the newest one kept buttons that no longer work.
    A press on one is refused, and that message shows the hand as it is now."""
    user, older, newer = await lost_record_game(dc)
    was = looks(older)
    chat = chat_key(dc.channel)
    payload = newer.custom_ids()[0].split(":", 2)[2]
    moved = await dc.front.service.handle(
        chat, User(user_key(user.id), user.name), Request(Kind.BUTTON, payload), "web-1"
    )
    await dc.front.show(chat, moved)
    await dc.idle()
    assert looks(older) != was  # the move was shown there, in the message the slot map names
    assert dc.hand(user) is newer  # the newest, with buttons that no longer work
    assert newer.custom_ids()
    await dc.press(user.id, user, newer, newer.custom_ids()[0])
    assert "only" in dc.last_reply(user.id)  # refused, to them alone
    assert looks(newer) == looks(older)
    named = await dc.front.slots.get(dc.fake.dm_of[user.id], hand_slot(chat))
    assert named == newer.id
    await play_on(dc)  # the newest hand message is the live one, to the end
    assert dc.fake.errors == []


async def test_a_turn_timeout_is_shown(
    redis_url: str, game_ids: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running(redis_url, monkeypatch, turn_timeout=1) as bot:
        players = people(bot, "Ann", "Bob", "Cid")
        await seat(bot, players)
        await bot.command(players[0], "start")
        for _ in range(60):
            if any("ran out of time" in m.content for m in bot.fake.shown(bot.channel)):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("no timeout was shown")
        await bot.idle()
        assert any("💤" in (bot.hand(user) or bot.table()).content for user in players)


async def test_idle_waits_for_the_ai_moves_a_timer_left_aside(
    redis_url: str, game_ids: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person's bid times out: the tick puts them on autopilot, and their stand-in's bid is
    made aside, in a task of the timer's, and shown by the timer loop (`made_aside`).
    `Bot.idle` waits until it is made and shown (`GameService.moved`, `aside_shown`), as
    Telegram's `settled` does: before, it returned while the bid was still to be made, and a
    test read the channel without it. The bid's decision is held until `idle` asks for the
    moves made aside, so it is under way whenever `idle` begins, on any machine."""
    thinking, go = threading.Event(), threading.Event()
    get_ai = bot_chat.get_ai

    class Held:
        def __init__(self, level: str) -> None:
            self.ai = get_ai(level)

        def decide(self, view: Any, rng: random.Random) -> Any:
            thinking.set()
            assert go.wait(30), "the stand-in's bid was never let go"
            return self.ai.decide(view, rng)

    async with running(redis_url, monkeypatch, turn_timeout=1) as bot:
        service = bot.front.service
        moved = service.moved

        async def asked() -> None:  # what `idle` waits for lets the bid be made
            go.set()
            await moved()

        monkeypatch.setattr(service, "moved", asked)
        players = people(bot, "Ann", "Bob", "Cid")
        await seat(bot, players)
        await bot.command(players[0], "start")
        monkeypatch.setattr(bot_chat, "get_ai", Held)
        chat = chat_key(bot.channel)
        game = keys.game(chat)
        try:
            assert await asyncio.to_thread(thinking.wait, 30)  # the stand-in decides, aside
            timed_out = int(await bot.client.hget(game, "v") or 0)  # the timeout's write
            await bot.idle()
        finally:
            go.set()
        shown = await bot.front.slots.shown(bot.channel, f"{chat}:table")
        assert shown is not None
        assert shown[1] > timed_out  # the channel's table shows the stand-in's bid


def reminders(bot: Bot) -> list[Stored]:
    """The channel's turn reminders still in it."""
    return [m for m in bot.fake.shown(bot.channel) if m.content.startswith("⏳ ")]


async def reminded(bot: Bot) -> Stored:
    """The channel's reminder of a turn, once it is shown."""
    for _ in range(100):
        if shown := reminders(bot):
            return shown[0]
        await asyncio.sleep(0.05)
    raise AssertionError("no reminder was shown")


async def test_a_turn_reminder_goes_once_the_turn_has_passed(
    redis_url: str, game_ids: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Half-way through a turn the channel is reminded, pinging the player. Once they have
    moved, or their turn timed out, the reminder is deleted: the channel keeps no call to a
    turn that passed."""
    async with running(redis_url, monkeypatch, turn_timeout=4) as bot:
        players = people(bot, "Ann", "Bob", "Cid")
        await seat(bot, players)
        await bot.command(players[0], "start")
        shown = await reminded(bot)
        assert "it is your turn" in shown.content
        assert "<@" in shown.content
        assert await move(bot)  # they move, well within their time
        await bot.idle()
        assert reminders(bot) == []
        assert f"{shown.name} deleted" in bot.channel_texts()
        await reminded(bot)  # the next player lets half their time pass, then the rest
        for _ in range(100):
            if any("ran out of time" in m.content for m in bot.fake.shown(bot.channel)):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("no timeout was shown")
        await bot.idle()
        assert reminders(bot) == []


async def test_a_turn_reminder_a_crash_left_up_goes_after_a_cancel(
    redis_url: str, game_ids: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker died right after a cancel's write, before its posts: the reminder of the
    game's last turn stayed up, and no table is left to show again. The cancel noted its
    deletion, and the worker that takes its journal over deletes it."""
    async with running(redis_url, monkeypatch, turn_timeout=6) as bot:
        players = people(bot, "Ann", "Bob", "Cid")
        await seat(bot, players)
        await bot.command(players[0], "start")
        await reminded(bot)
        await taken_over(bot, await dies_after(bot, players[0], Kind.CANCEL))
        assert bot.table().content.endswith("Ann cancelled the game.")
        assert reminders(bot) == []


async def test_a_slow_answer_is_deferred_within_three_seconds(dc: Bot) -> None:
    ann = people(dc, "Ann")[0]
    handle = dc.front.service.handle

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.3)
        return await handle(*args, **kwargs)

    dc.front.defer_after = 0.05
    dc.front.service.handle = slow  # type: ignore[method-assign]
    # /rules: a public placeholder, which the answer replaces
    await dc.command(ann, "rules")
    replies = dc.fake.transcripts[dc.channel][-1].replies
    assert replies[0] == "#1 (thinking…)"
    assert replies[1].startswith("#1 edited: ")
    assert len(replies) == 2
    # /scores without a game: a refusal, so not in public: the placeholder goes
    await dc.command(ann, "scores")
    replies = dc.fake.transcripts[dc.channel][-1].replies
    assert replies[:2] == ["#2 (thinking…)", "#2 deleted"]
    assert replies[2].startswith("#e1 (only Ann sees) bot: There is no game here")
    # /join: a private placeholder and a private answer
    await dc.command(ann, "join")
    replies = dc.fake.transcripts[dc.channel][-2].replies
    assert replies[0] == "#e2 (ephemeral) (thinking…)"
    joined = "You joined the table. Your cards will come to you privately once the game starts."
    assert replies[1:] == [f"#e2 (only Ann sees) edited: {joined}"]
    # a press: deferred silently, the message changes as usual
    await dc.press_label(dc.channel, ann, dc.lobby(), "Leave")
    assert dc.fake.interactions[max(dc.fake.interactions)].kind == 6
    assert dc.fake.late == []
    assert dc.fake.errors == []


async def test_an_error_is_logged_and_answered_politely(
    dc: Bot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    ann, bob = people(dc, "Ann", "Bob")
    await dc.command(ann, "join")
    lobby = dc.lobby()
    failing(monkeypatch, dc.front.service)
    await dc.command(ann, "scores")
    assert "Sorry, something went wrong" in dc.last_reply()
    await dc.press_label(dc.channel, bob, lobby, "Join")
    assert "Sorry, something went wrong" in dc.last_reply()
    assert "error handling a Discord" in caplog.text


async def test_an_error_is_apologised_for_in_the_persons_language(
    dc: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uwe's Discord client is German: the apology for a request that failed, which he alone
    sees, is in German, a bug's as the store's absence; Ann's (en-US) in English."""
    ann = dc.fake.add_user("Ann")
    uwe = dc.fake.add_user("Uwe", locale="de")
    await dc.command(ann, "join")
    lobby = dc.lobby()
    failure = failing(monkeypatch, dc.front.service)
    german = texts("de")
    await dc.command(uwe, "scores")
    assert dc.last_reply().endswith("bot: " + german(SORRY)), dc.last_reply()
    failure[0] = redis.exceptions.ConnectionError("Redis is away")
    await dc.press_label(dc.channel, uwe, lobby, "Join")
    assert dc.last_reply().endswith("bot: " + german(STORE_AWAY)), dc.last_reply()
    await dc.command(ann, "scores")
    assert dc.last_reply().endswith("bot: " + STORE_AWAY), dc.last_reply()


async def test_a_busy_channel_stays_within_discords_limits(
    redis_url: str, game_ids: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five posts a second per channel (Discord allows five per five seconds; faster here): the
    outbox keeps within it, and coalesces the lobby's edits to do so."""
    pace = Limits(5, 1.0, 5, 5, 1.0, 5, 0.1)
    async with running(redis_url, monkeypatch, limits=pace, rate_limits=(5, 1.0)) as bot:
        players = people(bot, "Ann", "Bob", "Cid", "Dan", "Eve", "Fay")
        for user in players:  # everybody joins at once; each is answered at once
            payload = bot.fake.command(bot.channel, user, "join")
            bot.front.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
            await bot.fake.wait_answered(int(payload["id"]))
        for setting in ("notequal", "wings", "dmmixed", "foresight", "notequal", "wings"):
            payload = bot.fake.command(bot.channel, players[0], "options", setting=setting)
            bot.front.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
            await bot.fake.wait_answered(int(payload["id"]))
        await bot.idle()
        assert bot.fake.throttled == []
        posts = bot.fake.calls["POST /channels/{id}/messages"]
        edits = bot.fake.calls["PATCH /channels/{id}/messages/{id}"]
        assert posts + edits < 12  # twelve changes of the lobby, fewer posts
        assert all(name in bot.lobby().content for name in ("Ann", "Fay"))


async def test_commands_are_synced_with_translations(dc: Bot) -> None:
    synced = {c["name"]: c for c in dc.fake.commands}
    assert set(synced) >= {"join", "leave", "start", "cancel", "addbot", "options", "hand"}
    assert set(synced) >= {"scores", "record", "rules", "help", "language"}
    join = synced["join"]
    assert join["description_localizations"]["de"].startswith("Platz nehmen")
    assert "es-ES" in join["description_localizations"]
    level = synced["addbot"]["options"][0]
    assert level["name"] == "level"
    assert level["description_localizations"]["de"].startswith("Stärke")
    (name,) = synced["removebot"]["options"]
    assert (name["name"], name["required"]) == ("name", False)
    assert name["description_localizations"]["de"].startswith("Der Name des KI-Spielers")
    # Not the names: each client offers the English ones, which the texts name
    assert [c["name"] for c in synced.values() if c["name_localizations"]] == []
    locales = {"de", "es-ES", "es-419", "fr", "it", "ko", "nl", "pl", "pt-BR", "ro", "ru"}
    assert set(join["description_localizations"]) == locales
    # the bot asks for no privileged intent
    intents = dc.front.client.intents
    assert not intents.members
    assert not intents.presences
    assert not intents.message_content


async def test_options_that_take_known_words_offer_them_as_choices(dc: Bot) -> None:
    """/addbot, /options, /language and /theme offer every value they take, so nobody need know
    the words; a value picked works as typed. /options' settings show as the lobby's toggles,
    in each reader's language. A name (/removebot, /stats) stays free text."""
    synced = {c["name"]: c for c in dc.fake.commands}

    def choices(command: str) -> dict[str, str]:
        (option,) = synced[command]["options"]
        return {c["name"]: c["value"] for c in option.get("choices", [])}

    assert choices("addbot") == {"easy": "easy", "normal": "normal", "hard": "hard"}
    assert set(choices("theme").values()) == {"colours", "races", "french"}
    assert choices("language")["de (Deutsch)"] == "de"
    assert len(choices("language")) == 12
    settings = set(choices("options").values())
    assert {"bids=hidden", "rounds=short", "notequal=on", "wings=off", "coach=on"} <= settings
    assert len(settings) == 16
    # a setting shows as the host's toggle does while it holds, in the reader's language,
    # and as typed (so that "coach" finds it in every language)
    assert choices("options")["✅ coach: hints and reviews (coach=on)"] == "coach=on"
    assert choices("options")["Rounds: short (rounds=short)"] == "rounds=short"
    (setting,) = synced["options"]["options"]
    german = {c["value"]: c["name_localizations"]["de"] for c in setting["choices"]}
    assert german["bids=hidden"] == "Ansagen: verdeckt (bids=hidden)"
    assert german["wings=on"] == "✅ Flügel (wings=on)"
    # a level and a deck show in the reader's language too, with the word they are typed as
    (level,) = synced["addbot"]["options"]
    german = {c["value"]: c["name_localizations"]["de"] for c in level["choices"]}
    assert german == {"easy": "leicht (easy)", "normal": "normal", "hard": "schwer (hard)"}
    (deck,) = synced["theme"]["options"]
    german = {c["value"]: c["name_localizations"]["de"] for c in deck["choices"]}
    assert german["races"] == "Völker (races)"
    assert choices("removebot") == {}
    assert "choices" not in synced["stats"]["options"][0]
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    for user in (ann, bob, cid):
        await dc.command(user, "join")
    for setting in sorted(settings):  # each one is taken (none is refused)
        await dc.command(ann, "options", setting=setting)
        assert dc.last_reply().endswith("bot: Done"), setting
    await dc.command(ann, "addbot", level="hard")
    assert "🤖" in dc.lobby().content


async def test_ai_levels_and_decks_are_offered_in_every_language_discord_has(dc: Bot) -> None:
    """/addbot's levels and /theme's decks are offered by their names in the language of each
    person's client, in every Discord locale that has a catalog (Latvian has none: Discord has
    no Latvian locale); the value picked is the English word, as typed. They were English in
    every language."""
    synced = {c["name"]: c for c in dc.fake.commands}
    locales = {"de", "es-ES", "es-419", "fr", "it", "ko", "nl", "pl", "pt-BR", "ro", "ru"}
    for command in ("addbot", "theme"):
        (option,) = synced[command]["options"]
        for choice in option["choices"]:
            assert set(choice["name_localizations"]) == locales, (command, choice)
    (level,) = synced["addbot"]["options"]
    russian = {c["value"]: c["name_localizations"]["ru"] for c in level["choices"]}
    assert russian == {
        "easy": "лёгкий (easy)",
        "normal": "средний (normal)",
        "hard": "сложный (hard)",
    }
    korean = {c["value"]: c["name_localizations"]["ko"] for c in level["choices"]}
    assert korean["hard"] == "어려움 (hard)"
    (deck,) = synced["theme"]["options"]
    french = {c["value"]: c["name_localizations"]["fr"] for c in deck["choices"]}
    assert french == {
        "colours": "Couleurs (colours)",
        "races": "Peuples (races)",
        "french": "Jeu classique (french)",
    }
    spanish = {c["value"]: c["name_localizations"]["es-ES"] for c in deck["choices"]}
    assert spanish["french"] == "Baraja francesa (french)"
    ann, bob = people(dc, "Ann", "Bob")
    await dc.command(ann, "join")
    await dc.command(bob, "join")
    await dc.command(ann, "addbot", level="easy")  # the value a localized choice sends
    assert "🤖" in dc.lobby().content


async def test_the_buttons_that_join_start_and_end_a_game_stand_out(dc: Bot) -> None:
    """Join is blurple, Start and Play again green, Cancel red; the rest grey (a bid, a card,
    an option, Leave); "Your hand" is green."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await dc.command(ann, "join")
    assert dc.lobby().styles() == {
        "Join": 1,
        "Leave": 2,
        "Start": 3,
        "Add AI": 2,
        "Options": 2,
        "Cancel": 4,
    }
    await seat(dc, [ann, bob, cid])  # the host's option toggles
    assert dc.lobby().styles() == {
        "Bids: open": 2,
        "Rounds: short": 2,
        "⬜ notequal": 2,
        "⬜ dmmixed": 2,
        "⬜ foresight": 2,
        "⬜ wings": 2,
        "⬜ coach: hints and reviews": 2,
        "Join": 1,
        "Leave": 2,
        "Start": 3,
    }
    await dc.press_label(dc.channel, ann, dc.lobby(), "Start")
    assert set(dc.table().styles().values()) == {2}  # the bids
    notice = next(m for m in dc.fake.shown(dc.channel) if "Your hand" in m.styles())
    assert notice.styles() == {"Your hand": 3}
    await play_on(dc)
    (over,) = [m for m in dc.fake.shown(dc.channel) if OVER in m.content]
    assert over.styles() == {"Play again": 3}


COMMAND_NAMED = re.compile(r"(?<![\w/<])/([^\W\d][-\w]*)")
"""A command named in a text (`/stats`, `/options coach`), not a link's path or a score (2/3)."""


async def test_every_command_a_text_names_is_one_its_reader_can_use(dc: Bot) -> None:
    """Uwe's Discord client is German. Every command the bot's texts name, in the channel (in
    English, then in German) and in his DM (the help, the lobby, refusals, the stats of two
    people called alike, /forgetme), is one his client offers under that very name."""
    ann, annie, bob = people(dc, "Ann", "Ann", "Bob")
    uwe = dc.fake.add_user("Uwe", locale="de")
    await dc.command(uwe, "hand")  # no game here: start one with /join
    await dc.command(uwe, "help")
    await dc.command(uwe, "help", view=uwe.id)
    await seat(dc, [ann, annie, bob])  # ready: any seated player may /start
    await dc.command(bob, "hint")  # the host sets /options coach
    await dc.command(ann, "start")
    await play_on(dc)
    await dc.command(uwe, "stats", name="ann")  # /stats Ann (1), /stats Ann (2)
    await dc.command(uwe, "stats", view=uwe.id, name="Bob")  # here, /stats shows your own
    await dc.command(uwe, "forgetme", view=uwe.id)  # to go ahead, send /forgetme yes
    await dc.command(bob, "language", code="de")
    await dc.command(uwe, "help")
    await dc.command(bob, "hint")
    texts = [
        reply
        for view in (dc.channel, uwe.id)
        for line in dc.fake.transcripts[view]
        for reply in line.replies
    ]
    named = {name for text in texts for name in COMMAND_NAMED.findall(text)}
    assert {"join", "start", "options", "stats", "forgetme", "hint", "review"} <= named
    offered = dc.fake.command_names(uwe.locale)
    assert named <= offered, sorted(named - offered)


async def test_what_one_person_alone_sees_is_in_their_clients_language(dc: Bot) -> None:
    """Uwe's Discord client is German, the channel's language English: the replies only he
    sees (his join, a refusal, a "Done", what /review says) are in German, as his DMs are;
    what the channel shows stays in English."""
    ann, bob = people(dc, "Ann", "Bob")
    uwe = dc.fake.add_user("Uwe", locale="de")
    await dc.command(uwe, "join")
    assert dc.last_reply().endswith("bot: " + GERMAN_JOIN), dc.last_reply()
    await dc.command(uwe, "hand")
    assert dc.last_reply().endswith("bot: Es wird gerade keine Runde gespielt.")
    await dc.command(uwe, "options", setting="rounds=short")
    assert dc.last_reply().endswith("bot: Fertig"), dc.last_reply()
    for user in (ann, bob):
        await dc.command(user, "join")
    assert "a new table" in dc.lobby().content
    await dc.command(uwe, "review")
    assert dc.last_reply().endswith("bot: " + GERMAN_NO_GAME), dc.last_reply()
    await dc.command(uwe, "start")
    assert dc.table().content.startswith("🔮 Round ")


async def test_the_stats_commands_answer_one_person_in_their_clients_language(dc: Bot) -> None:
    """Uwe's Discord client is German, the channel's language English: what /stats, /top and
    /forgetme tell him alone is in German; /top shown to the channel stays English."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    uwe = dc.fake.add_user("Uwe", locale="de")
    await dc.command(uwe, "top")
    assert dc.last_reply().endswith("bot: " + GERMAN_NO_GAME), dc.last_reply()
    await dc.command(uwe, "stats")
    assert dc.last_reply().endswith("bot: " + GERMAN_NONE_OF_YOURS), dc.last_reply()
    await dc.command(uwe, "forgetme")
    assert "/forgetme ja" in dc.last_reply(), dc.last_reply()
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "start")
    await play_on(dc)
    await dc.command(uwe, "top")
    assert "(only Uwe sees)" not in dc.last_reply()
    assert "🏆 Best players here, by rating" in dc.last_reply()  # the channel's language


async def test_the_store_away_is_told_one_person_in_their_clients_language(
    dc: Bot, redis_server: RedisServer
) -> None:
    """Redis is away (stopped): Uwe, whose Discord client is German, is told so in German, as
    every reply he alone sees (his /hand, a press on his hand in his DM); Ann (en-US) in
    English. It was in the configured language, English, for everyone."""
    ann, bob = people(dc, "Ann", "Bob")
    uwe = dc.fake.add_user("Uwe", locale="de")
    dc.people.append(uwe)
    await seat(dc, [ann, bob, uwe], bids="hidden")
    await dc.command(ann, "start")
    hand = [m for m in dc.fake.shown(uwe.id) if m.custom_ids()][-1]  # "Runde 1 von 5 …"
    away = texts("de")(STORE_AWAY)
    redis_server.stop()
    try:
        await dc.command(uwe, "hand")
        assert dc.last_reply().endswith("bot: " + away), dc.last_reply()
        await dc.press(uwe.id, uwe, hand, hand.custom_ids()[0])
        assert dc.last_reply(uwe.id).endswith("bot: " + away), dc.last_reply(uwe.id)
        await dc.command(ann, "hand")
        assert dc.last_reply().endswith("bot: " + STORE_AWAY), dc.last_reply()
    finally:
        redis_server.start()


GERMAN_JOIN = "Du sitzt jetzt am Tisch. Deine Karten bekommst du privat, sobald das Spiel beginnt."
GERMAN_NO_GAME = "In diesem Chat ist noch kein Spiel zu Ende gegangen."
GERMAN_NONE_OF_YOURS = "Hier ist noch kein Spiel von dir zu Ende gegangen."


async def test_stats_tell_two_people_called_ann_apart(dc: Bot) -> None:
    """Two people called Ann: /top numbers the one who played here later as the table does
    (`Ann (2)`); /stats name:Ann shows the asker alone both, told apart, and how to pick one;
    /stats name:Ann (2) shows hers to the channel, as her own /stats does."""
    ann, annie, bob = people(dc, "Ann", "Ann", "Bob")
    cid = dc.fake.add_user("Cid")
    await seat(dc, [ann, annie, bob])
    assert "2. Ann (2)" in dc.lobby().content
    await dc.command(ann, "start")
    await play_on(dc)

    def said() -> tuple[str, str]:
        """Who sees the last reply, and its text."""
        head, text = dc.last_reply().split(": ", 1)
        return head.split(" ", 1)[1], text

    await dc.command(bob, "top")
    seen, top = said()
    assert seen == "bot"  # for everyone
    assert top.count("\u2068Ann\u2069 (2) ") == 1  # the last 30 days: the same, said in a line
    assert top.count("\u2068Ann\u2069  ") == 1
    assert "\n    Last 30 days: the same as above.\n" in top

    await dc.command(bob, "stats", name="ann")
    assert said() == (
        "(only Bob sees) bot",
        "2 players here are called ann. Which one?\n"
        "    /stats Ann (1) · 1 game\n"
        "    /stats Ann (2) · 1 game",
    )
    asked = ((bob, "Ann (2)", "Ann (2)"), (annie, "", "Ann (2)"), (cid, "ANN (1)", "Ann"))
    for user, name, heading in asked:  # annie's own: as the boards name her
        await dc.command(user, "stats", **({"name": name} if name else {}))
        seen, text = said()
        assert seen == "bot"
        assert text.startswith(f"```\n    📊 {heading}\n"), text
    assert dc.fake.errors == []


async def test_stats_offers_the_names_of_the_channels_players_as_one_types(dc: Bot) -> None:
    """/stats name offers the players of this channel whose name (or a word of it) starts with
    what is typed, each as it picks them alone (`Ann (2)`), no AI level among them; the name
    picked works. Nothing is offered in a DM (a name is refused there) or in another channel."""
    ann, annie, bob = people(dc, "Ann", "Ann", "Bob")
    await seat(dc, [ann, annie, bob])
    await dc.command(ann, "addbot", level="hard")
    await dc.command(ann, "start")
    await play_on(dc)

    async def offered(typed: str, view: int | None = None) -> list[str]:
        payload = dc.fake.autocomplete(view or dc.channel, bob, "stats", "name", typed)
        await dc.act(payload)
        return dc.fake.offered(int(payload["id"]))

    assert sorted(await offered("")) == ["Ann", "Ann (2)", "Bob"]
    assert sorted(await offered("an")) == ["Ann", "Ann (2)"]
    assert await offered("B") == ["Bob"]
    assert await offered("hard") == []  # an AI level is no name to offer
    assert await offered("zed") == []
    assert await offered("", view=bob.id) == []  # a DM: no channel's players
    await dc.command(bob, "stats", name="Ann (2)")
    assert dc.last_reply().startswith("#")
    assert "📊 Ann (2)" in dc.last_reply()
    assert dc.fake.errors == []


async def test_stats_of_the_player_a_user_option_picks(dc: Bot) -> None:
    """/stats has a user option, `player` (synced with its description in every language): it
    shows the person picked, by their id, whatever a name given with it says, to the channel;
    one who has not played here is named to the asker alone; in a DM only oneself."""
    ann, annie, bob = people(dc, "Ann", "Ann", "Bob")
    cid = dc.fake.add_user("Cid")
    stats = next(c for c in dc.fake.commands if c["name"] == "stats")
    player = next(o for o in stats["options"] if o["name"] == "player")
    assert player["type"] == 6  # a user
    assert not player.get("required")
    assert player["description_localizations"]["de"].startswith("Ein Mitglied des Servers")
    await seat(dc, [ann, annie, bob])
    await dc.command(ann, "start")
    await play_on(dc)

    def said(view: int | None = None) -> tuple[str, str]:
        """Who sees the last reply (in `view`: the channel, or a DM), and its text."""
        head, text = dc.last_reply(view).split(": ", 1)
        return head.split(" ", 1)[1], text

    for options in ({"player": annie}, {"name": "ann (1)", "player": annie}):
        await dc.command(bob, "stats", **options)
        seen, text = said()
        assert seen == "bot"  # for everyone
        assert text.startswith("```\n    📊 Ann (2)\n"), text
    await dc.command(ann, "stats", player=cid)
    assert said() == ("(only Ann sees) bot", "Cid has not finished a game here yet.")
    await dc.command(bob, "stats", view=bob.id, player=ann)
    assert said(bob.id)[1] == "Here, /stats shows your own stats only."
    await dc.command(bob, "stats", view=bob.id, player=bob)
    assert said(bob.id)[1].startswith("```\n    📊 Bob, in 1 chat\n"), said(bob.id)
    assert dc.fake.errors == []


async def test_stats_of_a_member_mentioned_in_name(dc: Bot) -> None:
    """A user mention typed as /stats's name (`<@id>`, `<@!id>`: what a client makes of an
    @-autocomplete) picks that person, as the player option does: shown to the channel by
    their id, whatever they are called; named from what Discord resolved, else by the id alone
    (`#id`); a bot mentioned has no stats. A role's or a channel's mention, or a person's among
    other words, picks nobody: the asker alone is told how to pick someone. In a DM, only
    oneself."""
    ann, annie, bob = people(dc, "Ann", "Ann", "Bob")
    cid = dc.fake.add_user("Cid")
    helper = dc.fake.add_user("Helper", bot=True)
    await seat(dc, [ann, annie, bob])
    await dc.command(ann, "start")
    await play_on(dc)

    def said(view: int | None = None) -> tuple[str, str]:
        """Who sees the last reply (in `view`: the channel, or a DM), and its text."""
        head, text = dc.last_reply(view).split(": ", 1)
        return head.split(" ", 1)[1], text

    for name in (f"<@{annie.id}>", f" <@!{annie.id}> "):
        await dc.command(bob, "stats", name=name)
        seen, text = said()
        assert seen == "bot"  # for everyone
        assert text.startswith("```\n    📊 Ann (2)\n"), text
    await dc.command(bob, "stats", name=f"<@{cid.id}>")
    assert said() == ("(only Bob sees) bot", "Cid has not finished a game here yet.")
    for robot in (dc.fake.bot, helper):
        await dc.command(bob, "stats", name=f"<@{robot.id}>")
        assert said() == (
            "(only Bob sees) bot",
            f"{robot.name} is a bot, and bots have no stats. AI players have stats by level, "
            "such as /stats hard.",
        )
    stray = (
        f"<@&{dc.fake.guild}>",
        f"<#{dc.channel}>",
        f"<@{ann.id}> <@{bob.id}>",
        f"<@{ann.id}>!",
    )
    for name in stray:
        await dc.command(bob, "stats", name=name)
        assert said() == (
            "(only Bob sees) bot",
            "To see someone's stats, pick one person in the player option, or type the name they "
            "play under.",
        )
    await dc.command(bob, "stats", view=bob.id, name=f"<@{ann.id}>")
    assert said(bob.id)[1] == "Here, /stats shows your own stats only."
    await dc.command(bob, "stats", view=bob.id, name=f"<@{bob.id}>")
    assert said(bob.id)[1].startswith("```\n    📊 Bob, in 1 chat\n"), said(bob.id)
    del dc.fake.people[annie.id]  # she left the server: Discord resolves her no more
    await dc.command(bob, "stats", name=f"<@{annie.id}>")
    assert said()[1].startswith("```\n    📊 Ann (2)\n"), said()
    gone = dc.fake.add_user("Dan")
    del dc.fake.people[gone.id]
    await dc.command(bob, "stats", name=f"<@{gone.id}>")
    text = f"\\#{gone.id} has not finished a game here yet."  # (`\#`: not a heading)
    assert said() == ("(only Bob sees) bot", text)
    assert dc.fake.errors == []


async def test_stats_of_a_bot_say_bots_have_none(dc: Bot) -> None:
    """/stats player: picking a bot (this one, or another app's) answers the asker alone that
    bots have no stats, and where the AI players' are; not that it has yet to finish a game.
    The same in a DM."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    helper = dc.fake.add_user("Helper", bot=True)
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "start")
    await play_on(dc)
    for picked, view in ((dc.fake.bot, None), (helper, None), (helper, bob.id)):
        await dc.command(bob, "stats", view=view, player=picked)
        head, text = dc.last_reply(view).split(": ", 1)
        if view is None:
            assert head.endswith("(only Bob sees) bot"), head
        assert text == (
            f"{picked.name} is a bot, and bots have no stats. AI players have stats by level, "
            "such as /stats hard."
        )
    assert dc.fake.errors == []


async def test_private_messages_follow_each_players_client_language(dc: Bot) -> None:
    ann, bob = people(dc, "Ann", "Bob")
    uwe = dc.fake.add_user("Uwe", locale="de")
    dc.people = [ann, bob, uwe]
    await seat(dc, [ann, bob, uwe])
    await dc.command(ann, "start")
    assert dc.table().content.startswith("🔮 Round 1 of 5")  # the channel: its own language
    mine = [m.content for m in dc.fake.shown(uwe.id)]
    assert any(text.startswith("Runde 1 von 5") for text in mine), mine  # his client's language
    assert not any("Round" in text for text in mine), mine
    anns = dc.hand(ann)
    assert anns is not None
    assert anns.content.startswith("Round 1 of 5")


async def test_hand_shows_ones_cards_here_and_a_move_there_updates_the_dm(dc: Bot) -> None:
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(players[0], "start")
    while not any((hand := dc.hand(user)) is not None and hand.components for user in players):
        await move(dc)
    user = next(u for u in players if (h := dc.hand(u)) is not None and h.components)
    in_dm = dc.hand(user)
    assert in_dm is not None
    await dc.command(user, "hand")
    shown = dc.fake.last(dc.channel, user)
    assert shown.only == user.id
    assert shown.custom_ids() == in_dm.custom_ids()
    press = dc.fake.press(dc.channel, user, shown, shown.custom_ids()[0])
    await dc.act(press)
    replies = dc.fake.interactions[int(press["id"])].line.replies
    assert replies[0].startswith(f"{shown.name} (only {user.name} sees) edited")
    assert shown.components == []  # the ephemeral hand was updated in place...
    assert in_dm.components == []  # ...and so was the DM


async def test_the_channels_language(dc: Bot) -> None:
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await dc.command(ann, "language", code="xx")
    assert "Languages:" in dc.last_reply()
    assert "(only Ann sees)" in dc.last_reply()
    await dc.command(ann, "language", code="de")
    assert "#1 bot: Einstellungen gespeichert" in dc.last_reply()  # for everyone to see
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "start")
    notice = next(m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content)
    assert "Direktnachrichten" in notice.content
    assert notice.labels() == [["Deine Karten"]]


async def test_a_hint_typed_in_the_channel_says_where_it_went(dc: Bot) -> None:
    """A player asked to choose types /hint at a coach table: the hint comes to their DM, and
    the command is answered, to them alone, with where it went (as /review is), not with a
    bare "Done"."""
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players, coach="on")
    await dc.command(players[0], "start")
    for _ in range(100):
        hands = [(user, dc.hand(user)) for user in players]
        hints = [u for u, h in hands if h is not None and any("💡 Hint" in r for r in h.labels())]
        if hints:
            break
        assert await move(dc)
    else:
        raise AssertionError("nobody was ever asked to choose")
    user = hints[0]
    await dc.command(user, "hint")
    assert f"(only {user.name} sees)" in dc.last_reply()
    assert dc.last_reply().endswith("Your hint comes to you privately.")
    shown = dc.fake.shown(user.id)
    assert shown[-2].content.startswith("💡 Hint for"), shown[-2].content
    check_hands_last(dc, players)  # the hand again under it


async def test_a_hand_again_under_a_review_comes_though_the_hand_above_was_dismissed(
    dc: Bot,
) -> None:
    """Cid's DMs are closed: his hand is shown to him alone in the channel ("Your hand"), and
    he dismisses it (Discord lets him). His hand posted again under a review still comes, the
    one above being gone (its edit refused: Unknown Message)."""
    ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, players, coach="on")
    await dc.command(ann, "start")
    notice = next(m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content)
    await dc.press_label(dc.channel, cid, notice, "Your hand")
    hand = dc.hand(cid)
    assert hand is not None
    assert hand.custom_ids()
    dc.fake.messages.pop(hand.id)  # dismissed
    chat = chat_key(dc.channel)
    again = Message(hand.content, to=user_key(cid.id), slot="hand", notify=True, quiet=True)
    await dc.front.show(chat, Outcome(messages=(replace(again, round=1),)))
    await dc.idle()
    shown = [m for m in dc.fake.shown(dc.channel, cid) if m.only == cid.id]
    assert shown[-1].content == hand.content, [m.content for m in shown]


async def test_a_hint_on_an_ephemeral_hand_comes_apart_and_leaves_the_hand(dc: Bot) -> None:
    """Cid's DMs are closed: his hand is shown to him alone in the channel. The coach's hint
    he asks for there is an ephemeral message of its own, and his hand comes again under it,
    with its buttons but the Hint (as in a DM: every decision from the foot of the chat); the
    hand pressed loses its buttons. Pressed again for the same decision (a double tap), it is
    not shown a second time, as in a DM: he is told that /hint shows it again (he may have
    dismissed it), and typed, it does."""
    ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, players, coach="on")
    await dc.command(ann, "start")
    for _ in range(100):
        hand = dc.hand(cid)
        if hand is None or not hand.custom_ids():
            notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
            if notices and notices[-1].components:
                await dc.press_label(dc.channel, cid, notices[-1], "Your hand")
                hand = dc.hand(cid)
        if hand is not None and any("💡 Hint" in row for row in hand.labels()):
            break
        assert await move(dc)
    else:
        raise AssertionError("Cid was never asked to choose")
    before = (hand.content, hand.labels())
    press = dc.fake.press(dc.channel, cid, hand, hand.button("💡 Hint"))
    again = dc.fake.press(dc.channel, cid, hand, hand.button("💡 Hint"))  # a double tap
    await dc.act(press)
    replies = dc.fake.interactions[int(press["id"])].line.replies
    assert len(replies) == 3, replies
    assert "(only Cid sees) edited: " in replies[0]  # the hand pressed, left behind
    assert hand.labels() == []
    assert replies[1].startswith("#e")  # a new ephemeral message
    assert "(only Cid sees) bot: 💡 Hint for" in replies[1]
    anew = dc.fake.last(dc.channel, cid)  # the hand again, under the hint
    assert anew.content == before[0]
    assert anew.labels() == [row for row in before[1] if "💡 Hint" not in row]
    await dc.act(again)  # as in a DM: posted once
    (reply,) = dc.fake.interactions[int(again["id"])].line.replies
    assert reply.endswith(f"(only Cid sees) bot: {HINT_SENT}"), reply
    await dc.command(cid, "hint")  # the hint dismissed (it was shown to him alone): again
    replies = dc.fake.transcripts[dc.channel][-1].replies
    assert "(only Cid sees) bot: 💡 Hint for" in replies[-2], replies
    assert dc.fake.last(dc.channel, cid).content == anew.content  # and the hand under it


async def test_a_hint_under_way_as_the_worker_stops_is_answered(
    dc: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann presses 💡 Hint in her DM at a coach table, and her worker stops cleanly while the
    hint is being worked out (held here until the test lets it go): the stop waits for no
    hint, and her press is answered that the bot is restarting before it disconnects."""
    started, release = held_bid_hints(monkeypatch)
    players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players, coach="on")
    await dc.command(players[0], "start")
    for _ in range(100):
        turn = [(u, h) for u in players if (h := dc.hand(u)) and "Your bid?" in h.content]
        if turn and any("💡 Hint" in row for row in turn[0][1].labels()):
            break
        assert await move(dc)
    else:
        raise AssertionError("nobody was asked to bid")
    user, hand = turn[0]
    press = dc.fake.press(user.id, user, hand, hand.button("💡 Hint"))
    try:
        dc.front.client._connection.parse_interaction_create(press)  # type: ignore[arg-type]
        for _ in range(5000):
            if started.is_set():
                break
            await asyncio.sleep(0.002)
        assert started.is_set(), "the hint is not being worked out"
        await dc.front.stop()
        replies = dc.fake.interactions[int(press["id"])].line.replies
        assert replies, "the press was not answered"
        assert replies[-1].endswith(STOPPED_HINT), replies
    finally:
        release.set()


async def test_where_the_bot_may_not_post_a_table_is_refused_and_says_why(dc: Bot) -> None:
    """The bot lacks Send Messages in the channel: /join is not taken (the lobby could not be
    shown) and says which permission an admin should give; a command answered by the
    interaction alone still works. Once the permission is back, the table opens; a press on
    its lobby without Attach Files (the score sheet's picture) is refused the same way."""
    ann, bob, cid = players = people(dc, "Ann", "Bob", "Cid")
    dc.fake.app_permissions &= ~SEND_MESSAGES
    await dc.command(ann, "join")
    assert dc.last_reply() == (
        "#e1 (only Ann sees) bot: I may not post in this channel, so the game could not be seen "
        "here. An admin can give me this permission in the channel's settings: Send Messages."
    )
    await dc.command(ann, "rules")
    assert "#1 bot:" in dc.last_reply()  # the interaction's own answer needs no permission
    assert dc.fake.shown(dc.channel) == [dc.fake.last(dc.channel)]  # the rules alone
    dc.fake.app_permissions = APP_PERMISSIONS
    await seat(dc, players)
    dc.fake.app_permissions &= ~ATTACH_FILES
    await dc.press_label(dc.channel, bob, dc.lobby(), "Start")
    assert dc.last_reply().endswith("settings: Attach Files.")
    assert "Round 1" not in "".join(dc.channel_texts())
    assert not any(e[1] == 50013 for e in dc.fake.errors)  # nothing was even tried
    dc.fake.app_permissions = APP_PERMISSIONS
    await dc.command(cid, "start")
    assert any("Round 1 of 5" in text for text in dc.channel_texts()), dc.channel_texts()


def the_gateway_says(bot: Bot, event: str, payload: dict[str, Any]) -> None:
    """The client's cache hears a gateway event about the guild (GUILD_CREATE, CHANNEL_UPDATE),
    as from the gateway."""
    parse = getattr(bot.front.client._connection, f"parse_{event.lower()}")
    parse(payload)


async def whose_dm_hand(bot: Bot) -> tuple[Person, Stored]:
    """The player whose DM hand has a move to make now, and that hand."""
    for user in bot.people:
        hand = bot.hand(user)
        if hand is not None and hand.custom_ids():
            return user, hand
    raise AssertionError("nobody has a move to make in their DM")


async def test_a_dm_press_where_the_bot_may_not_post_in_the_games_channel_is_refused(
    dc: Bot,
) -> None:
    """Mid-game an admin takes Send Messages from the bot in the game's channel (the gateway
    tells the client's cache). A move pressed on a hand in a DM is refused as a press in the
    channel is, naming the game's channel and the permission (Send Messages alone: Attach Files,
    which discord.py takes away with it, comes back with it), and changes nothing; once the
    permission is back, the same press is taken."""
    ann, *_others = players = people(dc, "Ann", "Bob", "Cid")
    the_gateway_says(dc, "GUILD_CREATE", dc.fake.guild_create())
    await seat(dc, players)
    await dc.command(ann, "start")
    user, hand = await whose_dm_hand(dc)
    chat = chat_key(dc.channel)
    version = await dc.client.hget(keys.game(chat), "v")
    table = dc.table().content
    dc.fake.app_permissions &= ~SEND_MESSAGES
    the_gateway_says(dc, "CHANNEL_UPDATE", dc.fake.channel_update())
    await dc.press(user.id, user, hand, hand.custom_ids()[0])
    assert dc.last_reply(user.id) == (
        f"#e1 (only {user.name} sees) bot: I may not post in <#{dc.channel}>, the game's "
        "channel, so the game could not be seen there. An admin can give me this permission "
        "in that channel's settings: Send Messages."
    )
    assert await dc.client.hget(keys.game(chat), "v") == version  # nothing was done
    assert dc.table().content == table
    assert dc.hand(user) is hand
    assert hand.custom_ids()
    assert not any(e[1] == 50013 for e in dc.fake.errors)  # nothing was even tried
    dc.fake.app_permissions = APP_PERMISSIONS
    the_gateway_says(dc, "CHANNEL_UPDATE", dc.fake.channel_update())
    await dc.press(user.id, user, hand, hand.custom_ids()[0])
    assert await dc.client.hget(keys.game(chat), "v") != version
    assert "may not post" not in dc.last_reply(user.id)


def the_channel_goes(dc: Bot, event: str) -> None:
    """The gateway says the game's channel went: `event` is CHANNEL_DELETE, THREAD_DELETE (a
    game played in a thread is the thread's) or GUILD_DELETE (the bot removed from the server)."""
    gone = {
        "CHANNEL_DELETE": lambda: dc.fake.channel_delete(dc.channel),
        "THREAD_DELETE": lambda: dc.fake.thread_delete(dc.channel),
        "GUILD_DELETE": dc.fake.guild_delete,
    }
    the_gateway_says(dc, event, gone[event]())


@pytest.mark.parametrize("event", ["CHANNEL_DELETE", "THREAD_DELETE", "GUILD_DELETE"])
async def test_a_game_whose_channel_is_gone_ends_and_its_players_are_told(
    dc: Bot, event: str
) -> None:
    """Mid-game an admin deletes the game's channel (or its thread: a game played in a thread
    is the thread's), or removes the bot from the server; the gateway tells the client. Nobody
    can see the table any more, so the game ends (no timer runs it on, no DM hand invites a
    press), and each player's DM hand says why."""
    ann, *_others = players = people(dc, "Ann", "Bob", "Cid")
    the_gateway_says(dc, "GUILD_CREATE", dc.fake.guild_create())
    await seat(dc, players, bids="hidden")
    await dc.command(ann, "start")
    await move(dc)
    the_channel_goes(dc, event)
    await dc.idle()
    for user in players:
        assert not any(message.custom_ids() for message in dc.fake.shown(user.id))
        assert dc.fake.last(user.id).content == (
            "The game is over: I can no longer post in its chat (I was removed, or it is gone)."
        )
    assert await dc.front.service.table(chat_key(dc.channel)) is None
    assert not any(error[1] == 10003 for error in dc.fake.errors)  # nothing posted to it


@pytest.mark.parametrize("event", ["CHANNEL_DELETE", "THREAD_DELETE", "GUILD_DELETE"])
async def test_a_lobby_whose_channel_is_gone_closes_and_its_people_are_told(
    dc: Bot, event: str
) -> None:
    """The lobby's channel (or thread) deleted, or the bot removed from the server: the table
    closes, and each person seated at it is told in their DMs why. Only its host's option
    toggles said so before, if they had them: the others waited for a game that was not
    there."""
    players = people(dc, "Ann", "Bob", "Cid")
    the_gateway_says(dc, "GUILD_CREATE", dc.fake.guild_create())
    await seat(dc, players)
    the_channel_goes(dc, event)
    await dc.idle()
    for user in players:
        assert dc.fake.last(user.id).content == (
            "The table is closed: I can no longer post in its chat (I was removed, or it is gone)."
        )
    assert await dc.front.service.table(chat_key(dc.channel)) is None


@pytest.mark.parametrize("locked", [False, True])
async def test_a_game_in_a_thread_that_discord_archives_goes_on(dc: Bot, locked: bool) -> None:
    """A game played in a thread: mid-game the thread is archived (Discord does it after the
    thread's inactivity, as short as an hour; a moderator may too, and lock it). Discord lets
    nobody edit a message in an archived thread (error 50083), so the table froze there while
    the game went on in the DMs. The bot unarchives the thread, which it may do where it
    posts, and edits again: the table shows the move. A thread locked by a moderator stays
    archived (only a moderator may open it), and the game goes on in the DMs as before."""
    ann, *_others = players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(ann, "start")
    assert await move(dc)
    table = next(m for m in dc.fake.shown(dc.channel) if "Round 1 of 5" in m.content)
    before = table.content
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.archive(dc.channel, locked=locked))
    assert await move(dc)
    await dc.idle()
    codes = [error[1] for error in dc.fake.errors]
    if locked:
        assert dc.channel in dc.fake.archived
        assert table.content == before
        assert codes == [50083, 50013]  # the edit refused, then the unarchiving
        return
    assert dc.channel not in dc.fake.archived
    assert table.content != before
    assert codes == [50083]  # one refused edit, then the thread is opened and the edit made


async def a_game_in_a_thread(dc: Bot, **options: str) -> tuple[int, list[Person]]:
    """Ann, Bob and Cid start a 5-round game in a thread of the channel (whose guild the
    gateway has described): the thread, and the players."""
    the_gateway_says(dc, "GUILD_CREATE", dc.fake.guild_create())
    thread = dc.fake.add_thread("wizards-night")
    ann, *_others = players = people(dc, "Ann", "Bob", "Cid")
    for user in players:
        await dc.command(user, "join", view=thread)
    for name, value in {"rounds": "short", **options}.items():
        await dc.command(ann, "options", view=thread, setting=f"{name}={value}")
    await dc.command(ann, "start", view=thread)
    return thread, players


def shown_text(message: Stored | None) -> str:
    return "" if message is None else message.content


def table_in(dc: Bot, thread: int) -> Stored:
    return [m for m in dc.fake.shown(thread) if m.content.startswith("🔮 Round ")][-1]


async def test_a_press_in_an_archived_thread_is_handled(dc: Bot) -> None:
    """A game in a thread, with open bids (their buttons under the table). Discord archives
    the thread (its inactivity), and a player presses their bid under the table there: the
    interaction comes from the archived thread. The bid is taken, the thread unarchived and
    the table shows the bid, at the cost of one refused edit."""
    thread, players = await a_game_in_a_thread(dc, bids="open")
    bidder = next(user for user in players if "Your bid?" in shown_text(dc.hand(user)))
    table = table_in(dc, thread)
    before = table.content
    version = await dc.client.hget(keys.game(chat_key(thread)), "v")
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.archive(thread))
    await dc.press(thread, bidder, table, table.custom_ids()[0])
    assert "only" not in dc.last_reply(thread)  # no refusal, no apology
    assert await dc.client.hget(keys.game(chat_key(thread)), "v") != version
    assert thread not in dc.fake.archived
    assert table.content != before
    assert [error[1] for error in dc.fake.errors] == [50083]


LOCKED = "was locked by a moderator"


async def test_the_players_of_a_game_whose_thread_is_locked_are_told_once_in_their_dms(
    dc: Bot,
) -> None:
    """A moderator locks the thread of a game going on (archived and locked: only a moderator
    may open it). The table there can no longer be edited, and the game goes on in the DMs:
    each player is told so in their DM, once in the game however many moves follow (the
    notice names the thread). Once a moderator opens the thread, the table shows again."""
    thread, players = await a_game_in_a_thread(dc)
    assert await move(dc)
    table = table_in(dc, thread)
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.archive(thread, locked=True))
    for _ in range(4):
        assert await move(dc)
    frozen = table.content
    for user in players:
        told = [m for m in dc.fake.shown(user.id) if LOCKED in m.content]
        assert len(told) == 1
        assert f"<#{thread}>" in told[0].content
        assert told[0].labels() == []
    assert not any(LOCKED in m.content for m in dc.fake.shown(thread))
    assert table_in(dc, thread).content == frozen
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.reopen(thread))
    assert await move(dc)  # the round's last card
    assert "Round 2 of 5" in table_in(dc, thread).content
    assert all(len([m for m in dc.fake.shown(u.id) if LOCKED in m.content]) == 1 for u in players)


async def test_the_lock_of_a_thread_is_told_each_player_in_their_clients_language(
    dc: Bot,
) -> None:
    """A moderator locks the thread of a game of a Korean channel: Uwe, whose Discord client
    is German, is told in his DM in German, as the rest of his DMs are; Ann and Bob, whose
    clients are in English, in English. It came to all three in Korean."""
    the_gateway_says(dc, "GUILD_CREATE", dc.fake.guild_create())
    thread = dc.fake.add_thread("wizards-night")
    ann, bob = people(dc, "Ann", "Bob")
    uwe = dc.fake.add_user("Uwe", locale="de")
    await dc.command(ann, "language", view=thread, code="ko")
    for user in (ann, bob, uwe):
        await dc.command(user, "join", view=thread)
    await dc.command(ann, "options", view=thread, setting="rounds=short")
    await dc.command(ann, "start", view=thread)
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.archive(thread, locked=True))
    await dc.idle()
    german = f"🔒 <#{thread}>, der Thread dieses Spiels, wurde von einem Moderator gesperrt"
    told = [m.content for m in dc.fake.shown(uwe.id) if "🔒" in m.content]
    assert len(told) == 1, told
    assert told[0].startswith(german), told
    for user in (ann, bob):
        told = [m.content for m in dc.fake.shown(user.id) if "🔒" in m.content]
        assert len(told) == 1, told
        assert LOCKED in told[0], told


async def test_the_lock_noted_in_a_threads_slot_map_is_no_slot_message(dc: Bot) -> None:
    """The note of the game whose players were told of the lock (`<game chat>:locked`, a game
    id) is no slot's message to the slot map's readers: they neither list it nor read its game
    id as a message id (which raised)."""
    thread, _players = await a_game_in_a_thread(dc)
    table = table_in(dc, thread)
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.archive(thread, locked=True))
    assert await move(dc)
    chat = chat_key(thread)
    hashed = keys.discord(chat)
    assert await dc.client.hget(hashed, f"{chat}:locked") == b"g1"
    slots = dc.front.slots
    assert await slots.game_of(thread, table.id) == chat
    assert await slots.game_of(thread, 1) == chat  # none's: the only game there
    assert await slots.games(thread) == [chat]
    assert f"{chat}:locked" not in await slots.named(thread, f"{chat}:")
    assert await slots.named(thread, f"{chat}:") != []


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("heard", [True, False])
async def test_a_player_whose_dms_are_closed_plays_on_in_a_locked_thread(
    dc: Bot, workers: int, heard: bool
) -> None:
    """Cid's DMs are closed, and a moderator locks the game's thread in round 1: no "Your hand"
    notice can be posted there, nor can anyone type /hand. Each turn of his brings his hand as
    it is now, with its buttons, as a followup of his newest interaction there, shown to him
    alone: playing only from the newest hand shown to him, he plays the game to its end.
    (Before, nothing came once he had bid: he had to guess when his turn was, and find a button
    to press.) The lock's notice tells him so, not that the game goes on in his DMs. With
    wings, the hand he bid on still offers its marks when his turn comes: that copy is
    deleted (the thread takes no edit), so one hand alone shows him buttons
    (`reading.check_one_with_buttons`; until 8 December 2026 it kept them). The lock's notice
    comes with his hand as it is now under it, asking for his bid: the hand he presses from
    is the newest he sees (`reading.check_buttons_last`, after every move; until 8 December
    2026 the notice came below the hand he was shown). So too where the gateway did not tell
    of the lock (the table's next post finds it), and with two workers serving the bot, Cid's
    interactions reaching one and everyone else's the other."""
    the_gateway_says(dc, "GUILD_CREATE", dc.fake.guild_create())
    thread = dc.fake.add_thread("wizards-night")
    _ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    async with contextlib.AsyncExitStack() as stack:
        if workers == 2:
            other = _front(dc.fake, dc.client)
            await other.start(connect=False)
            stack.push_async_callback(other.stop)
            dc.worker_of[cid.id] = other
        await a_locked_threads_game(dc, thread, players, heard)


async def a_locked_threads_game(dc: Bot, thread: int, players: list[Person], heard: bool) -> None:
    """The game of `test_a_player_whose_dms_are_closed_plays_on_in_a_locked_thread`."""
    ann, _bob, cid = players
    for user in players:
        await dc.command(user, "join", view=thread)
    for setting in ("rounds=short", "bids=hidden", "wings=on"):
        await dc.command(ann, "options", view=thread, setting=setting)
    await dc.command(ann, "start", view=thread)
    notice = next(m for m in dc.fake.shown(thread) if f"<@{cid.id}>" in m.content)
    await dc.press_label(thread, cid, notice, "Your hand")  # round 1's, before the lock
    locked = dc.fake.archive(thread, locked=True)
    if heard:
        the_gateway_says(dc, "THREAD_UPDATE", locked)
    await dc.idle()
    alone = [(m.content, m.labels()) for m in dc.fake.shown(thread, cid) if m.only == cid.id]
    if heard:
        assert LOCKED in alone[-2][0] or LOCKED in alone[-1][0], alone
    reading.check_buttons_last(cid.name, alone)  # the lock's notice above his hand
    for _ in range(200):
        await dc.idle()
        alone = [(m.content, m.labels()) for m in dc.fake.shown(thread, cid) if m.only == cid.id]
        reading.check_one_with_buttons(cid.name, alone)
        reading.check_buttons_last(cid.name, alone)
        if any("Your place" in m.content for m in dc.fake.shown(thread, cid)):
            break
        hands = {p: dc.hand(p) for p in players if p is not cid}
        turn = next(((p, h) for p, h in hands.items() if h is not None and moves_of(h)), None)
        if turn is not None:
            await dc.press(turn[0].id, turn[0], turn[1], moves_of(turn[1])[0])
            continue
        mine = dc.fake.shown(thread, cid)
        newest = [m for m in mine if m.only == cid.id and "Round " in m.content][-1]
        assert moves_of(newest), newest.content  # his turn, and something to press
        # the one hand shown him alone with buttons: those shown before lost theirs
        alone = [(m.content, m.labels()) for m in mine if m.only == cid.id]
        reading.check_one_with_buttons(cid.name, alone)
        reading.check_buttons_last(cid.name, alone)
        await dc.press(thread, cid, newest, moves_of(newest)[0])
    else:
        raise AssertionError("the game did not end")
    assert [m for m in dc.fake.shown(thread) if f"<@{cid.id}>" in m.content] == [notice]
    assert refusals(dc) == []
    told = [m.content for m in dc.fake.shown(thread, cid) if LOCKED in m.content]
    assert len(told) == 1  # shown to him alone, and true of him: not "in your DMs"
    assert "goes on here, in your DMs" not in told[0]
    assert "your DMs are closed to me" in told[0]


async def test_a_thread_the_gateway_says_is_locked_is_sent_nothing_until_it_opens(
    dc: Bot,
) -> None:
    """The gateway tells the client that a moderator locked the game's thread (THREAD_UPDATE:
    archived and locked): the table's posts there would each be refused (the edit, then the
    unarchiving), so they are not tried; the players are still told once in their DMs. Once
    the gateway says the thread is open again, the table's next post shows there."""
    thread, players = await a_game_in_a_thread(dc)
    assert await move(dc)
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.archive(thread, locked=True))
    await dc.idle()
    unarchiving = dc.fake.calls["PATCH /channels/{id}"]
    for _ in range(4):
        assert await move(dc)
    await dc.idle()
    assert dc.fake.errors == []  # every post or edit there is refused: none was tried
    assert dc.fake.calls["PATCH /channels/{id}"] == unarchiving
    for user in players:
        assert len([m for m in dc.fake.shown(user.id) if LOCKED in m.content]) == 1
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.reopen(thread))
    assert await move(dc)  # the round's last card
    await dc.idle()
    assert "Round 2 of 5" in table_in(dc, thread).content
    assert dc.fake.errors == []


async def test_the_players_are_told_of_a_lock_when_the_gateway_reports_it(dc: Bot) -> None:
    """The gateway reports that a moderator locked the game's thread (THREAD_UPDATE: archived
    and locked): each player is told in their DM then, before anybody moves (the table's next
    post may be a turn timeout away), and once, however many moves and reports follow."""
    thread, players = await a_game_in_a_thread(dc)
    assert await move(dc)
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.archive(thread, locked=True))
    await dc.idle()
    for user in players:
        assert len([m for m in dc.fake.shown(user.id) if LOCKED in m.content]) == 1
    the_gateway_says(dc, "THREAD_UPDATE", dc.fake.archive(thread, locked=True))
    for _ in range(3):
        assert await move(dc)
    await dc.idle()
    for user in players:
        assert len([m for m in dc.fake.shown(user.id) if LOCKED in m.content]) == 1
    assert dc.fake.errors == []


async def test_a_lock_learned_from_a_refusal_is_not_tried_again_by_any_worker(
    dc: Bot,
) -> None:
    """A moderator locks the game's thread, and no worker hears it from the gateway (started
    after it, say): the table's first post there is refused (its edit, then the unarchiving),
    and the lock is noted in the thread's slot map, so neither that worker nor another (Bob
    and Cid's interactions go to worker B) tries the thread again: each post would be refused
    the same. Once the gateway tells one worker that the thread is open, the mark goes, and
    the table's next post, by the other, shows there."""
    thread, players = await a_game_in_a_thread(dc)
    ann, bob, cid = players
    assert await move(dc)
    await dc.idle()
    dc.fake.archive(thread, locked=True)  # unheard
    assert await move(dc)
    await dc.idle()
    assert [code for _, code, _ in dc.fake.errors] == [50083, 50013]
    other = _front(dc.fake, dc.client)
    await other.start(connect=False)
    try:
        dc.worker_of[bob.id] = dc.worker_of[cid.id] = other
        for _ in range(3):
            assert await move(dc)
        await dc.idle()
        assert [code for _, code, _ in dc.fake.errors] == [50083, 50013]
        for user in players:
            assert len([m for m in dc.fake.shown(user.id) if LOCKED in m.content]) == 1
        the_gateway_says(dc, "THREAD_UPDATE", dc.fake.reopen(thread))
        await dc.idle()
        dc.worker_of[ann.id] = other
        assert await move(dc)  # the round's last card
        await dc.idle()
        assert "Round 2 of 5" in table_in(dc, thread).content
        assert [code for _, code, _ in dc.fake.errors] == [50083, 50013]
    finally:
        await other.stop()


async def test_a_thread_opened_unheard_is_tried_again_after_a_minute(dc: Bot) -> None:
    """A lock noted from a refusal, and the thread opened again with no worker hearing it from
    the gateway: the thread's posts are not tried for a minute after the refusal; then the
    next one is, and goes through, and the mark goes: the table shows there again."""
    clock = Clock()
    dc.front.sender.wall = clock
    thread, _players = await a_game_in_a_thread(dc)
    assert await move(dc)
    await dc.idle()
    dc.fake.archive(thread, locked=True)  # unheard
    assert await move(dc)
    await dc.idle()
    assert [code for _, code, _ in dc.fake.errors] == [50083, 50013]
    dc.fake.reopen(thread)  # unheard
    assert await move(dc)
    await dc.idle()
    frozen = table_in(dc, thread).content
    clock.now += 61
    assert await move(dc)
    await dc.idle()
    assert table_in(dc, thread).content != frozen
    assert [code for _, code, _ in dc.fake.errors] == [50083, 50013]
    assert await dc.front.slots.shut_since(thread) is None


async def test_a_dm_press_is_taken_when_the_client_does_not_know_the_games_channel(
    dc: Bot,
) -> None:
    """A worker whose cache does not know the game's channel (its gateway has not described
    the guild yet) cannot tell what the bot may do there without asking Discord: a press in a
    DM is taken, as before (the channel's first new message refused then ends the game:
    `test_a_game_where_the_bot_may_no_longer_post_ends_and_its_players_are_told`)."""
    ann, *_others = players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(ann, "start")
    user, hand = await whose_dm_hand(dc)
    chat = chat_key(dc.channel)
    version = await dc.client.hget(keys.game(chat), "v")
    dc.fake.app_permissions &= ~SEND_MESSAGES
    await dc.press(user.id, user, hand, hand.custom_ids()[0])
    assert await dc.client.hget(keys.game(chat), "v") != version
    assert "may not post" not in dc.last_reply(user.id)


async def test_a_game_where_the_bot_may_no_longer_post_ends_and_its_players_are_told(
    dc: Bot,
) -> None:
    """Mid-game an admin takes Send Messages from the bot in the game's channel, and this
    worker's cache does not know (its gateway has not described the guild): the moves pressed
    in the DMs are taken, and the table's next new message is refused (Missing Permissions,
    error 50013). Nobody could see the game any more, and its timers would play it on unseen:
    it ends, and each player's DM hand says why, without buttons, as when the bot is muted
    on Telegram."""
    ann, *_others = players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(ann, "start")
    chat = chat_key(dc.channel)
    dc.fake.app_permissions &= ~SEND_MESSAGES
    for _ in range(100):
        if await dc.front.service.table(chat) is None:
            break
        assert await move(dc), "the game went on where nobody could see it"
        await dc.idle()
    assert await dc.front.service.table(chat) is None
    assert 50013 in [code for _, code, _ in dc.fake.errors]
    muted = "The game is over: I am no longer allowed to send messages in its chat."
    for user in players:
        assert not any(message.custom_ids() for message in dc.fake.shown(user.id))
        assert dc.fake.last(user.id).content == muted


SHEET_TEXT = "Score sheet (w/b: tricks won/bid)"


async def last_round_without(dc: Bot, permissions: int) -> None:
    """Ann, Bob and Cid play to the last round, where an admin takes `permissions` from the
    bot in the channel (this worker's cache does not know: its gateway has not described the
    guild), and on, in their DMs, until the game is over whatever the channel shows."""
    ann, *_others = players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(ann, "start")
    while not any("Round 5 of 5" in text for text in dc.channel_texts()):
        assert await move(dc)
    dc.fake.app_permissions &= ~permissions
    chat = chat_key(dc.channel)
    for _ in range(100):
        table = await dc.front.service.table(chat)
        assert table is not None
        if table.game.phase is Phase.FINISHED:
            break
        await move(dc)
    await dc.idle()


async def test_a_games_end_refused_its_picture_goes_with_the_sheet_as_text(dc: Bot) -> None:
    """An admin takes Attach Files from the bot in the last round, and this worker's cache does
    not know (its gateway has not described the guild): the game's end with the score sheet's
    picture is refused (error 50013), and is sent again once, in the same message, with the
    sheet as text: the standings and "Play again" still show."""
    await last_round_without(dc, ATTACH_FILES)
    over = [m for m in dc.fake.shown(dc.channel) if OVER in m.content]
    assert len(over) == 1
    assert over[0].attachments == []
    assert SHEET_TEXT in over[0].content
    assert all(name in over[0].content.partition(SHEET_TEXT)[2] for name in ("Ann", "Bob", "Cid"))
    assert over[0].labels() == [["Play again"]]
    assert [error[1] for error in dc.fake.errors] == [50013]


async def test_a_channel_that_refuses_text_too_still_loses_the_games_end(dc: Bot) -> None:
    """Send Messages taken as well, the text form is refused too: nothing more is tried (one
    refusal with the picture, one without, after the round's own refused posts), and
    nothing of the game's end is shown."""
    await last_round_without(dc, ATTACH_FILES | SEND_MESSAGES)
    assert not any(OVER in m.content for m in dc.fake.shown(dc.channel))
    assert {error[1] for error in dc.fake.errors} == {50013}


async def test_a_games_end_the_client_knows_takes_no_files_goes_as_text_at_once(
    redis_url: str, game_ids: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway has described the guild, and tells the client when an admin takes Attach
    Files from the bot before the last card of the game: the card's player cannot press it
    (refused, as it says why), the turn timeout plays it, and the game's end goes as text at
    once: Discord is not asked to take the picture first (it refused it with 50013 before,
    in every game that ended so)."""
    async with running(redis_url, monkeypatch, turn_timeout=3) as dc:
        ann, *_others = players = people(dc, "Ann", "Bob", "Cid")
        the_gateway_says(dc, "GUILD_CREATE", dc.fake.guild_create())
        await seat(dc, players)
        await dc.command(ann, "start")
        chat = chat_key(dc.channel)
        while True:
            table = await dc.front.service.table(chat)
            assert table is not None
            now = table.game.round
            if now is not None and now.number == 5 and sum(map(len, now.hands)) == 1:
                break
            assert await move(dc)
        dc.fake.app_permissions &= ~ATTACH_FILES
        the_gateway_says(dc, "CHANNEL_UPDATE", dc.fake.channel_update())
        for _ in range(100):
            if any(OVER in text for text in dc.channel_texts()):
                break
            await asyncio.sleep(0.1)
        await dc.idle()
        over = [m for m in dc.fake.shown(dc.channel) if OVER in m.content]
        assert len(over) == 1
        assert over[0].attachments == []
        assert SHEET_TEXT in over[0].content
        assert over[0].labels() == [["Play again"]]
        assert dc.fake.errors == []


def long_games_end(version: tuple[str, int]) -> tuple[Outcome, list[str]]:
    """The end of a 6-player game at a Korean table (its 10 rounds' score sheet as the
    picture: the widest of the languages) whose six players, with 32-character names of
    markdown characters (each one escaped), share first place: the longest the end gets. The
    outcome, and the names."""
    t = texts("ko")
    names = [f"{letter}{'_*' * 15}{letter}" for letter in "ABCDEF"]
    rng = random.Random(6)
    rows, totals = [], [0] * 6
    for number in range(1, 11):
        bids = tuple(rng.randint(0, number) for _ in names)
        won = tuple(rng.randint(0, number) for _ in names)
        met = zip(bids, won, strict=True)
        points = tuple(20 + 10 * b if b == w else -10 * abs(b - w) for b, w in met)
        totals = [total + point for total, point in zip(totals, points, strict=True)]
        rows.append(ScoreRow(number, number, bids, won, points, tuple(totals)))
    lines = [t("🏁 The game is over."), "", *(f"🥇 {name}: 120" for name in names), ""]
    lines.append(t("{names} share first place!", names=", ".join(names)))
    again = Button(t("Play again"), tokens.lobby(version[0], Action.AGAIN))
    picture = SheetPicture("ko", tuple(names), tuple(rows), (1,) * 6)
    over = Message("\n".join(lines), buttons=((again,),), slot="over", notify=True, picture=picture)
    return Outcome(messages=(over,), version=version), names


async def test_a_long_games_end_refused_its_picture_shows_the_whole_sheet(dc: Bot) -> None:
    """The end of a 6-player game whose picture the channel refuses (Attach Files taken, this
    worker's cache does not know) is longer as text than a Discord message takes: the whole
    sheet is shown, in a code block of its own first, then the standings with "Play again",
    at the foot of the channel where players look. Nothing is cut."""
    outcome, names = long_games_end(("g9", 3))
    sheet = outcome.messages[0].picture
    assert sheet is not None
    assert len(content(outcome.messages[0].text)) + len(sheet.text()) > MAX_CONTENT
    dc.fake.app_permissions &= ~ATTACH_FILES
    await dc.front.show(chat_key(dc.channel), outcome)
    await dc.idle()
    shown = dc.fake.shown(dc.channel)
    assert len(shown) == 2
    assert shown[0].content == f"```\n{sheet.text()}\n```"
    assert shown[0].labels() == []
    t = texts("ko")
    assert shown[1].content.startswith(t("🏁 The game is over."))
    assert all(discord.utils.escape_markdown(name) in shown[1].content for name in names)
    assert shown[1].labels() == [[t("Play again")]]
    assert [error[1] for error in dc.fake.errors] == [50013]


async def test_a_long_games_end_tried_again_sends_only_what_is_left(dc: Bot) -> None:
    """The end of a long game whose picture the channel refuses goes as text in two messages
    (the sheet, then the standings with "Play again"). Discord fails on its side (503) when
    the standings are sent: they are sent again, and only they are: the sheet shows once."""
    outcome, _names = long_games_end(("g9", 3))
    dc.fake.app_permissions &= ~ATTACH_FILES

    def the_standings_as_text(body: dict[str, Any]) -> bool:
        return bool(body.get("components")) and not body.get("attachments")

    dc.fake.failing.append(the_standings_as_text)
    await dc.front.show(chat_key(dc.channel), outcome)
    await dc.idle()
    assert not dc.fake.failing  # it did fail once
    shown = dc.fake.shown(dc.channel)
    assert [message.labels() for message in shown] == [[], [[texts("ko")("Play again")]]]
    assert shown[0].content.startswith("```")
    assert [error[1] for error in dc.fake.errors] == [50013, 0]


@pytest.mark.parametrize("why", ["known to take no files", "cannot be drawn"])
async def test_a_long_games_end_shown_again_where_it_shows_sends_nothing(
    dc: Bot, monkeypatch: pytest.MonkeyPatch, why: str
) -> None:
    """The end of a long game sent as text in two messages at once (the client's cache knows
    the channel takes no files from the bot, or its picture cannot be drawn), then shown again
    (after a crash or an outage, where a slot is behind): its slot shows it already, so
    nothing is sent, not even the sheet that goes before the standings; nor is an older
    version's sheet sent."""
    outcome, _names = long_games_end(("g9", 3))
    if why == "cannot be drawn":
        the_sheet_cannot_be_drawn(monkeypatch)
    else:
        dc.fake.app_permissions &= ~ATTACH_FILES
        the_gateway_says(dc, "GUILD_CREATE", dc.fake.guild_create())
    chat = chat_key(dc.channel)
    await dc.front.show(chat, outcome)
    await dc.idle()
    assert len(dc.fake.shown(dc.channel)) == 2
    await dc.front.show(chat, replace(outcome, again=True))
    await dc.idle()
    await dc.front.show(chat, replace(outcome, version=("g9", 2)))
    await dc.idle()
    assert len(dc.fake.shown(dc.channel)) == 2


async def test_each_message_of_a_long_games_end_counts_in_the_channels_pace(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end of a long game sent as text in two messages: the channel's flood window,
    shared by the workers, counts both (Discord counts each), not one post."""
    async with running(redis_url, monkeypatch, limits=Limits()) as dc:
        outcome, _names = long_games_end(("g9", 3))
        dc.fake.app_permissions &= ~ATTACH_FILES
        await dc.front.show(chat_key(dc.channel), outcome)
        await dc.idle()
        assert len(dc.fake.shown(dc.channel)) == 2
        assert await dc.client.zcard(keys.posts(f"dc:c{dc.channel}")) == 2


@pytest.mark.parametrize("workers", [1, 2])
async def test_a_coachs_reviews_reach_a_player_whose_dms_are_closed(
    dc: Bot, caplog: pytest.LogCaptureFixture, workers: int
) -> None:
    """Cid's DMs are closed at a coach table: each round's review follows up his last
    interaction in the channel, shown to him alone, and so does the answer of his /review,
    without the name of the channel it is shown in (his DM would name it); nobody else sees
    any of it, and none is dropped. With two workers serving the bot, Cid's
    interactions reach one and everyone else's the other, which works out the reviews of the
    rounds it ends: his interaction is found in Redis, kept while Discord takes followups."""
    caplog.set_level(logging.INFO, "adapters.discord.app")
    ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    if workers == 2:
        other = _front(dc.fake, dc.client)
        await other.start(connect=False)
        dc.worker_of[cid.id] = other
    try:
        await a_coach_game_with_closed_dms(dc, ann, cid, players)
    finally:
        if workers == 2:
            await other.stop()
    lost = ("is dropped", "could not follow up")
    assert not any(word in record.getMessage() for record in caplog.records for word in lost)
    remembered = keys.follow_up(chat_key(dc.channel), cid.id)
    assert 0 < await dc.client.pttl(remembered) <= 14 * 60 * 1000


async def a_coach_game_with_closed_dms(
    dc: Bot, ann: Person, shut: Person, players: list[Person], playing: Playing | None = None
) -> None:
    """A whole game at a coach table where the DMs of `shut` are closed, then their /review:
    what they are shown of the reviews, each with their hand again under it where it asks for
    a press (nothing comes below the hand they press), and that nobody else is shown any."""
    await seat(dc, players, coach="on")
    await dc.command(ann, "start")
    over = 0
    for _ in range(400):
        if any(OVER in text for text in dc.channel_texts()):
            break
        assert await move(dc, playing=playing)
        over = await coach_turn(dc, over)
        check_hands_last(dc, players)
    else:
        raise AssertionError("the game did not end")
    await coach_turn(dc, over)
    check_hands_last(dc, players)
    assert unchanged_edits(dc, dc.channel) == []  # the game's end retires the notice once
    theirs = [
        reply
        for line in dc.fake.transcripts[dc.channel]
        for reply in line.replies
        if "📝 The coach on round" in reply
    ]
    assert theirs  # the rounds the coach had something to say to them about
    assert all(f"(only {shut.name} sees) bot: 📝" in reply for reply in theirs)
    await dc.command(shut, "review")
    review = dc.fake.transcripts[dc.channel][-1]
    assert review.replies[0].endswith("it comes to you privately.")
    await coach_turn(dc, -1)
    check_hands_last(dc, players)
    assert len(review.replies) == 3  # and their result with Play again, again under it
    # shown in #wizards itself: the DM's "💬 #wizards · " would name the channel it is in
    assert f"(only {shut.name} sees) bot: 📝 Your last game" in review.replies[1]
    assert review.replies[2].endswith("[Play again]"), review.replies[2]
    assert not any("📝" in m.content for m in dc.fake.shown(dc.channel))  # for everyone


async def test_a_result_again_under_a_review_that_came_while_the_last_press_was_answered(
    dc: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cid's DMs are closed at a coach table, and his press ends the game: its answer shows him
    his result with Play again. The last round's review is worked out and posted while that
    answer is still being made (before the worker keeps the result as the one with buttons
    shown to him), with his result again under it. Either way one result alone offers Play
    again: the one posted first loses it (`reading.check_one_with_buttons`; until 8 December
    2026 the worker then kept the first one, and both offered Play again for good)."""
    ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    remember = dc.front._remember
    met: list[bool] = []

    async def meanwhile(interaction: Any, chat: str, **kept: Any) -> None:
        shown = kept.get("shown")
        answer = None if shown is None else dc.fake.messages.get(shown[0])
        if interaction.user.id == cid.id and answer is not None and "Your place" in answer.content:
            for _ in range(3000):  # the round's review reaches him, his result again under it
                mine = [m for m in dc.fake.shown(dc.channel, cid) if m.only == cid.id]
                if len([m for m in mine if "Your place" in m.content]) == 2:
                    break
                await asyncio.sleep(0.01)
            else:
                raise AssertionError("the last round's review did not come")
            assert "📝 The coach on round 5" in mine[-2].content, mine[-2].content
            met.append(True)
        await remember(interaction, chat, **kept)

    monkeypatch.setattr(dc.front, "_remember", meanwhile)
    await a_coach_game_with_closed_dms(dc, ann, cid, players, in_turn(0))
    assert met == [True]  # (his press ended the game)


@pytest.mark.parametrize("pressed", ["a mark", "a bid"])
@pytest.mark.parametrize(
    "lands", ["before the press is answered", "while it is answered", "once it is answered"]
)
async def test_a_hand_again_built_before_a_press_shows_the_hand_as_the_press_left_it(
    dc: Bot, monkeypatch: pytest.MonkeyPatch, lands: str, pressed: str
) -> None:
    """Cid's DMs are closed: on the hand shown to him alone he marks a card (wings, not on
    turn), and the answer shows it marked, in place, with "Clear the mark"; or he bids, and
    it shows his bid, with nothing to press. A coach's review worked out before that press
    was saved comes with his hand again under it, as it was then (a mark still to make, a
    bid asked for), and is followed up to him before the press is answered (it is saved),
    while it is (its edit made), or once it is.
    Either way the one hand that offers him buttons, at the foot of what he sees, shows his
    card marked, and none asks for his bid again (`reading.check_one_with_buttons`,
    `reading.check_buttons_last`): until 8 December 2026 the hand again, the newer message,
    was kept as it was, a move old, and a press on it was refused as stale."""
    ann, _bob, cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Cid",))
    await seat(dc, players, **({"wings": "on"} if pressed == "a mark" else {}))
    await dc.command(ann, "start")
    chat, player = chat_key(dc.channel), user_key(cid.id)
    service = dc.front.service

    def ready(hand: Stored) -> bool:
        if pressed == "a bid":
            return "Your bid?" in hand.content and bool(moves_of(hand))
        return not moves_of(hand) and any(map(is_mark, hand.custom_ids()))

    for _ in range(100):
        hand = dc.hand(cid)
        if hand is not None and ready(hand):
            break
        notices = [m for m in dc.fake.shown(dc.channel) if f"<@{cid.id}>" in m.content]
        if hand is None or (not moves_of(hand) and notices):  # his hand as it is now
            await dc.press_label(dc.channel, cid, notices[-1], "Your hand")
            if ready(dc.hand(cid) or hand):
                break
            continue
        assert await move(dc)
    else:
        raise AssertionError(f"Cid never had {pressed} to make")
    hand = dc.hand(cid)
    assert hand is not None
    # the review, and his hand again under it, as read before his press is saved
    snap = await service.store.load(chat)
    assert snap.table is not None
    review = Outcome((Message("📝 The coach on round 1: well bid.", to=player),))
    stale = await service._hands_again(chat, review, snap, snap.table, snap.table.game_id)
    assert ("🪽 Mark a card" if pressed == "a mark" else "Your bid?") in stale.messages[-1].text
    remember, respond = dc.front._remember, dc.front._respond
    met: list[bool] = []

    async def review_lands() -> None:
        met.append(True)
        # one message at a time, as a review is shown (`Delivered`); each followed up at
        # once, his DMs known closed
        for message in stale.messages:
            await dc.front.show(chat, replace(stale, messages=(message,)))

    async def before(interaction: Any, chat: str, reply: Any, **how: Any) -> None:
        if interaction.user.id == cid.id and not met:  # his press is saved, not yet answered
            await review_lands()
        await respond(interaction, chat, reply, **how)

    async def meanwhile(interaction: Any, chat: str, **kept: Any) -> None:
        if interaction.user.id != cid.id or met:
            await remember(interaction, chat, **kept)
        elif lands == "while it is answered":  # the answer's edit made, not yet kept
            await review_lands()
            await remember(interaction, chat, **kept)
        else:
            await remember(interaction, chat, **kept)
            await review_lands()

    if lands == "before the press is answered":
        monkeypatch.setattr(dc.front, "_respond", before)
    else:
        monkeypatch.setattr(dc.front, "_remember", meanwhile)
    choices = (
        [c for c in hand.custom_ids() if is_mark(c)] if pressed == "a mark" else moves_of(hand)
    )
    await dc.press(dc.channel, cid, hand, choices[-1])
    await dc.idle()
    assert met == [True]
    mine = [m for m in dc.fake.shown(dc.channel, cid) if m.only == cid.id]
    alone = [(m.content, m.labels()) for m in mine]
    assert "📝 The coach on round 1" in "\n".join(text for text, _labels in alone)
    reading.check_one_with_buttons(cid.name, alone)
    reading.check_buttons_last(cid.name, alone)
    if pressed == "a mark":
        assert "🪽 Marked to play by itself" in alone[-1][0], alone[-1][0]
        assert "Clear the mark" in [label for row in alone[-1][1] for label in row], alone[-1]
    else:  # nothing asks for his bid again: nothing offers him buttons
        assert [text for text, labels in alone if any(labels)] == []
    assert refusals(dc) == []


async def test_a_review_shown_alone_in_the_channel_has_the_hand_again_under_it(
    dc: Bot,
) -> None:
    """Bob's DMs are closed at a coach table. His last card of round 3 is answered with his
    round 4 hand, which asks him (the dealer, a Wizard turned up) for the trump; the round's
    review, which comes after it, is shown to him alone in the channel too, and his hand comes
    again under it, with its buttons, as in a DM: nothing comes below the hand he presses."""
    ann, bob, _cid = players = people(dc, "Ann", "Bob", "Cid", closed=("Bob",))
    await a_coach_game_with_closed_dms(dc, ann, bob, players, in_turn(5))
    replies = [reply for line in dc.fake.transcripts[dc.channel] for reply in line.replies]
    review = next(i for i, r in enumerate(replies) if "📝 The coach on round 3" in r)
    behind, again = replies[review + 1 : review + 3]
    assert "(only Bob sees) edited: Round 4 of 5" in behind, behind  # the hand he pressed
    assert "choose the trump suit" not in behind
    assert "[" not in behind  # without its buttons
    assert "(only Bob sees) bot: Round 4 of 5" in again, again
    assert "choose the trump suit" in again


async def test_a_private_message_never_fills_in_an_answer_still_thinking(dc: Bot) -> None:
    """Cid's DMs are closed. While his /rules is slow, deferred with a public "thinking"
    placeholder, a private message for him comes (a review worked out meanwhile): Discord
    would show the first followup of that interaction in the placeholder's place, for everyone,
    so the private message follows up his interaction before, answered already."""
    cid = people(dc, "Ann", "Cid", closed=("Cid",))[1]
    chat = chat_key(dc.channel)
    await dc.command(cid, "join")
    private = Outcome(messages=(Message("📝 For Cid alone", to=user_key(cid.id)),))
    handle = dc.front.service.handle

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.3)  # deferred meanwhile, in public
        await dc.front.show(chat, private)
        await dc.front.outbox.flush()
        return await handle(*args, **kwargs)

    dc.front.defer_after = 0.05
    dc.front.service.handle = slow  # type: ignore[method-assign]
    await dc.command(cid, "rules")
    joined, rules = [line for line in dc.fake.transcripts[dc.channel] if line.action][-2:]
    assert rules.replies[0] == "#2 (thinking…)"
    assert rules.replies[1].startswith("#2 edited: ")
    assert "For Cid alone" not in "".join(rules.replies)
    assert joined.replies[-1] == "#e2 (only Cid sees) bot: 📝 For Cid alone"


def the_sheet_cannot_be_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawing a score sheet's picture fails as it does when its font is missing (Pillow's
    `OSError: cannot open resource`)."""

    def missing_font(_picture: SheetPicture) -> bytes:
        raise OSError("cannot open resource")

    monkeypatch.setattr("bot.show.picture._drawn", missing_font)


async def test_scores_whose_picture_cannot_be_drawn_shows_the_sheet_as_text(
    dc: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mid-game, /scores whose picture cannot be drawn (a font missing, a Pillow error): the
    answer is the sheet as text below the standings, as the game's end shows it when a
    channel takes no files, not an apology."""
    ann, *_others = players = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, players)
    await dc.command(ann, "start")
    while not any("Round 2 of 5" in text for text in dc.channel_texts()):
        assert await move(dc)
    the_sheet_cannot_be_drawn(monkeypatch)
    await dc.command(ann, "scores")
    replies = dc.fake.transcripts[dc.channel][-1].replies
    assert len(replies) == 1
    assert "Sorry" not in replies[0]
    head, _, sheet = replies[0].partition(SHEET_TEXT)
    assert "Score sheet after round 1 of 5" in head
    assert all(name in sheet for name in ("Ann", "Bob", "Cid"))
    assert "(only" not in replies[0]  # in public, as the picture would have been


async def test_long_scores_whose_picture_cannot_be_drawn_shows_the_whole_sheet(
    dc: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/scores of a long game whose picture cannot be drawn, its sheet as text longer than a
    message: the whole sheet in code blocks (the answer, then followups), the standings last."""
    outcome, names = long_games_end(("g9", 3))
    sheet = outcome.messages[0].picture
    assert sheet is not None
    standings = Message(outcome.messages[0].text, picture=sheet)  # the longest standings

    async def scores(*_args: object, **_kwargs: object) -> Outcome:
        return Outcome(messages=(standings,))

    ann = people(dc, "Ann")[0]
    the_sheet_cannot_be_drawn(monkeypatch)
    monkeypatch.setattr(dc.front.service, "handle", scores)
    await dc.command(ann, "scores")
    replies = dc.fake.transcripts[dc.channel][-1].replies
    assert len(replies) == 2
    assert replies[0].replace("\n    ", "\n") == f"#1 bot: ```\n{sheet.text()}\n```"
    assert "```" not in replies[1]
    assert all(discord.utils.escape_markdown(name) in replies[1] for name in names)


async def test_a_notice_after_a_round_with_none_takes_the_last_ones_button_off(dc: Bot) -> None:
    """Ann's DMs are closed, and one round asks nothing of her through a notice (her hand
    came as the answer to her own press, her marked card played itself): the next round's
    notice is the game's second, short, and the last notice before it, two rounds up, loses
    its button. At the game's end no notice keeps one."""
    players = people(dc, "Ann", "Bob", "Cid", closed=("Ann",))
    await seat(dc, players, bids="secret", wings="on")
    await dc.command(players[2], "start")
    await play_on(dc, playing=in_turn())
    ann = players[0]
    notices = [m for m in dc.fake.shown(dc.channel) if f"<@{ann.id}>" in m.content]
    assert len(notices) < 5  # (a round without one)
    assert "your DMs are closed" in notices[0].content
    assert all("your DMs are closed" not in m.content for m in notices[1:])
    assert [m.name for m in notices if m.custom_ids()] == []
