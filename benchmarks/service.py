"""Service speed on one core: commands per second through GameService and a real Redis, the
latency of one command, and the Redis bytes a live game takes. The last line printed is JSON.

    python benchmarks/service.py [--games N] [--chats C] [--in-flight K] [--seconds S]
                                 [--fresh] [--no-update-ids] [--parts] [--profile [FILE]]

It starts its own redis-server (a free port on 127.0.0.1, append-only file fsynced every
second, as deployed) in a temporary directory, and drives it from one Python process (asyncio).
Every chat is a 4-player standard game whose four seats are people, played by a scripted client
that sends, one at a time, a legal move of whoever must act by pressing a button the outcomes
showed (Request(Kind.BUTTON, payload)): joins, start, bids, trump, cards, the rematch.

- one chat: N whole games in a row. Every command is timed inside handle(): p50_ms, p99_ms.
  commands_per_s_one_chat is commands over wall time (the client's choices included).
- bytes_per_game_mid / _end / _max: MEMORY USAGE of the chat's game hash over more such games:
  the mean over round 8 of 15 (mid-game), after the last command (game over), the largest.
- 1,000 chats: as many clients, K requests in flight (one per chat at a time, since a chat's
  next move depends on its last outcome), each for a random idle chat, for S seconds. The chats
  start spread over the whole game (a recorded game's state at a random command is copied in),
  as in a steady state; --fresh starts them all from an empty chat (lobbies and early rounds,
  which are cheaper). Its latency includes waiting for the event loop, about K / rate by
  Little's law: it measures queueing, not the cost of a command. bytes_per_game_live_1000 is
  the mean MEMORY USAGE of the game hashes when the run stops.
- CPU per command of this process and of the redis-server (what bounds the rate on one core).
- Like a Telegram adapter, every request carries a fresh update id (its key is kept a day to
  drop redeliveries); --no-update-ids leaves them out. update_key_bytes is what one such key
  takes, redis_bytes_per_command the growth of the data per command in the 1,000-chat run
  (update keys, timer entries), timer_entries the size of the timer index then (more than one
  per chat means stale entries).

- fsync: the one-chat games again against two more redis-servers, one that fsyncs its
  append-only file on every write (`appendfsync always`, the embedded server's default: not even
  a power failure loses an acknowledged move) and one that fsyncs every second (`everysec`, as
  above), --fsync-runs times each, interleaved: commands_per_s_fsync_always / _everysec (the
  medians) and their ratio. The rest runs against `everysec`, so it compares with earlier runs.

- floor: what the Redis calls alone cost. Every call a command made (outside pipelines: a
  game's end folds its stats in one) is noted as it was sent, and sent again, with the same
  arguments (so the same payloads), to the same redis-server, from the same starting data
  (database 1, beside the service's 0): one chat's commands one after another
  (floor_one_chat_s), the many chats' commands with as many in flight, each chat's in order
  (floor_many_chats_s). They are sent again turn by turn, beside the service: after each TURN
  commands of the one chat, and after each SPELL_S seconds of the many chats, so that the
  service and its floor meet the same minutes of a machine whose speed drifts; their time,
  CPU and data are left out of the service's figures (database 1 is emptied before the data
  is weighed). service_vs_floor_one_chat is the floor's time over the time spent in handle();
  service_vs_floor_in_flight the floor's time over the many-chat run's, less the time the
  scripted players spent choosing their requests and reading the outcomes (outside handle(),
  players_many_chats_s: their part, as people and a chat platform are not the service's; the
  process is busy throughout, its CPU several times the Redis calls', so that time was not
  spent waiting). 1.0 would be a service that costs nothing but its Redis round trips.
  service_vs_floor_in_flight_with_players keeps their part in, as this benchmark did until
  5 December 2026. The _apart figures send all the calls again after the run instead, as this
  benchmark did until 5 December 2026.
- live: latency with --live N games live, one command at a time: N - 1 chats spread over the
  game (each played once first, as a worker that has served them for a while has), a command
  on a random one of them (p50_ms_live, p99_ms_live), and one chat playing whole games, its
  commands and theirs in turns of TURN (100) each, so that both meet the same minutes of
  the machine (p50_ms_one_chat_beside_live). live_vs_one_chat_p50 is the ratio of those two
  p50s; live_vs_one_chat_p50_apart the live p50 over the one-chat run's above, measured a
  minute earlier (as this benchmark did until 5 December 2026: on a machine whose speed
  drifts, that ratio moved between 0.61 and 1.71 over 19 runs of one day).

- collector: after its warm-up the run sets the garbage collector as a worker does once it
  has started (`bot.memory.settle`); --gc-defaults leaves CPython's defaults.

--parts plays the one-chat games again with a clock around each part of a command (the Redis
calls, the rest of the save, `Table.to_bytes`, applying the request, drawing its messages, and
the service's glue: what `handle()` spent outside them) and prints microseconds a command
(`parts_us_per_command`); the clocks add a little to each part.

--profile plays the one-chat games again under cProfile and prints the top functions (and
writes pstats data to FILE, when given).
"""

