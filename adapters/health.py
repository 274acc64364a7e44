"""The health and metrics HTTP server at `metrics.listen` (aiohttp), which `adapters.serve` runs
beside the front ends:

- `/healthz`: 200 while the process runs its event loop (it answers at all);
- `/readyz`: 200 `ready` when Redis takes writes (every master of a Cluster, each asked at
  once within `redis_timeout`: `bot.store.writable`) and every configured front end is
  connected; else 503, the body naming what is not, and why when it is known (`not ready:
  redis (Redis refuses writes: OutOfMemoryError: …), telegram`, `not ready: redis (Redis is
  loading its data)`). A Cluster some of whose masters take writes is up, degraded: 200
  `ready, degraded: redis (Redis master 10.0.0.5:6379 refuses writes: …)`, as the other
  masters' chats are served;
- `/metrics`: the `Metrics` in Prometheus's text format (or OpenMetrics, if asked for), with
  the values read at scrape time (readiness, live games, overdue timers) read first.

It knows no front end: they report into the `Metrics`' readiness (`bot.metrics.Readiness`).
"""

import logging

import redis.asyncio as aioredis
from aiohttp import web
from prometheus_client.aiohttp import make_aiohttp_handler

from adapters.healthcheck import HEALTH_PATH, READY_PATH
from bot import RedisClient
from bot.metrics import Degraded, Metrics, Up, is_up
from bot.store.writable import AWAY, asked, masters, takes_writes

log = logging.getLogger(__name__)

METRICS_PATH = "/metrics"
REDIS = "redis"
"""The store's name in the readiness (the front ends name themselves)."""


def parse_listen(listen: str) -> tuple[str, int]:
    """The host and port of `host:port` (`[::1]:9100` for an IPv6 address; no host: every
    address), the port in ASCII digits, the host with no space or control character;
    ValueError saying what is wrong otherwise."""
    host, colon, port = listen.rpartition(":")
    valid = port.isascii() and port.isdigit() and 0 <= int(port) <= 65535
    if not colon or not valid or not host.isprintable() or any(c.isspace() for c in host):
        raise ValueError(f"{listen!r} is not host:port")
    return host.strip("[]"), int(port)


async def serve_app(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve `app` at host:port; its runner (to clean up) and the port bound (the one asked
    for, or the one given for 0). Raises OSError for an address that cannot be listened on."""
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host or None, port)
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    bound = runner.addresses  # the port bound, when 0 was asked for
    return runner, int(bound[0][1]) if bound else port


class HealthServer:
    """Serves the endpoints for `metrics`; `redis` (bounded by `redis_timeout` seconds) is the
    store whose answer readiness needs."""

    def __init__(self, metrics: Metrics, redis: RedisClient, redis_timeout: float) -> None:
        self.metrics = metrics
        self.redis = redis
        self.redis_timeout = redis_timeout
        self.port: int | None = None
        """The port it listens on, once started (the one asked for, or the one given for 0)."""
        self._runner: web.AppRunner | None = None
        self._scrape = make_aiohttp_handler(metrics.registry)
        self._remap = False
        """Whether to read a Cluster's slot map anew before the next check (`_masters`)."""
        metrics.ready.report(REDIS, self._redis_answers)

    async def start(self, listen: str) -> None:
        """Listen at `listen` (host:port). Raises ValueError for an address that is no
        host:port, OSError for one that cannot be listened on."""
        host, port = parse_listen(listen)
        app = web.Application()
        app.router.add_get(HEALTH_PATH, self.healthz)
        app.router.add_get(READY_PATH, self.readyz)
        app.router.add_get(METRICS_PATH, self.scrape)
        self._runner, self.port = await serve_app(app, host, port)
        log.info("health and metrics at http://%s:%s (/healthz, /readyz, /metrics)", host, port)

    async def stop(self) -> None:
        """Stop serving (the Redis client stays the caller's)."""
        self.metrics.ready.report(REDIS, None)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def healthz(self, _request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(self, _request: web.Request) -> web.Response:
        answers = (await self.metrics.ready.answers()).items()
        waiting = [f"{part} ({up})" if up else part for part, up in answers if not is_up(up)]
        if waiting:
            return web.Response(status=503, text=f"not ready: {', '.join(waiting)}\n")
        degraded = [f"{part} ({up.reason})" for part, up in answers if isinstance(up, Degraded)]
        if degraded:
            return web.Response(text=f"ready, degraded: {', '.join(degraded)}\n")
        return web.Response(text="ready\n")

    async def scrape(self, request: web.Request) -> web.StreamResponse:
        await self.metrics.refresh()
        return await self._scrape(request)

    async def _redis_answers(self) -> Up:
        """Whether Redis takes writes now (`bot.store.writable`): on one server, not if it
        refuses them, saying why (full, unable to persist, a replica, loading its data), nor
        if it does not answer within `redis_timeout`; on a Cluster, each master asked at once
        (`_masters`)."""
        if isinstance(self.redis, aioredis.RedisCluster):
            return await self._masters(self.redis)
        said = await asked(self._once(self.redis), self.redis_timeout)
        if said is None:
            return True
        return False if said == AWAY else f"Redis {said}"

    async def _masters(self, cluster: aioredis.RedisCluster) -> Up:
        """Each master of the Cluster, as the client's slot map says, asked at once
        (`bot.store.writable.masters`): up when each takes writes; degraded, naming the
        others, when some do; not up, naming each, when none does (a Cluster that is down:
        none does). After a check that found one failing, the map is read anew first (the
        client reads it only on errors of its own calls, and this one makes none), within
        `redis_timeout` too, else the map as it was is asked: such a check takes at most twice
        `redis_timeout`, any other at most once."""
        found = await masters(cluster, self.redis_timeout, remap=self._remap)
        if found is None:
            return False
        failing = [f"Redis master {name} {what}" for name, what in found.items() if what]
        self._remap = bool(failing)
        if not failing:
            return True
        reason = "; ".join(failing)
        return reason if len(failing) == len(found) else Degraded(reason)

    async def _once(self, client: aioredis.Redis) -> None:
        """`takes_writes` on a connection of the client's pool, each command tried once: the
        client's own calls try again on LOADING (and on a connection lost), each later, which
        would outlast the time the check has and hide why."""
        pool = client.connection_pool
        connection = await pool.get_connection()  # type: ignore[no-untyped-call]

        async def ask(command: str, args: tuple[object, ...]) -> object:
            await connection.send_command(command, *args)
            return await connection.read_response()

        try:
            await takes_writes(ask)
        except BaseException:
            await connection.disconnect()  # an answer may still be on its way
            raise
        finally:
            await pool.release(connection)
