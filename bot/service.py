"""The game service: one entry point takes (chat, user, request) and returns what to show.

Each request runs load → apply → save → notify as one optimistic transaction against the store,
retried on conflict, so concurrent requests for a chat apply one at a time, each once:

- load: the chat's snapshot (its table and settings); the chat as this worker last read or
  wrote it (`Store.known`) when it has it, so that a command costs one round trip, the save;
  what is refused or shows without a write there is applied again to the chat as read now;
- apply: `bot.dispatch` reads the request with the command table and runs its handler
  (`bot.chat`), which decides what changes and what to show;
- save: a compare-and-set of what changed (a conflict answers the chat as it is now: apply
  again to that);
- notify: once saved, what the handler asked to show is rendered from the saved table.

AI seats, and players on autopilot after a timeout, move apart from any transaction: once a
write leaves the game waiting for them, the worker that wrote it decides each AI move from the
chat as saved, in a bounded pool of threads (so an AI that thinks holds up neither the chat's
write nor other chats), and applies it as a request of its own, which is refused (and decided
again) if the seat sees anything changed meanwhile. What the moves show is shown with the
request that led to them. Should that worker die first, the table's deadline (a few seconds
then) fires on any worker, which makes the moves.

Nothing shown is lost when a worker dies between a save and its posts, or while Redis is away
(`tick`): every write is noted in the worker's journal with the write itself, each worker beats
once a tick, and a worker whose beat stopped (it died) has its journal taken over by another,
which shows those chats' lasting messages again (`current`); a worker that could not reach Redis
for a while shows its own journal's again. The front end posts each only where its slot shows an
older version. Spans in which no worker beat are outages, and turn clocks stand still in them.
"""

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from bot import dispatch, logs, queries
from bot.ai import LEVELS
from bot.ai.review import reviewable
from bot.chat import (
    LIVE_TTL,
    Context,
    Refusal,
    Refused,
    Result,
    RobotMove,
    decide,
    reminder_left,
    robot_level,
    robot_move,
    robot_seats,
    timeout,
    unseen,
)
from bot.clock import ServerClock
from bot.coaching import Coach, Promise, Stopped
from bot.commands import BY_KIND, MAX_ARGUMENT, Kind, of_payload
from bot.config import Config
from bot.handover import Handover
from bot.messages import OPTIONS, Message, Outcome
from bot.metrics import OVERDUE, Handled, Metrics
from bot.requests import Request, User
from bot.show.i18n import N_, Texts, catalog_language, error_text, texts
from bot.show.look import Look, look_of, personal
from bot.show.places import placed
from bot.show.render import Current, GroupTable, Lobby, Moved, Shown, hand_again, render
from bot.show.screens import HandScreen, has_choice
from bot.stats import Rerated, game_of, people
from bot.store import (
    RedisClient,
    Snapshot,
    Store,
    StoreErrors,
    failure,
    keys,
    refuses_writes,
)
from bot.store.seats import SeatIndex
from bot.store.stats import StatsStore
from bot.store.writable import Masters, node_of
from bot.table import Settings, Table
from bot.upgrades import NewerForm
from engine import (
    ROUND_PHASES,
    Command,
    ErrorCode,
    Phase,
    PlayerView,
    RuleError,
    player_view,
)
from engine.events import RoundScored

MAX_ATTEMPTS = 100
MAX_ID = 128
"""Characters of a chat's, a person's or an update's id at most."""
STORE_AWAY = N_("The game store cannot be reached right now. Please try again shortly.")
"""What anyone is told while Redis cannot be reached (or does not answer in time)."""
SORRY = N_("Sorry, something went wrong. Please try again.")
"""What someone is told whose request failed for another reason (a bug, a platform error)."""
STOPPED_HINT = N_("The bot is restarting: ask for your hint again in a moment.")
"""The answer of a hint its worker stopped before it was worked out (`Coach.stop`)."""
AWAY_ALL_GAME = N_(
    "The AI played every round of the last game here for you: the coach has no decision of "
    "yours to review."
)
"""The answer of /review for someone away for the whole of the last game (`Table.autopilot`)."""
HINT_SENT = N_("This hint was sent to you already. Type /hint in the game's chat to see it again.")
"""The answer of a hint pressed again where it was posted once (`GameService._coached`): on
Discord it may have been shown to the person alone and dismissed; typed, /hint posts it again."""
TIMER = User("timer", "")
"""Who a timeout is applied for."""
ROBOT = User("ai", "")
"""Who an AI move is applied for."""
PLATFORM = User("platform", "")
"""Who ends a game whose chat the bot can no longer post in (`GameService.unseen`)."""
THINKERS = 2
"""AI moves a worker decides at once, each in a thread of its own; more wait their turn."""
MAX_REDECIDED = 10
"""AI moves refused (the table moved on) and decided again, at most, in one run of them: then
the table's deadline makes the rest."""
MAX_ROBOT_MOVES = 400
"""AI moves one request leads to at most (a whole game of six AI seats and one player away
makes fewer); a guard against a loop."""
GAP = 3.0
"""Seconds without a beat of any worker of a scope that make an outage (a tick is a second)."""
LEASE = 1.5
"""Seconds after its last beat that a worker is taken for gone and its journal taken over."""
SKEW = 1.0
"""Seconds a worker's clock may be off the Redis server's before it warns: beats are compared
by the workers' clocks, and a beat older than `LEASE` is a worker gone."""
KEEP = 600.0
"""Seconds a journal remembers a write: what a worker may still have had to post (its posts
wait at most this long for a chat's flood window)."""

log = logging.getLogger(__name__)


def _an_id(text: str) -> bool:
    """Whether `text` is an id as front ends make them (`tg:-100123`): short printable ASCII
    without spaces or braces (a brace would break the hash tag of the chat's keys)."""
    return (
        0 < len(text) <= MAX_ID
        and text.isascii()
        and text.isprintable()
        and not any(char in text for char in " {}")
    )


def _own_language(user: User, request: Request) -> str | None:
    """The language of a request's answer when it is not its chat's: one given in the person's
    private chat (`Request.private`, where no /language is taken) is answered in their app's
    language where a catalog has it, as their hands and the private /start are; None: the
    chat's."""
    return catalog_language(user.language) if request.private else None


def _answer_language(user: User, request: Request) -> str | None:
    """The language of what the asker alone reads of a request's outcome (its answer, a
    refusal) when not the chat's: a request given in their private chat about the group's game
    (`Request.aside`: a press on a hand, a join by a link, a host's /options), or one whose
    answer the platform shows them alone (`Request.alone`: Discord's ephemeral replies) is
    answered in their app's language where a catalog has it, as their private messages are;
    what it shows the chat stays in the chat's. None: as the request's other texts
    (`_own_language`)."""
    return catalog_language(user.language) if request.aside or request.alone else None


def _sorry_language(user: User, request: Request) -> str | None:
    """The language of what someone is told whose request failed (`GameService.apology`):
    their app's where they alone read the answer (`_answer_language`) or gave it in their
    private chat (`_own_language`); None: the chat's."""
    return _answer_language(user, request) or _own_language(user, request)


def _ruled_language(user: User, request: Request) -> str | None:
    """The language of a refusal by the rules: that of the request's answer
    (`_answer_language`), or, for a move typed where everyone reads it (a Telegram group; the
    refusal goes to the mover's private chat, `Outcome.ruled`), their app's where a catalog has
    it, as everything else there; None: as the request's other answers (`_own_language`)."""
    spec = BY_KIND.get(request.kind)
    if request.aloud and spec is not None and spec.move:
        return catalog_language(user.language)
    return _answer_language(user, request)


def _autopilot(summary: Mapping[str, Any], seat: int) -> list[int] | None:
    """The rounds of a finished game (its `summary`) in which the AI moved for the person in
    `seat` (`bot.chat.game_summary`); None when it names none (nobody was away, or it was
    written before summaries kept them)."""
    rounds = summary.get("autopilot")
    if not isinstance(rounds, list) or not 0 <= seat < len(rounds):
        return None
    mine = rounds[seat]
    return [number for number in mine if isinstance(number, int)] if isinstance(mine, list) else []


def _readable(chat: str, user: User, request: Request, update_id: str | None) -> bool:
    """Whether a request is well formed: ids as front ends make them, a request kind, and an
    argument of a sane length (a front end makes its text safe; this is the service's guard).
    A press's payload of any length is read, by `bot.tokens`, which takes none longer than a
    token: a longer one is refused as any forged press is, not as a command not understood."""
    return (
        _an_id(chat)
        and _an_id(user.id)
        and (update_id is None or _an_id(update_id))
        and isinstance(request.kind, Kind)
        and isinstance(request.arg, str)
        and (request.kind is Kind.BUTTON or len(request.arg) <= MAX_ARGUMENT)
    )


