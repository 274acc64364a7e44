"""The host's option toggles in their private chat (`/options` there) follow the group's lobby:
every change of what they show (an option set in the group, a seat taken or left, an AI seat
added or taken off, a new host) edits them, only where the host has them; shown again after
a crash, they are brought up to date, or lose their buttons once the lobby is closed (the
service's side: the messages it asks a front end to show)."""

from dataclasses import replace

import redis.asyncio as aioredis
from service_helpers import ANN, BOB, CHAT, CID, DOT, Driver, payloads, service, table_of

from bot.commands import Kind
from bot.messages import OPTIONS, Message, Outcome
from bot.requests import Request, User
from bot.show.i18n import texts


def toggles(outcome: Outcome) -> list[Message]:
    """The messages of `outcome` for a host's private option toggles."""
    return [m for m in outcome.messages if m.slot == OPTIONS]


def followed(outcome: Outcome, host: str = ANN.id) -> Message:
    """The host's toggles in `outcome`, edited to follow the lobby where they have them (no new
    message, no notification) with the toggles of the lobby as it is now."""
    (message,) = toggles(outcome)
    assert message.to == host, message
    assert (message.only_edit, message.notify, message.strip) == (True, False, False), message
    assert message.buttons, message
    return message


async def test_every_change_of_the_lobby_edits_the_hosts_toggles_where_they_are(
    redis_client: aioredis.Redis,
) -> None:
    """Ann hosts: the group's toggles pressed, /options typed in the group, a seat taken, an AI
    seat added and taken off, a seat left: each shows her toggles as the lobby is now, as an
    edit of the message she has, if any (none is sent unasked)."""
    driver = Driver(service(redis_client), [ANN, BOB, CID])
    await driver.lobby(start=False)
    await driver.ok(ANN, Kind.OPTION)  # the group's toggles, in the group: nothing changed
    assert toggles(driver.outcomes[-1]) == []
    (wings,) = [p for p in payloads(driver.outcomes[-1].messages[0]) if p.endswith("wings=on")]
    await driver.press(ANN, wings)
    mine = followed(driver.outcomes[-1])
    assert "✅ wings" in [b.label for row in mine.buttons for b in row], mine.buttons
    await driver.ok(ANN, Kind.OPTION, "rounds=short")
    assert "5 rounds" in followed(driver.outcomes[-1]).text
    await driver.ok(DOT, Kind.JOIN)
    assert f"4. {DOT.name}" in followed(driver.outcomes[-1]).text
    await driver.ok(BOB, Kind.ADD_AI)
    added = followed(driver.outcomes[-1]).text
    assert "5. 🤖" in added, added
    await driver.ok(BOB, Kind.REMOVE_AI)
    assert "5. 🤖" not in followed(driver.outcomes[-1]).text
    await driver.ok(DOT, Kind.LEAVE)
    assert DOT.name not in followed(driver.outcomes[-1]).text


async def test_the_hosts_own_press_edits_the_toggles_pressed_once(
    redis_client: aioredis.Redis,
) -> None:
    """A press on the toggles in the host's private chat shows the change there as an edit of
    the message pressed, once (not a second, edit-only copy)."""
    svc = service(redis_client)
    driver = Driver(svc, [ANN, BOB, CID])
    await driver.lobby(start=False)
    ((_, asked),) = await svc.for_host(ANN.id, ANN, Request(Kind.OPTION))
    (mine,) = toggles(asked)
    assert mine.notify
    assert not mine.only_edit
    (wings,) = [p for p in payloads(mine) if p.endswith("wings=on")]
    ((_, pressed),) = await svc.for_host(ANN.id, ANN, Request(Kind.BUTTON, wings))
    (now,) = toggles(pressed)
    assert not now.notify
    assert not now.only_edit
    assert "wings" in now.text


