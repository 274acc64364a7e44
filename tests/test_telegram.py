"""The Telegram front end end to end: the real PTB Application, long polling (or a webhook)
against the fake Bot API server of `tests/fake_telegram.py`, the real game service and a real
redis-server. The tests act as the people: commands in the group, presses in the group and in
private chats, and read back what each chat shows."""

import asyncio
import contextlib
import difflib
import itertools
import json
import logging
import os
import random
import re
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import reading
import redis
import redis.asyncio as aioredis
from aiohttp import ClientSession, web
from fake_telegram import Event, FakeTelegram, MessageView, RateLimits, User
from PIL import ImageFont
from service_helpers import (
    Clock,
    CountedRedis,
    Pondering,
    counted_ticks,
    failing,
    reviews_held,
    reviews_posted,
    round_ends,
)
from telegram import Update
from telegram.error import TelegramError
from telegram.ext import AIORateLimiter

from adapters.outbox import FAST, Limits
from adapters.slots import hand_slot
from adapters.telegram.app import TelegramFrontEnd
from adapters.telegram.ids import chat_key, user_key
from adapters.telegram.notices import open_slot, unreached_slot
from adapters.telegram.render import Post
from adapters.telegram.slots import Slots
from adapters.text import TITLE_LIMIT, clean
from bot import tokens
from bot.ai import LEVELS
from bot.commands import Kind
from bot.config import Config, TelegramConfig
from bot.metrics import Readiness
from bot.requests import Request
from bot.requests import User as Asker
from bot.service import HINT_SENT, SORRY, STORE_AWAY, GameService
from bot.show.i18n import texts
from bot.show.themes import Theme, card_face
from bot.store import Store, keys, redis_client
from bot.store.redis_server import RedisServer, free_port
from bot.table import Settings
from bot.tokens import Action
from engine import Card, Phase

pytestmark = pytest.mark.filterwarnings(
    # PTB warns when it reads a 429's retry_after (the type changes in its next major version)
    "ignore:.*retry_after:telegram.warnings.PTBDeprecationWarning"
)

GROUP = -100123
ANN = User(1001, "Ann", "ann")
BOB = User(1002, "Bob", "bob", last_name="Brown")
CID = User(1003, "Cid", "cid")
DAN = User(1004, "Dan", "dan")
EVE = User(1005, "Eve", "eve")
PLAYERS = (ANN, BOB, CID)
TABLE = "🔮 Round "
GOLDEN = Path(__file__).parent / "golden" / "telegram"


SETTLE = 0.005
"""Seconds without a call to the fake that end a round of `settled` that found nothing to do:
the margin for work no round waits for by name (the timer loop's)."""


async def settled(fake: FakeTelegram, fronts: Sequence[TelegramFrontEnd]) -> None:
    """Wait until `fronts` have taken in every update (fetched and confirmed: a polling bot
    confirms what it queued by asking for the next ones; a webhook's delivery is answered
    once queued), handled them (the update queue joined), made the AI moves left aside, shown
    them (the timer loop, `aside_shown`) and posted all that; again until a whole round of it
    saw no call to the fake and `SETTLE` seconds passed after the last one. The fake alone
    cannot tell a bot that handles an update slowly from an idle one: handling makes no call
    until it answers."""
    while True:
        began = time.monotonic()
        await fake.wait_idle(timeout=30, quiet=0, taken_in=True)
        for front in fronts:
            await asyncio.wait_for(front.application.update_queue.join(), 30)
            await front.service.moved()
            await front.service.aside_shown()  # by the timer loop, between its ticks
            await front.outbox.flush()
        await fake.wait_idle(timeout=30, quiet=SETTLE)
        if fake.last_activity < began:
            return


@dataclass
class Bot:
    """The bot under test and the fake Telegram it talks to."""

    fake: FakeTelegram
    front: TelegramFrontEnd
    client: "aioredis.Redis"

    async def idle(self) -> None:
        """Wait until the bot took in and handled every update, made the AI moves they left
        (`GameService.moved`), posted everything, and a whole round of that found it quiet
        (`settled`)."""
        await settled(self.fake, (self.front,))

    async def command(self, chat: int, user: User, text: str) -> None:
        self.fake.send_command(chat, user, text)
        await self.idle()

    async def press(self, chat: int, user: User, message: int, data: str, **kw: bool) -> Event:
        """Press a button; the bot's answer to the press."""
        update = self.fake.press(chat, user, message, data, **kw)
        await self.idle()
        answer = self.fake.callback_answer(update["callback_query"]["id"])
        assert answer is not None, "the press was not answered"
        return answer

    async def press_label(self, chat: int, user: User, message: int, label: str) -> Event:
        update = self.fake.press_label(chat, user, message, label)
        await self.idle()
        answer = self.fake.callback_answer(update["callback_query"]["id"])
        assert answer is not None, "the press was not answered"
        return answer

    async def restart(self, clock: Callable[[], float] = time.time, turn_timeout: int = 90) -> None:
        """Stop the front end and start another on the same Redis (a restart)."""
        await self.front.stop()
        self.front = _front(self.fake, self.client, clock=clock, turn_timeout=turn_timeout)
        await self.front.start()

    def group_texts(self) -> list[str]:
        return [event.text for event in self.fake.transcript(GROUP) if event.kind != "user"]

    def lobby(self) -> MessageView:
        return next(
            m for m in self.fake.current_messages(GROUP).values() if "a new table" in m.text
        )

    def table(self) -> MessageView:
        """The group's newest table message."""
        shown = self.fake.current_messages(GROUP).values()
        tables = [m for m in shown if m.text.startswith(TABLE)]
        return tables[-1]

    def hand(self, user: User) -> MessageView:
        """The person's newest hand message (in their private chat)."""
        hands = [m for m in self.fake.current_messages(user.id).values() if "Round " in m.text]
        return hands[-1]

    def real_errors(self) -> list[object]:
        """Errors the fake returned, less the harmless ones."""
        return [e for e in self.fake.errors if "not modified" not in e.description]


@pytest.fixture
def game_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game ids g1, g2, ... instead of random ones (stable payloads)."""
    counter = itertools.count(1)
    monkeypatch.setattr("bot.chat.new_game_id", lambda: f"g{next(counter)}")


def _front(
    fake: FakeTelegram,
    client: "aioredis.Redis",
    *,
    turn_timeout: int = 90,
    lobby_timeout: int = 1800,
    limits: Limits = FAST,
    rate_limiter: AIORateLimiter | None = None,
    clock: Callable[[], float] = time.time,
    **telegram: str,
) -> TelegramFrontEnd:
    config = Config(
        turn_timeout=turn_timeout,
        lobby_timeout=lobby_timeout,
        telegram=TelegramConfig(
            token=fake.token, base_url=f"http://127.0.0.1:{fake.port}", **telegram
        ),
    )
    service = GameService(Store(client, Settings()), config, clock, rng=random.Random(11))
    return TelegramFrontEnd(
        config,
        service,
        client,
        limits=limits,
        rate_limiter=rate_limiter
        or AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3),
        timer_interval=0.2,
        poll_timeout=1,
    )


@contextlib.asynccontextmanager
async def running(redis_url: str) -> AsyncIterator[Bot]:
    """The bot, started, in the group "Wizards" of Ann, Bob, Cid, Dan and Eve."""
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=[*PLAYERS, DAN, EVE])
        client = aioredis.Redis.from_url(redis_url)
        bot = Bot(fake, _front(fake, client), client)
        await bot.front.start()
        try:
            yield bot
        finally:
            await bot.front.stop()
            await client.aclose()


@contextlib.asynccontextmanager
async def on_the_clock(
    redis_url: str, clock: Callable[[], float], members: Sequence[User]
) -> AsyncIterator[Bot]:
    """The bot, started on `clock` with 10 s turns, in the group "Wizards" of `members`."""
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=list(members))
        client = aioredis.Redis.from_url(redis_url)
        bot = Bot(fake, _front(fake, client, turn_timeout=10, clock=clock), client)
        await bot.front.start()
        try:
            yield bot
        finally:
            await bot.front.stop()
            await client.aclose()


@pytest.fixture
async def tg(redis_url: str, game_ids: None) -> AsyncIterator[Bot]:
    async with running(redis_url) as bot:
        yield bot


async def until(
    done: Callable[[], bool | Awaitable[bool]], what: str, timeout: float = 5.0
) -> None:
    """Wait until `done()` (or what it awaits) holds; AssertionError naming `what` after
    `timeout` seconds."""
    for _ in range(int(timeout / 0.01)):
        answer = done()
        if await answer if isinstance(answer, Awaitable) else answer:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"not within {timeout} s: {what}")


async def seat(bot: Bot, players: tuple[User, ...] = PLAYERS, short: bool = True) -> None:
    """The players open their private chats, join in the group, and the host picks 5 rounds."""
    for user in players:
        bot.fake.start_dm(user)
        await bot.idle()
        await bot.command(GROUP, user, "/join")
    if short:
        await bot.command(GROUP, players[0], "/options rounds=short")


def moves_of(message: MessageView) -> list[str]:
    """The payloads of the message's buttons that make a move: buttons the bot hears (not a
    link to the table), but no wings mark (the game does not wait for one)."""
    return [
        data
        for row in message.keyboard
        for button in row
        if (data := button.callback_data) and not is_mark(data)
    ]


def is_mark(data: str) -> bool:
    """Whether a button's payload marks a card (or clears the mark) for wings."""
    try:
        return tokens.decode(data).action is Action.WINGS
    except tokens.TokenError:
        return False


def has_moves(message: MessageView) -> bool:
    """Whether the message offers a move (see `moves_of`)."""
    return bool(moves_of(message))


def whose_turn(bot: Bot, players: tuple[User, ...]) -> tuple[User, MessageView] | None:
    """The player the game waits for, with their hand message."""
    for user in players:
        hand = bot.hand(user)
        if has_moves(hand) or "Your bid?" in hand.text:
            return user, hand
    return None


async def play_on(bot: Bot, players: tuple[User, ...] = PLAYERS, limit: int = 400) -> int:
    """Make moves (the first choice offered) until the game is over; the number of moves."""
    for moves in range(limit):
        if any("The game is over" in text for text in bot.group_texts()):
            return moves
        await move(bot, players)
    raise AssertionError("the game did not end")


async def move(bot: Bot, players: tuple[User, ...] = PLAYERS) -> str:
    """The player the game waits for presses the first button offered; its payload."""
    turn = whose_turn(bot, players)
    assert turn is not None, "nobody's turn, and the game is not over"
    user, hand = turn
    if has_moves(hand):
        chat, message, data = user.id, hand.message_id, moves_of(hand)[0]
    else:  # an open bid: the buttons are under the group's table
        table = bot.table()
        chat, message, data = GROUP, table.message_id, table.keyboard[0][0].callback_data
    assert data is not None
    answer = await bot.press(chat, user, message, data)
    assert not answer.show_alert, answer.text
    return data


# --- whole games ------------------------------------------------------------------------------


async def test_a_whole_game_in_a_group(tg: Bot) -> None:
    await seat(tg)
    lobby = tg.lobby()
    assert all(name in lobby.text for name in ("Ann", "Bob Brown", "Cid", "5 rounds"))
    for user in PLAYERS:  # each was greeted in private before sitting down
        hello = "sitting down at the table in Wizards"
        assert any(hello in event.text for event in tg.fake.transcript(user.id))
    answer = await tg.press_label(GROUP, BOB, lobby.message_id, "Start")
    assert not answer.show_alert
    moves = await play_on(tg)
    assert moves >= 3 * (1 + 2 + 3 + 4 + 5) + 3 * 5  # every card, every bid (and trump choices)
    over = [text for text in tg.group_texts() if "The game is over" in text]
    assert len(over) == 1
    assert "wins" in over[0] or "share first place" in over[0]
    summaries = [text for text in tg.group_texts() if re.match(r"Round \d is over", text)]
    assert len(summaries) == 4  # the last round's end is on the final table
    shown = tg.fake.current_messages(GROUP).values()
    assert any(m.text.startswith("🏁 Final table · round 5 of 5") for m in shown)
    # Nothing still shown invites a press it would refuse: only "Play again" is left.
    assert [m.labels for m in shown if m.keyboard] == [[["Play again"]]]
    # The group never shows a hand; every hand went to its owner's private chat.
    for event in tg.fake.transcript(GROUP):
        assert "Your hand" not in event.text
        assert all(".p" not in (b.callback_data or "") for row in event.keyboard for b in row)
    for user in PLAYERS:
        assert any("Your hand" in e.text for e in tg.fake.transcript(user.id))
    assert tg.fake.unanswered_presses() == []
    assert tg.fake.throttled == []
    assert tg.real_errors() == []
    # The record of the game, as a file.
    await tg.command(GROUP, ANN, "/record")
    document = tg.fake.last_message(GROUP)
    assert document.file_name == "wizard-game.json"
    assert b'"wizard-record/1"' in tg.fake.document(GROUP, document.message_id).data


async def test_the_first_round_summary_says_how_the_points_are_counted(tg: Bot) -> None:
    """A newcomer reads "❌ Ann: 1/0 -10 → -10" after their first round: the first summary
    says what the numbers are and how a round scores; the later ones are not made longer."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    key = "Tricks won/bid, points, total. Bid met: 20 + 10 a trick; missed: −10 a trick off."
    summaries = [text for text in tg.group_texts() if re.match(r"Round \d is over", text)]
    assert summaries[0].startswith("Round 1 is over.")
    assert summaries[0].endswith("\n" + key)
    assert all(key not in text for text in summaries[1:])


async def test_a_turn_to_play_shows_the_rounds_last_trick(tg: Bot) -> None:
    """A player who stays in the private chat sees how the round's last trick went when asked
    for a card (who won it, and the cards played after theirs, which only the group showed):
    once a trick of the round is done, and not before."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    turns = [
        event.text
        for user in PLAYERS
        for event in tg.fake.transcript(user.id)
        if event.text.endswith("Your turn: play a card.")
    ]
    assert turns
    for text in turns:
        standings = re.search(r"Tricks won/bid: (.*)", text)
        assert standings is not None, text
        done = sum(int(won) for won in re.findall(r" (\d+)/\d+", standings[1]))
        assert ("\nLast trick: " in text) == (done > 0), text


async def test_a_bid_question_shows_the_score(tg: Bot) -> None:
    """From the second round on, a player asked to bid sees every player's total there (a bid
    late in a game depends on the score), with the minus sign below zero; the message their
    bid edits drops the line, as it drops the last round's."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    asked = [
        event
        for user in PLAYERS
        for event in tg.fake.transcript(user.id)
        if event.kind in ("message", "edit") and event.text.startswith("Round ")
    ]
    bids = [event.text for event in asked if "Your bid?" in event.text]
    assert len(bids) >= 3 * 5
    for text in bids:
        scores = re.search(r"\nScores: (.*)\n", text)
        assert (scores is None) == text.startswith("Round 1 of"), text
        if scores is not None:
            assert [part.rpartition(" ")[0] for part in scores[1].split(" · ")] == [
                "Ann",
                "Bob Brown",
                "Cid",
            ]
            assert "-" not in scores[1]
    assert any("Scores: " in text and "−" in text for text in bids)
    assert not any("Scores: " in e.text for e in asked if "Your bid?" not in e.text)


async def test_the_table_and_round_ends_ring_nobody(tg: Bot) -> None:
    """Each round's table and each round's end are posted to the group silently: the player
    whose turn it is gets a private message that rings, so the group's members are not rung
    twice a round for a game they may not play. The lobby, a cancel and the end of the game
    ring as before, and so does every private message."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    posted = [e for e in tg.fake.transcript(GROUP) if e.kind in ("message", "photo")]
    tables = [e for e in posted if e.text.startswith(TABLE)]
    ends = [e for e in posted if re.match(r"Round \d is over", e.text)]
    assert len(tables) == 5
    assert len(ends) == 4
    assert all(e.silent for e in tables + ends)
    loud = [e.text.partition("\n")[0] for e in posted if not e.silent]
    assert loud == ["🔮 Wizard: a new table", "🏁 The game is over."]
    for user in PLAYERS:
        assert not any(e.silent for e in tg.fake.transcript(user.id) if e.kind == "message")


async def test_the_bid_question_says_what_a_bid_is(tg: Bot) -> None:
    """A newcomer asked "Your bid? (0 to 1)" cannot tell what the numbers count: the question
    says that a bid is the number of tricks they will take."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    turn = whose_turn(tg, PLAYERS)
    assert turn is not None
    _, hand = turn
    assert hand.text.endswith("\nYour bid? How many tricks will you take (0 to 1)?")
    assert hand.labels == [["0", "1"]]


async def test_a_move_at_the_wrong_time_says_what_the_table_is_doing(tg: Bot) -> None:
    """A newcomer who bids before the start, or plays a card while the others bid, was told
    "You can't do that right now." and no more. The reason (in their private chat, as every
    refused move's) now says what the table is doing, and the move changes nothing."""
    await seat(tg)
    await tg.command(GROUP, BOB, "/bid 1")
    assert tg.fake.last_message(BOB.id).text == "The game has not started yet."
    await tg.command(GROUP, ANN, "/start")
    turn = whose_turn(tg, PLAYERS)
    assert turn is not None
    table = tg.table().text
    await tg.command(GROUP, turn[0], "/play 🔷1")
    assert tg.fake.last_message(turn[0].id).text == (
        "Not now: it is time to bid; the cards are played once everyone has bid."
    )
    assert tg.table().text == table
    for _ in PLAYERS:  # every bid is in: the cards are played
        await move(tg)
    await tg.command(GROUP, CID, "/bid 0")
    expected = "Not now: the bids are in, and the cards are being played."
    assert tg.fake.last_message(CID.id).text == expected


async def test_a_refused_move_typed_in_the_group_is_answered_in_the_movers_language(
    tg: Bot,
) -> None:
    """The reason a move typed in the group is refused goes to the mover's private chat, so it
    is worded in their app's language, as everything else there: Uwe's app is in German, the
    group's language English. It came in the group's language, a line of English among his
    German hands. The group itself is told nothing."""
    uwe = User(1006, "Uwe", "uwe", language_code="de")
    tg.fake.add_group(GROUP, members=[uwe])
    await seat(tg, (ANN, BOB, uwe))
    await tg.command(GROUP, uwe, "/bid 1")
    assert tg.fake.last_message(uwe.id).text == "Das Spiel hat noch nicht begonnen."
    await tg.command(GROUP, ANN, "/start")
    group = len(tg.fake.transcript(GROUP))
    await tg.command(GROUP, uwe, "/play 🔷1")
    assert tg.fake.last_message(uwe.id).text == (
        "Jetzt nicht: Erst wird angesagt; gespielt wird, wenn alle angesagt haben."
    )
    assert [e.text for e in tg.fake.transcript(GROUP)[group:]] == ["/play 🔷1"]
    await tg.command(GROUP, ANN, "/play 🔷1")  # Ann's app is in English
    assert tg.fake.last_message(ANN.id).text.startswith("Not now: it is time to bid")


async def test_a_start_with_too_few_players_points_at_the_ai(tg: Bot) -> None:
    """Two friends trying the game were told only that 3 players are needed: nothing said an
    AI player can take the third seat. The refusal says how to add one (/addbot works whether
    the lobby shows its "Add AI" button or the host's option buttons)."""
    await seat(tg, (ANN, BOB))
    await tg.command(GROUP, ANN, "/start")
    too_few = (
        "At least 3 players are needed to start: invite more, or add an AI player with /addbot."
    )
    assert tg.fake.last_message(GROUP).text == too_few
    answer = await tg.press_label(GROUP, BOB, tg.lobby().message_id, "Start")
    assert answer.show_alert
    assert answer.text == too_few
    await tg.command(GROUP, BOB, "/addbot")
    await tg.command(GROUP, ANN, "/start")
    assert tg.table().text.startswith("🔮 Round 1 of 5")


async def test_a_new_table_after_a_game_is_a_new_message(tg: Bot) -> None:
    """ "Play again" opens the next table at the foot of the group, not in the last one's lobby
    message above the whole game before."""
    await seat(tg)
    first = tg.lobby().message_id
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    over = tg.fake.last_message(GROUP)
    assert "The game is over" in over.text
    answer = await tg.press_label(GROUP, BOB, over.message_id, "Play again")
    assert not answer.show_alert, answer.text
    lobby = tg.lobby()
    assert lobby.message_id > over.message_id > first
    assert "1. Bob Brown" in lobby.text
    assert "the game has started" in tg.fake.current_messages(GROUP)[first].text


async def test_a_player_who_sits_out_the_next_game_keeps_no_play_again_once_it_starts(
    tg: Bot,
) -> None:
    """Cid plays a game and not the next: his own result keeps its "Play again" while the next
    table waits for players (a press seats him there), and loses it when that game starts, as
    the group's does (a press would be refused: its game is over); the players' results lose
    theirs to their first hand."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    over = tg.fake.last_message(GROUP)
    await tg.press_label(GROUP, ANN, over.message_id, "Play again")
    results = {
        user: next(m for m in tg.fake.current_messages(user.id).values() if "Your place" in m.text)
        for user in PLAYERS
    }
    assert {results[user].labels == [["Play again"]] for user in PLAYERS} == {True}
    for user in (BOB, DAN):
        tg.fake.start_dm(user)
        await tg.idle()
        await tg.command(GROUP, user, "/join")
    assert tg.fake.message(CID.id, results[CID].message_id).labels == [["Play again"]]
    await tg.command(GROUP, ANN, "/start")
    for user in PLAYERS:
        assert tg.fake.message(user.id, results[user].message_id).keyboard == (), user
    seen = len(tg.fake.transcript(CID.id))
    for _ in range(6):
        await move(tg, (ANN, BOB, DAN))
    assert len(tg.fake.transcript(CID.id)) == seen  # nothing of the game for him
    calls = tg.fake.total_calls(chat_id=CID.id)
    dead = tg.front.service.worker
    await tg.restart()
    await taken_over(tg, dead)  # shown again: his result has no button left to take off
    assert tg.fake.total_calls(chat_id=CID.id) == calls
    assert tg.real_errors() == []


async def a_play_again_table_bob_joined(tg: Bot) -> tuple[MessageView, dict[User, MessageView]]:
    """A game played to its end, Ann's "Play again" and Bob's /join: the group's end of the game
    and each player's own result (both still with "Play again")."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    over = tg.fake.last_message(GROUP)
    await tg.press_label(GROUP, ANN, over.message_id, "Play again")
    await tg.command(GROUP, BOB, "/join")
    results = {
        user: next(m for m in tg.fake.current_messages(user.id).values() if "Your place" in m.text)
        for user in PLAYERS
    }
    return over, results


async def test_a_cancelled_play_again_table_takes_the_last_games_play_again_off(
    tg: Bot,
) -> None:
    """Ann presses "Play again", Bob joins, and Ann cancels the new table before it starts:
    the last game's "Play again" goes from the group's end of the game and from every player's
    own result (a press would be refused: its game is over, and no table is left), and the
    group shows no button at all; /join opens the next table as ever."""
    over, results = await a_play_again_table_bob_joined(tg)
    lobby = tg.lobby()
    await tg.command(GROUP, ANN, "/cancel")
    await tg.idle()
    assert "cancelled" in tg.fake.message(GROUP, lobby.message_id).text
    assert tg.fake.message(GROUP, over.message_id).keyboard == ()
    for user in PLAYERS:
        assert tg.fake.message(user.id, results[user].message_id).keyboard == (), user
    assert [m.labels for m in tg.fake.current_messages(GROUP).values() if m.keyboard] == []
    await tg.command(GROUP, CID, "/join")
    assert "1. Cid" in tg.lobby().text
    assert tg.real_errors() == []


async def test_table_and_hands_are_edited_in_place(tg: Bot) -> None:
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    group = tg.fake.transcript(GROUP)
    sent = [e for e in group if e.kind == "message" and e.text.startswith(TABLE + "1 of")]
    edits = [e for e in group if e.kind == "edit" and e.text.startswith(TABLE)]
    assert len(sent) == 1
    assert len(edits) > 10
    tables = [e for e in group if e.kind == "message" and e.text.startswith(TABLE)]
    assert len(tables) == 5
    for user in PLAYERS:  # a new hand message when it is one's turn, else the last one edited
        private = tg.fake.transcript(user.id)
        assert any(e.kind == "edit" and "Your hand" in e.text for e in private)


@pytest.mark.parametrize("robots", [0, 1])
async def test_each_rounds_last_hand_message_counts_its_last_trick(tg: Bot, robots: int) -> None:
    """Secret bids: every player bids at once, so each round's bid comes as a new hand message.
    The message before it ends on the round as it ended: the last trick's winner sees it
    counted (it was one short), as the round's end in the group says. (The game's last round
    ends on `final_hands`.) With an AI seat, a round often ends on its card, played in the
    same outcome as the person's before it."""
    await seat(tg)
    for _ in range(robots):
        await tg.command(GROUP, ANN, "/addbot")
    await tg.command(GROUP, ANN, "/options bids=secret")
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    summaries = [text for text in tg.group_texts() if re.match(r"Round \d+ is over\.", text)]
    names = {ANN: "Ann", BOB: "Bob Brown", CID: "Cid"}
    checked = 0
    for user in PLAYERS:
        shown = tg.fake.current_messages(user.id).values()
        for number in range(1, 5):
            # The round's message once their last card was played (an earlier one, before a
            # turn, shows their hand as it was then); whoever played the round's last card has
            # theirs edited into the next round.
            head = f"Round {number} of 5 "
            hands = [m.text for m in shown if m.text.startswith(head) and "Your hand" not in m.text]
            if not hands:
                continue
            summary = next(s for s in summaries if s.startswith(f"Round {number} is over."))
            found = re.search(rf" {names[user]}: (\d+)/(\d+) ", summary)
            assert found is not None, summary
            won, bid = found.groups()
            assert f"Your bid: {bid} · tricks won: {won}" in hands[-1], (summary, hands[-1])
            checked += won != "0"
    assert checked  # a trick's winner among them


async def test_slot_messages_survive_a_restart(tg: Bot) -> None:
    await seat(tg)
    lobby = tg.lobby()
    await tg.restart()  # a new worker: it knows the lobby message from Redis alone
    tg.fake.start_dm(DAN)
    await tg.idle()
    await tg.command(GROUP, DAN, "/join")
    assert "Dan" in tg.fake.message(GROUP, lobby.message_id).text  # the same lobby, edited
    assert len([m for m in tg.fake.current_messages(GROUP).values() if "new table" in m.text]) == 1


async def test_a_restarted_worker_resumes_a_game_mid_round(tg: Bot) -> None:
    """The front end stops in the middle of a round's bidding and a new one starts on the same
    Redis: it takes the next press on a button the first one sent, and edits the same table."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options bids=hidden")
    await tg.command(GROUP, ANN, "/start")
    for user in (ANN, BOB):  # two of three hidden bids
        hand = tg.hand(user)
        await tg.press(user.id, user, hand.message_id, hand.keyboard[0][0].callback_data or "")
    shown = tg.table()
    assert "Cid to bid." in shown.text
    await tg.restart()
    hand = tg.hand(CID)  # the button the first worker sent
    answer = await tg.press(CID.id, CID, hand.message_id, hand.keyboard[0][0].callback_data or "")
    assert not answer.show_alert
    now = tg.table()
    assert now.message_id == shown.message_id  # the same message, edited
    assert " to play." in now.text
    assert tg.real_errors() == []


# --- a person seated in two groups -------------------------------------------------------------

FRIDAY = -100456
FRIDAY_TITLE = "\u202eFriday Wizard\n at Ann's place, every week" + " and then some" * 20
"""A hostile title: a right-to-left override, a line break, far too long."""


def games_shown(bot: Bot, user: User, since: int = 0) -> list[str]:
    """The private messages of a game the person was sent (hands, results) from transcript
    event `since` on: sent or edited, as they read then."""
    events = bot.fake.transcript(user.id)[since:]
    return [
        e.text
        for e in events
        if e.kind in ("message", "edit") and ("Round " in e.text or "Your place" in e.text)
    ]


async def play_through(bot: Bot, chat: int, players: tuple[User, ...]) -> None:
    """Make moves in `chat`'s game, each its player's first button in their private chat (on
    their newest hand message, which is of this game), until the game there is over."""
    for _ in range(400):
        if any("The game is over" in e.text for e in bot.fake.transcript(chat)):
            return
        turn = whose_turn(bot, players)
        assert turn is not None, "nobody's turn, and the game is not over"
        user, hand = turn
        data = hand.keyboard[0][0].callback_data
        assert data is not None
        answer = await bot.press(user.id, user, hand.message_id, data)
        assert not answer.show_alert, answer.text
    raise AssertionError("the game did not end")


async def test_a_person_in_two_groups_is_told_which_each_private_message_is_of(
    tg: Bot,
) -> None:
    """Ann sits in two groups at once: each private message of either game names its group
    first (the title made safe and cut short), and only while she has a live seat in the other
    one; the people seated in one group only see no group named."""
    friday = "💬 \u2068Friday Wizard at Ann's…\u2069 · "
    wizards = "💬 \u2068Wizards\u2069 · "
    tg.fake.add_group(FRIDAY, FRIDAY_TITLE, members=[ANN, DAN])
    await seat(tg)  # Ann, Bob and Cid at the Wizards' lobby
    tg.fake.start_dm(DAN)
    for user in (ANN, DAN):
        await tg.command(FRIDAY, user, "/join")
    await tg.command(FRIDAY, ANN, "/options rounds=short")
    await tg.command(FRIDAY, ANN, "/addbot")
    await tg.command(FRIDAY, DAN, "/start")
    await play_through(tg, FRIDAY, (ANN, DAN))
    # Every hand and the result Ann had of Friday's game named it; Dan, there only, saw none.
    shown = games_shown(tg, ANN)
    assert len(shown) > 10
    assert all(text.startswith(friday) for text in shown), shown
    assert shown[0].startswith(friday + "Round 1 of 5 · trump: ")
    assert "Your place: " in shown[-1]  # her result
    assert not any("💬" in text for text in games_shown(tg, DAN))

    # Ann sits at Friday's next table; the Wizards' game starts: hers name the Wizards.
    over = tg.fake.last_message(FRIDAY)
    await tg.press_label(FRIDAY, ANN, over.message_id, "Play again")
    since = {user.id: len(tg.fake.transcript(user.id)) for user in PLAYERS}
    await tg.command(GROUP, ANN, "/start")
    for _ in range(6):
        await move(tg)
    shown = games_shown(tg, ANN, since[ANN.id])
    assert shown
    assert all(text.startswith(wizards + "Round 1 of 5") for text in shown), shown
    for user in (BOB, CID):
        assert not any("💬" in text for text in games_shown(tg, user, since[user.id]))

    # Once she leaves Friday's table, her Wizards' messages name no group.
    await tg.command(FRIDAY, ANN, "/leave")
    left = len(tg.fake.transcript(ANN.id))
    await play_on(tg)
    shown = games_shown(tg, ANN, left)
    assert shown
    assert not any("💬" in text for text in shown), shown
    assert tg.real_errors() == []


def texts_of(bot: Bot, chat: int) -> list[str]:
    """What the bot posted in a group, as `Bot.group_texts` for the Wizards."""
    return [event.text for event in bot.fake.transcript(chat) if event.kind != "user"]


def rounds_over(bot: Bot, chat: int) -> int:
    """The round ends a group was shown (as `reviews_posted` counts them)."""
    return sum("is over" in text or "Final table" in text for text in texts_of(bot, chat))


async def move_in(bot: Bot, chat: int, players: tuple[tuple[User, str], ...]) -> None:
    """The player `chat`'s game waits for presses the first button offered: on their newest
    hand message of that game (the one whose text starts with their `prefix` for it), or under
    the group's table for an open bid."""
    for user, prefix in players:
        hands = [
            m
            for m in bot.fake.current_messages(user.id).values()
            if "Round " in m.text and m.text.startswith(prefix)
        ]
        hand = hands[-1] if hands else None
        if hand is None or not (has_moves(hand) or "Your bid?" in hand.text):
            continue
        if has_moves(hand):
            where, message, data = user.id, hand.message_id, moves_of(hand)[0]
        else:
            shown = bot.fake.current_messages(chat).values()
            table = [m for m in shown if m.text.startswith(TABLE)][-1]
            where, message, data = chat, table.message_id, table.keyboard[0][0].callback_data
        assert data is not None
        answer = await bot.press(where, user, message, data)
        assert not answer.show_alert, answer.text
        return
    raise AssertionError(f"nobody's turn in {chat}")


async def test_a_hint_typed_in_the_group_is_answered_there(tg: Bot) -> None:
    """The player the game waits for types /hint in the group at a coach table: the hint comes
    to them privately, and the group's reply to the command says where it went (as /review's
    does), in the group's language; before, the group saw no answer at all."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options coach")
    await tg.command(GROUP, ANN, "/start")
    turn = whose_turn(tg, PLAYERS)
    assert turn is not None
    user = turn[0]
    await tg.command(GROUP, user, "/hint")
    shown = [m for _id, m in sorted(tg.fake.current_messages(user.id).items())]
    assert shown[-2].text.startswith("💡 Hint for"), shown[-2].text
    check_hands_last(tg, PLAYERS)  # the hand again under it
    typed, answer = tg.fake.transcript(GROUP)[-2:]
    assert (typed.kind, typed.text, answer.kind) == ("user", "/hint", "message")
    assert answer.text == "Your hint comes to you privately."
    assert answer.reply_to == typed.message_id
    await tg.command(GROUP, ANN, "/language de")
    await tg.command(GROUP, user, "/hint")
    shown = [m for _id, m in sorted(tg.fake.current_messages(user.id).items())]
    assert shown[-2].text.startswith("💡 "), shown[-2].text
    assert tg.group_texts()[-1] == "Dein Tipp kommt privat zu dir."


async def test_a_double_tap_on_hint_posts_the_hint_once(tg: Bot) -> None:
    """The player the game waits for taps Hint twice at once on their turn message: one hint
    is posted, with the hand again under it (without Hint: the one tapped loses its
    buttons); the other press is answered (a toast) that it was sent already, not with the
    same hint posted a second time."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options coach")
    await tg.command(GROUP, ANN, "/start")
    turn = whose_turn(tg, PLAYERS)
    assert turn is not None
    user, hand = turn
    (data,) = [b.callback_data for row in hand.keyboard for b in row if b.text == "💡 Hint"]
    assert data is not None
    taps = [tg.fake.press(user.id, user, hand.message_id, data) for _ in range(2)]
    await tg.idle()
    hints = [e for e in tg.fake.transcript(user.id) if e.text.startswith("💡 Hint for")]
    assert len(hints) == 1, [e.text for e in hints]
    answers = [tg.fake.callback_answer(tap["callback_query"]["id"]) for tap in taps]
    said = sorted(answer.text for answer in answers if answer is not None)
    assert said == ["", HINT_SENT]
    assert not any(answer is not None and answer.show_alert for answer in answers)
    assert tg.fake.message(user.id, hand.message_id).keyboard == ()  # left behind
    anew = tg.hand(user)
    assert anew.message_id > hints[0].message_id
    assert "💡 Hint" not in [b.text for row in anew.keyboard for b in row]


