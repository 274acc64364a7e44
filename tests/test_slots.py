"""The slot map in Redis: which message shows a slot, and the version a slot shows, so that
several workers never show an older state after a newer one (a real redis-server)."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

from adapters import slots as slots_module
from adapters.slots import Adopted, Superseded
from adapters.telegram.ids import chat_key
from adapters.telegram.slots import Slots
from bot.store import keys
from bot.store.redis_server import RedisServer

GROUP = -100123
TABLE = "tg:-100123:table"


async def test_a_slot_remembers_its_message_and_game(redis_client: aioredis.Redis) -> None:
    slots = Slots(redis_client)
    await slots.set(GROUP, TABLE, 17)
    assert await slots.get(GROUP, TABLE) == 17
    token = await slots.claim(GROUP, TABLE, ("g1", 3))
    assert token is not None
    await slots.release(GROUP, TABLE, token)
    # the version and hold fields are not messages
    assert await slots.game_of(GROUP, 17) == "tg:-100123"
    assert await slots.game_of(GROUP, 3) == "tg:-100123"  # an older message: the only game


async def test_a_superseded_message_comes_with_what_it_shows_once_left_behind(
    redis_client: aioredis.Redis,
) -> None:
    """A hand posted with buttons and a text for once it is left behind: the next message of
    the slot names it with that text (a message without such a text, none; one without
    buttons, nothing to take off)."""
    slots = Slots(redis_client)
    hand = "tg:-100123:hand"

    async def sent(message: int, version: int, keys: bool, behind: str | None) -> object:
        """A new message of the slot, as a sender posts it: recorded while the slot is held,
        its buttons (and text once left behind) said when it is let go."""

        async def send() -> Superseded | None:
            return await slots.set(GROUP, hand, message, ("g1", version))

        return await slots.post(GROUP, hand, ("g1", version), False, send, None, keys, behind)

    assert await sent(20, 1, True, "Your hand: 🔷2 ⭐12") is None
    assert await sent(21, 2, True, None) == Superseded(20, "Your hand: 🔷2 ⭐12")
    assert await sent(22, 3, False, "never shown") == Superseded(21, None)
    assert await sent(23, 4, True, None) is None  # 22 has no buttons to take off


async def test_an_older_version_is_dropped_and_a_new_game_starts_afresh(
    redis_client: aioredis.Redis,
) -> None:
    slots = Slots(redis_client)
    token = await slots.claim(GROUP, TABLE, ("g1", 5))
    assert token is not None
    await slots.release(GROUP, TABLE, token, ("g1", 5))
    assert await slots.claim(GROUP, TABLE, ("g1", 4)) is None  # older: skip it
    same = await slots.claim(GROUP, TABLE, ("g1", 5))  # the same state again (/hand): shown
    assert same is not None
    await slots.release(GROUP, TABLE, same, ("g1", 5))
    fresh = await slots.claim(GROUP, TABLE, ("g2", 1))  # another game's versions start anew
    assert fresh is not None
    await slots.release(GROUP, TABLE, fresh, ("g2", 1))
    assert await slots.claim(GROUP, TABLE, ("g1", 9)) is not None  # ids are not ordered


async def test_posts_for_a_slot_wait_for_each_other(redis_client: aioredis.Redis) -> None:
    """Worker A holds the slot while it posts version 5; worker B's version 6 waits, then
    goes; a version 4 that comes after is dropped. B never posts before A is done."""
    a, b = Slots(redis_client), Slots(redis_client)
    held = await a.claim(GROUP, TABLE, ("g1", 5))
    assert held is not None
    waiting = asyncio.create_task(b.claim(GROUP, TABLE, ("g1", 6)))
    await asyncio.sleep(0.1)
    assert not waiting.done()
    await a.release(GROUP, TABLE, held)
    token = await asyncio.wait_for(waiting, 2)
    assert token is not None
    await b.release(GROUP, TABLE, token, ("g1", 6))
    assert await a.claim(GROUP, TABLE, ("g1", 4)) is None


async def test_a_crashed_workers_hold_runs_out(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(slots_module, "HOLD_MS", 200)
    slots = Slots(redis_client)
    assert await slots.claim(GROUP, TABLE, ("g1", 1)) is not None  # never released
    token = await asyncio.wait_for(slots.claim(GROUP, TABLE, ("g1", 2)), 2)
    assert token is not None


async def test_buttons_come_off_again_only_where_they_may_be_left(
    redis_client: aioredis.Redis,
) -> None:
    """A bare post shown again (a chat whose game is gone, at version 7) takes the buttons off
    a slot's message only if it may have some and shows no later version of the chat, of any
    game; the slot is held meanwhile, and the message has none after."""
    slots = Slots(redis_client)
    stripped: list[int] = []

    async def strip(message: int, _behind: str | None) -> str:
        stripped.append(message)
        return "edited"

    async def shown(message: int, version: tuple[str, int], keys: bool) -> None:
        async def send() -> None:
            await slots.set(GROUP, TABLE, message, version)

        await slots.post(GROUP, TABLE, version, False, send, None, keys)

    assert await slots.unbutton(GROUP, TABLE, 7, strip) is None  # no message
    await slots.set(GROUP, TABLE, 30)
    assert await slots.unbutton(GROUP, TABLE, 7, strip) is None  # no post said what it shows
    await shown(31, ("g1", 5), keys=False)
    assert await slots.unbutton(GROUP, TABLE, 7, strip) is None  # no buttons
    assert stripped == []
    await shown(32, ("g1", 6), keys=True)
    assert await slots.unbutton(GROUP, TABLE, 7, strip) == "edited"
    assert stripped == [32]
    assert await slots.buttoned(GROUP, TABLE) is None
    assert await slots.unbutton(GROUP, TABLE, 7, strip) is None  # once
    await shown(33, ("g2", 8), keys=True)  # let go of: the next game posts
    assert await slots.unbutton(GROUP, TABLE, 7, strip) is None  # a game begun since
    assert stripped == [32]


async def test_a_post_that_says_something_again_edits_a_slot_its_lost_post_left_behind(
    redis_client: aioredis.Redis,
) -> None:
    """A bare post shown again that says what the lost post said (`Message.behind`: a chat
    whose game a crash left cancelled at version 7) edits a slot's message that has no buttons
    too, if it shows an older version (the lost post never reached it: a hand not asked for
    anything), once; not one that shows version 7 (the post went through) or a later one, nor
    one of another game than the post's (where it has one: a lobby closed since a start)."""
    slots = Slots(redis_client)
    stripped: list[int] = []

    async def strip(message: int, behind: str | None) -> str:
        assert behind == "cancelled"
        stripped.append(message)
        return "edited"

    async def shown(message: int, version: tuple[str, int]) -> None:
        async def send() -> None:
            await slots.set(GROUP, TABLE, message, version)

        await slots.post(GROUP, TABLE, version, False, send, None, False)

    await shown(31, ("g1", 5))
    assert await slots.unbutton(GROUP, TABLE, 7, strip) is None  # it says nothing new
    assert await slots.unbutton(GROUP, TABLE, 7, strip, "cancelled", "g0") is None  # g1's
    assert await slots.unbutton(GROUP, TABLE, 7, strip, behind="cancelled") == "edited"
    assert await slots.shown(GROUP, TABLE) == ("g1", 7)
    assert await slots.unbutton(GROUP, TABLE, 7, strip, behind="cancelled") is None  # once
    assert stripped == [31]
    await shown(32, ("g1", 7))  # the post went through
    assert await slots.unbutton(GROUP, TABLE, 7, strip, behind="cancelled") is None
    await shown(33, ("g2", 8))  # a game begun since
    assert await slots.unbutton(GROUP, TABLE, 7, strip, behind="cancelled") is None
    assert stripped == [31]


