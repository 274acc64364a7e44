"""The host sets the table's options from their private chat: `/options` there shows the toggles
of each lobby they host, and a press there changes the option in that chat's lobby as a press in
the group does. Telegram through the fake Bot API server (`tests/test_telegram.py`), each chat
read as its person reads it."""

from typing import Any

import pytest
from fake_telegram import Event, MessageView, User
from service_helpers import NOBODY_HOSTS
from test_telegram import (
    ANN,
    BOB,
    CID,
    DAN,
    FRIDAY,
    GROUP,
    LOBBY_UNSEEN,
    PLAYERS,
    Bot,
    dies_after,
    game_ids,
    seat,
    taken_over,
    tg,
)

from adapters.telegram.ids import chat_key, make_user
from bot.commands import Kind
from bot.messages import Outcome
from bot.requests import Request

__all__ = ["game_ids", "tg"]  # the fixtures these tests use

WIZARDS = "💬 \u2068Wizards\u2069 · "
"""How a private message names the group "Wizards"."""


def toggles(bot: Bot, user: User) -> list[MessageView]:
    """The lobbies' option toggles the person's private chat shows now, oldest first."""
    shown = bot.fake.current_messages(user.id).values()
    return [m for m in shown if "a new table" in m.text and m.keyboard]


async def press(bot: Bot, user: User, message: MessageView, label: str) -> str | None:
    """`user` presses `label` under `message` in their private chat: the refusal, if any."""
    answer = await bot.press_label(user.id, user, message.message_id, label)
    return answer.text if answer.show_alert else None


async def stale(bot: Bot, user: User, message: MessageView, label: str) -> str | None:
    """`user` presses `label` under `message` as it was (their client had not seen it lose its
    buttons): the refusal, if any."""
    data = next(b.callback_data for row in message.keyboard for b in row if b.text == label)
    assert data is not None
    answer = await bot.press(user.id, user, message.message_id, data, stale=True)
    return answer.text if answer.show_alert else None


async def test_the_host_sets_the_options_from_the_private_chat_and_the_game_has_them(
    tg: Bot,
) -> None:
    """Ann hosts the Wizards' lobby. In her private chat /options shows its toggles, the group
    named; each press changes the option in the group's lobby (its message edited in place,
    without toggles) and in her toggles (edited in place). The game starts with them."""
    await seat(tg, short=False)
    lobby = tg.lobby()
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    assert mine.text.startswith(WIZARDS + "🔮 Wizard: a new table"), mine.text
    assert mine.labels[0] == ["Bids: open", "Rounds: standard"], mine.labels
    assert ["Join", "Leave", "Start"] not in mine.labels  # the toggles alone
    # /start starts nothing in a private chat: the line says where it is sent
    assert mine.text.endswith("Ready: any seated player may send /start in its chat."), mine.text
    assert tg.lobby().labels == lobby.labels  # the group's lobby is as it was
    assert await press(tg, ANN, mine, "Rounds: standard") is None
    assert await press(tg, ANN, toggles(tg, ANN)[0], "⬜ notequal") is None
    [mine] = toggles(tg, ANN)
    assert mine.message_id == toggles(tg, ANN)[0].message_id
    assert mine.labels[:2] == [["Bids: open", "Rounds: short"], ["✅ notequal", "⬜ dmmixed"]]
    group = tg.lobby()
    assert group.message_id == lobby.message_id  # edited in place
    assert "Options: open bids, 5 rounds, notequal" in group.text, group.text
    assert group.labels == lobby.labels, group.labels  # no toggles in the group
    await tg.command(ANN.id, ANN, "/options")  # typed again: a new message
    [again] = toggles(tg, ANN)
    assert again.message_id > mine.message_id
    assert tg.fake.current_messages(ANN.id)[mine.message_id].keyboard == ()
    await tg.command(GROUP, BOB, "/start")
    assert tg.table().text.startswith("🔮 Round 1 of 5"), tg.table().text
    closed = tg.fake.current_messages(GROUP)[lobby.message_id].text
    assert "the game has started" in closed, closed
    assert "notequal" in closed, closed
    # Her toggles are out of date now: they lost their buttons, and a press that comes anyway
    # (an old client) is refused, and changes nothing.
    assert tg.fake.current_messages(ANN.id)[again.message_id].keyboard == ()
    # and they say what the group's lobby says now: the game started, with those options
    said = tg.fake.current_messages(ANN.id)[again.message_id].text
    assert said == WIZARDS + closed, said
    refused = await stale(tg, ANN, again, "⬜ dmmixed")
    assert refused == "The game has already started.", refused
    assert "dmmixed" not in tg.fake.current_messages(GROUP)[lobby.message_id].text
    assert tg.real_errors() == []


