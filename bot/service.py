"""The game service: one entry point takes (chat, user, request) and returns what to show.

Each request runs load → apply → save against the store as one optimistic transaction
(retried on conflict), so concurrent requests for a chat apply one at a time, each once.
AI seats, and players on autopilot after a timeout, move inside the same transaction; then the
apply step runs in a worker thread, so an AI that thinks does not hold up other chats.
"""

import asyncio
import hashlib
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

from bot import commands, tokens
from bot.ai import get_ai
from bot.commands import Action, Kind
from bot.config import Config
from bot.messages import Message, Outcome
from bot.requests import Request, User
from bot.show import screens
from bot.show.i18n import LANGUAGES, texts
from bot.show.themes import Theme, parse_card_text
from bot.store import Snapshot, Store, StoreErrors, Write
from bot.table import Settings, Table, new_game_id
from engine import (
    Bid,
    ChooseTrump,
    Command,
    ErrorCode,
    Event,
    GameState,
    Join,
    Leave,
    MarkWings,
    Phase,
    Play,
    RuleError,
    SetOptions,
    Start,
    Suit,
    TableView,
    export_record,
    player_view,
    step,
    table_view,
    waiting_seats,
)
from engine.events import RoundScored, RoundStarted, WingsDropped
from engine.options import MAX_PLAYERS, parse_option
from engine.views import ScoreRow

MAX_ATTEMPTS = 100
LIVE_TTL = 30 * 24 * 3600
"""A game nobody touches for this long expires."""
ROUND_PHASES = (Phase.TRUMP, Phase.BIDDING, Phase.PLAYING)


class Refused(Exception):
    """A request that changes nothing; its message goes to the requester alone."""


@dataclass(slots=True)
class Result:
    """What applying one request produced."""

    messages: list[Message] = field(default_factory=list)
    answer: str | None = None
    write: Write | None = None
    mend: float | None = None
    """A timer fired early, or reminded: the table's next time, to index instead."""
    reindex: bool = False
    """Index the new deadline whatever the old one (a fired timer's entry is dropped)."""