async def test_a_post_shown_again_says_something_only_in_a_message_of_its_game(
    redis_client: aioredis.Redis,
) -> None:
    """A bare post shown again whose note names its game (`g2`, cancelled at version 7) edits
    a message of that game to say what the lost post said; one of another game (`g1`: the post
    that was to make g2's never went through either) keeps its text: with buttons left, it
    loses only those, and without, it is left alone."""
    slots = Slots(redis_client)
    edits: list[tuple[int, str | None]] = []

    async def strip(message: int, behind: str | None) -> str:
        edits.append((message, behind))
        return "edited"

    async def shown(message: int, version: tuple[str, int], keys: bool) -> None:
        async def send() -> None:
            await slots.set(GROUP, TABLE, message, version)

        await slots.post(GROUP, TABLE, version, False, send, None, keys)

    await shown(31, ("g1", 5), keys=False)
    assert await slots.unbutton(GROUP, TABLE, 7, strip, "cancelled", "g2") is None
    await shown(32, ("g1", 6), keys=True)
    assert await slots.unbutton(GROUP, TABLE, 7, strip, "cancelled", "g2") == "edited"
    assert await slots.unbutton(GROUP, TABLE, 7, strip, "cancelled", "g2") is None  # once
    await shown(33, ("g2", 6), keys=False)
    assert await slots.unbutton(GROUP, TABLE, 7, strip, "cancelled", "g2") == "edited"
    assert edits == [(32, None), (33, "cancelled")]