async def test_a_person_in_two_coach_groups_is_told_which_each_review_is_of(tg: Bot) -> None:
    """Ann sits at coach tables in two groups at once, with Bob in the Wizards and Dan in
    Friday's: as a round ends in one and then in the other, each review she gets privately
    names the group whose round it is, also Friday's last round's, which comes once that game
    is over and says so. Bob and Dan, at one table each, see no group named."""
    friday, wizards = "💬 \u2068Friday\u2069 · ", "💬 \u2068Wizards\u2069 · "
    tg.fake.add_group(FRIDAY, "Friday", members=[ANN, DAN])
    await seat(tg, (ANN, BOB))
    await tg.command(GROUP, ANN, "/options coach")
    await tg.command(GROUP, BOB, "/addbot")
    tg.fake.start_dm(DAN)
    for user in (ANN, DAN):
        await tg.command(FRIDAY, user, "/join")
    for option in ("rounds=short", "coach"):
        await tg.command(FRIDAY, ANN, f"/options {option}")
    await tg.command(FRIDAY, DAN, "/addbot")
    await tg.command(FRIDAY, ANN, "/start")
    await tg.command(GROUP, ANN, "/start")
    games = {
        FRIDAY: (friday, ((ANN, friday), (DAN, ""))),
        GROUP: (wizards, ((ANN, wizards), (BOB, ""))),
    }
    front = tg.front
    got: dict[int, list[str]] = {FRIDAY: [], GROUP: []}
    played = dict.fromkeys(games, 0)
    for chat in (FRIDAY, GROUP) * 4 + (FRIDAY,):  # rounds 1 to 4 of each, then Friday's last
        prefix, players = games[chat]
        played[chat] += 1
        of = " of your last game" if played[chat] == 5 else ""
        head = f"{prefix}📝 The coach on round {played[chat]}{of}: what was worth more\n"
        over = rounds_over(tg, chat)
        since = {user.id: len(tg.fake.transcript(user.id)) for user in (ANN, BOB, DAN)}
        while rounds_over(tg, chat) == over:
            await move_in(tg, chat, players)
        await reviews_posted(texts_of(tg, chat), over, front.service, front.timer_interval, tg.idle)
        mine = [e.text for e in tg.fake.transcript(ANN.id)[since[ANN.id] :] if "📝" in e.text]
        assert all(text.startswith(head) for text in mine), (head, mine)
        got[chat] += mine
        for user in (BOB, DAN):
            theirs = [e.text for e in tg.fake.transcript(user.id)[since[user.id] :]]
            assert all(text.startswith("📝") for text in theirs if "📝" in text), theirs
    assert got[FRIDAY], "the first button's play makes costly decisions"
    assert got[GROUP]
    assert " of your last game" in got[FRIDAY][-1]  # seen: round 5 had one, at this seed
    assert any("The game is over" in text for text in texts_of(tg, FRIDAY))
    assert tg.real_errors() == []


# --- a hand message whose record a crash lost ---------------------------------------------------


def hand_map(user: User) -> str:
    """The slot map of the person's private chat (where their hand messages are named)."""
    return keys.telegram(chat_key(user.id))


async def a_lost_turn_message(bot: Bot) -> tuple[User, int, int]:
    """Play on until a move brings someone a new turn message, then lose its record the way a
    crash does (the worker died after Telegram took the message, before Redis had its id):
    the slot map of their chat is put back as it was before the move, naming their message
    before. The player, that older message and the new one (the newest in their chat)."""
    for _ in range(100):
        before = {user.id: await bot.client.hgetall(hand_map(user)) for user in PLAYERS}
        shown = {user.id: bot.hand(user).message_id for user in PLAYERS}
        await move(bot)
        for user in PLAYERS:
            hand = bot.hand(user)
            if hand.message_id != shown[user.id] and has_moves(hand):
                await bot.client.delete(hand_map(user))
                await bot.client.hset(hand_map(user), mapping=before[user.id])
                return user, shown[user.id], hand.message_id
    raise AssertionError("nobody got a new turn message")


async def test_a_press_on_a_hand_message_whose_record_was_lost_adopts_it(tg: Bot) -> None:
    """The press is taken, and what it changes is shown in the message pressed (the newest),
    not in the one before that the slot map still named."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    user, older, newer = await a_lost_turn_message(tg)
    assert await tg.front.slots.get(user.id, hand_slot(chat_key(GROUP))) == older
    was = tg.fake.message(user.id, older)
    data = tg.fake.message(user.id, newer).keyboard[0][0].callback_data or ""
    answer = await tg.press(user.id, user, newer, data)
    assert not answer.show_alert, answer.text
    assert tg.fake.message(user.id, older) == was  # left alone
    assert tg.fake.message(user.id, newer).text != tg.fake.message(user.id, older).text
    assert await tg.front.slots.get(user.id, hand_slot(chat_key(GROUP))) == newer
    await play_on(tg)  # the newest hand message is the live one, to the end
    assert tg.real_errors() == []


async def test_a_stale_press_on_a_hand_message_whose_record_was_lost_shows_the_hand_there(
    tg: Bot,
) -> None:
    """The player moved another way (a command in the group) after the crash: that move edited
    the message before, and the newest one kept buttons that no longer work. A press on one is
    refused, and that message shows the hand as it is now; the one before loses its buttons."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    user, older, newer = await a_lost_turn_message(tg)
    was = tg.fake.message(user.id, older)
    data = tg.fake.message(user.id, newer).keyboard[0][0].callback_data or ""
    token = tokens.decode(data)
    typed = {Action.BID: "bid", Action.PLAY: "play"}[token.action]
    await tg.command(GROUP, user, f"/{typed} {token.arg}")
    now = tg.fake.message(user.id, older)
    assert now != was  # the move was shown there, in the message the slot map names
    assert tg.hand(user).message_id == newer  # the newest, with buttons that no longer work
    assert has_moves(tg.hand(user))
    answer = await tg.press(user.id, user, newer, data)
    assert answer.show_alert
    assert tg.fake.message(user.id, newer).text == now.text
    assert tg.fake.message(user.id, newer).keyboard == now.keyboard
    assert not has_moves(tg.fake.message(user.id, older))
    assert await tg.front.slots.get(user.id, hand_slot(chat_key(GROUP))) == newer
    await play_on(tg)  # the newest hand message is the live one, to the end
    assert tg.real_errors() == []


# --- a start or a cancel whose posts a crash lost -------------------------------------------


async def dies_after(bot: Bot, user: User, kind: Kind, arg: str = "") -> str:
    """The worker applies `user`'s request (its write, journaled) and dies before it posts
    anything of it; another starts on the same Redis. The dead worker's name."""
    dead = bot.front.service
    asker = Asker(user_key(user.id), user.first_name)
    await dead.handle(chat_key(GROUP), asker, Request(kind, arg))
    await bot.restart()
    return dead.worker


async def taken_over(bot: Bot, dead: str) -> None:
    """Wait until another worker took the dead one's journal over (once its heartbeat is
    older than the lease) and posted what it showed again (the tick after has begun)."""
    ticks = counted_ticks(bot.front.service)
    for _ in range(1000):
        if not await bot.client.exists(keys.journal("tg", dead)):
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("nobody took the dead worker's journal over")
    taken = ticks.count
    await until(lambda: ticks.count > taken, "the next tick")
    await bot.idle()


async def test_a_start_a_crash_left_unposted_closes_the_lobby_when_shown_again(tg: Bot) -> None:
    """The worker died after the /start's write, before any post: the lobby kept its buttons
    (each press refused, the game having started). The worker that takes its journal over
    shows the game again, the lobby closed among it."""
    await seat(tg)
    lobby = tg.lobby()
    assert lobby.keyboard
    await taken_over(tg, await dies_after(tg, ANN, Kind.START))
    closed = tg.fake.message(GROUP, lobby.message_id)
    assert closed.text.startswith("🔮 Wizard: the game has started.")
    assert closed.keyboard == ()
    assert tg.table().keyboard or whose_turn(tg, PLAYERS) is not None
    await play_on(tg)
    assert tg.real_errors() == []


async def test_a_cancel_a_crash_left_unposted_takes_the_lobby_buttons_off(tg: Bot) -> None:
    """The worker died after the cancel's write: with no table left, the worker that takes
    its journal over takes the buttons off the lobby (they would all be refused), which says
    it was cancelled, as the lost post did. A new table opened after keeps its own, even from
    what was read of the chat before it."""
    await seat(tg)
    lobby = tg.lobby()
    await taken_over(tg, await dies_after(tg, ANN, Kind.CANCEL))
    cancelled = tg.fake.message(GROUP, lobby.message_id)
    assert (cancelled.text, cancelled.keyboard) == ("🔮 Wizard: this table was cancelled.", ())
    late = await tg.front.service.current(chat_key(GROUP))  # shown again, but late
    await tg.command(GROUP, BOB, "/join")
    (opened,) = [m for m in tg.fake.current_messages(GROUP).values() if m.keyboard]
    assert opened.message_id > lobby.message_id
    tg.front.show(chat_key(GROUP), late)
    await tg.idle()
    assert tg.fake.message(GROUP, opened.message_id).keyboard == opened.keyboard
    assert tg.real_errors() == []


async def test_a_play_again_table_a_crash_left_started_or_cancelled_shows_no_button_of_it(
    tg: Bot,
) -> None:
    """After a game, "Play again" opens the next table; the worker dies after that game's
    /start, before any post: shown again, the lobby is closed and the last game's end loses
    its "Play again" (a press would be refused). The same again for the game's cancel: the
    group shows no button at all (an open bid's under the table went too)."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    over = tg.fake.last_message(GROUP)
    await tg.press_label(GROUP, ANN, over.message_id, "Play again")
    for user in (BOB, CID):
        await tg.command(GROUP, user, "/join")
    (lobby,) = [m for m in tg.fake.current_messages(GROUP).values() if "Start" in str(m.labels)]
    assert tg.fake.message(GROUP, over.message_id).keyboard
    await taken_over(tg, await dies_after(tg, ANN, Kind.START))
    started = tg.fake.message(GROUP, lobby.message_id)
    assert started.text.startswith("🔮 Wizard: the game has started.")
    assert tg.fake.message(GROUP, over.message_id).keyboard == ()
    buttoned = [m.message_id for m in tg.fake.current_messages(GROUP).values() if m.keyboard]
    assert buttoned in ([], [tg.table().message_id])  # an open bid's, if any
    for _ in range(2):
        await move(tg)
    await taken_over(tg, await dies_after(tg, ANN, Kind.CANCEL))
    assert [m.labels for m in tg.fake.current_messages(GROUP).values() if m.keyboard] == []
    assert tg.real_errors() == []


def private_buttons(bot: Bot) -> dict[int, list[int]]:
    """The messages with buttons to press (not links) in each player's private chat."""
    found = {
        u.id: [
            m.message_id
            for m in bot.fake.current_messages(u.id).values()
            if any(key.callback_data for row in m.keyboard for key in row)
        ]
        for u in PLAYERS
    }
    return {user: ids for user, ids in found.items() if ids}


async def test_a_game_cancel_a_crash_left_unposted_takes_the_hands_buttons_off(tg: Bot) -> None:
    """The worker died after a running game's /cancel was written, before any post: the
    hands in the players' private chats kept their buttons (each press refused). The cancel
    noted who sat at the table beside the chat's version, so the worker that takes its
    journal over takes their buttons off too, each saying the game was cancelled as the lost
    post did (the group as before: no button left)."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    for _ in range(20):
        if private_buttons(tg):
            break
        await move(tg)
    buttoned = private_buttons(tg)
    assert buttoned
    hands = [(user, message) for user, ids in buttoned.items() for message in ids]
    await taken_over(tg, await dies_after(tg, ANN, Kind.CANCEL))
    assert private_buttons(tg) == {}
    for user, message in hands:
        assert tg.fake.message(user, message).text == "The game was cancelled."
    assert [m.labels for m in tg.fake.current_messages(GROUP).values() if m.keyboard] == []
    assert tg.real_errors() == []


async def test_a_game_cancel_a_crash_left_unposted_says_so_where_no_button_was_left(
    tg: Bot,
) -> None:
    """The worker died after a game's /cancel was written, while cards were being played: the
    hands of the players not asked for a card and the group's table (no open bid under it)
    had no buttons, and kept saying what they said as if the game went on. The worker that
    takes its journal over edits them too, to what the lost posts said, once: shown again
    later, nothing is edited again."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    for _ in range(20):
        if tg.table().keyboard == () and 0 < len(private_buttons(tg)) < len(PLAYERS):
            break
        await move(tg)
    hands = {u: await tg.front.slots.get(u.id, hand_slot(chat_key(GROUP))) for u in PLAYERS}
    bare = [u for u, message in hands.items() if not tg.fake.message(u.id, message).keyboard]
    assert bare
    table = tg.table()
    assert table.keyboard == ()
    await taken_over(tg, await dies_after(tg, ANN, Kind.CANCEL))
    for user, message in hands.items():
        assert tg.fake.message(user.id, message).text == "The game was cancelled.", user
    assert tg.fake.message(GROUP, table.message_id).text.endswith("Ann cancelled the game.")
    edits = tg.fake.calls["editMessageText"]
    tg.front.show(chat_key(GROUP), await tg.front.service.current(chat_key(GROUP)))
    await tg.idle()
    assert tg.fake.calls["editMessageText"] == edits
    assert tg.real_errors() == []


async def test_a_cancel_a_crash_left_unposted_edits_no_message_of_an_older_game(tg: Bot) -> None:
    """After a game, a new table is opened whose lobby post never went (the worker had it
    applied, then posted nothing), and is cancelled by a worker that dies before any post: the
    group's lobby slot still names the last game's lobby, closed at its start. The worker that
    takes the journal over does not make that message say the new table was cancelled (the
    note names the cancelled game, and the message is another's): it stays as it was."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    started = next(
        m for m in tg.fake.current_messages(GROUP).values() if "the game has started" in m.text
    )
    table = tg.table()
    asker = Asker(user_key(ANN.id), ANN.first_name)
    await tg.front.service.handle(chat_key(GROUP), asker, Request(Kind.JOIN))  # posts lost
    await taken_over(tg, await dies_after(tg, ANN, Kind.CANCEL))
    assert tg.fake.message(GROUP, started.message_id).text == started.text
    assert tg.fake.message(GROUP, table.message_id).text == table.text
    assert [m.labels for m in tg.fake.current_messages(GROUP).values() if m.keyboard] == []
    assert tg.real_errors() == []


async def test_a_play_again_lobby_cancel_a_crash_left_unposted_takes_every_play_again_off(
    tg: Bot,
) -> None:
    """A table opened by "Play again" is cancelled and the worker dies before any post: the
    worker that takes its journal over takes "Play again" off the group's end of the last
    game and off each of its players' own result in their private chat."""
    over, results = await a_play_again_table_bob_joined(tg)
    assert all(result.keyboard for result in results.values())
    await taken_over(tg, await dies_after(tg, ANN, Kind.CANCEL))
    assert tg.fake.message(GROUP, over.message_id).keyboard == ()
    for user in PLAYERS:
        assert tg.fake.message(user.id, results[user].message_id).keyboard == (), user
    assert [m.labels for m in tg.fake.current_messages(GROUP).values() if m.keyboard] == []
    assert tg.real_errors() == []


async def test_a_play_again_start_a_crash_left_unposted_takes_the_play_again_off_who_sits_out(
    tg: Bot,
) -> None:
    """Cid plays a game and not the next, which the worker dies starting, before any post: the
    worker that takes its journal over takes "Play again" off Cid's own result of the last game
    (the players' results give way to their first hand), and the game goes on."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    over = tg.fake.last_message(GROUP)
    await tg.press_label(GROUP, ANN, over.message_id, "Play again")
    result = next(m for m in tg.fake.current_messages(CID.id).values() if "Your place" in m.text)
    for user in (BOB, DAN):
        tg.fake.start_dm(user)
        await tg.idle()
        await tg.command(GROUP, user, "/join")
    assert tg.fake.message(CID.id, result.message_id).labels == [["Play again"]]
    await taken_over(tg, await dies_after(tg, ANN, Kind.START))
    assert tg.fake.message(CID.id, result.message_id).keyboard == ()
    assert tg.fake.message(GROUP, over.message_id).keyboard == ()
    seen = len(tg.fake.transcript(CID.id))
    await play_on(tg, (ANN, BOB, DAN))
    assert len(tg.fake.transcript(CID.id)) == seen  # nothing of the game for him
    assert tg.real_errors() == []


async def test_a_start_and_a_cancel_that_were_posted_are_not_posted_again(tg: Bot) -> None:
    """Shown again where nothing is behind, the group gets no call: the lobby shows the start
    already (the moves since changed nothing of it), and once cancelled none of its messages
    has buttons left."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await move(tg)
    calls = tg.fake.total_calls(chat_id=GROUP)
    dead = tg.front.service.worker
    await tg.restart()
    await taken_over(tg, dead)
    assert tg.fake.total_calls(chat_id=GROUP) == calls
    await tg.command(GROUP, ANN, "/cancel")
    chats = (GROUP, *(user.id for user in PLAYERS))  # the hands lost their buttons already
    calls = [tg.fake.total_calls(chat_id=chat) for chat in chats]
    dead = tg.front.service.worker
    await tg.restart()
    await taken_over(tg, dead)
    assert [tg.fake.total_calls(chat_id=chat) for chat in chats] == calls
    assert tg.real_errors() == []


# --- refusals, stale buttons, redelivery -----------------------------------------------------


async def test_a_press_from_the_wrong_person_is_refused_and_changes_nothing(tg: Bot) -> None:
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    turn = whose_turn(tg, PLAYERS)
    assert turn is not None
    bidder, _hand = turn
    other = next(user for user in PLAYERS if user != bidder)
    table = tg.table()
    before = len(tg.fake.transcript(GROUP))
    data = table.keyboard[0][0].callback_data or ""
    answer = await tg.press(GROUP, other, table.message_id, data)
    assert answer.show_alert
    assert "turn" in answer.text.lower()
    after = tg.fake.transcript(GROUP)
    assert [e.kind for e in after[before:]] == ["press", "answer"]
    assert tg.fake.message(GROUP, table.message_id).text == table.text


async def test_a_group_the_bot_is_added_to_is_welcomed_with_the_help(tg: Bot) -> None:
    tg.fake.add_bot_to_group(-100777, DAN, "Card night")
    await tg.idle()
    (welcome,) = [m for m in tg.fake.current_messages(-100777).values() if m.from_bot]
    assert welcome.text.startswith("🔮 Wizard: bid exactly the tricks you will take.")
    assert "/join – take a seat" in welcome.text
    promoted = tg.fake.add_bot_to_group(-100777, DAN, enqueue=False)["my_chat_member"]
    promoted["old_chat_member"]["status"] = "member"  # made an admin: no second welcome
    tg.fake.inject({"my_chat_member": promoted})
    await tg.idle()
    assert len([m for m in tg.fake.current_messages(-100777).values() if m.from_bot]) == 1


