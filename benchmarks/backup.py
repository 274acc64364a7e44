"""`wizard-bot backup` and `restore` timed: real games played through the service into a
redis-server of its own (append-only, fsync every second), their chats copied to N chats, then
backed up and restored into a second server. The last line printed is JSON.

    python benchmarks/backup.py [--chats N]

- backup_s, restore_s: the whole backup (to a file in memory) and the whole restore;
  chats_per_s for each.
- json_bytes_per_chat: the backup's lines before gzip over the chats (the gzip'd file is far
  smaller here, as the chats are copies of one another).
- read_us, write_us: the server's time per run of the backup's read script and of the
  restore's write script (`INFO commandstats`: evalsha), what a chat's other requests may wait.
"""

import argparse
import asyncio
import gzip
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import redis.asyncio as aioredis

sys.path[:0] = [
    str(Path(__file__).resolve().parents[1]),
    str(Path(__file__).parent.parent / "tests"),
]

from service_helpers import ANN, BOB, CID, Clock  # noqa: E402
from test_stats import play  # noqa: E402

from bot.config import Config  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.store import Store, keys  # noqa: E402
from bot.store.backup import Backup, Restore, tag_of  # noqa: E402
from bot.store.redis_server import RedisServer, free_port  # noqa: E402
from bot.table import Settings  # noqa: E402

SOURCE = "tg:-1"


async def evalsha_us(client: aioredis.Redis) -> float:
    stats = await client.info("commandstats")
    return float(stats.get("cmdstat_evalsha", {}).get("usec_per_call", 0.0))


async def copies(client: aioredis.Redis, count: int) -> None:
    """`count` copies of chat SOURCE's keys (DUMP, RESTORE under each new chat's tag)."""
    names = [name async for name in client.scan_iter(match=f"wiz:{{{SOURCE}}}:*")]
    dumped = [(name, await client.dump(name), await client.pttl(name)) for name in names]
    for number in range(count):
        chat = f"tg:-{1000 + number}".encode()
        async with client.pipeline(transaction=False) as pipe:
            for name, blob, ttl in dumped:
                new = name.replace(b"{" + tag_of(name) + b"}", b"{" + chat + b"}")
                pipe.restore(new, max(0, ttl), blob, replace=True)
            await pipe.execute()


async def run(chats: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as root:
        servers = [
            RedisServer(Path(root) / name, port=free_port(), appendfsync="everysec")
            for name in ("source", "target")
        ]
        for server in servers:
            server.start()
        source, target = (aioredis.from_url(server.url) for server in servers)
        try:
            svc = GameService(
                Store(source, Settings()), Config(), clock=Clock(), rng=random.Random(1)
            )
            for seed in range(3):
                await play(svc, SOURCE, [ANN, BOB, CID], seed=seed, ai=1)
            await copies(source, chats)
            await source.config_resetstat()
            out = io.BytesIO()
            began = time.perf_counter()
            summary = await Backup(source).write(out, "benchmark")
            backup_s = time.perf_counter() - began
            read_us = await evalsha_us(source)
            out.seek(0)
            began = time.perf_counter()
            restored = await Restore(target).write(out)
            restore_s = time.perf_counter() - began
            assert restored.games == summary.games == chats + 1
            assert await target.exists(keys.results(SOURCE))
            return {
                "chats": chats + 1,
                "keys": summary.keys,
                "backup_s": round(backup_s, 2),
                "backup_chats_per_s": round((chats + 1) / backup_s),
                "restore_s": round(restore_s, 2),
                "restore_chats_per_s": round((chats + 1) / restore_s),
                "json_bytes_per_chat": round(len(gzip.decompress(out.getvalue())) / (chats + 1)),
                "read_us": read_us,
                "write_us": await evalsha_us(target),
            }
        finally:
            for client in (source, target):
                await client.aclose()
            for server in servers:
                server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=2000, help="chats (default 2000)")
    args = parser.parse_args()
    figures = asyncio.run(run(args.chats))
    for name, value in figures.items():
        print(f"{name}: {value}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