async def test_a_slot_whose_message_is_gone_names_none_and_is_not_tried_again(
    redis_client: aioredis.Redis,
) -> None:
    """The platform said the slot's message is gone (a person deleted it): the slot names no
    message, so neither a post shown again (`unbutton`) nor one that may only edit tries it
    again, and a message the slot names since is not forgotten for it."""
    slots = Slots(redis_client)
    edits: list[int] = []

    async def strip(message: int, _behind: str | None) -> str:
        edits.append(message)
        return "edited"

    async def post(version: int, only_edit: bool = True) -> str | None:
        async def send() -> str:
            return "edited"

        return await slots.post(
            GROUP, TABLE, ("g1", version), False, send, "", True, only_edit=only_edit
        )

    await slots.set(GROUP, TABLE, 40, ("g1", 2))
    assert await post(2, only_edit=False) == "edited"
    await slots.gone(GROUP, TABLE, 40)
    assert await slots.get(GROUP, TABLE) is None
    assert await post(3) is None  # nothing to edit
    assert await slots.unbutton(GROUP, TABLE, 7, strip, "cancelled", "g1") is None
    assert edits == []
    await slots.set(GROUP, TABLE, 41, ("g1", 4))
    await slots.gone(GROUP, TABLE, 40)  # told late: the slot's message is another now
    assert await slots.get(GROUP, TABLE) == 41


async def test_an_edit_only_post_goes_only_where_the_slots_message_may_have_buttons(
    redis_client: aioredis.Redis,
) -> None:
    """A post that may only edit (`Message.only_edit`: a host's toggles following their
    lobby) is made where the slot has a message that may still have buttons, and nowhere
    else: no message yet, or one that lost its buttons, and nothing is posted or recorded."""
    slots = Slots(redis_client)
    toggles = "tg:-100123:options"
    made: list[int] = []

    async def post(version: int, keys: bool = True, only_edit: bool = True) -> str | None:
        async def send() -> str:
            made.append(version)
            return "edited"

        return await slots.post(
            GROUP, toggles, ("g1", version), False, send, "", keys, only_edit=only_edit
        )

    assert await post(1) is None  # never asked for
    assert made == []
    assert await slots.shown(GROUP, toggles) is None
    await slots.set(GROUP, toggles, 40, ("g1", 2))
    assert await post(2, only_edit=False) == "edited"  # asked for: a message with buttons
    assert await post(3) == "edited"
    assert await post(4, keys=False) == "edited"  # it loses them (the lobby closed)
    assert await post(5) is None
    assert made == [2, 3, 4]
    assert await slots.shown(GROUP, toggles) == ("g1", 4)


async def test_a_slot_shows_a_version_only_once_the_platform_took_it(
    redis_client: aioredis.Redis,
) -> None:
    """A post that failed (or a worker that died while posting) leaves the slot as it was, so
    what is shown again after a crash finds it behind; what was shown is not posted again."""
    slots = Slots(redis_client)
    async with slots.hold(GROUP, TABLE, ("g1", 3)) as held:
        assert held is not None
        held.shown = True
    with pytest.raises(RuntimeError):
        async with slots.hold(GROUP, TABLE, ("g1", 4)) as held:
            raise RuntimeError("the platform is away")
    async with slots.hold(GROUP, TABLE, ("g1", 3), again=True) as held:
        assert held is None  # shown already: not again
    async with slots.hold(GROUP, TABLE, ("g1", 4), again=True) as held:
        assert held is not None  # behind: shown again
        held.shown = True
    async with slots.hold(GROUP, TABLE, ("g1", 4), again=True) as held:
        assert held is None
    async with slots.hold(GROUP, TABLE, ("g1", 4)) as held:
        assert held is not None  # asked for anew (/hand): shown


