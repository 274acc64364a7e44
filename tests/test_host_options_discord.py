"""The host sets the table's options from their DMs on Discord: `/options` there shows the toggles
of each lobby they host, and a press there changes the option in that channel's lobby as a press
in the channel does. Through the fake Discord of `tests/test_discord.py`, each view read as its
person reads it."""

from typing import Any

import pytest
from fake_discord import VIEW_CHANNEL, Person, Stored
from service_helpers import NOBODY_HOSTS
from test_discord import (
    Bot,
    dc,
    dies_after,
    game_ids,
    people,
    seat,
    taken_over,
    the_gateway_says,
)

from adapters.discord.ids import chat_key, user_key
from bot.commands import Kind
from bot.messages import Outcome
from bot.requests import Request, User

__all__ = ["dc", "game_ids"]  # the fixtures these tests use

WIZARDS = "💬 \u2068#wizards\u2069 · "
"""How a DM names the channel #wizards."""


def toggles(bot: Bot, user: Person) -> list[Stored]:
    """The lobbies' option toggles the person's DMs show now, oldest first."""
    shown = bot.fake.shown(user.id)
    return [m for m in shown if "a new table" in m.content and m.components]


async def test_the_host_sets_the_options_from_the_dms_and_the_game_has_them(dc: Bot) -> None:
    """Ann hosts the #wizards lobby. In her DMs /options shows its toggles, the channel named;
    each press changes the option in the channel's lobby (edited in place, without toggles)
    and in her toggles (edited in place). The game starts with them; her toggles, pressed
    then, are refused and change nothing."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    for user in (ann, bob, cid):
        await dc.command(user, "join")
    lobby = dc.lobby()
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    assert mine.content.startswith(WIZARDS + "🔮 Wizard: a new table"), mine.content
    assert mine.labels()[0] == ["Bids: open", "Rounds: standard"], mine.labels()
    assert ["Join", "Leave", "Start"] not in mine.labels()  # the toggles alone
    assert mine.content.endswith("Ready: any seated player may send /start in its chat.")
    await dc.press_label(ann.id, ann, mine, "Rounds: standard")
    await dc.press_label(ann.id, ann, toggles(dc, ann)[0], "⬜ notequal")
    [now] = toggles(dc, ann)
    assert now.id == mine.id  # edited in place
    assert now.labels()[:2] == [["Bids: open", "Rounds: short"], ["✅ notequal", "⬜ dmmixed"]]
    group = dc.lobby()
    assert group.id == lobby.id
    assert "Options: open bids, 5 rounds, notequal" in group.content, group.content
    assert group.labels() == lobby.labels(), group.labels()  # no toggles in the channel
    dmmixed = now.button("⬜ dmmixed")  # kept, as an old client would show it
    await dc.command(bob, "start")
    assert dc.table().content.startswith("🔮 Round 1 of 5"), dc.table().content
    assert toggles(dc, ann) == []  # they lost their buttons at the start
    # and say what the channel's lobby says now: the game started, with those options
    [said] = [m for m in dc.fake.shown(ann.id) if m.id == mine.id]
    [closed] = [m for m in dc.fake.shown(dc.channel) if m.id == lobby.id]
    assert said.content == WIZARDS + closed.content, said.content
    assert "the game has started" in said.content, said.content
    before = [m.content for m in dc.fake.shown(dc.channel)]
    await dc.press(ann.id, ann, now, dmmixed)  # an old client's press
    # Discord sends a press with the message as it is now: its button is not on it any more
    assert "not one of ours" in dc.last_reply(ann.id), dc.last_reply(ann.id)
    assert [m.content for m in dc.fake.shown(dc.channel)] == before
    assert dc.fake.errors == []


async def test_options_may_be_typed_in_the_dms_and_the_command_is_offered_there(dc: Bot) -> None:
    """/options is offered in DMs as /stats is; one who hosts nothing is told who may; the
    host's typed setting applies to the one lobby they host."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    synced = {command["name"]: command for command in dc.fake.commands}

    def where(name: str) -> dict[str, object]:
        return {k: v for k, v in synced[name].items() if k in ("dm_permission", "contexts")}

    assert where("options") == where("stats"), (where("options"), where("join"))
    for user in (ann, bob):
        await dc.command(user, "join")
    for user in (bob, cid):
        await dc.command(user, "options", view=user.id)
        assert NOBODY_HOSTS in dc.fake.texts(user.id)[-1], dc.fake.texts(user.id)
        assert toggles(dc, user) == []
    await dc.command(ann, "options", view=ann.id, setting="wings")
    assert "wings" in dc.lobby().content, dc.lobby().content
    [mine] = toggles(dc, ann)
    assert ["⬜ foresight", "✅ wings"] in mine.labels(), mine.labels()