async def test_a_chat_admins_press_on_toggles_of_their_own_edits_the_hosts_too(
    redis_client: aioredis.Redis,
) -> None:
    """Ann, a chat admin, left the lobby she hosted (Bob hosts now) and presses a toggle of
    hers that an old client still shows: an admin may set the options, and the change shows
    in her toggles (the message pressed) and, where he has them, in Bob's."""
    svc = service(redis_client)
    driver = Driver(svc, [ANN, BOB, CID])
    await driver.lobby(start=False)
    ((_, asked),) = await svc.for_host(ANN.id, ANN, Request(Kind.OPTION))
    (wings,) = [p for p in payloads(toggles(asked)[0]) if p.endswith("wings=on")]
    await driver.ok(ANN, Kind.LEAVE)
    admin = replace(ANN, admin=True)
    pressed = await svc.handle(CHAT, admin, Request(Kind.BUTTON, wings, aside=True))
    assert not pressed.alert, pressed.answer
    bobs, anns = toggles(pressed)
    assert "Options: open bids, all rounds, wings\n" in followed(Outcome((bobs,)), BOB.id).text
    assert (anns.to, anns.only_edit, anns.notify) == (ANN.id, False, False)


async def test_a_new_host_is_sent_nothing_and_the_one_who_left_is_told(
    redis_client: aioredis.Redis,
) -> None:
    """Ann, the host, leaves: Bob hosts now, and his toggles follow the lobby only where he has
    them (he never asked: nothing is sent); Ann's lose their buttons and say why."""
    driver = Driver(service(redis_client), [ANN, BOB, CID])
    await driver.lobby(start=False)
    left = await driver.ok(ANN, Kind.LEAVE)
    bobs, anns = toggles(left)
    assert bobs == followed(Outcome((bobs,)), BOB.id)
    assert "1. Bob 👑" in bobs.text, bobs.text
    assert (anns.to, anns.strip) == (ANN.id, True)
    assert anns.behind == "You left this table, so you no longer host it."


async def test_shown_again_the_hosts_toggles_follow_the_lobby_or_close_with_it(
    redis_client: aioredis.Redis,
) -> None:
    """Shown again after a crash (`GameService.current`): a lobby brings its host's toggles up
    to date where they have them; a game started takes their buttons off (where the start's
    post did not), saying what the lobby says now, since the start; a lobby cancelled takes
    them off too, as the hands of the people its cancel named."""
    svc = service(redis_client)
    driver = Driver(svc, [ANN, BOB, CID])
    await driver.lobby(start=False)
    await driver.ok(ANN, Kind.OPTION, "wings")
    again = await svc.current(CHAT)
    assert again.again
    assert "wings" in followed(again).text
    await driver.ok(BOB, Kind.START)
    table = await table_of(redis_client)
    assert table is not None
    assert table.started is not None
    again = await svc.current(CHAT)
    (closed,) = toggles(again)
    (lobby,) = [m for m in again.messages if m.slot == "lobby"]
    assert (closed.to, closed.strip, closed.since) == (ANN.id, True, table.started)
    assert closed.behind == lobby.text
    assert closed.behind.startswith("🔮 Wizard: the game has started."), closed.behind
    await driver.ok(ANN, Kind.CANCEL)
    await driver.ok(ANN, Kind.JOIN)
    await driver.ok(BOB, Kind.JOIN)
    await driver.ok(ANN, Kind.CANCEL)
    again = await svc.current(CHAT)
    private = [(m.to, m.slot, m.strip) for m in again.messages if m.to is not None]
    assert (ANN.id, OPTIONS, True) in private, private


async def test_a_lobby_whose_chat_is_gone_closes_the_hosts_toggles(
    redis_client: aioredis.Redis,
) -> None:
    """The bot can no longer post in the lobby's chat (removed from the group, the channel
    deleted): the lobby closes, and its host's toggles lose their buttons, saying why (only
    where they have them); the closing write notes them, for a worker that shows it again.
    Each person seated is told in a private message of its own."""
    svc = service(redis_client)
    driver = Driver(svc, [ANN, BOB, CID])
    await driver.lobby(start=False)
    outcome = await svc.unseen(CHAT)
    (closed,) = toggles(outcome)
    assert (closed.to, closed.strip, closed.buttons) == (ANN.id, True, ())
    assert closed.behind is not None
    assert closed.behind.startswith("The table is closed: I can no longer post in its chat")
    told = [m.to for m in outcome.messages if m.slot is None and m.text == closed.behind]
    assert told == [ANN.id, BOB.id, CID.id]
    assert (ANN.id, OPTIONS) in [(m.to, m.slot) for m in (await svc.current(CHAT)).messages]


