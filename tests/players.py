"""People playing a Telegram game against the fake Bot API server, as a person would: they look
at what their chats show and press a button they are shown (never /hand)."""

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from fake_telegram import Event, FakeTelegram, MessageView, User


@dataclass
class Press:
    """One press of a shown button: who, where, what, in which round."""

    user: User
    chat: int
    message: int
    data: str
    round: int


@dataclass
class Players:
    """The people at a game in the group `group`, and what they saw."""

    fake: FakeTelegram
    rng: random.Random
    group: int
    people: tuple[User, ...]
    acked: list[Press] = field(default_factory=list)
    backs: list[tuple[str, float]] = field(default_factory=list)
    """(what was restarted, seconds from it being back to the next acknowledged press)."""
    in_flight: list[Press] = field(default_factory=list)
    """Presses made as the bot or Redis was killed, with their queries (`queries`)."""
    queries: list[str] = field(default_factory=list)
    refused: set[tuple[int, int, int, str]] = field(default_factory=set)
    """Messages as they were (`looks`) when a press on them was refused: a person looks for a
    newer one, or for this one changed."""
    log: list[str] = field(default_factory=list)
    """A line per press (shown when the test fails)."""
    began: float = field(default_factory=time.monotonic)

    def over(self) -> bool:
        return any("The game is over" in e.text for e in self.fake.transcript(self.group))

    def turn(self) -> Press | None:
        """A button someone is shown for the move the game waits for: the newest turn message
        with buttons in a private chat, or, for an open bid, the group table's for the person
        it names ("Bob to bid.")."""
        for user in self.people:
            hands = [m for m in self.fake.current_messages(user.id).values() if "Round " in m.text]
            if not hands:
                continue
            hand = hands[-1]
            buttons = [b.callback_data for row in hand.keyboard for b in row if b.callback_data]
            if buttons and (user.id, user.id, hand.message_id, looks(hand)) not in self.refused:
                data = self.rng.choice(buttons)
                return Press(user, user.id, hand.message_id, data, round_of(hand.text))
        tables = [
            m
            for m in self.fake.current_messages(self.group).values()
            if m.text.startswith("🔮 Round ")
        ]
        if tables and tables[-1].keyboard:
            table = tables[-1]
            for user in self.people:
                if f"\n{user.first_name} to bid." not in table.text:
                    continue
                if (user.id, self.group, table.message_id, looks(table)) in self.refused:
                    return None
                bids = [b.callback_data for row in table.keyboard for b in row if b.callback_data]
                data = self.rng.choice(bids)
                return Press(user, self.group, table.message_id, data, round_of(table.text))
        return None

    async def shown(self) -> Press | None:
        """The next button to press, as soon as someone is shown one; None once the game is
        over."""
        return await first_shown(self.turn, self.over)

    async def answer_to(self, query: str) -> Event | None:
        """The bot's answer to a press, within 15 s (None: none came)."""
        await until(lambda: self.fake.callback_answer(query) is not None, 15)
        return self.fake.callback_answer(query)

    async def press(self, press: Press) -> Event | None:
        """Press it, and read what changed: the answer (None if none came)."""
        pressed = next(
            m
            for m in self.fake.current_messages(press.chat).values()
            if m.message_id == press.message
        )
        update = self.fake.press(press.chat, press.user, press.message, press.data)
        answer = await self.answer_to(update["callback_query"]["id"])
        await self.settle()
        if answer is not None and not answer.show_alert:
            self.acked.append(press)
        elif answer is not None and "store" not in answer.text:
            # Out of date, or not their turn: that message is no use until it changes.
            self.refused.add((press.user.id, press.chat, press.message, looks(pressed)))
        return answer

    async def settle(self) -> None:
        """Until the bot has gone quiet (a person reads what changed)."""
        with contextlib.suppress(TimeoutError):
            await self.fake.wait_idle(timeout=5, quiet=0.15)

    async def play(self) -> int:
        """Press shown buttons until the game is over; the presses acknowledged."""
        while (press := await self.shown()) is not None:
            await self.press(press)
        return len(self.acked)


def round_of(text: str) -> int:
    """The round a table or hand message shows ("Round 3 of 5")."""
    return int(text.split("Round ", 1)[1].split(" ", 1)[0])


T = TypeVar("T")


def looks(message: MessageView) -> str:
    """A message as a person sees it: its text and its buttons."""
    return repr((message.text, message.keyboard))


async def first_shown(turn: Callable[[], T | None], over: Callable[[], bool]) -> T | None:
    """What `turn()` finds once it finds something; None once the game is `over()`."""
    end = time.monotonic() + 30
    while time.monotonic() < end:
        found = turn()
        if found is not None or over():
            return found
        await asyncio.sleep(0.01)
    raise AssertionError("nobody has a button for 30 s, and the game is not over")


async def until(done: Callable[[], bool], timeout: float) -> bool:
    """Whether `done()` came to hold within `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if done():
            return True
        await asyncio.sleep(0.01)
    return done()
