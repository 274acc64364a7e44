"""The Telegram outbox without a server: pacing per chat, coalescing of slot posts, and which
failures it tries again."""

import asyncio
import itertools
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
import redis.asyncio as aioredis
from PIL import ImageFont

from adapters.discord import render as discord_render
from adapters.discord import sender as discord_sender
from adapters.outbox import FAST, Budget, Limits, Outbox, Rest, newest
from adapters.telegram import sender as telegram_sender
from adapters.telegram.render import Key, Post, coalesce
from bot.store.redis_server import free_port


class FakeTime:
    """A clock that only moves when someone sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


def test_budget_allows_a_burst_then_paces() -> None:
    budget = Budget(count=20, period=60.0, burst=5)
    now = 0.0
    for _ in range(5):
        assert budget.wait(now) == 0.0
        budget.take(now)
    assert budget.wait(now) == pytest.approx(3.0)  # refills one post per 3 s
    assert budget.wait(now + 3.0) == 0.0


def test_budget_never_exceeds_its_count_in_a_period() -> None:
    budget = Budget(count=20, period=60.0, burst=5)
    now, times = 0.0, []
    while now < 600:
        delay = budget.wait(now)
        if delay:
            now += delay
            continue
        budget.take(now)
        times.append(now)
    for index, start in enumerate(times):
        assert sum(1 for time in times[index:] if time < start + 60.0 - 1e-9) <= 20
    assert len(times) >= 180  # and it does post about 20 a minute


def test_private_budget_is_about_one_a_second() -> None:
    budget = Limits().budget(group=False)
    now, sent = 0.0, 0
    while now < 60:
        delay = budget.wait(now)
        if delay:
            now += delay
            continue
        budget.take(now)
        sent += 1
    assert 58 <= sent <= 62


async def test_posts_go_in_order_at_the_groups_pace() -> None:
    time = FakeTime()
    made: list[tuple[float, str]] = []

    async def deliver(post: Post) -> str:
        made.append((time.now, post.html))
        return "ok"

    outbox: Outbox[Post] = Outbox(
        deliver, Limits(group_count=2, group_period=10.0, group_burst=1), coalesce, time.clock,
        time.sleep,
    )  # fmt: skip
    futures = [outbox.put(-5, Post(-5, f"m{i}")) for i in range(4)]
    await outbox.flush()
    assert [text for _, text in made] == ["m0", "m1", "m2", "m3"]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(made)]
    assert all(gap >= 5.0 - 1e-9 for gap in gaps)
    assert [future.result() for future in futures] == ["ok"] * 4


async def test_a_post_of_several_messages_is_paced_message_by_message() -> None:
    """A post whose delivery makes one message and leaves the rest (`Rest`): each message
    waits for the chat's pace as a post does, the rest goes before the posts behind it, and
    the post's future has what its last message returned."""
    time = FakeTime()
    made: list[tuple[float, str]] = []

    async def deliver(post: Post) -> object:
        made.append((time.now, post.html))
        head, _, rest = post.html.partition("+")
        return Rest(Post(post.target, rest)) if rest else f"ok {head}"

    outbox: Outbox[Post] = Outbox(
        deliver, Limits(group_count=2, group_period=10.0, group_burst=1), coalesce, time.clock,
        time.sleep,
    )  # fmt: skip
    first = outbox.put(-5, Post(-5, "a+b+c"), key="slot")
    second = outbox.put(-5, Post(-5, "d"), key="slot2")
    await outbox.flush()
    assert [text for _, text in made] == ["a+b+c", "b+c", "c", "d"]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(made)]
    assert all(gap >= 5.0 - 1e-9 for gap in gaps)
    assert (first.result(), second.result()) == ("ok c", "ok d")


