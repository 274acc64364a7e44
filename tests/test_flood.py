"""Flood windows kept in Redis (adapters.flood): shared by the outboxes of several workers and
kept across restarts, and out of the way while Redis is away. A real redis-server."""

import asyncio
import time

import redis.asyncio as aioredis

from adapters.flood import Windows
from adapters.outbox import Limits, Outbox
from bot.store import keys, redis_client
from bot.store.redis_server import free_port

PACE = Limits(group_count=4, group_period=1.0, group_burst=4, slack=0.05)
"""Four posts a second in a channel (`c...` targets below)."""


def outbox(client: "aioredis.Redis", sent: list[tuple[float, str]]) -> Outbox[str]:
    async def deliver(item: str) -> str:
        sent.append((time.time(), item))
        return item

    return Outbox(
        deliver,
        PACE,
        is_group=lambda target: str(target).startswith("c"),
        windows=Windows(client),
        chat_of=lambda target: f"dc:{target}",
    )


def most_in_a_second(sent: list[tuple[float, str]]) -> int:
    times = sorted(when for when, _ in sent)
    return max(sum(1 for other in times if start <= other < start + 1.0) for start in times)


async def test_two_outboxes_keep_within_one_window(redis_client: aioredis.Redis) -> None:
    sent: list[tuple[float, str]] = []
    first, second = outbox(redis_client, sent), outbox(redis_client, sent)
    posts = [box.put("c1", f"{name} {n}") for n in range(6) for name, box in (("a", first),
             ("b", second))]  # fmt: skip
    assert sorted(await asyncio.gather(*posts)) == sorted(item for _, item in sent)
    assert len(sent) == 12
    assert most_in_a_second(sent) <= 4
    assert 1 <= await redis_client.zcard(keys.posts("dc:c1")) <= 4  # the last second's posts
    assert 0 < await redis_client.pttl(keys.posts("dc:c1")) <= 62_000
    await first.close()
    await second.close()


async def test_a_new_outbox_waits_for_the_last_one_s_window(redis_client: aioredis.Redis) -> None:
    sent: list[tuple[float, str]] = []
    before = outbox(redis_client, sent)
    await asyncio.gather(*(before.put("c2", f"before {n}") for n in range(4)))
    await before.close()
    after = outbox(redis_client, sent)  # a restarted worker: nothing of the last in memory
    await after.put("c2", "after")
    assert most_in_a_second(sent) <= 4
    assert sent[-1][0] - sent[0][0] >= 0.95  # it waited for the first post's second to pass
    await after.close()


async def test_private_chats_and_other_channels_have_windows_of_their_own(
    redis_client: aioredis.Redis,
) -> None:
    sent: list[tuple[float, str]] = []
    box = outbox(redis_client, sent)
    started = time.monotonic()
    await asyncio.gather(*(box.put(f"c{n}", "hello") for n in range(10, 18)))
    assert time.monotonic() - started < 0.5  # eight channels, one post each: no waiting
    await box.close()


async def test_without_redis_the_outbox_paces_by_its_own_count() -> None:
    client = redis_client(f"redis://127.0.0.1:{free_port()}/0", 0.2)
    sent: list[tuple[float, str]] = []
    box = outbox(client, sent)
    await asyncio.wait_for(asyncio.gather(*(box.put("c3", f"n {n}") for n in range(6))), 10)
    assert len(sent) == 6
    assert most_in_a_second(sent) <= 4
    await box.close()
    await client.aclose()