async def test_a_refused_slot_tells_the_post_that_goes_through_once(
    redis_client: aioredis.Redis,
) -> None:
    """A private chat refused a post for a slot: the next post for it that goes through, made
    by any worker, is told (by the release it makes anyway) and the mark goes; a post that
    failed leaves it, and a slot never refused tells nothing."""
    dm, hand = 555, "tg:-100123:hand"
    told: list[str] = []

    async def send() -> str:
        return "sent"

    def failing() -> str:
        raise RuntimeError("refused again")

    await Slots(redis_client).refused(dm, hand)
    assert 0 < await redis_client.ttl(keys.telegram(chat_key(dm))) <= slots_module.TTL
    other = Slots(redis_client)  # another worker: it never saw the refusal
    with pytest.raises(RuntimeError):
        await other.post(dm, hand, ("g1", 1), False, failing, "", reopened=lambda: told.append("1"))
    assert told == []
    answer = await other.post(
        dm, hand, ("g1", 2), False, send, "", reopened=lambda: told.append("2")
    )
    assert (answer, told) == ("sent", ["2"])
    await other.post(dm, hand, ("g1", 3), False, send, "", reopened=lambda: told.append("3"))
    await other.post(dm, TABLE, ("g1", 3), False, send, "", reopened=lambda: told.append("t"))
    assert told == ["2"]