async def test_a_slow_post_is_counted_when_it_arrives() -> None:
    """A private chat takes 3 posts in 3 s. The first post waits 2 s on its way (a retry after
    a 429); the posts after it keep 3 s from its arrival, not from when it left."""
    time = FakeTime()
    arrived: list[float] = []

    async def deliver(post: Post) -> None:
        if not arrived:
            await time.sleep(2.0)
        arrived.append(time.now)

    limits = Limits(private_count=3, private_period=3.0, private_burst=3, slack=0.0)
    outbox: Outbox[Post] = Outbox(deliver, limits, coalesce, time.clock, time.sleep)
    for i in range(4):
        outbox.put(7, Post(7, f"m{i}"))
    await outbox.flush()
    assert arrived[0] == 1002.0
    assert arrived[3] >= arrived[0] + 3.0  # never 4 arrivals within 3 s


async def test_a_waiting_slot_edit_is_replaced_by_the_newest() -> None:
    time = FakeTime()
    made: list[str] = []

    async def deliver(post: Post) -> None:
        made.append(post.html)

    outbox: Outbox[Post] = Outbox(
        deliver, Limits(group_count=1, group_period=3.0, group_burst=1), coalesce, time.clock,
        time.sleep,
    )  # fmt: skip
    slot = "tg:-5:table"
    first = outbox.put(-5, Post(-5, "table v1", slot=slot), key=slot)
    await asyncio.sleep(0)  # v1 goes at once; what follows waits for the budget
    waiting = [outbox.put(-5, Post(-5, f"table v{i}", slot=slot), key=slot) for i in (2, 3, 4)]
    outbox.put(-5, Post(-5, "summary"))
    last = outbox.put(-5, Post(-5, "table v5", slot=slot), key=slot)
    assert [post.html for post in outbox.waiting(-5)] == ["summary", "table v5"]
    await outbox.flush()
    assert made == ["table v1", "summary", "table v5"]
    assert first.done()
    assert last.done()
    assert all(future.done() for future in waiting)


async def test_a_new_message_stays_new_when_an_edit_replaces_it() -> None:
    older = Post(1, "hand: your turn", slot="tg:-5:hand", notify=True)
    newer = Post(1, "hand: a card less", slot="tg:-5:hand")
    merged = coalesce(older, newer)
    assert merged is not None
    assert merged.html == "hand: a card less"
    assert merged.notify
    assert coalesce(newer, older) is None  # a new message does not replace an edit: both go


@pytest.mark.parametrize("make", [Post, discord_render.Post])
async def test_a_turn_that_rings_still_rings_when_a_quiet_post_replaces_it(make: type) -> None:
    """A person's new turn (a new message with a sound) still waiting for their chat's pace when
    the same hand is posted again quietly under a coach's review: the one post that goes rings
    them, whichever of the two shows the newer version. A quiet post replaced by another stays
    quiet; an edit after a turn's new message keeps its sound."""
    slot = "tg:-5:hand"
    turn = make(1, "hand: your bid?", slot=slot, notify=True, version=("g1", 7))
    again = make(1, "hand: your bid?", slot=slot, notify=True, quiet=True, version=("g1", 7))
    for older, newer in ((turn, again), (turn, replace(again, version=("g1", 8)))):
        merged = newest(older, newer)
        assert merged is not None
        assert merged.notify
        assert not merged.quiet
    ahead = replace(again, version=("g1", 6))  # queued later, an older version: the turn goes
    merged = newest(turn, ahead)
    assert merged is not None
    assert not merged.quiet
    merged = newest(again, replace(again, version=("g1", 8)))
    assert merged is not None
    assert merged.quiet
    edit = make(1, "hand: a card less", slot=slot, version=("g1", 8))
    merged = newest(turn, edit)
    assert merged is not None
    assert merged.notify
    assert not merged.quiet