async def test_a_press_on_toggles_of_a_host_no_more_or_a_table_gone_is_refused(dc: Bot) -> None:
    """Ann's toggles in her DMs, once she left the lobby (Bob hosts it now), lose their buttons,
    and a press that comes anyway is refused, and so Bob's once the lobby is cancelled; nothing
    changes. (Discord sends a press with the message as it is now, without the button: it is
    refused as none of ours before the game is asked. The reasons the game gives are those of
    the Telegram tests, `tests/test_host_options.py`.)"""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    for user in (ann, bob, cid):
        await dc.command(user, "join")
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    wings = mine.button("⬜ wings")  # kept, as an old client would show it
    await dc.command(ann, "leave")
    assert toggles(dc, ann) == []
    before = dc.lobby().content
    await dc.press(ann.id, ann, mine, wings)
    assert "not one of ours" in dc.last_reply(ann.id), dc.last_reply(ann.id)
    assert dc.lobby().content == before
    await dc.command(bob, "options", view=bob.id)
    [bobs] = toggles(dc, bob)
    wings = bobs.button("⬜ wings")
    await dc.command(bob, "cancel")
    assert toggles(dc, bob) == []
    await dc.press(bob.id, bob, bobs, wings)
    assert "not one of ours" in dc.last_reply(bob.id), dc.last_reply(bob.id)
    assert dc.fake.errors == []


def the_same(bot: Bot, user: Person, message: Stored) -> Stored:
    """`user`'s only toggles with buttons now: `message`, edited in place."""
    [now] = toggles(bot, user)
    assert now.id == message.id
    return now


def flat(message: Stored) -> list[str]:
    """The labels of the message's buttons, row after row."""
    return [label for row in message.labels() for label in row]


async def test_the_hosts_toggles_follow_every_change_of_the_lobby_made_in_the_channel(
    dc: Bot,
) -> None:
    """Ann has her toggles in her DMs; the lobby changes in the channel: she sets an option
    there (typed, then on the channel's own toggles), Dan joins, Bob adds an AI player and
    takes it off, Dan leaves. Each change edits her toggles in place (no new message), so a
    press on them sets what it says, from the lobby as it is."""
    ann, bob, cid, dan = people(dc, "Ann", "Bob", "Cid", "Dan")
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    sent = len(dc.fake.shown(ann.id))
    await dc.command(ann, "options", setting="wings")
    assert "✅ wings" in flat(the_same(dc, ann, mine))
    await dc.command(ann, "options")  # the channel's own toggles, for the host
    [group] = [m for m in dc.fake.shown(dc.channel, ann) if "⬜ dmmixed" in flat(m)]
    await dc.press_label(dc.channel, ann, group, "⬜ dmmixed")
    assert "✅ dmmixed" in flat(the_same(dc, ann, mine))
    await dc.command(dan, "join")
    assert "\n4. Dan\n" in the_same(dc, ann, mine).content
    await dc.command(bob, "addbot")
    assert "\n5. 🤖" in the_same(dc, ann, mine).content
    await dc.command(bob, "removebot")
    assert "\n5. 🤖" not in the_same(dc, ann, mine).content
    await dc.command(dan, "leave")
    now = the_same(dc, ann, mine)
    assert "Dan" not in now.content, now.content
    assert len(dc.fake.shown(ann.id)) == sent  # edits only
    await dc.press_label(ann.id, ann, now, "✅ wings")  # wings off, as it says
    options = next(line for line in dc.lobby().content.splitlines() if "Options" in line)
    assert "dmmixed" in options, options
    assert "wings" not in options, options
    assert dc.fake.errors == []


