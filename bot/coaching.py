"""The coach of a service: hints worked out while the player waits, and reviews worked out in the
background, each in a thread (a hint at most `HINTERS` at once, reviews one at a time, so
neither holds up the event loop nor the AI seats' moves).

A review, once ready, waits here until the next tick of its chat's scope hands it to the front end
(`GameService.tick`), like the timers' outcomes. A round's review is said of "your last game" if
it arrives once its game is over (always so for the last round), or a newer game began there.
Each review promised is first noted in Redis by the service (a `Promise`: who, which chat and
game, in which language; `bot.store.keys.reviews`) and the note forgotten once the platform
took the review's posts (`Outcome.notes`, `adapters.delivered`): a worker that stops or dies
first leaves its notes to the worker that takes over its journal, which works them out again
(`start`) and posts them.
"""

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from bot.ai.coach import BidHint, CardHint, bid_hints, card_hints
from bot.ai.review import Mistake, record_so_far, review_game, review_round
from bot.handover import Handover
from bot.messages import Message, Outcome
from bot.show.coach import game_review, hint_message, round_review
from bot.show.i18n import texts
from bot.show.look import Look, personal
from bot.show.themes import DEFAULT_THEME, Theme
from bot.table import Table
from engine import PlayerView

HINTERS = 2
"""Hints worked out at once; more wait their turn."""
HINTS_KEPT = 1000
"""The figures of this many hints are kept (the newest): the same decision's hint asked again
is not worked out again."""
KEPT = 1000
"""Reviews ready and not yet handed over, at most (the oldest are dropped beyond it)."""
REMEMBERED = 256
"""Games' reviews kept once worked out (the decisions found, not their words): the same game's
review asked again by the same seat is handed over as it was, at no cost."""
QUEUED = 100
"""Reviews waiting to be worked out, at most: a game's review asked beyond it is refused (the
rounds' reviews are skipped) until the queue shortens."""

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Review:
    """A review worked out, waiting for its chat's next tick."""

    outcome: Outcome
    """As said while its game goes on."""
    late: Outcome
    """As said once its game is over or a newer one began in the chat ("round 5 of your last
    game"); a game's review says so already."""
    game: str | None = None
    """The game of the round reviewed (None: a finished game's review)."""
    named: frozenset[str] = frozenset()
    """Whom the chat was named for when the round ended (seated in another chat as well then):
    named for them still, wherever they sit once it arrives."""
    languages: Mapping[str, str] = field(default_factory=dict)
    """The people's languages at the table then."""
    note: str | None = None
    """The note of its promise in Redis, forgotten once it is delivered."""


Promise = dict[str, Any]
"""What a review promised needs to be worked out again by any worker (plain JSON): its kind
("game" or "round"), chat, language and theme, the record, and whose review it is."""


def _look_of(promise: Mapping[str, Any]) -> Look:
    """The look a promise was made in (an unknown theme is shown as the default one)."""
    theme = promise.get("theme", "")
    known = theme in Theme._value2member_map_
    return Look(texts(promise.get("language", "en")), Theme(theme) if known else DEFAULT_THEME)


R = TypeVar("R")


