"""Hostile and unlucky input on Discord, end to end through the fake of `tests/test_discord.py`."""

import asyncio
import logging
import re
from typing import Any

import discord
import pytest
from fake_discord import ANSWER_WITHIN, Person, Stored, option_type
from test_discord import Bot, dc, game_ids, people, seat, until

from adapters.discord.ids import chat_key
from bot.store import keys

__all__ = ["dc", "game_ids"]  # the fixtures these tests use


def deliver(bot: Bot, payload: dict[str, Any]) -> None:
    """Hand one gateway payload to the client, as the gateway would, waiting for nothing."""
    bot.front.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["command", "press"])
@pytest.mark.parametrize("why", ["expired", "answered"])
async def test_an_interaction_discord_takes_no_answer_for_is_let_go_quietly(
    dc: Bot, caplog: pytest.LogCaptureFixture, kind: str, why: str
) -> None:
    """Bob joins by /join or by the lobby's Join; Discord refuses the answer: the interaction
    expired (the bot answered after Discord's 3 seconds: 10062), or it was answered already
    (the gateway delivered it twice: 40060). He is seated once; one line is logged, with no
    traceback, and no apology is tried, as Discord would refuse it the same way."""
    caplog.set_level(logging.INFO, "adapters.discord.app")
    ann, bob = people(dc, "Ann", "Bob")
    await dc.command(ann, "join")
    lobby = dc.lobby()
    payload = (
        dc.fake.command(dc.channel, bob, "join")
        if kind == "command"
        else dc.fake.press(dc.channel, bob, lobby, lobby.button("Join"))
    )
    if why == "expired":
        dc.fake.interactions[int(payload["id"])].made -= ANSWER_WITHIN + 1
    else:
        await dc.act(payload)  # the first delivery, answered
    deliver(dc, payload)
    await until(lambda: bool(dc.fake.errors), "Discord refused the answer")
    await until(lambda: "could not answer" in caplog.text, "the refusal logged")
    await dc.idle()
    assert dc.lobby().content.count("Bob") == 1
    assert [code for _, code, _ in dc.fake.errors] == [10062 if why == "expired" else 40060]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert not any(r.exc_info for r in caplog.records)