async def test_the_hosts_toggles_asked_for_after_the_start_are_refused(
    redis_client: aioredis.Redis,
) -> None:
    """Ann asks for her toggles in her private chat (`/options`, nothing after it) just as the
    game starts: she is told, as a setting would be, that the game has started, and nothing is
    shown (the group's closed lobby is not posted anew); /options in the group alike."""
    svc = service(redis_client)
    driver = Driver(svc, [ANN, BOB, CID])
    await driver.lobby(start=False)
    await driver.ok(BOB, Kind.START)
    # what `for_host` does with the lobby it found her hosting, the start come in between
    asked = await svc.handle(CHAT, ANN, Request(Kind.OPTION, aside=True))
    set_ = await svc.handle(CHAT, ANN, Request(Kind.OPTION, "wings", aside=True))
    assert asked.messages == ()
    assert (asked.answer, asked.alert) == (set_.answer, True)
    assert asked.answer == "The game has already started."
    typed = await svc.handle(CHAT, ANN, Request(Kind.OPTION))
    assert (typed.messages, typed.answer) == ((), asked.answer)


async def test_shown_again_the_toggles_of_a_host_who_left_close(
    redis_client: aioredis.Redis,
) -> None:
    """Ann, the host, leaves, and the posts of her leave are lost to a crash: shown again, her
    toggles lose their buttons, saying why, as the lost post did (her leave's write noted them:
    nothing of the table names her any more); the chat's next write forgets them."""
    svc = service(redis_client)
    driver = Driver(svc, [ANN, BOB, CID])
    await driver.lobby(start=False)
    left = await driver.ok(ANN, Kind.LEAVE)
    (_, anns) = toggles(left)
    again = await svc.current(CHAT)
    bobs, closed = toggles(again)
    assert bobs == followed(Outcome((bobs,)), BOB.id)
    assert (closed.to, closed.strip, closed.behind) == (ANN.id, True, anns.behind)
    await driver.ok(DOT, Kind.JOIN)
    assert [m.to for m in toggles(await svc.current(CHAT))] == [BOB.id]


async def test_a_hosts_toggles_closed_by_a_leave_or_a_start_speak_their_language(
    redis_client: aioredis.Redis,
) -> None:
    """In a German group, Ann's app is in English and Bob's in Russian: the toggles of a host
    who leaves say so in the host's own language, and so do the toggles a start closes (what
    the group's lobby says, as the host's private messages are), shown again alike."""
    ann = User(ANN.id, ANN.name, language="en")
    bob = User(BOB.id, BOB.name, language="ru")
    svc = service(redis_client)
    for user in (ann, bob, CID, DOT):
        assert not (await svc.handle(CHAT, user, Request(Kind.JOIN))).alert
    assert not (await svc.handle(CHAT, ann, Request(Kind.LANGUAGE, "de"))).alert
    left = await svc.handle(CHAT, ann, Request(Kind.LEAVE))
    (_, anns) = toggles(left)
    assert anns.behind == "You left this table, so you no longer host it."
    (_, closed) = toggles(await svc.current(CHAT))
    assert closed.behind == anns.behind
    started = await svc.handle(CHAT, bob, Request(Kind.START))
    (bobs,) = toggles(started)
    assert bobs.behind is not None
    assert bobs.behind.startswith(texts("ru")("🔮 Wizard: the game has started.")), bobs.behind
    (again,) = toggles(await svc.current(CHAT))
    assert again.behind == bobs.behind