async def test_one_who_hosts_nothing_is_told_who_may(tg: Bot) -> None:
    """Bob sits at Ann's lobby; Dan sits nowhere: /options in their private chats says who may
    set options, and shows no toggles."""
    await seat(tg)
    tg.fake.start_dm(DAN)
    for user in (BOB, DAN):
        await tg.command(user.id, user, "/options")
        assert tg.fake.last_message(user.id).text == NOBODY_HOSTS
        assert toggles(tg, user) == []


async def closed(bot: Bot, user: User, message: MessageView, says: str) -> None:
    """`user`'s toggles `message` have lost their buttons and say `says` instead, their
    lobby's group named."""
    now = bot.fake.current_messages(user.id)[message.message_id]
    assert now.keyboard == ()
    assert now.text == WIZARDS + says, now.text


async def test_a_press_on_toggles_of_a_host_no_more_or_a_table_gone_is_refused(tg: Bot) -> None:
    """Ann's private toggles, once she is no longer host (she left: Bob hosts now), lose their
    buttons; a press that comes anyway is refused with why, and so once the lobby is cancelled,
    and a forged press; nothing changes."""
    await seat(tg)
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    await tg.command(GROUP, ANN, "/leave")
    before = tg.lobby().text
    await closed(tg, ANN, mine, "You left this table, so you no longer host it.")
    assert await stale(tg, ANN, mine, "⬜ wings") == "Only the host may change the options."
    assert tg.lobby().text == before
    answer = await tg.press(ANN.id, ANN, mine.message_id, "forged", stale=True)
    assert answer.show_alert, answer.text
    assert answer.text == "This button is not one of ours."
    await tg.command(GROUP, BOB, "/options")  # the new host's toggles, in the group
    await tg.command(BOB.id, BOB, "/options")
    [bobs] = toggles(tg, BOB)
    await tg.command(GROUP, BOB, "/cancel")
    await closed(tg, BOB, bobs, "🔮 Wizard: this table was cancelled.")
    refused = await stale(tg, BOB, bobs, "⬜ wings")
    assert refused == "This button belongs to a game that is over.", refused
    assert tg.real_errors() == []


async def test_a_host_of_two_lobbies_gets_the_toggles_of_each_named(tg: Bot) -> None:
    """Ann hosts lobbies in two groups: /options in her private chat shows two sets of toggles,
    each naming its group; a press changes that group's lobby only."""
    tg.fake.add_group(FRIDAY, "Friday", members=[ANN, BOB])
    await seat(tg)
    await tg.command(FRIDAY, ANN, "/join")
    await tg.command(ANN.id, ANN, "/options rounds=tournament")  # two: which? none is set
    wizards, friday = toggles(tg, ANN)
    assert wizards.text.startswith(WIZARDS), wizards.text
    assert friday.text.startswith("💬 \u2068Friday\u2069 · "), friday.text
    assert await press(tg, ANN, friday, "⬜ wings") is None
    shown = tg.fake.current_messages(FRIDAY).values()
    friday_lobby = next(m for m in shown if "new table" in m.text)
    assert "wings" in friday_lobby.text, friday_lobby.text
    assert "wings" not in tg.lobby().text
    assert "tournament" not in tg.lobby().text + friday_lobby.text
    for user in PLAYERS:
        assert tg.fake.last_message(user.id).text != NOBODY_HOSTS


def posted(bot: Bot, user: User) -> list[Event]:
    """What the bot sent or edited in the person's private chat so far."""
    return [e for e in bot.fake.transcript(user.id) if e.kind in ("message", "edit")]


def flat(message: MessageView) -> list[str]:
    """The labels of the message's buttons, row after row."""
    return [label for row in message.labels for label in row]


def the_same(bot: Bot, user: User, message: MessageView) -> MessageView:
    """`user`'s only toggles with buttons now: `message`, edited in place."""
    [now] = toggles(bot, user)
    assert now.message_id == message.message_id
    return now


