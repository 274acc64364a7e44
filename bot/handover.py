"""What a worker made outside any request (a coach's review worked out, the AI moves a timeout
left, made aside), kept for its chat until the timer loop of the chat's scope hands it to the
front end: a review at the next tick (`GameService.tick`), like the timers' outcomes; the AI
moves as soon as they are made, between ticks (`GameService.made_aside`), or at the next tick
if they were made while it ran."""

from typing import Generic, TypeVar

from bot.store import keys

T = TypeVar("T")


class Handover(Generic[T]):
    """Outcomes (or what a tick makes them from) waiting to be handed to their scope's front
    end (`take`); beyond `most` (if given), the oldest are dropped."""

    def __init__(self, most: int | None = None) -> None:
        self._most = most
        self._waiting: list[tuple[str, T]] = []

    def add(self, chat: str, outcome: T) -> None:
        self._waiting.append((chat, outcome))
        if self._most is not None:
            del self._waiting[: -self._most]

    def __len__(self) -> int:
        """How many outcomes wait to be taken."""
        return len(self._waiting)

    def take(self, scope: str) -> list[tuple[str, T]]:
        """The outcomes of `scope`'s chats, in the order they came (handed over once)."""
        mine = [(chat, outcome) for chat, outcome in self._waiting if keys.scope(chat) == scope]
        if mine:
            self._waiting = [item for item in self._waiting if keys.scope(item[0]) != scope]
        return mine