async def test_the_rules_teach_a_newcomer_the_game_in_a_phone_screen(tg: Bot) -> None:
    """/rules spoke of tricks without saying what one is, and never said who wins: a newcomer
    could not learn the game from it. It says both, and stays a phone screen long."""
    await tg.command(GROUP, DAN, "/rules")
    rules = tg.group_texts()[-1].splitlines()
    assert rules[0] == "📜 Wizard in short"
    trick = "A trick: each player plays one card in turn; its winner leads the next one."
    bids = "Starting left of the dealer, everyone bids how many tricks they will take."
    assert rules.index(trick) == rules.index(bids) + 1
    assert rules[-1] == "After the last round, the most points wins."
    assert len(rules) <= 10
    assert all(len(line) <= 90 for line in rules)


async def test_the_rules_say_what_a_led_jester_or_wizard_does_to_the_suit_to_follow(
    tg: Bot,
) -> None:
    """/rules told a newcomer to follow the lead suit without saying what it is when a Jester
    or a Wizard leads (the next card sets it; after a Wizard any card may follow): the play
    refused cards they had no rule for. It says so beside the duty to follow, still in ten
    lines, the trump card's three cases on one line."""
    await tg.command(GROUP, DAN, "/rules")
    rules = tg.group_texts()[-1].splitlines()
    follow = "Follow the lead suit if you can; a Wizard or a Jester may always be played."
    led = "A Jester led: the next card sets the suit to follow; a Wizard led: any card may follow."
    assert rules[rules.index(follow) + 1] == led
    trump = (
        "Round r deals r cards; the next card sets trump (Jester: none; Wizard: the dealer picks)."
    )
    assert trump in rules
    assert len(rules) <= 10
    assert all(len(line) <= 90 for line in rules)


async def test_the_rules_say_who_takes_a_trick_of_jesters_alone(tg: Bot) -> None:
    """/rules gave a trick to the first Wizard, the highest trump or the highest lead card, and
    a trick of Jesters alone has none of them: the first Jester takes it, and /rules says so."""
    await tg.command(GROUP, DAN, "/rules")
    rules = tg.group_texts()[-1].splitlines()
    winner = (
        "The first Wizard wins, else the top trump, else the top lead card, else the first Jester."
    )
    assert winner in rules
    assert len(rules) <= 10


async def test_the_welcome_says_how_to_begin_before_the_list_of_commands(tg: Bot) -> None:
    """Added to a group, the bot posted its list of 19 commands, and a newcomer had to find in
    it which two begin a game. Its second line says so, and where the game is explained."""
    tg.fake.add_bot_to_group(-100777, DAN, "Card night")
    await tg.idle()
    (welcome,) = [m for m in tg.fake.current_messages(-100777).values() if m.from_bot]
    lines = welcome.text.splitlines()
    begin = "To play, everyone sends /join; then someone sends /start. New to Wizard? See /rules."
    assert lines[:3] == ["🔮 Wizard: bid exactly the tricks you will take.", begin, ""]
    await tg.command(GROUP, DAN, "/help")  # the same help, in the group and in private
    assert tg.group_texts()[-1] == welcome.text
    tg.fake.start_dm(DAN)
    await tg.command(DAN.id, DAN, "/help")
    assert tg.fake.last_message(DAN.id).text == welcome.text


async def test_a_mistyped_command_gets_the_one_it_was_meant_to_be(tg: Bot) -> None:
    """A newcomer who typed /jion got no answer at all, and could not tell a typo from a bot
    that does not work. A command one slip away from one of ours gets "Did you mean /join?"
    and changes nothing; other commands (another bot's) are left alone, as are ours addressed
    to another bot."""
    tg.fake.set_bot_admin(GROUP)  # it sees every message, other bots' commands too
    tg.fake.start_dm(ANN)
    await tg.command(GROUP, ANN, "/jion")
    typed, answer = tg.fake.transcript(GROUP)[-2:]
    assert (typed.kind, typed.text, answer.kind) == ("user", "/jion", "message")
    assert answer.text == "Did you mean /join?"
    assert answer.reply_to == typed.message_id
    assert await tg.front.service.table(chat_key(GROUP)) is None  # nobody is seated
    await tg.command(GROUP, ANN, f"/strat@{tg.fake.bot_username}")
    assert tg.group_texts()[-1] == "Did you mean /start?"
    shown = len(tg.group_texts())
    for other in ("/foo", "/ban Bob", "/stars", "/jion@other_bot", "/ok"):
        await tg.command(GROUP, ANN, other)
    assert len(tg.group_texts()) == shown
    await tg.command(GROUP, ANN, "/join")  # the real one still works
    assert "1. Ann" in tg.lobby().text


UNSEEN = "The game is over: I can no longer post in its chat (I was removed, or it is gone)."
TOPIC_GONE = "The game is over: its topic was closed or deleted, so I can no longer post there."
MUTED = "The game is over: I am no longer allowed to send messages in its chat."


async def ended_unseen(tg: Bot, said: str = UNSEEN) -> None:
    """The game ended as one nobody can see: no timer runs it on, and each player's private
    hand message, its buttons gone, says why (`said`)."""
    assert await tg.front.service.table(chat_key(GROUP)) is None
    for user in PLAYERS:
        assert not any(has_moves(message) for message in tg.fake.current_messages(user.id).values())
        assert tg.fake.last_message(user.id).text == said


async def test_a_game_whose_group_removed_the_bot_ends_and_its_players_are_told(tg: Bot) -> None:
    """Removed from the group mid-game, the bot can show the table to nobody: the game ends
    (no timer left to run it on, no hand left to press), and each player's private hand message
    says why. The group, where the bot may not post, gets nothing."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options bids=hidden")
    await tg.command(GROUP, ANN, "/start")
    await move(tg)
    group_calls = tg.fake.total_calls(chat_id=GROUP)
    tg.fake.kick_bot(GROUP, DAN)
    await tg.idle()
    await ended_unseen(tg)
    assert tg.fake.total_calls(chat_id=GROUP) == group_calls
    tg.fake.add_bot_to_group(GROUP, DAN)  # back in the group: a new game may start there
    await tg.idle()
    await tg.command(GROUP, ANN, "/join")
    assert "1. Ann" in tg.lobby().text


async def test_a_game_whose_group_lost_the_bot_unsaid_ends_at_its_first_refused_post(
    tg: Bot,
) -> None:
    """Removed from the group with no update that says so (lost while every worker was down
    for longer than Telegram keeps updates, or the group deleted), the bot learns it from its
    next post there, refused with 403 "bot was kicked": the game ends then, as when the update
    comes, its players told privately, instead of going on from the private chats unseen."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options bids=hidden")
    await tg.command(GROUP, ANN, "/start")
    await move(tg)
    tg.fake.remove_bot(GROUP)  # no my_chat_member update
    game = chat_key(GROUP)
    while (table := await tg.front.service.table(game)) is not None:  # from the private chats
        assert table.game.phase is not Phase.FINISHED, "the game was played to its end unseen"
        await move(tg)
    refused = {e.description for e in tg.fake.errors if e.chat_id == GROUP}
    assert refused == {"Forbidden: bot was kicked from the group chat"}
    await ended_unseen(tg)


async def test_a_game_whose_group_mutes_the_bot_ends_and_its_players_are_told(tg: Bot) -> None:
    """Muted in the group (restricted, may not send messages), the bot can show the table to
    nobody: the game ends as when it is removed, and the group gets nothing more."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options bids=hidden")
    await tg.command(GROUP, ANN, "/start")
    await move(tg)
    group_calls = tg.fake.total_calls(chat_id=GROUP)
    tg.fake.restrict_bot(GROUP, DAN)
    await tg.idle()
    await ended_unseen(tg, MUTED)  # not "I was removed, or it is gone"
    assert tg.fake.total_calls(chat_id=GROUP) == group_calls
    tg.fake.restrict_bot(GROUP, DAN, muted=False)  # unmuted: a new game may start there
    await tg.idle()
    await tg.command(GROUP, ANN, "/join")
    assert "1. Ann" in tg.lobby().text


async def test_a_game_whose_group_mutes_every_member_ends_at_its_first_refused_post(
    tg: Bot,
) -> None:
    """The group's default permissions let no member send messages: Telegram tells the bot
    nothing (its own membership is unchanged), and its next new message in the group is refused
    (400 "not enough rights to send text messages to the chat"). The game ends then, as when the
    bot is muted by an update, its players told privately, instead of going on from the private
    chats unseen; the group is not written to again."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options bids=hidden")
    await tg.command(GROUP, ANN, "/start")
    await move(tg)
    tg.fake.mute_members(GROUP)
    game = chat_key(GROUP)
    while (table := await tg.front.service.table(game)) is not None:  # from the private chats
        assert table.game.phase is not Phase.FINISHED, "the game was played to its end unseen"
        await move(tg)
    refused = {e.description for e in tg.fake.errors if e.chat_id == GROUP}
    assert refused == {"Bad Request: not enough rights to send text messages to the chat"}
    await ended_unseen(tg, MUTED)  # the players' last word, once: a later refusal finds no game
    group_calls = tg.fake.total_calls(chat_id=GROUP)
    await tg.command(ANN.id, ANN, "/start")  # a private /start finds no game to show
    assert tg.fake.total_calls(chat_id=GROUP) == group_calls
    tg.fake.mute_members(GROUP, muted=False)
    await tg.command(GROUP, ANN, "/join")  # a new game may start there
    assert "1. Ann" in tg.lobby().text


NO_PHOTOS = "Bad Request: not enough rights to send photos to the chat"
SHEET_TEXT = "Score sheet (w/b: tricks won/bid)"


def refusals(bot: Bot) -> list[str]:
    """What the fake refused the bot in the group, in order."""
    return [e.description for e in bot.fake.errors if e.chat_id == GROUP]


async def scores_shown(bot: Bot) -> Event:
    """Bob asks for the score sheet in the group: what the bot posted for it."""
    await bot.command(GROUP, BOB, "/scores")
    sheet = bot.fake.transcript(GROUP)[-1]
    assert sheet.text.startswith("Score sheet after round "), sheet.text
    return sheet


async def test_a_group_that_takes_no_pictures_gets_the_score_sheets_as_text(tg: Bot) -> None:
    """The group's default permissions allow text but no photos, which Telegram tells the bot
    nothing of: the score sheet after a round (/scores) and at the game's end comes as text in
    the same place, standings and all, and the game goes on to its end. Refused once, the
    game's later pictures go as text at once; the next game tries a picture again."""
    await seat(tg)
    tg.fake.forbid_files(GROUP)
    await tg.command(GROUP, ANN, "/start")
    while rounds_over(tg, GROUP) < 1:
        await move(tg)
    sheet = await scores_shown(tg)
    assert sheet.kind == "message"
    assert sheet.text.startswith("Score sheet after round 1 of 5\n")
    assert SHEET_TEXT in sheet.text
    assert all(name in sheet.text.partition(SHEET_TEXT)[2] for name in ("Ann", "Bob", "Cid"))
    assert refusals(tg) == [NO_PHOTOS]
    await play_on(tg)
    over = tg.fake.last_message(GROUP)
    assert over.text.startswith("🏁 The game is over.")
    assert SHEET_TEXT in over.text
    assert over.file_name is None
    assert over.labels == [["Play again"]]
    assert refusals(tg) == [NO_PHOTOS]  # the game's end went as text at once
    assert not any(event.kind == "photo" for event in tg.fake.transcript(GROUP))
    for user in PLAYERS:
        assert "Your place" in tg.fake.last_message(user.id).text
    tg.fake.forbid_files(GROUP, forbidden=False)  # photos allowed again: no update says so
    for user in PLAYERS:
        await tg.command(GROUP, user, "/join")
    await tg.command(GROUP, ANN, "/start")
    ended = rounds_over(tg, GROUP)
    while rounds_over(tg, GROUP) == ended:
        await move(tg)
    assert (await scores_shown(tg)).kind == "photo"
    assert refusals(tg) == [NO_PHOTOS]


async def test_a_picture_the_group_refused_is_not_tried_again_by_another_worker(tg: Bot) -> None:
    """The group takes no photos: the score sheet is refused once, and sent as text. A worker
    started anew (as another worker sharing the Redis) sends the game's next score sheet as
    text at once, with no refused call first (before, each worker remembered the refusal in
    its own memory, and paid it again)."""
    await seat(tg)
    tg.fake.forbid_files(GROUP)
    await tg.command(GROUP, ANN, "/start")
    while rounds_over(tg, GROUP) < 1:
        await move(tg)
    assert (await scores_shown(tg)).kind == "message"
    assert refusals(tg) == [NO_PHOTOS]
    await tg.restart()
    assert (await scores_shown(tg)).kind == "message"
    assert refusals(tg) == [NO_PHOTOS]


async def test_a_bot_allowed_pictures_again_by_an_update_sends_them_at_once(tg: Bot) -> None:
    """An admin lets the bot send text but no photos (a my_chat_member update: restricted,
    `can_send_messages` true): the game goes on, its score sheet as text. Photos allowed
    again (another update), the same game's next score sheet is a picture."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.restrict_bot_files(GROUP, DAN)
    await tg.idle()
    while rounds_over(tg, GROUP) < 1:
        await move(tg)
    assert (await scores_shown(tg)).kind == "message"
    assert (await scores_shown(tg)).kind == "message"
    assert refusals(tg) == [NO_PHOTOS]  # the second went as text at once
    tg.fake.restrict_bot_files(GROUP, DAN, forbidden=False)
    await tg.idle()
    assert (await scores_shown(tg)).kind == "photo"
    await move(tg)  # the game went on throughout
    assert await tg.front.service.table(chat_key(GROUP)) is not None


NO_DOCUMENTS = "Bad Request: not enough rights to send documents to the chat"


async def record_asked(bot: Bot, user: User) -> tuple[int, MessageView]:
    """`user` types /record in the group: their command's message, and the group's last
    message after it."""
    await bot.command(GROUP, user, "/record")
    typed = [e for e in bot.fake.transcript(GROUP) if e.kind == "user" and e.user_id == user.id]
    assert typed[-1].text == "/record"
    assert typed[-1].message_id is not None
    return typed[-1].message_id, bot.fake.last_message(GROUP)


async def test_a_record_the_group_refuses_goes_to_the_askers_private_chat(tg: Bot) -> None:
    """The group's permissions allow text but no files, which Telegram tells the bot nothing
    of: the record of the last game (/record) is refused there. Ann, whose private chat with
    the bot is open, gets it there, and the group is told so in reply to her command; Dan,
    who never opened it, is told in reply that the group takes no files from the bot, what an
    admin can do, and a button that opens the private chat, where it comes once he asks again.
    Nothing else changes: no file is shown in the group."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    tg.fake.forbid_files(GROUP)
    typed, notice = await record_asked(tg, ANN)
    assert notice.text == (
        "This group does not let me send files, so I sent you the record in our private chat."
    )
    assert notice.reply_to == typed
    assert notice.keyboard == ()
    sent = tg.fake.last_message(ANN.id)
    assert sent.file_name == "wizard-game.json"
    assert sent.text == "The record of the last game: Ann, Bob Brown, Cid."  # which game
    assert b'"wizard-record/1"' in tg.fake.document(ANN.id, sent.message_id).data
    typed, notice = await record_asked(tg, DAN)
    assert notice.text == (
        "This group does not let me send files, so I cannot send the record here. An admin "
        "can allow files for me in the group's permissions. Or open a private chat with me "
        "and ask again: I will send it there."
    )
    assert notice.reply_to == typed
    assert notice.labels == [["Open the private chat"]]
    assert notice.keyboard[0][0].url == f"https://t.me/{tg.front.bot.username}"
    assert tg.fake.transcript(DAN.id) == []
    assert refusals(tg) == [NO_DOCUMENTS, NO_DOCUMENTS]
    assert not any(e.kind == "document" for e in tg.fake.transcript(GROUP))
    tg.fake.start_dm(DAN)
    await tg.idle()
    typed, notice = await record_asked(tg, DAN)
    assert notice.reply_to == typed
    assert "I sent you the record in our private chat" in notice.text
    assert tg.fake.last_message(DAN.id).file_name == "wizard-game.json"
    tg.fake.forbid_files(GROUP, forbidden=False)  # files allowed again: the group gets it
    await tg.command(GROUP, BOB, "/record")
    assert tg.fake.last_message(GROUP).file_name == "wizard-game.json"


async def test_a_record_the_group_refuses_comes_in_the_askers_language(tg: Bot) -> None:
    """Uwe's app is German, the group's language English, and the group takes no files: the
    record he asks for comes to his private chat with its caption in German, as everything
    there; the group is told so in English. Its caption was the group's, in English."""
    uwe = User(1006, "Uwe", "uwe", language_code="de")
    tg.fake.add_group(GROUP, members=[uwe])
    tg.fake.start_dm(uwe)
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    tg.fake.forbid_files(GROUP)
    _typed, notice = await record_asked(tg, uwe)
    assert notice.text.endswith("so I sent you the record in our private chat.")
    sent = tg.fake.last_message(uwe.id)
    assert sent.file_name == "wizard-game.json"
    players = "Ann, Bob Brown, Cid"
    assert sent.text == texts("de")("The record of the last game: {players}.", players=players)


RECORD_IN_A_CHAT_S_NAME = (
    "This group does not let me send files, so I cannot send the record here. An admin can "
    "allow files for me in the group's permissions. Or send /record as yourself, not "
    "anonymously or as a channel, and I will send it to you privately."
)


async def test_a_record_asked_in_a_chat_s_name_says_to_ask_as_oneself(tg: Bot) -> None:
    """/record sent by an anonymous admin (from the stand-in @GroupAnonymousBot, `sender_chat`
    the group) and in a channel's name, in a group that takes no files: no person's private
    chat can take the record, so the reply says what can be done (an admin allows files, or
    they ask as themselves), with no button to open a private chat, and nothing is sent to
    the stand-in. With files allowed, the group gets the record, as before."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    tg.fake.forbid_files(GROUP)
    for channel in (None, -1009876):
        typed = tg.fake.send_as_chat(GROUP, "/record", channel=channel)
        await tg.idle()
        notice = tg.fake.last_message(GROUP)
        assert notice.reply_to == typed
        assert notice.text == RECORD_IN_A_CHAT_S_NAME
        assert notice.keyboard == ()
    assert [e.description for e in tg.fake.errors] == [NO_DOCUMENTS, NO_DOCUMENTS]
    tg.fake.forbid_files(GROUP, forbidden=False)
    tg.fake.send_as_chat(GROUP, "/record")
    await tg.idle()
    assert tg.fake.last_message(GROUP).file_name == "wizard-game.json"


AS_THE_GROUP = (
    "You are writing anonymously, as the group, so I cannot tell who you are. Send {command} "
    "as yourself (turn off “Remain anonymous” for a moment)."
)
AS_A_CHANNEL = (
    "You are writing as {chat}, so I cannot tell who you are. Send {command} as yourself."
)


async def test_a_command_for_a_person_sent_in_a_chat_s_name_says_who_is_asked(tg: Bot) -> None:
    """An anonymous admin (from the stand-in @GroupAnonymousBot, `sender_chat` the group) or a
    linked channel's post sends commands that act for the one who gives them: a seat, the
    host's options and cancel, a start, their own stats, their data. Nobody is behind such a
    message, so each is answered in reply with what to do, and nothing changes: no seat for
    "Group", no "open a private chat" notice for the stand-in, the game as it was. Commands
    that are nobody's (/rules, /stats of someone named, /top) work as before."""
    await seat(tg)
    game = chat_key(GROUP)
    before = await tg.front.service.table(game)
    assert before is not None
    errors = len(tg.fake.errors)
    personal = ("/join", "/leave", "/start", "/options notequal", "/cancel", "/stats", "/forgetme")
    for command in personal:
        for channel in (None, -1009876):
            typed = tg.fake.send_as_chat(GROUP, command, channel=channel)
            await tg.idle()
            answer = tg.fake.last_message(GROUP)
            assert answer.reply_to == typed
            name = command.split()[0]
            said = AS_THE_GROUP if channel is None else AS_A_CHANNEL
            assert answer.text == said.format(chat=f"Channel {abs(channel or 0)}", command=name)
            assert answer.keyboard == ()
    after = await tg.front.service.table(game)
    assert after == before
    assert len(tg.fake.errors) == errors  # nothing tried privately with the stand-in
    tg.fake.send_as_chat(GROUP, "/rules")
    await tg.idle()
    assert tg.fake.last_message(GROUP).text.startswith("📜 Wizard in short")


async def test_a_group_that_takes_no_text_either_ends_the_game_as_before(tg: Bot) -> None:
    """Muted by the group's default permissions in the last round, the bot is refused the
    game's end as a picture and then as text: the game is over already, so the refusal ends
    nothing more; each player still gets their own result privately."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    while rounds_over(tg, GROUP) < 4:
        await move(tg)
    tg.fake.mute_members(GROUP)
    game = chat_key(GROUP)
    while (table := await tg.front.service.table(game)) is not None:  # None: ended unseen
        if table.game.phase is Phase.FINISHED:
            break
        await move(tg)
    assert table is not None, "the game did not end as played"
    texts = "Bad Request: not enough rights to send text messages to the chat"
    assert refusals(tg) == [NO_PHOTOS, texts]
    for user in PLAYERS:
        assert "Your place" in tg.fake.last_message(user.id).text


async def in_a_topic(tg: Bot) -> tuple[int, int]:
    """A game of hidden bids started in the forum topic "Wizard", a move made: the topics."""
    topic, chatter = forum(tg.fake)
    for user in PLAYERS:
        tg.fake.start_dm(user)
        await tg.idle()
        tg.fake.send_command(GROUP, user, "/join", thread=topic)
        await tg.idle()
    tg.fake.send_command(GROUP, ANN, "/options bids=hidden", thread=topic)
    await tg.idle()
    await tg.press_label(GROUP, ANN, tg.lobby().message_id, "Start")
    await move(tg)
    return topic, chatter


async def test_a_game_whose_forum_topic_is_deleted_ends_and_its_players_are_told(tg: Bot) -> None:
    """The game's topic deleted (Telegram tells the bot nothing), the next post there is
    refused ("message thread not found"): the game ends as one nobody can see, and its players
    are told that its topic is gone. They were told the bot was removed from the chat, or the
    chat was gone, where both were still there."""
    topic, _ = await in_a_topic(tg)
    tg.fake.delete_topic(GROUP, topic)
    await move(tg)
    await tg.idle()
    await ended_unseen(tg, TOPIC_GONE)


async def test_a_game_whose_forum_topic_is_closed_ends_once_it_cannot_post(tg: Bot) -> None:
    """A closed topic (Telegram posts `forum_topic_closed` there) refuses the bot's new
    messages ("TOPIC_CLOSED"): the first one refused ends the game as one nobody can see. A
    post refused in another topic (an answer there) ends nothing."""
    topic, chatter = await in_a_topic(tg)
    tg.fake.close_topic(GROUP, chatter, by=BOB)
    tg.fake.send_command(GROUP, BOB, "/scores", thread=chatter)
    await tg.idle()
    assert await tg.front.service.table(chat_key(GROUP)) is not None
    tg.fake.close_topic(GROUP, topic, by=ANN)
    for _ in range(20):  # the table is edited in place; the round's end is a new message
        if await tg.front.service.table(chat_key(GROUP)) is None:
            break
        await move(tg)
        await tg.idle()
    await ended_unseen(tg, TOPIC_GONE)


LOBBY_UNSEEN = (
    "The table is closed: I can no longer post in its chat (I was removed, or it is gone)."
)
LOBBY_MUTED = "The table is closed: I am no longer allowed to send messages in its chat."
LOBBY_TOPIC_GONE = (
    "The table is closed: its topic was closed or deleted, so I can no longer post there. "
    "Send /join in the topic where you want to play."
)


async def test_a_lobby_whose_forum_topic_is_deleted_closes_and_its_people_are_told(
    tg: Bot,
) -> None:
    """The lobby's topic deleted (Telegram tells the bot nothing), the next post there (the
    lobby, for a /join typed in another topic) is refused: the table closes, and each person
    seated at it, the one just seated too, is told privately, in their app's language, that
    its topic is gone and where to join instead. Only its host's option toggles said so, if
    they had them: the others waited for a game that was not there."""
    greta = User(1010, "Greta", "greta", language_code="de")
    topic, chatter = await seated_in_a_topic(tg)
    tg.fake.start_dm(greta)
    tg.fake.send_command(GROUP, greta, "/join", thread=topic)
    await tg.idle()
    tg.fake.delete_topic(GROUP, topic)
    tg.fake.send_command(GROUP, DAN, "/join", thread=chatter)
    await tg.idle()
    assert await tg.front.service.table(chat_key(GROUP)) is None
    for user in (*PLAYERS, DAN):
        assert tg.fake.last_message(user.id).text == LOBBY_TOPIC_GONE
    german = tg.fake.last_message(greta.id).text
    assert german == texts("de")(LOBBY_TOPIC_GONE) != LOBBY_TOPIC_GONE


async def test_an_idle_lobby_in_a_forum_topic_tells_its_people_privately(
    redis_url: str, game_ids: None
) -> None:
    """A lobby in a forum topic that nobody touches closes when idle. Its notice goes to its
    topic, which may be gone (Telegram tells the bot nothing of a deleted topic, and the
    refusal finds no table left to tell anyone of): each person seated is told privately too,
    in their app's language. Before, they were told nothing, and waited for a game that was
    not there."""
    clock = Clock(time.time())
    idle = "The table was idle too long and is closed."
    greta = User(1010, "Greta", "greta", language_code="de")
    async with FakeTelegram() as fake:
        client = aioredis.Redis.from_url(redis_url)
        front = _front(fake, client, lobby_timeout=60, clock=clock)
        bot = Bot(fake, front, client)
        await bot.front.start()
        try:
            topic, _ = await seated_in_a_topic(bot)
            fake.start_dm(greta)
            fake.send_command(GROUP, greta, "/join", thread=topic)
            await bot.idle()
            fake.delete_topic(GROUP, topic)
            await ticking(bot, clock, 61)  # nobody touches it
            game = chat_key(GROUP)
            for _ in range(500):
                if await bot.front.service.table(game) is None:
                    break
                await asyncio.sleep(0.01)
            else:
                raise AssertionError("the idle lobby did not close")
            await bot.idle()
            for user in PLAYERS:
                assert fake.last_message(user.id).text == idle
            assert fake.last_message(greta.id).text == texts("de")(idle) != idle
        finally:
            await bot.front.stop()
            await client.aclose()


async def test_a_join_in_another_topic_is_not_pointed_at_a_topic_that_is_gone(tg: Bot) -> None:
    """A /join typed in another topic than the lobby's is answered there with a link to the
    lobby's topic. The lobby's topic deleted, the lobby refused there and closed (each person
    told privately), the link led to a topic that was gone, under a /join that seated nobody:
    no such answer goes once the table it points at is gone."""
    topic, chatter = await seated_in_a_topic(tg)
    tg.fake.delete_topic(GROUP, topic)
    tg.fake.send_command(GROUP, DAN, "/join", thread=chatter)
    await tg.idle()
    assert await tg.front.service.table(chat_key(GROUP)) is None
    said = [e.text for e in tg.fake.transcript(GROUP) if e.kind == "message"]
    assert not [text for text in said if "played in another topic" in text]
    assert tg.fake.last_message(DAN.id).text == LOBBY_TOPIC_GONE


async def test_a_lobby_whose_group_removed_the_bot_closes_and_its_people_are_told(
    tg: Bot,
) -> None:
    """Removed from the group while its lobby is open, the bot closes the table, and each
    person seated at it is told privately why; the group gets nothing."""
    await seat(tg)
    group_calls = tg.fake.total_calls(chat_id=GROUP)
    tg.fake.kick_bot(GROUP, DAN)
    await tg.idle()
    assert await tg.front.service.table(chat_key(GROUP)) is None
    for user in PLAYERS:
        assert tg.fake.last_message(user.id).text == LOBBY_UNSEEN
    assert tg.fake.total_calls(chat_id=GROUP) == group_calls


async def test_a_lobby_whose_group_mutes_the_bot_closes_and_its_people_are_told_so(
    tg: Bot,
) -> None:
    """Muted in the group while its lobby is open (restricted: it may send no messages, and
    is still a member), the bot closes the table, and each person seated is told privately
    that it may no longer post there, not that it was removed or the group is gone."""
    await seat(tg)
    tg.fake.restrict_bot(GROUP, DAN)
    await tg.idle()
    assert await tg.front.service.table(chat_key(GROUP)) is None
    for user in PLAYERS:
        assert tg.fake.last_message(user.id).text == LOBBY_MUTED


async def test_a_group_that_becomes_a_supergroup_keeps_its_game(tg: Bot) -> None:
    """Telegram gives an upgraded group a new id: the game, its timer and the players' hand
    messages move with it, the supergroup shows the table anew, and play goes on there."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options bids=hidden")
    await tg.command(GROUP, ANN, "/start")
    for _ in range(4):  # a few moves first
        user, hand = whose_turn(tg, PLAYERS) or (ANN, tg.hand(ANN))
        data = hand.keyboard[0][0].callback_data
        assert data is not None
        await tg.press(user.id, user, hand.message_id, data)
    before = tg.fake.current_messages(GROUP)
    supergroup = -1009876
    tg.fake.migrate_group(GROUP, supergroup, by=ANN)
    await tg.idle()
    shown = [m for m in tg.fake.current_messages(supergroup).values() if m.from_bot]
    assert len(shown) == 1
    assert shown[0].text.startswith(TABLE)
    assert tg.fake.current_messages(GROUP) == before  # the old group is left as it was
    assert await tg.client.exists("wiz:{tg:-100123}:game") == 0
    assert await tg.client.zscore(keys.timers("tg:-1009876"), "tg:-1009876") is not None
    assert await tg.client.zscore(keys.timers("tg:-100123"), "tg:-100123") is None
    for _ in range(200):  # the rest of the game, from the private chats
        if any("The game is over" in e.text for e in tg.fake.transcript(supergroup)):
            break
        turn = whose_turn(tg, PLAYERS)
        assert turn is not None
        user, hand = turn
        data = hand.keyboard[0][0].callback_data
        assert data is not None
        answer = await tg.press(user.id, user, hand.message_id, data)
        assert not answer.show_alert, answer.text
    else:
        raise AssertionError("the game did not end")
    await tg.command(supergroup, BOB, "/scores")
    assert tg.fake.last_message(supergroup).text.startswith("Score sheet")
    assert tg.real_errors() == []