import argparse
import asyncio
import copy
import cProfile
import io
import json
import platform
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections import deque
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Any

# This folder holds a script named after the engine package: keep it off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import redis.asyncio as aioredis  # noqa: E402

from bot import dispatch, tokens  # noqa: E402
from bot import service as service_module  # noqa: E402
from bot.chat import LIVE_TTL  # noqa: E402
from bot.commands import Kind  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.memory import settle  # noqa: E402
from bot.messages import Message, Outcome  # noqa: E402
from bot.requests import Request, User  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.store import Store, keys  # noqa: E402
from bot.store.redis_server import RedisServer, free_port  # noqa: E402
from bot.table import Settings, Table  # noqa: E402

PLAYERS = 4
MID_ROUND = 8
"""The middle round of a 4-player standard game (15 rounds)."""
MOVES = frozenset("ptb")
"""Button actions that make a move: play a card, choose trump, bid."""
TO_ACT = "▶️"
"""How the table message marks the seat it waits for..."""
WAITS = "▫️"
"""... and the other seats."""
TARGETS = {"commands_per_s": 1500, "p99_ms": 10.0, "bytes_per_game": 4096}
"""What the service should reach (issue point 11)."""

TURN = 100
"""Commands in a row before their floor is measured (one chat), and in the live run on the
one chat, then on random live chats."""
SPELL_S = 2.0
"""Seconds of the many-chat run before its floor is measured."""

UPDATE_IDS = count(1)
"""Update ids, unique over the whole run as a platform's are."""


Calls = list[tuple[Any, ...]]
CALLS: ContextVar[Calls | None] = ContextVar("calls", default=None)
"""The Redis calls the command being handled has made so far (while they are noted)."""
NOTED: list[tuple[str, Calls]] = []
"""Each command handled while calls are noted: its chat, and the calls it made in order."""


def noting(redis: "aioredis.Redis", cas_sha: str) -> None:
    """Note every call `redis` sends for a command (`CALLS`) as it can be sent again: the
    compare-and-set without its latest time to run (a replay runs later)."""
    send = redis.execute_command

    async def execute(*args: Any, **options: Any) -> Any:
        calls = CALLS.get()
        if calls is not None:
            call = list(args)
            if call[0] == "EVALSHA" and call[1] == cas_sha:
                call[3 + int(call[2]) + 10] = ""  # ARGV[11]
            calls.append(tuple(call))
        return await send(*args, **options)

    redis.execute_command = execute  # type: ignore[method-assign]


class BenchError(RuntimeError):
    """The scripted client met something it does not expect (a refusal, no legal move)."""


