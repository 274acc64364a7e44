"""The health and metrics HTTP server at `metrics.listen` (aiohttp), which `adapters.serve` runs
beside the front ends:

- `/healthz`: 200 while the process runs its event loop (it answers at all);
- `/readyz`: 200 when Redis answers a PING within `redis_timeout` and takes this process's
  writes (`bot.metrics.Writes`), and every configured front end is connected; else 503, the body
  naming what is not, and why when it is known (`not ready: redis (Redis refuses writes:
  OutOfMemoryError: …), telegram`, `not ready: redis (Redis is loading its data)`);
- `/metrics`: the `Metrics` in Prometheus's text format (or OpenMetrics, if asked for), with
  the values read at scrape time (readiness, live games, overdue timers) read first.

It knows no front end: they report into the `Metrics`' readiness (`bot.metrics.Readiness`).
"""

import asyncio
import logging

import redis.asyncio as aioredis
from aiohttp import web
from prometheus_client.aiohttp import make_aiohttp_handler
from redis.exceptions import BusyLoadingError

from adapters.healthcheck import HEALTH_PATH, READY_PATH
from bot import RedisClient
from bot.metrics import Metrics, Up
from bot.store import failure, refuses_writes

log = logging.getLogger(__name__)

METRICS_PATH = "/metrics"
REDIS = "redis"
"""The store's name in the readiness (the front ends name themselves)."""
LOADING = "Redis is loading its data"
"""The store's readiness while Redis loads its dataset (a restart: it answers LOADING)."""


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
        waiting = [f"{part} ({up})" if up else part for part, up in answers if up is not True]
        if waiting:
            return web.Response(status=503, text=f"not ready: {', '.join(waiting)}\n")
        return web.Response(text="ready\n")

    async def scrape(self, request: web.Request) -> web.StreamResponse:
        await self.metrics.refresh()
        return await self._scrape(request)

    async def _redis_answers(self) -> Up:
        """Whether Redis answers a PING within `redis_timeout` seconds, and takes writes: not
        if it refused the last write of a service here (or the PING: MISCONF refuses it too),
        for a reason that lasts (full, unable to persist, a replica), saying it; nor while it
        loads its data (LOADING), saying that."""
        try:
            await asyncio.wait_for(self._ping(), self.redis_timeout)
        except BusyLoadingError:
            return LOADING
        except Exception as error:
            if refuses_writes(error):
                return refusing(failure(error))
            log.debug("Redis does not answer: %s", error)
            return False
        refused = self.metrics.writes.refusal()
        return True if refused is None else refusing(refused)

    async def _ping(self) -> None:
        """One PING on a connection of the client's pool, tried once: the client's own calls
        try again on LOADING (and on a connection lost), each later, which would outlast the
        time the check has and hide why."""
        if isinstance(self.redis, aioredis.RedisCluster):
            await self.redis.ping()
            return
        pool = self.redis.connection_pool
        connection = await pool.get_connection()  # type: ignore[no-untyped-call]
        try:
            await connection.send_command("PING")
            await connection.read_response()
        except BaseException:
            await connection.disconnect()  # an answer may still be on its way
            raise
        finally:
            await pool.release(connection)


def refusing(answer: str) -> str:
    """The store's readiness while Redis refuses writes, saying `answer`."""
    return f"Redis refuses writes: {answer}"
