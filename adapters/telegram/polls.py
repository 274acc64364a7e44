"""The long polls' HTTP client: PTB's own for getUpdates (one connection, its default
timeouts) that also says when Telegram answered one, with updates or none, so the front end
knows whether polling works (`/readyz`): PTB tells of some failures only, and of no answer none."""

from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from telegram.request import HTTPXRequest


class PollRequest(HTTPXRequest):
    """The getUpdates client, calling `answered` after each call Telegram answered with success
    (2xx, as PTB takes it); an error answer, or none, raises in PTB instead, for its error
    callback and its retries."""

    __slots__ = ("_answered",)

    def __init__(self, answered: Callable[[], None]) -> None:
        super().__init__(connection_pool_size=1)
        self._answered = answered

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        code, payload = await super().do_request(*args, **kwargs)
        if HTTPStatus.OK <= code < HTTPStatus.MULTIPLE_CHOICES:
            self._answered()
        return code, payload