class Client:
    """One chat's four players, pressing the buttons of what the service showed them."""

    def __init__(self, chat: str, rng: random.Random, update_ids: bool) -> None:
        self.chat = chat
        self.rng = rng
        # The same four people in every chat, so that a game's state can be copied to another.
        self.users = [User(f"bench:{seat}", f"P{seat + 1}") for seat in range(PLAYERS)]
        self.update_ids = UPDATE_IDS if update_ids else None
        self.lobby: Message | None = None
        self.table: Message | None = None
        self.bids: list[str] = []
        """The bid buttons on the table (open bids)."""
        self.moves: dict[str, list[str]] = {}
        """The move buttons of each player's last hand message."""
        self.rematch: str | None = None
        self.seated = 0
        self.started = False
        self.round = 0
        self.games = 0
        self.commands = 0
        self.own_s = 0.0
        """Seconds this client spent choosing its requests and reading the outcomes: the
        players' part, outside handle()."""

    def clone(self, chat: str, rng: random.Random) -> "Client":
        """This client as it is now, for another chat holding a copy of this chat's game."""
        other = copy.copy(self)
        other.chat, other.rng, other.moves = chat, rng, dict(self.moves)
        other.games = other.commands = 0
        other.own_s = 0.0
        return other

    def next_request(self) -> tuple[User, Request]:
        """The user who must act and a legal request of theirs."""
        if self.rematch is not None:
            return self.users[0], Request(Kind.BUTTON, self.rematch)
        if not self.started:
            if self.lobby is None:
                return self.users[0], Request(Kind.JOIN)
            if self.seated < PLAYERS:
                return self.users[self.seated], Request(Kind.BUTTON, _payload(self.lobby, "j"))
            return self.users[0], Request(Kind.BUTTON, _payload(self.lobby, "s"))
        if self.bids and self.table is not None:
            # Open bids: the bid buttons are on the group's table, for the seat marked to act.
            lines = self.table.text.splitlines()
            seats = [line for line in lines if line.startswith((TO_ACT, WAITS))]
            acting = [seat for seat, line in enumerate(seats) if line.startswith(TO_ACT)]
            if len(acting) != 1:
                raise BenchError(f"{self.chat}: no single bidder on the table")
            return self.users[acting[0]], self._press(self.bids)
        for user in self.users:
            moves = self.moves.get(user.id)
            if moves:
                return user, self._press(moves)
        raise BenchError(f"{self.chat}: nobody has a move to make")

    def _press(self, payloads: list[str]) -> Request:
        payload = self.rng.choice(payloads)
        stamp = tokens.decode(payload).stamp  # 7b0 (bids), 7t (trump), 7-3 (trick 4)
        self.round = int(stamp.partition("-")[0].partition("b")[0].partition("t")[0])
        return Request(Kind.BUTTON, payload)

    def feed(self, user: User, request: Request, outcome: Outcome) -> None:
        """Take in what the service answered to `user`'s `request`."""
        if outcome.alert:
            raise BenchError(f"{self.chat}: {request} by {user.id} refused: {outcome.answer}")
        if not outcome.messages:
            raise BenchError(f"{self.chat}: {request} by {user.id} showed nothing")
        self.commands += 1
        action = tokens.decode(request.arg).action if request.kind is Kind.BUTTON else "j"
        if action == "n":
            self.rematch = None
            self.seated = 1
        elif action == "j":
            self.seated += 1
        elif action == "s":
            self.started = True
            self.lobby = None
        for message in outcome.messages:
            if message.slot == "lobby":
                self.lobby = message
            elif message.slot == "table":
                self.table = message
                self.bids = _moves(message)
            elif message.slot == "hand" and message.to is not None:
                self.moves[message.to] = _moves(message)
            elif message.buttons:
                self.rematch = _find(message, "n") or self.rematch
        if self.rematch is not None:  # the game is over
            self.games += 1
            self.started = False
            self.lobby = self.table = None
            self.bids = []
            self.moves.clear()

    async def step(self, service: GameService, latencies: list[float]) -> None:
        """Send the next request, timing handle(), and take in its outcome; the time spent
        outside handle() is added to `own_s`."""
        begin = time.perf_counter()
        user, request = self.next_request()
        update_id = None if self.update_ids is None else str(next(self.update_ids))
        calls: Calls = []
        noted = CALLS.set(calls)
        start = time.perf_counter()
        outcome = await service.handle(self.chat, user, request, update_id)
        end = time.perf_counter()
        latencies.append(end - start)
        CALLS.reset(noted)
        NOTED.append((self.chat, calls))
        self.feed(user, request, outcome)
        self.own_s += start - begin + time.perf_counter() - end


def _moves(message: Message) -> list[str]:
    """The payloads of the message's buttons that make a move."""
    return [
        button.payload
        for row in message.buttons
        for button in row
        if tokens.decode(button.payload).action in MOVES
    ]


def _find(message: Message, action: str) -> str | None:
    """The payload of the message's button for `action`, if it has one."""
    for row in message.buttons:
        for button in row:
            if tokens.decode(button.payload).action == action:
                return button.payload
    return None


def _payload(message: Message, action: str) -> str:
    payload = _find(message, action)
    if payload is None:
        raise BenchError(f"no {action!r} button in {message.text[:40]!r}")
    return payload


@dataclass(slots=True)
class Point:
    """A chat's game as it was after one command: its hash and its client."""

    version: bytes
    blob: bytes
    client: Client
    results: bytes = b""


@dataclass(slots=True)
class Sizes:
    mid: list[int]
    end: list[int]
    largest: int


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def ms(seconds: float) -> float:
    return round(seconds * 1e3, 3)


async def one_chat(
    service: GameService, games: int, update_ids: bool, beside: "Beside | None" = None
) -> tuple[int, float, list[float]]:
    """Play `games` whole games in one chat; return commands, seconds and latencies. With
    `beside`, its floor is measured after every `TURN` commands (its time not counted)."""
    client = Client("solo", random.Random(1), update_ids)
    latencies: list[float] = []
    start = time.perf_counter()
    while client.games < games:
        await client.step(service, latencies)
        if beside is not None and (client.commands % TURN == 0 or client.games == games):
            await beside.floor()
    spent = time.perf_counter() - start
    return client.commands, spent - (beside.wall if beside is not None else 0.0), latencies


