"""The game service against a real redis-server: whole games through the buttons people press,
what the group and each person may see, records and results, duplicated updates, stale, forged
and foreign buttons, turn timeouts and autopilot, and the size of every button payload."""

import asyncio
import json
from typing import Any

import pytest
import redis.asyncio as aioredis
from service_helpers import (
    ANN,
    BOB,
    CHAT,
    CID,
    DOT,
    EVE,
    FAY,
    JOINED,
    Clock,
    Driver,
    Pondering,
    all_payloads,
    check_outcome,
    check_payload,
    client,
    command_for,
    game_of,
    payloads,
    raw,
    refusal,
    service,
    table_of,
)

from bot import tokens
from bot.ai import LEVELS
from bot.commands import Kind
from bot.config import Config
from bot.messages import Outcome
from bot.requests import Request, User
from bot.show.i18n import texts
from bot.show.picture import SheetPicture
from bot.store import keys
from engine import (
    BidMode,
    ErrorCode,
    GameState,
    Options,
    Phase,
    RuleError,
    Suit,
    apply,
    check_record,
    table_view,
)

OUT_OF_DATE = "This button is out of date."
NOT_OURS = "This button is not one of ours."
OVER = "This button belongs to a game that is over."
TRUMP_SEED = 0
"""A service seed whose short game turns up a Wizard before it ends."""
UNREACHABLE = "The game store cannot be reached right now. Please try again shortly."


@pytest.fixture
def clock() -> Clock:
    return Clock()


async def rejected(
    driver: Driver, user: User, payload: str, answer: str | None = None, chat: str = CHAT
) -> Outcome:
    """Press `payload` in `chat`: it must be refused with an alert and change nothing."""
    redis_client = driver.redis
    before = await raw(redis_client, chat)
    other = await raw(redis_client, driver.chat)
    outcome = await driver.svc.handle(chat, user, Request(Kind.BUTTON, payload))
    assert outcome.alert, (payload, outcome)
    assert outcome.messages == ()
    if answer is not None:
        assert outcome.answer == answer, payload
    assert await raw(redis_client, chat) == before, payload
    assert await raw(redis_client, driver.chat) == other, payload
    return outcome


# --- 1. whole games ------------------------------------------------------------------------------

GAMES = [
    pytest.param([ANN], 2, ["rounds=short"], id="one-person-two-ai-open"),
    pytest.param([ANN, BOB, CID], 0, ["rounds=short", "bids=hidden", "notequal"], id="hidden"),
    pytest.param([ANN, BOB], 2, ["rounds=short", "bids=secret", "notequal", "wings"], id="secret"),
    pytest.param([ANN, BOB, CID, DOT], 0, ["rounds=short", "dmmixed", "foresight"], id="foresight"),
]


@pytest.mark.parametrize(("humans", "ai", "options"), GAMES)
async def test_a_whole_game_through_the_buttons(
    redis_client: aioredis.Redis, clock: Clock, humans: list[User], ai: int, options: list[str]
) -> None:
    svc = service(redis_client, seed=len(options), clock=clock)
    driver = Driver(svc, humans, seed=ai)
    none_yet = await svc.handle(CHAT, ANN, Request(Kind.RECORD))
    assert none_yet.alert
    assert none_yet.messages == ()
    await driver.lobby(options, ai=ai)
    started = driver.outcomes[-1]
    group = [m for m in started.messages if m.to is None]
    # The lobby loses its buttons, so does the last game's end (its Play again); then the table.
    assert [m.slot for m in group] == ["lobby", "over", "table"]
    assert group[0].buttons == ()
    assert "has started" in group[0].text
    assert group[1].strip
    assert group[2].notify  # the table is a new message
    assert {m.to for m in started.messages if m.to is not None} == {u.id for u in humans}

    final = await driver.play_to_end()  # every outcome checked on the way (Driver.send)

    assert final.phase is Phase.FINISHED
    assert len(final.players) == len(humans) + ai
    assert len(final.results) == 5
    end = driver.outcomes[-1].messages
    (over,) = [m for m in end if m.slot == "over"]
    assert over.to is None
    assert over.text.startswith("🏁 The game is over.")
    assert over.picture is not None
    assert over.picture.png().startswith(b"\x89PNG")
    assert [tokens.decode(p).action for p in payloads(over)] == ["n"]
    # Each person gets their own result privately, with Play again; the final table is shown.
    private = [m for m in end if m.to is not None]
    results = [m for m in private if "Your place:" in m.text]
    assert sorted(m.to for m in results) == sorted(u.id for u in humans)
    assert all(payloads(m) for m in results)
    # Before them, the hand messages not showing the last round as it ended are edited to it.
    hands = [m for m in private if m not in results]
    assert all(m.slot == "hand" and not m.notify and not m.buttons for m in hands)
    assert not any("Your turn" in m.text or "Your hand" in m.text for m in hands)
    assert any(m.slot == "table" and m.text.startswith("🏁 Final table") for m in end)
    # The group saw tables and summaries, never a hand; every DM went to a person playing.
    shown = driver.screens.shown
    group_texts = [m.text for m in shown if m.to is None]
    assert sum(text.startswith("Round ") and "is over." in text for text in group_texts) == 4
    assert not any("Your hand" in text or "Foresight" in text for text in group_texts)
    assert {m.to for m in shown if m.to is not None} <= {u.id for u in humans}
    if final.options.bids is not BidMode.OPEN or final.options.dmmixed:
        assert any("/? tricks" in text for text in group_texts)  # unrevealed bids shown as ?

    record_outcome = await svc.handle(CHAT, BOB, Request(Kind.RECORD))
    assert not record_outcome.alert
    (message,) = record_outcome.messages
    assert message.attachment is not None
    name, data = message.attachment
    assert name.endswith(".json")
    record = json.loads(data)
    replayed = check_record(record)
    assert replayed.totals == final.totals
    assert [r.bids for r in replayed.results] == [r.bids for r in final.results]
    assert record["players"] == [p.name for p in final.players]

    (result,) = await svc.store.results(CHAT)
    assert result["players"] == [p.id for p in final.players]
    assert result["totals"] == final.totals
    assert result["options"] == final.options.to_dict()
    assert result["finished"] == clock.now

    sheet = await driver.ok(ANN, Kind.SCORES)
    picture = sheet.messages[0].picture
    assert picture is not None  # the sheet as a picture, the standings as its caption
    assert all(p.name in sheet.messages[0].text for p in final.players)
    assert all(p.name in picture.text() for p in final.players)  # its text form


async def test_the_score_sheet_knows_each_persons_app_language_for_their_names_writing(
    redis_client: aioredis.Redis,
) -> None:
    """The catalogs know no Chinese, so a person's `zh-TW` is no language of their messages;
    it is kept all the same (`Table.locales`) for the score sheet, whose picture draws the
    ideographs of their name in its face (`SheetPicture.locales`): traditional Chinese's for
    `zh-hant` (Telegram) or `zh-TW` (Discord), Hong Kong's for `zh-HK`. A language without a
    CJK face of its own is not kept; nor are AI seats'. A worker that reads the table anew
    knows them too."""
    humans = [
        User(ANN.id, ANN.name, language="zh-TW"),
        User(BOB.id, BOB.name, language="en"),
        User(CID.id, CID.name, language="zh-hant"),
    ]
    svc = service(redis_client, seed=3)
    driver = Driver(svc, humans, seed=1)
    await driver.lobby(["rounds=short"], ai=1)
    await driver.play_to_end()
    (over,) = [m for m in driver.outcomes[-1].messages if m.slot == "over"]
    assert isinstance(over.picture, SheetPicture)
    assert over.picture.locales == ("zh-TW", None, "zh-hant", None)
    again = await service(redis_client).handle(CHAT, humans[1], Request(Kind.SCORES))
    picture = again.messages[0].picture
    assert isinstance(picture, SheetPicture)
    assert picture.locales == ("zh-TW", None, "zh-hant", None)