async def test_a_reminder_still_waiting_when_it_is_deleted_never_goes() -> None:
    """A turn's reminder (a new message, which notifies) still waiting when the turn passed
    is not sent to be deleted at once: the deletion alone goes (a ping for a turn over is
    what it would leave). A new reminder after a deletion goes after it; a deletion of an
    older version than the reminder waiting is no reason to drop it."""
    slot = "tg:-5:remind"
    reminder = Post(-5, "⏳ Ann: it is your turn (45 s left).", slot=slot, notify=True)
    gone = Post(-5, "", slot=slot, delete=True)
    merged = coalesce(replace(reminder, version=("g1", 7)), replace(gone, version=("g1", 8)))
    assert merged is not None
    assert (merged.delete, merged.version, merged.notify) == (True, ("g1", 8), False)
    assert coalesce(replace(gone, version=("g1", 8)), replace(reminder, version=("g1", 9))) is None
    assert coalesce(replace(reminder, version=("g1", 9)), replace(gone, version=("g1", 8))) is None


async def test_buttons_taken_off_again_go_after_what_waits_for_the_slot() -> None:
    """A bare post shown again decides where it goes (`SlotMap.unbutton`): it neither
    replaces what waits for its slot nor is replaced by it; of two such, the newer goes."""
    lobby = Post(-5, "a new table", slot="tg:-5:lobby", version=("g2", 8), notify=True)
    bare = Post(-5, "", slot="tg:-5:lobby", version=("", 7), again=True, bare=True)
    assert coalesce(lobby, bare) is None
    assert coalesce(bare, lobby) is None
    later = Post(-5, "", slot="tg:-5:lobby", version=("", 9), again=True, bare=True)
    assert coalesce(bare, later) == later


async def test_buttons_taken_off_a_waiting_text_leave_that_text_without_them() -> None:
    """A player's result (a new message with "Play again") waits in their private chat when
    the table it opened is cancelled, and a post takes the buttons off their slot (or the
    host's toggles wait when the game starts: the buttons off, saying how it started). Both
    platforms send the waiting text as the strip leaves it: without buttons, in a new message
    as asked, of the newer version (before, the bare post took its place alone and the text
    never went). An edit waiting is merged so too."""
    keys = ((Key("Play again", data="again"),),)
    result = Post(7, "2nd of 3", keys=keys, slot="tg:-5:hand", notify=True, version=("g1", 9))
    bare = Post(7, "", slot="tg:-5:hand", bare=True, version=("g2", 11))
    assert coalesce(result, bare) == replace(result, keys=(), version=("g2", 11))
    closed = replace(bare, behind="started")
    assert coalesce(result, closed) == replace(result, html="started", keys=(), version=("g2", 11))
    edit = replace(result, notify=False)
    assert coalesce(edit, closed) == replace(edit, html="started", keys=(), version=("g2", 11))
    assert coalesce(closed, result) is None  # buttons off, then a new text: both go, in order
    rows = ((discord_render.Key("Play again", custom_id="again"),),)
    mine = discord_render.Post(1, "2nd of 3", user=7, keys=rows, slot="d:hand", notify=True)
    strip = discord_render.Post(1, "", user=7, slot="d:hand", bare=True, behind="cancelled")
    merged = discord_render.coalesce(mine, strip)
    assert merged == replace(mine, text="cancelled", keys=())


async def test_a_waiting_edit_goes_before_a_new_message_of_its_slot() -> None:
    """A hand edited (the turn played), then a new hand message (the game's end, the next
    turn) while the edit waits: the edit still goes, so the message before does not keep a
    turn that is gone; an edit after that replaces the new message, which stays new."""
    time = FakeTime()
    made: list[tuple[str, bool]] = []

    async def deliver(post: Post) -> None:
        made.append((post.html, post.notify))

    limits = Limits(private_count=1, private_period=3.0, private_burst=1)
    outbox: Outbox[Post] = Outbox(deliver, limits, coalesce, time.clock, time.sleep)
    slot = "tg:-5:hand"
    outbox.put(7, Post(7, "your turn", slot=slot, notify=True), key=slot)
    await asyncio.sleep(0)  # goes at once; what follows waits for the budget
    outbox.put(7, Post(7, "played", slot=slot), key=slot)
    outbox.put(7, Post(7, "next turn", slot=slot, notify=True), key=slot)
    outbox.put(7, Post(7, "next turn, a hint", slot=slot), key=slot)
    assert [post.html for post in outbox.waiting(7)] == ["played", "next turn, a hint"]
    await outbox.flush()
    assert made == [("your turn", True), ("played", False), ("next turn, a hint", True)]