async def record(service: GameService, games: int, update_ids: bool) -> tuple[Sizes, list[Point]]:
    """Play `games` whole games in one chat, reading the game hash after every command."""
    client = Client("rec", random.Random(3), update_ids)
    redis = service.store.client
    sizes = Sizes([], [], 0)
    points = []
    while client.games < games:
        await client.step(service, [])
        size = await service.store.size(client.chat)
        version, blob, results = await redis.hmget(keys.game(client.chat), ["v", "t", "r"])
        if isinstance(version, bytes) and isinstance(blob, bytes):
            point = Point(version, blob, client.clone(client.chat, client.rng), results or b"")
            points.append(point)
        if client.started and client.round == MID_ROUND:
            sizes.mid.append(size)
        if client.rematch is not None:
            sizes.end.append(size)
        sizes.largest = max(sizes.largest, size)
    return sizes, points


async def spread(redis: "aioredis.Redis", chats: int, points: list[Point]) -> list[Client]:
    """Chats each holding the game of a random recorded point, with its client."""
    rng = random.Random(4)
    clients = []
    async with redis.pipeline(transaction=False) as pipe:
        for number in range(chats):
            point = rng.choice(points)
            client = point.client.clone(f"c{number}", random.Random(number))
            mapping = {"v": point.version, "t": point.blob}
            if point.results:
                mapping["r"] = point.results
            pipe.hset(keys.game(client.chat), mapping=mapping)
            pipe.expire(keys.game(client.chat), LIVE_TTL)
            clients.append(client)
        await pipe.execute()
    return clients


async def many_chats(
    service: GameService,
    clients: list[Client],
    in_flight: int,
    seconds: float,
    beside: "Beside | None" = None,
) -> tuple[float, float, list[float]]:
    """Progress the chats, `in_flight` requests at a time, each for a random idle chat, for
    `seconds`; return the seconds taken, those of them the clients spent choosing requests and
    reading outcomes (`Client.own_s`), and the latencies. With `beside`, in spells of
    `SPELL_S` seconds, each followed by its floor (its time not counted)."""
    rng = random.Random(2)
    idle = list(clients)
    latencies: list[float] = []
    spell = seconds if beside is None else SPELL_S
    spent = 0.0

    async def worker(stop: float) -> None:
        while time.perf_counter() < stop:
            index = rng.randrange(len(idle))
            client = idle[index]
            idle[index] = idle[-1]
            idle.pop()
            await client.step(service, latencies)
            idle.append(client)

    own_before = sum(client.own_s for client in clients)
    while spent < seconds:
        start = time.perf_counter()
        stop = start + min(spell, seconds - spent)
        await asyncio.gather(*(worker(stop) for _ in range(min(in_flight, len(clients)))))
        spent += time.perf_counter() - start
        if beside is not None:
            await beside.floor()
    return spent, sum(client.own_s for client in clients) - own_before, latencies


async def floor_one(redis: "aioredis.Redis", noted: list[tuple[str, Calls]]) -> float:
    """Seconds to send the noted calls again, one after another."""
    start = time.perf_counter()
    for _chat, calls in noted:
        for call in calls:
            await redis.execute_command(*call)
    return time.perf_counter() - start


async def floor_many(
    redis: "aioredis.Redis", noted: list[tuple[str, Calls]], in_flight: int
) -> float:
    """Seconds to send the noted calls again, `in_flight` commands at a time, each for a
    random idle chat, each chat's commands in their order (as `many_chats` sends them)."""
    queues: dict[str, deque[Calls]] = {}
    for chat, calls in noted:
        queues.setdefault(chat, deque()).append(calls)
    rng = random.Random(5)
    idle = list(queues)

    async def worker() -> None:
        while idle:
            index = rng.randrange(len(idle))
            chat = idle[index]
            idle[index] = idle[-1]
            idle.pop()
            queue = queues[chat]
            for call in queue.popleft():
                await redis.execute_command(*call)
            if queue:
                idle.append(chat)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(min(in_flight, len(idle)))))
    return time.perf_counter() - start