def forum(fake: FakeTelegram) -> tuple[int, int]:
    """The group made a forum with the topics "Wizard" and "Chatter" (their thread ids), its
    General topic closed."""
    fake.add_group(GROUP, chat_type="supergroup", forum=True)
    topics = fake.add_topic(GROUP, "Wizard", ANN), fake.add_topic(GROUP, "Chatter", BOB)
    fake.close_topic(GROUP, None)
    return topics


async def seated_in_a_topic(tg: Bot) -> tuple[int, int]:
    """A forum (`forum`) where everybody opened a private chat with the bot and the players
    joined in the topic "Wizard": the topics."""
    topic, chatter = forum(tg.fake)
    for user in (*PLAYERS, DAN):
        tg.fake.start_dm(user)
        await tg.idle()
    for user in PLAYERS:
        tg.fake.send_command(GROUP, user, "/join", thread=topic)
        await tg.idle()
    return topic, chatter


async def test_a_game_opened_in_a_forum_topic_is_played_in_that_topic(tg: Bot) -> None:
    """In a forum (General closed), the game lives in the topic it was opened in: the lobby,
    the table, round summaries, the score sheet, refusals; a /join typed in another topic
    seats the person there, and is answered in that topic with a link to the game's."""
    fake = tg.fake
    topic, chatter = await seated_in_a_topic(tg)
    fake.send_command(GROUP, DAN, "/join", thread=chatter)
    await tg.idle()
    pointer = fake.last_message(GROUP)
    assert pointer.thread == chatter
    assert f"https://t.me/c/123/{topic}" in str(pointer.entities) + pointer.text
    assert "4. Dan" in tg.lobby().text
    fake.send_command(GROUP, DAN, "/leave", thread=topic)
    fake.send_command(GROUP, ANN, "/options rounds=short", thread=topic)
    await tg.idle()
    await tg.press_label(GROUP, BOB, tg.lobby().message_id, "Start")
    fake.send_command(GROUP, DAN, "/join", thread=topic)  # refused: a reply in the topic
    await tg.idle()
    assert fake.last_message(GROUP).reply_to is not None
    await play_on(tg)
    fake.send_command(GROUP, BOB, "/scores", thread=topic)
    await tg.idle()
    over = [m for m in fake.current_messages(GROUP).values() if "The game is over" in m.text]
    await tg.press_label(GROUP, CID, over[0].message_id, "Play again")
    assert "1. Cid" in tg.lobby().text
    posts = [e for e in fake.transcript(GROUP) if e.kind not in ("user", "press", "answer")]
    assert {e.kind for e in posts} >= {"message", "edit", "photo"}
    assert [e for e in posts if e.thread != topic] == [
        e for e in posts if e.message_id == pointer.message_id
    ]
    assert tg.real_errors() == []


async def test_a_press_in_another_forum_topic_is_answered_there_with_a_link(tg: Bot) -> None:
    """A game played to its end in one topic; Dan opens the next table in another. Cid's
    "Play again" under the old score sheet seats him at that table: the press is answered
    where it was made, with a link to the game's topic, as a command typed there is."""
    fake = tg.fake
    topic, chatter = await seated_in_a_topic(tg)
    fake.send_command(GROUP, ANN, "/options rounds=short", thread=topic)
    await tg.idle()
    await tg.press_label(GROUP, ANN, tg.lobby().message_id, "Start")
    await play_on(tg)
    fake.send_command(GROUP, DAN, "/join", thread=chatter)
    await tg.idle()
    assert tg.lobby().thread == chatter
    over = next(m for m in fake.current_messages(GROUP).values() if "The game is over" in m.text)
    assert over.thread == topic
    answer = await tg.press_label(GROUP, CID, over.message_id, "Play again")
    assert not answer.show_alert
    assert "2. Cid" in tg.lobby().text
    pointer = fake.last_message(GROUP)
    assert pointer.text.startswith("This group's game is played in another topic")
    assert pointer.thread == topic
    assert pointer.reply_to == over.message_id
    assert f"https://t.me/c/123/{chatter}" in str(pointer.entities) + pointer.text
    assert tg.real_errors() == []


async def test_a_stale_button_is_refused(tg: Bot) -> None:
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    for _ in range(6):  # the bids of round 1 and 2 and a card or so
        turn = whose_turn(tg, PLAYERS)
        assert turn is not None
        user, hand = turn
        if hand.keyboard:
            old = (user, hand.message_id, hand.keyboard[0][0].callback_data or "")
            await tg.press(user.id, user, hand.message_id, old[2])
            break
        table = tg.table()
        await tg.press(GROUP, user, table.message_id, table.keyboard[0][0].callback_data or "")
    else:
        raise AssertionError("no card was played")
    user, message, data = old
    answer = await tg.press(user.id, user, message, data, stale=True)
    assert answer.show_alert
    assert "out of date" in answer.text or "not your turn" in answer.text.lower()


async def test_a_button_of_another_chat_is_not_ours(tg: Bot) -> None:
    tg.fake.start_dm(ANN)
    await tg.idle()
    dm = tg.fake.last_message(ANN.id)
    answer = await tg.press(ANN.id, ANN, dm.message_id, "zz.L.j", stale=True)
    assert answer.show_alert
    assert "game that is over" in answer.text
    answer = await tg.press(ANN.id, ANN, dm.message_id, "garbage!", stale=True)
    assert answer.show_alert
    assert "not one of ours" in answer.text


async def test_a_redelivered_update_applies_once(tg: Bot) -> None:
    await seat(tg, short=False)
    update = tg.fake.send_command(GROUP, ANN, "/addbot", enqueue=False)
    for _ in range(2):
        await tg.front.application.process_update(Update.de_json(update, tg.front.bot))
        await tg.front.outbox.flush()
    await tg.idle()
    assert tg.lobby().text.count("🤖") == 1


# --- joining: the private chat first -----------------------------------------------------------


async def test_a_join_without_a_private_chat_gets_a_deep_link(tg: Bot) -> None:
    await seat(tg, (ANN, BOB))
    await tg.command(GROUP, DAN, "/join")
    assert "Dan" not in tg.lobby().text  # not seated: the bot could not write to him
    link = tg.fake.last_message(GROUP)
    assert link.text.startswith("Dan: To sit down, first open a private chat")
    url = link.keyboard[0][0].url
    assert url == f"https://t.me/wizard_test_bot?start=join-{GROUP}"
    payload = url.partition("?start=")[2]
    tg.fake.start_dm(DAN, payload)
    await tg.idle()
    assert "Dan" in tg.lobby().text
    assert tg.fake.last_message(DAN.id).text.startswith("✅ You have a seat at the table.")
    # The lobby's Join button, pressed by someone without a private chat, opens that chat
    # itself (the press's answer is the link), at its Start button, which seats them.
    lobby = tg.lobby()
    answer = await tg.press_label(GROUP, CID, lobby.message_id, "Join")
    assert answer.url == f"https://t.me/wizard_test_bot?start=join-{GROUP}"
    assert answer.text == "To sit down, press Start in our private chat, which opens now."
    assert "Cid" not in tg.lobby().text
    tg.fake.start_dm(CID, answer.url.partition("?start=")[2])
    await tg.idle()
    assert "Cid" in tg.lobby().text


async def test_a_deep_link_join_answers_in_the_persons_language(tg: Bot) -> None:
    """What a join by the link (in the person's private chat) says there is in their app's
    language, as everything else in that chat, not in the group's: Uwe's app is in German, the
    group's language English; his seat, his second try, and a stranger's refusal."""
    uwe = User(1006, "Uwe", "uwe", language_code="de")
    tg.fake.add_group(GROUP, members=[uwe])
    await seat(tg, (ANN, BOB))
    for _ in range(2):
        tg.fake.start_dm(uwe, f"join-{GROUP}")
        await tg.idle()
    said = [e.text for e in tg.fake.transcript(uwe.id) if e.kind == "message"][-2:]
    assert said[0].startswith("✅ Du hast einen Platz am Tisch.")
    assert said[1] == "Du bist schon dabei."
    assert "Uwe" in tg.lobby().text
    assert "a new table" in tg.lobby().text  # the group's language: English
    stranger = User(2001, "Eve", "eve", language_code="de")
    tg.fake.start_dm(stranger, f"join-{GROUP}")
    await tg.idle()
    assert tg.fake.last_message(stranger.id).text.startswith("Du kannst dich nur an einen Tisch")


def hand_of(bot: Bot, user: User) -> MessageView:
    """The person's newest hand message, in any language (`Bot.hand` reads English)."""
    return [
        m
        for m in bot.fake.current_messages(user.id).values()
        if m.text.startswith(("Round ", "Runde "))
    ][-1]


async def test_a_press_in_the_private_chat_is_answered_in_the_persons_language(tg: Bot) -> None:
    """A press on Uwe's hand that changes nothing (his bid's button, pressed once the bids are
    in) is answered in his app's language, German, as his hand and the rules' refusals there
    are, not in the group's English: his private chat reads one language."""
    uwe = User(1006, "Uwe", "uwe", language_code="de")
    tg.fake.add_group(GROUP, members=[uwe])
    players = (uwe, ANN, BOB)
    await seat(tg, players)
    await tg.command(GROUP, uwe, "/start")
    old = None
    for _ in players:  # the three bids of round 1
        hands = [(u, hand_of(tg, u)) for u in players]  # "Round 1", "Runde 1"
        user, hand = next((u, hand) for u, hand in hands if has_moves(hand))
        move = (hand.message_id, moves_of(hand)[0])
        old = move if user is uwe else old
        await tg.press(user.id, user, *move)
    assert old is not None
    answer = await tg.press(uwe.id, uwe, *old, stale=True)
    assert answer.text == "Diese Schaltfläche ist veraltet."
    assert tg.table().text.startswith(TABLE)  # the group: its own language


async def test_a_press_on_the_groups_message_is_answered_in_the_persons_language(
    tg: Bot,
) -> None:
    """Uwe, whose app is German, presses the English group's Start with two at the table: the
    refusal, which his app shows him alone, is in German, as every answer a person alone reads;
    the group's lobby stays English."""
    uwe = User(1006, "Uwe", "uwe", language_code="de")
    tg.fake.add_group(GROUP, members=[uwe])
    await seat(tg, (ANN, uwe))
    answer = await tg.press_label(GROUP, uwe, tg.lobby().message_id, "Start")
    assert answer.show_alert
    assert answer.text == (
        "Zum Starten braucht es mindestens 3 Spieler: Lade mehr ein oder füge mit /addbot einen "
        "KI-Spieler hinzu."
    )
    assert "a new table" in tg.lobby().text  # the group's message: in the group's language


async def test_the_link_a_press_opens_is_given_in_the_persons_language(tg: Bot) -> None:
    """Uwe, whose app is German and who never opened a private chat with the bot, presses the
    Korean group's Join: the answer that opens that chat, which he alone sees, is in German;
    the group's notice to him stays Korean. It was in the group's language."""
    uwe = User(1006, "Uwe", "uwe", language_code="de")
    tg.fake.add_group(GROUP, members=[uwe])
    await tg.command(GROUP, ANN, "/language ko")
    await seat(tg, (ANN,))
    korean = texts("ko")
    lobby = next(
        m.message_id
        for m in tg.fake.current_messages(GROUP).values()
        if m.text.startswith(korean("🔮 Wizard: a new table"))
    )
    answer = await tg.press_label(GROUP, uwe, lobby, korean("Join"))
    assert answer.url == f"https://t.me/wizard_test_bot?start=join-{GROUP}"
    german = texts("de")
    assert answer.text == german("To sit down, press Start in our private chat, which opens now.")
    notice = korean(
        "To sit down, first open a private chat with me, where your cards will be shown: "
        "press the button below, then Start."
    )
    assert tg.fake.last_message(GROUP).text == f"Uwe: {notice}"


def open_first_notices(bot: Bot, name: str) -> list[MessageView]:
    """The group's notices that `name` must open a private chat with the bot to sit down,
    oldest first."""
    said = f"{name}: To sit down, first open a private chat"
    return [m for m in bot.fake.current_messages(GROUP).values() if m.text.startswith(said)]


async def test_a_newcomer_s_repeated_joins_leave_one_live_notice(tg: Bot) -> None:
    """Dan, who never opened the bot's private chat, types /join, presses the lobby's Join,
    and types /join again. The press posts nothing (its answer opens the private chat, the
    notice with the button is there already); the second /join is answered with a new notice, and
    the one before loses its button: one live button for him. Eve's notice is her own."""
    await seat(tg, (ANN, BOB))
    await tg.command(GROUP, DAN, "/join")
    (first,) = open_first_notices(tg, "Dan")
    assert first.labels == [["Open the private chat"]]
    shown = len(tg.fake.current_messages(GROUP))
    answer = await tg.press_label(GROUP, DAN, tg.lobby().message_id, "Join")
    assert answer.url is not None  # it opens his private chat with the bot
    assert len(tg.fake.current_messages(GROUP)) == shown  # nothing new in the group
    await tg.command(GROUP, EVE, "/join")
    await tg.command(GROUP, DAN, "/join")
    notices = open_first_notices(tg, "Dan")
    assert notices[0].message_id == first.message_id
    assert [m.labels for m in notices] == [[], [["Open the private chat"]]]
    assert open_first_notices(tg, "Eve")[0].labels == [["Open the private chat"]]
    assert "Dan" not in tg.lobby().text


async def test_a_newcomer_s_notice_loses_its_button_once_he_sits_down(tg: Bot) -> None:
    """Dan's /join, twice, and his press of Join leave one notice with a live button; once he
    sits down through its link (/start join-<group> in his private chat), it has none."""
    await seat(tg, (ANN, BOB))
    await tg.command(GROUP, DAN, "/join")
    await tg.command(GROUP, DAN, "/join")
    answer = await tg.press_label(GROUP, DAN, tg.lobby().message_id, "Join")
    assert answer.url is not None
    (live,) = [m for m in open_first_notices(tg, "Dan") if m.keyboard]
    url = live.keyboard[0][0].url
    assert url is not None
    tg.fake.start_dm(DAN, url.partition("?start=")[2])
    await tg.idle()
    assert "Dan" in tg.lobby().text
    assert [m.keyboard for m in notices_of(tg, "Dan")] == [(), ()]


def notices_of(bot: Bot, name: str) -> list[MessageView]:
    """The group's messages about `name`'s private chat (`open_first_notices`, and what they
    show once they have lost their button), oldest first."""
    return [m for m in bot.fake.current_messages(GROUP).values() if m.text.startswith(name)]


async def test_a_notice_that_lost_its_button_points_at_none(tg: Bot) -> None:
    """Dan's first notice, superseded by his second /join, loses its button and says what is
    still true without it; the second, once he sits down through its link, says that the
    private chat is open and he has a seat. Neither says "press the button below" any more,
    and each is changed in one edit, as its button was taken off before."""
    await seat(tg, (ANN, BOB))
    await tg.command(GROUP, DAN, "/join")
    edits = ("editMessageText", "editMessageReplyMarkup")
    before = Counter(tg.fake.calls)
    await tg.command(GROUP, DAN, "/join")
    assert sum((Counter(tg.fake.calls) - before)[m] for m in edits) == 1
    first, second = notices_of(tg, "Dan")
    assert first.keyboard == ()
    assert first.text == (
        "Dan: To sit down, first open a private chat with me, where your cards will be shown."
    )
    url = second.keyboard[0][0].url
    assert url is not None
    before = Counter(tg.fake.calls)
    tg.fake.start_dm(DAN, url.partition("?start=")[2])
    await tg.idle()
    assert "Dan" in tg.lobby().text
    assert sum((Counter(tg.fake.calls) - before)[m] for m in edits) == 2  # the lobby, the notice
    now = tg.fake.message(GROUP, second.message_id)
    assert now.keyboard == ()
    assert now.text == "Dan: Our private chat is open, and you have a seat at the table."


async def test_a_plain_start_takes_the_button_off_each_of_a_newcomer_s_notices(tg: Bot) -> None:
    """Dan types /join in two groups before he ever opened the bot's private chat, then opens
    it with a plain /start (typed in the bot's chat, not through a notice's link): the notice
    in each group loses its button and says his chat is open and how to sit down; he has no
    seat yet, and his /join seats him now."""
    await seat(tg, (ANN, BOB))
    tg.fake.add_group(FRIDAY, FRIDAY_TITLE, members=[ANN, DAN])
    await tg.command(GROUP, DAN, "/join")
    await tg.command(FRIDAY, DAN, "/join")
    (here,) = open_first_notices(tg, "Dan")
    (there,) = [m for m in tg.fake.current_messages(FRIDAY).values() if m.text.startswith("Dan")]
    assert here.labels == there.labels == [["Open the private chat"]]
    tg.fake.start_dm(DAN)
    await tg.idle()
    for chat, notice in ((GROUP, here), (FRIDAY, there)):
        now = tg.fake.message(chat, notice.message_id)
        assert now.keyboard == ()
        assert now.text == "Dan: Our private chat is open: send /join to sit down."
    assert "Dan" not in tg.lobby().text
    await tg.command(GROUP, DAN, "/join")
    assert "Dan" in tg.lobby().text


async def test_a_notice_an_admin_deleted_is_posted_again(tg: Bot) -> None:
    """An admin deletes Dan's notice (Telegram tells the bot nothing of it). His press of Join,
    his private chat still closed, finds it gone, by an edit that changes nothing where it is
    there, and posts it anew: for a client that does not follow the press's link, and for the
    others to see why he has no seat (nothing was posted: the notice counted as there). A
    press that finds it there posts nothing; a typed /join posts a new one in reply, as it
    did."""
    await seat(tg, (ANN, BOB))
    await tg.command(GROUP, DAN, "/join")
    (first,) = notices_of(tg, "Dan")
    tg.fake.delete_message(GROUP, first.message_id)
    answer = await tg.press_label(GROUP, DAN, tg.lobby().message_id, "Join")
    assert answer.url is not None
    (again,) = notices_of(tg, "Dan")
    assert again.message_id > first.message_id
    assert again.text.startswith("Dan: To sit down, first open a private chat")
    assert again.labels == [["Open the private chat"]]
    await tg.press_label(GROUP, DAN, tg.lobby().message_id, "Join")
    assert notices_of(tg, "Dan") == [again]
    tg.fake.delete_message(GROUP, again.message_id)
    await tg.command(GROUP, DAN, "/join")
    (third,) = notices_of(tg, "Dan")
    assert third.labels == [["Open the private chat"]]
    edits = [
        e for e in tg.fake.errors if e.chat_id == GROUP and "not modified" not in e.description
    ]
    # The press's edit that found the first gone, and the edit that took the button off the
    # second once the /join superseded it, gone too, which the bot cannot know; none for the
    # first after the press sent the second.
    gone = ("editMessageText", "Bad Request: message to edit not found")
    assert [(e.method, e.description) for e in edits] == [gone, gone]
    tg.fake.start_dm(DAN)
    await tg.idle()
    assert tg.fake.message(GROUP, third.message_id).keyboard == ()


async def test_a_newcomer_s_notice_moves_with_a_group_that_becomes_a_supergroup(tg: Bot) -> None:
    """Dan, who never opened the bot's private chat, types /join, and the group becomes a
    supergroup before he opens it: the old group takes no more calls, so the notice there
    cannot lose its button. The supergroup gets his notice anew, with a link to its table,
    and his plain /start takes its button off, with no call to the old group (before, the
    /start edited the old group's notice, refused, and the supergroup had none). Eve, who
    follows the link of her notice in the old group, sits down in the supergroup (she was
    told she could only join a table in a group she belongs to). The group's language goes
    with it."""
    await tg.command(GROUP, ANN, "/language de")
    await tg.command(GROUP, EVE, "/join")
    (eve,) = notices_of(tg, "Eve")
    await tg.command(GROUP, DAN, "/join")
    (old,) = notices_of(tg, "Dan")
    supergroup = -1009876
    tg.fake.migrate_group(GROUP, supergroup, by=ANN)
    await tg.idle()
    shown = [m for m in tg.fake.current_messages(supergroup).values() if m.from_bot]
    assert [m.text for m in shown] == [eve.text, old.text]
    notice = shown[1]
    url = notice.keyboard[0][0].url
    assert url == f"https://t.me/wizard_test_bot?start=join-{supergroup}"
    tg.fake.start_dm(DAN)
    await tg.idle()
    now = tg.fake.message(supergroup, notice.message_id)
    assert now.keyboard == ()
    open_now = "Unser privater Chat ist offen"
    assert now.text == f"Dan: {open_now}: Sende /join, um dich an den Tisch zu setzen."
    assert [e for e in tg.fake.errors if e.chat_id in (GROUP, supergroup)] == []
    await tg.command(supergroup, DAN, "/join")
    link = eve.keyboard[0][0].url
    assert link == f"https://t.me/wizard_test_bot?start=join-{GROUP}"
    tg.fake.start_dm(EVE, link.partition("?start=")[2])
    await tg.idle()
    # her private chat: her app's language (English), the group's notices German
    assert tg.fake.last_message(EVE.id).text.startswith("✅ You have a seat at the table.")
    lobby = next(m for m in tg.fake.current_messages(supergroup).values() if "👑" in m.text)
    assert "Dan" in lobby.text
    assert "Eve" in lobby.text
    now = tg.fake.message(supergroup, shown[0].message_id)
    assert now.text == f"Eve: {open_now}, und du hast einen Platz am Tisch."


async def test_a_newcomer_s_notice_waiting_as_the_group_becomes_a_supergroup_moves_with_it(
    tg: Bot,
) -> None:
    """Dan, who never opened the bot's private chat, types /join while Telegram is slow to
    answer in the group, and the group becomes a supergroup before his notice is posted: the
    old group refuses it. The supergroup gets it instead, with a link to its table, and his
    /start takes its button off (before, the notice was lost: the move looked only at the
    notices the group had shown)."""
    held = tg.fake.stall(GROUP)
    tg.fake.send_command(GROUP, DAN, "/join")
    await until(lambda: held == ["sendMessage"], "Dan's notice on its way")
    supergroup = -1009876
    tg.fake.migrate_group(GROUP, supergroup, by=ANN)
    await handled(tg)
    tg.fake.unstall(GROUP)
    await tg.idle()
    assert [e.description for e in tg.fake.errors if e.chat_id == GROUP] == [
        "Bad Request: group chat was upgraded to a supergroup chat"
    ]
    (notice,) = [m for m in tg.fake.current_messages(supergroup).values() if m.from_bot]
    assert notice.text.startswith("Dan: To sit down, first open a private chat with me")
    url = notice.keyboard[0][0].url
    assert url == f"https://t.me/wizard_test_bot?start=join-{supergroup}"
    tg.fake.start_dm(DAN)
    await tg.idle()
    now = tg.fake.message(supergroup, notice.message_id)
    assert now.keyboard == ()
    assert now.text == "Dan: Our private chat is open: send /join to sit down."
    assert [e for e in tg.fake.errors if e.chat_id == supergroup] == []


async def test_notices_move_to_a_supergroup_in_the_order_they_were_posted(tg: Bot) -> None:
    """Eve's notice, then Dan's, wait in a group with no game, which becomes a supergroup; the
    bot is told of the move twice (the old group's message and the new one's, handled at once)
    and Telegram is slow to answer the first `getChatMember` (for Eve, the first notice). The
    supergroup shows Eve's notice, then Dan's (before, each message of the move took one
    notice: Dan's, its name fetched at once, went first)."""
    await tg.command(GROUP, EVE, "/join")
    await tg.command(GROUP, DAN, "/join")
    supergroup = -1009876
    asked: list[str] = []

    def latency(method: str, chat: int | None) -> float:
        if chat != supergroup or method != "getChatMember":
            return 0
        asked.append(method)
        return 0.5 if len(asked) == 1 else 0  # a slow network, on the first answer only

    tg.fake.latency = latency
    tg.fake.migrate_group(GROUP, supergroup, by=ANN)
    await tg.idle()
    shown = [m.text for m in tg.fake.current_messages(supergroup).values() if m.from_bot]
    assert [text.partition(":")[0] for text in shown] == ["Eve", "Dan"]


