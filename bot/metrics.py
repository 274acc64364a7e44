"""What the bot counts and times, for Prometheus: every metric declared once, in `Metrics`.

A `Metrics` holds a registry of its own (not prometheus-client's global one), so two services in
one process, or two tests, count apart; the process that serves `/metrics` (`adapters.health`)
passes one `Metrics` to every front end it runs, and their services, stores and outboxes count
into it. A `Metrics` also holds the process's readiness (`Readiness`): each configured front end
says how to tell whether it is connected, the health server whether Redis takes writes.

Label values come from small vocabularies declared where they belong (the command table's
`Kind`, the engine's `ErrorCode`, the chat table's `Refusal`, the AI levels, the store calls
named by `timed`, each front end's deliveries and platform name), never from what people
type. Names follow Prometheus's advice: a `wizard_` prefix, the unit in the name, `_total` for
counters.

Some values are read when scraped (`probe`): the live games and overdue timers from the timer
index in Redis, readiness, the posts waiting in the outboxes.
"""

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
)

from bot.logs import Recurring

log = logging.getLogger(__name__)

# No `_created` series beside each counter and histogram: they would double a scrape's size for
# a timestamp per series that nothing reads (process_start_time_seconds says when counting began).
disable_created_metrics()  # type: ignore[no-untyped-call]

COMMAND_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Seconds of a command (most take a few milliseconds; one with `hard` AI seats a second)."""
REDIS_BUCKETS = (0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
"""Seconds of a store call (a fraction of a millisecond nearby; `redis_timeout` at most)."""
WAIT_BUCKETS = (0.01, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
"""Seconds a post waits in its chat's queue (a busy group's 20 a minute: up to a minute)."""
AI_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Seconds of one AI decision (`hard`: a quarter of a second)."""
OVERDUE = 10.0
"""Seconds past its time a timer entry counts as overdue (a tick is a second)."""
PROBE_TIMEOUT = 2.0
"""Seconds the values read at scrape time may take together."""


class Handled(StrEnum):
    """How a request ended (`wizard_commands_total{outcome}`)."""

    DONE = "done"
    """Applied (written, or answered without a change: the rules, a hand)."""
    REFUSED = "refused"
    """Refused, and nothing changed (`wizard_refusals_total` says why)."""
    DUPLICATE = "duplicate"
    """A redelivered update, applied before."""
    STORE_AWAY = "store_away"
    """Redis could not be reached or did not answer in time."""
    ERROR = "error"
    """Failed otherwise (a bug: the log has its traceback)."""


STORE_CALLS: list[str] = []
"""The store calls that `timed` measures (the `call` label), in the order declared."""


@dataclass(frozen=True)
class Degraded:
    """A part that is up, though some of it is not (a master of a Redis Cluster): what is not
    (said in /readyz's 200 answer; `wizard_degraded`)."""

    reason: str


Up = bool | str | Degraded
"""A part's answer: up (True) or not (False); a text: not up, for that reason (said in /readyz);
`Degraded`: up, with some of it not."""
Check = Callable[[], Up | Awaitable[Up]]
"""Whether a part is up now (a front end: connected; the store: every master takes writes)."""


def is_up(answer: Up) -> bool:
    """Whether a part that answered `answer` serves (degraded or not)."""
    return answer is True or isinstance(answer, Degraded)


class Readiness:
    """Whether each part of the process that must be up to serve is up. A part is expected
    (configured: not ready until it says how to tell) and then reports a check, asked on every
    /readyz and scrape; `None` again when it stops. Parts are named by the front ends and the
    health server; none of them knows another."""

    def __init__(self) -> None:
        self._checks: dict[str, Check | None] = {}
        self._failing: dict[str, Recurring] = {}
        """Each part's check that raised, its traceback logged once while it fails alike."""

    def expect(self, part: str) -> None:
        """`part` is configured: it is not ready until it reports."""
        self._checks.setdefault(part, None)

    def report(self, part: str, check: Check | None) -> None:
        """How to tell whether `part` is up now (None: it is stopped, or not started yet)."""
        self._checks[part] = check

    async def ready(self) -> dict[str, bool]:
        """Each part, in the order expected, and whether it is up (asked at once)."""
        return {part: is_up(answer) for part, answer in (await self.answers()).items()}

    async def answers(self) -> dict[str, Up]:
        """Each part, in the order expected, and its answer (`Up`: asked at once)."""
        parts = list(self._checks.items())
        answers = await asyncio.gather(*(self._ask(part, check) for part, check in parts))
        return {part: answer for (part, _), answer in zip(parts, answers, strict=True)}

    async def _ask(self, part: str, check: Check | None) -> Up:
        if check is None:
            return False
        failing = self._failing.setdefault(part, Recurring(logging.WARNING))
        try:
            answer = check()
            up = await answer if isinstance(answer, Awaitable) else answer
        except Exception as error:
            failing.failed(log, error, "the readiness check of %s failed", part)
            return False
        failing.worked()
        return up if isinstance(up, str | Degraded) else bool(up)