async def test_a_host_who_never_asked_for_toggles_is_sent_none(dc: Bot) -> None:
    """Ann hosts and never asked for her toggles: the lobby's changes send her nothing in her
    DMs. She asks, then leaves: hers say so and offer nothing from then on, whatever changes;
    Bob, who hosts now, is sent nothing either until he asks, and his then follow."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, [ann, bob, cid])
    before = list(dc.fake.texts(ann.id))
    await dc.command(ann, "options", setting="wings")
    await dc.command(bob, "addbot")
    assert dc.fake.texts(ann.id) == before
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    bobs = list(dc.fake.texts(bob.id))
    await dc.command(ann, "leave")
    await dc.command(bob, "options", setting="notequal")
    await dc.command(ann, "join")
    assert dc.fake.texts(bob.id) == bobs
    left = WIZARDS + "You left this table, so you no longer host it."
    assert (mine.content, mine.components) == (left, [])
    await dc.command(bob, "options", view=bob.id)
    [his] = toggles(dc, bob)
    await dc.command(cid, "removebot")
    assert "🤖" not in the_same(dc, bob, his).content
    assert (mine.content, mine.components) == (left, [])
    assert dc.fake.errors == []


async def test_a_change_a_crash_left_unposted_brings_the_hosts_toggles_up_to_date(
    dc: Bot,
) -> None:
    """The worker dies after Ann's /options wings in the channel is written, before any post:
    the worker that takes its journal over shows the lobby again, and her toggles in her DMs
    with it (edited in place). The same for the start: they lose their buttons, and say that
    the game has started, as the channel's lobby does."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    await taken_over(dc, await dies_after(dc, ann, Kind.OPTION, "wings"))
    assert "✅ wings" in flat(the_same(dc, ann, mine))
    lobby = dc.lobby()
    await taken_over(dc, await dies_after(dc, bob, Kind.START))
    assert lobby.content.startswith("🔮 Wizard: the game has started."), lobby.content
    assert (mine.content, mine.components) == (WIZARDS + lobby.content, [])
    assert dc.fake.errors == []


async def test_toggles_the_host_deleted_are_tried_once_then_never_again(dc: Bot) -> None:
    """Ann deletes her toggles. The lobby's next change tries to edit them (Discord answers
    404 Unknown Message): from then on the slot names no message, so later changes, and a
    cancel a crash left unposted shown again, try them no more."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    del dc.fake.messages[mine.id]
    await dc.command(ann, "options", setting="wings")
    await dc.command(bob, "addbot")
    await dc.command(bob, "removebot")
    await taken_over(dc, await dies_after(dc, ann, Kind.CANCEL))
    assert [code for _route, code, _said in dc.fake.errors] == [10008]  # the one edit tried
    assert toggles(dc, ann) == []


async def test_a_cancel_a_crash_left_unposted_takes_the_hosts_toggles_buttons_off(
    dc: Bot,
) -> None:
    """The worker dies after the lobby's /cancel is written, before any post: the cancel noted
    the host's toggles beside the channel's version, with what the lost post made them say,
    so the worker that takes its journal over takes their buttons off as the channel's
    lobby's, and they say that the table was cancelled, as the lobby does."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    lobby = dc.lobby()
    await taken_over(dc, await dies_after(dc, ann, Kind.CANCEL))
    assert toggles(dc, ann) == []
    assert (lobby.content, lobby.components) == ("🔮 Wizard: this table was cancelled.", [])
    assert (mine.content, mine.components) == (WIZARDS + lobby.content, [])
    assert dc.fake.errors == []


async def test_a_leave_a_crash_left_unposted_takes_the_old_hosts_toggles_buttons_off(
    dc: Bot,
) -> None:
    """The worker dies after Ann, the host, leaves the lobby, before any post: her leave noted
    her toggles beside the channel's version (nothing of the table names her any more), so
    the worker that takes its journal over takes their buttons off, saying why, as the lost
    post did."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    await taken_over(dc, await dies_after(dc, ann, Kind.LEAVE))
    assert toggles(dc, ann) == []
    left = "You left this table, so you no longer host it."
    assert (mine.content, mine.components) == (WIZARDS + left, [])
    assert dc.fake.errors == []


async def test_a_lobby_whose_channel_is_gone_closes_the_hosts_toggles(dc: Bot) -> None:
    """The lobby's channel is deleted while it is open: the lobby closes, and Ann's toggles
    in her DMs lose their buttons and say why (a press would be refused)."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    the_gateway_says(dc, "GUILD_CREATE", dc.fake.guild_create())
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    the_gateway_says(dc, "CHANNEL_DELETE", dc.fake.channel_delete(dc.channel))
    await dc.idle()
    assert await dc.front.service.table(chat_key(dc.channel)) is None
    gone = "The table is closed: I can no longer post in its chat (I was removed, or it is gone)."
    assert mine.components == []
    assert mine.content.endswith("\u2069 · " + gone), mine.content  # the channel named first
    assert dc.fake.errors == []


