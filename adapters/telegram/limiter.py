"""A rate limiter that counts Telegram's 429 answers (`RetryAfter`) and otherwise leaves every
decision to the limiter it wraps (PTB's `AIORateLimiter`, which waits and retries)."""

from collections.abc import Callable, Coroutine
from typing import Any

from prometheus_client import Counter
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

Answer = bool | dict[str, Any] | list[dict[str, Any]]


class CountingLimiter(BaseRateLimiter[Any]):
    """`inner`, with each 429 that a request gets counted in `limited` (the retries too: each
    is one more 429)."""

    def __init__(self, inner: BaseRateLimiter[Any], limited: Counter) -> None:
        self.inner = inner
        self.limited = limited

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Answer]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: Any,
    ) -> Answer:
        async def counted(*call_args: Any, **call_kwargs: Any) -> Answer:
            try:
                return await callback(*call_args, **call_kwargs)
            except RetryAfter:
                self.limited.inc()
                raise

        return await self.inner.process_request(
            counted, args, kwargs, endpoint, data, rate_limit_args
        )