async def test_a_host_of_many_lobbies_whose_dms_are_closed_is_told_of_each(
    dc: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """Ann hosts a lobby in each of nine channels, and her DMs are closed to the bot: her
    /options in the DMs is answered where each lobby's toggles are, in as many messages as
    it takes (one line a lobby, nine of them are more than a message's 2,000 characters),
    not with an error from Discord and an apology."""
    (ann,) = people(dc, "Ann", closed=("Ann",))
    channels = [dc.channel, *(dc.fake.add_channel(f"room-{n}") for n in range(8))]
    for channel in channels:
        await dc.command(ann, "join", view=channel)
    await dc.command(ann, "options", view=ann.id)
    said = "\n".join(dc.fake.interactions[max(dc.fake.interactions)].line.replies)
    assert [said.count(f"<#{channel}>") for channel in channels] == [2] * 9, said
    assert "(only Ann sees)" in said
    assert [code for _, code, _ in dc.fake.errors] == [50007]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_a_command_this_version_does_not_have_is_answered_so(
    dc: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """Bob types /frobnicate: a command Discord still offers him, though this version of the
    bot does not have it (another version synced it, or his client has not yet seen it go).
    He is told the bot does not understand it, to him alone; no error is logged (it is no
    fault of the bot's), and nothing changes."""
    ann, bob = people(dc, "Ann", "Bob")
    await dc.command(ann, "join")
    before = dc.lobby().content
    payload = dc.fake.command(dc.channel, bob, "join")
    payload["data"] |= {"name": "frobnicate", "id": "42"}
    await dc.act(payload)
    assert dc.last_reply() == "#e2 (only Bob sees) bot: Sorry, I don't understand that command."
    assert dc.lobby().content == before
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert dc.fake.errors == []


async def version(bot: Bot, channel: int) -> Any:
    """The version of the channel's game as stored (every write bumps it)."""
    return await bot.client.hget(keys.game(chat_key(channel)), "v")


def said_to(bot: Bot, view: int, user: Person) -> list[Stored]:
    """The ephemeral messages `user` alone was shown in `view`."""
    return [m for m in bot.fake.shown(view, user) if m.only == user.id]


HOSTILE = {
    "everyone": "@everyone and @here",
    "user mention": "<@{bob}> <@!{bob}>",
    "role mention": "<@&{guild}>",
    "channel mention": "<#{channel}>",
    "command mention": "</join:1>",
    "time": "<t:0:R>",
    "markdown": "**x** `x` ||x|| ~~x~~ __x__ > x",
    "rtl override": "\u202eevil\u202c",
    "joiners": "a\u200d\u200d\u200db",
    "stacked marks": "a" + "\u0301" * 500,
    "too long": "🃏" * 6000,
}
"""Option values typed into a slash command (Discord takes up to 6,000 characters)."""

UNESCAPED = re.compile(r"(?<!\\)<[@#/t]")
"""A mention, a channel, a command or a time, as Discord would show it (not escaped)."""


@pytest.mark.parametrize("value", HOSTILE.values(), ids=HOSTILE.keys())
async def test_hostile_text_in_a_command_is_refused_as_written_and_pings_nobody(
    dc: Bot, value: str
) -> None:
    """The host types hostile text as /removebot's name and /addbot's level: each is refused
    to her alone (the name showing what she typed as written: no mention, channel, command or
    time made of it, markdown escaped; the level answered with the levels there are), pinging
    nobody, and the lobby is as it was."""
    ann, bob = people(dc, "Ann", "Bob")
    await dc.command(ann, "join")
    await dc.command(ann, "addbot")
    before = dc.lobby().content, await version(dc, dc.channel)
    typed = value.format(bob=bob.id, guild=dc.fake.guild, channel=dc.channel)
    await dc.command(ann, "removebot", name=typed)
    await dc.command(ann, "addbot", level=typed)
    answers = said_to(dc, dc.channel, ann)[-2:]
    assert [a.content.split(" ", 3)[:3] for a in answers] == [
        ["No", "AI", "player"],
        ["AI", "levels:", "easy,"],
    ]
    for answer in answers:
        assert answer.allowed_mentions == {"parse": []}, answer.content
        assert not UNESCAPED.search(answer.content), answer.content
        assert "**" not in answer.content
        assert "\u202e" not in answer.content
    assert (dc.lobby().content, await version(dc, dc.channel)) == before
    assert dc.fake.errors == []


NAMES = {
    "zero-width only": "\u200b\u200d\u2060",
    "emoji": "🃏" * 32,
    "rtl override": "\u202eAnn",
    "markdown": "**Ann**",
    "mention": "<@{bob}>",
    "everyone": "@everyone",
    "an AI seat's": "🤖 Merlin",
}
"""Names Discord lets a person have (display names and nicknames are up to 32 characters)."""


async def test_hostile_names_are_shown_as_written_and_ping_nobody(dc: Bot) -> None:
    """People whose names look empty, are all emoji, turn the text around, are markdown, a
    mention, @everyone, or an AI seat's, sit down and start: the lobby and the table show
    each as written (an empty-looking one by their id), escaped, pinging nobody."""
    bob = dc.fake.add_user("Bob")
    folks = [dc.fake.add_user(name.format(bob=bob.id)) for name in NAMES.values()]
    dc.people = folks[:6]
    for user in dc.people:
        await dc.command(user, "join")
    lobby = dc.lobby().content
    assert f"#{folks[0].id}" in lobby
    assert "🃏" * 32 in lobby
    assert "\u202e" not in lobby
    assert "\\*\\*Ann\\*\\*" in lobby
    await dc.command(folks[0], "start")
    for message in dc.fake.shown(dc.channel):
        assert message.allowed_mentions == {"parse": []}, message.content
        assert not UNESCAPED.search(message.content), message.content
    assert dc.fake.errors == []


async def test_a_person_named_as_an_ai_seat_sits_without_its_mark(dc: Bot) -> None:
    """Merlin is called "🤖 Merlin" in the server, an AI seat's look: he sits as "Merlin" (only
    AI seats wear the mark in front), the AI seat added then takes another name than his, and
    /removebot of his name takes nobody off (a person is no AI seat, whatever their name)."""
    merlin, ann = dc.fake.add_user("🤖 Merlin"), dc.fake.add_user("Ann")
    for user in (merlin, ann):
        await dc.command(user, "join")
    await dc.command(ann, "addbot")
    lobby = dc.lobby().content
    assert "1. Merlin 👑\n2. Ann\n3. 🤖 Morgana\n" in lobby
    await dc.command(ann, "removebot", name="🤖 Merlin")
    assert dc.lobby().content == lobby


async def started(bot: Bot) -> list[Person]:
    """Ann, Bob and Cid start a 5-round game in the channel; Dan is in the server, not in it."""
    ann, bob, cid, dan = people(bot, "Ann", "Bob", "Cid", "Dan")
    bot.people = [ann, bob, cid]
    await seat(bot, [ann, bob, cid])
    await bot.command(ann, "start")
    return [ann, bob, cid, dan]


FORGED = {
    "over 100 characters": lambda good: good + "x" * 100,
    "cut short": lambda good: good.rsplit(":", 1)[0],
    "the prefix alone": lambda good: "wz:",
    "a hand button's with no channel": lambda good: "wzh:",
    "a channel that is no number": lambda good: "wz:wizards:" + good.rsplit(":", 1)[1],
}


@pytest.mark.parametrize("forge", FORGED.values(), ids=FORGED.keys())
async def test_a_forged_custom_id_is_refused_wherever_whoever_presses_it(
    dc: Bot, forge: Any
) -> None:
    """A press whose custom id is none of ours, forged from a real one of the game, is
    refused as "not one of ours" to the presser alone, whether a player or not presses it,
    in the channel, in a thread of it or in a DM; nothing else is called, nothing changes."""
    ann, _bob, _cid, dan = await started(dc)
    thread = dc.fake.add_thread("wizards-night")
    table = dc.table()
    hand = dc.hand(ann)
    assert hand is not None
    forged = forge(table.custom_ids()[0])
    before = table.content, await version(dc, dc.channel)
    calls = sum(dc.fake.calls.values())
    places = [(dc.channel, ann, table), (dc.channel, dan, table), (thread, ann, table)]
    for view, user, message in [*places, (ann.id, ann, hand)]:
        await dc.press(view, user, message, forged)
        assert dc.last_reply(view).endswith(
            f"(only {user.name} sees) bot: This button is not one of ours."
        ), dc.last_reply(view)
    assert sum(dc.fake.calls.values()) - calls == 4  # the four answers
    assert (table.content, await version(dc, dc.channel)) == before
    assert dc.fake.errors == []


@pytest.mark.parametrize("first", ["press", "cancel"])
async def test_a_press_racing_cancel_is_taken_or_refused_and_leaves_no_button(
    dc: Bot, first: str
) -> None:
    """The bidder presses a bid in their DM as Ann cancels the game, the two delivered at once
    (either first): the game is cancelled; the press was taken before it, or is refused as
    of a game that is over; the bidder's hand is left with no button, and nothing failed."""
    ann, bob, cid, _dan = await started(dc)
    hands = {user: dc.hand(user) for user in (ann, bob, cid)}
    bidder, hand = next((u, h) for u, h in hands.items() if h and "Your bid?" in h.content)
    press = dc.fake.press(bidder.id, bidder, hand, hand.custom_ids()[0])
    cancel = dc.fake.command(dc.channel, ann, "cancel")
    for payload in (press, cancel) if first == "press" else (cancel, press):
        deliver(dc, payload)
    await asyncio.gather(*(dc.fake.wait_answered(int(p["id"])) for p in (press, cancel)))
    await dc.idle()
    assert any("Ann cancelled the game." in text for text in dc.channel_texts())
    said = " ".join(dc.fake.interactions[int(press["id"])].line.replies)
    assert said == "" or "belongs to a game that is over" in said, said
    assert [m.components for m in dc.fake.shown(bidder.id) if m.components] == []
    assert dc.fake.errors == []


SKEWED = {
    "a name as an integer": ("removebot", "name", 7, "There is no AI player to remove."),
    "a level as a number": (
        "addbot",
        "level",
        2.5,
        "AI levels: easy, normal, hard. E.g. /addbot hard",
    ),
    "a name as a yes/no": ("stats", "name", True, "Nobody called True has played here."),
    "a name as a user": ("stats", "name", "bob", "Bob has not finished a game here yet."),
    "a user as a text": ("stats", "player", "Bob", "Nobody called Bob has played here."),
}
"""A command as another version of the bot synced it, its option of another type than this
version's, a value of that type typed in, and the answer: as if its text had been typed (a
user's, their mention)."""


@pytest.mark.parametrize(
    ("command", "option", "value", "answer"), SKEWED.values(), ids=SKEWED.keys()
)
async def test_a_command_synced_with_an_option_of_another_type_is_read_as_typed(
    dc: Bot, caplog: pytest.LogCaptureFixture, command: str, option: str, value: Any, answer: str
) -> None:
    """During a version sync (workers of both versions running, or a client that kept the
    definition it fetched), Discord sends a command's option in the type the other version
    synced: a number or a yes/no where this version takes text, a user where it takes a
    name, a text where it picks a person. discord.py hands it on as it is, and reading it as
    text failed: an error logged, and "Sorry, something went wrong. Please try again.", which
    could not help. It is read as its text (a user as their mention, which picks them), and
    answered as that would be; the lobby is as it was."""
    ann, bob = people(dc, "Ann", "Bob")
    await dc.command(ann, "join")
    await dc.command(bob, "join")
    before = dc.lobby().content, await version(dc, dc.channel)
    typed = bob if value == "bob" else value
    dc.fake.resync(command, option, option_type(typed))
    await dc.command(ann, command, **{option: typed})
    assert dc.last_reply() == f"#e3 (only Ann sees) bot: {answer}"
    assert (dc.lobby().content, await version(dc, dc.channel)) == before
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert dc.fake.errors == []


def _command(**changes: Any) -> dict[str, Any]:
    """A command as a sync gives it, with `changes`."""
    value = {"name": "value", "type": 3, "description": "A value", "required": False}
    return {"name": "demo", "type": 1, "description": "A demo", "options": [value], **changes}


def _option(**changes: Any) -> dict[str, Any]:
    option = {"name": "value", "type": 3, "description": "A value", "required": False}
    return _command(options=[option | changes])


OVER_LIMITS = {
    "a description of 101": _command(description="x" * 101),
    "an empty localized description": _command(description_localizations={"de": ""}),
    "an option's description of 101": _option(description="x" * 101),
    "26 choices": _option(choices=[{"name": f"c{n}", "value": f"c{n}"} for n in range(26)]),
    "a choice's name of 101": _option(choices=[{"name": "x" * 101, "value": "x"}]),
    "a localized choice of 101": _option(
        choices=[{"name": "x", "value": "x", "name_localizations": {"ko": "가" * 101}}]
    ),
}
"""Command syncs over Discord's limits for an application command (names, descriptions and
choices: 1-100 characters, at most 25 choices)."""


@pytest.mark.parametrize("command", OVER_LIMITS.values(), ids=OVER_LIMITS.keys())
async def test_the_fake_refuses_a_command_sync_over_discord_s_limits(
    dc: Bot, command: dict[str, Any]
) -> None:
    """The fake refuses what Discord would (400, 50035), so the bot's own sync, made as it
    starts in every test and with its descriptions and choices in every language, is known
    to be within them: it was taken."""
    ours = [c["name"] for c in dc.fake.commands]
    assert "options" in ours
    with pytest.raises(discord.HTTPException) as refused:
        await dc.front.client.http.bulk_upsert_global_commands(dc.fake.app_id, [command])
    assert refused.value.code == 50035
    assert [c["name"] for c in dc.fake.commands] == ours