def _may_think(snap: Snapshot) -> bool:
    """Whether applying a request to `snap` may make AI moves: it has AI seats, or players on
    autopilot."""
    table = snap.table
    return table is not None and bool(table.ai or table.away)


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
        self.config = config
        self.clock = clock
        self.rng = rng or random.Random()

    # --- entry points ---------------------------------------------------------------------

    async def handle(
        self, chat: str, user: User, request: Request, update_id: str | None = None
    ) -> Outcome:
        """Apply one request from `user` in `chat`. A redelivered `update_id` is applied once."""
        try:
            if request.kind is Kind.RECORD:
                return await self._record(chat)
            outcome, _ = await self._transact(
                chat, update_id, lambda snap: self._apply(snap, user, request)
            )
            return outcome
        except StoreErrors:
            t = texts(self.config.language)
            return Outcome(
                answer=t("The game store cannot be reached right now. Please try again shortly."),
                alert=True,
            )

    async def show_again(self, chat: str) -> Outcome:
        """The group's lobby or table as it is now, as new messages: for a front end whose
        messages are gone (a Telegram group that became a supergroup)."""
        snap = await self.store.load(chat)
        table = snap.table
        if table is None:
            return Outcome()
        look = self._look(snap.settings)
        if table.game.phase is Phase.LOBBY:
            message = replace(screens.lobby(look, table), notify=True)
        elif table.game.phase in ROUND_PHASES:
            message = screens.table_message(look, table, new=True)
        else:
            return Outcome()
        return Outcome((message,), version=(table.game_id, snap.version))

    async def run_timers(self) -> list[tuple[str, Outcome]]:
        """Fire every turn deadline that is due; return what to show in which chat."""
        shown = []
        now = self.clock()
        try:
            for chat, indexed in await self.store.due_timers(now):
                deadline: float | None = indexed
                while deadline is not None:
                    # The transaction decides: of several workers (or a player moving at the
                    # same moment) exactly one changes the table; the others see it moved on.
                    timeout = partial(self._timeout, deadline=deadline)
                    outcome, result = await self._transact(chat, None, timeout, think=True)
                    # An entry that was early (or a reminder) moves to the table's next time,
                    # unless a move replaced it meanwhile; then that one is fired if due.
                    mend = result.mend if result is not None else None
                    await self.store.drop_timer(chat, deadline, then=mend)
                    if outcome.messages:
                        shown.append((chat, outcome))
                    deadline = mend if mend is not None and mend <= now else None
        except StoreErrors:
            pass  # Redis is away; the entries stay and fire once it is back
        return shown

    async def _transact(
        self,
        chat: str,
        update_id: str | None,
        apply: Callable[[Snapshot], Result],
        think: bool = False,
    ) -> tuple[Outcome, Result | None]:
        """Load, apply, save; retried on conflict. The outcome, and the result applied (None
        when the request was refused or already applied). `apply` runs in a worker thread when
        AI moves may follow (`think`, or a table with AI seats or players on autopilot)."""
        for _attempt in range(MAX_ATTEMPTS):
            snap = await self.store.load(chat, update_id)
            if snap.duplicate:
                return Outcome(), None
            look = self._look(snap.settings)
            old = snap.table.wake() if snap.table is not None else None  # apply changes it
            try:
                if think or _may_think(snap):
                    # In a worker thread: AI seats may think for a while (`hard`: a quarter of a
                    # second a move, at times more); the event loop serves other chats meanwhile.
                    result = await asyncio.to_thread(apply, snap)
                else:
                    result = apply(snap)
            except Refused as refusal:
                return Outcome(answer=str(refusal), alert=True), None
            except RuleError as error:
                return Outcome(answer=screens.refusal(look, error.code), alert=True), None
            if result.write is not None:
                table = result.write.table
                new = table.wake() if table is not None else None
                if new is not None and (old is None or new < old or result.reindex):
                    # The index holds, for each chat, a time no later than its deadline: one
                    # due early is mended to the real deadline when it fires. So a deadline
                    # that moves later (most moves) costs no write; an earlier one is indexed
                    # before the table is written, so a crash right after leaves it indexed.
                    await self.store.set_timer(chat, new)
                saved = await self.store.save(chat, snap.version, result.write, update_id)
                if saved is None:
                    return Outcome(), None
                if not saved:
                    continue
            shown = snap.table
            if result.write is not None and result.write.table is not None:
                shown = result.write.table
            version = snap.version + (result.write is not None)
            stamp = None if shown is None else (shown.game_id, version)
            outcome = Outcome(tuple(result.messages), result.answer, version=stamp)
            return outcome, result
        t = texts(snap.settings.language)
        return Outcome(answer=t("The table is busy; please try again."), alert=True), None

    async def _record(self, chat: str) -> Outcome:
        snap = await self.store.load(chat)
        t = self._look(snap.settings).t
        record = await self.store.record(chat)
        if record is None:
            return Outcome(answer=t("No game has finished in this chat yet."), alert=True)
        data = json.dumps(record, indent=1).encode()
        return Outcome(
            messages=(
                Message(t("The record of the last game."), attachment=("wizard-game.json", data)),
            )
        )

    # --- applying a request ----------------------------------------------------------------

    def _look(self, settings: Settings) -> screens.Look:
        theme = (
            Theme(settings.theme) if settings.theme in Theme._value2member_map_ else Theme.COLOURS
        )
        return screens.Look(texts(settings.language), theme)

    def _apply(self, snap: Snapshot, user: User, request: Request) -> Result:
        look = self._look(snap.settings)
        t = look.t
        table = snap.table
        kind = request.kind
        if kind is Kind.BUTTON:
            return self._button(snap, look, user, request.arg)
        if kind is Kind.HELP:
            return Result(messages=[Message(commands.help_text(look.t))])
        if kind is Kind.RULES:
            options = table.game.options if table else None
            return Result(messages=[Message(screens.rules_text(look, options))])
        if kind is Kind.LANGUAGE:
            return self._settings(snap, look, language=request.arg)
        if kind is Kind.THEME:
            return self._settings(snap, look, theme=request.arg)
        if kind is Kind.JOIN:
            return self._join(snap, look, user)
        if table is None:
            raise Refused(t("There is no game here. Start one with /join."))
        if kind is Kind.SCORES:
            return Result(messages=[screens.sheet(look, table)])
        if kind is Kind.HAND:
            seat = self._seat(look, table, user)
            if table.game.phase not in ROUND_PHASES:
                raise Refused(t("No round is being played."))
            return Result(messages=[screens.hand_message(look, table, seat, notify=True)])
        if kind is Kind.LEAVE:
            return self._leave(snap, look, user)
        if kind is Kind.START:
            return self._start(snap, look, user)
        if kind is Kind.CANCEL:
            return self._cancel(snap, look, user)
        if kind is Kind.ADD_AI:
            return self._add_ai(snap, look, user, request.arg)
        if kind is Kind.OPTION:
            return self._option(snap, look, user, request.arg)
        if kind is Kind.RESUME:
            return self._resume(snap, look, user)
        return self._move(snap, look, user, self._command(look, table, user, request))

    def _command(self, look: screens.Look, table: Table, user: User, request: Request) -> Command:
        t = look.t
        arg = request.arg.strip()
        if request.kind is Kind.BID:
            if not re.fullmatch(r"-?[0-9]{1,3}", arg):
                raise Refused(t("A bid is a number of tricks, e.g. /bid 2."))
            return Bid(user.id, int(arg))
        if request.kind is Kind.PLAY:
            if not arg and table.game.round is not None and table.game.round.rules.foresight:
                return Play(user.id, None)
            card = parse_card_text(arg, look.theme)
            if card is None:
                raise Refused(t("Which card? E.g. /play R13, /play W or /play J."))
            return Play(user.id, card)
        if request.kind is Kind.TRUMP:
            suit = Suit._value2member_map_.get(arg.upper())
            if not isinstance(suit, Suit):
                raise Refused(t("Choose a suit: B, G, R or Y."))
            return ChooseTrump(user.id, suit)
        if request.kind is Kind.WINGS:
            if not arg:
                return MarkWings(user.id, None)
            card = parse_card_text(arg, look.theme)
            if card is None:
                raise Refused(t("Which card? E.g. /play R13, /play W or /play J."))
            return MarkWings(user.id, card)
        raise Refused(t("Unknown command."))

    def _button(self, snap: Snapshot, look: screens.Look, user: User, payload: str) -> Result:
        t = look.t
        try:
            token = tokens.decode(payload)
        except tokens.TokenError:
            raise Refused(t("This button is not one of ours.")) from None
        table = snap.table
        if table is None or token.game != table.game_id:
            raise Refused(t("This button belongs to a game that is over."))
        valid = {tokens.LOBBY_STAMP, tokens.stamp(table.game)}
        if token.action is Action.WINGS:
            valid.add(tokens.round_stamp(table.game))
        if token.stamp not in valid:
            raise Refused(t("This button is out of date."))
        action, arg = token.action, token.arg
        if action is Action.AGAIN:
            if table.game.phase is not Phase.FINISHED:
                raise Refused(t("This button is out of date."))
            return self._join(snap, look, user)
        if action is Action.OPTION and not arg:
            self._require_host(look, table, user)
            return Result(messages=[screens.lobby(look, table, show_options=True)])
        return self._apply(snap, user, Request(commands.BY_ACTION[action].kind, arg))

    def _settings(
        self,
        snap: Snapshot,
        look: screens.Look,
        language: str | None = None,
        theme: str | None = None,
    ) -> Result:
        t = look.t
        settings = snap.settings
        if language is not None:
            code = language.strip().lower()
            if code not in LANGUAGES:
                known = ", ".join(f"{c} ({name})" for c, name in LANGUAGES.items())
                raise Refused(t("Languages: {known}. E.g. /language de", known=known))
            settings = replace(settings, language=code)
        if theme is not None:
            name = theme.strip().lower()
            if name not in Theme._value2member_map_:
                known = ", ".join(theme.value for theme in Theme)
                raise Refused(t("Deck themes: {known}. E.g. /theme races", known=known))
            settings = replace(settings, theme=name)
        new_look = self._look(settings)
        table = snap.table
        messages = [
            Message(
                new_look.t(
                    "Settings saved: {language}, {theme} cards.",
                    language=LANGUAGES[settings.language],
                    theme=settings.theme,
                )
            )
        ]
        return Result(
            messages=messages, write=Write(table=table, ttl=self._ttl(table), settings=settings)
        )

    # --- the lobby ---------------------------------------------------------------------------

    def _join(self, snap: Snapshot, look: screens.Look, user: User) -> Result:
        now = self.clock()
        table = snap.table
        if table is None or table.game.phase is Phase.FINISHED:
            table = Table(game_id=new_game_id(), game=GameState(), host=user.id, created=now)
        step(table.game, Join(user.id, user.name))
        table.updated = now
        self._set_deadline(table)
        return Result(
            messages=[screens.lobby(look, table)],
            answer=look.t("You joined the table."),
            write=Write(table=table, ttl=LIVE_TTL),
        )

    def _leave(self, snap: Snapshot, look: screens.Look, user: User) -> Result:
        table = self._table(snap)
        step(table.game, Leave(user.id))
        humans = table.humans()
        if not humans:
            return Result(
                messages=[Message(look.t("Everybody left: the table is closed."), slot="lobby")],
                write=Write(table=None, ttl=LIVE_TTL),
            )
        if table.host == user.id:
            table.host = humans[0]
        table.updated = self.clock()
        self._set_deadline(table)
        return Result(messages=[screens.lobby(look, table)], write=Write(table=table, ttl=LIVE_TTL))

    def _start(self, snap: Snapshot, look: screens.Look, user: User) -> Result:
        table = self._table(snap)
        self._seat(look, table, user)
        events = step(table.game, Start(seed=self.rng.getrandbits(63)))
        return self._after_move(snap, look, table, events, actor=None, notice=None)

    def _cancel(self, snap: Snapshot, look: screens.Look, user: User) -> Result:
        table = self._table(snap)
        if table.game.phase is Phase.FINISHED:
            raise Refused(look.t("The game is already over."))
        if user.id != table.host and not user.admin:
            raise Refused(look.t("Only the host or a chat admin may cancel the game."))
        text = look.t("{name} cancelled the game.", name=user.name)
        return Result(messages=[Message(text)], write=Write(table=None, ttl=LIVE_TTL))

    def _add_ai(self, snap: Snapshot, look: screens.Look, user: User, level: str) -> Result:
        t = look.t
        table = self._table(snap)
        self._seat(look, table, user)
        level = level.strip().lower() or self.config.ai_level
        try:
            get_ai(level)
        except ValueError:
            raise Refused(t("Unknown AI level {level}.", level=level)) from None
        if len(table.game.players) >= MAX_PLAYERS:
            raise RuleError(ErrorCode.GAME_FULL, "full")
        taken = {p.name for p in table.game.players}
        number = next(n for n in range(1, 99) if f"ai:{n}" not in table.ai)
        name = next((n for n in self.config.ai_names if n not in taken), f"AI {number}")
        player = f"ai:{number}"
        step(table.game, Join(player, name))
        table.ai[player] = level
        table.updated = self.clock()
        self._set_deadline(table)
        return Result(messages=[screens.lobby(look, table)], write=Write(table=table, ttl=LIVE_TTL))

    def _option(self, snap: Snapshot, look: screens.Look, user: User, arg: str) -> Result:
        table = self._table(snap)
        if not arg:
            return Result(messages=[screens.lobby(look, table, show_options=True)])
        self._require_host(look, table, user)
        options = parse_option(table.game.options, arg)
        step(table.game, SetOptions(options))
        table.updated = self.clock()
        self._set_deadline(table)
        return Result(
            messages=[screens.lobby(look, table, show_options=True)],
            write=Write(table=table, ttl=LIVE_TTL),
        )

    def _resume(self, snap: Snapshot, look: screens.Look, user: User) -> Result:
        table = self._table(snap)
        seat = self._seat(look, table, user)
        if user.id not in table.away:
            raise Refused(look.t("You are playing already."))
        table.away.remove(user.id)
        self._set_deadline(table)
        message = screens.hand_message(look, table, seat, notify=False)
        return Result(
            messages=[message],
            answer=look.t("Welcome back!"),
            write=Write(table=table, ttl=LIVE_TTL),
        )

    # --- moves --------------------------------------------------------------------------------

    def _move(self, snap: Snapshot, look: screens.Look, user: User, command: Command) -> Result:
        table = self._table(snap)
        self._seat(look, table, user)
        events = step(table.game, command)
        back = None
        if user.id in table.away:
            table.away.remove(user.id)
            back = look.t("{name} is back.", name=user.name)
        return self._after_move(snap, look, table, events, actor=user.id, notice=back)

    def _after_move(
        self,
        snap: Snapshot,
        look: screens.Look,
        table: Table,
        events: list[Event],
        actor: str | None,
        notice: str | None,
    ) -> Result:
        events = events + self._run_ai(table)
        self._set_deadline(table)
        table.updated = self.clock()
        return self._show(look, table, events, notice)

    def _run_ai(self, table: Table) -> list[Event]:
        """Let AI seats, and players away, make every move the game waits for from them."""
        state = table.game
        events: list[Event] = []
        present = [pid for pid in table.humans() if pid not in table.away]
        while state.phase in ROUND_PHASES:
            waiting = waiting_seats(state)
            robots = [
                seat
                for seat in waiting
                if state.players[seat].id in table.ai
                or (present and state.players[seat].id in table.away)
            ]
            if not robots:
                break
            seat = robots[0]
            player = state.players[seat].id
            ai = get_ai(table.ai.get(player, self.config.ai_level))
            events += step(state, ai.decide(player_view(state, seat), self.rng))
        return events

    def _set_deadline(self, table: Table) -> None:
        state = table.game
        now = self.clock()
        table.remind = None
        if state.phase is Phase.LOBBY:
            table.deadline = now + self.config.lobby_timeout
        elif state.phase in ROUND_PHASES:
            table.deadline = now + self.config.turn_timeout
            table.remind = now + self.config.turn_timeout / 2
        else:
            table.deadline = None

    def _show(
        self, look: screens.Look, table: Table, events: list[Event], notice: str | None
    ) -> Result:
        state = table.game
        messages: list[Message] = []
        new_round = False
        for event in events:
            if isinstance(event, RoundStarted):
                new_round = True
            elif isinstance(event, RoundScored):
                row = ScoreRow(
                    event.round,
                    state.results[event.round - 1].cards,
                    event.bids,
                    event.won,
                    event.points,
                    event.totals,
                )
                messages.append(screens.round_summary(look, table, row))
            elif isinstance(event, WingsDropped):
                messages.append(
                    Message(
                        look.t(
                            "🪽 {card} could not be played: choose a card.",
                            card=look.card(event.card),
                        ),
                        to=event.to,
                    )
                )
        record = None
        result = None
        if state.phase is Phase.FINISHED:
            messages.append(screens.game_over(look, table))
            record = export_record(state)
            result = {
                "players": [p.id for p in state.players],
                "names": [p.name for p in state.players],
                "totals": list(state.totals),
                "options": state.options.to_dict(),
                "finished": self.clock(),
            }
        elif state.phase in ROUND_PHASES:
            view = table_view(state)
            messages.append(screens.table_message(look, table, new_round, notice, view))
            messages.extend(self._private(look, table, view))
        return Result(
            messages=messages,
            write=Write(table=table, ttl=self._ttl(table), result=result, record=record),
        )

    def _private(self, look: screens.Look, table: Table, view: TableView) -> list[Message]:
        """Hand messages for the players whose private view changed; a new one (which
        notifies) for a player whose turn it now is."""
        state = table.game
        rnd = state.round
        if rnd is None:
            return []
        waiting = set(waiting_seats(state))
        messages = []
        for seat, player in enumerate(state.players):
            if player.id in table.ai:
                continue
            turn = seat in waiting and player.id not in table.away
            message = screens.hand_message(look, table, seat, False, view)
            # What the person would see: an edit that shows the same is no edit (Telegram
            # refuses it as "not modified").
            shown = (message.text, message.buttons)
            digest = hashlib.blake2b(repr(shown).encode(), digest_size=6).hexdigest()
            previous = table.seen.get(player.id, "")
            was_turn = previous.endswith("!")
            if previous.rstrip("!") == digest and turn == was_turn:
                continue
            table.seen[player.id] = digest + ("!" if turn else "")
            first = not previous  # a game's first hand message is a new one, not an edit
            if first or (turn and not was_turn):
                message = replace(message, notify=True)
            messages.append(message)
        return messages

    # --- timeouts ------------------------------------------------------------------------------

    def _timeout(self, snap: Snapshot, deadline: float) -> Result:
        """A timer entry for `deadline` fired: remind the group, or time the turn out."""
        table = snap.table
        wake = table.wake() if table is not None else None
        if table is None or wake is None:
            return Result()
        if abs(wake - deadline) > 0.001 or self.clock() < wake:
            return Result(mend=wake)  # the game moved on (or a clock is behind): index anew
        look = self._look(snap.settings)
        t = look.t
        state = table.game
        if table.remind is not None:
            if table.deadline is not None and self.clock() < table.deadline:
                return self._remind(look, table)
            table.remind = None  # the whole turn time is gone already: no reminder now
        if state.phase is Phase.LOBBY:
            return Result(
                messages=[Message(t("The table was idle too long and is closed."), slot="lobby")],
                write=Write(table=None, ttl=LIVE_TTL),
            )
        if state.phase not in ROUND_PHASES:
            return Result()
        waiting = waiting_seats(state)
        late = [
            state.players[seat].id
            for seat in waiting
            if state.players[seat].id not in table.ai and state.players[seat].id not in table.away
        ]
        table.away.extend(late)
        present = [pid for pid in table.humans() if pid not in table.away]
        if not present:
            return Result(
                messages=[Message(t("Nobody is playing any more: the game is abandoned."))],
                write=Write(table=None, ttl=LIVE_TTL),
            )
        seated = screens.names(state, table)
        who = ", ".join(seated[state.seat_of(pid) or 0] for pid in late)
        notice = t(
            "⏰ {names} ran out of time: the AI plays for them until they are back.", names=who
        )
        result = self._after_move(snap, look, table, [], actor=None, notice=notice)
        result.reindex = True  # this timer's entry is dropped once the timeout is applied
        return result

    def _remind(self, look: screens.Look, table: Table) -> Result:
        """Half the turn time is gone: the group names the people it waits for."""
        table.remind = None
        state = table.game
        late = [
            state.players[seat]
            for seat in waiting_seats(state)
            if state.players[seat].id not in table.ai and state.players[seat].id not in table.away
        ]
        result = Result(write=Write(table=table, ttl=self._ttl(table)), mend=table.deadline)
        if late:
            seated = screens.names(state, table)
            named = tuple((p.id, seated[state.seat_of(p.id) or 0]) for p in late)
            left = round(table.deadline - self.clock()) if table.deadline else 0
            text = look.t(
                "⏳ {names}: it is your turn ({seconds} s left).",
                names=", ".join(name for _, name in named),
                seconds=max(1, left),
            )
            result.messages.append(Message(text, mentions=named))
        return result

    # --- helpers ------------------------------------------------------------------------------

    def _table(self, snap: Snapshot) -> Table:
        if snap.table is None:
            raise Refused(
                self._look(snap.settings).t("There is no game here. Start one with /join.")
            )
        return snap.table

    def _seat(self, look: screens.Look, table: Table, user: User) -> int:
        seat = table.game.seat_of(user.id)
        if seat is None:
            raise Refused(look.t("You are not playing at this table."))
        return seat

    def _require_host(self, look: screens.Look, table: Table, user: User) -> None:
        if user.id != table.host and not user.admin:
            raise Refused(look.t("Only the host may change the options."))

    def _ttl(self, table: Table | None) -> int:
        if table is None or table.game.phase is Phase.FINISHED:
            return self.config.finished_ttl
        return LIVE_TTL