async def in_own_thread(work: Callable[[], R], name: str = "review") -> R:
    """What `work()` gives, run in a daemon thread of its own (`name`): not in asyncio's default
    executor, which a stopping worker joins (`asyncio.run` waits for its threads), nor in any
    executor Python joins at exit. A clean stop does not wait for a review under way (seconds
    of CPU): its note stays for the worker that takes over, and its result, if the thread ends
    after the loop closed, is dropped. Nor for a hint (`Coach.stop`)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[R] = loop.create_future()

    def settle(result: R | None, error: BaseException | None) -> None:
        if done.done():  # cancelled: the worker is stopping
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(cast(R, result))

    def run() -> None:
        try:
            result, error = work(), None
        except BaseException as failed:  # handed to the awaiting task, which logs it
            result, error = None, failed
        with contextlib.suppress(RuntimeError):  # the loop closed: the worker stopped
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return await done


class Stopped(Exception):
    """A hint asked for, or being worked out, as its worker stops cleanly (`Coach.stop`): none
    is given; asked again, the worker that runs then works it out."""


def _seeded(*parts: object) -> random.Random:
    """A random stream of its own for one hint or review: the same question, the same figures."""
    return random.Random(":".join(map(str, parts)))


class Coach:
    """Hints and reviews for the chats of one service."""

    def __init__(self) -> None:
        self._hinters: asyncio.Semaphore | None = None
        self._reviewer: asyncio.Semaphore | None = None
        self._ready: Handover[Review] = Handover(KEPT)
        self._tasks: set[asyncio.Task[None]] = set()
        self._asked: set[tuple[str, str]] = set()
        """(chat, person) of the games' reviews under way: one at a time each."""
        self._known: OrderedDict[tuple[str, str, int, tuple[int, ...]], list[Mistake]] = (
            OrderedDict()
        )
        """The games' reviews worked out, by (chat, record's digest, seat, rounds skipped),
        the newest last (at most `REMEMBERED`); written by the reviewer's thread."""
        self._lock = threading.Lock()
        self._hints: OrderedDict[
            tuple[str, int, int], asyncio.Future[tuple[Sequence[BidHint], Sequence[CardHint]]]
        ] = OrderedDict()
        """The figures of the last hints, by (game, seq, seat), being worked out or done."""
        self._sent: OrderedDict[tuple[str, int, int], None] = OrderedDict()
        """The last hints posted once (`hint`'s `once`), by (game, seq, seat): this worker's
        memory (the service marks them in Redis too, for the other workers)."""
        self._spent: list[tuple[str, str]] = []
        """The chats and notes of reviews that came to nothing (`spent`)."""
        self.hints_worked = 0
        """How many hints were worked out (not taken from one known)."""
        self._stopped = False

    def stop(self) -> None:
        """The worker stops cleanly: it waits for no hint. Those being worked out are dropped
        (their threads run on, nobody waits for them) and their askers told `Stopped`, as is
        anyone who asks from now on; reviews are left to their notes already (`in_own_thread`)."""
        self._stopped = True
        for figures in self._hints.values():
            figures.cancel()

    async def hint(
        self, look: Look, game: str, view: PlayerView, once: bool = False
    ) -> Message | None:
        """The hint for `view`'s player (in their language: `look` is theirs). The figures of
        one decision (game, move, seat) are worked out once: asked again, or again while they
        are being worked out (a double tap), they are the same ones (`HINTS_KEPT`). `once`:
        None if it was asked `once` before for the same decision (its message is posted where
        it was asked: a private chat), unless working it out failed then."""
        key = (game, view.table.seq, view.seat)
        if once:
            if key in self._sent:
                return None
            self._sent[key] = None
            while len(self._sent) > HINTS_KEPT:
                self._sent.popitem(last=False)
        try:
            return await self._hint(look, game, view, key)
        except BaseException:
            if once:
                self._sent.pop(key, None)
            raise

    def posted_here(self, game: str, view: PlayerView) -> bool:
        """Whether this coach posted `view`'s hint `once` already (among the last
        `HINTS_KEPT`); another worker may have (`GameService`: a mark in Redis)."""
        return (game, view.table.seq, view.seat) in self._sent

    async def _hint(
        self, look: Look, game: str, view: PlayerView, key: tuple[str, int, int]
    ) -> Message:
        """The hint for `view`'s player, of the figures known or worked out now (`Stopped` if
        they are not known and the worker stops)."""
        figures = self._hints.get(key)
        failed = (
            figures is not None
            and figures.done()
            and (figures.cancelled() or figures.exception() is not None)
        )
        if self._stopped and (figures is None or failed or not figures.done()):
            raise Stopped
        if figures is None or failed:  # none yet, or the last try failed: work them out again
            figures = asyncio.ensure_future(self._figures(game, view))
            self._hints[key] = figures
            while len(self._hints) > HINTS_KEPT:
                self._hints.popitem(last=False)
        try:
            bids, cards = await asyncio.shield(figures)
        except asyncio.CancelledError:
            if self._stopped and figures.cancelled():  # dropped by `stop`, not this task
                raise Stopped from None
            raise
        return hint_message(look, view, bids, cards)

    async def _figures(
        self, game: str, view: PlayerView
    ) -> tuple[Sequence[BidHint], Sequence[CardHint]]:
        """A hint's figures, worked out in a thread of their own (at most `HINTERS` at once),
        which a clean stop does not wait for (`in_own_thread`, `stop`)."""
        if self._hinters is None:
            self._hinters = asyncio.Semaphore(HINTERS)
        rng = _seeded(game, view.table.seq, view.seat)
        async with self._hinters:
            self.hints_worked += 1
            if view.legal_bids:
                return await in_own_thread(lambda: bid_hints(view, rng), "hint"), []
            return [], await in_own_thread(lambda: card_hints(view, rng), "hint")

    @staticmethod
    def round_promise(
        chat: str, look: Look, table: Table, number: int, named: frozenset[str] = frozenset()
    ) -> Promise:
        """The review of round `number` of `table`'s game for each person at it (each whose
        round had a costly decision gets it privately; the chat named for those in `named`, as
        their other private messages of it are): to note, then `start`."""
        people = [
            [seat, player.id]
            for seat, player in enumerate(table.game.players)
            if player.id not in table.ai and number not in table.autopilot.get(player.id, ())
        ]
        return {
            "kind": "round",
            "chat": chat,
            "language": look.t.language,
            "theme": look.theme.value,
            "record": record_so_far(table.game),
            "people": people,
            "number": number,
            "game": table.game_id,
            "languages": dict(table.languages),
            "named": sorted(named),
        }

    @staticmethod
    def game_promise(
        chat: str,
        look: Look,
        record: Mapping[str, Any],
        seat: int,
        player: str,
        skip: Sequence[int] = (),
    ) -> Promise:
        """The review of a finished game (its `record`) for the person in `seat`, but for the
        rounds `skip` (where the AI moved for them), in their `look`: to note, then `start`."""
        return {
            "kind": "game",
            "chat": chat,
            "language": look.t.language,
            "theme": look.theme.value,
            "record": dict(record),
            "seat": seat,
            "player": player,
            "skip": sorted(skip),
        }

    def busy(self, promise: Mapping[str, Any]) -> bool:
        """Whether `start` would refuse `promise` now: the person's last game review is under
        way, or the queue is full."""
        if promise["kind"] == "game" and (promise["chat"], promise["player"]) in self._asked:
            return True
        return len(self._tasks) >= QUEUED

    def start(self, promise: Mapping[str, Any], note: str | None = None) -> bool:
        """Work out a review promised (`round_promise`, `game_promise`) in the background; it is
        handed over once worked out, with its `note`. False (and nothing is done) while `busy`,
        or for a promise not understood (from a newer version of the bot)."""
        try:
            if promise["kind"] == "round":
                return self._review_round(promise, note)
            if promise["kind"] == "game":
                return self._review_game(promise, note)
        except (KeyError, TypeError, ValueError):
            log.warning("%s: a review promised could not be read", promise.get("chat"))
        return False

    def _review_round(self, promise: Mapping[str, Any], note: str | None) -> bool:
        chat, number = promise["chat"], int(promise["number"])
        if self.busy(promise):
            log.warning("%s: the coach is behind; round %d is not reviewed", chat, number)
            return False
        record, look = promise["record"], _look_of(promise)
        people = [(int(seat), str(pid)) for seat, pid in promise["people"]]
        game, languages = promise["game"], dict(promise["languages"])
        named = frozenset(promise["named"])

        def work() -> Review | None:
            now, late = [], []
            for seat, pid in people:
                rng = _seeded(record.get("seed"), seat)  # as the game's review: the same figures
                mistakes = review_round(record, seat, number, rng)
                if mistakes:
                    mine = personal(look, languages, pid)
                    now.append(round_review(mine, pid, number, mistakes))
                    late.append(round_review(mine, pid, number, mistakes, late=True))
            if not now:
                return None
            return Review(Outcome(tuple(now)), Outcome(tuple(late)), game, named, languages, note)

        self._background(chat, work, note)
        return True

    def _review_game(self, promise: Mapping[str, Any], note: str | None) -> bool:
        """The game's review goes to its person privately once it is worked out (at the next
        tick if it was before: `REMEMBERED`)."""
        if self.busy(promise):
            return False
        chat, player, seat = promise["chat"], str(promise["player"]), int(promise["seat"])
        record, look = promise["record"], _look_of(promise)
        skip = tuple(int(number) for number in promise["skip"])
        asked = (chat, player)
        digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
        known = (chat, digest, seat, skip)
        with self._lock:
            found = self._known.get(known)
        if found is not None:  # worked out before: as it was
            self._ready.add(chat, self._game_review(look, player, found, skip, note))
            return True
        self._asked.add(asked)

        def work() -> Review:
            try:
                rng = _seeded(record.get("seed"), seat)
                mistakes = review_game(record, seat, rng, skip=skip)
                with self._lock:
                    self._known[known] = mistakes
                    while len(self._known) > REMEMBERED:
                        self._known.popitem(last=False)
                return self._game_review(look, player, mistakes, skip, note)
            finally:
                self._asked.discard(asked)

        self._background(chat, work, note)
        return True

    @staticmethod
    def _game_review(
        look: Look,
        player: str,
        mistakes: Sequence[Mistake],
        skip: Sequence[int] = (),
        note: str | None = None,
    ) -> Review:
        """A game's review for `player` (but for the rounds `skip`, which the AI played for
        them), naming its chat always: it is asked for in the chat once the game is over and
        comes privately, where reviews of several chats' games may meet, and "your last game"
        alone does not say which."""
        shown = Outcome((game_review(look, player, mistakes, skip),))
        return Review(shown, shown, named=frozenset({player}), note=note)

    def under_way(self) -> int:
        """How many reviews are being worked out, or wait their turn to be."""
        return len(self._tasks)

    def waiting(self) -> int:
        """How many chats' reviews are worked out and not yet handed over (`ready`)."""
        return len(self._ready)

    def ready(self, scope: str) -> list[tuple[str, Review]]:
        """The reviews of `scope`'s chats worked out since last asked (handed over once)."""
        return self._ready.take(scope)

    async def settled(self) -> None:
        """Wait until every review under way is ready (for tests, and the terminal table's
        last reviews: a worker's clean stop does not wait for them)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def spent(self) -> list[tuple[str, str]]:
        """The chats and notes of the reviews that came to nothing since last asked (nobody's
        round had a costly decision, or working it out failed): their notes can go."""
        spent, self._spent = self._spent, []
        return spent

    def _background(
        self, chat: str, work: Callable[[], Review | None], note: str | None = None
    ) -> None:
        async def run() -> None:
            review = None
            if self._reviewer is None:
                self._reviewer = asyncio.Semaphore(1)
            try:
                async with self._reviewer:
                    review = await in_own_thread(work)
            except Exception:
                log.exception("%s: a review could not be worked out", chat)
            if review is not None:
                self._ready.add(chat, review)
            elif note is not None:
                self._spent.append((chat, note))

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