async def handled(bot: Bot) -> None:
    """Wait until the bot took in and handled every update (what it posts may still be on its
    way: see `Bot.idle` for all of it)."""
    await until(lambda: not bot.fake.unconfirmed_updates, "every update taken in")
    await asyncio.wait_for(bot.front.application.update_queue.join(), 30)


async def test_a_notice_still_on_its_way_when_the_chat_is_opened_comes_without_a_button(
    tg: Bot,
) -> None:
    """Eve and Dan, who never opened the bot's private chat, type /join while Telegram is slow
    to answer in the group: Eve's notice is on its way (sent, not yet answered), Dan's waits
    in the group's queue behind it. Both open the private chat with a plain /start before
    Telegram answers. Neither notice has a button once it is there, and each says that the
    chat is open (they kept the button: the /start found no notice yet to take it off)."""
    await seat(tg, (ANN, BOB))
    held = tg.fake.stall(GROUP)
    tg.fake.send_command(GROUP, EVE, "/join")
    await until(lambda: held == ["sendMessage"], "Eve's notice on its way")
    tg.fake.send_command(GROUP, DAN, "/join")
    dan = open_slot(chat_key(GROUP), DAN.id)
    await until(
        lambda: any(post.slot == dan for post in tg.front.outbox.waiting(GROUP)),
        "Dan's notice waiting",
    )
    for user in (EVE, DAN):
        tg.fake.start_dm(user)
    await handled(tg)
    assert held == ["sendMessage"]  # both /start handled, and Eve's notice not yet answered
    tg.fake.unstall(GROUP)
    await tg.idle()
    for name in ("Eve", "Dan"):
        (notice,) = notices_of(tg, name)
        assert notice.keyboard == (), name
        assert notice.text == f"{name}: Our private chat is open: send /join to sit down."
        shown = [e for e in tg.fake.transcript(GROUP) if e.message_id == notice.message_id]
        sent = [(e.kind, e.keyboard == ()) for e in shown if e.kind in ("message", "edit")]
        # Eve's went with its button, which came off after; Dan's went without one.
        assert sent == (
            [("message", False), ("edit", True)] if name == "Eve" else [("message", True)]
        )
    assert "Eve" not in tg.lobby().text
    await tg.command(GROUP, EVE, "/join")
    assert "Eve" in tg.lobby().text
    assert [e for e in tg.fake.errors if e.chat_id == GROUP] == []


async def test_a_join_s_notice_waiting_when_the_chat_is_opened_still_answers_the_join(
    tg: Bot,
) -> None:
    """Dan, who never opened the bot's private chat, has a notice with its button; he types
    /join again while Telegram is slow to answer in the group (Eve's notice on its way), so
    his new notice waits in the group's queue, and he opens the private chat with a plain
    /start before it goes. The /start takes the button off the notice he has, a post of the
    same slot, which took the place of the waiting one: his /join got no answer at all (the
    button-off post went, and the new notice never did). Now both go: his /join is answered,
    without a button, and neither notice has one; the button-off post, finding no button left,
    makes no call (it made one, refused as "message is not modified")."""
    await seat(tg, (ANN, BOB))
    await tg.command(GROUP, DAN, "/join")
    (first,) = notices_of(tg, "Dan")
    held = tg.fake.stall(GROUP)
    tg.fake.send_command(GROUP, EVE, "/join")
    await until(lambda: held == ["sendMessage"], "Eve's notice on its way")
    typed = tg.fake.send_command(GROUP, DAN, "/join")["message"]["message_id"]
    dan = open_slot(chat_key(GROUP), DAN.id)
    await until(
        lambda: any(post.slot == dan for post in tg.front.outbox.waiting(GROUP)),
        "Dan's notice waiting",
    )
    tg.fake.start_dm(DAN)
    await handled(tg)
    tg.fake.unstall(GROUP)
    await tg.idle()
    notices = notices_of(tg, "Dan")
    assert [m.message_id for m in notices][:1] == [first.message_id]
    assert len(notices) == 2, [m.text for m in notices]
    answer = notices[1]
    assert answer.reply_to == typed
    assert answer.text == "Dan: Our private chat is open: send /join to sit down."
    assert [m.keyboard for m in notices] == [(), ()]
    assert [e for e in tg.fake.errors if e.chat_id == GROUP] == []
    assert "Dan" not in tg.lobby().text
    await tg.command(GROUP, DAN, "/join")
    assert "Dan" in tg.lobby().text


async def test_a_join_with_the_private_chat_open_costs_what_it_did(tg: Bot, redis_url: str) -> None:
    """Eve (her private chat open) types /join, and Cid presses Join: the notice of a closed
    chat costs them nothing, neither a Telegram call nor a call to Redis of the group's slot
    map beyond the lobby's. (The host's toggles, which follow the lobby where she has them,
    cost one call each to her private chat's slot map, which finds none: no post.)"""
    await seat(tg, (ANN, BOB))
    for user in (CID, EVE):
        tg.fake.start_dm(user)
    await tg.idle()
    counted = CountedRedis.from_url(redis_url)
    counted.calls = Counter()
    tg.front.slots = tg.front.sender.slots = tg.front.notices.slots = Slots(counted)
    before = Counter(tg.fake.calls)
    await tg.command(GROUP, EVE, "/join")
    answer = await tg.press_label(GROUP, CID, tg.lobby().message_id, "Join")
    assert not answer.show_alert
    assert "Cid" in tg.lobby().text
    assert "Eve" in tg.lobby().text
    telegram_calls = Counter(tg.fake.calls) - before
    del telegram_calls["getUpdates"]
    # Each: the chat action, the lobby edited, the hello in the private chat (the press
    # answered); of the slot map, the lobby's calls alone, as before the notice had a slot.
    assert telegram_calls == Counter(
        sendChatAction=2, editMessageText=2, sendMessage=2, answerCallbackQuery=1
    )
    await counted.aclose()
    # the lobby edited twice (a claim, its message, a release), the host's toggles claimed
    assert counted.calls == Counter(EVALSHA=6, HGET=2)


UNREACHED = "Bob Brown: I cannot write to you privately, where your cards are shown: "
REACHED = "Bob Brown: I can write to you privately again: your cards are there."
"""What a notice of `UNREACHED` says once Bob is back in his private chat (its button gone)."""


def unreached_notices(bot: Bot) -> list[MessageView]:
    """The group's notices that Bob cannot be reached privately, oldest first (those he has
    come back from say so: `REACHED`)."""
    shown = bot.fake.current_messages(GROUP).values()
    return [m for m in shown if UNREACHED in m.text or m.text == REACHED]


async def bid_in_the_group(bot: Bot) -> None:
    """The next bid, made with the first bid button under the group's table by whoever is to
    bid (open bids: the others are refused)."""
    table = bot.table()
    data = table.keyboard[0][0].callback_data
    assert data is not None
    for user in PLAYERS:
        answer = await bot.press(GROUP, user, table.message_id, data)
        if not answer.show_alert:
            return
    raise AssertionError("nobody could bid")


async def test_a_player_the_bot_cannot_reach_privately_is_told_in_the_group_once(
    tg: Bot,
) -> None:
    """Bob blocks the bot once the cards are dealt: his hand cannot be updated (403 "bot was
    blocked by the user"). The group is told once, naming him with a mention that notifies,
    with a link to open his private chat (nothing of his hand in it), however many of his
    private messages fail after; his /start there brings his hand back, and the notice's
    button comes off."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.block(BOB)
    for _ in PLAYERS:  # round 1: everyone bids, Bob's hand changes (and fails) each time
        await bid_in_the_group(tg)
    failed = [e for e in tg.fake.errors if e.chat_id == BOB.id]
    assert len(failed) > 1
    assert {e.description for e in failed} == {"Forbidden: bot was blocked by the user"}
    notices = unreached_notices(tg)
    assert len(notices) == 1, tg.group_texts()
    notice = notices[0]
    assert notice.text == UNREACHED + "press the button below, then Start."
    assert notice.entities[0]["type"] == "text_link"
    assert notice.entities[0]["url"] == f"tg://user?id={BOB.id}"
    assert notice.labels == [["Open the private chat"]]
    url = notice.keyboard[0][0].url
    assert url == "https://t.me/wizard_test_bot?start=cards"
    tg.fake.start_dm(BOB, url.partition("?start=")[2])  # he unblocks the bot and presses Start
    await tg.idle()
    assert "Your hand:" in tg.hand(BOB).text
    assert tg.fake.message(GROUP, notice.message_id).keyboard == ()  # nothing left to open
    assert tg.fake.message(GROUP, notice.message_id).text == REACHED  # and no longer untrue
    await move(tg)
    assert unreached_notices(tg) == [tg.fake.message(GROUP, notice.message_id)]


async def test_a_player_who_blocks_the_bot_again_is_named_again(tg: Bot) -> None:
    """Bob blocks the bot, is named in the group, comes back with /start, and blocks it again
    in the same game: the group is told again, in a new message that notifies him (not an edit
    of the old notice far up), once however many of his messages fail after; his /start takes
    the new notice's button off."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.block(BOB)
    for _ in range(2):  # Cid and Ann bid: Bob's hand, his turn next, fails
        await bid_in_the_group(tg)
    first = unreached_notices(tg)[0]
    tg.fake.start_dm(BOB, "cards")
    await tg.idle()
    assert tg.fake.message(GROUP, first.message_id).keyboard == ()
    tg.fake.block(BOB)
    failed = len(tg.fake.errors)
    await bid_in_the_group(tg)  # Bob bids under the group's table: his hand fails
    await tg.command(GROUP, BOB, "/hand")  # and so does the hand he asks for
    assert len([e for e in tg.fake.errors[failed:] if e.chat_id == BOB.id]) > 1
    notices = unreached_notices(tg)
    assert len(notices) == 2, tg.group_texts()
    assert notices[0].message_id == first.message_id
    again = notices[1]
    assert again.entities[0]["url"] == f"tg://user?id={BOB.id}"
    assert again.labels == [["Open the private chat"]]
    assert tg.fake.message(GROUP, first.message_id).keyboard == ()
    tg.fake.start_dm(BOB, "cards")
    await tg.idle()
    assert "Your hand:" in tg.hand(BOB).text
    assert tg.fake.message(GROUP, again.message_id).keyboard == ()


async def test_a_refusal_that_comes_back_after_the_player_leaves_no_mark(tg: Bot) -> None:
    """Bob blocks the bot (Telegram has not told the bot yet), and a message of his is refused,
    but the refusal comes back only after he has pressed Restart (unblocked, and /start): it
    found the mark that the group was told gone, set it again, and the group was told that he
    cannot be reached, untrue by then; and the mark, left set, kept the group from being told
    when he blocked the bot for real later. A refusal now makes sure he still cannot be
    reached (a chat action) before the group is told, and takes the mark off if he can."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.block(BOB)
    held = tg.fake.stall(BOB.id, applied=True)
    tg.fake.send_command(GROUP, BOB, "/hand")
    await until(lambda: held == ["sendMessage"], "Bob's hand refused, the answer on its way")
    tg.fake.start_dm(BOB, "cards")  # Restart: unblocked, then /start
    await handled(tg)
    tg.fake.unstall(BOB.id)
    await tg.idle()
    assert "Your hand:" in tg.hand(BOB).text
    assert unreached_notices(tg) == [], tg.group_texts()
    tg.fake.block(BOB, tell=True)  # for real, and Telegram says so
    await tg.idle()
    (notice,) = unreached_notices(tg)
    assert notice.text == UNREACHED + "press the button below, then Start."


async def test_a_block_told_while_a_refusal_is_checked_is_told_in_the_group(tg: Bot) -> None:
    """Bob blocks the bot (Telegram has not told the bot yet) and a message of his is refused;
    he unblocks it before the refusal comes back, so the chat action that checks he still
    cannot be reached is taken. Before its answer comes, he blocks the bot again, and
    Telegram says so. The group is told: the block found the mark that the refusal set while
    it checked, and said nothing, and the check, answered that he was back, took the mark off
    after it; nobody told the group he could not be reached."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.block(BOB)
    held = tg.fake.stall(BOB.id, applied=True)
    tg.fake.send_command(GROUP, BOB, "/hand")
    await until(lambda: held == ["sendMessage"], "Bob's hand refused, the answer on its way")
    tg.fake.block(BOB, blocked=False)  # he unblocks it in his settings, not told yet
    tg.fake.unstall(BOB.id)  # the refusal comes back
    checked = tg.fake.stall(BOB.id, applied=True)
    await until(lambda: checked == ["sendChatAction"], "the check taken, its answer on its way")
    tg.fake.block(BOB, tell=True)  # blocked again, and Telegram says so
    await handled(tg)
    tg.fake.unstall(BOB.id)
    await tg.idle()
    (notice,) = unreached_notices(tg)
    assert notice.text == UNREACHED + "press the button below, then Start."
    assert notice.labels == [["Open the private chat"]]
    tg.fake.start_dm(BOB, "cards")  # Restart: his /start takes its button off
    await tg.idle()
    assert tg.fake.message(GROUP, notice.message_id).text == REACHED


async def test_a_notice_still_on_its_way_when_the_player_is_back_says_so_or_does_not_go(
    tg: Bot,
) -> None:
    """Cid and Bob block the bot mid-round (Telegram says so at once) while Telegram is slow to
    answer in the group: the notice naming Cid is on its way (sent, not yet answered), Bob's
    waits in the group's queue behind it. Both press Restart before Telegram answers. Cid's
    notice loses its button once it is there, and says he is back; Bob's does not go at all
    (before, both went with their button and said they could not be reached: the Restart
    found no notice yet to take the button off)."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    held = tg.fake.stall(GROUP)
    tg.fake.block(CID, tell=True)
    await until(lambda: held == ["sendMessage"], "Cid's notice on its way")
    tg.fake.block(BOB, tell=True)
    bob = unreached_slot(chat_key(GROUP), BOB.id)
    await until(
        lambda: any(post.slot == bob for post in tg.front.outbox.waiting(GROUP)),
        "Bob's notice waiting",
    )
    for user in (CID, BOB):
        tg.fake.start_dm(user, "cards")  # Restart: unblocked, then /start
    await handled(tg)
    assert held == ["sendMessage"]  # both back, and Cid's notice not yet answered
    tg.fake.unstall(GROUP)
    await tg.idle()
    (cid,) = [m for m in tg.fake.current_messages(GROUP).values() if m.text.startswith("Cid:")]
    assert cid.keyboard == ()
    assert cid.text == "Cid: I can write to you privately again: your cards are there."
    shown = [e for e in tg.fake.transcript(GROUP) if e.message_id == cid.message_id]
    sent = [(e.kind, e.keyboard == ()) for e in shown if e.kind in ("message", "edit")]
    assert sent == [("message", False), ("edit", True)]
    assert not any(e.text.startswith("Bob Brown:") for e in tg.fake.transcript(GROUP))
    for user in (CID, BOB):
        assert "Your hand:" in tg.hand(user).text
    assert [e for e in tg.fake.errors if e.chat_id == GROUP] == []


async def test_a_cannot_reach_notice_moves_with_a_group_that_becomes_a_supergroup(
    tg: Bot,
) -> None:
    """Bob blocks the bot mid-round and is named in the group, which then becomes a supergroup:
    the old group takes no more calls, so its notice can never lose its button. The supergroup
    gets the notice anew, in the group's language, and the mark that it was told goes with it:
    his next refused message names him no more; his Restart takes the new notice's button off,
    with no call to the old group (before, the notice and its mark stayed under the old id:
    the supergroup had none, and his next refused message named him there again)."""
    await tg.command(GROUP, ANN, "/language de")
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.block(BOB, tell=True)
    await tg.idle()
    (old,) = [m for m in tg.fake.current_messages(GROUP).values() if m.text.startswith("Bob B")]
    supergroup = -1009876
    tg.fake.migrate_group(GROUP, supergroup, by=ANN)
    await tg.idle()
    shown = [m for m in tg.fake.current_messages(supergroup).values() if m.from_bot]
    (notice,) = [m for m in shown if m.text.startswith("Bob Brown:")]
    assert notice.text == old.text
    assert notice.keyboard == old.keyboard
    assert notice.entities[0]["url"] == f"tg://user?id={BOB.id}"
    await tg.command(supergroup, BOB, "/hand")  # refused
    assert [e for e in tg.fake.errors if e.chat_id == BOB.id]
    named = [e for e in tg.fake.transcript(supergroup) if e.text.startswith("Bob Brown:")]
    assert len(named) == 1, [e.text for e in named]
    tg.fake.start_dm(BOB, "cards")
    await tg.idle()
    now = tg.fake.message(supergroup, notice.message_id)
    assert now.keyboard == ()
    assert now.text == "Bob Brown: Ich kann dir wieder privat schreiben: Deine Karten sind dort."
    assert [e for e in tg.fake.errors if e.chat_id in (GROUP, supergroup)] == []


async def test_a_cannot_reach_notice_waiting_as_the_group_becomes_a_supergroup_moves_with_it(
    tg: Bot,
) -> None:
    """Bob blocks the bot mid-round while Telegram is slow to answer in the group, and the
    group becomes a supergroup before the notice naming him is posted: the old group refuses
    it. The supergroup is told at once, with the mark that it was told (before, it was told
    only at his next refused message); his Restart takes the notice's button off."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    held = tg.fake.stall(GROUP)
    tg.fake.block(BOB, tell=True)
    await until(lambda: held == ["sendMessage"], "Bob's notice on its way")
    supergroup = -1009876
    tg.fake.migrate_group(GROUP, supergroup, by=ANN)
    await handled(tg)
    tg.fake.unstall(GROUP)
    await tg.idle()
    shown = [m for m in tg.fake.current_messages(supergroup).values() if m.from_bot]
    (notice,) = [m for m in shown if m.text.startswith("Bob Brown:")]
    assert notice.text == UNREACHED + "press the button below, then Start."
    assert notice.entities[0]["url"] == f"tg://user?id={BOB.id}"
    tg.fake.start_dm(BOB, "cards")
    await tg.idle()
    now = tg.fake.message(supergroup, notice.message_id)
    assert now.keyboard == ()
    assert now.text == REACHED
    assert [e for e in tg.fake.errors if e.chat_id == supergroup] == []


async def test_a_player_back_while_the_group_becomes_a_supergroup_costs_no_refused_call(
    tg: Bot,
) -> None:
    """Bob, named in the group as one the bot cannot reach, presses Restart while the group's
    move to a supergroup is being handled (its notice shown anew there, Telegram slow to
    answer the chat action that checks he still cannot be reached). His hand slots follow the
    game before the notices move, so his return looks at the supergroup's game only: no call
    goes to the old group, which refuses every call (before, his return took the button off
    the old group's notice, refused), and the supergroup is not told anything untrue."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.block(BOB, tell=True)
    await tg.idle()
    assert len(unreached_notices(tg)) == 1
    held = tg.fake.stall(BOB.id)
    supergroup = -1009876
    tg.fake.migrate_group(GROUP, supergroup, by=ANN)
    await until(lambda: held == ["sendChatAction"], "the move asking whether Bob is back")
    tg.fake.start_dm(BOB, "cards")  # Restart: unblocked, then /start
    await until(lambda: "sendMessage" in held, "Bob's hand on its way")
    tg.fake.unstall(BOB.id)
    await tg.idle()
    assert [e for e in tg.fake.errors if e.chat_id in (GROUP, supergroup)] == []
    assert "Your hand:" in tg.hand(BOB).text
    shown = tg.fake.transcript(supergroup)
    assert not any(e.text.startswith("Bob Brown:") for e in shown), [e.text for e in shown]


async def test_toggles_waiting_as_the_game_starts_come_as_the_start_left_them(
    tg: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann asks for her lobby's toggles in her private chat while Telegram is slow to answer
    there (her /rules on its way), and the game starts before they go: the post that takes
    the toggles' buttons off came for the same slot while they waited. They come all the same,
    as the start leaves them: no button, what the group's closed lobby says (before, the
    merge kept the post that takes buttons off alone, with no toggles to find: her /options
    had no answer). Her /options gives up waiting for their delivery (`DELIVERY_WAIT`, a
    second here) while her chat is held."""
    monkeypatch.setattr("adapters.telegram.app.DELIVERY_WAIT", 1.0)
    await seat(tg)
    held = tg.fake.stall(ANN.id)
    tg.fake.send_command(ANN.id, ANN, "/rules")
    await until(lambda: held == ["sendMessage"], "Ann's rules on their way")
    tg.fake.send_command(ANN.id, ANN, "/options")
    await until(
        lambda: any(p.notify and p.keys for p in tg.front.outbox.waiting(ANN.id)),
        "Ann's toggles waiting",
    )
    lobby = tg.lobby()
    tg.fake.send_command(GROUP, BOB, "/start")
    await handled(tg)
    tg.fake.unstall(ANN.id)
    await tg.idle()
    closed = tg.fake.message(GROUP, lobby.message_id).text
    assert "the game has started" in closed, closed
    shown = tg.fake.current_messages(ANN.id).values()
    (toggles,) = [m for m in shown if "the game has started" in m.text]
    assert toggles.text.endswith(closed), toggles.text
    assert toggles.keyboard == ()
    assert tg.real_errors() == []


async def one_card_left(bot: Bot) -> bool:
    """Whether the game's next move is its last: one card left in the last round."""
    snap = await bot.front.service.store.load(chat_key(GROUP))
    assert snap.table is not None
    state = snap.table.game
    if state.round is None or state.round.number < len(state.plan):
        return False
    return sum(len(hand) for hand in state.round.hands) == 1


async def test_a_result_waiting_as_the_table_it_opened_is_cancelled_comes_without_its_button(
    tg: Bot,
) -> None:
    """Telegram is slow to answer in a player's private chat (not Ann's) as someone else plays
    the game's last card: their hand's last edit is on its way, their own result (a new
    message, with "Play again") waits. Ann presses "Play again" and cancels that table at once:
    the post that takes the last game's "Play again" off their result came for their slot
    while the result waited. The result comes all the same, without the button (before, that
    post took its place: they never saw their place and points)."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    while not await one_card_left(tg):
        await move(tg)
    turn = whose_turn(tg, PLAYERS)
    assert turn is not None
    user, hand = turn
    slow = next(player for player in PLAYERS if player not in (user, ANN))
    held = tg.fake.stall(slow.id)
    tg.fake.press(user.id, user, hand.message_id, moves_of(hand)[0])
    await until(
        lambda: (
            bool(held) and any("Your place" in p.html for p in tg.front.outbox.waiting(slow.id))
        ),
        "their result waiting behind a post on its way",
    )
    assert held == ["editMessageText"], held  # their hand as the last trick left it
    await until(lambda: any("The game is over" in t for t in tg.group_texts()), "the end")
    over = tg.fake.last_message(GROUP)
    tg.fake.press_label(GROUP, ANN, over.message_id, "Play again")
    await handled(tg)
    tg.fake.send_command(GROUP, ANN, "/cancel")
    await handled(tg)
    tg.fake.unstall(slow.id)
    await tg.idle()
    shown = tg.fake.current_messages(slow.id).values()
    (result,) = [m for m in shown if "Your place" in m.text]
    assert result.keyboard == ()
    assert tg.fake.message(GROUP, over.message_id).keyboard == ()
    assert tg.real_errors() == []


async def test_a_player_the_bot_cannot_reach_in_a_later_game_is_named_in_a_new_message(
    tg: Bot,
) -> None:
    """Bob is named in one game and comes back; that game is cancelled and the next one
    played. Blocked again there, he is named in a new message that notifies him, not in the
    last game's notice edited far up the chat (its slot in the group outlives its game)."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.block(BOB)
    for _ in range(2):  # Cid and Ann bid: Bob's hand, his turn next, fails
        await bid_in_the_group(tg)
    first = unreached_notices(tg)[0]
    tg.fake.start_dm(BOB, "cards")
    await tg.idle()
    await tg.command(GROUP, ANN, "/cancel")
    since = len(tg.fake.transcript(GROUP))
    await seat(tg)
    tg.fake.block(BOB)
    await tg.command(GROUP, ANN, "/start")  # his first hand fails
    notices = unreached_notices(tg)
    assert len(notices) == 2, tg.group_texts()
    assert notices[0].message_id == first.message_id
    assert tg.fake.message(GROUP, first.message_id).keyboard == ()
    assert notices[1].labels == [["Open the private chat"]]
    # Its button came off at his /start: the new notice does not take it off again.
    later = tg.fake.transcript(GROUP)[since:]
    assert [e for e in later if e.message_id == first.message_id] == []
    assert [e for e in tg.fake.errors if e.chat_id == GROUP] == []  # not even "not modified"


async def test_a_player_who_blocked_the_bot_before_his_first_hand_gets_it_on_start(
    tg: Bot,
) -> None:
    """Bob blocks the bot after he sat down, before the cards are dealt: his first hand never
    arrives, so his private chat has no hand message of the game. His /start finds the game by
    his live seats and sends his hand, and the group's notice loses its button."""
    await seat(tg)
    tg.fake.block(BOB)
    await tg.command(GROUP, ANN, "/start")
    assert not [m for m in tg.fake.current_messages(BOB.id).values() if "Round " in m.text]
    notice = unreached_notices(tg)[0]
    assert notice.labels == [["Open the private chat"]]
    tg.fake.start_dm(BOB, "cards")
    await tg.idle()
    assert "Your hand:" in tg.hand(BOB).text
    assert tg.fake.message(GROUP, notice.message_id).keyboard == ()
    await play_on(tg)  # the hand he was sent is the one his moves are made with
    assert tg.real_errors() == [e for e in tg.fake.errors if e.chat_id == BOB.id]