class Beside:
    """The floor measured beside the service: after each turn of commands, the Redis calls
    they made (`NOTED` since the last turn) are sent again, as `floor_one` or `floor_many`
    sends them, to another database of the same redis-server, which holds what the service's
    held before them. So the service and its floor meet the same minutes of the machine. What
    the sending costs (its time, the CPU here and in the server) is noted apart, for the
    measures of the service to leave out (the data it adds, its caller drops)."""

    def __init__(self, redis: "aioredis.Redis", floor: "aioredis.Redis", in_flight: int) -> None:
        self.redis = redis
        self.client = floor
        self.in_flight = in_flight
        self.mark = len(NOTED)
        self.seconds = 0.0
        """The floor: the time the calls took to send again."""
        self.wall = 0.0
        """All the time spent here, the readings of CPU included."""
        self.cpu = [0.0, 0.0]
        """CPU seconds spent here: this process's, the redis-server's."""

    async def floor(self) -> None:
        start = time.perf_counter()
        noted = NOTED[self.mark :]
        self.mark = len(NOTED)
        before = await cpu(self.redis)
        if self.in_flight == 1:
            self.seconds += await floor_one(self.client, noted)
        else:
            self.seconds += await floor_many(self.client, noted, self.in_flight)
        after = await cpu(self.redis)
        self.cpu = [spent + b - a for spent, a, b in zip(self.cpu, before, after, strict=True)]
        self.wall += time.perf_counter() - start


async def live_latency(
    service: GameService,
    redis: "aioredis.Redis",
    games: int,
    points: list[Point],
    seconds: float,
    update_ids: bool,
) -> tuple[list[float], list[float]]:
    """Latencies of one command at a time with `games` chats live: on random chats of the
    `games - 1` spread over the game (each played once first), and, in turns of `TURN`
    commands each, on the last, which plays whole games (the same worker and server, so a slower
    or faster minute of the machine slows both)."""
    await redis.flushall()
    clients = await spread(redis, games - 1, points)
    for client in clients:
        await client.step(service, [])
    one = Client("one", random.Random(5), update_ids)
    for _ in range(TURN):  # its lobby and first round, as one_chat's warm-up
        await one.step(service, [])
    rng = random.Random(6)
    one_chat_latencies: list[float] = []
    live: list[float] = []
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        for _ in range(TURN):
            await one.step(service, one_chat_latencies)
        for _ in range(TURN):
            await rng.choice(clients).step(service, live)
    return one_chat_latencies, live


async def used_memory(redis: "aioredis.Redis") -> int:
    """Bytes of data in Redis (less its overheads: clients' buffers, the AOF buffer)."""
    return int((await redis.info("memory"))["used_memory_dataset"])


async def cpu(redis: "aioredis.Redis") -> tuple[float, float]:
    """CPU seconds used so far by this process and by the redis-server."""
    info = await redis.info("cpu")
    return time.process_time(), float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def per_command(
    before: tuple[float, float], after: tuple[float, float], commands: int
) -> list[float]:
    """Microseconds of CPU per command: this process's, the redis-server's."""
    return [round((b - a) / commands * 1e6, 1) for a, b in zip(before, after, strict=True)]


def less(spent: tuple[float, float], apart: list[float]) -> tuple[float, float]:
    """CPU seconds so far (`cpu`) less those spent on something else."""
    return spent[0] - apart[0], spent[1] - apart[1]