async def test_a_hold_is_renewed_while_its_post_runs(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(slots_module, "HOLD_MS", 300)
    a, b = Slots(redis_client), Slots(redis_client)
    async with a.hold(GROUP, TABLE, ("g1", 1)) as held:
        assert held is not None
        waiting = asyncio.create_task(b.claim(GROUP, TABLE, ("g1", 2)))
        await asyncio.sleep(1.0)  # a slow post: three times the hold
        assert not waiting.done()
        held.shown = True
    token = await asyncio.wait_for(waiting, 2)
    assert token is not None


async def test_a_message_sent_while_the_store_is_away_is_recorded_and_not_sent_again(
    redis_server: RedisServer, redis_url: str
) -> None:
    """The platform took a slot's new message, then the store could not record it: the worker
    keeps it as the slot's message, the retry of that post is told it was sent already, and the
    store has it once it is back."""
    client = aioredis.Redis.from_url(redis_url, socket_timeout=1, socket_connect_timeout=1)
    slots = Slots(client)

    async def sent_as_the_store_dies() -> None:
        async with slots.hold(GROUP, TABLE, ("g1", 4)) as held:
            assert held is not None
            assert not held.sent
            redis_server.kill()
            with pytest.raises(redis.exceptions.ConnectionError):
                await slots.set(GROUP, TABLE, 41, ("g1", 4))
            assert await slots.get(GROUP, TABLE) == 41  # this worker knows it meanwhile

    with pytest.raises(redis.exceptions.ConnectionError):  # the release cannot reach it either
        await sent_as_the_store_dies()
    redis_server.restart()
    async with slots.hold(GROUP, TABLE, ("g1", 4)) as held:  # the post, tried again
        assert held is not None
        assert held.sent
        held.shown = True
    assert await Slots(client).get(GROUP, TABLE) == 41  # recorded: every worker sees it
    async with slots.hold(GROUP, TABLE, ("g1", 5)) as held:
        assert held is not None
        assert not held.sent
    await client.aclose()


PERSON = 1001
HAND = "tg:-100123:hand"


async def shown(slots: Slots, message: int, version: tuple[str, int], keys: bool) -> None:
    """A hand post that sent `message`, recorded as the sender records it."""

    async def send() -> None:
        await slots.set(PERSON, HAND, message, version)

    await slots.post(PERSON, HAND, version, False, send, None, keys=keys)


async def test_a_newer_message_pressed_is_adopted_as_the_slots(
    redis_client: aioredis.Redis,
) -> None:
    """A crash lost the record of a hand's new message (between the send and the write): a
    press on it, newer than the message the map names, makes it the slot's message again,
    showing no known version (shown again even where the slot seemed up to date). The message
    named before is told if it may have buttons; the one named, or an older one, is no news."""
    slots = Slots(redis_client)
    await shown(slots, 7, ("g1", 3), keys=True)
    assert await slots.adopt(PERSON, HAND, 7) is None
    assert await slots.adopt(PERSON, HAND, 5) is None
    assert await slots.adopt(PERSON, HAND, 9) == Adopted(7)
    assert await Slots(redis_client).get(PERSON, HAND) == 9
    assert await slots.game_of(PERSON, 9) == "tg:-100123"
    async with slots.hold(PERSON, HAND, ("g1", 3), again=True) as held:
        assert held is not None  # what 9 shows is not known: shown again
        held.shown = True
    await shown(slots, 11, ("g1", 5), keys=False)
    assert await slots.adopt(PERSON, HAND, 12) == Adopted(None)  # 11 has no buttons


async def test_a_discord_message_is_adopted_by_its_exact_id(redis_client: aioredis.Redis) -> None:
    """Discord's ids are beyond a Lua number's precision: they are compared, and the one
    replaced given back, digit for digit."""
    slots = Slots(redis_client)
    snowflake = 1_300_000_000_000_000_001
    await shown(slots, snowflake, ("g1", 3), keys=True)
    assert await slots.adopt(PERSON, HAND, snowflake + 1) == Adopted(snowflake)
    assert await slots.adopt(PERSON, HAND, snowflake) is None
    assert await slots.get(PERSON, HAND) == snowflake + 1


async def test_adopting_waits_for_a_post_under_way(redis_client: aioredis.Redis) -> None:
    a, b = Slots(redis_client), Slots(redis_client)
    await shown(a, 7, ("g1", 3), keys=True)
    held = await a.claim(PERSON, HAND, ("g1", 4))
    assert held is not None
    waiting = asyncio.create_task(b.adopt(PERSON, HAND, 8))
    await asyncio.sleep(0.1)
    assert not waiting.done()
    await a.set(PERSON, HAND, 9, ("g1", 4))  # that post sent a newer message still
    await a.release(PERSON, HAND, held, ("g1", 4), True)
    assert await asyncio.wait_for(waiting, 2) is None
    assert await b.get(PERSON, HAND) == 9


class Beside(aioredis.Redis):
    """A Redis client that lets another worker's write (`beside`) run right after the first
    command it sends, whatever that is: a step of two calls leaves it room in between, one
    call none."""

    beside: Callable[[], Awaitable[object]] | None = None

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        answer = await super().execute_command(*args, **options)
        write, self.beside = self.beside, None
        if write is not None:
            await write()
        return answer


async def test_a_game_renamed_keeps_a_slot_its_new_chat_wrote_meanwhile(redis_url: str) -> None:
    """A group became a supergroup: the slots of Bob's private chat follow its game, while
    another worker posts the supergroup's game there (a turn's timeout, say), before the rename
    or in the middle of it. Its message stays the slot's: the rename read the fields and wrote
    them in a second call, the older hand over the newer one, whose buttons then nobody
    updated. The slots it had no new message for follow the game, and the old ones go."""
    old, new = "tg:-100123", "tg:-100999"
    for race in (True, False):
        client = Beside.from_url(redis_url)
        await client.flushall()
        slots = Slots(client)
        await shown(slots, 7, ("g1", 3), keys=True)  # the hand of `old`
        await slots.set(PERSON, f"{old}:options", 8)
        other = Slots(aioredis.from_url(redis_url))

        async def posted(worker: Slots = other) -> None:
            async with worker.hold(PERSON, f"{new}:hand", ("g1", 4)) as held:
                assert held is not None
                await worker.set(PERSON, f"{new}:hand", 9, ("g1", 4))
                held.shown = True

        if race:
            client.beside = posted
        else:
            await posted()
        await slots.rename_game(PERSON, old, new)
        assert await slots.get(PERSON, f"{new}:hand") == 9, race
        assert await slots.shown(PERSON, f"{new}:hand") == ("g1", 4), race
        assert await slots.get(PERSON, f"{new}:options") == 8
        assert await slots.named(PERSON, f"{old}:") == []
        assert await slots.game_of(PERSON, 9) == new
        await other.client.aclose()
        await client.aclose()