async def test_a_player_who_unblocks_the_bot_without_start_is_back(tg: Bot) -> None:
    """Bob blocks the bot mid-round and is named in the group; he unblocks it in Telegram's
    settings without pressing Start (a my_chat_member update of his private chat, kicked ->
    member). His hand comes as it is now, so he can play at once, the notice loses its button,
    and the game's mark goes: blocking the bot once more names him again."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.block(BOB)  # the update saying so has not come: his next message fails first
    for _ in range(2):  # Cid and Ann bid: Bob's hand, his turn next, fails
        await bid_in_the_group(tg)
    (notice,) = unreached_notices(tg)
    assert notice.labels == [["Open the private chat"]]
    hands = len([m for m in tg.fake.current_messages(BOB.id).values() if "Your hand:" in m.text])
    update = tg.fake.block(BOB, blocked=False, tell=True)
    assert update is not None
    assert update["my_chat_member"]["chat"]["type"] == "private"
    await tg.idle()
    mine = [m for m in tg.fake.current_messages(BOB.id).values() if "Your hand:" in m.text]
    assert len(mine) == hands + 1
    assert tg.fake.message(GROUP, notice.message_id).keyboard == ()
    await move(tg)  # he bids, and sees his hand change
    assert "Your hand:" in tg.hand(BOB).text
    assert tg.fake.last_message(BOB.id).message_id == tg.hand(BOB).message_id
    tg.fake.block(BOB)
    await tg.command(GROUP, BOB, "/hand")  # the hand he asks for fails
    notices = unreached_notices(tg)
    assert len(notices) == 2, tg.group_texts()
    assert notices[1].labels == [["Open the private chat"]]


async def test_a_player_who_restarts_the_bot_gets_his_hand_once(tg: Bot) -> None:
    """Bob blocked the bot mid-round and taps Restart in his private chat: Telegram sends the
    unblocking (kicked -> member) and then /start, one right after the other. He gets the
    welcome and his hand once, not a second hand under the first."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    tg.fake.block(BOB, tell=True)
    await tg.idle()
    (notice,) = unreached_notices(tg)
    since = len(tg.fake.transcript(BOB.id))
    tg.fake.start_dm(BOB, "cards")
    await tg.idle()
    sent = [e for e in tg.fake.transcript(BOB.id)[since:] if e.kind == "message"]
    assert sum("Your hand:" in e.text for e in sent) == 1, [e.text for e in sent]
    assert any(e.text.startswith("🔮 Wizard") for e in sent)
    assert tg.fake.message(GROUP, notice.message_id).keyboard == ()
    tg.fake.start_dm(BOB)  # a /start of his own later brings his hand down again
    await tg.idle()
    assert tg.fake.last_message(BOB.id).message_id == tg.hand(BOB).message_id


async def test_a_player_who_blocks_the_bot_is_named_at_once(tg: Bot) -> None:
    """Bob blocks the bot while the game waits on Ann: Telegram says so at once (a
    my_chat_member update of his private chat, member -> kicked), and the group is told then,
    not at his next message that fails, which could be minutes away; that failure, and the
    ones after, say nothing more. A block while he sits in the lobby tells the group nothing."""
    await seat(tg)
    tg.fake.block(BOB, tell=True)
    await tg.idle()
    assert unreached_notices(tg) == []  # no round is played yet
    tg.fake.start_dm(BOB)
    await tg.idle()
    await tg.command(GROUP, ANN, "/start")
    calls = tg.fake.total_calls(chat_id=BOB.id)
    update = tg.fake.block(BOB, tell=True)
    assert update is not None
    assert update["my_chat_member"]["new_chat_member"]["status"] == "kicked"
    await tg.idle()
    assert tg.fake.total_calls(chat_id=BOB.id) == calls  # nothing was sent him, nothing failed
    (notice,) = unreached_notices(tg)
    assert notice.text == UNREACHED + "press the button below, then Start."
    assert notice.entities[0]["url"] == f"tg://user?id={BOB.id}"
    assert notice.labels == [["Open the private chat"]]
    for _ in PLAYERS:  # everyone bids: his hand fails each time
        await bid_in_the_group(tg)
    assert [e for e in tg.fake.errors if e.chat_id == BOB.id]
    assert unreached_notices(tg) == [tg.fake.message(GROUP, notice.message_id)]
    tg.fake.start_dm(BOB, "cards")
    await tg.idle()
    assert "Your hand:" in tg.hand(BOB).text
    assert tg.fake.message(GROUP, notice.message_id).keyboard == ()


async def test_a_deep_link_join_opens_the_table_in_the_topic_it_was_asked_in(tg: Bot) -> None:
    topic, _ = forum(tg.fake)
    tg.fake.send_command(GROUP, DAN, "/join", thread=topic)
    await tg.idle()
    link = tg.fake.last_message(GROUP)
    assert link.thread == topic
    url = link.keyboard[0][0].url
    assert url is not None
    tg.fake.start_dm(DAN, url.partition("?start=")[2])
    await tg.idle()
    assert "1. Dan" in tg.lobby().text
    assert tg.lobby().thread == topic
    assert {error.method for error in tg.fake.errors} == {"sendChatAction"}  # before the DM


async def test_a_deep_link_join_into_a_topic_is_answered_before_the_group_shows_it(
    tg: Bot,
) -> None:
    """Dan's deep-link join into a forum topic is answered in his private chat at once, while
    Telegram is still slow to take the group's posts (a busy group: the lobby on its way). The
    join waited for them (up to 10 s) to learn whether the topic was still there; a topic gone
    now closes the table and tells him so after this answer (see
    `test_a_deep_link_to_a_topic_gone_since_closes_the_table_and_says_so`)."""
    topic, _ = forum(tg.fake)
    tg.fake.send_command(GROUP, DAN, "/join", thread=topic)
    await tg.idle()
    url = tg.fake.last_message(GROUP).keyboard[0][0].url
    assert url is not None
    held = tg.fake.stall(GROUP, methods={"sendMessage"})
    tg.fake.start_dm(DAN, url.partition("?start=")[2])
    seated = "✅ You have a seat at the table."

    def answered() -> bool:
        return any(e.text.startswith(seated) for e in tg.fake.transcript(DAN.id))

    await until(lambda: held == ["sendMessage"], "the lobby on its way to the group")
    await until(answered, "Dan answered while the group's lobby is on its way")
    assert held == ["sendMessage"]  # still held
    tg.fake.unstall(GROUP)
    await tg.idle()
    assert "1. Dan" in tg.lobby().text
    assert tg.lobby().thread == topic


async def test_a_deep_link_join_keeps_the_group_s_title(tg: Bot) -> None:
    """Dan's join by the deep link opens Friday's table: it is the group's first write, made
    from his private chat, whose update does not say the group's title; the join asks Telegram
    and keeps it (made safe, cut short) with the chat's settings, as a join in the group does,
    so a private message of Friday's game can name it before the group's next command."""
    tg.fake.add_group(FRIDAY, FRIDAY_TITLE, members=[ANN, DAN])
    await tg.command(FRIDAY, DAN, "/join")
    url = tg.fake.last_message(FRIDAY).keyboard[0][0].url
    assert url is not None
    assert not await tg.client.exists(keys.game(chat_key(FRIDAY)))  # not seated yet
    tg.fake.start_dm(DAN, url.partition("?start=")[2])
    await tg.idle()
    assert "1. Dan" in tg.fake.last_message(FRIDAY).text
    settings = await tg.client.get(keys.settings(chat_key(FRIDAY)))
    assert settings is not None
    assert json.loads(settings)["title"] == clean(FRIDAY_TITLE, TITLE_LIMIT)
    assert {error.method for error in tg.fake.errors} == {"sendChatAction"}  # before the DM


async def test_a_deep_link_to_a_group_one_is_not_in_is_refused(tg: Bot) -> None:
    stranger = User(2001, "Eve", "eve")
    tg.fake.start_dm(stranger, f"join-{GROUP}")
    await tg.idle()
    assert "group you belong to" in tg.fake.last_message(stranger.id).text
    assert not tg.fake.current_messages(GROUP)


async def test_only_a_seat_taken_is_greeted_in_private(tg: Bot) -> None:
    """Whether a person can be written to privately is asked without a message; the hello
    ("sitting down at the table") comes only with a seat: not for a /join that is refused, nor
    for a stale "Play again"."""
    await seat(tg)
    hello = "sitting down at the table in Wizards"
    for user in PLAYERS:
        assert [e.text for e in tg.fake.transcript(user.id) if hello in e.text] != []
    await tg.command(GROUP, ANN, "/start")
    before = len(tg.fake.transcript(ANN.id))
    await tg.command(GROUP, ANN, "/join")  # seated already, and the game is on
    answer = await tg.press(GROUP, ANN, tg.table().message_id, "g0.L.n", stale=True)
    assert answer.show_alert
    assert [e.text for e in tg.fake.transcript(ANN.id)[before:] if hello in e.text] == []
    assert tg.real_errors() == []


async def test_a_deep_link_to_a_private_chat_opens_no_table(tg: Bot) -> None:
    """`join-<id>` of a person (one's own private chat, or another's) is no group: the welcome,
    and no table anywhere."""
    for target in (ANN, BOB):
        tg.fake.start_dm(ANN, f"join-{target.id}")
        await tg.idle()
        assert "Add me to a group" in tg.fake.last_message(ANN.id).text
    assert not tg.fake.current_messages(BOB.id)
    assert not [m for m in tg.fake.current_messages(ANN.id).values() if "table" in m.text]
    for person in (ANN, BOB):
        assert not await tg.client.exists(keys.game(chat_key(person.id)))


async def test_a_private_start_welcomes_and_shows_the_current_hand(tg: Bot) -> None:
    tg.fake.start_dm(DAN)  # no game: how to play, and a button that adds the bot to a group
    await tg.idle()
    welcome = tg.fake.last_message(DAN.id)
    assert "Add me to a group" in welcome.text
    assert "/join" in welcome.text
    assert welcome.keyboard[0][0].url == "https://t.me/wizard_test_bot?startgroup=play"
    await seat(tg, (ANN, BOB, CID))
    await tg.command(GROUP, ANN, "/start")
    before = tg.fake.last_message(ANN.id)
    tg.fake.start_dm(ANN)  # mid-game: the welcome, then Ann's hand as it is now
    await tg.idle()
    shown = tg.fake.transcript(ANN.id)
    hand = tg.fake.last_message(ANN.id)
    assert hand.message_id > before.message_id
    assert "Your hand:" in hand.text
    assert any("Add me to a group" in e.text for e in shown[-3:])
    if hand.keyboard:  # her turn: the new message has the buttons, the old one none
        assert tg.fake.message(ANN.id, before.message_id).keyboard == ()


async def test_private_messages_follow_each_players_app_language(tg: Bot) -> None:
    """Uwe's app is in German, the group's language English: his private chat is in German
    from the hello of his seat on, the group's table in English."""
    uwe = User(1006, "Uwe", "uwe", language_code="de")
    tg.fake.add_group(GROUP, members=[uwe])
    await seat(tg, (ANN, BOB, uwe))
    hello = [e.text for e in tg.fake.transcript(uwe.id) if "Wizards" in e.text]
    greeting = (
        "🔮 Du setzt dich an den Tisch in der Gruppe Wizards. Deine Karten werden hier angezeigt."
    )
    assert hello == [greeting]
    await tg.command(GROUP, ANN, "/start")
    assert tg.table().text.startswith("🔮 Round 1 of 5")  # the group: its own language
    mine = [m.text for m in tg.fake.current_messages(uwe.id).values()]
    assert any(text.startswith("Runde 1 von 5") for text in mine), mine  # his app's language
    assert not any("Round" in text for text in mine), mine
    assert tg.hand(ANN).text.startswith("Round 1 of 5")


async def test_the_private_chats_answers_follow_the_persons_app_language(tg: Bot) -> None:
    """/help, /rules, /stats and a game command typed in a private chat answer in the language
    of the person's app, as the greeting of their /start there does (the group's /language is
    not the private chat's)."""
    uwe = User(1006, "Uwe", "uwe", language_code="de")
    tg.fake.start_dm(uwe)
    await tg.idle()
    assert tg.fake.last_message(uwe.id).text.startswith("🔮 Wizard: Sag genau die Stiche an")
    for command, said in [
        ("/help", "/join – Platz nehmen"),
        ("/hand", "/join – Platz nehmen"),
        ("/rules", "📜 Wizard in Kürze"),
        ("/stats", "Noch ist kein Spiel von dir zu Ende gegangen."),
    ]:
        await tg.command(uwe.id, uwe, command)
        assert said in tg.fake.last_message(uwe.id).text, (command, tg.fake.last_message(uwe.id))
    tg.fake.start_dm(ANN)  # an app in a language without a catalog, or none: English
    await tg.idle()
    await tg.command(ANN.id, ANN, "/help")
    assert "/join – take a seat" in tg.fake.last_message(ANN.id).text


async def test_private_chat_help_and_menus(tg: Bot) -> None:
    tg.fake.start_dm(ANN)
    await tg.idle()
    assert "/join" in tg.fake.last_message(ANN.id).text
    await tg.command(ANN.id, ANN, "/bid 3")  # a game command in private: the help
    assert tg.fake.last_message(ANN.id).text.startswith("🔮 Wizard")
    menus = tg.fake.commands
    group_de = menus[("all_group_chats", "de")]
    assert {c["command"] for c in group_de} >= {"join", "bid", "play", "start", "cancel"}
    assert any(c["description"].startswith("Platz nehmen") for c in group_de)
    removebot = next(c for c in group_de if c["command"] == "removebot")
    assert removebot["description"].startswith("einen KI-Spieler entfernen")
    private = [c["command"] for c in menus[("all_private_chats", "")]]
    assert private == ["options", "rules", "stats", "forgetme", "help"]
    assert {language for _, language in menus} >= {"ko", "lv", "ru", "pt"}  # every catalog's


async def test_cancel_by_an_admin_and_refusals_as_replies(tg: Bot) -> None:
    await seat(tg, short=False)
    await tg.command(GROUP, DAN, "/cancel")
    reply = tg.fake.last_message(GROUP)
    assert reply.reply_to is not None
    assert "host or a chat admin" in reply.text
    tg.fake.set_admin(GROUP, CID)  # seated, not the host: an admin
    await tg.command(GROUP, CID, "/cancel")
    assert tg.fake.last_message(GROUP).text == "Cid cancelled the game."


async def test_a_cancelled_games_table_waits_for_nobody(tg: Bot) -> None:
    """The table of a game cancelled mid-round says who cancelled it and no longer says whose
    turn it is: no seat is marked ▶️, no "Cid to bid." (nobody is to bid any more)."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await move(tg)
    table = tg.table()
    assert "▶️" in table.text
    assert " to bid." in table.text
    await tg.command(GROUP, ANN, "/cancel")
    shown = tg.fake.message(GROUP, table.message_id)
    assert shown.text.endswith("\n\nAnn cancelled the game."), shown.text
    assert "▶️" not in shown.text
    assert " to bid." not in shown.text
    assert not shown.keyboard


async def test_an_ai_seat_is_taken_off_the_lobby_typed_or_pressed(tg: Bot) -> None:
    """Ann adds two AI seats; Bob takes the last one off with /removebot, then Merlin with the
    lobby's button, shown on a row of its own only while an AI seat is seated. A name that is
    no AI seat, and a /removebot with none left, are refused as replies and change nothing."""
    await seat(tg, (ANN, BOB), short=False)
    lobby = tg.lobby()
    assert lobby.labels == [["Join", "Leave", "Start"], ["Add AI", "Options", "Cancel"]]
    await tg.command(GROUP, ANN, "/addbot")
    await tg.command(GROUP, ANN, "/addbot hard")
    assert tg.lobby().labels[2:] == [["Remove 🤖 Morgana"]]
    await tg.command(GROUP, BOB, "/removebot@wizard_test_bot")
    lobby = tg.lobby()
    assert "Morgana" not in lobby.text
    assert "🤖 Merlin" in lobby.text
    assert lobby.labels[2:] == [["Remove 🤖 Merlin"]]
    await tg.command(GROUP, BOB, "/removebot Bob")
    reply = tg.fake.last_message(GROUP)
    assert reply.reply_to is not None
    assert reply.text == "No AI player here is called Bob."
    assert tg.lobby().text == lobby.text
    answer = await tg.press_label(GROUP, BOB, lobby.message_id, "Remove 🤖 Merlin")
    assert not answer.show_alert, answer.text
    lobby = tg.lobby()
    assert "🤖" not in lobby.text
    assert lobby.labels == [["Join", "Leave", "Start"], ["Add AI", "Options", "Cancel"]]
    await tg.command(GROUP, ANN, "/removebot")
    assert tg.fake.last_message(GROUP).text == "There is no AI player to remove."
    assert tg.lobby().text == lobby.text
    await tg.command(GROUP, ANN, "/addbot")
    await tg.command(GROUP, ANN, "/removebot merlin")
    assert "🤖" not in tg.lobby().text
    assert tg.fake.unanswered_presses() == []
    assert tg.real_errors() == []


def _dealer_line(table: str) -> str:
    return next(line for line in table.splitlines() if "(dealer)" in line)


async def test_moves_typed_in_the_group_tell_nothing_secret(tg: Bot) -> None:
    """A bid typed in the group in a round of secret bids is refused whatever it names: under
    notequal, refusing only the dealer's one forbidden bid would tell everyone the sum of the
    others' secret bids. The rules' refusal of a typed move goes to the player's private chat:
    "You don't have that card." tells of their hand."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options bids=secret")
    await tg.command(GROUP, ANN, "/options notequal")
    await tg.command(GROUP, ANN, "/start")
    table = tg.table().text
    dealer = next(user for user in PLAYERS if f"{user.first_name}" in _dealer_line(table))
    for user in PLAYERS:
        if user is not dealer:  # they bid 0 with their buttons: the dealer may not bid 1
            answer = await tg.press_label(user.id, user, tg.hand(user).message_id, "0")
            assert not answer.show_alert, answer.text
    table = tg.table().text
    replies = []
    for typed in ("/bid 1", "/bid 0"):  # the forbidden bid, then an allowed one
        await tg.command(GROUP, dealer, typed)
        reply = tg.fake.last_message(GROUP)
        assert reply.reply_to is not None
        replies.append(reply.text)
    assert (
        replies
        == ["Bids are secret in this round: bid with the buttons in your private chat with me."] * 2
    )
    assert tg.table().text == table
    assert "Your bid?" in tg.hand(dealer).text
    answer = await tg.press_label(dealer.id, dealer, tg.hand(dealer).message_id, "0")
    assert not answer.show_alert, answer.text
    turn = whose_turn(tg, PLAYERS)
    assert turn is not None
    user, hand = turn
    held = set(reading.cards_of(hand.text.split("Your hand:")[1].splitlines()[0]))
    other = next(card for card in (Card("R13"), Card("B13")) if card not in held)
    group_before = len(tg.fake.transcript(GROUP))
    await tg.command(GROUP, user, f"/play {card_face(other, Theme.COLOURS)}")
    said = [event.text for event in tg.fake.transcript(GROUP)[group_before:]]
    assert said == [f"/play {card_face(other, Theme.COLOURS)}"]  # the typed line, no answer
    assert tg.fake.last_message(user.id).text == "You don't have that card."
    assert tg.real_errors() == []


async def test_stats_tell_two_people_called_ann_apart(tg: Bot) -> None:
    """Two people called Ann: /top numbers the one who played here later as the table does
    (`Ann (2)`), and she stays Ann (2) after a game she sits first at; /stats Ann answers the
    asker with both, told apart, and how to pick one; /stats Ann (2) shows hers."""
    annie = User(1006, "Ann", "annie")
    people = (ANN, annie, BOB)

    async def said(user: User, command: str) -> MessageView:
        """What the bot shows after `user` types `command` in the group."""
        sent = tg.fake.send_command(GROUP, user, command)
        await tg.idle()
        shown = tg.fake.last_message(GROUP)
        assert shown.message_id > sent["message"]["message_id"], f"{command}: no answer"
        return shown

    await seat(tg, people)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg, people)
    top = (await said(BOB, "/top")).text
    ann, second = (f"\u2068{ANN.first_name}\u2069 ", f"\u2068{ANN.first_name}\u2069 (2) ")
    assert top.count(second) == 1  # once: the last 30 days' board is the same (a line says so)
    assert sum(ann in line and second not in line for line in top.splitlines()) == 1
    assert "\nLast 30 days: the same as above.\n" in top

    which = await said(BOB, "/stats ann")
    assert which.reply_to is not None  # for the asker: a reply to their command
    assert which.text == (
        "2 players here are called ann. Which one?\n"
        "/stats Ann (1) · 1 game\n"
        "/stats Ann (2) · 1 game"
    )
    assert (await said(BOB, "/stats Ann (2)")).text.startswith("📊 Ann (2)\n")
    assert (await said(annie, "/stats")).text.startswith("📊 Ann (2)\n")  # her own
    assert (await said(CID, "/stats ann (1)")).text.startswith("📊 Ann\n")

    # Annie sits first at the next table (where she is the Ann without a number) and plays:
    # on the boards and in /stats she is still Ann (2), the one who came here later
    await seat(tg, (annie, BOB, ANN))
    await tg.command(GROUP, annie, "/start")
    assert f"{ANN.first_name} (2)" in tg.table().text
    while sum("The game is over" in m.text for m in tg.fake.current_messages(GROUP).values()) < 2:
        await move(tg, people)
    again = (await said(CID, "/top")).text
    assert again.count(second) == 1
    mine = (await said(annie, "/stats")).text
    assert mine.startswith("📊 Ann (2)\n")
    assert "Games      2" in mine
    assert tg.real_errors() == []


async def test_stats_of_the_person_a_command_replies_to_or_mentions(tg: Bot) -> None:
    """/stats in reply to someone's message shows theirs, and a text mention picks whom it
    carries (Telegram's mention of a person without a username), whatever name it shows; one who
    has not played here is named in the answer. A reply to the bot, to an anonymous admin, to a
    channel's post, or in a forum topic (sent as a reply to its first message) picks nobody;
    a name typed with a reply is the name's."""
    dan = User(1004, "Dan")  # no username: a client mentions him by a text mention
    tg.fake.add_group(GROUP, members=[dan])
    await seat(tg)
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)

    async def said(user: User, command: str, **how: Any) -> MessageView:
        """What the bot answers `user`'s `command` in the group."""
        sent = tg.fake.send_command(GROUP, user, command, **how)
        await tg.idle()
        shown = tg.fake.last_message(GROUP)
        assert shown.message_id > sent["message"]["message_id"], f"{command}: no answer"
        return shown

    def talk(user: User, text: str) -> int:
        return int(tg.fake.send_text(GROUP, user, text)["message"]["message_id"])

    bobs = talk(BOB, "good game")
    assert (await said(CID, "/stats", reply_to=bobs)).text.startswith("📊 Bob Brown\n")
    # a name typed is the one asked for, not the reply's author
    assert (await said(CID, "/stats ann", reply_to=bobs)).text.startswith("📊 Ann\n")
    # a client's text mention shows the first name; it is Bob Brown it carries
    mention = await said(ANN, "/stats Bob", mentions={"Bob": BOB})
    assert mention.text.startswith("📊 Bob Brown\n")
    never = await said(ANN, "/stats Dan", mentions={"Dan": dan})
    assert never.text == "Dan has not finished a game here yet."
    assert never.reply_to is not None  # for the asker: a reply to their command
    dans = talk(dan, "what is this game?")
    assert (
        await said(BOB, "/stats", reply_to=dans)
    ).text == "Dan has not finished a game here yet."
    # nobody is picked: the asker's own
    bots = tg.fake.last_message(GROUP).message_id
    assert (await said(CID, "/stats", reply_to=bots)).text.startswith("📊 Cid\n")
    anonymous = tg.fake.send_as_chat(GROUP, "Tonight: a tournament")
    assert (await said(BOB, "/stats", reply_to=anonymous)).text.startswith("📊 Bob Brown\n")
    post = tg.fake.send_as_chat(GROUP, "News", channel=-1009876543210)
    assert (await said(ANN, "/stats", reply_to=post)).text.startswith("📊 Ann\n")
    # an @username is read as a name, and said to be none
    username = await said(ANN, "/stats @bob")
    assert username.text == (
        "Nobody called @bob has played here. "
        "Players are known by the name they play under, not by @username."
    )
    # the group becomes a forum: a command in a topic replies to its first message (Ann's)
    tg.fake.add_group(GROUP, chat_type="supergroup", forum=True)
    topic = tg.fake.add_topic(GROUP, "Chat", by=ANN)
    assert (await said(CID, "/stats", thread=topic)).text.startswith("📊 Cid\n")
    in_topic = int(tg.fake.send_text(GROUP, BOB, "gg", thread=topic)["message"]["message_id"])
    shown = await said(CID, "/stats", thread=topic, reply_to=in_topic)
    assert shown.text.startswith("📊 Bob Brown\n")
    assert tg.real_errors() == []


async def test_html_is_escaped_and_score_sheets_are_monospace(tg: Bot) -> None:
    sly = User(1005, "<b>Sly</b>", "sly")
    tg.fake.add_group(GROUP, members=[sly])
    await seat(tg, (sly, ANN, BOB))
    assert "<b>Sly</b>" in tg.lobby().text
    await tg.command(GROUP, sly, "/start")
    await play_on(tg, (sly, ANN, BOB))
    await tg.command(GROUP, ANN, "/scores")
    sheet = tg.fake.transcript(GROUP)[-1]
    assert sheet.kind == "photo"  # the score sheet as a picture, the standings its caption
    assert sheet.text.startswith("Score sheet after round 5 of 5\n")
    assert "<b>Sly</b>" in sheet.text  # shown as typed, not as HTML
    assert (sheet.data or b"").startswith(b"\x89PNG")
    assert tg.real_errors() == []


# --- polling: what the log says when it fails ----------------------------------------------


async def _logged(
    caplog: pytest.LogCaptureFixture, logger: str, text: str, seconds: float = 20
) -> logging.LogRecord:
    """The first record of `logger` with `text` in its message, waited for."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for record in caplog.records:
            if record.name == logger and text in record.getMessage():
                return record
        await asyncio.sleep(0.05)
    raise AssertionError(f"no record of {logger} with {text!r}: {caplog.text}")


async def test_telegram_away_is_a_warning_line_each_try_not_a_traceback(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake = FakeTelegram()
    await fake.start()
    client = aioredis.Redis.from_url(redis_url)
    front = _front(fake, client)
    await front.start()
    ready = front.service.metrics.ready
    try:
        assert (await ready.ready())["telegram"]
        await fake.stop()  # the network, or Telegram, goes away while the bot polls
        said = await _logged(caplog, "adapters.telegram.app", "cannot get updates from Telegram")
        assert said.levelno == logging.WARNING
        assert said.getMessage().endswith("; trying again")
        assert not (await ready.ready())["telegram"]  # /readyz: 503, not ready: telegram
    finally:
        await front.stop()  # its last getUpdates fails too
        await client.aclose()
    last = await _logged(caplog, "telegram.ext.Updater", "one more time to mark all fetched")
    assert last.levelno == logging.WARNING
    assert "NetworkError" in last.getMessage()
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR] == []


async def test_a_polling_error_that_recurs_has_its_traceback_once(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An unexpected error of every long poll (PTB tries again, up to 30 s apart) is an error
    with its traceback the first time, then one line a try while it is the same; after a poll
    Telegram answered, its traceback again."""
    caplog.set_level(logging.INFO)
    async with FakeTelegram() as fake:
        client = aioredis.Redis.from_url(redis_url)
        front = _front(fake, client)
        for _ in range(3):
            front._polling_failed(TelegramError("Something odd"))
        front._polled()
        front._polling_failed(TelegramError("Something odd"))
        await client.aclose()
    said = [r for r in caplog.records if r.name == "adapters.telegram.app"]
    assert [(r.levelno, r.exc_info is not None) for r in said] == [
        (logging.ERROR, True),
        (logging.ERROR, False),
        (logging.ERROR, False),
        (logging.ERROR, True),
    ]
    assert said[1].getMessage().endswith("(the same again: TelegramError: Something odd)")


