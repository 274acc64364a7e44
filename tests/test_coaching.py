"""The coach at a chat's table: the lobby's coach option, hints for the decision at hand (from
the player's view alone, to that player alone), the reviews of each round in the background,
and `/review` of the last game."""

import asyncio
import json
import random
import re
from dataclasses import replace

import pytest
import redis.asyncio as aioredis
import service_helpers
from service_helpers import ANN, BOB, CHAT, CID, DOT, Clock, Driver, payloads, service, table_of
from test_ai_moves import DiesAfterSaving

from bot import tokens
from bot.ai.coach import bid_hints, card_hints
from bot.chat import robot_seats
from bot.coaching import _seeded
from bot.commands import Kind
from bot.config import Config
from bot.messages import Message, Outcome
from bot.requests import Request, User
from bot.service import AWAY_ALL_GAME, HINT_SENT, STOPPED_HINT, GameService
from bot.show.coach import points
from bot.show.formatters import percent
from bot.show.i18n import texts
from bot.store import keys
from bot.tokens import Action
from engine import Phase, player_view, waiting_seats


@pytest.fixture
def clock() -> Clock:
    return Clock()


async def coached(svc: GameService, options: tuple[str, ...] = ("rounds=short",)) -> Driver:
    driver = Driver(svc, [ANN, BOB, CID], seed=11)
    await driver.lobby([*options, "coach"])
    return driver


def hint_button(message: Message | None) -> str:
    assert message is not None
    (payload,) = [p for p in payloads(message) if tokens.decode(p).action == Action.HINT]
    return payload


def private(outcome: Outcome) -> list[Message]:
    return [m for m in outcome.messages if m.to is not None]


async def test_coach_is_a_lobby_option_shown_with_the_others(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ANN, BOB, CID], seed=1)
    await driver.lobby(start=False)
    shown = await driver.ok(ANN, Kind.OPTION, "")
    (lobby,) = [m for m in shown.messages if m.slot == "lobby"]
    toggle = [b for row in lobby.buttons for b in row if "coach" in b.label]
    assert [b.label for b in toggle] == ["⬜ coach: hints and reviews"]
    on = await driver.press(ANN, toggle[0].payload)
    (lobby,) = [m for m in on.messages if m.slot == "lobby"]
    assert "Options: open bids, all rounds, coach" in lobby.text
    table = await table_of(redis_client)
    assert table is not None
    assert table.coach
    refused = await driver.send(BOB, Request(Kind.OPTION, "coach=off"))
    assert refused.alert  # the host's, as every option
    bad = await driver.send(ANN, Request(Kind.OPTION, "coach=maybe"))
    assert bad.alert
    assert bad.answer == "Coach is on or off: coach, coach=off."
    await driver.ok(ANN, Kind.OPTION, "coach=off")
    table = await table_of(redis_client)
    assert table is not None
    assert not table.coach
    await driver.ok(ANN, Kind.OPTION, "coach")
    await driver.ok(ANN, Kind.START)
    late = await driver.send(ANN, Request(Kind.OPTION, "coach=off"))
    assert late.alert  # not once the game has started
    table = await table_of(redis_client)
    assert table is not None
    assert table.coach


async def test_a_hint_is_worked_out_from_the_players_view_and_shown_to_them_alone(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    svc = service(redis_client, clock=clock)
    driver = await coached(svc)
    state = await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number >= 2)
    seat = state.round.turn
    user = next(u for u in driver.humans if u.id == state.players[seat].id)
    outcome = await driver.press(user, hint_button(driver.screens.hand(user)))
    assert not outcome.alert
    (hint,) = private(outcome)
    assert hint.to == user.id
    assert [m for m in outcome.messages if m.to is None] == []  # nothing in the group
    # the very figures of the coach's bid hints for the player's own view, and nothing else
    table = await table_of(redis_client)
    assert table is not None
    view = player_view(table.game, seat)
    expected = bid_hints(view, _seeded(table.game_id, view.table.seq, seat))
    lines = hint.text.splitlines()
    assert lines[0] == f"💡 Hint for your bid, round {state.round.number}:"
    assert lines[1:-1] == [
        f"Bid {h.bid}: {points(h.points)} {'point' if abs(round(h.points)) == 1 else 'points'}"
        f" expected, met {percent(h.chance, 1)} of the time"
        for h in expected
    ]
    assert {h.bid for h in expected} <= set(view.legal_bids)
    again = await driver.press(user, hint_button(driver.screens.hand(user)))
    assert private(again)[0].text == hint.text  # the same question, the same figures