async def test_saved_settings_name_the_deck_as_its_language_does(
    redis_client: aioredis.Redis,
) -> None:
    svc = service(redis_client)
    races = await svc.handle(CHAT, ANN, Request(Kind.THEME, "races"))
    assert [m.text for m in races.messages] == ["Settings saved: English, cards: races."]
    german = await svc.handle(CHAT, ANN, Request(Kind.LANGUAGE, "de"))
    said = [m.text for m in german.messages]
    assert said == ["Einstellungen gespeichert: Deutsch, Karten: Völker."]
    # the language and the deck as a sentence writes them: Russian names them lower-case, as
    # Spanish does (the deck was capitalised as a list names it, `карты: Расы`)
    russian = await svc.handle(CHAT, ANN, Request(Kind.LANGUAGE, "ru"))
    assert [m.text for m in russian.messages] == ["Настройки сохранены: русский, карты: расы."]
    spanish = await svc.handle(CHAT, ANN, Request(Kind.LANGUAGE, "es"))
    assert [m.text for m in spanish.messages] == ["Ajustes guardados: español, cartas: razas."]
    french = await svc.handle(CHAT, ANN, Request(Kind.THEME, "french"))
    assert [m.text for m in french.messages] == [
        "Ajustes guardados: español, cartas: baraja francesa."
    ]
    german = await svc.handle(CHAT, ANN, Request(Kind.LANGUAGE, "de"))
    said = [m.text for m in german.messages]
    assert said == ["Einstellungen gespeichert: Deutsch, Karten: französisches Blatt."]


async def test_play_again_starts_a_new_game_with_a_new_id(redis_client: aioredis.Redis) -> None:
    svc = service(redis_client, seed=5)
    driver = Driver(svc, [ANN], seed=5)
    await driver.lobby(["rounds=short", "wings", "coach"], ai=2)
    first = await game_of(redis_client)
    old = await table_of(redis_client)
    assert old is not None
    assert first.phase is not Phase.FINISHED
    await driver.play_to_end()
    (again,) = payloads(driver.outcomes[-1].messages[-1])
    outcome = await driver.press(BOB, again)
    assert not outcome.alert
    assert outcome.answer == JOINED
    new = await table_of(redis_client)
    assert new is not None
    assert new.game_id != old.game_id
    assert new.host == BOB.id
    # The same table again: the AI seats sit down with the first to press, by their names
    # and levels; the chat plays by the rules it chose.
    assert [p.id for p in new.game.players] == [BOB.id, "ai:1", "ai:2"]
    robots = [p.name for p in first.players if p.id.startswith("ai:")]
    assert [p.name for p in new.game.players][1:] == robots == ["Merlin", "Morgana"]
    assert new.ai == old.ai
    assert new.game.options == first.options
    assert new.game.options.wings
    assert new.coach
    assert "Options: open bids, 5 rounds, wings, coach" in outcome.messages[0].text
    # The finished game's record stays available while the next one is set up.
    assert (await svc.store.record(CHAT)) is not None


async def test_a_join_after_a_game_opens_a_new_table(redis_client: aioredis.Redis) -> None:
    """/join after a game, unlike its "Play again", opens a table with the defaults."""
    driver = Driver(service(redis_client, seed=5), [ANN], seed=5)
    await driver.lobby(["rounds=short", "wings", "coach"], ai=2)
    await driver.play_to_end()
    outcome = await driver.ok(BOB, Kind.JOIN)
    new = await table_of(redis_client)
    assert new is not None
    assert [p.id for p in new.game.players] == [BOB.id]
    assert new.game.options == Options()
    assert not new.coach
    assert new.after is not None  # the last game's Play again still closes with it
    assert "Options: open bids, all rounds" in outcome.messages[0].text