async def test_a_second_polling_worker_is_an_error_line_saying_what_to_do(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with FakeTelegram() as fake:
        client = aioredis.Redis.from_url(redis_url)
        fronts = [_front(fake, client), _front(fake, client)]
        for front in fronts:
            await front.start()
        try:
            said = await _logged(caplog, "adapters.telegram.app", "to another process")
        finally:
            for front in fronts:
                await front.stop()
            await client.aclose()
    assert said.levelno == logging.ERROR
    assert "Conflict: terminated by other getUpdates request" in said.getMessage()
    assert said.getMessage().endswith(
        ": run one polling worker per bot token, or set telegram.webhook_url on every worker "
        '(docs/operations.md, "Scaling out")'
    )
    assert [r for r in caplog.records if r.exc_info] == []


@contextlib.asynccontextmanager
async def _polling(redis_url: str) -> AsyncIterator[tuple[FakeTelegram, Readiness]]:
    """A polling front end started on a fake Telegram: the fake and the front end's readiness."""
    async with FakeTelegram() as fake:
        client = aioredis.Redis.from_url(redis_url)
        front = _front(fake, client)
        await front.start()
        try:
            yield fake, front.service.metrics.ready
        finally:
            await front.stop()
            await client.aclose()


def _conflicts(caplog: pytest.LogCaptureFixture) -> int:
    """How many long polls the log says another process's getUpdates cut off."""
    return sum("to another process" in r.getMessage() for r in caplog.records)


async def _poll_cut_off_then_answered(
    fake: FakeTelegram, caplog: pytest.LogCaptureFixture, ready: Readiness
) -> None:
    """Another process's getUpdates cuts the front end's long poll off (409 Conflict), which
    makes it not ready; then PTB's retry, 1 s on, and the poll after it are answered."""
    polls = fake.calls["getUpdates"]
    await until(lambda: fake.calls["getUpdates"] > polls, "a long poll just begun")
    conflicts = _conflicts(caplog)
    async with ClientSession() as other:  # it ends at once: 409 Conflict
        await other.post(f"{fake.base_url}{fake.token}/getUpdates", json={"timeout": 0})
    await until(lambda: _conflicts(caplog) > conflicts, "the conflict logged")
    assert not (await ready.ready())["telegram"]
    polls = fake.calls["getUpdates"]
    fake.send_text(ANN.id, ANN, "hello")  # PTB's retry (1 s on) is answered at once
    # the poll after the retry: PTB polls one at a time, so the retry's answer is in
    await until(lambda: fake.calls["getUpdates"] >= polls + 2, "a poll after an answer")


async def test_ready_again_with_the_first_long_poll_answered_after_a_failed_one(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A long poll cut off by another process's getUpdates (a worker of the old release, say)
    makes the front end not ready; the next poll Telegram answers makes it ready again at once."""
    caplog.set_level(logging.INFO)
    async with _polling(redis_url) as (fake, ready):
        assert (await ready.ready())["telegram"]
        await _poll_cut_off_then_answered(fake, caplog, ready)
        assert (await ready.ready())["telegram"]
    assert [r for r in caplog.records if r.exc_info] == []


async def test_not_ready_while_another_process_polls_too(
    redis_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers polling with one token take turns: each has polls answered between the
    other's conflicts. A second conflict within `CONFLICT_SPAN` of the first keeps the front end
    not ready through the answered polls after it (before, it counted as ready between them, so
    an alert on readiness might never fire), until the span has passed."""
    caplog.set_level(logging.INFO)
    async with _polling(redis_url) as (fake, ready):
        await _poll_cut_off_then_answered(fake, caplog, ready)
        await _poll_cut_off_then_answered(fake, caplog, ready)
        assert not (await ready.ready())["telegram"]
        monkeypatch.setattr("adapters.telegram.app.CONFLICT_SPAN", 0.0)  # the span passed
        assert (await ready.ready())["telegram"]
    assert [r for r in caplog.records if r.exc_info] == []


async def test_not_ready_while_long_polls_go_unanswered(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Long polls that hang (a dead connection, a proxy that swallows them) fail nothing PTB
    tells of: it tries a timed-out one again at once, quietly. The front end is not ready once
    Telegram has answered none for `poll_timeout` + `POLL_LATE`, and ready again with the next
    answer."""
    monkeypatch.setattr("adapters.telegram.app.POLL_LATE", 0.5)
    async with _polling(redis_url) as (fake, ready):

        async def answering() -> bool:
            return (await ready.ready())["telegram"]

        async def unanswered() -> bool:
            return not await answering()

        try:
            assert await answering()
            fake.hold_polls = True
            await until(unanswered, "not ready with no long poll answered for 1.5 s")
            fake.hold_polls = False
            await until(answering, "ready with the held long poll answered")
        finally:
            fake.hold_polls = False


# --- webhook ---------------------------------------------------------------------------------


async def test_webhook_mode_checks_the_secret(redis_url: str, game_ids: None) -> None:
    port = free_port()
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        url = f"http://127.0.0.1:{port}/tg/hook"
        client = aioredis.Redis.from_url(redis_url)
        front = _front(
            fake, client, webhook_url=url, webhook_secret="s3cret", listen=f"127.0.0.1:{port}"
        )
        await front.start()
        try:
            assert fake.webhook_url == url
            bot = Bot(fake, front, client)
            fake.start_dm(ANN)
            await bot.idle()
            await bot.command(GROUP, ANN, "/join")
            assert "Ann" in bot.lobby().text
            forged = fake.send_command(GROUP, BOB, "/join", enqueue=False)
            assert await fake.post_update_to(url, forged, "wrong") == 403
            await bot.idle()
            assert "Bob" not in bot.lobby().text
        finally:
            await front.stop()
            await client.aclose()


class Balancer:
    """A load balancer in front of webhook workers: each update goes to the next worker in
    turn (as a deployment's proxy may do), with Telegram's secret header passed on."""

    def __init__(self, workers: list[str]) -> None:
        self.workers = workers
        self.served = [0] * len(workers)
        self.port = free_port()
        self._turn = itertools.count()
        self._runner: web.AppRunner | None = None
        self._session: ClientSession | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/tg/hook"

    async def __aenter__(self) -> "Balancer":
        app = web.Application()
        app.router.add_post("/tg/hook", self._forward)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()
        self._session = ClientSession()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        assert self._session is not None
        await self._session.close()
        await self._runner.cleanup()

    async def _forward(self, request: web.Request) -> web.Response:
        assert self._session is not None
        index = next(self._turn) % len(self.workers)
        self.served[index] += 1
        headers = {k: v for k, v in request.headers.items() if k.lower().startswith("x-telegram")}
        headers["Content-Type"] = "application/json"
        body = await request.read()
        async with self._session.post(self.workers[index], data=body, headers=headers) as answer:
            return web.Response(status=answer.status, body=await answer.read())


@dataclass
class Workers(Bot):
    """Two bot workers behind one webhook, sharing one Redis."""

    others: tuple[TelegramFrontEnd, ...] = ()

    async def idle(self) -> None:
        await settled(self.fake, (self.front, *self.others))


@contextlib.asynccontextmanager
async def two_workers(redis_url: str) -> AsyncIterator[tuple[Workers, Balancer]]:
    """Two bot workers in webhook mode behind a balancer, on one Redis."""
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{port}/tg/hook" for port in ports]
    async with FakeTelegram() as fake, Balancer(urls) as balancer:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        client = aioredis.Redis.from_url(redis_url)
        fronts = [
            _front(
                fake,
                client,
                webhook_url=balancer.url,
                webhook_secret="s3cret",
                listen=f"127.0.0.1:{port}",
            )
            for port in ports
        ]
        for front in fronts:
            await front.start()
        try:
            assert fake.webhook_url == balancer.url
            yield Workers(fake, fronts[0], client, others=(fronts[1],)), balancer
        finally:
            for front in fronts:
                await front.stop()
            await client.aclose()


async def test_two_webhook_workers_on_one_redis_play_one_game(
    redis_url: str, game_ids: None
) -> None:
    async with two_workers(redis_url) as (bot, balancer):
        fake = bot.fake
        await seat(bot)
        await bot.command(GROUP, BOB, "/start")
        moves = await play_on(bot)
        assert moves >= 3 * (1 + 2 + 3 + 4 + 5) + 3 * 5
        assert min(balancer.served) > moves / 3, "both workers served the game"
        group = fake.transcript(GROUP)
        assert sum("The game is over" in event.text for event in group) == 1
        # One lobby, and one table message per round: the slots are shared through Redis.
        tables = {e.message_id for e in group if e.text.startswith(TABLE)}
        assert len(tables) == 5
        assert len({e.message_id for e in group if "a new table" in e.text}) == 1
        for user in PLAYERS:  # one hand message per turn, none twice
            sent = [e for e in fake.transcript(user.id) if e.kind == "message"]
            assert len({e.text for e in sent}) == len(sent)
        assert fake.unanswered_presses() == []
        assert fake.errors == []
        assert all(status == 200 for _, _, status in fake.webhook_deliveries)


NAMES = {ANN.id: "Ann", BOB.id: "Bob Brown", CID.id: "Cid"}


async def test_two_workers_never_show_an_older_table(redis_url: str, game_ids: None) -> None:
    """Hidden bids are pressed by everyone at once, so the two workers handle them at the same
    moment and post their tables concurrently: the group's table always ends on the newest
    state (whose turn it is), never on one a slower worker posted late."""
    async with two_workers(redis_url) as (bot, balancer):
        jitter = random.Random(3)  # a slow network: the group's edits overtake each other

        def latency(method: str, chat: int | None) -> float:
            return jitter.uniform(0, 0.06) if chat == GROUP and method.startswith("edit") else 0

        bot.fake.latency = latency
        await seat(bot)
        await bot.command(GROUP, ANN, "/options bids=hidden")
        await bot.command(GROUP, ANN, "/start")
        together = 0
        for _ in range(200):
            if any("The game is over" in text for text in bot.group_texts()):
                break
            ready = [(user, bot.hand(user)) for user in PLAYERS if bot.hand(user).keyboard]
            assert ready, "nobody's turn, and the game is not over"
            together += len(ready) > 1
            for user, hand in ready:  # no waiting in between
                data = hand.keyboard[0][0].callback_data
                assert data is not None
                bot.fake.press(user.id, user, hand.message_id, data)
            await bot.idle()
            turn = [user for user in PLAYERS if bot.hand(user).keyboard]
            if len(turn) == 1 and "Your turn: play a card." in bot.hand(turn[0]).text:
                assert f"{NAMES[turn[0].id]} to play." in bot.table().text
        else:
            raise AssertionError("the game did not end")
        assert together >= 5  # every round's bids at once
        assert min(balancer.served) > 20
        assert bot.fake.unanswered_presses() == []
        assert bot.fake.errors == []


async def test_a_group_whose_ai_thinks_does_not_hold_up_another(
    tg: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Updates of different chats are handled at once: while an AI seat thinks in one group,
    a /join in another group is answered."""
    ai = Pondering()
    monkeypatch.setitem(LEVELS, "pondering", ai)
    other = -100456
    tg.fake.add_group(other, "Elsewhere", members=[DAN])
    tg.fake.start_dm(DAN)
    await seat(tg, (ANN,))
    for _ in range(2):
        await tg.command(GROUP, ANN, "/addbot pondering")
    tg.fake.send_command(GROUP, ANN, "/start")
    await until(ai.thinking.is_set, "an AI seat thinks")
    tg.fake.send_command(other, DAN, "/join")
    await until(
        lambda: any("a new table" in m.text for m in tg.fake.current_messages(other).values()),
        "the other group shows its lobby",
    )
    ai.answered.set()
    await tg.idle()
    assert any(text.startswith(TABLE) for text in tg.group_texts())
    assert tg.real_errors() == []


# --- timers, flood limits ---------------------------------------------------------------------


async def test_a_turn_timeout_is_shown_like_any_outcome(redis_url: str, game_ids: None) -> None:
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        client = aioredis.Redis.from_url(redis_url)
        bot = Bot(fake, _front(fake, client, turn_timeout=1), client)
        await bot.front.start()
        try:
            await seat(bot)
            await bot.command(GROUP, ANN, "/start")
            # the timer loop fires the deadline within a second or two
            await until(
                lambda: any("ran out of time" in text for text in bot.group_texts()),
                "a timeout is shown",
            )
            await bot.idle()
            late = [user for user in PLAYERS if "💤" in bot.hand(user).text]
            assert late, "the late player's hand shows the autopilot"
            # Half-way through their time, the group was reminded; the turn over, it is gone.
            texts = bot.group_texts()
            reminder = next(i for i, text in enumerate(texts) if text.startswith("⏳ "))
            assert reminder < next(i for i, text in enumerate(texts) if "ran out of time" in text)
            assert texts[reminder].startswith(f"⏳ {late[0].first_name}: it is your turn")
            assert not [m for m in fake.current_messages(GROUP).values() if m.text[:1] == "⏳"]
        finally:
            await bot.front.stop()
            await client.aclose()


async def ticking(bot: Bot, clock: Clock, seconds: int) -> None:
    """Let `seconds` go by on the worker's clock, a second a tick (a longer step would be taken
    for an outage, and credited to the turn's clock): each second waits for its tick."""
    beats = keys.beats("tg")
    for _ in range(seconds):
        clock.advance(1)
        now = clock.now
        for _ in range(500):
            if (await bot.client.zscore(beats, bot.front.service.worker) or 0) >= now:
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the worker did not tick")


def reminders(fake: FakeTelegram) -> list[MessageView]:
    """The group's turn reminders still in the chat."""
    return [m for m in fake.current_messages(GROUP).values() if m.text.startswith("⏳ ")]


async def reminded(bot: Bot, clock: Clock) -> tuple[User, MessageView]:
    """A game started, its first player's half time gone: the player and their hand message,
    once the group's reminder of their turn is shown."""
    await seat(bot)
    await bot.command(GROUP, ANN, "/start")
    turn = whose_turn(bot, PLAYERS)
    assert turn is not None
    await ticking(bot, clock, 6)  # half their time is gone
    await until(lambda: bool(reminders(bot.fake)), "the reminder is shown")
    return turn


async def test_a_turn_reminder_goes_once_the_turn_has_passed(
    redis_url: str, game_ids: None
) -> None:
    """Half-way through a turn the group is reminded, naming the player with a mention. Once
    they have moved, or their turn timed out, the reminder is deleted: the chat keeps no call
    to a turn that passed ("it's your turn (5 s left)" far up the chat, under a table that has
    moved on)."""
    clock = Clock(time.time())
    async with on_the_clock(redis_url, clock, PLAYERS) as bot:
        fake = bot.fake
        user, hand = await reminded(bot, clock)
        (shown,) = reminders(fake)
        assert shown.text.startswith(f"⏳ {user.first_name}: it is your turn")
        mention = shown.entities[0]  # a link that notifies them
        assert (mention["type"], mention["url"]) == ("text_link", f"tg://user?id={user.id}")
        data = hand.keyboard[0][0].callback_data
        assert data is not None
        await bot.press(user.id, user, hand.message_id, data)  # they move
        await bot.idle()
        assert reminders(fake) == []
        deleted = [e for e in fake.transcript(GROUP) if e.kind == "delete"]
        assert [e.message_id for e in deleted] == [shown.message_id]
        await ticking(bot, clock, 6)  # the next player lets half their time pass
        await until(lambda: bool(reminders(fake)), "the next reminder is shown")
        await ticking(bot, clock, 5)  # and the rest: the turn times out
        await until(
            lambda: any("ran out of time" in text for text in bot.group_texts()),
            "a timeout is shown",
        )
        await bot.idle()
        assert reminders(fake) == []


async def test_a_turn_reminder_a_crash_left_up_goes_when_the_game_is_shown_again(
    redis_url: str, game_ids: None
) -> None:
    """The worker died after a move's write, before its posts: the reminder of the turn that
    passed stayed up. The worker that takes its journal over shows the game again, and the
    reminder goes; shown again while its turn goes on, it stays."""
    clock = Clock(time.time())
    game = chat_key(GROUP)
    async with on_the_clock(redis_url, clock, PLAYERS) as bot:
        fake = bot.fake
        user, hand = await reminded(bot, clock)
        bot.front.show(game, await bot.front.service.current(game))
        await bot.idle()
        assert len(reminders(fake)) == 1  # its turn goes on
        data = hand.keyboard[0][0].callback_data
        assert data is not None
        dead = bot.front.service  # writes their move, and dies before posting it
        await dead.handle(
            game, Asker(user_key(user.id), user.first_name), Request(Kind.BUTTON, data)
        )
        await bot.restart(clock=clock, turn_timeout=10)
        assert len(reminders(fake)) == 1
        await ticking(bot, clock, 3)  # the dead worker's heartbeat grows old
        await taken_over(bot, dead.worker)
        assert reminders(fake) == []


async def test_a_turn_reminder_a_crash_left_up_goes_after_a_cancel(
    redis_url: str, game_ids: None
) -> None:
    """The worker died right after a /cancel's write, before its posts: the reminder of the
    game's last turn stayed up, and no table is left to show again. The cancel noted its
    deletion beside the lasting messages it closed, and the worker that takes its journal over
    deletes it."""
    clock = Clock(time.time())
    async with on_the_clock(redis_url, clock, PLAYERS) as bot:
        await reminded(bot, clock)
        dead = bot.front.service  # writes the cancel, and dies before posting it
        asker = Asker(user_key(ANN.id), ANN.first_name)
        await dead.handle(chat_key(GROUP), asker, Request(Kind.CANCEL))
        await bot.restart(clock=clock, turn_timeout=10)
        assert len(reminders(bot.fake)) == 1
        await ticking(bot, clock, 3)  # the dead worker's heartbeat grows old
        await taken_over(bot, dead.worker)
        assert bot.table().text.endswith("Ann cancelled the game.")
        assert reminders(bot.fake) == []


async def test_a_player_back_from_autopilot_is_shown_back_at_the_table(
    redis_url: str, game_ids: None
) -> None:
    """A player who ran out of time is marked 💤 at the group's table; once they press Resume,
    the table no longer says the AI plays for them (nor, as the next move would, that they ran
    out of time), though nobody has moved since."""
    clock = Clock(time.time())
    async with on_the_clock(redis_url, clock, PLAYERS) as bot:
        await seat(bot)
        await bot.command(GROUP, ANN, "/start")
        turn = whose_turn(bot, PLAYERS)
        assert turn is not None
        late = turn[0]
        await ticking(bot, clock, 11)  # their turn's time runs out
        await until(
            lambda: any("ran out of time" in text for text in bot.group_texts()),
            "a timeout is shown",
        )
        await bot.idle()
        assert f"{late.first_name} 💤" in bot.table().text
        hand = bot.hand(late)
        answer = await bot.press_label(late.id, late, hand.message_id, "Resume")
        assert answer.text == "Welcome back!"
        await bot.idle()
        shown = bot.table().text
        assert "💤" not in shown, shown
        assert "ran out of time" not in shown, shown
        assert "💤" not in bot.hand(late).text


async def test_a_lone_player_out_of_time_pauses_the_game_until_they_press_resume(
    redis_url: str, game_ids: None
) -> None:
    """Ann alone with two AI seats lets her bid's time run out: the group's table and her hand
    say the game is paused, her hand keeps her bids and Resume; Resume goes on with the game."""
    clock = Clock(time.time())
    paused = "⏸ Paused: nobody is playing. Make your move or press Resume to go on"
    table_paused = "⏸ Paused: nobody is playing. Make your move, or press Resume under your cards"
    async with on_the_clock(redis_url, clock, [ANN]) as bot:
        await seat(bot, (ANN,))
        await bot.command(GROUP, ANN, "/options bids=secret")
        for _ in range(2):
            await bot.command(GROUP, ANN, "/addbot")
        await bot.command(GROUP, ANN, "/start")
        await ticking(bot, clock, 11)  # her bid's time runs out
        await until(lambda: table_paused in bot.table().text, "the pause is shown")
        await bot.idle()
        assert "ran out of time" not in bot.table().text
        assert "Ann 💤" in bot.table().text
        hand = bot.hand(ANN)
        assert paused in hand.text
        labels = [label for row in hand.labels for label in row]
        assert "Resume" in labels
        assert "0" in labels  # her bids
        answer = await bot.press_label(ANN.id, ANN, hand.message_id, "Resume")
        assert answer.text == "Welcome back!"
        await bot.idle()
        assert "Paused" not in bot.table().text
        assert "💤" not in bot.table().text
        assert "Paused" not in bot.hand(ANN).text
        assert "Your bid?" in bot.hand(ANN).text


@pytest.mark.parametrize(("people", "robots"), [(PLAYERS, 0), ((ANN, BOB, CID, DAN), 2)])
async def test_a_game_under_flood_limits_is_never_throttled(
    redis_url: str, game_ids: None, people: tuple[User, ...], robots: int
) -> None:
    """Telegram's limits, ten times faster: 20 posts per 6 s in a group, 3 per 0.3 s in a
    private chat, 300 a second overall. The outbox keeps within them, and coalesces the table's
    edits to do so: three fast players, and six (four people and two AI seats)."""
    limits = RateLimits(group=(20, 6.0), private=(3, 0.3), overall=(300, 1.0))
    # The pace of production, ten times faster, with more slack: on a loaded machine the jitter
    # between a post leaving and arriving is large next to 0.3 s.
    pace = Limits(group_count=20, group_period=6.0, group_burst=5, private_count=3,
                  private_period=0.3, private_burst=2, slack=0.15)  # fmt: skip
    async with FakeTelegram(rate_limits=limits) as fake:
        fake.add_group(GROUP, "Wizards", members=list(people))
        client = aioredis.Redis.from_url(redis_url)
        limiter = AIORateLimiter(group_max_rate=20, group_time_period=6.0, max_retries=3)
        bot = Bot(fake, _front(fake, client, limits=pace, rate_limiter=limiter), client)
        await bot.front.start()
        try:
            await seat(bot, people)
            for _ in range(robots):
                await bot.command(GROUP, ANN, "/addbot")
            await bot.command(GROUP, ANN, "/start")
            moves = await play_on_quickly(bot, people)
            assert fake.throttled == []
            assert bot.real_errors() == []
            group_posts = sum(
                n
                for m, n in fake.chat_calls[GROUP].items()
                if m in ("sendMessage", "editMessageText")
            )
            assert group_posts < moves  # edits of the table were coalesced
        finally:
            await bot.front.stop()
            await client.aclose()


async def test_a_429_after_the_limiters_retries_loses_no_table_edit(
    redis_url: str, game_ids: None
) -> None:
    """Telegram answers 429 to an edit more often than PTB's limiter retries (none here; three
    in production): the outbox tries the post again later, as it does when Telegram cannot be
    reached, so the group's table still ends on the newest state."""
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        client = aioredis.Redis.from_url(redis_url)
        limiter = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=0)
        bot = Bot(fake, _front(fake, client, rate_limiter=limiter), client)
        await bot.front.start()
        try:
            await seat(bot)
            await bot.command(GROUP, ANN, "/options bids=hidden")
            await bot.command(GROUP, ANN, "/start")
            fake.rate_limits = RateLimits(group=(1, 60.0))  # the bids' table edits: one a minute
            await bot.press_label(ANN.id, ANN, bot.hand(ANN).message_id, "0")  # the one post
            for user in (BOB, CID):
                fake.press_label(user.id, user, bot.hand(user).message_id, "0")
            await until(lambda: bool(fake.throttled), "a 429")
            fake.rate_limits = None  # the minute is over
            await bot.idle()
            assert bot.table().text.endswith("to play."), bot.table().text
        finally:
            await bot.front.stop()
            await client.aclose()


async def play_on_quickly(bot: Bot, players: tuple[User, ...] = PLAYERS, limit: int = 400) -> int:
    """Like `play_on`, but the players do not wait for the group to catch up: they move as soon
    as their private chat says it is their turn (open bids are made with /bid, not buttons)."""
    for moves in range(limit):
        await bot.fake.wait_idle(timeout=30)
        done = any("The game is over" in text for text in bot.group_texts())
        turn = None if done else await _private_turn(bot, players)
        if turn is None:
            await bot.idle()
            if any("The game is over" in text for text in bot.group_texts()):
                return moves
            turn = await _private_turn(bot, players)
            assert turn is not None, "nobody's turn, and the game is not over"
        user, hand = turn
        if hand.keyboard:
            data = hand.keyboard[0][0].callback_data or ""
            bot.fake.press(user.id, user, hand.message_id, data)
        else:
            low = re.search(r"Your bid\? \((\d+) to", hand.text)
            assert low is not None
            bot.fake.send_command(GROUP, user, f"/bid {low.group(1)}")
    raise AssertionError("the game did not end")


async def _private_turn(bot: Bot, players: tuple[User, ...]) -> tuple[User, MessageView] | None:
    for _ in range(100):  # the private chats are paced too: wait for them, not for the group
        turn = whose_turn(bot, players)
        if turn is not None:
            return turn
        if not any(bot.front.outbox.waiting(user.id) for user in players):
            return None
        await asyncio.sleep(0.05)
    return None


# --- the golden transcript ---------------------------------------------------------------------


async def test_golden_transcripts(tg: Bot, request: pytest.FixtureRequest) -> None:
    """What the group and Ann's private chat show over a whole scripted game, compared line by
    line with tests/golden/telegram/ (`pytest --update-golden` rewrites them)."""
    await seat(tg)
    await tg.command(GROUP, BOB, "/bid 1")  # no game yet: refused
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg)
    await tg.command(GROUP, CID, "/scores")
    for name, chat in (("group.txt", GROUP), ("ann.txt", ANN.id)):
        now = tg.fake.format_transcript(chat) + "\n"
        compare_golden(request, GOLDEN / name, now)


GAMES = {
    # name: (people, AI seats, options)
    "3-open-notequal": ((ANN, BOB, CID), 0, "notequal"),
    "4-hidden-1ai": ((ANN, BOB, CID), 1, "bids=hidden"),
    "5-secret-notequal-1ai": ((ANN, BOB, CID, DAN), 1, "bids=secret notequal"),
    "6-open-notequal-2ai": ((ANN, BOB, CID, DAN), 2, "notequal"),
    "6-hidden-5ai": ((ANN,), 5, "bids=hidden"),
}


@pytest.mark.parametrize("name", list(GAMES))
async def test_whole_games_for_3_to_6_players(
    tg: Bot, name: str, request: pytest.FixtureRequest
) -> None:
    """Whole 5-round games in each bid mode, with AI seats: what the group and every private
    chat show, compared with tests/golden/telegram/games/<name>.txt."""
    people, robots, options = GAMES[name]
    await seat(tg, people)
    for _ in range(robots):
        await tg.command(GROUP, people[-1], "/addbot")
    for option in options.split():
        await tg.command(GROUP, ANN, f"/options {option}")
    await tg.command(GROUP, ANN, "/start")
    await play_on(tg, people)
    await tg.command(GROUP, ANN, "/scores")
    group = tg.fake.transcript(GROUP)
    assert sum("The game is over" in event.text for event in group) == 1
    for event in group:  # no hand, no private bid in the group
        assert "Your hand" not in event.text
        assert all(".p" not in (b.callback_data or "") for row in event.keyboard for b in row)
    if "bids=" in options:  # hidden and secret bids are made in private, never on the table
        assert all(
            ".b" not in (b.callback_data or "") for e in group for row in e.keyboard for b in row
        )
    assert tg.fake.unanswered_presses() == []
    assert tg.fake.throttled == []
    assert tg.fake.errors == []
    shown = [f"=== the group\n{tg.fake.format_transcript(GROUP)}"]
    shown += [f"=== {user.first_name}\n{tg.fake.format_transcript(user.id)}" for user in people]
    compare_golden(request, GOLDEN / "games" / f"{name}.txt", "\n\n".join(shown) + "\n")


COACH_GAME = "4-coach-1ai"


async def coach_turn(bot: Bot, rounds_over: int) -> int:
    """The reviews of a round that ended, posted (`service_helpers.reviews_posted`)."""
    front = bot.front
    return await reviews_posted(
        bot.group_texts(), rounds_over, front.service, front.timer_interval, bot.idle
    )


def check_hands_last(bot: Bot, people: Iterable[User]) -> None:
    """Each person's hand that asks for a press is the newest message of their private chat
    (`reading.check_buttons_last`)."""
    for user in people:
        shown = sorted(bot.fake.current_messages(user.id).items())
        pressed = [  # the buttons that ask the bot (not a link: the welcome's "Add me…")
            (m.text, [[b.text for b in row if b.callback_data] for row in m.keyboard])
            for _id, m in shown
        ]
        reading.check_buttons_last(user.first_name, pressed)


async def test_a_coach_game_reads_well(tg: Bot, request: pytest.FixtureRequest) -> None:
    """A whole game at a coach table: Ann asks for a hint at a bid and at a card (the Hint
    button of her turn message), and every person gets each round's review privately; the
    group sees none of it. A hint or a review never comes below the hand it would push up:
    the hand is posted again under it. A round's reviews come after what its last move posts
    (`reviews_held`): so the transcript reads the same every run. Compared with
    tests/golden/telegram/games/<COACH_GAME>.txt."""
    people = (ANN, BOB, CID)
    await seat(tg, people)
    await tg.command(GROUP, CID, "/addbot")
    await tg.command(GROUP, ANN, "/options coach")
    await tg.command(GROUP, ANN, "/start")
    asked: set[str] = set()
    over = 0
    for _ in range(400):
        if any("The game is over" in text for text in tg.group_texts()):
            break
        turn = whose_turn(tg, people)
        assert turn is not None
        user, hand = turn
        kind = "bid" if "Your bid?" in hand.text else "card"
        hint = [b for row in hand.keyboard for b in row if b.text == "💡 Hint"]
        if user == ANN and hint and kind not in asked and "Round 2 " in hand.text:
            asked.add(kind)
            data = hint[0].callback_data
            assert data is not None
            answer = await tg.press(ANN.id, ANN, hand.message_id, data)
            assert not answer.show_alert, answer.text
            shown = [m for _id, m in sorted(tg.fake.current_messages(ANN.id).items())]
            assert shown[-2].text.startswith("💡 Hint for"), shown[-2].text
            assert shown[-1].text == hand.text, shown[-1].text  # the hand again, under it
            check_hands_last(tg, people)
            continue
        with reviews_held(tg.front.service):  # one order: its posts, then the reviews
            await move(tg, people)
        over = await coach_turn(tg, over)
        check_hands_last(tg, people)
    else:
        raise AssertionError("the game did not end")
    assert asked == {"bid", "card"}
    await coach_turn(tg, over)  # the last round's reviews
    check_hands_last(tg, people)  # the result with Play again under them
    await tg.command(GROUP, ANN, "/review")  # the game's costliest decisions, privately
    await coach_turn(tg, -1)
    check_hands_last(tg, people)  # her result with Play again under it too
    shown = [m for _id, m in sorted(tg.fake.current_messages(ANN.id).items())]
    assert shown[-2].text.startswith("💬 \u2068Wizards\u2069 · 📝 Your last game"), shown[-2].text
    group = tg.group_texts()
    assert not any("💡" in text or "📝" in text for text in group)
    assert "Your review is being worked out: it comes to you privately." in group
    reviews = [e.text for u in people for e in tg.fake.transcript(u.id) if "📝" in e.text]
    assert reviews, "the first button's play makes costly decisions"
    assert tg.fake.errors == []
    shown = [f"=== the group\n{tg.fake.format_transcript(GROUP)}"]
    shown += [f"=== {user.first_name}\n{tg.fake.format_transcript(user.id)}" for user in people]
    compare_golden(request, GOLDEN / "games" / f"{COACH_GAME}.txt", "\n\n".join(shown) + "\n")


WINGS_GAME = "4-foresight-wings-1ai"


async def test_a_game_with_foresight_and_wings_reads_well(
    tg: Bot, request: pytest.FixtureRequest
) -> None:
    """A whole 5-round game with foresight (round 1: each sees the others' cards, not their
    own) and wings (each person marks their hand's last card once a round, when not on turn),
    an AI seat among them: what the group and every private chat show, compared with
    tests/golden/telegram/games/<WINGS_GAME>.txt. A mark shows in its owner's hand only. The
    hand that asks for a press is the newest private message, under a notice that a mark could
    not be played too (`reading.check_buttons_last`)."""
    people = (ANN, BOB, CID)
    await seat(tg, people)
    await tg.command(GROUP, CID, "/addbot")
    for option in ("foresight", "wings"):
        await tg.command(GROUP, ANN, f"/options {option}")
    await tg.command(GROUP, ANN, "/start")
    marked: set[tuple[str, str]] = set()
    for _ in range(600):
        if any("The game is over" in text for text in tg.group_texts()):
            break
        for user in people:
            hand = tg.hand(user)
            marks = [b.callback_data for row in hand.keyboard for b in row if b.callback_data]
            marks = [data for data in marks if is_mark(data)]
            heading = hand.text.partition(" · ")[0]
            if marks and not has_moves(hand) and (user.first_name, heading) not in marked:
                marked.add((user.first_name, heading))
                group = len(tg.fake.transcript(GROUP))
                answer = await tg.press(user.id, user, hand.message_id, marks[-1])
                assert not answer.show_alert, answer.text
                assert "🪽 Marked to play by itself" in tg.hand(user).text
                assert len(tg.fake.transcript(GROUP)) == group  # the table shows no mark
                break
        else:
            await move(tg, people)
        check_hands_last(tg, people)  # under a mark that could not be played too
    else:
        raise AssertionError("the game did not end")
    assert len(marked) >= 8
    group = tg.fake.transcript(GROUP)
    assert sum("The game is over" in event.text for event in group) == 1
    for user in people:  # a hand left behind asks for no mark (its buttons are gone)
        shown = tg.fake.current_messages(user.id).values()
        reading.check_no_stale_asks(user.first_name, [m.text for m in shown])
    assert tg.fake.unanswered_presses() == []
    assert tg.fake.errors == []
    shown = [f"=== the group\n{tg.fake.format_transcript(GROUP)}"]
    shown += [f"=== {user.first_name}\n{tg.fake.format_transcript(user.id)}" for user in people]
    compare_golden(request, GOLDEN / "games" / f"{WINGS_GAME}.txt", "\n\n".join(shown) + "\n")


LANGUAGES_GAME = "4-hidden-notequal-foresight-ru-de-ko"
ENGLISH = re.compile(r"\b(?:Round|Your|tricks?|bids?|Trump|points?|Waiting|turn)\b")
"""English words of the texts a game shows, which no German, Korean or Russian text has."""


def private_moves(bot: Bot, user: User) -> tuple[MessageView, list[str]] | None:
    """The newest message of the person's private chat that offers a move, in any language
    (`Bot.hand` reads English), with its moves' payloads."""
    for _id, message in sorted(bot.fake.current_messages(user.id).items(), reverse=True):
        if moves := moves_of(message):
            return message, moves
    return None


async def test_a_game_in_russian_with_german_and_korean_players_reads_in_their_languages(
    tg: Bot, request: pytest.FixtureRequest
) -> None:
    """A whole 5-round game in a Russian group (hidden bids with notequal, so a dealer is told
    to change a bid; foresight in round 1), its players' apps in German, Korean and Russian,
    with an AI seat: each private chat reads in its player's language and the group in
    Russian, with no English word left (`ENGLISH`). Compared with
    tests/golden/telegram/games/<LANGUAGES_GAME>.txt."""
    people = (
        User(1011, "Anna", "anna", language_code="de"),
        User(1012, "민준", "minjun", language_code="ko"),
        User(1013, "Аня", "anya", language_code="ru"),
    )
    tg.fake.add_group(GROUP, "Волшебники", members=list(people))
    await tg.command(GROUP, people[0], "/language ru")
    await seat(tg, people)
    await tg.command(GROUP, people[2], "/addbot")
    for option in ("bids=hidden", "notequal", "foresight"):
        await tg.command(GROUP, people[0], f"/options {option}")
    await tg.command(GROUP, people[0], "/start")
    count = itertools.count()
    for _ in range(200):
        snap = await tg.front.service.store.load(chat_key(GROUP))
        assert snap.table is not None
        if snap.table.game.phase is Phase.FINISHED:
            break
        user, (hand, moves) = next(
            (u, found) for u in people if (found := private_moves(tg, u)) is not None
        )
        answer = await tg.press(user.id, user, hand.message_id, moves[next(count) % len(moves)])
        assert not answer.show_alert, answer.text
    else:
        raise AssertionError("the game did not end")
    await tg.command(GROUP, people[0], "/scores")
    group = tg.fake.format_transcript(GROUP)
    assert "сдающему (" in group  # a dealer was told to change a hidden bid
    for chat in (GROUP, *(u.id for u in people)):
        said = [e.text for e in tg.fake.transcript(chat) if e.kind != "user"]
        assert not [text for text in said if ENGLISH.search(text)], chat
    assert tg.fake.unanswered_presses() == []
    assert tg.fake.errors == []
    shown = [f"=== the group\n{group}"]
    shown += [f"=== {user.first_name}\n{tg.fake.format_transcript(user.id)}" for user in people]
    path = GOLDEN / "games" / f"{LANGUAGES_GAME}.txt"
    compare_golden(request, path, "\n\n".join(shown) + "\n")


COACH_LANGUAGE_GAMES = {
    "4-secret-notequal-foresight-coach-pl-fr-nl": (
        "Czarodzieje",
        "pl",
        (
            User(1021, "Amélie", "amelie", language_code="fr"),
            User(1022, "Zosia", "zosia", language_code="pl"),
            User(1023, "Daan", "daan", language_code="nl"),
        ),
        "foresight",
    ),
    "4-secret-notequal-wings-coach-es-pt-it": (
        "Magos",
        "es",
        (
            User(1021, "Sofía", "sofia", language_code="es"),
            User(1022, "João", "joao", language_code="pt-br"),
            User(1023, "Giulia", "giulia", language_code="it"),
        ),
        "wings",
    ),
}
"""Whole games at a coach table in a group whose players' apps are in other languages, by
golden name: the group's title and language, its people, and the option played beside secret
bids and notequal."""
ENGLISH_BUT_POINTS = re.compile(r"\b(?:Round|Your|tricks?|bids?|Trump|Waiting|turn)\b")
"""`ENGLISH` but for "points", a French word too."""


def acts_of(message: MessageView, action: Action) -> list[str]:
    """The payloads of the message's buttons that do `action`."""
    found = []
    for row in message.keyboard:
        for button in row:
            if (data := button.callback_data) is None:
                continue
            try:
                if tokens.decode(data).action is action:
                    found.append(data)
            except tokens.TokenError:
                continue
    return found


@pytest.mark.parametrize("name", list(COACH_LANGUAGE_GAMES))
async def test_a_coach_game_reads_in_each_players_language(
    tg: Bot, request: pytest.FixtureRequest, name: str
) -> None:
    """A whole 5-round game at a coach table (secret bids with notequal, foresight or wings, an
    AI seat) in a Polish or a Spanish group, its players' apps in French, Polish and Dutch, or
    Spanish, Portuguese and Italian: the first asks for a hint at a bid and at a card in round
    2 and for /review; /scores in the group, /help and /stats in each private chat. Each
    private chat reads in its player's language and the group in its own, with no English word
    left (`ENGLISH`). Compared with tests/golden/telegram/games/<name>.txt."""
    title, language, people, option = COACH_LANGUAGE_GAMES[name]
    tg.fake.add_group(GROUP, title, members=list(people))
    await tg.command(GROUP, people[0], f"/language {language}")
    await seat(tg, people)
    await tg.command(GROUP, people[1], "/addbot")
    for setting in ("bids=secret", "notequal", option, "coach"):
        await tg.command(GROUP, people[0], f"/options {setting}")
    await tg.command(GROUP, people[0], "/start")
    count = itertools.count()
    asked: set[Action] = set()
    over = 0
    for _ in range(300):
        snap = await tg.front.service.store.load(chat_key(GROUP))
        assert snap.table is not None
        if snap.table.game.phase is Phase.FINISHED:
            break
        user, (hand, moves) = next(
            (u, found) for u in people if (found := private_moves(tg, u)) is not None
        )
        hints = acts_of(hand, Action.HINT)
        kind = Action.BID if acts_of(hand, Action.BID) else Action.PLAY
        now = snap.table.game.round
        if user == people[0] and hints and kind not in asked and now and now.number == 2:
            asked.add(kind)
            answer = await tg.press(user.id, user, hand.message_id, hints[0])
            assert not answer.show_alert, answer.text
            continue
        moves = [data for data in moves if data not in hints]
        with reviews_held(tg.front.service):  # one order: its posts, then the reviews
            answer = await tg.press(user.id, user, hand.message_id, moves[next(count) % len(moves)])
        assert not answer.show_alert, answer.text
        over = await coach_turn_in(tg, over, language)
    else:
        raise AssertionError("the game did not end")
    assert asked == {Action.BID, Action.PLAY}
    await coach_turn_in(tg, over, language)
    await tg.command(GROUP, people[1], "/scores")
    await tg.command(GROUP, people[0], "/review")
    await coach_turn_in(tg, -1, language)
    for user in people:
        for command in ("/help", "/stats"):
            await tg.command(user.id, user, command)
    french = {user.id for user in people if user.language_code == "fr"}
    for chat in (GROUP, *(u.id for u in people)):
        said = [e.text for e in tg.fake.transcript(chat) if e.kind != "user"]
        english = ENGLISH_BUT_POINTS if chat in french else ENGLISH
        assert not [text for text in said if english.search(text)], chat
    assert tg.fake.unanswered_presses() == []
    assert tg.fake.errors == []
    shown = [f"=== the group\n{tg.fake.format_transcript(GROUP)}"]
    shown += [f"=== {user.first_name}\n{tg.fake.format_transcript(user.id)}" for user in people]
    compare_golden(request, GOLDEN / "games" / f"{name}.txt", "\n\n".join(shown) + "\n")


async def coach_turn_in(bot: Bot, rounds_over: int, language: str) -> int:
    """`coach_turn` for a group whose language is `language`."""
    front = bot.front
    ends = round_ends(language, bot.group_texts())
    return await reviews_posted(ends, rounds_over, front.service, front.timer_interval, bot.idle)


@pytest.mark.parametrize("options", ["", "notequal", "bids=hidden notequal"])
async def test_a_4_player_game_reads_well_from_the_private_chats(tg: Bot, options: str) -> None:
    """A whole 4-player game played from the private chats alone, each turn message read as
    its player reads it before pressing (`reading.check_turn`): it shows the trick and only
    legal buttons; every bid is made there. At the end nothing superseded keeps a button, and
    every round's end reached the group."""
    people = (ANN, BOB, CID, DAN)
    await seat(tg, people)
    for option in options.split():
        await tg.command(GROUP, ANN, f"/options {option}")
    await tg.command(GROUP, ANN, "/start")
    bids = dict.fromkeys(people, 0)
    for _ in range(400):
        if any("The game is over" in text for text in tg.group_texts()):
            break
        turn = next(
            (u, m)
            for u in people
            for m in [tg.hand(u)]
            if m.keyboard and m.keyboard[0][0].callback_data
        )
        user, message = turn
        reading.check_turn(message.text, message.labels)
        data = message.keyboard[0][0].callback_data
        assert data is not None
        bids[user] += tokens.decode(data).action is Action.BID
        answer = await tg.press(user.id, user, message.message_id, data)
        assert not answer.show_alert, answer.text
    else:
        raise AssertionError("the game did not end")
    assert all(count == 5 for count in bids.values()), bids  # a bid a round, from the DM
    reading.check_round_ends(tg.group_texts(), rounds=5)
    for chat in (GROUP, *(u.id for u in people)):
        shown = tg.fake.current_messages(chat).values()
        pressable = [  # a link (adding the bot to a group) is no press to refuse
            (m.text, [[b.text for b in row if b.callback_data] for row in m.keyboard])
            for m in shown
        ]
        reading.check_no_stale_buttons(str(chat), [(t, [r for r in k if r]) for t, k in pressable])
        reading.check_no_stale_asks(str(chat), [m.text for m in shown])
    assert tg.fake.unanswered_presses() == []


def test_the_whole_games_show_every_kind_of_round() -> None:
    """Across the golden games: a Wizard turned up (the dealer names trump), a Jester turned up,
    and the notequal rule keeping a dealer's bid from evening the tricks."""
    games = "\n".join(path.read_text() for path in (GOLDEN / "games").glob("*.txt"))
    assert "A Wizard was turned up: you are the dealer, choose the trump suit." in games
    # while the dealer chooses, the hands say so (the trump is not "none" then)
    last = r"(?:[✅❌] Last round: .*\n)?"  # from the second round on
    assert re.search(rf"trump: Bob Brown \(dealer\) chooses\n{last}Your hand: .*\nA Wizard", games)
    assert not re.search(rf"trump: none\n{last}Your hand: .*\nA Wizard", games)
    assert "(🃏 turned up)" in games
    names = {path.stem for path in (GOLDEN / "games").glob("*.txt")}
    assert names == {*GAMES, COACH_GAME, WINGS_GAME, LANGUAGES_GAME, *COACH_LANGUAGE_GAMES}


def compare_golden(request: pytest.FixtureRequest, path: Path, now: str) -> None:
    """Compare `now` with the golden file, or rewrite it (`pytest --update-golden`)."""
    if request.config.getoption("--update-golden") or os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(now, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if now != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), now.splitlines(), "golden", "now", lineterm=""
        )
        pytest.fail(
            f"{path.name} changed (rewrite with pytest --update-golden):\n" + "\n".join(diff)
        )


async def test_an_error_is_logged_and_answered_politely(
    tg: Bot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await seat(tg, short=False)
    lobby = tg.lobby()
    failing(monkeypatch, tg.front.service)
    await tg.command(GROUP, ANN, "/scores")
    reply = tg.fake.last_message(GROUP)
    assert reply.text == "Sorry, something went wrong. Please try again."
    assert reply.reply_to is not None
    answer = await tg.press_label(GROUP, BOB, lobby.message_id, "Start")
    assert answer.show_alert
    assert answer.text == "Sorry, something went wrong. Please try again."
    assert "error handling a Telegram update" in caplog.text


async def test_an_os_error_not_of_the_store_is_no_outage(
    tg: Bot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """An OSError met on a path that is not Redis (Pillow finding no font file) gets the plain
    apology and is logged with its traceback, not told as the store being away."""
    await seat(tg, short=False)
    lobby = tg.lobby()

    async def broken(*args: object, **kwargs: object) -> None:
        ImageFont.truetype(str(tmp_path / "missing.ttf"), 12)  # raises OSError

    monkeypatch.setattr(tg.front.service, "handle", broken)
    await tg.command(GROUP, ANN, "/scores")
    assert tg.fake.last_message(GROUP).text == "Sorry, something went wrong. Please try again."
    answer = await tg.press_label(GROUP, BOB, lobby.message_id, "Start")
    assert answer.text == "Sorry, something went wrong. Please try again."
    logged = [r for r in caplog.records if r.getMessage() == "error handling a Telegram update"]
    assert len(logged) == 2
    assert all(r.exc_info is not None and r.levelname == "ERROR" for r in logged)


async def test_an_apology_to_one_person_is_in_their_language(
    tg: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uwe's app is German, the group's language English: the apology for his press that
    failed, which he alone sees, is in German, a bug's as the store's absence, and so is one
    in his private chat; a command's in the group stays English."""
    uwe = User(1006, "Uwe", "uwe", language_code="de")
    tg.fake.add_group(GROUP, members=[uwe])
    await seat(tg, (ANN, uwe), short=False)
    lobby = tg.lobby()
    failure = failing(monkeypatch, tg.front.service)
    german = texts("de")
    answer = await tg.press_label(GROUP, uwe, lobby.message_id, "Start")
    assert answer.text == german(SORRY)
    failure[0] = redis.exceptions.ConnectionError("Redis is away")
    answer = await tg.press_label(GROUP, uwe, lobby.message_id, "Start")
    assert answer.text == german(STORE_AWAY)
    await tg.command(uwe.id, uwe, "/stats")
    assert tg.fake.last_message(uwe.id).text == german(STORE_AWAY)
    await tg.command(GROUP, uwe, "/scores")
    assert tg.fake.last_message(GROUP).text == STORE_AWAY


async def test_a_frozen_redis_gets_one_clear_answer_everywhere(
    redis_url: str, redis_server: RedisServer, game_ids: None
) -> None:
    """Redis stopped (SIGSTOP): a press in a private chat and a command in the group are both
    told the store cannot be reached, within two seconds; once Redis goes on, the press works."""
    async with FakeTelegram() as fake:
        fake.add_group(GROUP, "Wizards", members=[*PLAYERS, DAN, EVE])
        client = redis_client(redis_url, 0.5)
        bot = Bot(fake, _front(fake, client), client)
        await bot.front.start()
        try:
            await seat(bot)
            await bot.command(GROUP, ANN, "/options bids=hidden")
            await bot.command(GROUP, ANN, "/start")
            hand = bot.hand(BOB)
            data = hand.keyboard[0][0].callback_data
            assert data is not None
            assert redis_server.pid is not None
            os.kill(redis_server.pid, signal.SIGSTOP)
            try:
                started = time.monotonic()
                answer = await bot.press(BOB.id, BOB, hand.message_id, data)
                assert time.monotonic() - started < 2
                assert answer.show_alert
                assert answer.text == STORE_AWAY
                started = time.monotonic()
                await bot.command(GROUP, CID, "/hand")
                assert time.monotonic() - started < 2
                reply = fake.last_message(GROUP)
                assert reply.text == STORE_AWAY
                assert reply.reply_to is not None
            finally:
                os.kill(redis_server.pid, signal.SIGCONT)
            answer = await bot.press(BOB.id, BOB, hand.message_id, data)
            assert not answer.show_alert, answer.text
        finally:
            await bot.front.stop()
            await client.aclose()


async def test_a_redis_out_of_memory_is_told_at_each_press_and_logged_once(
    tg: Bot, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis at its maxmemory (noeviction) refuses every write: a move pressed in a private
    chat is told the store cannot be reached, each time, and nothing moves; a command refused
    (no write) is answered as ever; the log says once what Redis answered, with no
    traceback; once memory is freed, the same press works."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options bids=hidden")
    await tg.command(GROUP, ANN, "/start")
    hand = tg.hand(BOB)
    data = hand.keyboard[0][0].callback_data
    assert data is not None
    before = await tg.client.hgetall(f"wiz:{{tg:{GROUP}}}:game")
    admin = redis.Redis.from_url(redis_server.url)
    admin.config_set("maxmemory-policy", "noeviction")
    admin.config_set("maxmemory", 1)
    try:
        with caplog.at_level(logging.INFO):
            for _ in range(2):
                answer = await tg.press(BOB.id, BOB, hand.message_id, data)
                assert answer.show_alert
                assert answer.text == STORE_AWAY
            await tg.command(GROUP, CID, "/start")  # refused: a refusal writes nothing
            assert tg.fake.last_message(GROUP).text == "The game has already started."
            assert await tg.client.hgetall(f"wiz:{{tg:{GROUP}}}:game") == before
            said = [r.getMessage() for r in caplog.records if "OutOfMemoryError" in r.getMessage()]
            assert len(said) == 1, said
            assert not [r for r in caplog.records if r.exc_info is not None]
    finally:
        admin.config_set("maxmemory", 0)
        admin.close()
    answer = await tg.press(BOB.id, BOB, hand.message_id, data)
    assert not answer.show_alert, answer.text


FLOOD = RateLimits(group=(10, 3.0), private=(3, 0.3), overall=(300, 1.0))
"""A group's flood limit, twenty times faster than Telegram's: 10 posts in 3 s."""
FLOOD_PACE = Limits(group_count=10, group_period=3.0, group_burst=5, private_count=3,
                    private_period=0.3, private_burst=2, slack=0.15)  # fmt: skip


def flood_front(fake: FakeTelegram, client: "aioredis.Redis") -> TelegramFrontEnd:
    limiter = AIORateLimiter(group_max_rate=10, group_time_period=3.0, max_retries=0)
    return _front(fake, client, limits=FLOOD_PACE, rate_limiter=limiter)


def notes(front: TelegramFrontEnd, count: int, label: str) -> list["asyncio.Future[object]"]:
    return [front.outbox.put(GROUP, Post(GROUP, f"{label} {n}")) for n in range(count)]


async def test_a_restarted_worker_keeps_within_the_last_minutes_flood_limit(
    redis_url: str,
) -> None:
    """A worker fills the group's flood window and restarts: the new one waits for the window
    (kept in Redis) instead of starting afresh and being answered 429."""
    async with FakeTelegram(rate_limits=FLOOD) as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        client = aioredis.Redis.from_url(redis_url)
        front = flood_front(fake, client)
        await front.start()
        try:
            await asyncio.gather(*notes(front, 10, "before"))
            await front.stop()
            front = flood_front(fake, client)
            await front.start()
            await asyncio.wait_for(asyncio.gather(*notes(front, 6, "after")), 20)
            assert fake.throttled == []
            texts = [event.text for event in fake.transcript(GROUP) if event.kind != "user"]
            assert len([text for text in texts if text.startswith(("before", "after"))]) == 16
        finally:
            await front.stop()
            await client.aclose()


async def test_two_workers_share_a_groups_flood_limit(redis_url: str) -> None:
    """Two workers post to one group at once: together they keep within its limit."""
    async with FakeTelegram(rate_limits=FLOOD) as fake:
        fake.add_group(GROUP, "Wizards", members=list(PLAYERS))
        client = aioredis.Redis.from_url(redis_url)
        fronts = [flood_front(fake, client), flood_front(fake, client)]
        for front in fronts:
            await front.start()
        try:
            posts = [*notes(fronts[0], 8, "one"), *notes(fronts[1], 8, "two")]
            await asyncio.wait_for(asyncio.gather(*posts), 30)
            assert fake.throttled == []
        finally:
            for front in fronts:
                await front.stop()
            await client.aclose()