async def test_card_hints_name_the_best_legal_cards(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    svc = service(redis_client, clock=clock)
    driver = await coached(svc)
    state = await driver.play_until(
        lambda s: (
            s.phase is Phase.PLAYING
            and s.round.number >= 3
            and len(player_view(s, s.round.turn).legal_cards) > 1
        )
    )
    seat = state.round.turn
    user = next(u for u in driver.humans if u.id == state.players[seat].id)
    outcome = await driver.send(user, Request(Kind.HINT))
    hint, hand = private(outcome)  # the hand again under the hint, to press at the foot
    assert (hand.slot, hand.notify, hand.quiet) == ("hand", True, True)
    table = await table_of(redis_client)
    assert table is not None
    view = player_view(table.game, seat)
    expected = card_hints(view, _seeded(table.game_id, view.table.seq, seat))
    assert 1 <= len(expected) <= 3
    assert all(h.card in view.legal_cards for h in expected)
    assert len(hint.text.splitlines()) == len(expected) + 2
    assert hint.text.startswith("💡 Hint for trick")


async def test_hints_are_refused_where_they_do_not_apply(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    svc = service(redis_client, clock=clock)
    plain = Driver(svc, [ANN, BOB, CID], seed=2)
    await plain.lobby(["rounds=short"])
    assert not any(
        tokens.decode(p).action == Action.HINT
        for u in plain.humans
        for p in payloads(plain.screens.hand(u) or Message(""))
    )
    no = await plain.send(ANN, Request(Kind.HINT))
    assert no.alert
    assert no.answer == "Hints are for coach tables: the host sets /options coach in the lobby."
    other = service(redis_client, clock=clock)
    driver = Driver(other, [ANN, BOB, CID], chat="chat:-200", seed=3)
    await driver.lobby(["rounds=short", "coach", "notequal"])
    # Round 1, one card each: the dealer's last bid has one number left, and each card is forced.
    state = await driver.play_until(
        lambda s: s.phase is Phase.BIDDING and s.round.turn == s.round.dealer
    )
    dealer = next(u for u in driver.humans if u.id == state.players[state.round.dealer].id)
    one_bid = player_view(state, state.round.dealer).legal_bids
    assert len(one_bid) == 1
    assert (await driver.send(dealer, Request(Kind.HINT))).answer == (
        f"Only one bid is allowed now ({one_bid[0]}): there is nothing to weigh."
    )
    state = await driver.play_until(lambda s: s.phase is Phase.PLAYING)
    first = next(u for u in driver.humans if u.id == state.players[state.round.turn].id)
    assert (await driver.send(first, Request(Kind.HINT))).answer == (
        "Only one card may be played now: there is nothing to weigh."
    )
    state = await driver.play_until(lambda s: s.phase is Phase.PLAYING and s.round.number >= 2)
    seat = state.round.turn
    waiting = state.players[seat].id
    idle = next(u for u in driver.humans if u.id != waiting)
    refused = await driver.send(idle, Request(Kind.HINT))
    assert refused.alert
    assert refused.answer == "You have no bid or card to choose right now."
    stranger = User("tg:99", "Zed")
    assert (await driver.send(stranger, Request(Kind.HINT))).alert
    user = next(u for u in driver.humans if u.id == waiting)
    stale = hint_button(driver.screens.hand(user))
    await driver.move()  # the game moves on: that hint button is out of date
    late = await driver.send(user, Request(Kind.BUTTON, stale))
    assert late.alert


async def test_rounds_are_reviewed_in_the_background_and_sent_privately(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    svc = service(redis_client, clock=clock)
    driver = await coached(svc)
    await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number == 4)
    await svc.coach.settled()
    shown = await svc.tick("chat")
    reviews = [(chat, m) for chat, outcome in shown for m in outcome.messages if "📝" in m.text]
    assert reviews, "random play makes costly decisions in three rounds"
    people = {u.id for u in driver.humans}
    for chat, message in reviews:
        assert chat == CHAT
        assert message.to in people
        lines = message.text.splitlines()
        assert lines[0].startswith("📝 The coach on round ")
        assert 1 <= len(lines) - 1 <= 3
        for line in lines[1:]:
            assert line.startswith("• ")
            worth = int(line.rsplit(" was worth ", 1)[1].split()[0])
            assert worth >= 5
    assert await svc.tick("chat") == [] or all(
        "📝" not in m.text for _, o in await svc.tick("chat") for m in o.messages
    )  # handed over once


def review_heads(shown: list[tuple[str, Outcome]]) -> list[tuple[str | None, str]]:
    """The first line of each review handed over, with whom it goes to."""
    return [
        (m.to, m.text.splitlines()[0])
        for _, outcome in shown
        for m in outcome.messages
        if "📝" in m.text
    ]


async def test_a_review_that_comes_once_its_game_is_over_says_it_is_of_the_last_game(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Reviews handed over while their game goes on name their round alone; those that come
    once it is over (the last round's always do), here after the chat's next game has begun,
    say they are of the last game, so that nobody takes them for the new game's round."""
    svc = service(redis_client, clock=clock)
    driver = await coached(svc)
    await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number == 4)
    await svc.coach.settled()
    on_time = review_heads(await svc.tick("chat"))
    assert on_time, "random play makes costly decisions in three rounds"
    for _, head in on_time:
        assert re.fullmatch(r"📝 The coach on round [123]: what was worth more", head), head
    first = await table_of(redis_client)
    await driver.play_to_end()
    await driver.lobby(["rounds=short", "coach"])  # the next game begins before they come
    now = await table_of(redis_client)
    assert first is not None
    assert now is not None
    assert now.game_id != first.game_id
    assert now.game.phase is not Phase.FINISHED
    await svc.coach.settled()
    late = review_heads(await svc.tick("chat"))
    for to, head in late:
        assert to in {u.id for u in driver.humans}
        assert re.fullmatch(
            r"📝 The coach on round [45] of your last game: what was worth more", head
        ), head
    assert {head.split()[5] for _, head in late} == {"4", "5"}, late


async def test_a_review_names_its_chat_if_it_was_named_when_its_round_ended(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Ann sits at a lobby in another chat while a round of the Wizards' game ends; she leaves
    that lobby before the round's review comes. It still names the Wizards, as her hand of that
    round did: she was at two tables when it was played."""
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ANN, BOB, CID], seed=11)
    for user in (ANN, BOB, CID):
        await driver.send(user, Request(Kind.JOIN, place="Wizards"))
    for option in ("rounds=short", "coach"):
        await driver.ok(ANN, Kind.OPTION, option)
    await driver.ok(ANN, Kind.START)
    there = Driver(svc, [ANN, DOT], chat="chat:-200")
    for user in (ANN, DOT):
        await there.send(user, Request(Kind.JOIN, place="Friday"))
    await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number == 4)
    await there.ok(ANN, Kind.LEAVE)
    await svc.coach.settled()
    svc.store.forget(CHAT)  # the tick reads the chat as it is now (unmarked: one seat left)
    mine = [head for to, head in review_heads(await svc.tick("chat")) if to == ANN.id]
    assert mine, "random play makes costly decisions in three rounds"
    for head in mine:
        assert head.startswith("💬 \u2068Wizards\u2069 · 📝 The coach on round "), head
    moved = await driver.move()  # what comes now names no chat: she sits at one table
    assert all("💬" not in m.text for m in moved.messages)


async def test_review_of_the_last_game(redis_client: aioredis.Redis, clock: Clock) -> None:
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ANN, BOB, CID], seed=5)
    early = await driver.send(ANN, Request(Kind.REVIEW))
    assert early.alert
    assert early.answer == "No game has finished in this chat yet."
    await driver.lobby(["rounds=short"])
    await driver.play_to_end()
    stranger = await driver.send(User("tg:99", "Zed"), Request(Kind.REVIEW))
    assert stranger.alert
    assert stranger.answer == "You did not play in the last game here."
    asked = await driver.send(BOB, Request(Kind.REVIEW))
    assert not asked.alert
    assert asked.answer == "Your review is being worked out: it comes to you privately."
    assert asked.messages == ()
    twice = await driver.send(BOB, Request(Kind.REVIEW))  # one at a time
    assert twice.alert
    assert twice.answer == "Your review is being worked out already; please wait for it."
    await svc.coach.settled()
    shown = await svc.tick("chat")
    (review,) = [m for _, outcome in shown for m in outcome.messages if "📝" in m.text]
    assert review.to == BOB.id
    lines = review.text.splitlines()
    assert lines[0] in (
        "📝 Your last game: your costliest decisions",
        "📝 Your last game: the coach found no decision that cost you points.",
    )
    assert len(lines) <= 5
    assert all(line.startswith("• In round ") for line in lines[1:-1])


def test_points_read_as_people_read_them() -> None:
    assert [points(v) for v in (27.6, -9.5, 0.2, -0.4)] == ["+28", "−10", "0", "0"]


async def test_a_hint_asked_while_an_ai_seat_still_owes_its_bid_is_shown(
    redis_client: aioredis.Redis,
) -> None:
    """The worker that was to make the AI seat's bid died: the next request (Bob's hint) makes
    that bid first, and the hint still comes, worked out on the table as it is after it."""
    clock = Clock()
    doomed = DiesAfterSaving(
        service(redis_client, clock=clock).store, Config(), clock, random.Random(3)
    )
    driver = Driver(doomed, [ANN, BOB], seed=3)
    await driver.ok(ANN, Kind.JOIN)
    await driver.ok(BOB, Kind.JOIN)
    await driver.ok(ANN, Kind.ADD_AI, "hard")
    for option in ("rounds=short", "bids=hidden", "coach"):
        await driver.ok(ANN, Kind.OPTION, option)
    await driver.ok(ANN, Kind.START)  # the worker dies before the AI seat's bid
    table = await table_of(redis_client)
    assert table is not None
    assert table.game.phase is Phase.BIDDING
    assert robot_seats(table)
    outcome = await service(redis_client, clock=clock, seed=4).handle(CHAT, BOB, Request(Kind.HINT))
    assert not outcome.alert
    assert not robot_seats(await table_of(redis_client) or table)  # the AI has bid
    (hint,) = [m for m in outcome.messages if m.to == BOB.id and m.text.startswith("💡 Hint")]
    assert "Hint for your bid, round 1:" in hint.text


async def ann_away_to_the_end(
    redis_client: aioredis.Redis, since: int = 1
) -> tuple[GameService, Driver]:
    """A short coach game in which Ann lets her first turn of round `since` run out: the
    stand-in (`easy`, whose moves a review would fault) plays for her to the end; Bob and Cid
    play on."""
    clock = Clock()
    svc = service(redis_client, clock=clock, config=Config(stand_in="easy"))
    driver = Driver(svc, [ANN, BOB, CID], seed=11)
    await driver.lobby(["rounds=short", "coach"])
    while True:
        table = await table_of(redis_client)
        assert table is not None
        waits = any(table.game.players[s].id == ANN.id for s in waiting_seats(table.game))
        if waits and table.game.round.number >= since:
            break
        await driver.move()
    clock.advance(Config().turn_timeout + 1)
    for _, outcome in await svc.run_timers("chat"):
        driver.screens.show(outcome)
    driver.humans = [BOB, CID]
    await driver.play_to_end()
    return svc, driver


async def test_the_moves_the_ai_made_for_someone_away_are_not_reviewed_as_theirs(
    redis_client: aioredis.Redis,
) -> None:
    """Ann lets her first turn run out: the stand-in (`easy` here, whose moves a review would
    fault) plays for her to the end. The coach reviews none of those rounds as hers, neither
    as the rounds end nor in her /review of the game; Bob and Cid are reviewed as ever. As the
    AI played every round for her, her /review is answered so at once (before, a review came
    that "found no decision that cost you points", praise of the AI's moves as hers)."""
    svc, _ = await ann_away_to_the_end(redis_client)
    await svc.coach.settled()
    shown = [(m.to, m.text) for _, o in await svc.tick("chat") for m in o.messages]
    reviews = [(to, text) for to, text in shown if text.startswith("📝")]
    table = await table_of(redis_client)
    assert table is not None
    assert table.autopilot[ANN.id] == [1, 2, 3, 4, 5]
    assert [text for to, text in reviews if to == ANN.id] == []
    assert any(to in (BOB.id, CID.id) for to, _ in reviews)  # the others' reviews still come
    asked = await svc.handle(CHAT, ANN, Request(Kind.REVIEW))
    assert (asked.answer, asked.alert) == (AWAY_ALL_GAME, True)
    await svc.coach.settled()
    assert [m for _, o in await svc.tick("chat") for m in o.messages if m.to == ANN.id] == []


async def test_the_ai_moves_are_not_reviewed_as_theirs_once_a_new_game_began(
    redis_client: aioredis.Redis,
) -> None:
    """As above, but Bob opens the next game before Ann asks for her /review: the rounds the
    stand-in played for her are still left out (the game's summary keeps them), so she is
    told at once that it played every round for her."""
    svc, driver = await ann_away_to_the_end(redis_client)
    await svc.coach.settled()
    await svc.tick("chat")
    await driver.ok(BOB, Kind.JOIN)  # a new table, a new game: its autopilot is empty
    asked = await svc.handle(CHAT, ANN, Request(Kind.REVIEW))
    assert (asked.answer, asked.alert) == (AWAY_ALL_GAME, True)


async def test_a_review_says_which_rounds_the_ai_played_for_the_asker(
    redis_client: aioredis.Redis,
) -> None:
    """Ann plays rounds 1 and 2, then lets her turn run out: the stand-in plays rounds 3 to 5
    for her. Her /review reviews her own rounds and says the others were left out, so that
    the coach's words (even "found no decision that cost you points") are not read as of the
    AI's moves."""
    svc, _ = await ann_away_to_the_end(redis_client, since=3)
    await svc.coach.settled()
    await svc.tick("chat")
    asked = await svc.handle(CHAT, ANN, Request(Kind.REVIEW))
    assert not asked.alert, asked.answer
    await svc.coach.settled()
    (game,) = [m.text for _, o in await svc.tick("chat") for m in o.messages if "📝" in m.text]
    assert game.startswith("📝 Your last game"), game
    assert game.endswith("\n(Not reviewed: rounds 3, 4, 5, which the AI played for you.)"), game
    assert not any(f"In round {number}" in game for number in (3, 4, 5)), game


async def test_a_review_is_in_the_language_of_the_askers_app(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """The chat is English; Ann's app is German (her private messages are German, as her hands
    would be): the review she asks for in the group comes in German, though Bob opened the next
    table (without her) meanwhile; the group's answer stays English."""
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ANN, BOB, CID], seed=5)
    await driver.lobby(["rounds=short"])
    await driver.play_to_end()
    await driver.ok(BOB, Kind.JOIN)
    ann = replace(ANN, language="de")
    asked = await svc.handle(CHAT, ann, Request(Kind.REVIEW))
    assert asked.answer == "Your review is being worked out: it comes to you privately."
    await svc.coach.settled()
    (review,) = [m for _, o in await svc.tick("chat") for m in o.messages if m.to == ann.id]
    assert review.text.startswith("📝 Deine letzte Partie"), review.text


async def test_a_review_of_a_record_cut_short_or_gone_is_refused_at_once(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """The record of the chat's last game lost its last trick (or expired, as records do after
    90 days, while the game's summary stays): /review says at once that the coach cannot review
    it, rather than promise a review that never comes."""
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ANN, BOB, CID], seed=5)
    await driver.lobby(["rounds=short"])
    await driver.play_to_end()
    record = await svc.store.record(CHAT)
    assert record is not None
    record["rounds"][-1]["tricks"].pop()
    await redis_client.set(keys.record(CHAT), json.dumps(record), keepttl=True)
    cut = await driver.send(BOB, Request(Kind.REVIEW))
    assert cut.alert
    assert cut.answer == "The coach cannot review the last game here: its record is incomplete."
    assert svc.coach.waiting() == 0
    await svc.coach.settled()
    assert await svc.tick("chat") == []
    await redis_client.delete(keys.record(CHAT))
    gone = await driver.send(BOB, Request(Kind.REVIEW))
    assert gone.answer == "The coach cannot review the last game here: its record is incomplete."


async def test_a_review_asked_again_is_not_worked_out_again(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Bob asks for the review of the same game again and again: it is worked out once, and
    each later /review gets it as it was, at the next tick, with nothing left to work out (so
    repeated asking cannot keep the coach busy, nor push the rounds' reviews back)."""
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ANN, BOB, CID], seed=5)
    await driver.lobby(["rounds=short"])
    await driver.play_to_end()
    await driver.ok(BOB, Kind.REVIEW)
    await svc.coach.settled()
    (first,) = [m for _, o in await svc.tick("chat") for m in o.messages if "📝" in m.text]
    for _ in range(3):
        again = await driver.ok(BOB, Kind.REVIEW)
        assert again.answer == "Your review is being worked out: it comes to you privately."
        assert svc.coach.under_way() == 0  # nothing to work out: it is known
        (same,) = [m for _, o in await svc.tick("chat") for m in o.messages if "📝" in m.text]
        assert (same.to, same.text) == (first.to, first.text)
    await driver.ok(CID, Kind.REVIEW)  # another seat's is worked out, as ever
    assert svc.coach.under_way() == 1


async def test_a_hint_asked_again_for_the_same_decision_is_worked_out_once(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """A double tap on the Hint button (two presses at once), and a third press later: the
    hint is worked out once, and each press gets the same figures."""
    svc = service(redis_client, clock=clock)
    driver = await coached(svc)
    state = await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number >= 2)
    user = next(u for u in driver.humans if u.id == state.players[state.round.turn].id)
    press = Request(Kind.BUTTON, hint_button(driver.screens.hand(user)))
    both = await driver.at_once([(user, press), (user, press)])
    later = await driver.send(user, press)
    texts = [private(outcome)[0].text for outcome in (*both, later)]
    assert texts[0].startswith("💡 Hint for your bid")
    assert texts == [texts[0]] * 3
    assert svc.coach.hints_worked == 1


async def test_a_games_review_names_its_chat(redis_client: aioredis.Redis, clock: Clock) -> None:
    """Ann played in the Wizards and on Friday; both games are over, so she sits nowhere, and
    asks each group for its review. Each names its group: both come to her one private chat,
    where "your last game" alone would not say which game it is."""
    svc = service(redis_client, clock=clock)
    heads = {}
    for chat, place, seed in ((CHAT, "Wizards", 5), ("chat:-200", "Friday", 6)):
        driver = Driver(svc, [ANN, BOB, CID], chat=chat, seed=seed)
        for user in (ANN, BOB, CID):
            await driver.send(user, Request(Kind.JOIN, place=place))
        await driver.ok(ANN, Kind.OPTION, "rounds=short")
        await driver.ok(ANN, Kind.START)
        await driver.play_to_end()
        await driver.send(ANN, Request(Kind.REVIEW, place=place))
        await svc.coach.settled()
        (review,) = [m for _, o in await svc.tick("chat") for m in o.messages if "📝" in m.text]
        heads[place] = review.text.splitlines()[0]
    assert heads["Wizards"].startswith("💬 \u2068Wizards\u2069 · 📝 Your last game"), heads
    assert heads["Friday"].startswith("💬 \u2068Friday\u2069 · 📝 Your last game"), heads


async def test_a_double_tap_on_hint_handled_by_two_workers_posts_it_once(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """A double tap on Hint in the player's private chat, its two presses taken by two workers
    at once: the hint is posted once, the other press answered that it was sent already (the
    mark is in Redis, for every worker)."""
    first = service(redis_client, clock=clock)
    second = service(redis_client, seed=1, clock=clock)
    driver = await coached(first)
    state = await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number >= 2)
    user = next(u for u in driver.humans if u.id == state.players[state.round.turn].id)
    press = Request(Kind.BUTTON, hint_button(driver.screens.hand(user)), aside=True)
    both = await asyncio.gather(first.handle(CHAT, user, press), second.handle(CHAT, user, press))
    hints = [m.text for outcome in both for m in private(outcome) if m.text.startswith("💡")]
    assert len(hints) == 1, hints
    assert [o.answer for o in both if not private(o)] == [HINT_SENT]


async def test_a_hint_asked_as_its_worker_stops_is_answered_in_the_askers_words(
    redis_client: aioredis.Redis, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann's app is German, the group English. Her worker stops cleanly (`Coach.stop`) as she
    asks for a hint: typed in the group, the group is answered that the bot restarts, in
    English (the group's reply to /hint, as "Your hint comes to you privately." is); pressed
    in her private chat, or typed where she alone reads the answer (Discord's /hint, answered
    ephemerally), she is, in German. No hint is worked out or marked as sent: the next worker
    gives it to her."""
    monkeypatch.setattr(service_helpers, "check_outcome", lambda *_: None)  # German hands
    ann = replace(ANN, language="de")
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ann, BOB, CID], seed=11)
    await driver.lobby(["rounds=short", "coach"])
    await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.turn == 0)
    press = Request(Kind.BUTTON, hint_button(driver.screens.hand(ann)), aside=True)
    svc.coach.stop()
    typed = await svc.handle(CHAT, ann, Request(Kind.HINT, aloud=True))
    assert (typed.answer, private(typed)) == (STOPPED_HINT, [])
    pressed = await svc.handle(CHAT, ann, press)
    assert (pressed.answer, private(pressed)) == (texts("de")(STOPPED_HINT), [])
    alone = await svc.handle(CHAT, ann, Request(Kind.HINT, alone=True))
    assert (alone.answer, private(alone)) == (texts("de")(STOPPED_HINT), [])
    assert texts("de")(STOPPED_HINT) != STOPPED_HINT
    assert svc.coach.hints_worked == 0
    again = await service(redis_client, seed=1, clock=clock).handle(CHAT, ann, press)
    assert [m.text.startswith("💡 Tipp") for m in private(again)] == [True, False]  # and hand
