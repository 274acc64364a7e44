"""Hostile and unlucky input on Discord, end to end through the fake of `tests/test_discord.py`."""

import logging
from typing import Any

import pytest
from fake_discord import ANSWER_WITHIN
from test_discord import Bot, dc, game_ids, people, until

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