class Metrics:
    """The bot's metrics in a registry of their own (see the module's docstring)."""

    def __init__(self) -> None:
        registry = self.registry = CollectorRegistry()
        ProcessCollector(registry=registry)  # process_*: CPU, memory, open files, start time
        self.ready = Readiness()
        self._probes: dict[str, Callable[[], Awaitable[None]]] = {}
        self._known: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None = None
        """The label values to create at 0 at the first scrape (`declare`)."""
        self._children: dict[tuple[object, ...], Any] = {}
        """Each labelled series once looked up (`labels()` costs as much as counting)."""

        def counter(name: str, text: str, labels: Iterable[str] = ()) -> Counter:
            return Counter(name, text, tuple(labels), registry=registry)

        def gauge(name: str, text: str, labels: Iterable[str] = ()) -> Gauge:
            return Gauge(name, text, tuple(labels), registry=registry)

        def histogram(
            name: str, text: str, buckets: tuple[float, ...], labels: Iterable[str] = ()
        ) -> Histogram:
            return Histogram(name, text, tuple(labels), registry=registry, buckets=buckets)

        # the games and their requests
        self.games_live = gauge(
            "wizard_games_live",
            "Chats with a lobby or a game in play (entries of the timer index), per scope",
            ["scope"],
        )
        self.commands = counter(
            "wizard_commands", "Requests handled, by command and outcome", ["kind", "outcome"]
        )
        self.refusals = counter("wizard_refusals", "Requests refused, by reason", ["code"])
        self.command_seconds = histogram(
            "wizard_command_duration_seconds",
            "Seconds from a request to its outcome (store calls, rules, AI moves, rendering)",
            COMMAND_BUCKETS,
        )
        self.ai_seconds = histogram(
            "wizard_ai_decision_duration_seconds",
            "Seconds one AI move took to decide, by level",
            AI_BUCKETS,
            ["level"],
        )
        # the store
        self.redis_seconds = histogram(
            "wizard_redis_call_duration_seconds",
            "Seconds of one store call (one or a few Redis round trips), by call",
            REDIS_BUCKETS,
            ["call"],
        )
        self.redis_errors = counter(
            "wizard_redis_call_errors",
            "Store calls that failed (Redis away, too slow, or refusing), by call",
            ["call"],
        )
        # timers
        self.timers_due = counter(
            "wizard_timers_due", "Timer entries found due by the timer loop, per scope", ["scope"]
        )
        self.timers_fired = counter(
            "wizard_timers_fired",
            "Timers that changed a table (a reminder, a timeout, an idle lobby closed)",
            ["scope"],
        )
        self.timers_overdue = gauge(
            "wizard_timers_overdue",
            f"Timer entries more than {OVERDUE:g} s past their time and not handled, per scope",
            ["scope"],
        )
        self.last_tick = gauge(
            "wizard_timer_tick_timestamp_seconds",
            "When this process's timer loop last ticked (Unix time), per scope",
            ["scope"],
        )
        # posting
        self.posts = counter(
            "wizard_posts",
            "Posts made (sent, edited...) or failed, by platform and result",
            ["platform", "result"],
        )
        self.post_retries = counter(
            "wizard_post_retries",
            "Posts tried again (the platform or the store was away), by platform",
            ["platform"],
        )
        self.post_wait = histogram(
            "wizard_outbox_wait_seconds",
            "Seconds from queueing a post to the platform's answer, by platform",
            WAIT_BUCKETS,
            ["platform"],
        )
        self.outbox_depth = gauge(
            "wizard_outbox_posts_waiting", "Posts waiting in the outbox, by platform", ["platform"]
        )
        self.rate_limited = counter(
            "wizard_rate_limited",
            "Answers 429 (too many requests) from a platform, by platform",
            ["platform"],
        )
        self.ready_gauge = gauge(
            "wizard_ready",
            "Whether each part is up (1) or not (0): redis and the front ends",
            ["part"],
        )
        self.degraded_gauge = gauge(
            "wizard_degraded",
            "Whether each part is up with some of it down (1: a Redis Cluster's master) or not",
            ["part"],
        )

    # --- declaring label values ------------------------------------------------------------

    def declare(self, kinds: Iterable[str], codes: Iterable[str], levels: Iterable[str]) -> None:
        """The known label values: every series of them is created at 0 before the first
        scrape (a series that appears only at its first event hides that event from rate()).
        The first call counts; it costs nothing until scraped."""
        if self._known is None:
            self._known = (tuple(kinds), tuple(codes), tuple(levels))

    def _create_known(self) -> None:
        if self._known is None:
            return
        kinds, codes, levels = self._known
        self._known = None
        for kind in kinds:
            for outcome in Handled:
                self.commands.labels(kind, outcome.value)
        for code in codes:
            self.refusals.labels(code)
        for level in levels:
            self.ai_seconds.labels(level)
        for call in STORE_CALLS:
            self.redis_seconds.labels(call)
            self.redis_errors.labels(call)

    # --- the hot path ----------------------------------------------------------------------

    def series(self, metric: Counter | Histogram, *values: str) -> Any:
        """`metric.labels(*values)`, looked up once (the vocabularies are small)."""
        key = (metric, *values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def handled(self, kind: str, outcome: Handled, seconds: float) -> None:
        """A request of `kind` ended with `outcome` after `seconds`."""
        self.series(self.commands, kind, outcome.value).inc()
        self.command_seconds.observe(seconds)

    def refused(self, code: str) -> None:
        self.series(self.refusals, code).inc()

    def thought(self, level: str, seconds: float) -> None:
        """An AI of `level` took `seconds` to decide a move (called from worker threads too:
        the metrics lock themselves)."""
        self.series(self.ai_seconds, level).observe(seconds)

    def posting(self, platform: str, results: Iterable[str]) -> "Posting":
        """What one platform's outbox counts into; `results`: what its deliveries return."""
        return Posting(self, platform, results)

    # --- values read when scraped ----------------------------------------------------------

    def probe(self, name: str, read: Callable[[], Awaitable[None]]) -> None:
        """Run `read` (which sets gauges) before each scrape; one per `name`, the last given."""
        self._probes[name] = read

    async def refresh(self, timeout: float = PROBE_TIMEOUT) -> None:
        """Ask the readiness checks and run the probes (at once, for `timeout` seconds at most:
        one that fails or is late leaves its gauges as they were)."""
        self._create_known()
        for part, answer in (await self.ready.answers()).items():
            self.ready_gauge.labels(part).set(1.0 if is_up(answer) else 0.0)
            self.degraded_gauge.labels(part).set(1.0 if isinstance(answer, Degraded) else 0.0)
        probes = list(self._probes.items())
        if not probes:
            return
        try:
            done = await asyncio.wait_for(
                asyncio.gather(*(read() for _, read in probes), return_exceptions=True),
                timeout,
            )
        except TimeoutError:
            log.debug("the probes took longer than %g s", timeout)
            return
        for (name, _), result in zip(probes, done, strict=True):
            if isinstance(result, Exception):
                log.debug("the %s probe failed: %s", name, result)


FAILED_POST = "error"
"""The `result` of a post whose delivery raised (and was not tried again, or was given up)."""


class Posting:
    """The metrics of one platform's outbox, its label values bound once."""

    def __init__(self, metrics: Metrics, platform: str, results: Iterable[str]) -> None:
        self._results = {
            result: metrics.posts.labels(platform, result) for result in (*results, FAILED_POST)
        }
        self._retried = metrics.post_retries.labels(platform)
        self._wait = metrics.post_wait.labels(platform)
        self._depth = metrics.outbox_depth.labels(platform)

    def posted(self, result: str, waited: float) -> None:
        """A post ended with `result` (a delivery's value, or `FAILED_POST`) `waited` seconds
        after it was queued."""
        counter = self._results.get(result)
        if counter is not None:
            counter.inc()
        self._wait.observe(waited)

    def retried(self) -> None:
        self._retried.inc()

    def waiting(self, count: Callable[[], int]) -> None:
        """How to count the posts waiting, when scraped."""
        self._depth.set_function(count)


class Watched(Protocol):
    """Something that counts into a `Metrics` (the store)."""

    metrics: Metrics


W = TypeVar("W", bound=Watched)
P = ParamSpec("P")
R = TypeVar("R")


def timed(
    call: str,
) -> Callable[
    [Callable[Concatenate[W, P], Coroutine[Any, Any, R]]],
    Callable[Concatenate[W, P], Coroutine[Any, Any, R]],
]:
    """Time a store method as the store call `call` (`wizard_redis_call_duration_seconds`),
    counting its failures (`wizard_redis_call_errors_total`)."""
    STORE_CALLS.append(call)

    def wrap(
        method: Callable[Concatenate[W, P], Coroutine[Any, Any, R]],
    ) -> Callable[Concatenate[W, P], Coroutine[Any, Any, R]]:
        @functools.wraps(method)
        async def timed_call(self: W, /, *args: P.args, **kwargs: P.kwargs) -> R:
            started = time.perf_counter()
            try:
                return await method(self, *args, **kwargs)
            except Exception:
                self.metrics.series(self.metrics.redis_errors, call).inc()
                raise
            finally:
                seconds = time.perf_counter() - started
                self.metrics.series(self.metrics.redis_seconds, call).observe(seconds)

        return timed_call

    return wrap