async def test_other_chats_are_served_while_an_ai_thinks(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AI seats think off the event loop: a request in another chat is answered meanwhile."""
    ai = Pondering()
    monkeypatch.setitem(LEVELS, "pondering", ai)
    svc = service(redis_client, seed=5)
    slow = Driver(svc, [ANN], seed=5)
    await slow.lobby(["rounds=short"], start=False)
    for _ in range(2):
        await slow.ok(ANN, Kind.ADD_AI, "pondering")
    other = Driver(svc, [BOB], chat="chat:-200")

    async def play() -> None:
        await slow.ok(ANN, Kind.START)
        while not ai.answered.is_set():  # until an AI seat has moved
            await slow.move()

    async def elsewhere() -> None:
        while not ai.thinking.is_set():
            await asyncio.sleep(0.001)
        await other.ok(BOB, Kind.JOIN)
        ai.answered.set()

    await asyncio.gather(play(), elsewhere())
    game = await game_of(redis_client)
    assert game.round is not None
    ai_seats = [seat for seat, player in enumerate(game.players) if player.id.startswith("ai:")]
    assert any(game.round.bids[seat] is not None for seat in ai_seats)  # its move counted
    assert [p.id for p in (await game_of(redis_client, "chat:-200")).players] == [BOB.id]


# --- 3. duplicated updates -----------------------------------------------------------------------


async def test_a_duplicated_update_is_applied_once(redis_client: aioredis.Redis) -> None:
    driver = Driver(service(redis_client), [ANN, BOB, CID])
    first = await driver.send(ANN, Request(Kind.JOIN), update_id="u1")
    assert not first.alert
    assert first.messages
    version = await raw(redis_client)
    second = await driver.send(ANN, Request(Kind.JOIN), update_id="u1")
    assert second == Outcome()
    assert await raw(redis_client) == version
    # The same update id in another chat is another update.
    other = await driver.svc.handle("chat:other", BOB, Request(Kind.JOIN), "u1")
    assert not other.alert
    assert other.messages


async def test_a_redelivered_button_press_is_applied_once(redis_client: aioredis.Redis) -> None:
    svc = service(redis_client, seed=2)
    driver = Driver(svc, [ANN, BOB, CID])
    await driver.lobby(["rounds=short", "bids=hidden"])
    (_, payload), *_ = driver.choices()
    user = next(u for u, p in driver.choices() if p == payload)
    first = await driver.press(user, payload, update_id="77")
    assert not first.alert
    before = await raw(redis_client)
    again = await driver.press(user, payload, update_id="77")
    assert again == Outcome()
    assert await raw(redis_client) == before


async def test_concurrent_deliveries_of_one_update_apply_once(
    redis_client: aioredis.Redis,
) -> None:
    svc = service(redis_client, seed=3)
    driver = Driver(svc, [ANN, BOB, CID])
    await driver.lobby(["rounds=short"], start=False)
    version, _ = await raw(redis_client)
    outcomes = await asyncio.gather(
        *(svc.handle(CHAT, ANN, Request(Kind.ADD_AI), update_id="dup") for _ in range(20))
    )
    assert sum(bool(o.messages) for o in outcomes) == 1
    assert sum(o == Outcome() for o in outcomes) == 19
    assert (await raw(redis_client))[0] == version + 1
    table = await table_of(redis_client)
    assert table is not None
    assert len(table.ai) == 1


async def test_a_wings_mark_edits_the_players_hand_and_not_the_table(
    redis_client: aioredis.Redis,
) -> None:
    """A mark is the player's own: their hand shows it, the table shows nothing new, so its
    message is not edited (an edit to the same text is a call for nothing, in the group's rate
    limit)."""
    svc = service(redis_client, seed=11)
    driver = Driver(svc, [ANN, BOB, CID], seed=11, wings_rate=0)
    await driver.lobby(["rounds=short", "wings"])
    state = await driver.play_until(lambda s: s.phase is Phase.PLAYING and s.round.number == 3)
    rnd = state.round
    assert rnd is not None
    waiting = state.players[rnd.turn].id
    user, payload = next((u, p) for u, p in driver.marks() if u.id != waiting)
    outcome = await driver.press(user, payload)
    assert not outcome.alert
    assert [m.to for m in outcome.messages] == [user.id]
    assert "🪽" in outcome.messages[0].text
    # The card played next shows the table, as every card does.
    on_turn, card = next((u, p) for u, p in driver.choices() if u.id == waiting)
    played = await driver.press(on_turn, card)
    assert [m.slot for m in played.messages if m.to is None] == ["table"]


# --- 7. stale, forged and foreign buttons --------------------------------------------------------


async def test_stale_buttons_from_earlier_tricks_and_rounds_change_nothing(
    redis_client: aioredis.Redis,
) -> None:
    svc = service(redis_client, seed=11)
    driver = Driver(svc, [ANN, BOB, CID], seed=11, wings_rate=0.3)
    await driver.lobby(["rounds=short", "bids=hidden", "wings"])
    await driver.play_until(lambda s: s.round.number == 4 and len(s.round.tricks) >= 2)
    table = await table_of(redis_client)
    assert table is not None
    state = table.game
    now = tokens.stamp(state)
    users = {u.id: u for u in driver.humans}
    old = [
        (users[m.to], p)
        for m in driver.screens.shown
        if m.to is not None
        for p in payloads(m)
        if tokens.decode(p).stamp not in (now, tokens.LOBBY_STAMP, tokens.round_stamp(state))
    ]
    assert len(old) > 50
    would_be_legal = 0
    for user, payload in old:
        command = command_for(state, user, Request(Kind.BUTTON, payload))
        try:
            apply(state, command)
            would_be_legal += 1
        except RuleError:
            pass
        await rejected(driver, user, payload, OUT_OF_DATE)
    assert would_be_legal > 0  # the stamp, not the rules, turned those away
    # The lobby's Start button, mid-game: the rules refuse it.
    start = next(p for m in driver.screens.shown for p in payloads(m) if p.endswith(".s"))
    outcome = await rejected(driver, ANN, start)
    assert outcome.answer == refusal(ErrorCode.GAME_STARTED)


async def test_forged_payloads_change_nothing(redis_client: aioredis.Redis) -> None:
    svc = service(redis_client, seed=12)
    driver = Driver(svc, [ANN, BOB, CID], seed=12)
    await driver.lobby(["rounds=short"])
    state = await driver.play_until(lambda s: s.phase is Phase.PLAYING and s.round.number == 3)
    table = await table_of(redis_client)
    assert table is not None
    gid, stamp = table.game_id, tokens.stamp(state)
    rnd = state.round
    assert rnd is not None
    turn = state.players[rnd.turn].id
    actor = next(u for u in driver.humans if u.id == turn)
    idle = next(u for u in driver.humans if u.id != turn)
    held = {card for hand in rnd.hands for card in hand}
    missing = next(card for card in ("R1", "G7", "B13", "Y2", "W", "J") if card not in held)
    others = next(card for card in rnd.hands[(rnd.turn + 1) % 3] if card not in rnd.hands[rnd.turn])

    garbage = [
        "",
        "garbage",
        "💣💣💣",
        "a.b",
        "a.b.c.d",
        f".{stamp}.pR1",
        f"{gid}..pR1",
        f"{gid}.{stamp}.",
        f"{gid}!.{stamp}.pR1",
        f"{gid}.{stamp}.pR1;DROP",
        f"{gid}.{stamp}.q",  # well-formed, but no such action
        f"{gid}.{stamp}.Z{rnd.hands[rnd.turn][0]}",
        f"{gid}.{stamp}.p{rnd.hands[rnd.turn][0]}" + "0" * 64,  # longer than 64 bytes
        "x" * 65,
    ]
    for payload in garbage:
        await rejected(driver, actor, payload, NOT_OURS)
    # Well-formed tokens of this game and decision that the rules refuse.
    await rejected(driver, actor, f"{gid}.{stamp}.p{missing}", refusal(ErrorCode.CARD_NOT_IN_HAND))
    await rejected(driver, actor, f"{gid}.{stamp}.p{others}", refusal(ErrorCode.CARD_NOT_IN_HAND))
    legal = driver.choices()[0][1]
    await rejected(driver, idle, legal, refusal(ErrorCode.NOT_YOUR_TURN))
    await rejected(driver, actor, f"{gid}.{stamp}.pR99")
    bid_late = refusal(ErrorCode.WRONG_PHASE, Phase.PLAYING)
    assert bid_late == "Not now: the bids are in, and the cards are being played."
    await rejected(driver, actor, f"{gid}.{stamp}.b1", bid_late)
    await rejected(driver, actor, f"{gid}.{stamp}.tX")
    await rejected(driver, BOB, f"{gid}.L.obids=open", "Only the host may change the options.")
    await rejected(driver, ANN, f"{gid}.L.obids=open", refusal(ErrorCode.GAME_STARTED))
    await rejected(driver, ANN, f"{gid}.L.n", OUT_OF_DATE)  # play again, mid-game
    stranger = User("tg:99", "Mallory")
    await rejected(driver, stranger, legal, "You are not playing at this table.")
    # The real button still works afterwards.
    assert not (await driver.press(actor, legal)).alert


async def test_a_token_longer_than_64_bytes_is_refused_even_in_few_characters(
    redis_client: aioredis.Redis,
) -> None:
    svc = service(redis_client, seed=13)
    driver = Driver(svc, [ANN, BOB, CID])
    await driver.lobby(["rounds=short", "bids=hidden"])
    table = await table_of(redis_client)
    assert table is not None
    payload = f"{table.game_id}.{tokens.stamp(table.game)}.b" + "٠" * 30 + "١"
    assert len(payload) <= 64 < len(payload.encode())
    await rejected(driver, ANN, payload, NOT_OURS)


async def test_buttons_of_another_chat_change_nothing(redis_client: aioredis.Redis) -> None:
    svc = service(redis_client, seed=14)
    here = Driver(svc, [ANN, BOB, CID], seed=1)
    there = Driver(svc, [DOT, EVE, FAY], chat="chat:other", seed=2)
    await here.lobby(["rounds=short"])
    await there.lobby(["rounds=short", "bids=hidden"])
    await there.play_until(lambda s: s.phase is Phase.PLAYING)
    foreign = all_payloads(there.outcomes)
    assert len(foreign) > 10
    theirs = await raw(redis_client, "chat:other")
    for payload in foreign:
        await rejected(here, ANN, payload, OVER)
        await rejected(here, DOT, payload, OVER)
    assert await raw(redis_client, "chat:other") == theirs


async def test_buttons_of_a_finished_game_change_nothing(redis_client: aioredis.Redis) -> None:
    svc = service(redis_client, seed=15)
    driver = Driver(svc, [ANN], seed=15)
    await driver.lobby(["rounds=short", "bids=hidden"], ai=2, start=False)
    await driver.ok(ANN, Kind.OPTION)
    await driver.ok(ANN, Kind.START)
    await driver.play_to_end()
    old = all_payloads(driver.outcomes)
    actions = {tokens.decode(p).action for p in old}
    assert {"j", "l", "s", "a", "o", "x", "b", "p", "n"} <= actions
    # While the finished game is the chat's table, only its "play again" and "join" buttons
    # start anything (a new table); the others are refused.
    for payload in old:
        token = tokens.decode(payload)
        if token.action in "jn" or (token.action == "o" and not token.arg):
            continue
        await rejected(driver, ANN, payload)
    again = payloads(next(m for m in driver.outcomes[-1].messages if m.slot == "over"))[0]
    assert not (await driver.press(ANN, again)).alert
    for payload in old:
        if tokens.decode(payload).action == "n":  # Play again seats people at the new table
            assert (await driver.press(ANN, payload)).answer == "You have already joined."
            continue
        await rejected(driver, ANN, payload, OVER)
    second = Driver(svc, [ANN], seed=16)
    await second.ok(ANN, Kind.ADD_AI)
    await second.ok(ANN, Kind.ADD_AI)
    await second.ok(ANN, Kind.START)
    for payload in old:
        await rejected(driver, ANN, payload, OVER)


# --- 8. timers -----------------------------------------------------------------------------------


async def fire(driver: Driver, clock: Clock) -> list[tuple[str, Outcome]]:
    """Move past the current deadline, run the due timers, show what they say."""
    table = await table_of(driver.redis)
    assert table is not None
    assert table.deadline is not None
    clock.now = table.deadline + 1
    fired = await driver.svc.run_timers("chat")
    for chat, outcome in fired:
        assert chat == driver.chat
        driver.outcomes.append(outcome)
        driver.screens.show(outcome)
        check_outcome(outcome, await table_of(driver.redis), driver.theme)
    return fired


async def test_a_reminder_of_several_people_speaks_to_them_all(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Under hidden bids the reminder may name several people: it speaks to them all, in the
    plural of languages that tell one "you" from several (Italian "tocca a voi", not "tocca a
    te"); one person alone is spoken to as one."""
    config = Config(turn_timeout=30)
    svc = service(redis_client, seed=21, clock=clock, config=config)
    await svc.handle(CHAT, ANN, Request(Kind.LANGUAGE, "it"))

    async def reminded(bids: str) -> str:
        for user in (ANN, BOB, CID):
            await svc.handle(CHAT, user, Request(Kind.JOIN))
        for option in ("rounds=short", f"bids={bids}"):
            await svc.handle(CHAT, ANN, Request(Kind.OPTION, option))
        await svc.handle(CHAT, ANN, Request(Kind.START))
        clock.advance(config.turn_timeout / 2)
        ((_, reminder),) = await svc.run_timers("chat")
        (message,) = reminder.messages
        await svc.handle(CHAT, ANN, Request(Kind.CANCEL))
        return message.text

    assert await reminded("hidden") == "⏳ Ann, Bob, Cid: tocca a voi (restano 15 s)."
    assert (await reminded("open")).endswith(": tocca a te (restano 15 s).")


async def test_a_timeout_puts_the_player_on_autopilot_until_they_are_back(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    config = Config(turn_timeout=30)
    svc = service(redis_client, seed=21, clock=clock, config=config)
    driver = Driver(svc, [ANN, BOB, CID], seed=21, wings_rate=0)
    await driver.lobby(["rounds=short", "wings"])
    state = await driver.play_until(lambda s: s.phase is Phase.PLAYING and s.round.number == 2)
    rnd = state.round
    assert rnd is not None
    late = next(u for u in driver.humans if u.id == state.players[rnd.turn].id)
    seat = rnd.turn
    table = await table_of(redis_client)
    assert table is not None
    assert table.deadline == clock.now + config.turn_timeout
    clock.advance(config.turn_timeout / 2 - 1)
    assert await svc.run_timers("chat") == []  # not due yet

    # At half the time, the group names them (once), mentioning them.
    clock.advance(1)
    ((_, reminder),) = await svc.run_timers("chat")
    (message,) = reminder.messages
    assert message.to is None
    assert message.text == f"⏳ {late.name}: it is your turn (15 s left)."
    assert message.mentions == ((late.id, late.name),)
    clock.advance(config.turn_timeout / 2 - 1)
    assert await svc.run_timers("chat") == []  # reminded; the turn is not over yet

    ((_, outcome),) = await fire(driver, clock)
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == [late.id]
    group = next(m for m in outcome.messages if m.to is None and m.slot == "table")
    assert f"⏰ {late.name} ran out of time" in group.text
    assert f"{late.name} 💤" in group.text
    after = table.game
    assert after.round is not None
    assert len(after.round.hands[seat]) == len(rnd.hands[seat]) - 1  # the AI played for them
    hand = driver.screens.hand(late)
    assert hand is not None
    assert "The AI is playing for you" in hand.text
    resume = [p for p in payloads(hand) if tokens.decode(p).action == "r"]
    assert len(resume) == 1
    assert not [p for p in payloads(hand) if tokens.decode(p).action in "bpt"]

    # The AI moves for them on their later turns; they press nothing.
    driver.humans = [u for u in driver.humans if u != late]
    state = await driver.play_until(lambda s: s.round is None or s.round.number == 3)
    assert state.round is not None
    assert state.round.number == 3
    assert [r.number for r in state.results][-1] == 2
    assert (await table_of(redis_client)).away == [late.id]  # type: ignore[union-attr]

    # Resume takes them back: the game waits for them again.
    back = await driver.press(late, resume[0])
    assert not back.alert
    assert back.answer == "Welcome back!"
    assert (await table_of(redis_client)).away == []  # type: ignore[union-attr]
    again = await rejected(driver, late, resume[0])
    assert again.answer == "You are playing already."
    driver.humans = [ANN, BOB, CID]
    state = await driver.play_until(lambda s: late.id in waiting_ids(s))
    assert {u for u, _ in driver.choices()} == {late}  # their move, and no one else's

    # A second timeout, and then an own move (a wings mark) takes them back too.
    await fire(driver, clock)
    assert (await table_of(redis_client)).away == [late.id]  # type: ignore[union-attr]
    state = await game_of(redis_client)
    marks = [p for p in payloads(driver_hand(driver, late)) if tokens.decode(p).action == "w"]
    if not marks:  # their hand may be empty at a round's end: wait for the next deal
        driver.humans = [u for u in driver.humans if u != late]
        await driver.play_until(lambda s: bool(driver_marks(driver, late)))
        marks = driver_marks(driver, late)
    moved = await driver.press(late, marks[0])
    assert not moved.alert
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == []
    notice = next(m for m in moved.messages if m.to is None and m.slot == "table")
    assert f"{late.name} is back." in notice.text


async def test_an_away_dealer_has_the_ai_name_trump_for_a_wizard_turned_up(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """A Wizard turned up waits for the dealer alone; if they do not name a suit in time, the AI
    names one for them (never "no trump") and the bidding opens."""
    config = Config(turn_timeout=30)
    svc = service(redis_client, seed=TRUMP_SEED, clock=clock, config=config)
    driver = Driver(svc, [ANN, BOB, CID], seed=TRUMP_SEED, wings_rate=0)
    await driver.lobby(["rounds=short"])
    state = await driver.play_until(lambda s: s.phase in (Phase.TRUMP, Phase.FINISHED))
    assert state.phase is Phase.TRUMP
    rnd = state.round
    assert rnd is not None
    assert rnd.trump_card == "W"
    assert rnd.trump is None
    dealer = state.players[rnd.dealer].id
    assert waiting_ids(state) == {dealer}
    await fire(driver, clock)
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == [dealer]
    after = table.game
    assert after.round is not None
    assert after.round.number == rnd.number
    assert after.phase is Phase.BIDDING
    assert after.round.trump in set(Suit)
    assert after.round.bids == [None, None, None]


def waiting_ids(state: GameState) -> set[str]:
    return {state.players[seat].id for seat in table_view(state).waiting}


def driver_hand(driver: Driver, user: User) -> Any:
    hand = driver.screens.hand(user)
    assert hand is not None
    return hand


def driver_marks(driver: Driver, user: User) -> list[str]:
    hand = driver.screens.hand(user)
    if hand is None:
        return []
    return [p for p in payloads(hand) if tokens.decode(p).action == "w"]


async def test_an_idle_lobby_closes(redis_client: aioredis.Redis, clock: Clock) -> None:
    config = Config(lobby_timeout=120)
    svc = service(redis_client, clock=clock, config=config)
    driver = Driver(svc, [ANN, BOB])
    await driver.lobby(start=False)
    join = payloads(driver.outcomes[-1].messages[0])[0]
    opened = clock.now
    clock.now = opened + config.lobby_timeout - 1
    assert await svc.run_timers("chat") == []
    assert await table_of(redis_client) is not None
    clock.now = opened + config.lobby_timeout + 1
    ((chat, outcome),) = await svc.run_timers("chat")
    assert chat == CHAT
    message, toggles = outcome.messages
    assert message.text == "The table was idle too long and is closed."
    assert message.slot == "lobby"
    # the host's toggles in their private chat, if they asked for them there, lose their buttons
    assert (toggles.to, toggles.slot, toggles.strip) == (ANN.id, "options", True)
    assert await table_of(redis_client) is None
    await rejected(driver, ANN, join, OVER)
    assert await svc.run_timers("chat") == []


async def test_a_lobby_in_use_is_not_idle(redis_client: aioredis.Redis, clock: Clock) -> None:
    config = Config()
    svc = service(redis_client, clock=clock, config=config)
    driver = Driver(svc, [ANN, BOB])
    await driver.lobby(start=False)
    clock.advance(config.lobby_timeout - 10)
    await driver.ok(ANN, Kind.OPTION, "bids=hidden")
    await driver.ok(ANN, Kind.ADD_AI)
    clock.advance(20)
    assert await svc.run_timers("chat") == []
    assert await table_of(redis_client) is not None


GONE = "Nobody is playing any more: the game is abandoned."
PAUSED = (
    "⏸ Paused: nobody is playing. Make your move or press Resume to go on; otherwise the game "
    "ends in 30 min."
)
TABLE_PAUSED = (
    "⏸ Paused: nobody is playing. Make your move, or press Resume under your cards, to go on; "
    "otherwise the game ends in 30 min."
)
"""The group's table's word for it: its Resume is under each one's cards, not on the table."""


async def paused_alone(redis_client: aioredis.Redis, clock: Clock, seed: int) -> Driver:
    """Ann alone with three AI seats (secret bids: they bid at once) lets her first bid's time
    run out: the game pauses, as the table, her hand and the store show, and nothing moves."""
    svc = service(redis_client, seed=seed, clock=clock)
    driver = Driver(svc, [ANN], seed=seed)
    await driver.lobby(["rounds=short", "bids=secret"], ai=3)
    before = await game_of(redis_client)
    assert waiting_ids(before) == {ANN.id}
    ((_, outcome),) = await fire(driver, clock)
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == [ANN.id]
    assert table.paused()
    assert table.deadline == clock.now + Config().lobby_timeout
    assert table.remind is None  # no reminder in a pause
    assert table.game.to_dict() == before.to_dict()  # nobody moved: no AI, for her or its seats
    group = next(m for m in outcome.messages if m.to is None and m.slot == "table")
    assert group.text.endswith(f"\n\n{TABLE_PAUSED}")
    assert "ran out of time" not in group.text
    assert f"{ANN.name} 💤" in group.text
    hand = driver_hand(driver, ANN)
    assert PAUSED in hand.text
    assert "The AI is playing for you" not in hand.text
    actions = [tokens.decode(p).action for p in payloads(hand)]
    assert "b" in actions  # her bids
    assert "r" in actions  # and Resume, to go on with
    # Until the pause's deadline nothing moves, neither at a timer nor at a request.
    clock.now = table.deadline - 1
    assert await svc.run_timers("chat") == []
    await driver.ok(ANN, Kind.HAND)
    assert (await game_of(redis_client)).to_dict() == before.to_dict()
    return driver


async def test_a_lone_player_timing_out_pauses_the_game_and_their_move_goes_on(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """One person with AI seats lets their time run out: the game pauses (it was abandoned at
    once before); their own move ends the pause, and the game goes on to its end."""
    driver = await paused_alone(redis_client, clock, seed=24)
    bid = next(p for p in payloads(driver_hand(driver, ANN)) if tokens.decode(p).action == "b")
    moved = await driver.press(ANN, bid)
    assert not moved.alert
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == []
    assert not table.paused()
    group = next(m for m in moved.messages if m.to is None and m.slot == "table")
    assert f"{ANN.name} is back." in group.text
    assert "Paused" not in group.text
    assert "Paused" not in driver_hand(driver, ANN).text
    final = await driver.play_to_end()
    assert final.phase is Phase.FINISHED


async def test_resume_ends_a_pause_with_the_turn_deadline(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    driver = await paused_alone(redis_client, clock, seed=26)
    resume = next(p for p in payloads(driver_hand(driver, ANN)) if tokens.decode(p).action == "r")
    back = await driver.press(ANN, resume)
    assert back.answer == "Welcome back!"
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == []
    assert table.deadline == clock.now + Config().turn_timeout  # her bid's turn again
    assert table.remind == clock.now + Config().turn_timeout / 2
    group = driver.screens.group()
    assert group is not None
    assert "Paused" not in group.text
    assert "💤" not in group.text
    hand = driver_hand(driver, ANN)
    assert "Paused" not in hand.text
    assert [tokens.decode(p).action for p in payloads(hand)].count("b") > 1
    final = await driver.play_to_end()
    assert final.phase is Phase.FINISHED


async def test_a_pause_nobody_ends_abandons_the_game(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    driver = await paused_alone(redis_client, clock, seed=24)
    ((_, outcome),) = await fire(driver, clock)
    notice, final, *hands = outcome.messages
    assert notice.text == GONE
    assert (final.slot, final.buttons) == ("table", ())  # as cancelled: nothing left to press
    assert final.text.endswith(f"\n\n{GONE}")
    assert "\n\n\n" not in final.text, final.text  # one blank line before it, as between parts
    assert "Paused" not in final.text
    assert [(hand.to, hand.slot, hand.text, hand.buttons) for hand in hands] == [
        (ANN.id, "hand", GONE, ())
    ]
    assert await table_of(redis_client) is None
    assert await driver.svc.store.record(CHAT) is None
    assert await driver.svc.store.results(CHAT) == []


async def test_a_game_everybody_left_pauses_until_one_is_back(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Two people and an AI seat: one runs out of time (the AI plays for them), then the
    other: the game pauses (it was abandoned before). The first comes back with Resume: the
    game goes on, the AI playing for the second, who stays away."""
    svc = service(redis_client, seed=23, clock=clock)
    driver = Driver(svc, [ANN, BOB], seed=23)
    await driver.lobby(["rounds=short"], ai=1)
    ((_, first),) = await fire(driver, clock)
    table = await table_of(redis_client)
    assert table is not None
    assert len(table.away) == 1
    assert "ran out of time" in first.messages[0].text
    (gone,) = [u for u in driver.humans if u.id in table.away]
    (present,) = [u for u in driver.humans if u.id not in table.away]
    assert present.id in waiting_ids(table.game)
    ((_, second),) = await fire(driver, clock)
    table = await table_of(redis_client)
    assert table is not None
    assert table.paused()
    assert sorted(table.away) == sorted(u.id for u in driver.humans)
    assert table.deadline == clock.now + Config().lobby_timeout
    (group,) = [m for m in second.messages if m.to is None]
    assert group.text.endswith(TABLE_PAUSED)
    assert "ran out of time" not in group.text
    for user in driver.humans:
        assert PAUSED in driver_hand(driver, user).text
    state = table.game
    assert waiting_ids(state) == {present.id}
    # The one away longest is back: the AI plays for the other at once, the game goes on.
    resume = next(p for p in payloads(driver_hand(driver, gone)) if tokens.decode(p).action == "r")
    back = await driver.press(gone, resume)
    assert back.answer == "Welcome back!"
    table = await table_of(redis_client)
    assert table is not None
    assert table.away == [present.id]
    assert not table.paused()
    assert table.game.seq > state.seq  # the AI moved for the one still away
    group = driver.screens.group()
    assert group is not None
    assert "Paused" not in group.text
    other = driver_hand(driver, present)  # their hand says the AI plays for them now
    assert "The AI is playing for you" in other.text
    assert "Paused" not in other.text
    driver.humans = [gone]
    final = await driver.play_to_end()
    assert final.phase is Phase.FINISHED


async def test_a_timer_and_a_move_at_the_same_moment_apply_once(
    redis_url: str, redis_client: aioredis.Redis, clock: Clock
) -> None:
    svc = service(redis_client, seed=25, clock=clock)
    driver = Driver(svc, [ANN, BOB, CID], seed=25)
    await driver.lobby(["rounds=short"])
    state = await driver.play_until(lambda s: s.phase is Phase.PLAYING and s.round.number == 3)
    version, blob = await raw(redis_client)
    table = await table_of(redis_client)
    assert table is not None
    assert blob is not None
    assert table.deadline is not None
    rnd = state.round
    assert rnd is not None
    seat = rnd.turn
    user = next(u for u in driver.humans if u.id == state.players[seat].id)
    (payload,) = [p for u, p in driver.choices() if u == user][:1]
    card = tokens.decode(payload).arg
    # The stand-in is `normal`, which decides in a millisecond or two: the head starts below
    # are larger, so the timer wins some rounds (`hard` takes longer, and the player's move
    # made while it decides wins, as in the near ties here).
    quick = Config(stand_in="normal")
    workers = [service(client(redis_url), seed=n, clock=clock, config=quick) for n in range(2)]
    seen = {"player": 0, "timer": 0}
    # Who starts first, by how much (seconds): a clear head start either way (so both outcomes
    # happen whatever the machine's load), and near ties, which the store settles.
    starts = [(0.0, 0.05), (0.0, 0.006), (0.002, 0.004), (0.004, 0.002), (0.006, 0.0), (0.05, 0.0)]

    async def timers(worker: Any, delay: float) -> list[tuple[str, Outcome]]:
        await asyncio.sleep(delay)
        return await worker.run_timers("chat")  # type: ignore[no-any-return]

    async def move(delay: float) -> Outcome:
        await asyncio.sleep(delay)
        return await svc.handle(CHAT, user, Request(Kind.BUTTON, payload))

    try:
        for attempt in range(24):
            await redis_client.delete(keys.timers(CHAT))
            await redis_client.hset(keys.game(CHAT), mapping={"v": version, "t": blob})
            await svc.store.set_timer(CHAT, table.deadline)
            clock.now = table.deadline + 1
            wait, lag = starts[attempt % len(starts)]
            fired_a, fired_b, pressed = await asyncio.gather(
                timers(workers[0], wait), timers(workers[1], wait), move(lag)
            )
            fired = fired_a + fired_b
            assert len(fired) <= 1  # one worker claimed the timer
            after = await table_of(redis_client)
            assert after is not None
            assert after.game.round is not None
            new = after.game.round
            assert new.number == rnd.number
            # One card left the seat: the AI's for them (after the timeout), or the player's own
            # (before the timer fired, or after it while the AI was still deciding: the AI's
            # move is then refused). Each write is one of these: the timeout, and each card.
            assert len(new.hands[seat]) == len(rnd.hands[seat]) - 1
            gone = sum(map(len, rnd.hands)) - sum(map(len, new.hands))
            assert (await raw(redis_client))[0] == version + len(fired) + gone
            if pressed.alert:  # the AI played for them
                assert len(fired) == 1
                assert after.away == [user.id]
                seen["timer"] += 1
            else:
                assert after.away == []
                assert card not in new.hands[seat]
                seen["player"] += 1
        assert seen["player"] > 0, seen
        assert seen["timer"] > 0, seen
    finally:
        for worker in workers:
            await worker.store.client.aclose()


async def test_timer_entries_name_the_deadline(redis_client: aioredis.Redis, clock: Clock) -> None:
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ANN])
    await driver.ok(ANN, Kind.JOIN)
    table = await table_of(redis_client)
    assert table is not None
    assert table.deadline == clock.now + Config().lobby_timeout
    members = await redis_client.zrange(keys.timers(CHAT), 0, -1, withscores=True)
    assert [(m.decode(), s) for m, s in members] == [(CHAT, table.deadline)]
    await driver.ok(ANN, Kind.ADD_AI)  # a new deadline replaces the entry: one per chat
    table = await table_of(redis_client)
    assert table is not None
    members = await redis_client.zrange(keys.timers(CHAT), 0, -1, withscores=True)
    assert [(m.decode(), s) for m, s in members] == [(CHAT, table.deadline)]


# --- 9. button payloads fit 64 bytes -------------------------------------------------------------


async def choose_options(driver: Driver, wanted: list[str]) -> None:
    """The host sets options with the lobby's option buttons, as a person would."""
    menu = await driver.press(driver.humans[0], lobby_button(driver, "o", ""))
    assert not menu.alert
    for option in wanted:
        for _ in range(3):
            table = await table_of(driver.redis, driver.chat)
            assert table is not None
            if option_on(table.game.options, option):
                break
            name = option.partition("=")[0]
            button = next(
                p
                for p in payloads(driver.screens.group("lobby"))  # type: ignore[arg-type]
                if tokens.decode(p).arg.startswith(f"{name}=")
            )
            assert not (await driver.press(driver.humans[0], button)).alert
        table = await table_of(driver.redis, driver.chat)
        assert table is not None
        assert option_on(table.game.options, option), option


def option_on(options: Options, option: str) -> bool:
    name, _, value = option.partition("=")
    if value:
        return str(getattr(options, name)) == value
    return bool(options.notequal_on if name == "notequal" else getattr(options, name))


def lobby_button(driver: Driver, action: str, arg: str) -> str:
    lobby = driver.screens.group("lobby")
    assert lobby is not None
    return next(
        p for p in payloads(lobby) if (t := tokens.decode(p)).action == action and t.arg == arg
    )


SIX = [ANN, BOB, CID, DOT, EVE, FAY]


@pytest.mark.parametrize(
    ("humans", "ai", "options"),
    [
        pytest.param(SIX[:3], 3, ["bids=secret", "notequal", "dmmixed", "foresight", "wings"]),
        pytest.param(SIX, 0, ["bids=hidden", "notequal", "foresight", "wings"]),
        pytest.param(SIX[:2], 3, ["rounds=tournament", "bids=hidden", "dmmixed", "wings"]),
    ],
)
async def test_every_button_payload_fits_64_bytes(
    redis_client: aioredis.Redis, clock: Clock, humans: list[User], ai: int, options: list[str]
) -> None:
    svc = service(redis_client, seed=ai + len(options), clock=clock)
    driver = Driver(svc, humans, seed=len(humans))
    for user in humans:
        await driver.ok(user, Kind.JOIN)
    for _ in range(ai):
        await driver.press(humans[0], lobby_button(driver, "a", ""))
    await choose_options(driver, options)
    await driver.press(humans[0], lobby_button(driver, "s", ""))
    if len(humans) > 1:  # one person times out, so Resume buttons are shown too
        ids = {u.id for u in humans}
        await driver.play_until(lambda s: len(waiting_ids(s) & ids) == 1)
        assert len(await fire(driver, clock)) == 1
    final = await driver.play_to_end()
    assert final.phase is Phase.FINISHED
    again = await driver.press(humans[-1], payloads(driver.outcomes[-1].messages[-1])[0])
    assert not again.alert
    emitted = all_payloads(driver.outcomes)
    actions = {check_payload(p).action for p in emitted}
    assert {"j", "l", "s", "a", "o", "x", "b", "p", "w", "n"} <= actions
    if len(humans) > 1:
        assert "r" in actions
    if "foresight" in options:
        assert any(p.endswith(".p") for p in emitted)  # "play your unseen card"
    longest = max(emitted, key=lambda p: len(p.encode()))
    assert len(longest.encode()) <= 64, longest


async def test_an_early_timer_entry_is_mended_not_fired(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """A deadline that moves later keeps its (earlier) index entry; when that entry comes due
    it is moved to the real deadline, and only the real one closes the lobby."""
    svc = service(redis_client, clock=clock)
    driver = Driver(svc, [ANN])
    await driver.ok(ANN, Kind.JOIN)
    first = clock.now + Config().lobby_timeout
    clock.advance(100)
    await driver.ok(ANN, Kind.ADD_AI)
    table = await table_of(redis_client)
    assert table is not None
    assert table.deadline == first + 100
    entries = await redis_client.zrange(keys.timers(CHAT), 0, -1, withscores=True)
    assert [(m.decode(), s) for m, s in entries] == [(CHAT, first)]  # no write for a later one
    clock.now = first + 1
    assert await svc.run_timers("chat") == []
    assert await table_of(redis_client) is not None  # not idle yet: only mended
    entries = await redis_client.zrange(keys.timers(CHAT), 0, -1, withscores=True)
    assert [(m.decode(), s) for m, s in entries] == [(CHAT, first + 100)]
    clock.now = first + 101
    ((chat, outcome),) = await svc.run_timers("chat")
    assert chat == CHAT
    assert "idle" in outcome.messages[0].text
    assert await table_of(redis_client) is None


async def test_a_secret_move_typed_aloud_is_refused_whatever_it_names(
    redis_client: aioredis.Redis,
) -> None:
    """A move typed where everyone reads it (`Request.aloud`) is refused, without reading what
    it names, when the table keeps it secret: a bid in a round of hidden bids, a wings mark. A
    bid typed aloud in an open round is taken; the rules' refusals of moves are `ruled`."""
    svc = service(redis_client, seed=5)
    driver = Driver(svc, [ANN, BOB, CID], seed=5, wings_rate=0)
    await driver.lobby(["rounds=short", "bids=hidden", "wings"])
    state = await game_of(redis_client)
    assert state.round is not None
    assert state.round.rules.bids is BidMode.HIDDEN
    secret = "Bids are secret in this round: bid with the buttons in your private chat with me."
    mark = "Mark your card with the buttons in your private chat with me."
    for user in (ANN, BOB, CID):
        for typed in ("0", "1", "7", "x"):
            outcome = await driver.send(user, Request(Kind.BID, typed, aloud=True), check=False)
            assert (outcome.answer, outcome.alert, outcome.ruled) == (secret, True, False)
        for typed in ("R13", "B1", "Z", ""):
            outcome = await driver.send(user, Request(Kind.WINGS, typed, aloud=True), check=False)
            assert (outcome.answer, outcome.alert, outcome.ruled) == (mark, True, False)
    assert await game_of(redis_client) == state
    outside = await driver.send(DOT, Request(Kind.BID, "0", aloud=True), check=False)
    assert outside.alert
    assert outside.answer != secret
    chat = f"{CHAT}:open"
    driver = Driver(svc, [ANN, BOB, CID], chat=chat, seed=5, wings_rate=0)
    await driver.lobby(["rounds=short"])
    state = await driver.play_until(lambda s: s.phase is Phase.BIDDING)
    assert state.round is not None
    assert state.round.rules.bids is BidMode.OPEN
    turn = state.round.turn
    bidder = next(u for u in driver.humans if u.id == state.players[turn].id)
    other = next(u for u in driver.humans if u is not bidder)
    early = await driver.send(other, Request(Kind.BID, "0", aloud=True), check=False)
    assert early.alert
    assert early.ruled
    taken = await driver.send(bidder, Request(Kind.BID, "0", aloud=True))
    assert not taken.alert
    after = (await game_of(redis_client, chat)).round
    assert after is not None
    assert after.bids[turn] == 0


async def seated(redis_client: aioredis.Redis, people: list[User]) -> tuple[Driver, str]:
    """`people` seated at a short game's lobby, in that order: the driver, and the lobby."""
    driver = Driver(service(redis_client, seed=7), people, seed=7)
    await driver.lobby(["rounds=short"], start=False)
    lobby = driver.screens.group("lobby")
    assert lobby is not None
    return driver, lobby.text


async def test_two_people_called_alike_are_told_apart_at_the_table(
    redis_client: aioredis.Redis,
) -> None:
    """Names are the platform's, and two people may share one: the table numbers the later
    one (`Ann (2)`) wherever it names them, so nobody can pass for another."""
    other = User("tg:99", ANN.name)
    driver, lobby = await seated(redis_client, [ANN, other, BOB])
    assert f"1. {ANN.name} 👑\n2. {ANN.name} (2)\n3. {BOB.name}\n" in lobby
    await driver.ok(ANN, Kind.START)
    table = driver.screens.group()
    assert table is not None
    assert table.text.count(f"{ANN.name} (2)") == 1


async def test_someone_called_like_a_numbered_namesake_is_not_taken_for_one(
    redis_client: aioredis.Redis,
) -> None:
    """A person whose own name is `Ann (2)` sits with two people called Ann: the second Ann is
    numbered past it (`Ann (3)`), so each name at the table is one person's."""
    second, numbered = User("tg:98", ANN.name), User("tg:99", f"{ANN.name} (2)")
    _, lobby = await seated(redis_client, [ANN, numbered, second])
    assert f"1. {ANN.name} 👑\n2. {ANN.name} (2)\n3. {ANN.name} (3)\n" in lobby


# --- a person seated in two chats ----------------------------------------------------------------

OTHER = "chat:-200"


async def seats_of(redis_client: aioredis.Redis, user: User) -> set[str]:
    """The chats of the person's index of live seats."""
    return {member.decode() for member in await redis_client.smembers(keys.seats(user.id))}


async def test_a_person_s_live_seats_are_indexed_as_they_sit_down_and_rise(
    redis_client: aioredis.Redis,
) -> None:
    """Each person's index names the chats where they sit at a lobby or a game in play: a
    join adds the chat, leaving, a closed or cancelled table and the game's end take it out,
    and it follows a chat that moves."""
    svc = service(redis_client)
    here = Driver(svc, [ANN, BOB, CID])
    there = Driver(svc, [ANN, DOT], chat=OTHER)
    await here.lobby(["rounds=short"], start=False)
    await there.lobby(start=False)
    assert await seats_of(redis_client, ANN) == {CHAT, OTHER}
    assert await seats_of(redis_client, DOT) == {OTHER}
    await there.ok(DOT, Kind.LEAVE)
    assert await seats_of(redis_client, DOT) == set()
    await there.ok(ANN, Kind.LEAVE)  # nobody left: the table is closed
    assert await seats_of(redis_client, ANN) == {CHAT}
    await here.ok(ANN, Kind.START)
    assert await seats_of(redis_client, CID) == {CHAT}  # a game in play is a live seat
    await here.play_to_end()
    for user in (ANN, BOB, CID):
        assert await seats_of(redis_client, user) == set(), user
    await there.lobby(ai=1)
    assert await seats_of(redis_client, DOT) == {OTHER}
    await there.ok(ANN, Kind.CANCEL)
    assert await seats_of(redis_client, DOT) == set()
    await there.ok(ANN, Kind.JOIN)
    moved = "chat:-300"
    assert await svc.move_chat(OTHER, moved) == [ANN.id]
    assert await seats_of(redis_client, ANN) == {moved}


def private_texts(outcome: Outcome, user: User) -> list[str]:
    """The texts of the person's private messages (not those that only take buttons off)."""
    return [m.text for m in outcome.messages if m.to == user.id and not m.strip]


async def test_private_messages_name_their_chat_for_a_person_seated_in_another(
    redis_client: aioredis.Redis,
) -> None:
    """While Ann sits in two chats, her private messages of each name its chat (the name a
    request brought, kept by any write it made); Bob, seated in one, sees none named. A chat
    her index names where she has no seat (a crash left it there) names nothing."""
    svc = service(redis_client)
    here = Driver(svc, [ANN, BOB, CID])
    for user in (ANN, BOB, CID):
        await here.send(user, Request(Kind.JOIN, place="Wizards"))
    await here.ok(ANN, Kind.OPTION, "rounds=short")
    # A chat too many in her index (a worker died between its write and the index's): no seat.
    await redis_client.sadd(keys.seats(ANN.id), OTHER)
    started = await here.ok(ANN, Kind.START)
    assert private_texts(started, ANN)
    assert not any("💬" in text for text in private_texts(started, ANN))
    there = Driver(svc, [ANN, DOT], chat=OTHER)
    for user in (ANN, DOT):
        await there.send(user, Request(Kind.JOIN, place="Friday \u202e" + "night " * 9))
    await there.ok(ANN, Kind.ADD_AI)
    friday = await there.ok(ANN, Kind.START)
    mine = private_texts(friday, ANN)
    assert mine
    assert all(text.startswith("💬 \u2068Friday \u202enight night nigh…\u2069 · ") for text in mine)
    assert private_texts(friday, DOT)
    assert not any("💬" in text for text in private_texts(friday, DOT))
    moved = await here.move()
    for user in (ANN, BOB, CID):
        for text in private_texts(moved, user):
            assert text.startswith("💬 \u2068Wizards\u2069 · Round 1 of 5") == (user == ANN), text
    # What a crash or an outage shows again names it too.
    again = await svc.current(CHAT)
    assert all(text.startswith("💬 \u2068Wizards\u2069 · ") for text in private_texts(again, ANN))
    # So once the game is cancelled, what her hand says (shown again after a crash lost it).
    cancelled = await here.ok(ANN, Kind.CANCEL)
    (said,) = private_texts(cancelled, ANN)
    assert said == "💬 \u2068Wizards\u2069 · The game was cancelled."
    (hand,) = [m for m in (await svc.current(CHAT)).messages if m.to == ANN.id]
    assert (hand.strip, hand.behind) == (True, said)


async def test_a_cancelled_games_private_messages_shown_again_are_in_each_persons_language(
    redis_client: aioredis.Redis,
) -> None:
    """A game in a German group, cancelled: each player's hand says so privately in their
    app's language (Ann's English, Dot's Russian), as their hands said the rest, not in the
    group's German; the same when shown again after a crash lost the posts (no table is left
    then, only the note of what they said). Both sit in another chat too: it is named."""
    ann = User(ANN.id, ANN.name, language="en")
    dot = User(DOT.id, DOT.name, language="ru")
    svc = service(redis_client)

    async def ok(chat: str, user: User, request: Request) -> Outcome:
        outcome = await svc.handle(chat, user, request)
        assert not outcome.alert, outcome.answer
        return outcome

    for user in (ann, BOB, dot):
        await ok(CHAT, user, Request(Kind.JOIN, place="Wizards"))
    await ok(CHAT, ann, Request(Kind.LANGUAGE, "de"))
    await ok(CHAT, ann, Request(Kind.START))
    for user in (ann, dot):  # a seat in another chat: her messages of this one name it
        await ok(f"chat:-2{user.id[-1]}", user, Request(Kind.JOIN))
    cancelled = await ok(CHAT, ann, Request(Kind.CANCEL))
    first = {m.to: m.text for m in cancelled.messages if m.to is not None}
    again = {m.to: m.behind for m in (await svc.current(CHAT)).messages if m.to is not None}
    said = "The game was cancelled."
    assert first == {
        ann.id: "💬 \u2068Wizards\u2069 · " + said,
        BOB.id: texts("de")(said),  # the group's language: his app's is not known
        dot.id: "💬 \u2068Wizards\u2069 · " + texts("ru")(said),
    }
    assert again == first


async def test_a_seat_taken_or_left_reads_no_more_chats_than_it_needs(
    redis_client: aioredis.Redis,
) -> None:
    """Ann sits in many chats. A worker that knows none of them seats her in one more: it reads
    one of the others, the first where she sits (one is enough to mark both); her leaving reads
    no more than the two that tell whether one seat is left. Chats her index names where she has
    no seat (a crash left them there) are passed over, and the marks come out as they must."""
    busy = service(redis_client)
    live = [f"chat:-{400 + n}" for n in range(12)]
    for chat in live:
        await Driver(busy, [ANN], chat=chat).ok(ANN, Kind.JOIN)
    stale = [f"chat:-{300 + n}" for n in range(5)]  # no game, and sorted before the live ones
    await redis_client.sadd(keys.seats(ANN.id), *stale)
    fresh = service(redis_client)  # another worker: it knows none of her chats
    read: list[str] = []
    load = fresh.store.load

    async def counted(chat: str, update_id: str | None = None) -> Any:
        read.append(chat)
        return await load(chat, update_id)

    fresh.store.load = counted  # type: ignore[method-assign]
    here = Driver(fresh, [ANN, BOB])
    await here.ok(ANN, Kind.JOIN)
    others = [chat for chat in read if chat != CHAT]
    assert len(others) <= len(stale) + 1, others
    assert ANN.id in (await fresh.store.load(CHAT)).elsewhere
    read.clear()
    await here.ok(ANN, Kind.LEAVE)
    others = [chat for chat in read if chat != CHAT]
    assert len(others) <= len(stale) + 2, others
    for chat in live:
        assert ANN.id in (await fresh.store.load(chat)).elsewhere, chat
    # She leaves all her tables but one: the one left names no chat.
    for chat in live[1:]:
        await Driver(fresh, [ANN], chat=chat).ok(ANN, Kind.LEAVE)
    assert ANN.id not in (await fresh.store.load(live[0])).elsewhere


async def test_a_review_names_its_chat_for_one_another_worker_seated_elsewhere_since(
    redis_client: aioredis.Redis, clock: Clock
) -> None:
    """Ann plays at the Wizards' coach table on one worker; once three rounds ended there, she
    takes a seat in another chat on another worker, which marks her in both chats (a mark
    changes no version). The rounds' reviews come with the first worker's next tick: they name
    the Wizards, as her messages of that chat name it now, though the first worker last wrote
    the chat before the mark (its copy of the chat knew none)."""
    playing = service(redis_client, seed=11, clock=clock)
    driver = Driver(playing, [ANN, BOB, CID], seed=11)
    for user in (ANN, BOB, CID):
        await driver.send(user, Request(Kind.JOIN, place="Wizards"))
    for option in ("rounds=short", "coach"):
        await driver.ok(ANN, Kind.OPTION, option)
    await driver.ok(ANN, Kind.START)
    await driver.play_until(lambda s: s.phase is Phase.BIDDING and s.round.number == 4)
    other = service(redis_client, clock=clock)
    await Driver(other, [ANN, DOT], chat=OTHER).ok(ANN, Kind.JOIN)
    assert ANN.id in (await other.store.load(CHAT)).elsewhere
    await playing.coach.settled()
    shown = await playing.tick("chat")
    mine = [m.text for _, outcome in shown for m in outcome.messages if m.to == ANN.id]
    assert any("📝" in text for text in mine), "random play makes costly decisions in 3 rounds"
    for text in mine:
        assert text.startswith("💬 \u2068Wizards\u2069 · "), text