async def test_the_hosts_toggles_follow_every_change_of_the_lobby_made_in_the_group(
    tg: Bot,
) -> None:
    """Ann has her toggles in her private chat; the lobby changes in the group: she sets an
    option there (typed, then on the group's own toggles), Dan joins, Bob adds an AI player
    and takes it off, Dan leaves. Each change edits her toggles in place (no new message), so
    a press on them sets what it says, from the lobby as it is."""
    await seat(tg)
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    sent = len([e for e in posted(tg, ANN) if e.kind == "message"])
    await tg.command(GROUP, ANN, "/options wings")
    assert "✅ wings" in flat(the_same(tg, ANN, mine))
    await tg.command(GROUP, ANN, "/options")  # the group's own toggles, for the host
    [group] = [m for m in tg.fake.current_messages(GROUP).values() if "⬜ dmmixed" in flat(m)]
    assert not (await tg.press_label(GROUP, ANN, group.message_id, "⬜ dmmixed")).show_alert
    assert "✅ dmmixed" in flat(the_same(tg, ANN, mine))
    tg.fake.start_dm(DAN)
    await tg.idle()
    await tg.command(GROUP, DAN, "/join")
    assert "\n4. Dan\n" in the_same(tg, ANN, mine).text
    await tg.command(GROUP, BOB, "/addbot")
    assert "\n5. 🤖" in the_same(tg, ANN, mine).text
    await tg.command(GROUP, BOB, "/removebot")
    assert "\n5. 🤖" not in the_same(tg, ANN, mine).text
    await tg.command(GROUP, DAN, "/leave")
    now = the_same(tg, ANN, mine)
    assert "Dan" not in now.text, now.text
    assert len([e for e in posted(tg, ANN) if e.kind == "message"]) == sent  # edits only
    assert await press(tg, ANN, now, "✅ wings") is None  # wings off, as it says
    options = next(line for line in tg.lobby().text.splitlines() if line.startswith("Options"))
    assert "dmmixed" in options, options
    assert "wings" not in options, options
    assert tg.real_errors() == []


async def test_toggles_the_host_deleted_are_tried_once_then_never_again(tg: Bot) -> None:
    """Ann deletes her toggles. The lobby's next change tries to edit them (Telegram says the
    message is not found): from then on the slot names no message, so later changes, and a
    cancel a crash left unposted shown again, make no call in her private chat, and nothing
    new is sent there."""
    await seat(tg)
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    tg.fake.delete_message(ANN.id, mine.message_id)
    calls = tg.fake.total_calls(chat_id=ANN.id)
    await tg.command(GROUP, ANN, "/options wings")
    assert tg.fake.total_calls(chat_id=ANN.id) == calls + 1  # the edit, refused
    await tg.command(GROUP, BOB, "/addbot")
    await tg.command(GROUP, BOB, "/removebot")
    await taken_over(tg, await dies_after(tg, ANN, Kind.CANCEL))
    assert tg.fake.total_calls(chat_id=ANN.id) == calls + 1
    assert toggles(tg, ANN) == []
    (refused,) = tg.real_errors()  # the one edit, of the message she deleted
    assert (refused.chat_id, refused.description) == (  # type: ignore[attr-defined]
        ANN.id,
        "Bad Request: message to edit not found",
    )


async def test_a_host_who_never_asked_for_toggles_is_sent_none(tg: Bot) -> None:
    """Ann hosts and never asked for her toggles: the lobby's changes send her nothing in
    private. She asks, then leaves: hers say so and offer nothing from then on, whatever
    changes; Bob, who hosts now, is sent nothing either until he asks, and his then follow."""
    await seat(tg)
    before = posted(tg, ANN)
    await tg.command(GROUP, ANN, "/options wings")
    await tg.command(GROUP, BOB, "/addbot")
    assert posted(tg, ANN) == before
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    bobs = posted(tg, BOB)
    await tg.command(GROUP, ANN, "/leave")
    await tg.command(GROUP, BOB, "/options notequal")
    await tg.command(GROUP, ANN, "/join")
    assert posted(tg, BOB) == bobs
    await closed(tg, ANN, mine, "You left this table, so you no longer host it.")
    assert toggles(tg, ANN) == []
    await tg.command(BOB.id, BOB, "/options")
    [his] = toggles(tg, BOB)
    await tg.command(GROUP, CID, "/removebot")
    assert "🤖" not in the_same(tg, BOB, his).text
    await closed(tg, ANN, mine, "You left this table, so you no longer host it.")
    assert tg.real_errors() == []