async def run(args: argparse.Namespace, url: str) -> dict[str, object]:
    redis = aioredis.Redis.from_url(url)
    floor_client = aioredis.Redis.from_url(url.rpartition("/")[0] + "/1")
    try:
        store = Store(redis, Settings())
        service = GameService(store, Config(), rng=random.Random(0))
        update_ids = not args.no_update_ids

        noting(redis, store._cas.sha)
        await one_chat(service, 1, update_ids)  # warm up: imports, catalogs, the script
        if not args.gc_defaults:
            settle()  # as a worker does once it has started (bot.memory)
        await redis.flushall()
        NOTED.clear()
        beside = Beside(redis, floor_client, 1)
        used = await cpu(redis)
        commands, spent, latencies = await one_chat(service, args.games, update_ids, beside)
        one_cpu = per_command(used, less(await cpu(redis), beside.cpu), commands)
        floor_one_s = beside.seconds
        noted_one = list(NOTED)
        await redis.flushall()
        floor_one_apart_s = await floor_one(redis, noted_one)
        served_one_s = sum(latencies)
        one_rate = commands / spent
        p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
        print(
            f"one chat: {args.games} games, {commands} commands in {spent:.2f} s: "
            f"{one_rate:.0f} commands/s; handle() p50 {p50 * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms, "
            f"max {max(latencies) * 1e3:.2f} ms; CPU per command {one_cpu[0]:.0f} µs here, "
            f"{one_cpu[1]:.0f} µs in redis-server"
        )
        print(
            f"floor: its {sum(len(calls) for _, calls in noted_one)} Redis calls again in "
            f"{floor_one_s:.2f} s, turn by turn, handle() took {served_one_s:.2f} s: "
            f"{floor_one_s / served_one_s:.2f} of the floor ({floor_one_apart_s / served_one_s:.2f}"
            f" with the calls sent again all at once after the games)"
        )

        await redis.flushall()
        sizes, points = await record(service, args.record, update_ids)
        mid = sum(sizes.mid) / len(sizes.mid)
        some = [key async for key in redis.scan_iter(keys.update("rec", "*"), count=1000)]
        update_key = int(await redis.memory_usage(some[0]) or 0) if some else 0
        print(
            f"game hash: {mid:.0f} B mid-game (round {MID_ROUND}), {max(sizes.end)} B at the "
            f"end, {sizes.largest} B at most; an update id key {update_key} B"
        )

        await redis.flushall()
        if args.fresh:
            chats = [Client(f"c{n}", random.Random(n), update_ids) for n in range(args.chats)]
        else:
            chats = await spread(redis, args.chats, points)
        start_round = sum(c.round for c in chats) / len(chats)
        memory = await used_memory(redis)
        if not args.fresh:
            await spread(floor_client, args.chats, points)
        used = await cpu(redis)
        NOTED.clear()
        beside = Beside(redis, floor_client, args.in_flight)
        seconds, players_s, loaded = await many_chats(
            service, chats, args.in_flight, args.seconds, beside
        )
        served_many_s = seconds - players_s
        floor_many_s = beside.seconds
        noted_many = list(NOTED)
        many = len(loaded)
        many_cpu = per_command(used, less(await cpu(redis), beside.cpu), many)
        await floor_client.flushdb()  # what the floor added, before the data is weighed
        grown = await used_memory(redis) - memory
        many_rate = many / seconds
        print(
            f"{args.chats} chats ({'fresh' if args.fresh else 'spread over the game'}, mean "
            f"round {start_round:.1f}), {args.in_flight} in flight: {many} commands in "
            f"{seconds:.2f} s: {many_rate:.0f} commands/s; handle() p50 "
            f"{percentile(loaded, 0.5) * 1e3:.1f} ms, p99 {percentile(loaded, 0.99) * 1e3:.1f} ms "
            f"(queueing); CPU per command {many_cpu[0]:.0f} µs here, {many_cpu[1]:.0f} µs in "
            f"redis-server"
        )
        async with redis.pipeline(transaction=False) as pipe:
            for chat in chats:
                pipe.memory_usage(keys.game(chat.chat))
            live_sizes = [int(size or 0) for size in await pipe.execute()]
        live_mean = sum(live_sizes) / len(live_sizes)
        shards = {keys.timers(chat.chat) for chat in chats}
        timers = sum([int(await redis.zcard(shard)) for shard in shards])
        timers_bytes = sum([int(await redis.memory_usage(shard) or 0) for shard in shards])
        print(
            f"live games: {live_mean:.0f} B per game hash (mean round "
            f"{sum(c.round for c in chats) / len(chats):.1f}); data +{grown} B, "
            f"{grown / many:.0f} B per command; {timers} timer entries, {timers_bytes} B"
        )
        await redis.flushall()
        if not args.fresh:
            await spread(redis, args.chats, points)
        floor_many_apart_s = await floor_many(redis, noted_many, args.in_flight)
        print(
            f"floor: their Redis calls again, {args.in_flight} in flight, spell by spell, in "
            f"{floor_many_s:.2f} s against the service's {served_many_s:.2f} s (the run's "
            f"{seconds:.2f} s less the players' own {players_s:.2f}): "
            f"{floor_many_s / served_many_s:.2f} of the floor ({floor_many_s / seconds:.2f} with "
            f"the players' part; {floor_many_apart_s / served_many_s:.2f} with the calls sent "
            "again all at once after the run)"
        )

        live: list[float] = []
        one_live: list[float] = []
        if args.live:
            one_live, live = await live_latency(
                service, redis, args.live, points, args.live_seconds, update_ids
            )
            print(
                f"{args.live} live games, one command at a time: p50 "
                f"{percentile(live, 0.5) * 1e3:.2f} ms, p99 {percentile(live, 0.99) * 1e3:.2f} "
                f"ms; one chat in turns of {TURN} commands with them: p50 "
                f"{percentile(one_live, 0.5) * 1e3:.2f} ms, "
                f"{percentile(live, 0.5) / percentile(one_live, 0.5):.2f} of it "
                f"({percentile(live, 0.5) / p50:.2f} of the one chat's p50 measured before)"
            )

        profile = None
        if args.profile is not None:
            await redis.flushall()
            profile = await profiled(service, args.games, update_ids, args.profile)
        clocked: dict[str, float] | None = None
        if args.parts:
            await redis.flushall()
            clocked = await parts(service, args.games, update_ids)
            print(
                f"one chat, a command's parts (µs): handle() {clocked['handle']:.0f}: Redis calls "
                f"{clocked['redis_calls']:.0f}, apply {clocked['apply']:.0f}, render "
                f"{clocked['render']:.0f}, to_bytes {clocked['to_bytes']:.0f}, the rest of the "
                f"save {clocked['save_other']:.0f}, glue {clocked['glue']:.0f}"
            )

        floors = {
            "floor_one_chat_s": round(floor_one_s, 3),
            "served_one_chat_s": round(served_one_s, 3),
            "service_vs_floor_one_chat": round(floor_one_s / served_one_s, 3),
            "floor_many_chats_s": round(floor_many_s, 3),
            "served_many_chats_s": round(served_many_s, 3),
            "players_many_chats_s": round(players_s, 3),
            "service_vs_floor_in_flight": round(floor_many_s / served_many_s, 3),
            "service_vs_floor_in_flight_with_players": round(floor_many_s / seconds, 3),
            "service_vs_floor_one_chat_apart": round(floor_one_apart_s / served_one_s, 3),
            "service_vs_floor_in_flight_apart": round(floor_many_apart_s / served_many_s, 3),
        }
        if live:
            floors |= {
                "live_games": args.live,
                "p50_ms_live": ms(percentile(live, 0.5)),
                "p99_ms_live": ms(percentile(live, 0.99)),
                "p50_ms_one_chat_beside_live": ms(percentile(one_live, 0.5)),
                "live_vs_one_chat_p50": round(percentile(live, 0.5) / percentile(one_live, 0.5), 3),
                "live_vs_one_chat_p50_apart": round(percentile(live, 0.5) / p50, 3),
            }
        return floors | {
            "commands_per_s_one_chat": round(one_rate),
            "commands_per_s_1000_chats": round(many_rate),
            "p50_ms": ms(p50),
            "p99_ms": ms(p99),
            "bytes_per_game_mid": round(mid),
            "bytes_per_game_max": sizes.largest,
            "bytes_per_game_end": max(sizes.end),
            "bytes_per_game_live_1000": round(live_mean),
            "meets_targets": {
                "commands_per_s": min(one_rate, many_rate) >= TARGETS["commands_per_s"],
                "p99_ms": p99 * 1e3 <= TARGETS["p99_ms"],
                "bytes_per_game": sizes.largest <= TARGETS["bytes_per_game"],
            },
            "mean_ms_one_chat": ms(sum(latencies) / len(latencies)),
            "max_ms_one_chat": ms(max(latencies)),
            "cpu_us_per_command_one_chat": one_cpu[0],
            "redis_cpu_us_per_command_one_chat": one_cpu[1],
            "p50_ms_1000_chats": ms(percentile(loaded, 0.5)),
            "p99_ms_1000_chats": ms(percentile(loaded, 0.99)),
            "cpu_us_per_command_1000_chats": many_cpu[0],
            "redis_cpu_us_per_command_1000_chats": many_cpu[1],
            "update_key_bytes": update_key,
            "redis_bytes_per_command": round(grown / many, 1),
            "timer_entries": timers,
            "timers_bytes": timers_bytes,
            "timer_entries_per_chat": round(timers / len(chats), 2),
            "commands_per_game": round(commands / args.games, 1),
            "games_one_chat": args.games,
            "commands_one_chat": commands,
            "chats": args.chats,
            "chats_start": "fresh" if args.fresh else "spread",
            "in_flight": args.in_flight,
            "seconds_1000_chats": round(seconds, 2),
            "commands_1000_chats": many,
            "update_ids": update_ids,
            "profile": profile,
            "parts_us_per_command": clocked,
            "collector": "defaults" if args.gc_defaults else "settled",
            "python": platform.python_version(),
        }
    finally:
        await floor_client.aclose()
        await redis.aclose()


