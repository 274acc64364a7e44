"""Taking an AI seat off a lobby, through the game service against a real redis-server: /removebot
(the last AI seat added, or the one named) and the lobby's button that does it, given by anyone
seated; and every refusal (no AI seat, a name that is no AI seat, someone not seated, the game
already started, a stale or forged button) changes nothing."""

import redis.asyncio as aioredis
from service_helpers import (
    ANN,
    BOB,
    CHAT,
    CID,
    DOT,
    Driver,
    game_of,
    raw,
    refusal,
    service,
    table_of,
)

from bot import tokens
from bot.commands import Kind
from bot.messages import Message, Outcome
from bot.requests import Request, User
from bot.tokens import Action
from engine import ErrorCode

OUT_OF_DATE = "This button is out of date."
NOT_OURS = "This button is not one of ours."
NONE_LEFT = "There is no AI player to remove."


async def refused(driver: Driver, user: User, request: Request, answer: str) -> Outcome:
    """Send `request`: it must be refused with `answer` and change nothing."""
    before = await raw(driver.redis)
    outcome = await driver.svc.handle(CHAT, user, request)
    assert outcome.alert, request
    assert outcome.answer == answer, (request, outcome.answer)
    assert outcome.messages == ()
    assert await raw(driver.redis) == before, request
    return outcome


def lobby_of(outcome: Outcome) -> Message:
    (message,) = [m for m in outcome.messages if m.slot == "lobby"]
    return message


def remove_buttons(message: Message) -> list[tuple[str, str]]:
    """The lobby's buttons that take an AI seat off: (label, payload)."""
    return [
        (button.label, button.payload)
        for row in message.buttons
        for button in row
        if tokens.decode(button.payload).action is Action.REMOVE_AI
    ]


async def seated(driver: Driver) -> list[str]:
    """Who sits at the table, by name, an AI seat's marked `*`."""
    table = await table_of(driver.redis)
    assert table is not None
    return [f"{p.name}{'*' if p.id in table.ai else ''}" for p in table.game.players]


async def test_anyone_seated_takes_the_last_ai_seat_off_by_command_or_button(
    redis_client: aioredis.Redis,
) -> None:
    driver = Driver(service(redis_client), [ANN, BOB])
    await driver.lobby(start=False)
    await driver.ok(ANN, Kind.ADD_AI)
    shown = lobby_of(await driver.ok(ANN, Kind.ADD_AI, "hard"))
    assert await seated(driver) == ["Ann", "Bob", "Merlin*", "Morgana*"]
    # The lobby offers the last AI seat's removal, on a row of its own under the usual two.
    assert [len(row) for row in shown.buttons] == [3, 3, 1]
    ((label, payload),) = remove_buttons(shown)
    assert label == "Remove 🤖 Morgana"
    # Bob, who added neither, types /removebot: the last one added goes.
    shown = lobby_of(await driver.ok(BOB, Kind.REMOVE_AI))
    assert await seated(driver) == ["Ann", "Bob", "Merlin*"]
    table = await table_of(redis_client)
    assert table is not None
    assert table.ai == {"ai:1": "normal"}
    assert "Morgana" not in shown.text
    assert "3 seats free" in shown.text
    ((label, payload),) = remove_buttons(shown)
    assert label == "Remove 🤖 Merlin"
    # The button takes Merlin off; with no AI seat left the lobby has its two rows again.
    shown = lobby_of(await driver.press(BOB, payload))
    assert await seated(driver) == ["Ann", "Bob"]
    assert remove_buttons(shown) == []
    assert [len(row) for row in shown.buttons] == [3, 3]
    assert (await table_of(redis_client)).ai == {}  # type: ignore[union-attr]
    # A seat taken off is free again: the next AI seat added takes the first free name.
    await driver.ok(CID, Kind.JOIN)
    await driver.ok(CID, Kind.ADD_AI)
    assert await seated(driver) == ["Ann", "Bob", "Cid", "Merlin*"]


async def test_the_ai_seat_named_is_taken_off(redis_client: aioredis.Redis) -> None:
    driver = Driver(service(redis_client), [ANN])
    await driver.lobby(start=False)
    for _ in range(3):
        await driver.ok(ANN, Kind.ADD_AI)
    assert await seated(driver) == ["Ann", "Merlin*", "Morgana*", "Nimue*"]
    await driver.ok(ANN, Kind.REMOVE_AI, "morgana")  # as the lobby names it, in any case
    assert await seated(driver) == ["Ann", "Merlin*", "Nimue*"]
    shown = lobby_of(await driver.ok(ANN, Kind.REMOVE_AI, " 🤖 Merlin "))  # copied from the lobby
    assert await seated(driver) == ["Ann", "Nimue*"]
    assert [label for label, _ in remove_buttons(shown)] == ["Remove 🤖 Nimue"]
    # The host's option buttons show in place of the lobby's: no removal among them.
    options = lobby_of(await driver.ok(ANN, Kind.OPTION))
    assert remove_buttons(options) == []
    assert all(len(row) <= 3 for row in options.buttons)


async def test_refusals_change_nothing(redis_client: aioredis.Redis) -> None:
    driver = Driver(service(redis_client), [ANN, BOB])
    await driver.lobby(start=False)
    await refused(driver, ANN, Request(Kind.REMOVE_AI), NONE_LEFT)
    await refused(driver, ANN, Request(Kind.REMOVE_AI, "Merlin"), NONE_LEFT)
    await driver.ok(ANN, Kind.ADD_AI)
    shown = lobby_of(await driver.ok(ANN, Kind.ADD_AI))
    ((_, morgana),) = remove_buttons(shown)
    table = await table_of(redis_client)
    assert table is not None
    gid = table.game_id
    # A name that is no AI seat: a person's, or nobody's.
    for name in ("Ann", "Bob", "Nimue", "ai:1", "1"):
        await refused(
            driver, BOB, Request(Kind.REMOVE_AI, name), f"No AI player here is called {name}."
        )
    # Someone not seated, typed or pressed.
    stranger = "You are not playing at this table."
    await refused(driver, DOT, Request(Kind.REMOVE_AI), stranger)
    await refused(driver, DOT, Request(Kind.BUTTON, morgana), stranger)
    # Forged buttons: no seat number, or one no AI player id carries; another game's.
    for arg in ("", "0", "01", "100", "-1", "x", "ai"):
        await refused(driver, ANN, Request(Kind.BUTTON, f"{gid}.L.d{arg}"), NOT_OURS)
    await refused(
        driver,
        ANN,
        Request(Kind.BUTTON, tokens.lobby("zz9", Action.REMOVE_AI, "2")),
        "This button belongs to a game that is over.",
    )
    # A button of an AI seat that is gone (or never was): out of date.
    await refused(driver, ANN, Request(Kind.BUTTON, f"{gid}.L.d7"), OUT_OF_DATE)
    await driver.press(ANN, morgana)
    await refused(driver, ANN, Request(Kind.BUTTON, morgana), OUT_OF_DATE)
    assert await seated(driver) == ["Ann", "Bob", "Merlin*"]
    # Once the game has started, nothing takes a seat off.
    await driver.ok(ANN, Kind.START)
    started = refusal(ErrorCode.GAME_STARTED)
    merlin = tokens.lobby(gid, Action.REMOVE_AI, "1")
    await refused(driver, ANN, Request(Kind.REMOVE_AI), started)
    await refused(driver, ANN, Request(Kind.REMOVE_AI, "Merlin"), started)
    await refused(driver, BOB, Request(Kind.BUTTON, merlin), started)
    assert len((await game_of(redis_client)).players) == 3