def caused_by_store(error: BaseException | None) -> bool:
    """Whether `error`, or an error it wraps, is the store being away."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, StoreErrors):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


def _kind_of(request: Request) -> str:
    """The command a request gives, as the metrics count it: a press, by its button's command
    (`button` for one that is none of ours)."""
    if request.kind is not Kind.BUTTON:
        return request.kind.value
    spec = of_payload(request.arg) if isinstance(request.arg, str) else None
    return request.kind.value if spec is None else spec.kind.value


def _replaced(result: Result | None) -> bool:
    """Whether a timer's write replaced its entry by the table's next time before it was made
    (`Result.reindex`): its entry is not dropped after it then. An entry at the time that fired
    may be another worker's by then: one whose write was refused puts the entry back to the
    time the refusal answered (`ZADD LT`), which may be the one that fired, as a credited
    time fires again at once; dropped, the game was left with no entry, never timed out."""
    write = result.write if result is not None else None
    table = write.table if write is not None else None
    return result is not None and result.reindex and table is not None and table.wake() is not None


def _merged(first: Result, then: list[Result], seen: dict[str, str]) -> Result:
    """What `first` and the AI moves after it (`then`) show together, as one move would: the
    moves' events in order, the first notice, each changed hand as it is last (a new message
    if it is now the player's turn and was not before `first`, by the `seen` entries before
    it; the round's end a move showed before it goes first, as an edit), and the table as it
    is after them; written as the last wrote."""
    if not then:
        return first
    moves = [item for result in (first, *then) for item in result.shown if isinstance(item, Moved)]
    last = then[-1].write
    now = last.table.seen if last is not None and last.table is not None else {}
    hands: dict[str, tuple[HandScreen, bool]] = {}
    ends: dict[str, HandScreen] = {}  # a round's end shown before a new message (`changed_hands`)
    for move in moves:
        mine: dict[str, HandScreen] = {}
        for screen, _notify in move.hands:
            if screen.player in mine:
                ends[screen.player] = mine[screen.player]
            mine[screen.player] = screen
            before = seen.get(screen.player, "").partition("@")[0]
            turn = now.get(screen.player, "").partition("@")[0].endswith("!")
            hands[screen.player] = (screen, not before or (turn and not before.endswith("!")))
    shown_hands: list[tuple[HandScreen, bool]] = []
    for player, (screen, new) in hands.items():
        if player in ends:  # dropped when rendered unless a new message follows
            shown_hands.append((ends[player], False))
        shown_hands.append((screen, new))
    moved = Moved(
        events=tuple(event for move in moves for event in move.events),
        notice=next((move.notice for move in moves if move.notice), None),
        hands=tuple(shown_hands),
        view=moves[-1].view,
        seating=moves[-1].seating,
        ratings=next((move.ratings for move in reversed(moves) if move.ratings), ()),
    )
    shown = [item for item in first.shown if not isinstance(item, Moved)] + [moved]
    return Result(
        shown,
        first.answer,
        last,
        first.mend,
        first.reindex,
        first.hint,
        first.hint_once,
        first.hint_said,
        first.hint_private,
    )


class GameService:
    """Runs the games of every chat. Stateless itself: any number may share one Redis."""

    def __init__(
        self,
        store: Store,
        config: Config,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.metrics = store.metrics
        """What the service counts into (its store's: `bot.metrics`)."""
        self.metrics.declare(Kind, (*ErrorCode, *Refusal), LEVELS)
        self.stats = StatsStore(store.client)
        """The chats' stats and the players' indexes of chats (`bot.queries`)."""
        self.seats = SeatIndex(store.client, LIVE_TTL)
        """The chats where each person has a live seat (`bot.store.seats`)."""
        self.config = config
        self.clock = clock
        self.rng = rng or random.Random()
        self.worker = secrets.token_hex(4)
        """This worker's name in the heartbeats and journals (a new one each start)."""
        self.outages: tuple[tuple[float, float], ...] = ()
        """The recent outages, as of the last `tick`."""
        self._trimmed = 0.0
        self._unsure: set[str] = set()
        """Chats whose last write failed with a store error: it may have been applied, and its
        outcome was not shown (or its timer entry indexed again: `_index_again`); the next tick
        shows them again, and indexes their time (`_again`)."""
        self._enlisted: set[str] = set()
        """The scopes whose heartbeats name this worker already (it journals only there)."""
        self._ticking: set[str] = set()
        """The scopes this worker ticks in (it notes the reviews it promises there)."""
        self._skewed = False
        """Whether this worker warned that its clock is off the Redis server's (once)."""
        self._newer_forms: set[str] = set()
        """Chats where this worker met a form a newer version wrote (logged once each)."""
        self._broken: set[str] = set()
        """Chats whose timer could not be fired for an error of ours (logged once each)."""
        self._failing: str | None = None
        """What the store last failed with (`store_failed`), until a write goes through."""
        self._masters = Masters.of(store.client, config.redis_timeout)
        """On a Redis Cluster, its masters that refuse writes, as last asked (`store_failed`):
        the log follows them, not the worker's writes, which go to each master in turn."""
        self._asking: asyncio.Future[None] | None = None
        """The ask of the masters under way (`_ask_masters`), made aside."""
        self._thinkers: asyncio.Semaphore | None = None
        """Bounds the AI moves being decided at once (`THINKERS`)."""
        self.coach = Coach()
        """Hints, and the reviews worked out in the background (`bot.coaching`)."""
        self.reviewed_elsewhere = False
        """Whether the workers that tick in a chat's scope work out this worker's reviews of
        its chats, not this one: a web table's (`adapters.web`), which runs no tick there. Each
        is noted as this worker's, and this worker named in the scope's heartbeats, where it
        never beats: a worker of the scope takes it over at its next tick (as a gone worker's,
        `_take_reviews`), works it out and posts it."""
        self._spent: list[tuple[str, str]] = []
        """The chats and notes of the reviews that came to nothing, not yet forgotten."""
        self._moving: set[asyncio.Task[None]] = set()
        """The tasks making the AI moves a timer left aside (`_transact(aside=)`), until the
        moves are made and what they show waits in `_moved`."""
        self._running: set[str] = set()
        """Chats whose AI moves this worker is making (`_robots`: a request's, or a task's),
        one run a chat (`_claim`)."""
        self._recheck: set[str] = set()
        """Chats a write left waiting for the AI while this worker made their AI moves: those
        look at the chat again before they stop (`_robots`)."""
        self._moved: Handover[Outcome] = Handover()
        """What those moves show, until the timer loop hands it over (`made_aside`, or the
        next tick)."""
        self._made: dict[str, asyncio.Event] = {}
        """For each scope, set while it has moves made aside to show (`made_aside`)."""
        self._showing = 0
        """How many outcomes `made_aside` handed over that the loop has not shown yet, and
        `tick` (`_ticked`)."""
        self._ticked: dict[str, int] = {}
        """For each scope, how many outcomes of AI moves made aside its last ticks handed over
        with their own: the timer loop has shown them once it asks for more (`made_aside`)."""

    @classmethod
    def on_redis(
        cls,
        client: RedisClient,
        config: Config,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
        metrics: Metrics | None = None,
    ) -> "GameService":
        """A service keeping its games in the Redis of `client` (a chat's settings default to the
        configured language and theme), counting into `metrics` (else metrics of its own), going
        by `clock` (else the Redis server's, read at each tick: `bot.clock`)."""
        store = Store(
            client, Settings.defaults(config), metrics=metrics, ttl_floor=config.finished_ttl
        )
        return cls(store, config, clock or ServerClock(), rng)

    # --- entry points ---------------------------------------------------------------------

    @logs.serving
    async def handle(
        self, chat: str, user: User, request: Request, update_id: str | None = None
    ) -> Outcome:
        """Apply one request from `user` in `chat`. A redelivered `update_id` is applied once.
        Counted by its command and how it ended, and timed (`bot.metrics`)."""
        started = time.perf_counter()
        done = Handled.ERROR
        try:
            outcome, done = await self._handle(chat, user, request, update_id)
        finally:
            self.metrics.handled(_kind_of(request), done, time.perf_counter() - started)
        return outcome

    async def _handle(
        self, chat: str, user: User, request: Request, update_id: str | None
    ) -> tuple[Outcome, Handled]:
        if not _readable(chat, user, request, update_id):
            self.metrics.refused(ErrorCode.BAD_COMMAND)
            t = texts(self.config.language)
            answer = error_text(t, ErrorCode.BAD_COMMAND)
            return Outcome(answer=answer, alert=True), Handled.REFUSED
        spec = BY_KIND.get(request.kind) if request.kind is not Kind.BUTTON else None
        if spec is not None and spec.query:
            return await self._query(chat, user, request)
        try:
            record = await self.store.record(chat) if spec is not None and spec.record else None
            outcome, result = await self._transact(
                chat,
                update_id,
                user,
                partial(dispatch.apply, request=request),
                record=record,
                language=_own_language(user, request),
                own=_answer_language(user, request),
                ruled=_ruled_language(user, request),
            )
            if result is not None:
                return outcome, Handled.DONE
            return outcome, Handled.REFUSED if outcome.alert else Handled.DUPLICATE
        except StoreErrors as error:
            # The write may have been applied all the same (Redis ran it, and the answer was
            # lost): the chat is shown again, where it is behind, once Redis answers.
            self._unsure.add(chat)
            self.store_failed(error)
            answer = await self.apology(chat, store_away=True, own=_sorry_language(user, request))
            return Outcome(answer=answer, alert=True), Handled.STORE_AWAY
        except NewerForm as error:
            return await self._newer(
                chat, error, _sorry_language(user, request)
            ), Handled.STORE_AWAY

    @logs.serving
    async def show_again(self, chat: str) -> Outcome:
        """The group's lobby or table as it is now, as new messages: for a front end whose
        messages are gone (a Telegram group that became a supergroup)."""
        snap = await self.store.load(chat)
        table = snap.table
        shown: list[Shown]
        if table is None:
            return Outcome()
        if table.game.phase is Phase.LOBBY:
            shown = [Lobby(new=True)]
        elif table.game.phase in ROUND_PHASES:
            shown = [GroupTable(new=True)]
        else:
            return Outcome()
        messages = render(look_of(snap.settings), table, shown)
        return Outcome(tuple(messages), version=(table.game_id, snap.version), where=table.where)

    @logs.serving
    async def unseen(self, chat: str, only: str | None = None, muted: bool = False) -> Outcome:
        """The front end can no longer post in `chat` (the bot was removed from the group, the
        channel was deleted), or `only` in that place of it (a `Table.where`: a forum topic
        closed or deleted): its game there ends, each player told privately
        (`bot.chat.unseen`), `muted` that the bot may send no messages there (it is still in
        the chat). Nothing is shown where there was no game going."""
        play = partial(unseen, only=only, muted=muted)
        outcome, result = await self._transact(chat, None, PLATFORM, play)
        return outcome if result is not None else Outcome()

    async def tick(self, scope: str) -> list[tuple[str, Outcome]]:
        """What a worker of `scope` (the prefix of its chat ids: `tg`) does once a second: beat,
        take over the journals of gone workers, and fire due deadlines. What to show in which
        chat: the lasting messages of chats a crash or an outage may have left behind
        (`Outcome.again`), then the timeouts, then what AI moves made aside show that the timer
        loop has not taken yet (`made_aside` takes them as soon as they are made, between
        ticks), then the coach's reviews ready (`_reviewed`)."""
        shown: list[tuple[str, Outcome]] = []
        failed: set[str] = set()  # the Cluster's masters that failed at this tick
        self._ask_masters()
        try:
            if isinstance(self.clock, ServerClock) and not self.clock.anchored:
                await self.keep_time()  # before its first beat
            now = self.clock()
            mine = keys.journal(scope, self.worker)
            behind = await self._beaten(scope, now, failed)
            behind += [chat for chat in self._unsure if keys.scope(chat) == scope]
            # Each is unsure until shown: a chat of a Cluster's master that failed at this tick
            # is left for the next (`_passed`, `_missed`); on one server a failure ends the tick
            self._unsure.update(behind)
            if now - self._trimmed > KEEP / 10 and not self._passed_key(mine, failed):
                try:
                    await self.store.trim(mine, now - KEEP)
                    self._trimmed = now
                except StoreErrors as error:
                    self._missed(error, failed)
            for chat in dict.fromkeys(behind):
                if self._passed(chat, failed):
                    continue
                try:
                    outcome = await self._again(chat)
                except StoreErrors as error:
                    self._missed(error, failed)
                    continue
                self._unsure.discard(chat)
                if outcome.messages:
                    shown.append((chat, outcome))
        except StoreErrors as error:
            self.store_failed(error)
            return shown  # Redis is away: the next tick after it is back catches up
        fired = await self.run_timers(scope, aside=True, failed=failed)
        moved = self._moved.take(scope)
        # Shown by the timer loop with this tick's outcomes, before it waits for more
        # (`made_aside`): not shown till then (`aside_shown`)
        self._showing += len(moved)
        self._ticked[scope] = self._ticked.get(scope, 0) + len(moved)
        return shown + fired + moved + await self._reviewed(scope)

    async def _beaten(self, scope: str, now: float, failed: set[str]) -> list[str]:
        """A tick's beat (`Store.beat`), and the take-over of the journals of gone workers: the
        chats to show again (this worker's journal's, if it did not beat for a while, and the
        gone workers'). On a Cluster a master that fails at it (the heartbeats', a journal's) is
        noted in `failed` (`_missed`) and the rest is left for the next tick, so the tick goes
        on with the deadlines of the other masters (before, it ended there: no deadline fired
        while the heartbeats' master was frozen); the turn clocks then go by the outages of
        the last beat. On one server a failure ends the tick."""
        try:
            beat = await self.store.beat(scope, self.worker, now, GAP, LEASE)
        except StoreErrors as error:
            self._missed(error, failed)
            return []
        self.metrics.last_tick.labels(scope).set(now)
        self._enlisted.add(scope)
        self._ticking.add(scope)
        self.outages = beat.outages
        self._store_answered()
        self._check_clock(now, beat.server)
        if isinstance(self.clock, ServerClock):  # go by Redis's clock (`bot.clock`)
            self.clock.anchor(beat.server)
        mine = keys.journal(scope, self.worker)
        behind: list[str] = []
        try:
            if beat.last is not None and now - beat.last > GAP:
                behind += await self.store.journaled(mine, now - KEEP)  # Redis was away
            for gone in beat.gone:
                await self._take_reviews(scope, gone)
                chats = await self.store.journaled(keys.journal(scope, gone), now - KEEP)
                await self.store.adopt(scope, gone, mine, chats, now)
                # Noted since they were read (a web table's worker notes on, and named itself
                # in the heartbeats before `adopt` took its name out): taken now. One noted
                # after this read is named again by its worker, after `adopt`.
                await self._take_reviews(scope, gone)
                behind += chats
        except StoreErrors as error:
            # Left for the next tick: a gone worker is named in the heartbeats until its
            # journal is adopted. (This worker's own journal, after a gap in its beats, is not
            # read again: its beat is written, and the next finds no gap, as before.)
            self._missed(error, failed)
        return behind

    async def _take_reviews(self, scope: str, gone: str) -> None:
        """Work out again the reviews the worker `gone` promised and did not post (their notes
        are this worker's now); one the coach cannot take (its queue is full, a note not
        understood) is forgotten."""
        taken = await self.store.take_reviews(scope, gone, self.worker)
        dropped = []
        for note, text in taken.items():
            try:
                promise = json.loads(text)
            except ValueError:
                promise = None
            if not isinstance(promise, dict) or not self.coach.start(promise, note):
                log.warning("%s: a review promised by a gone worker is dropped", scope)
                dropped.append(note)
        await self.store.forget_reviews(scope, self.worker, dropped)

    async def posted(self, chat: str, notes: Sequence[str]) -> None:
        """Forget the notes of reviews whose posts the platform took (`Outcome.notes`): told by
        the front end once every post of their outcome was delivered, never before, so that a
        worker killed while a review waits in its outbox leaves it to the one that takes over.
        A store error leaves them noted (a duplicate at worst)."""
        with contextlib.suppress(*StoreErrors):
            await self.store.forget_reviews(keys.scope(chat), self.worker, list(notes))

    async def _forget_spent(self, scope: str) -> None:
        """Forget the notes of `scope`'s reviews that came to nothing (`Coach.spent`); a store
        error leaves them for the next call (worked out again, at worst, by a worker that takes
        over)."""
        self._spent += self.coach.spent()
        done = [note for chat, note in self._spent if keys.scope(chat) == scope]
        if not done:
            return
        with contextlib.suppress(*StoreErrors):
            await self.store.forget_reviews(scope, self.worker, done)
            self._spent = [item for item in self._spent if keys.scope(item[0]) != scope]

    async def _promise(self, promise: Promise) -> str | None:
        """Note a review promised in Redis, as this worker's, so that another takes it over if
        this one stops or dies; its note's id. None (no note) where this worker does not tick
        and no worker of the scope works its reviews out (`reviewed_elsewhere`): the terminal
        table's."""
        scope = keys.scope(promise["chat"])
        elsewhere = self._elsewhere(scope)
        if scope not in self._ticking and not elsewhere:
            return None
        note = secrets.token_hex(8)
        await self.store.note_review(scope, self.worker, note, json.dumps(promise))
        if elsewhere:  # never beats there: taken for gone, its notes taken over
            await self.store.enlist(scope, self.worker, self.clock())
        return note

    def _elsewhere(self, scope: str) -> bool:
        """Whether this worker's reviews in `scope` are left to the scope's workers."""
        return self.reviewed_elsewhere and scope not in self._ticking

    async def keep_time(self) -> None:
        """Read the Redis server's clock, for a service that goes by it (`bot.clock`): each
        tick does; a worker that runs no tick (the web table's) at its start."""
        if isinstance(self.clock, ServerClock):
            self.clock.anchor(await self.store.server_time())

    def _check_clock(self, now: float, server: float) -> None:
        """Warn, once, when this worker's clock is off the Redis server's by more than `SKEW`:
        the other workers then take its beats for a dead worker's (or it theirs), and the
        deadlines it sets and fires are off by as much. Only the operator can mend it."""
        off = now - server
        if abs(off) > SKEW and not self._skewed:
            self._skewed = True
            log.warning(
                "this worker's clock is %.0f s %s the Redis server's: keep the clocks of every "
                "worker and of Redis in time (NTP); until then other workers take this one for "
                "gone, and turn deadlines move by as much",
                abs(off),
                "ahead of" if off > 0 else "behind",
            )

    def store_failed(self, error: BaseException) -> None:
        """Log what the store failed with (away, out of memory, read-only, loading, unable to
        persist), once until a write goes through again or it fails otherwise: not once a
        request or a tick, and with no traceback (it is no bug of ours). Redis refusing writes
        until it is mended makes the store not ready meanwhile, or on a Cluster degraded while
        another master takes writes (`adapters.health` asks each master). On a Cluster any
        failure (refused, not answered, a slot moving too long) is said by master, as
        readiness asks them (`Masters`, at the next tick or beat told: `_ask_masters`): once
        when one starts failing, once when it takes writes again, whichever master the
        worker's other writes go to meanwhile; one over by then once, as brief."""
        if self._masters is not None:
            self._masters.failed(error)
            return
        said = failure(error)
        if said != self._failing:
            self._failing = said
            refuses = refuses_writes(error)
            readiness = "; this worker is not ready (/readyz) meanwhile" if refuses else ""
            log.warning(
                "the game store fails (%s): requests are answered that it cannot be reached, "
                "and the deadlines wait, until it takes writes again%s",
                said,
                readiness,
            )

    def _store_answered(self) -> None:
        """A write went through: say so once, if the store had failed."""
        if self._failing is not None:
            self._failing = None
            log.info("the game store answers again")

    def wrote(self, error: BaseException | None) -> None:
        """A write of this worker's beside the service's own (the web table's beat, which runs
        no tick) went through (None) or failed with `error`: Redis refusing it counts as the
        service's own writes do (the log); Redis away does not (the beat rides over
        it, and the requests say it). On a Cluster, the masters are asked here as at a tick
        (`_ask_masters`)."""
        if error is None:
            self._store_answered()
        elif refuses_writes(error):
            self.store_failed(error)
        self._ask_masters()

    def _ask_masters(self) -> None:
        """On a Cluster, ask its masters whether they take writes, while a write failed since
        the last ask or a master failed then, and log what changed (`Masters`): aside,
        one ask at a time, so that a master slow to answer (up to `redis_timeout`, twice)
        holds up neither the tick nor the beat."""
        if self._masters is None or not self._masters.due():
            return
        if self._asking is None or self._asking.done():
            self._asking = asyncio.ensure_future(self._masters.check())

    async def asked(self) -> None:
        """Wait for the ask of the masters under way, if any (for tests)."""
        if self._asking is not None:
            await self._asking

    async def moved(self) -> None:
        """Wait until every AI move made aside is made (for tests and a clean stop)."""
        while self._moving:
            await asyncio.gather(*self._moving, return_exceptions=True)

    async def made_aside(self, scope: str, within: float) -> list[tuple[str, Outcome]]:
        """What the AI moves made aside in `scope`'s chats show (a run a timer started, and a
        request's moves left to it: `_claim`), as soon as there is any, after `within` seconds
        at most (then most often none): the timer loop shows them between its ticks, not up to
        a tick later; it yields to the other tasks at least once. The caller tells
        `shown_aside` once it has shown them."""
        self._showing -= self._ticked.pop(scope, 0)  # the loop showed the tick's, before this
        made = self._made.setdefault(scope, asyncio.Event())
        if within > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(made.wait(), within)
        else:
            await asyncio.sleep(0)  # no time left: it yields to the other tasks all the same
        made.clear()
        taken = self._moved.take(scope)
        self._showing += len(taken)
        return taken

    def shown_aside(self, shown: Sequence[object]) -> None:
        """The outcomes `made_aside` handed over are shown (or failed to be)."""
        self._showing -= len(shown)

    async def aside_shown(self) -> None:
        """Wait until what the AI moves made aside show is shown, by a timer loop that runs
        (for tests)."""
        while self._moving or len(self._moved) or self._showing:
            await asyncio.sleep(0.001)

    @logs.serving
    async def current(self, chat: str) -> Outcome:
        """A game's lasting messages as they are now (the lobby, or the table and every hand, or
        its end, with how it moved the ratings as its first showing says: `_fold`), to post
        only where a slot shows an older version (`Outcome.again`). With no game (cancelled or
        closed before its posts were made), the group's lasting messages lose the buttons they
        kept, where a slot shows no later version, and so the private messages the closing
        write noted (people's hands, a lobby's host's toggles), each saying what its lost post
        said (`Snapshot.closed`; a private one naming the chat as `_placed` does), only where
        the slot's message is of the game the note names (the outcome's version's game id:
        `Snapshot.closed_game`; `NO_GAME` for a note that names none, as before). A turn's
        reminder the table no longer has up is deleted where a crash left it (`reminder_left`)."""
        try:
            snap = await self.store.load(chat)
        except NewerForm:
            return Outcome()  # a newer worker's game: it shows it
        return await self._current(chat, snap)

    @logs.serving
    async def _again(self, chat: str) -> Outcome:
        """`current`, for a chat a gone worker's write, or one of this worker's the store
        failed after, may have left behind: its timer entry too is brought back (`ZADD LT`)
        to the chat's time, as the write's second index (`_index_again`) may never have been
        made (a timer's move of the entry in between left it late)."""
        try:
            snap = await self.store.load(chat)
        except NewerForm:
            return Outcome()
        await self._index_by(chat, snap.table)
        return await self._current(chat, snap)

    async def _current(self, chat: str, snap: Snapshot) -> Outcome:
        """`current` of the chat as read (`snap`)."""
        if snap.table is None:
            if not snap.version:
                return Outcome()  # no game was ever written here (or it expired)
            bare = render(look_of(snap.settings), None, [Current(snap.closed)])
            closed = Outcome(tuple(bare), version=(snap.closed_game, snap.version), again=True)
            return self._placed(closed, snap.elsewhere, snap.settings, {})
        table = snap.table
        ratings: tuple[Rerated, ...] = ()  # a game's end says how it moved the ratings
        if table.game.phase is Phase.FINISHED:
            ratings = await self._fold(chat, table.game_id)
        messages = render(look_of(snap.settings), table, [Current(snap.closed, ratings)])
        messages = [*messages, *reminder_left(table)]
        outcome = Outcome(
            tuple(messages), version=(table.game_id, snap.version), where=table.where, again=True
        )
        return self._placed(outcome, snap.elsewhere, snap.settings, snap.table.languages)

    async def run_timers(
        self, scope: str, aside: bool = False, failed: set[str] | None = None
    ) -> list[tuple[str, Outcome]]:
        """Fire every turn deadline of `scope` that is due; return what to show in which chat.
        `aside`: the AI moves a timeout leaves the game waiting for are made in tasks of their
        own (`_move_aside`), so that one chat's AI holds up neither the other chats' deadlines
        nor the worker's heartbeat; what each chat's moves show is handed to the timer loop as
        soon as they are made (`made_aside`, between its ticks), or by the next tick where the
        loop has not taken it yet (`tick`). `failed`: the Cluster's masters that failed at this
        tick already (`_missed`), not asked again."""
        shown = []
        now = self.clock()
        failed = set() if failed is None else failed
        try:
            missed: list[BaseException] = []
            due = await self.store.due_timers(scope, now, missed=missed, skip=failed)
            for error in missed:
                self._missed(error, failed)
            self.metrics.timers_due.labels(scope).inc(len(due))
            journal = keys.journal(scope, self.worker)  # each write notes the chat there
            for chat, indexed in due:
                if self._passed(chat, failed, journal):
                    continue  # its entry stays, and fires at a tick that reaches its master
                deadline: float | None = indexed
                try:
                    while deadline is not None:
                        # The transaction decides: of several workers (or a player moving at
                        # the same moment) exactly one changes the table; the others see it
                        # moved on.
                        fire = partial(timeout, deadline=deadline)
                        outcome, result = await self._transact(chat, None, TIMER, fire, aside=aside)
                        # An entry that was early moves to the table's next time, unless a
                        # move replaced it meanwhile (and back, if the chat read again has an
                        # earlier one: `_moved_back`); then that one is fired if due.
                        mend = result.mend if result is not None else None
                        if result is not None and result.write is not None:
                            self.metrics.timers_fired.labels(scope).inc()
                        if not _replaced(result):
                            moved = await self.store.drop_timer(chat, deadline, then=mend)
                            if moved and mend is not None and mend > deadline:
                                await self._moved_back(chat, mend)
                        if outcome.messages:
                            shown.append((chat, outcome))
                        deadline = mend if mend is not None and mend <= now else None
                except NewerForm as error:
                    self._warn_newer(chat, error)  # its entry stays, for a newer worker to fire
                except StoreErrors as error:
                    # A timeout it may have applied is shown again by a tick that reaches it
                    self._unsure.add(chat)
                    self._missed(error, failed)
                except Exception:
                    # A table that cannot be read (damaged) or a bug met in one chat: its entry
                    # stays and the other chats' deadlines still fire.
                    self._warn_broken(chat)
        except StoreErrors as error:
            # Redis is away; the entries stay and fire once it is back
            self.store_failed(error)
        return shown

    def _missed(self, error: BaseException, failed: set[str]) -> None:
        """A call of a tick's for one chat failed with `error`: on a Cluster, say it
        (`store_failed`) and note its master in `failed`, the tick going on with the chats of
        the others (`_passed`); else (one server, or a master not known) raise it, which ends
        the tick, as every other call would wait as long."""
        master = node_of(error) if self.store.cluster else None
        if master is None:
            raise error
        self.store_failed(error)
        failed.add(master)

    def _passed(self, chat: str, failed: set[str], *also: str) -> bool:
        """Whether a tick leaves `chat` for the next, its game or timer entry (or a key of
        `also`) on a master that failed at this tick (`_missed`): each master that does not
        answer holds the tick up once, about `redis_timeout`, not once a chat."""
        return bool(failed) and not failed.isdisjoint(self.store.masters(chat, *also))

    def _passed_key(self, key: str, failed: set[str]) -> bool:
        """Whether `key` is on a master that failed at this tick (`_missed`)."""
        return bool(failed) and not failed.isdisjoint(self.store.masters_of(key))

    async def _moved_back(self, chat: str, moved: float) -> None:
        """A timer moved the chat's entry on to `moved`, the chat's time as it read it: read
        the chat again, and bring the entry back (`ZADD LT`) to its time if that is earlier now.
        A write of another worker's that made it earlier and was indexed (`ZADD LT`, the entry
        earlier still) before the move landed before this read, and is seen here; one that
        lands after it indexes its time again once made (`_save`)."""
        await self._index_by(chat, (await self.store.load(chat)).table, moved)

    async def _index_by(self, chat: str, table: Table | None, than: float | None = None) -> None:
        """Bring the chat's timer entry back (`ZADD LT`) to the time of `table` (the chat as
        read), if it has one (earlier than `than`, where the entry is known to be there)."""
        wake = table.wake() if table is not None else None
        if wake is not None and (than is None or wake < than):
            await self.store.set_timer(chat, wake, earlier=True)

    async def count_timers(self, scope: str) -> None:
        """Read the live games of `scope` and its overdue timers from the timer index into
        the metrics (when they are scraped: `Metrics.probe`)."""
        live, overdue = await self.store.timer_counts(scope, self.clock() - OVERDUE)
        self.metrics.games_live.labels(scope).set(live)
        self.metrics.timers_overdue.labels(scope).set(overdue)

    # --- what front ends may read or change besides requests ------------------------------

    async def settings(self, chat: str) -> Settings:
        """A chat's settings (its language and deck theme)."""
        return await self.store.settings(chat)

    async def texts(self, chat: str) -> Texts:
        """The texts of a chat's language (the configured one while the store is away)."""
        try:
            return texts((await self.settings(chat)).language)
        except StoreErrors:
            return texts(self.config.language)

    async def apology(
        self,
        chat: str,
        error: BaseException | None = None,
        *,
        store_away: bool = False,
        own: str | None = None,
    ) -> str:
        """What to tell someone whose request in `chat` failed with `error`: that the store
        cannot be reached, or else a plain apology. Read by them alone, it is in `own`, their
        app's language (`_sorry_language`); else the store's absence is said in the configured
        language (the chat's own cannot be read then), and the apology in the chat's."""
        if store_away or caused_by_store(error):
            return texts(own or self.config.language)(STORE_AWAY)
        return (texts(own) if own is not None else await self.texts(chat))(SORRY)

    async def reviews(self, scope: str, wait: bool = False) -> list[tuple[str, Outcome]]:
        """The coach's reviews for `scope`'s chats worked out since last asked (all those under
        way, once worked out, if `wait`): for a front end that runs no tick (the terminal table);
        a tick hands them over otherwise."""
        if wait:
            await self.coach.settled()
        return await self._reviewed(scope)

    async def _reviewed(self, scope: str) -> list[tuple[str, Outcome]]:
        """The coach's reviews ready for `scope`'s chats, each naming its chat for whoever sits
        in another as well (now, or when its round ended); a round's said of the last game once
        its game is over (or a newer one began there). Each chat is read as it is now, not as
        this worker last knew it (`Store.known`): a mark set since, by any worker, changes no
        version, so only a read sees it (a review is no move: one read for each chat with
        reviews ready). Each outcome carries its review's note (`Outcome.notes`), forgotten
        once the front end posted it (`posted`); the notes of those that came to nothing are
        forgotten first."""
        await self._forget_spent(scope)
        ready = []
        for chat, review in self.coach.ready(scope):
            notes = () if review.note is None else (review.note,)
            try:
                snap = await self.store.load(chat)
            except (*StoreErrors, NewerForm):
                # it names no chat, but it is not held up
                ready.append((chat, replace(review.outcome, notes=notes)))
                continue
            table = snap.table
            on = (
                table is not None
                and table.game_id == review.game
                and table.game.phase is not Phase.FINISHED
            )
            outcome = review.outcome if on else review.late
            languages = {**review.languages, **(table.languages if table is not None else {})}
            elsewhere = snap.elsewhere | review.named
            placed = self._placed(outcome, elsewhere, snap.settings, languages)
            if table is not None:
                placed = await self._hands_again(chat, placed, snap, table, review.game)
            ready.append((chat, replace(placed, notes=notes)))
        return ready

    async def _hands_again(
        self, chat: str, outcome: Outcome, snap: Snapshot, table: Table, game: str | None
    ) -> Outcome:
        """`outcome` (a coach's review of a round of the game `game`, or of a finished game:
        None) with, under it, the hand of each person it goes to posted again where that asks
        them for a press now (`hand_again`): a review comes some time after its round, often
        once the next round's hand asked for their bid, and would push that hand up their
        private chat. So too their result with Play again, once the table's game it reviews is
        over: under the last round's review, which comes after the result, and a /review's
        answer. As of the chat as read now (`snap`)."""
        look = look_of(snap.settings)
        ratings: tuple[Rerated, ...] | None = None  # the result is not posted again
        over = table.game.phase is Phase.FINISHED and game in (None, table.game_id)
        if over and any(message.to is not None for message in outcome.messages):
            ratings = await self._fold(chat, table.game_id)  # as the result said them
        again = [
            hand
            for message in outcome.messages
            if message.to is not None
            and (hand := hand_again(look, table, message.to, ratings=ratings)) is not None
        ]
        if not again:
            return outcome
        # each names the chat as the hands do now, not as the review may (`Review.named`)
        shown = self._placed(Outcome(tuple(again)), snap.elsewhere, snap.settings, table.languages)
        version = outcome.version or (table.game_id, snap.version)
        return replace(outcome, messages=(*outcome.messages, *shown.messages), version=version)

    async def table(self, chat: str) -> Table | None:
        """A chat's table as stored (a copy to read: changing it changes nothing)."""
        return (await self.store.load(chat)).table

    async def seated(self, person: str) -> list[str]:
        """The chats where `person` has a live seat now (a lobby, or a game in play), found by
        their index of live seats and checked against each chat's table: for a front end that
        finds a person's games without a message of them (their private chat has none yet)."""
        chats = await self.seats.of(person)
        return await self._seated_at(person, chats, len(chats))

    async def hosted(self, person: str) -> list[str]:
        """The chats whose lobby (a table not started) `person` hosts now, among their live
        seats (`seated`)."""
        lobbies = []
        for chat in await self.seated(person):
            table = (self.store.known(chat) or await self.store.load(chat)).table
            if table is not None and table.host == person and table.game.phase is Phase.LOBBY:
                lobbies.append(chat)
        return lobbies

    @logs.serving
    async def for_host(
        self, chat: str, user: User, request: Request, update_id: str | None = None
    ) -> list[tuple[str, Outcome]]:
        """A host's command given in their private chat `chat` (`CommandSpec.hosted`: /options):
        applied to each lobby they host (`hosted`) as if given there, what it shows them going
        to their private chat (`Request.aside`); the chat each outcome is of, in the order of
        the chats. A typed setting (`/options notequal`) is applied when they host one lobby;
        hosting two, each shows its toggles. Hosting none: what they are told, in `chat`."""
        try:
            lobbies = await self.hosted(user.id)
        except StoreErrors as error:
            self.store_failed(error)
            answer = await self.apology(chat, store_away=True, own=catalog_language(user.language))
            return [(chat, Outcome(answer=answer, alert=True))]
        if not lobbies:
            t = texts(catalog_language(user.language) or self.config.language)
            text = t(
                "Only the host of a table that has not started can set its options. The first "
                "to /join opens a table and hosts it."
            )
            return [(chat, Outcome(messages=(Message(text),)))]
        arg = request.arg if len(lobbies) == 1 else ""
        aside = Request(request.kind, arg, aside=True)
        done = []
        for lobby in lobbies:
            update = None if update_id is None else f"{update_id}:{lobby}"
            done.append((lobby, await self.handle(lobby, user, aside, update)))
        return done

    @logs.serving
    async def toggles_now(self, chat: str, host: str, shown: tuple[str, int] | None) -> Outcome:
        """`host`'s option toggles of `chat`'s lobby as they are now (those of `current`: posted
        only where behind, as an edit), if the chat moved on from `shown`, the version the
        toggles `for_host` answered with were rendered from; else nothing. A front end asks it
        once those are delivered: a change written meanwhile found no toggles of theirs to
        edit. Nothing, too, if the store cannot be read (the toggles stay as they came)."""
        if shown is None:
            return Outcome()  # no toggles were rendered: nothing to bring up to date
        try:
            now = await self.current(chat)
        except StoreErrors:
            return Outcome()
        if now.version == shown:
            return Outcome()
        mine = tuple(m for m in now.messages if m.to == host and m.slot == OPTIONS)
        return replace(now, messages=mine)

    async def snapshot(self, chat: str) -> tuple[int, Table | None, Settings]:
        """A chat's version (every write bumps it), table (a copy to read) and settings, in one
        read: what a live view of the table (the web table) is drawn from."""
        read = await self.store.load(chat)
        return read.version, read.table, read.settings

    async def move_chat(self, old: str, new: str) -> list[str] | None:
        """Move chat `old`'s game and settings to chat `new` (a Telegram group that became a
        supergroup gets a new id). The people seated at the moved table; None if nothing
        moved (`old` had nothing, or `new` has a game already)."""
        if not await self.store.move_chat(old, new):
            return None
        await self.stats.moved(old, new)
        table = (await self.store.load(new)).table
        if table is not None:
            await self.seats.moved(old, new, table.seated())
        return table.humans() if table is not None else []

    # --- the stats ------------------------------------------------------------------------

    async def _title(self, chat: str) -> str:
        """The chat's name as its settings keep it ("" if never told)."""
        return (await self.store.settings(chat)).title

    async def player_names(self, chat: str, typed: str, limit: int) -> list[str]:
        """The names of this chat's players that start with `typed`, as /stats takes them
        (`queries.names`); none while the store cannot be reached (a suggestion, not an
        answer: nobody is told)."""
        try:
            return await queries.names(self.stats, chat, typed, limit)
        except StoreErrors as error:
            self.store_failed(error)
            return []

    @logs.serving
    async def _query(self, chat: str, user: User, request: Request) -> tuple[Outcome, Handled]:
        """A stats command (`bot.queries`): it reads the chat's settings and stats, and takes no
        transaction of the game (nothing of the table changes)."""
        try:
            settings = await self.store.settings(chat)
            language = _own_language(user, request)
            look = look_of(settings if language is None else replace(settings, language=language))
            own = _answer_language(user, request)  # of what the asker alone reads
            said = look if own is None else look_of(replace(settings, language=own))
            if request.kind is Kind.REVIEW:  # all it says is for the asker alone
                return await self._review(chat, user, said), Handled.DONE
            answer = await queries.answer(
                self.stats, chat, user, request, look, self.clock(), self._title, said
            )
            return answer, Handled.DONE
        except StoreErrors as error:
            self.store_failed(error)
            away = await self.apology(chat, store_away=True, own=_sorry_language(user, request))
            return Outcome(answer=away, alert=True), Handled.STORE_AWAY
        except NewerForm as error:
            return await self._newer(
                chat, error, _sorry_language(user, request)
            ), Handled.STORE_AWAY

    async def _review(self, chat: str, user: User, look: Look) -> Outcome:
        """Start the review of the chat's last finished game for `user` (it comes privately,
        once worked out); what to answer them now."""
        t = look.t
        record = await self.store.record(chat)
        last = await self.store.results(chat, 1)
        if not last:
            return Outcome(answer=t("No game has finished in this chat yet."), alert=True)
        players = last[0].get("players", [])
        if user.id not in players:
            return Outcome(answer=t("You did not play in the last game here."), alert=True)
        totals = last[0].get("totals", [])
        if record is None or not await asyncio.to_thread(
            reviewable, record, len(players), totals
        ):  # expired (records are kept 90 days, summaries for good), or cut short
            cut = t("The coach cannot review the last game here: its record is incomplete.")
            return Outcome(answer=cut, alert=True)
        seat = players.index(user.id)
        table = (await self.store.load(chat)).table
        languages = dict(table.languages) if table is not None else {}
        own = catalog_language(user.language)
        if own is not None:  # their app's, as `speaks` keeps it at a table: it comes privately
            languages[user.id] = own
        mine = personal(look, languages, user.id)
        skip = _autopilot(last[0], seat)
        if skip is None:  # nobody away, or an older summary: the table's, if of that game
            same = table is not None and table.game_id == last[0].get("game")
            skip = table.autopilot.get(user.id, []) if table is not None and same else []
        rounds = len(record.get("rounds", []))
        if rounds and set(range(1, rounds + 1)) <= set(skip):
            # "no decision cost you points" would praise the AI's moves as theirs
            return Outcome(answer=t(AWAY_ALL_GAME), alert=True)
        promise = self.coach.game_promise(chat, mine, record, seat, user.id, skip)
        busy = t("Your review is being worked out already; please wait for it.")
        if self.coach.busy(promise):
            return Outcome(answer=busy, alert=True)
        note = await self._promise(promise)  # noted before it is promised: never lost
        promised = Outcome(answer=t("Your review is being worked out: it comes to you privately."))
        if note is not None and self._elsewhere(keys.scope(chat)):
            return promised  # a worker of the chat's scope works it out and posts it
        if not self.coach.start(promise, note):
            if note is not None:
                await self.store.forget_reviews(keys.scope(chat), self.worker, [note])
            return Outcome(answer=busy, alert=True)
        return promised

    async def _newer(self, chat: str, error: NewerForm, own: str | None) -> Outcome:
        """What someone is told whose request reads what a newer version of the bot stored
        (during a rolling upgrade): the game cannot be had right now, and nothing was written
        (in `own`, their app's language, where they alone read it: `_sorry_language`)."""
        self._warn_newer(chat, error)
        answer = await self.apology(chat, store_away=True, own=own)
        return Outcome(answer=answer, alert=True)

    def _warn_newer(self, chat: str, error: NewerForm) -> None:
        """Log, once per chat, that this worker met a form a newer version of the bot wrote."""
        if chat not in self._newer_forms:
            self._newer_forms.add(chat)
            log.warning("%s: %s; this worker is older: stop it, start the newer one", chat, error)

    def _warn_broken(self, chat: str) -> None:
        """Log, with the traceback, once per chat, that its timer could not be fired."""
        if chat not in self._broken:
            self._broken.add(chat)
            log.exception("%s: its timer could not be fired; the other chats' timers go on", chat)

    async def _fold(self, chat: str, game: str) -> tuple[Rerated, ...]:
        """Carry the chat's stats forward to the game `game` (its id), which has ended, and
        how it moved each seat's rating, as the fold that folded it noted
        (`StatsStore.fold_game`); empty if the fold failed. If it fails (or the worker dies
        first), nothing is lost: the next read of the stats folds what is missing."""
        try:
            return await self.stats.fold_game(chat, game)
        except Exception:
            log.warning("could not fold the stats of %s", chat, exc_info=True)
            return ()

    # --- the transaction ------------------------------------------------------------------

    @logs.serving
    async def _transact(
        self,
        chat: str,
        update_id: str | None,
        user: User,
        apply: Callable[[Context], Result],
        record: dict[str, Any] | None = None,
        aside: bool = False,
        language: str | None = None,
        own: str | None = None,
        ruled: str | None = None,
    ) -> tuple[Outcome, Result | None]:
        """Load, apply, save, retried on conflict (`_save`); then the AI moves it leaves the
        game waiting for (`_robots`); then render what was saved. The outcome, and the result
        applied (None when the request was refused or already applied). `aside`: the AI moves
        and what they all show are made in a task of their own (`run_timers`); the outcome is
        then empty, and a timeout that wrote nothing (an early entry) makes none. `language`:
        the texts' language instead of the chat's (`_own_language`); `own`: that of what the
        asker alone reads (`_answer_language`); `ruled`: that of a refusal by the rules
        (`_ruled_language`)."""
        done = await self._save(chat, update_id, user, apply, record, language, own, ruled)
        if isinstance(done, Outcome):
            return done, None
        snap, result, seen = done
        write = result.write
        table = snap.table if write is None else write.table
        if table is not None and robot_seats(table):
            if aside and write is None:
                # A timer entry that came early (the index holds a time no later than the
                # table's) only moved on to the table's time: the game was left waiting for the
                # AI by a write whose worker makes those moves (should it die, the table's own
                # deadline, `ai_grace` on, makes them). Caught between that write and its
                # run's `_claim`, a run started here took the moves over, and the timer loop
                # showed them after the request that led to them, as a move of their own.
                return Outcome(), result
            # the game waits for the AI: after this write, or (read as it is now, by a request)
            # since a worker that was to move for it died
            if not self._claim(chat):  # this worker makes them already: that run does
                return (Outcome() if aside else await self._shown(chat, snap, result)), result
            if aside:
                task = asyncio.create_task(self._move_aside(chat, snap, result, seen))
                self._moving.add(task)
                task.add_done_callback(self._moving.discard)
                return Outcome(), result
            try:
                snap, result = await self._robots(chat, snap, result, seen)
            finally:
                self._running.discard(chat)
        return await self._shown(chat, snap, result), result

    def _claim(self, chat: str) -> bool:
        """Take the chat's run of AI moves on this worker (released once `_robots` stops),
        unless one is under way: that one then looks at the chat again before it stops
        (`_recheck`), and the caller makes none. Before, a request (a player asking for their
        hand, a move) made a second run beside a timer's or another request's: each decision
        made twice, the second refused once the first landed and decided again, holding a
        thinker each while other chats waited."""
        if chat in self._running:
            self._recheck.add(chat)
            return False
        self._running.add(chat)
        return True

    async def _shown(self, chat: str, snap: Snapshot, result: Result) -> Outcome:
        """What `result` (written against `snap`) shows, with a coach's hint and reviews, its
        private messages naming the chat where that tells it from another (`_placed`)."""
        outcome = self._notify(snap, result)
        write = result.write
        after = snap.table if write is None else write.table
        # The chat's marks as the write just made answered them (a read-only result was
        # applied to the chat as read now): no call to Redis.
        known = self.store.known(chat)
        elsewhere = known.elsewhere if known is not None else snap.elsewhere
        if after is not None and after.coach:
            outcome = await self._coached(chat, snap, after, result, outcome, elsewhere)
        settings = write.settings if write is not None and write.settings else snap.settings
        table = after or snap.table  # a cancelled game's people are those it had
        return self._placed(outcome, elsewhere, settings, table.languages if table else {})

    @staticmethod
    def _placed(
        outcome: Outcome,
        elsewhere: frozenset[str],
        settings: Settings,
        languages: Mapping[str, str],
    ) -> Outcome:
        """`outcome`, whose private messages name the chat (its `Settings.title`) for each
        person marked in it as having a live seat in another chat as well (`elsewhere`,
        `Snapshot.elsewhere`), and a host's option toggles in their private chat always (slot
        `OPTIONS`: they may host lobbies in two chats)."""
        if not settings.title:
            return outcome

        def named(message: Message) -> bool:  # a host's toggles say whose lobby, always
            return message.to is not None and (message.to in elsewhere or message.slot == OPTIONS)

        if not any(named(message) for message in outcome.messages):
            return outcome
        look = look_of(settings)
        messages = tuple(
            placed(personal(look, languages, message.to), message, settings.title)
            if named(message)
            else message
            for message in outcome.messages
        )
        return replace(outcome, messages=messages)

    async def _seated_at(self, person: str, chats: set[str], enough: int) -> list[str]:
        """Up to `enough` of `chats` where `person` has a live seat (their index may name a chat
        too many, see `bot.store.seats`): first those this worker knows to show the seat, at no
        cost, then the others as they are now, one read each, until `enough` are found. So a
        person seated in many chats costs a seat taken or left one or two reads, not one a chat."""
        live, unknown = [], []
        for other in sorted(chats):
            known = self.store.known(other)
            table = known.table if known is not None else None
            if table is not None and person in table.seated():
                live.append(other)
            else:
                unknown.append(other)
        for other in unknown:
            if len(live) >= enough:
                break
            table = (await self.store.load(other)).table
            if table is not None and person in table.seated():
                live.append(other)
        return live[:enough]

    async def _mark(self, chat: str, sat: dict[str, set[str]], risen: frozenset[str]) -> None:
        """After a write that seated people at `chat` (`sat`: the other chats their indexes
        name) or unseated them (`risen`): mark in each chat where they sit whether they sit in
        another as well (`Store.mark`).

        One live seat found elsewhere is enough for a seat taken: it and `chat` are marked (had
        the person two or more already, those are marked since the second was taken). Two are
        enough for a seat left: with one, that one is unmarked. The write is done: if this
        fails, a private message names its chat, or does not, where it should not, until the
        person's seats change so that the chat is marked again."""
        try:
            for person, chats in sat.items():
                live = await self._seated_at(person, chats, 1)
                for other in (*live, chat) if live else ():
                    await self.store.mark(other, person, True)
                if not live:
                    await self.store.mark(chat, person, False)  # a mark of an earlier game
            for person, chats in (await self.seats.rise(chat, risen)).items():
                live = await self._seated_at(person, chats, 2)
                if len(live) == 1:  # the one seat left: no other to tell it from
                    await self.store.mark(live[0], person, False)
        except (*StoreErrors, NewerForm) as error:
            log.info("%s: whether its people sit elsewhere is not marked: %s", chat, error)

    async def _move_aside(
        self, chat: str, snap: Snapshot, result: Result, seen: dict[str, str]
    ) -> None:
        """The AI moves after `result` and what they show together, for the timer loop to
        show at once (`made_aside`) (the chat's run `_claim`ed for it, released once the moves
        stop)."""
        try:
            try:
                snap, result = await self._robots(chat, snap, result, seen)
            finally:
                self._running.discard(chat)
            outcome = await self._shown(chat, snap, result)
            if outcome.messages:
                self._moved.add(chat, outcome)
                self._made.setdefault(keys.scope(chat), asyncio.Event()).set()
        except StoreErrors as error:  # said as any call the store failed; shown again later
            self._unsure.add(chat)
            self.store_failed(error)
        except Exception:  # the table's deadline for the AI makes the moves again
            log.exception("%s: the AI moves after a timeout failed", chat)

    async def _coached(
        self,
        chat: str,
        snap: Snapshot,
        table: Table,
        result: Result,
        outcome: Outcome,
        elsewhere: frozenset[str],
    ) -> Outcome:
        """At a coach table: the hint asked for, shown with `outcome`; and the rounds that
        `result` ended, reviewed in the background (naming the chat for those seated in
        another as well, `elsewhere`, when the round ended)."""
        settings = result.write.settings if result.write and result.write.settings else None
        look = look_of(settings or snap.settings)
        for item in result.shown:
            if isinstance(item, Moved):
                for event in item.events:
                    if isinstance(event, RoundScored):
                        await self._review_round(chat, look, table, event.round, elsewhere)
        asked = result.hint
        if asked is None:
            return outcome
        view = player_view(table.game, asked.seat)  # as it is after any AI moves it made
        if not has_choice(view):
            # the AI moved for them meanwhile (they are away): no hint, none promised
            return replace(outcome, answer=None)
        mine = personal(look, table.languages, view.player)
        sent = mine.t(HINT_SENT)
        once = result.hint_once
        mark = (chat, view.player, table.game_id, view.table.seq)
        marked = False
        if once and not self.coach.posted_here(table.game_id, view):
            try:  # pressed again on another worker (a double tap's second press)?
                if not await self.store.hint_posted(*mark):
                    return replace(outcome, answer=sent)
                marked = True
            except StoreErrors as error:  # this worker's memory alone, then
                self.store_failed(error)
        try:
            hint = await self.coach.hint(mine, table.game_id, view, once=once)
        except BaseException as error:
            if marked:  # none was posted: a press again works it out
                with contextlib.suppress(*StoreErrors):
                    await self.store.hint_unposted(*mark)
            if isinstance(error, Stopped):  # a clean stop does not wait for it
                said = result.hint_said or look.t  # as the asker is answered: `Context.own`
                return replace(outcome, answer=said(STOPPED_HINT))
            raise
        if hint is None:  # pressed again in their private chat: the hint is there already
            return replace(outcome, answer=sent)
        again = hand_again(look, table, view.player, hinted=True) if result.hint_private else None
        if again is None:
            return replace(outcome, messages=(*outcome.messages, hint))
        # the hand again under the hint, in place of any the outcome shows them before it
        # (it rings them if that did: a new turn of theirs)
        slot = again.slot

        def hand(message: Message) -> bool:
            return message.to == view.player and message.slot == slot

        rest = tuple(m for m in outcome.messages if not hand(m))
        rung = any(m.notify for m in outcome.messages if hand(m))
        return replace(outcome, messages=(*rest, hint, replace(again, quiet=not rung)))

    async def _review_round(
        self, chat: str, look: Look, table: Table, number: int, named: frozenset[str]
    ) -> None:
        """Review round `number` of a coach table in the background, noted first; if Redis
        cannot take the note, it is worked out all the same (lost only if this worker stops)."""
        promise = self.coach.round_promise(chat, look, table, number, named)
        if self.coach.busy(promise):
            log.warning("%s: the coach is behind; round %d is not reviewed", chat, number)
            return
        note = None
        try:
            note = await self._promise(promise)
        except StoreErrors as error:
            self.store_failed(error)
        if note is not None and self._elsewhere(keys.scope(chat)):
            return  # a worker of the chat's scope works it out and posts it
        if not self.coach.start(promise, note) and note is not None:
            with contextlib.suppress(*StoreErrors):
                await self.store.forget_reviews(keys.scope(chat), self.worker, [note])

    async def _robots(
        self, chat: str, snap: Snapshot, result: Result, seen: dict[str, str]
    ) -> tuple[Snapshot, Result]:
        """Make the AI moves the game waits for, one transaction each, each decided from the
        chat as saved (outside any transaction): the last snapshot written against, and what
        `result` (applied where the players' screens were `seen`) and the moves show together.
        Stops when the game waits for a person, or the store fails (the table's deadline then
        makes the rest). The caller holds the chat's run (`_claim`) and releases it as soon as
        this returns, with no wait between: a write that finds the run under way until then
        leaves its moves to it (`_recheck`)."""
        then: list[Result] = []
        refused = 0
        try:
            for _move in range(MAX_ROBOT_MOVES):
                self._recheck.discard(chat)
                now = self.store.known(chat) or await self.store.load(chat)
                table = now.table
                seats = robot_seats(table) if table is not None else []
                if refused > MAX_REDECIDED:
                    break
                if table is None or not seats:
                    if chat in self._recheck:  # a write left it for these moves meanwhile
                        continue
                    break
                seat = seats[0]
                view = player_view(table.game, seat)
                level = robot_level(self.config, table, table.game.players[seat].id)
                command = await self._think(level, view)
                move = RobotMove(table.game_id, seat, view, command)
                done = await self._save(chat, None, ROBOT, partial(robot_move, move=move))
                if isinstance(done, Outcome):
                    refused += 1  # the table moved on meanwhile: decide again
                    continue
                snap, step, _seen = done
                then.append(step)
        except StoreErrors as error:
            # As any call the store failed: said once (`store_failed`), and the chat shown
            # again once Redis answers, as the move's write may have been made
            self._unsure.add(chat)
            self.store_failed(error)
        except NewerForm:
            log.warning("%s: AI moves stopped; the table's deadline makes them", chat)
        return snap, _merged(result, then, seen)

    async def _think(self, level: str, view: PlayerView) -> Command:
        """The AI's move for `view`'s seat, decided in a worker thread (at most `THINKERS`
        at once), so that the event loop serves other chats meanwhile."""
        if self._thinkers is None:
            self._thinkers = asyncio.Semaphore(THINKERS)
        async with self._thinkers:
            return await asyncio.to_thread(decide, level, view, self.rng, self.metrics)

    async def _save(
        self,
        chat: str,
        update_id: str | None,
        user: User,
        apply: Callable[[Context], Result],
        record: dict[str, Any] | None = None,
        language: str | None = None,
        own: str | None = None,
        ruled: str | None = None,
    ) -> tuple[Snapshot, Result, dict[str, str]] | Outcome:
        """Load, apply, save; retried on conflict. The snapshot the result was written
        against (or read-only on), the result, and the players' `Table.seen` entries before it;
        or, when the request was refused or already applied, what to answer."""
        read = False  # whether to read the chat, rather than apply to it as last known
        for _attempt in range(MAX_ATTEMPTS):
            snap = None if read else self.store.known(chat)
            if snap is None:
                snap = await self.store.load(chat, update_id)
            read = False
            logs.playing(snap.table.game_id if snap.table is not None else None)
            if snap.duplicate:
                return Outcome()
            if language is not None:
                snap = replace(snap, settings=replace(snap.settings, language=language))
            look = look_of(snap.settings)
            mine = None if own is None else look_of(replace(snap.settings, language=own))
            now = self.clock()
            ctx = Context(
                snap,
                user,
                look,
                self.config,
                now,
                self.rng,
                record,
                self.outages,
                self.metrics,
                own_look=mine,
            )
            old = snap.table.wake() if snap.table is not None else None  # apply changes it
            seated = snap.table.seated() if snap.table is not None else frozenset()  # and this
            seen = dict(snap.table.seen) if snap.table is not None else {}
            try:
                result = apply(ctx)
            except Refused as refusal:
                if snap.known:  # it may be refused only because this chat is behind
                    read = True
                    continue
                self.metrics.refused(refusal.code)
                return Outcome(answer=str(refusal), alert=True)
            except RuleError as error:
                if snap.known:
                    read = True
                    continue
                self.metrics.refused(error.code)
                phase = snap.table.game.phase if snap.table is not None else None
                answer = error_text(look.t if ruled is None else texts(ruled), error.code, phase)
                return Outcome(answer=answer, alert=True, ruled=True)
            write = result.write
            if write is None and snap.known:
                read = True  # what it shows must be the chat as it is now
                continue
            if write is not None:
                table = write.table
                if table is not None:  # a new game opens, or the same goes on
                    logs.playing(table.game_id)
                new = table.wake() if table is not None else None
                scope = keys.scope(chat)
                if scope not in self._enlisted:  # before its first tick: found if it dies
                    await self.store.enlist(scope, self.worker, now)
                    self._enlisted.add(scope)
                journal = (keys.journal(scope, self.worker), now)
                replaced = False  # whether the entry was set later than it may have been
                earlier = False  # whether it was set to `new` only if that is earlier
                if new is not None and (old is None or new < old or result.reindex):
                    # The index holds, for each chat, a time no later than its deadline: one
                    # due early is mended to the real deadline when it fires. So a deadline
                    # that moves later (most moves) costs no write; an earlier one is indexed
                    # before the table is written, so a crash right after leaves it indexed.
                    # Moved earlier only (the chat applied to may be behind: another worker's
                    # earlier entry stays), but for a new table (an entry due to be dropped
                    # for the one before it) or a timeout's (it moves its own entry on): the
                    # chat is then journaled with it, so that the worker that takes this
                    # one's journal over indexes the chat's time again if it dies before the
                    # write (`_again`).
                    earlier = old is not None and not result.reindex
                    noted = None if earlier else journal
                    await self.store.set_timer(chat, new, earlier=earlier, journal=noted)
                    replaced = not earlier
                if write.result is not None:
                    # The players' indexes name the chat before its result is written: a crash
                    # between the two leaves a chat too many in them, never one too few.
                    await self.stats.enlist(people(write.result), chat)
                # A seat is indexed before the table that gives it is written, and unindexed
                # after: a crash between leaves a chat too many in an index, never one too few.
                now_seated = table.seated() if table is not None else frozenset()
                sat = await self.seats.sit(chat, now_seated - seated)
                saved = await self.store.save(chat, snap.version, write, update_id, journal)
                if replaced and not saved:
                    await self._reindex(chat, saved)
                if saved is None:
                    return Outcome()
                if not saved:
                    continue  # the store knows the chat as it is now: apply to that
                self._store_answered()
                if earlier and new is not None:
                    await self._index_again(chat, new)
                if sat or seated - now_seated:
                    await self._mark(chat, sat, seated - now_seated)
            if write is not None and write.result is not None:
                moved = await self._fold(chat, game_of(write.result))
                if moved:  # the game's end says how it moved each seat's rating
                    result.shown = [
                        replace(item, ratings=moved) if isinstance(item, Moved) else item
                        for item in result.shown
                    ]
            log.debug("applied for %s, version %d", user.id, snap.version + (write is not None))
            return snap, result, seen
        self.metrics.refused(Refusal.BUSY)
        t = texts(own or (snap.settings.language if snap is not None else self.config.language))
        return Outcome(answer=t("The table is busy; please try again."), alert=True)

    async def _index_again(self, chat: str, wake: float) -> None:
        """A write that indexed its earlier time `wake` (`ZADD LT`) is made: index it again, as
        a timer may have moved the entry on meanwhile, to the chat's time as it read it before
        this write (`_moved_back`). The write stands if the store fails here: the entry may be
        late (such a move came in between), so the chat is indexed again by the next tick that
        reaches the store (`_unsure`, `_again`), or by the worker that takes this one's journal
        over if it dies first."""
        try:
            await self.store.set_timer(chat, wake, earlier=True)
        except StoreErrors as error:
            self._unsure.add(chat)
            self.store_failed(error)

    async def _reindex(self, chat: str, saved: bool | None) -> None:
        """A write that replaced the chat's timer entry was not made (the chat had moved on):
        the entry goes back to no later than the chat's time as it is now (as the conflict
        answered it, else read)."""
        now = self.store.known(chat) if saved is False else None
        await self._index_by(chat, (now or await self.store.load(chat)).table)

    @staticmethod
    def _notify(snap: Snapshot, result: Result) -> Outcome:
        """What a saved (or read-only) result shows, rendered from the table as saved."""
        write = result.write
        table = snap.table if write is None else write.table
        settings = write.settings if write is not None and write.settings else snap.settings
        messages = render(look_of(settings), table, result.shown)
        shown = table if table is not None else snap.table
        version = snap.version + (write is not None)
        stamp = None if shown is None else (shown.game_id, version)
        where = None if shown is None else shown.where
        return Outcome(tuple(messages), result.answer, version=stamp, where=where)