async def profiled(service: GameService, games: int, update_ids: bool, path: str) -> str:
    """Play the one-chat games under cProfile; print the top functions."""
    profiler = cProfile.Profile()
    profiler.enable()
    await one_chat(service, games, update_ids)
    profiler.disable()
    if path:
        profiler.dump_stats(path)
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(30)
        print(out.getvalue())
    return path or "printed"


async def parts(service: GameService, games: int, update_ids: bool) -> dict[str, float]:
    """Play the one-chat games again with a clock around each part of a command: the Redis
    calls (redis-py and the round trips), the save around them (with `Table.to_bytes`),
    applying the request (`bot.dispatch.apply`) and drawing its messages (`render`). Microseconds
    a command; `glue` is what `handle()` spent outside those (each clock adds a little too)."""
    spent: dict[str, float] = dict.fromkeys(
        ("redis_calls", "to_bytes", "save", "apply", "render"), 0.0
    )

    def clocked(name: str, function: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start

        return timed

    def clocked_async(name: str, function: Any) -> Any:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await function(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start

        return timed

    store, client = service.store, service.store.client
    patched = [
        (client, "execute_command", clocked_async("redis_calls", client.execute_command)),
        (store, "save", clocked_async("save", store.save)),
        (Table, "to_bytes", clocked("to_bytes", Table.to_bytes)),
        (dispatch, "apply", clocked("apply", dispatch.apply)),
        (service_module, "render", clocked("render", service_module.render)),
    ]
    before = [(owner, name, owner.__dict__.get(name)) for owner, name, _ in patched]
    for owner, name, wrapper in patched:
        setattr(owner, name, wrapper)
    try:
        commands, _seconds, latencies = await one_chat(service, games, update_ids)
    finally:
        for owner, name, old in before:
            if old is None:
                delattr(owner, name)
            else:
                setattr(owner, name, old)
    per = {name: seconds / commands * 1e6 for name, seconds in spent.items()}
    per["handle"] = sum(latencies) / commands * 1e6
    per["save_other"] = per["save"] - per["redis_calls"] - per["to_bytes"]
    per["glue"] = per["handle"] - per["save"] - per["apply"] - per["render"]
    return {name: round(value, 1) for name, value in per.items()}


async def fsync_rates(games: int, update_ids: bool, runs: int) -> dict[str, float]:
    """Commands per second of the one-chat games against redis-servers that fsync always and
    every second, interleaved `runs` times: the medians and their ratio."""
    rates: dict[str, list[float]] = {"always": [], "everysec": []}
    with tempfile.TemporaryDirectory(prefix="wizard-bench-fsync-") as directory:
        servers = {
            mode: RedisServer(
                Path(directory) / mode, port=free_port(), appendonly=True, appendfsync=mode
            )
            for mode in ("always", "everysec")
        }
        for server in servers.values():
            server.start()
        try:
            for _ in range(runs):
                for mode, server in servers.items():
                    redis = aioredis.Redis.from_url(server.url)
                    try:
                        await redis.flushall()
                        store = Store(redis, Settings())
                        service = GameService(store, Config(), rng=random.Random(0))
                        commands, spent, _ = await one_chat(service, games, update_ids)
                        rates[mode].append(commands / spent)
                    finally:
                        await redis.aclose()
        finally:
            for server in servers.values():
                server.stop()
    always, everysec = (statistics.median(rates[mode]) for mode in ("always", "everysec"))
    print(
        f"fsync: {always:.0f} commands/s with appendfsync always, {everysec:.0f} with everysec "
        f"(one chat, medians of {runs} runs each, interleaved): {always / everysec:.2f}"
    )
    return {
        "commands_per_s_fsync_always": round(always),
        "commands_per_s_fsync_everysec": round(everysec),
        "fsync_always_vs_everysec": round(always / everysec, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games in the one-chat run")
    parser.add_argument("--record", type=int, default=3, help="games sampled for the bytes")
    parser.add_argument("--chats", type=int, default=1000)
    parser.add_argument("--in-flight", type=int, default=100, help="requests at once")
    parser.add_argument("--seconds", type=float, default=15.0, help="of the many-chat run")
    parser.add_argument("--fresh", action="store_true", help="start the many chats empty")
    parser.add_argument("--no-update-ids", action="store_true", help="send no update ids")
    parser.add_argument("--live", type=int, default=10_000, help="live games (0: leave it out)")
    parser.add_argument("--live-seconds", type=float, default=10.0, help="of the live run")
    parser.add_argument(
        "--fsync-runs", type=int, default=3, help="runs of each fsync mode (0: leave it out)"
    )
    parser.add_argument(
        "--gc-defaults", action="store_true", help="leave the garbage collector as it starts"
    )
    parser.add_argument(
        "--profile", nargs="?", const="", default=None, metavar="FILE", help="cProfile one chat"
    )
    parser.add_argument(
        "--parts", action="store_true", help="time each part of one chat's commands"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="wizard-bench-") as directory:
        server = RedisServer(directory, port=free_port(), appendonly=True, appendfsync="everysec")
        with server:
            print(f"redis-server on {server.url} (append-only, fsync everysec)")
            result = asyncio.run(run(args, server.url))
    if args.fsync_runs > 0:
        result |= asyncio.run(fsync_rates(args.games, not args.no_update_ids, args.fsync_runs))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