async def test_a_change_a_crash_left_unposted_brings_the_hosts_toggles_up_to_date(
    tg: Bot,
) -> None:
    """The worker dies after Ann's /options wings in the group is written, before any post:
    the worker that takes its journal over shows the lobby again, and her toggles with it
    (edited in place). The same for the start: they lose their buttons, and say that the game
    has started, as the group's lobby does."""
    await seat(tg)
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    await taken_over(tg, await dies_after(tg, ANN, Kind.OPTION, "wings"))
    assert "✅ wings" in flat(the_same(tg, ANN, mine))
    lobby = tg.lobby()
    await taken_over(tg, await dies_after(tg, BOB, Kind.START))
    started = tg.fake.message(GROUP, lobby.message_id).text
    assert started.startswith("🔮 Wizard: the game has started."), started
    await closed(tg, ANN, mine, started)
    assert tg.real_errors() == []


async def test_a_cancel_a_crash_left_unposted_takes_the_hosts_toggles_buttons_off(
    tg: Bot,
) -> None:
    """The worker dies after the lobby's /cancel is written, before any post: the cancel noted
    the host's toggles beside the chat's version, with what the lost post made them say, so
    the worker that takes its journal over takes their buttons off as the group's lobby's, and
    they say that the table was cancelled, as the lobby does."""
    await seat(tg)
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    lobby = tg.lobby()
    await taken_over(tg, await dies_after(tg, ANN, Kind.CANCEL))
    assert toggles(tg, ANN) == []
    cancelled = tg.fake.message(GROUP, lobby.message_id)
    assert (cancelled.text, cancelled.keyboard) == ("🔮 Wizard: this table was cancelled.", ())
    await closed(tg, ANN, mine, cancelled.text)
    assert tg.real_errors() == []


async def test_a_leave_a_crash_left_unposted_takes_the_old_hosts_toggles_buttons_off(
    tg: Bot,
) -> None:
    """The worker dies after Ann, the host, leaves the lobby, before any post: her leave noted
    her toggles beside the chat's version (nothing of the table names her any more), so the
    worker that takes its journal over takes their buttons off, saying why, as the lost post
    did; Bob hosts."""
    await seat(tg)
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    await taken_over(tg, await dies_after(tg, ANN, Kind.LEAVE))
    assert toggles(tg, ANN) == []
    await closed(tg, ANN, mine, "You left this table, so you no longer host it.")
    assert "1. Bob Brown 👑" in tg.lobby().text
    assert tg.real_errors() == []


async def test_a_lobby_whose_group_removed_the_bot_closes_the_hosts_toggles(tg: Bot) -> None:
    """Removed from the group while its lobby is open, the bot closes the lobby: Ann's toggles
    in her private chat lose their buttons and say why (a press would be refused)."""
    await seat(tg)
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    tg.fake.kick_bot(GROUP, DAN)
    await tg.idle()
    assert await tg.front.service.table(chat_key(GROUP)) is None
    await closed(tg, ANN, mine, LOBBY_UNSEEN)
    assert tg.real_errors() == []


async def test_toggles_asked_for_as_the_lobby_changes_show_the_change(
    tg: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann's private /options reads her lobby just before Dan joins, and its toggles reach her
    chat just after his join's posts went (which found no toggles of hers to edit): once they
    are delivered, the lobby is read again and her toggles show Dan, edited in place."""
    await seat(tg)
    tg.fake.start_dm(DAN)
    await tg.idle()
    front = tg.front
    for_host = front.service.for_host
    dan = make_user(DAN.id, DAN.first_name, DAN.last_name, False, DAN.language_code)

    async def as_dan_joins(*args: Any) -> list[tuple[str, Outcome]]:
        asked = await for_host(*args)
        group = chat_key(GROUP)  # Dan's join, written and posted before the toggles are queued
        front.show(group, await front.service.handle(group, dan, Request(Kind.JOIN)))
        await front.outbox.flush()  # (else the toggles, queued after its edit, take its place)
        return asked

    monkeypatch.setattr(front.service, "for_host", as_dan_joins)
    await tg.command(ANN.id, ANN, "/options")
    [mine] = toggles(tg, ANN)
    assert "Dan" in mine.text, mine.text
    assert "Dan" in tg.lobby().text, tg.lobby().text
    assert mine.edited  # the toggles as read, then edited to show the join
    assert tg.real_errors() == []