async def test_a_lobby_where_the_bot_may_no_longer_post_closes_and_its_people_are_told(
    dc: Bot,
) -> None:
    """View Channel is taken from the bot in the lobby's channel, and this worker's cache does
    not know (its gateway has not described the guild): Ann's press on her toggles in her DMs
    is taken, and the lobby's edit in the channel is refused (Missing Access, 50001). No
    lobby can be shown there: the table closes, her toggles lose their buttons and say why,
    and each person seated is told in their DMs, as when the bot is muted on Telegram."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid")
    await seat(dc, [ann, bob, cid])
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    dc.fake.app_permissions &= ~VIEW_CHANNEL
    await dc.press_label(ann.id, ann, mine, "⬜ notequal")
    await dc.idle()
    assert await dc.front.service.table(chat_key(dc.channel)) is None
    muted = "The table is closed: I am no longer allowed to send messages in its chat."
    assert mine.components == []
    assert mine.content.endswith("\u2069 · " + muted), mine.content
    for user in (ann, bob, cid):
        assert dc.fake.last(user.id).content.endswith(muted), dc.fake.last(user.id).content


CLOSED = "your DMs are closed"


async def test_a_host_whose_dms_are_closed_is_told_where_the_toggles_are(dc: Bot) -> None:
    """Ann hosts the #wizards lobby and her DMs are closed to the bot: her /options in the DMs
    cannot send her toggles there (Discord refuses them). She is told so, as the command's
    own answer, shown to her alone (which Discord shows whatever her DMs take): where to set
    the options instead (/options in the channel, whose lobby then shows the toggles) and how
    to open her DMs; not "Done". Again the same once the refusal is known (nothing tried);
    nothing was posted in the channel meanwhile."""
    ann, bob, cid = people(dc, "Ann", "Bob", "Cid", closed=("Ann",))
    for user in (ann, bob, cid):
        await dc.command(user, "join")
    before = dc.fake.texts(dc.channel)
    for _ in range(2):
        await dc.command(ann, "options", view=ann.id)
        [said] = [m for m in dc.fake.shown(ann.id, ann) if m.only == ann.id][-1:]
        assert CLOSED in said.content, said.content
        assert f"<#{dc.channel}>" in said.content, said.content
        assert "Done" not in dc.last_reply(ann.id), dc.last_reply(ann.id)
    assert [e[1] for e in dc.fake.errors] == [50007]  # tried once
    assert dc.fake.texts(dc.channel) == before
    await dc.command(ann, "options")  # where she is sent
    assert "⬜ wings" in flat(dc.lobby())


async def test_toggles_asked_for_as_the_lobby_changes_show_the_change(
    dc: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann's /options in her DMs reads her lobby just before Dan joins, and its toggles reach
    her DMs just after his join's posts went (which found no toggles of hers to edit): once
    they are delivered, the lobby is read again and her toggles show Dan, in the same message
    (as `tests/test_host_options.py` shows on Telegram)."""
    ann, bob, cid, dan = people(dc, "Ann", "Bob", "Cid", "Dan")
    await seat(dc, [ann, bob, cid])
    front = dc.front
    for_host = front.service.for_host
    joins = User(user_key(dan.id), dan.name)

    async def as_dan_joins(*args: Any) -> list[tuple[str, Outcome]]:
        asked = await for_host(*args)
        channel = chat_key(dc.channel)  # Dan's join, written and posted before the toggles
        await front.show(channel, await front.service.handle(channel, joins, Request(Kind.JOIN)))
        await front.outbox.flush()  # (else the toggles, queued after its edit, take its place)
        return asked

    monkeypatch.setattr(front.service, "for_host", as_dan_joins)
    await dc.command(ann, "options", view=ann.id)
    [mine] = toggles(dc, ann)
    assert "\n4. Dan\n" in mine.content, mine.content
    assert "\n4. Dan\n" in dc.lobby().content, dc.lobby().content
    assert len([m for m in dc.fake.shown(ann.id) if "a new table" in m.content]) == 1
    assert dc.fake.errors == []