async def test_chats_are_paced_separately() -> None:
    made: list[int] = []

    async def deliver(post: Post) -> None:
        made.append(post.target)

    limits = Limits(group_count=1, group_period=0.3, group_burst=1)
    outbox: Outbox[Post] = Outbox(deliver, limits, coalesce)
    for target in (-1, -1, -2, 7):
        outbox.put(target, Post(target, "x"))
    await asyncio.sleep(0.1)
    assert sorted(made) == [-2, -1, 7]  # the second post to -1 waits, the others do not
    await outbox.flush()
    assert made.count(-1) == 2


async def test_a_failing_delivery_is_logged_and_the_queue_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    made: list[str] = []

    async def deliver(post: Post) -> str:
        if post.html == "boom":
            raise RuntimeError("boom")
        made.append(post.html)
        return "ok"

    outbox: Outbox[Post] = Outbox(deliver, FAST, coalesce)
    bad = outbox.put(-1, Post(-1, "boom"))
    good = outbox.put(-1, Post(-1, "fine"))
    await outbox.flush()
    assert made == ["fine"]
    assert bad.result() is None
    assert good.result() == "ok"
    assert "could not post" in caplog.text


async def test_close_posts_what_waits_and_drops_later_posts() -> None:
    made: list[str] = []

    async def deliver(post: Post) -> None:
        made.append(post.html)

    outbox: Outbox[Post] = Outbox(deliver, FAST, coalesce)
    outbox.put(-1, Post(-1, "a"))
    await outbox.close()
    late = outbox.put(-1, Post(-1, "b"))
    assert made == ["a"]
    assert late.result() is None


async def test_idle_chats_are_forgotten() -> None:
    time = FakeTime()

    async def deliver(post: Post) -> None:
        return None

    outbox: Outbox[Post] = Outbox(deliver, Limits(), coalesce, time.clock, time.sleep, keep=3)
    for target in (-1, -2, -3):
        outbox.put(target, Post(target, "x"))
    await outbox.flush()
    time.now += 120
    outbox.put(-4, Post(-4, "x"))
    await outbox.flush()
    assert len(outbox._queues) == 1


@pytest.mark.parametrize("sender", [telegram_sender, discord_sender])
async def test_only_the_store_away_is_tried_again_not_any_os_error(
    sender: ModuleType, tmp_path: Path
) -> None:
    """A post that failed because Redis could not be reached (a real client of a port nobody
    listens on) is tried again; one that met an OSError of its own (Pillow finding no font
    file) is not: it is no outage, and trying it again would fail alike."""
    tries: dict[str, int] = {}
    client = aioredis.Redis.from_url(f"redis://127.0.0.1:{free_port()}", socket_timeout=1)
    try:

        async def deliver(post: Post) -> str:
            tries[post.html] = tries.get(post.html, 0) + 1
            if tries[post.html] > 1:
                return "ok"
            if post.html == "store":
                await client.get("a key")  # raises: nothing listens there
            ImageFont.truetype(str(tmp_path / "missing.ttf"), 12)  # raises OSError
            return "not reached"

        time = FakeTime()
        outbox: Outbox[Post] = Outbox(
            deliver, FAST, coalesce, time.clock, time.sleep, retry=sender.retryable
        )
        store = outbox.put(-1, Post(-1, "store"))
        drawing = outbox.put(-2, Post(-2, "drawing"))
        await outbox.flush()
        assert tries == {"store": 2, "drawing": 1}
        assert store.result() == "ok"
        assert drawing.result() is None
    finally:
        await client.aclose()
