"""The chat table's rules: what each command does at a chat's table (the lobby and its host, AI
seats, players on autopilot, turn deadlines and timeouts), as plain functions.

A handler takes the request's `Context` (the chat as loaded, who asks, how the chat is shown, the
clock's reading) and the command's argument, already read by the command table, and returns a
`Result`: what to write, what to show once the write has succeeded, and a short answer for the
asker. One that refuses raises `Refused` (or the engine's `RuleError`) and changes nothing.
`HANDLERS` is the dispatch table: one handler per `Kind` of the command table.
"""

import hashlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import orjson

from bot.ai import get_ai
from bot.commands import WHICH_CARD, Kind, help_text
from bot.config import Config
from bot.messages import OPTIONS, Message
from bot.metrics import Metrics
from bot.requests import User
from bot.show.i18n import N_, Texts, catalog_language, texts
from bot.show.look import Look, look_of, personal
from bot.show.picture_fonts import locale_face
from bot.show.render import GroupTable, Hand, Lobby, Moved, Note, Rules, Sheet, Shown
from bot.show.screens import (
    HandScreen,
    hand_screen,
    has_choice,
    lobby,
    lobby_cancelled,
    round_end_screen,
    table_message,
)
from bot.show.seating import ROBOT, Seating, seating
from bot.show.themes import Theme, theme_in_a_sentence
from bot.store import Snapshot, Write
from bot.table import COACH, Settings, Table, new_game_id
from engine import (
    ROUND_PHASES,
    Bid,
    Card,
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
    PlayerView,
    RuleError,
    SetOptions,
    Start,
    Suit,
    TableView,
    bids_met,
    export_record,
    player_view,
    step,
    table_view,
    verify_options,
    waiting_seats,
)
from engine.events import CardPlayed, RoundScored, WingsDropped
from engine.options import MAX_PLAYERS, BidMode, Options, parse_option

LIVE_TTL = 30 * 24 * 3600
"""A game nobody touches for this long expires."""


class Refusal(StrEnum):
    """Why the chat table refused a request, as the metrics count it (`Refused.code`; the
    engine's refusals have an `ErrorCode`)."""

    NO_GAME = "no_game"
    NOT_SEATED = "not_seated"
    DENIED = "denied"
    """Only the host (or a chat admin) may."""
    BAD_ARGUMENT = "bad_argument"
    STALE_BUTTON = "stale_button"
    """A press on an older decision's button."""
    OLD_GAME = "old_game"
    """A press on a button of a game that is over."""
    FOREIGN_BUTTON = "foreign_button"
    """A press whose payload is none of ours (forged, or another bot's)."""
    BUSY = "busy"
    """The table changed under the request too often (`MAX_ATTEMPTS` conflicts)."""
    MOVED_ON = "moved_on"
    """An AI move decided on a table that has moved on since (it is decided again)."""
    ALOUD = "aloud"
    """A move the table keeps secret, typed where everyone reads it (`refuse_aloud`)."""
    OTHER = "other"


class Refused(Exception):
    """A request that changes nothing; its message goes to the requester alone, its `code`
    to the metrics."""

    def __init__(self, message: str, code: Refusal = Refusal.OTHER) -> None:
        super().__init__(message)
        self.code = code


@dataclass(slots=True)
class Result:
    """What applying one request produced."""

    shown: list[Shown] = field(default_factory=list)
    """What to show once the write (if any) has succeeded."""
    answer: str | None = None
    write: Write | None = None
    mend: float | None = None
    """A timer fired early, or reminded: the table's next time, to index instead."""
    reindex: bool = False
    """Index the new deadline whatever the old one (a fired timer's entry is dropped)."""
    hint: PlayerView | None = None
    """A hint to work out for this view, outside the transaction, and show its player alone."""
    hint_once: bool = False
    """Post the hint once for its decision (a press in the asker's private chat): pressed again,
    the press is answered that it was sent (`Coach.hint`)."""
    hint_said: Texts | None = None
    """The texts of what the hint's asker is answered (`Context.own`: theirs where they alone
    read it), should no hint come (the worker stops)."""
    hint_private: bool = False
    """The hint goes to the asker's private chat (pressed there, or /hint typed where the game
    is played): their hand is posted again under it, to be pressed at the chat's foot."""


@dataclass(frozen=True, slots=True)
class Context:
    """One request as a handler sees it."""

    snap: Snapshot
    user: User
    look: Look
    config: Config
    now: float
    rng: random.Random
    record: dict[str, Any] | None = None
    """The chat's last game record, for a command that reads it."""
    outages: tuple[tuple[float, float], ...] = ()
    """Recent spans in which the bot (or its Redis) was down: turn clocks stand still in them."""
    metrics: Metrics | None = None
    aside: bool = False
    """The request was given in the asker's private chat (`Request.aside`)."""
    typed: bool = False
    """It was typed, not pressed (given `aside`, its answer there is a new message)."""
    own_look: Look | None = None
    """The look of what the asker alone reads, when not the chat's (`own`)."""
    """What the AI moves' times are counted in."""

    @property
    def own(self) -> Look:
        """The look of what the asker alone reads, a refusal or an answer: their app's language
        where the answer reaches them alone (the service's `_answer_language`), else the
        chat's, as `look`."""
        return self.own_look or self.look

    @property
    def version(self) -> int:
        """The version the table gets if this request's write succeeds."""
        return self.snap.version + 1

    def table(self) -> Table:
        """The chat's table; there is no game here otherwise."""
        if self.snap.table is None:
            raise Refused(
                self.own.t("There is no game here. Start one with /join."), Refusal.NO_GAME
            )
        return self.snap.table

    def seat(self) -> int:
        """The asker's seat; they are not playing here otherwise."""
        seat = self.table().game.seat_of(self.user.id)
        if seat is None:
            raise Refused(self.own.t("You are not playing at this table."), Refusal.NOT_SEATED)
        return seat


Handler = Callable[[Context, Any], Result]


def ttl(config: Config, table: Table | None) -> int:
    """How long the chat's game key lives: a finished game's for `finished_ttl`."""
    if table is None or table.game.phase is Phase.FINISHED:
        return config.finished_ttl
    return LIVE_TTL


# --- texts and settings -----------------------------------------------------------------------


def help_(ctx: Context, _: None) -> Result:
    return Result(shown=[Note(Message(help_text(ctx.look.t)))])


def rules(ctx: Context, _: None) -> Result:
    table = ctx.snap.table
    if table is None:
        return Result(shown=[Rules(None)])
    return Result(shown=[Rules(table.game.options, table.coach)])


def scores(ctx: Context, _: None) -> Result:
    return Result(shown=[Sheet()])


def record(ctx: Context, _: None) -> Result:
    t = ctx.look.t
    if ctx.record is None:
        raise Refused(ctx.own.t("No game has finished in this chat yet."))
    data = json.dumps(ctx.record, indent=1).encode()
    # Its players name the game wherever the file lands (a group that takes no files sends it
    # to the asker's private chat, beside those of other chats).
    players = ", ".join(str(name) for name in ctx.record.get("players", ()))
    text = t("The record of the last game: {players}.", players=players)
    # Refused by the group, it goes to the asker's private chat: in their app's language.
    own = catalog_language(ctx.user.language)
    mine = texts(own)("The record of the last game: {players}.", players=players) if own else None
    note = Message(text, attachment=("wizard-game.json", data), aside=mine)
    return Result(shown=[Note(note)])


def language(ctx: Context, code: str) -> Result:
    return _save_settings(ctx, replace(ctx.snap.settings, language=code))


def theme(ctx: Context, chosen: Theme) -> Result:
    return _save_settings(ctx, replace(ctx.snap.settings, theme=chosen.value))


def _save_settings(ctx: Context, settings: Settings) -> Result:
    """Keep the chat's new settings; it is said in the new language."""
    look = look_of(settings)
    text = look.t(
        "Settings saved: {language}, cards: {theme}.",
        language=look.t.name_in_a_sentence,
        theme=theme_in_a_sentence(look.t, look.theme),
    )
    table = ctx.snap.table
    write = Write(table=table, ttl=ttl(ctx.config, table), settings=settings)
    return Result(shown=[Note(Message(text))], write=write)


# --- the lobby ------------------------------------------------------------------------------------


def join(ctx: Context, _: None, again: bool = False) -> Result:
    """Sit down at the lobby, or open one. `again` (the last game's "Play again") opens the
    same table again: its options, its coach and its AI seats; /join after a game, a new one."""
    table = ctx.snap.table
    user = ctx.user
    fresh = table is None or table.game.phase is Phase.FINISHED
    robots: list[tuple[str, str, str]] = []  # the AI seats a table after a game keeps
    if table is None:
        table = Table(game_id=new_game_id(), game=GameState(), host=user.id, created=ctx.now)
    elif fresh:
        # Play again opens the same table again (each AI seat may come off with /removebot;
        # the people sit down by pressing).
        last = table
        if again:
            robots = [(p.id, p.name, last.ai[p.id]) for p in last.game.players if p.id in last.ai]
        table = Table(
            game_id=new_game_id(),
            game=GameState(options=last.game.options if again else Options()),
            host=user.id,
            created=ctx.now,
            after=last.game_id,
            before=last.humans(),
            coach=last.coach and again,
        )
    step(table.game, Join(user.id, user.name))
    for player, name, level in robots:
        step(table.game, Join(player, name))
        table.ai[player] = level
    speaks(table, user)
    table.updated = ctx.now
    set_deadline(ctx, table)
    return Result(
        # A new table is a new message at the foot of the chat, not the last one's lobby
        # (somewhere above the whole game before) edited.
        shown=[Lobby(new=True)] if fresh else lobby_changed(),
        # A newcomer learns at once where their cards will be (not in the chat's table).
        answer=ctx.own.t(
            "You joined the table. Your cards will come to you privately once the game starts."
        ),
        write=Write(table=table, ttl=LIVE_TTL),
    )


def again(ctx: Context, _: None) -> Result:
    """Play again: a new table once the game is over, or a seat at the one another player
    opened with this button."""
    if ctx.table().game.phase not in (Phase.FINISHED, Phase.LOBBY):
        raise Refused(ctx.own.t("This button is out of date."), Refusal.STALE_BUTTON)
    return join(ctx, None, again=True)


def leave(ctx: Context, _: None) -> Result:
    table = ctx.table()
    user = ctx.user
    step(table.game, Leave(user.id))
    humans = table.humans()
    if not humans:
        note = Message(ctx.look.t(EVERYBODY_LEFT), slot="lobby")
        toggles = toggles_closed(table.host, told(ctx.look, table, table.host, EVERYBODY_LEFT))
        shown = [Note(note), *last_game_closed(table), *toggles]
        return Result(shown=shown, write=closing(shown, table))
    shown = lobby_changed()  # the next host's toggles, if they have any: edited, none sent
    if table.host == user.id:  # theirs close, noted (nothing of the table names them now)
        table.host = humans[0]
        shown += toggles_closed(user.id, told(ctx.look, table, user.id, NO_LONGER_HOST))
    table.updated = ctx.now
    set_deadline(ctx, table)
    return Result(shown=shown, write=closing(shown, table, kept=True))


def start(ctx: Context, _: None) -> Result:
    table = ctx.table()
    events = step(table.game, Start(seed=ctx.rng.getrandbits(63)))
    result = after_move(ctx, table, events, notice=None)
    # The last game's own results of those who sit this one out keep their "Play again", which
    # would be refused now: it goes (the players' go to their first hand, in the same slot).
    # They stay named, for a worker that shows the game again after a crash lost this post.
    playing = {player.id for player in table.game.players}
    gone = [pid for pid in table.before if pid not in playing]
    result.shown += [Note(Message("", to=pid, slot="hand", strip=True)) for pid in gone]
    # what the group's lobby says now, in the host's language
    hosts = personal(ctx.look, table.languages, table.host)
    started = lobby(hosts, table_view(table.game), seating(table))
    result.shown += toggles_closed(table.host, started.text)
    table.before = gone
    table.started = ctx.version  # the closed lobby's version (`GameService.current`)
    return result


def lobby_changed(options: bool = False) -> list[Shown]:
    """What a change of the lobby shows: the group's lobby (with the host's option toggles
    when `options`: they set one there), and the host's own toggles in their private chat
    edited to match, only where they have them (`Lobby.only_edit`: a host who never asked for
    them there is sent nothing)."""
    return [Lobby(options=options), Lobby(only_edit=True)]


CANCELLED = N_("The game was cancelled.")
ABANDONED = N_("Nobody is playing any more: the game is abandoned.")
UNSEEN = N_("The game is over: I can no longer post in its chat (I was removed, or it is gone).")
TOPIC_GONE = N_("The game is over: its topic was closed or deleted, so I can no longer post there.")
MUTED = N_("The game is over: I am no longer allowed to send messages in its chat.")
LOBBY_UNSEEN = N_(
    "The table is closed: I can no longer post in its chat (I was removed, or it is gone)."
)
LOBBY_TOPIC_GONE = N_(
    "The table is closed: its topic was closed or deleted, so I can no longer post there. "
    "Send /join in the topic where you want to play."
)
LOBBY_MUTED = N_("The table is closed: I am no longer allowed to send messages in its chat.")
EVERYBODY_LEFT = N_("Everybody left: the table is closed.")
IDLE_CLOSED = N_("The table was idle too long and is closed.")
NO_LONGER_HOST = N_("You left this table, so you no longer host it.")
"""What a table's closing says (catalog keys): in the group, and to each person privately
in their own language (`told`); the last, to a host who left, only to them."""


def told(look: Look, table: Table, person: str | None, text: str) -> str:
    """`text` (a catalog key) as said privately to `person`: in their app's language where it
    is known (`Table.languages`), as their hands are, else the chat's. A table that closes
    tells its people in their own language, though no table is left to show it again from: the
    note of what its posts said keeps the texts (`Write.closed`)."""
    return personal(look, table.languages, person).t(text)


def each_told(look: Look, table: Table, text: str) -> list[Shown]:
    """`text` (a catalog key) said to each person seated at a lobby, in a private message of
    its own (they have no hand message yet), in their own language (`told`)."""
    return [Note(Message(told(look, table, pid, text), to=pid)) for pid in table.humans()]


def toggles_closed(host: str | None, text: str) -> list[Shown]:
    """The lobby's option toggles in its host's private chat (`/options` there) lose their
    buttons and say `text` instead, what became of the lobby: it started (the options it
    started with) or closed, or they host it no more. A press would be refused. Only where
    they have them (a bare post: nothing is sent to a host who never asked for them)."""
    if host is None:
        return []
    return [Note(Message("", to=host, slot=OPTIONS, strip=True, behind=text))]


def last_game_closed(table: Table) -> list[Shown]:
    """A table opened after a game (`Table.after`, by its "Play again" or a /join) closes as a
    lobby: that game's "Play again" buttons go, from the group's end of the game and from each
    of its people's own result (`Table.before`). A press on one would be refused: its game is
    over, and no table it opened is left to seat anyone at."""
    if table.after is None or table.game.phase is not Phase.LOBBY:
        return []
    strips = [Message("", to=pid, slot="hand", strip=True) for pid in table.before]
    return [Note(message) for message in (Message("", slot="over", strip=True), *strips)]


def cancel(ctx: Context, _: None) -> Result:
    table = ctx.table()
    t = ctx.look.t
    if table.game.phase is Phase.FINISHED:
        raise Refused(ctx.own.t("The game is already over."))
    note = t("{name} cancelled the game.", name=ctx.user.name)
    shown = cancelled(ctx.look, table, note)
    return Result(shown=shown, write=closing(shown, table))


def closing(shown: list[Shown], table: Table, kept: bool = False) -> Write:
    """The write that deletes `table` (or, `kept`, saves it: a host left it), whose posts are
    `shown`: it notes what their notes make each slot message say (`Write.closed`, bare
    messages saying it as `Message.behind`: the group's lobby or table, people's hands and own
    results, a host's toggles), and of which game (`Write.game`), for a worker that shows the
    chat again after a crash lost the posts (`GameService.current`); a message they delete
    (the group's turn reminder: `reminder_gone`) is noted deleted."""
    posted = (item.message for item in shown if isinstance(item, Note))
    slots = {(m.to, m.slot): m for m in posted if m.slot is not None}
    closed = tuple(
        Message("", to=to, slot=slot, delete=True)
        if m.delete
        else Message(
            "", to=to, slot=slot, strip=True, behind=m.behind if m.strip else m.text or None
        )
        for (to, slot), m in slots.items()
    )
    return Write(table=table if kept else None, ttl=LIVE_TTL, closed=closed, game=table.game_id)


def cancelled(look: Look, table: Table, note: str, gone: str = CANCELLED) -> list[Shown]:
    """What a cancelled game shows: the notice, and its lasting messages without buttons (each
    hand says `gone`, a catalog key, in its player's language: that the game was cancelled,
    unless said otherwise)."""
    state = table.game
    shown: list[Shown] = [Note(Message(note))]
    if state.phase is Phase.LOBBY:
        was = lobby_cancelled(look)
        toggles = lobby_cancelled(personal(look, table.languages, table.host)).text
        closed = [Note(was), *last_game_closed(table)]
        return [*shown, *closed, *toggles_closed(table.host, toggles)]
    view = table_view(state)
    shown.append(Note(table_message(look, view, seating(table), False, note, ended=True)))
    for pid in table.humans():
        shown.append(Note(Message(told(look, table, pid, gone), to=pid, slot="hand")))
    return [*shown, *reminder_gone(table)]


def unseen(ctx: Context, only: str | None = None, muted: bool = False) -> Result:
    """The game's chat can no longer be posted in (the bot was removed from the group, the
    channel was deleted): a game going on there ends, as nobody could see its table, and each
    of its players is told why in their private hand message (the chat shows nothing). A lobby
    closes, its host's toggles with it (`toggles_closed`), and each person seated at it is told
    why in a private message of its own (they have no hand message yet; before, only the
    toggles said it, and the others waited for a game that was not there); nothing to end is
    refused. `only`: just the place in the chat that is gone (a `Table.where`: a forum topic
    closed or deleted), which its players are told; a game played elsewhere goes on. `muted`:
    the bot is still in the chat but may send no messages there (the platform said so), which
    is what they are told instead of "I was removed, or it is gone"."""
    table = ctx.table()
    if table.game.phase is Phase.FINISHED or (only is not None and table.where != only):
        raise Refused(ctx.own.t("The game is already over."))
    shown: list[Shown]
    if table.game.phase is Phase.LOBBY:
        said = LOBBY_TOPIC_GONE if only is not None else LOBBY_MUTED if muted else LOBBY_UNSEEN
        shown = [
            *toggles_closed(table.host, told(ctx.look, table, table.host, said)),
            *each_told(ctx.look, table, said),
        ]
    else:
        # a topic: the chat is there, and the bot in it
        said = TOPIC_GONE if only is not None else MUTED if muted else UNSEEN
        shown = [
            Note(Message(told(ctx.look, table, pid, said), to=pid, slot="hand"))
            for pid in table.humans()
        ]
    return Result(shown=shown, write=closing(shown, table))


def add_ai(ctx: Context, level: str) -> Result:
    table = ctx.table()
    level = level or ctx.config.ai_level
    if len(table.game.players) >= MAX_PLAYERS:
        raise RuleError(ErrorCode.GAME_FULL, "full")
    taken = {p.name for p in table.game.players}
    number = next(n for n in range(1, 99) if f"ai:{n}" not in table.ai)
    name = next((n for n in ctx.config.ai_names if n not in taken), f"AI {number}")
    player = f"ai:{number}"
    step(table.game, Join(player, name))
    table.ai[player] = level
    table.updated = ctx.now
    set_deadline(ctx, table)
    return Result(shown=lobby_changed(), write=Write(table=table, ttl=LIVE_TTL))


def remove_ai(ctx: Context, which: str | int) -> Result:
    """Take an AI seat off the lobby: the one a lobby button names (`which`, the number of its
    player `ai:<number>`), the one named (typed, `Merlin`), or else the last one added."""
    table = ctx.table()
    state = table.game
    if state.phase is not Phase.LOBBY:
        step(state, Leave(ctx.user.id))  # refused, as any change of seats, after the start
    robots = [player for player in state.players if player.id in table.ai]
    if isinstance(which, int):
        player = next((p for p in robots if p.id == f"ai:{which}"), None)
        if player is None:  # taken off since the lobby showed it
            raise Refused(ctx.own.t("This button is out of date."), Refusal.STALE_BUTTON)
    elif not robots:
        raise Refused(ctx.own.t("There is no AI player to remove."))
    elif which:
        name = which.removeprefix(ROBOT).strip().casefold()
        player = next((p for p in robots if p.name.casefold() == name), None)
        if player is None:
            raise Refused(
                ctx.own.t("No AI player here is called {name}.", name=which), Refusal.BAD_ARGUMENT
            )
    else:
        player = robots[-1]  # seats are taken in order: the last AI seat is the last added
    step(state, Leave(player.id))
    del table.ai[player.id]
    table.updated = ctx.now
    set_deadline(ctx, table)
    return Result(shown=lobby_changed(), write=Write(table=table, ttl=LIVE_TTL))


def option(ctx: Context, text: str) -> Result:
    """Show the host's option toggles, or set one option (`name=value`, or `name` to toggle).
    Asked in the host's private chat (`Context.aside`), the toggles are shown there, and the
    group's lobby shows the change without them."""
    table = ctx.table()
    # refused, as a setting is, once the game started (a private /options that comes in just
    # as it starts would else show the closed lobby, in the group)
    verify_options(table.game, table.game.options)
    if not text:
        return Result(shown=[Lobby(host=ctx.user.id, new=True) if ctx.aside else Lobby(True)])
    shown = lobby_changed(options=True)
    if ctx.aside:  # the toggles pressed (or asked for) are the asker's: edited (or new)
        mine = Lobby(host=ctx.user.id, new=ctx.typed)
        shown = [Lobby(), mine] if ctx.user.id == table.host else [*lobby_changed(), mine]
    name, sep, value = text.partition("=")
    if name.strip().lower() == COACH:
        on = {"": True, "on": True, "off": False}.get(value.strip().lower() if sep else "")
        if on is None:
            raise Refused(ctx.own.t("Coach is on or off: coach, coach=off."), Refusal.BAD_ARGUMENT)
        step(table.game, SetOptions(table.game.options))  # counted (`GameState.seq`) as any set
        table.coach = on
        table.updated = ctx.now
        set_deadline(ctx, table)
        return Result(shown=shown, write=Write(table=table, ttl=LIVE_TTL))
    options = parse_option(table.game.options, text)
    step(table.game, SetOptions(options))
    table.updated = ctx.now
    set_deadline(ctx, table)
    return Result(shown=shown, write=Write(table=table, ttl=LIVE_TTL))


def resume(ctx: Context, _: None) -> Result:
    table = ctx.table()
    seat = ctx.seat()
    if ctx.user.id not in table.away:
        raise Refused(ctx.own.t("You are playing already."))
    paused = table.paused()
    table.away.remove(ctx.user.id)
    set_deadline(ctx, table)
    # The group's table marks them away (and may still say they ran out of time, or that the
    # game is paused): it shows them back at once, not only with the next move.
    back: list[Shown] = [GroupTable(new=False)] if table.game.phase in ROUND_PHASES else []
    if paused:  # the others' hands said the game was paused: the AI plays for them now
        players = enumerate(table.game.players)
        back += [Hand(other, notify=False) for other, p in players if p.id in table.away]
    return Result(
        shown=[*back, Hand(seat, notify=False)],
        answer=ctx.own.t("Welcome back!"),
        write=Write(table=table, ttl=LIVE_TTL),
    )


def hint(ctx: Context, _: None) -> Result:
    """A hint for the asker's decision, at a coach table (worked out by the service). Typed
    where the game is played, it is answered there with where the hint went, as /review is;
    a press (on the hand, the web page) is answered by the hint itself, pressed in a private
    chat once a decision (a double tap does not post it twice)."""
    table = ctx.table()
    seat = ctx.seat()
    t = ctx.own.t
    if not table.coach:
        raise Refused(t("Hints are for coach tables: the host sets /options coach in the lobby."))
    if table.game.phase not in ROUND_PHASES:
        raise Refused(t("No round is being played."))
    view = player_view(table.game, seat)
    if not has_choice(view):
        raise Refused(_no_hint(t, view))
    typed = ctx.typed and not ctx.aside
    answer = t("Your hint comes to you privately.") if typed else None
    once = ctx.aside and not ctx.typed
    private = once or typed
    return Result(answer=answer, hint=view, hint_once=once, hint_private=private, hint_said=t)


def _no_hint(t: Texts, view: PlayerView) -> str:
    """Why a player asking for a hint gets none: what they are asked, if anything, is no choice
    the coach weighs."""
    if view.choose_trump:
        return t("The coach weighs bids and cards; the trump suit is yours to choose.")
    if len(view.legal_bids) == 1:
        return t(
            "Only one bid is allowed now ({bid}): there is nothing to weigh.",
            bid=view.legal_bids[0],
        )
    if len(view.legal_cards) == 1 or view.play_unseen:
        return t("Only one card may be played now: there is nothing to weigh.")
    return t("You have no bid or card to choose right now.")


def hand(ctx: Context, _: None) -> Result:
    table = ctx.table()
    seat = ctx.seat()
    if table.game.phase not in ROUND_PHASES:
        raise Refused(ctx.own.t("No round is being played."))
    return Result(shown=[Hand(seat, notify=True)])


# --- moves ----------------------------------------------------------------------------------------


def refuse_aloud(ctx: Context, kind: Kind) -> None:
    """A move typed where everyone reads it is refused, whatever it names, when the table keeps
    it secret: a bid in a round of hidden or secret bids (whether one is taken would tell the
    others something: under `notequal`, the dealer's forbidden bid gives the sum of the bids
    not yet shown), and a wings mark (a card of the hand, before its turn). The refusal reads
    only what everyone sees, so it tells nothing."""
    t = ctx.own.t
    if kind is Kind.WINGS:
        raise Refused(
            t("Mark your card with the buttons in your private chat with me."), Refusal.ALOUD
        )
    rnd = ctx.table().game.round
    if kind is Kind.BID and rnd is not None and rnd.rules.bids is not BidMode.OPEN:
        raise Refused(
            t("Bids are secret in this round: bid with the buttons in your private chat with me."),
            Refusal.ALOUD,
        )


def bid(ctx: Context, number: int) -> Result:
    return move(ctx, Bid(ctx.user.id, number))


def play(ctx: Context, card: Card | None) -> Result:
    rnd = ctx.table().game.round
    if card is None and not (rnd is not None and rnd.rules.foresight):
        raise Refused(ctx.own.t(WHICH_CARD))
    return move(ctx, Play(ctx.user.id, card))


def trump(ctx: Context, suit: Suit) -> Result:
    return move(ctx, ChooseTrump(ctx.user.id, suit))


def wings(ctx: Context, card: Card | None) -> Result:
    return move(ctx, MarkWings(ctx.user.id, card))


def move(ctx: Context, command: Command) -> Result:
    """A player's move; a player on autopilot who moves is back."""
    table = ctx.table()
    events = step(table.game, command)
    speaks(table, ctx.user)
    back = None
    if ctx.user.id in table.away:
        table.away.remove(ctx.user.id)
        back = ctx.look.t("{name} is back.", name=ctx.user.name)
    return after_move(ctx, table, events, notice=back)


def speaks(table: Table, user: User) -> None:
    """Keep the language of a player's app (when their platform says it and a catalog has it)
    for their private messages; and, where it tells the writing of their name (`zh-TW`,
    whether a catalog has it or not), for the score sheet's picture (`Table.locales`)."""
    code = catalog_language(user.language)
    if code is not None:
        table.languages[user.id] = code
    if user.language is None:
        return
    if locale_face(user.language) is not None:
        table.locales[user.id] = user.language
    else:
        table.locales.pop(user.id, None)


def after_move(ctx: Context, table: Table, events: list[Event], notice: str | None) -> Result:
    """The deadline is set, and what the move shows. The AI moves that follow are made apart,
    each as a transaction of its own (`robot_move`)."""
    set_deadline(ctx, table)
    table.updated = ctx.now
    note_dropped(table, events)
    state = table.game
    record = None
    result = None
    hands: tuple[tuple[HandScreen, bool], ...] = ()
    if state.phase is Phase.FINISHED:
        record = export_record(state)
        result = game_summary(table, ctx.now)
    view = table_view(state)
    seats = seating(table)
    if state.phase in ROUND_PHASES:
        ended = any(isinstance(event, RoundScored) for event in events)
        hands = changed_hands(ctx.look, table, view, seats, ctx.version, ended)
    elif state.phase is Phase.FINISHED:
        hands = final_hands(ctx.look, table, view, seats, ctx.version)
    return Result(
        shown=[Moved(tuple(events), notice, hands, view, seats), *reminder_gone(table)],
        write=Write(table=table, ttl=ttl(ctx.config, table), result=result, record=record),
    )


REMINDER = "remind"
"""The group's slot of a turn's reminder ("⏳ Ann: it is your turn (45 s left).", `remind`): a
new message each time (it names people to notify), deleted at the table's next move, its
timeout or its end (`reminder_gone`), so that the chat keeps no call to a turn that passed."""


def reminder_gone(table: Table) -> list[Shown]:
    """The group's reminder of the turn deleted, if it is up (`Table.reminded`): nothing, and
    no call to the platform or the slot map, where it is not."""
    if not table.reminded:
        return []
    table.reminded = False
    return [Note(GONE)]


GONE = Message("", slot=REMINDER, delete=True)
"""The group's reminder of a turn deleted (`REMINDER`)."""


def reminder_left(table: Table) -> list[Message]:
    """For a game shown again (`GameService.current`, after a crash or an outage): the group's
    reminder of a turn the game is past deleted, where a worker that died after the move's write
    left it (the deletion goes only where the slot shows an older version than the game's:
    `Outcome.again`). Nothing for a lobby, which has none, nor while the table has it up."""
    if table.reminded or table.game.phase is Phase.LOBBY:
        return []
    return [GONE]


def note_dropped(table: Table, events: list[Event]) -> None:
    """Keep the wings marks that could not be played (`Table.dropped`) while their players' turn
    lasts: each is forgotten once they have played."""
    state = table.game
    playing = state.phase is Phase.PLAYING
    waiting = {state.players[seat].id for seat in waiting_seats(state)} if playing else set()
    dropped = dict(table.dropped)
    for event in events:
        if isinstance(event, CardPlayed):
            dropped.pop(event.player, None)
        elif isinstance(event, WingsDropped):
            dropped[event.to] = event.card
    table.dropped = {player: card for player, card in dropped.items() if player in waiting}


def game_summary(table: Table, now: float) -> dict[str, object]:
    """What the chat keeps of a finished game for its stats and ratings (`bot.stats`): who
    played (AI seats with their level), their totals and places, and the bids each met; and,
    if the AI moved for anyone away, in which rounds, seat by seat (`autopilot`: `/review`
    leaves those rounds out, once the table moved on to the next game too)."""
    state = table.game
    view = table_view(state)
    away = [sorted(table.autopilot.get(p.id, ())) for p in state.players]
    return {
        **({"autopilot": away} if any(away) else {}),
        "game": table.game_id,
        "players": [p.id for p in state.players],
        "names": [p.name for p in state.players],
        "ai": {p.id: table.ai[p.id] for p in state.players if p.id in table.ai},
        "totals": list(state.totals),
        "places": list(view.places),
        "made": [bids_met(view.sheet, seat) for seat in range(len(state.players))],
        "rounds": len(state.results),
        "options": state.options.to_dict(),
        "finished": now,
    }


def robot_seats(table: Table) -> list[int]:
    """The seats the game waits for that the AI plays: AI seats, and players away; none while
    the game is paused (nobody is playing: `Table.paused`)."""
    state = table.game
    if state.phase not in ROUND_PHASES or not (table.ai or table.away):
        return []  # no AI seat and nobody away: most tables, after every move
    if table.paused():
        return []
    return [
        seat
        for seat in waiting_seats(state)
        if state.players[seat].id in table.ai or state.players[seat].id in table.away
    ]


def robot_level(config: Config, table: Table, player: str) -> str:
    """How well the AI plays `player`'s seat: an AI seat's level, else the stand-in's."""
    return table.ai.get(player, config.stand_in)


@dataclass(frozen=True, slots=True)
class RobotMove:
    """An AI move decided apart from the table: the seat it is for, the view it was decided
    from (of game `game`) and the command decided."""

    game: str
    seat: int
    view: PlayerView
    command: Command


def robot_move(ctx: Context, move: RobotMove) -> Result:
    """An AI move, decided from the chat as it was: applied if its seat still waits for the AI
    and sees the table exactly as it did (else refused, to be decided again)."""
    table = ctx.snap.table
    if (
        table is None
        or table.game_id != move.game
        or move.seat not in robot_seats(table)
        or player_view(table.game, move.seat) != move.view
    ):
        raise Refused("The table moved on.", Refusal.MOVED_ON)
    player = table.game.players[move.seat].id
    rnd = table.game.round
    if player in table.away and rnd is not None:  # a stand-in's move, not theirs
        rounds = table.autopilot.setdefault(player, [])
        if rnd.number not in rounds:
            rounds.append(rnd.number)
    events = step(table.game, move.command)
    return after_move(ctx, table, events, notice=None)


def decide(level: str, view: PlayerView, rng: random.Random, metrics: Metrics | None) -> Command:
    """The AI's move for the player of `view` at `level`, timed into `metrics`."""
    started = time.perf_counter()
    command = get_ai(level).decide(view, rng)
    if metrics is not None:
        metrics.thought(level, time.perf_counter() - started)
    return command


DIGEST_SIZE = 7
"""Bytes of a screen's digest in `Table.seen` (14 hex digits)."""
LEGACY_SIZE = 6
"""Bytes of the digests older code kept (12 hex digits; see `legacy_digest`)."""


def screen_digest(screen: HandScreen, language: str, theme: Theme) -> str:
    """A digest of what a hand message shows: its screen (a tree of plain values, so its JSON
    is the same for equal screens alone) in a language and a deck theme. A field added to the
    screen since digests were first kept is left out while it holds nothing (`UNSAID`): the
    digests older code kept still say "unchanged" where the screen shows what it showed."""
    data = orjson.dumps((screen, language, theme))
    for unsaid in UNSAID:
        data = data.replace(unsaid, b"", 1)
    return hashlib.blake2b(data, digest_size=DIGEST_SIZE).hexdigest()


UNSAID = (b',"played":null', b',"last":null', b',"scores":[]', b',"paused":null')
"""`HandScreen.played` (6 December 2026), `HandScreen.last`, `HandScreen.scores` and
`HandScreen.paused` (7 December 2026) while they are None or empty, as the JSON of a screen has
them: they are left out of the digest, which is then the one the code before them made of the
same screen, so an upgrade (and old and new workers side by side, each one's digest the other's)
edits no hand that shows the same; a hand edited for nothing was one "not modified" edit for
every player on each change of worker. The text cannot occur elsewhere in the JSON: a quote
inside a string is escaped, and no field is an object."""


def legacy_digest(screen: HandScreen, language: str, theme: Theme) -> str:
    """The digest code before this one kept of a screen (of its repr, slower to make). A table
    saved by that code keeps such digests until the player's screen changes: one equal to it
    still means "unchanged", so an upgrade sends no edit that changes nothing, and loses none
    (a screen that differs differs in both digests). Should the screen gain a field, the
    repr differs from the one then kept: one edit too many after an upgrade, never one lost."""
    data = repr((screen, language, theme)).encode()
    return hashlib.blake2b(data, digest_size=LEGACY_SIZE).hexdigest()


def private_key(
    state: GameState, seat: int, seats: Seating, language: str, theme: Theme
) -> tuple[object, ...]:
    """All that the hand screen of a seat the game does not wait for is made of (it has no
    move to make: no bids, cards or trump to choose, so nothing of the trick or of the others'
    bids): the round, the trump, the seat's hand, bid, tricks won and wings mark, whether the AI
    plays for it (or the game is paused), under foresight the card each other seat holds, the
    trick (where the own card lies once played) and their names; and the message's language
    and theme. Equal keys make equal screens (`hand_screen`), so a seat whose key is the one it
    had when its screen was last compared has the same screen."""
    rnd = state.round
    if rnd is None:  # pragma: no cover - hands are compared in a round only
        raise ValueError("no round")
    foresight = rnd.rules.foresight
    return (
        state.phase,
        rnd.number,
        len(state.plan),
        rnd.trump,
        tuple(rnd.hands[seat]),
        rnd.bids[seat],
        rnd.won[seat],
        rnd.marks[seat],
        seat in seats.away,
        seats.paused,
        state.options.wings,
        foresight,
        tuple(hand[0] if hand else None for hand in rnd.hands) if foresight else (),
        tuple(rnd.trick) if foresight else (),  # the own card, once played unseen
        seats.names if foresight else (),
        seats.game,
        language,
        theme,
    )


def changed_hands(
    look: Look,
    table: Table,
    view: TableView,
    seats: Seating,
    version: int,
    ended: bool = False,
) -> tuple[tuple[HandScreen, bool], ...]:
    """The hand screens of the players whose private view changed, each with whether it is a
    new message (which notifies): a game's first hand message is new, and so is the one of a
    player whose turn it now is. `table.seen` keeps a digest of each player's last screen and
    the table's `version` it came with (see `seen_since`). A player the game does not wait for,
    and whose `private_key` is the one their entry was last made with (`table.private`, kept
    by this worker), has the same screen: it is not made again.

    When a round `ended` with the move, the message of a player whose turn it was not (it
    showed the round before its last trick, one trick short for that trick's winner) first
    shows the round as it ended (`round_end_screen`), then their screen of the next round: an
    edit that replaces it (the outcome drops the round's end, `bot.show.render`), or, when the
    next round asks for their move, a new message (the round's end stays on the one before)."""
    state = table.game
    waiting = set(waiting_seats(state))
    theme = look.theme
    default = look.t.language
    changed = []
    for seat, player in enumerate(state.players):
        pid = player.id
        if pid in table.ai:
            continue
        language = table.languages.get(pid, default)
        entry = table.seen.get(pid, "")
        key = None
        if seat not in waiting:
            key = private_key(state, seat, seats, language, theme)
            if table.private.get(pid) == (key, entry):
                continue
        turn = seat in waiting and pid not in table.away
        if ended and entry and not entry.partition("@")[0].endswith("!"):
            end = round_end_screen(view, seat, seats, *_round_end(state, seat))
            if _seen_anew(table, end, language, theme, False, version) is not None:
                changed.append((end, False))
        screen = hand_screen(player_view(state, seat, view), seats)
        notify = _seen_anew(table, screen, language, theme, turn, version)
        if notify is not None:
            changed.append((screen, notify))
        if key is None:
            table.private.pop(pid, None)
        else:
            table.private[pid] = (key, table.seen[pid])
    return tuple(changed)


def _round_end(state: GameState, seat: int) -> tuple[Suit | None, Card | None]:
    """The trump of the round that just ended, and, in a foresight round (one card each), the
    card the player in `seat` played without seeing it (`round_end_screen`)."""
    result = state.results[-1]
    unseen = result.hands[seat][0] if state.options.foresight and result.cards == 1 else None
    return result.trump, unseen


def final_hands(
    look: Look, table: Table, view: TableView, seats: Seating, version: int
) -> tuple[tuple[HandScreen, bool], ...]:
    """Once the game is over, the hand messages that do not show the last round as it ended
    (`round_end_screen`), as edits: the hand of whoever played its last card still asks for it,
    and the tricks won of the last trick's winner are one short. Each person's result follows
    as a new message."""
    state = table.game
    final = []
    for seat, player in enumerate(state.players):
        pid = player.id
        if pid in table.ai or pid not in table.seen:
            continue
        language = table.languages.get(pid, look.t.language)
        screen = round_end_screen(view, seat, seats, *_round_end(state, seat))
        if _seen_anew(table, screen, language, look.theme, False, version) is not None:
            final.append((screen, False))
    return tuple(final)


def _seen_anew(
    table: Table, screen: HandScreen, language: str, theme: Theme, turn: bool, version: int
) -> bool | None:
    """Whether the person's hand message is to show `screen` (a turn or not): None if it shows
    that already, else whether as a new message (which notifies: a game's first hand message,
    or the one of a turn that was not theirs before). `table.seen` keeps a digest of each
    person's last screen and the table's `version` it came with (see `seen_since`)."""
    # What the person would see: an edit that shows the same is no edit (Telegram refuses
    # it as "not modified"). The screen is all the message is made of, in this look.
    pid = screen.player
    digest = screen_digest(screen, language, theme)
    previous = table.seen.get(pid, "").partition("@")[0]
    was_turn = previous.endswith("!")
    before = previous.rstrip("!")
    same = before == digest or (
        len(before) == 2 * LEGACY_SIZE and before == legacy_digest(screen, language, theme)
    )
    if same and turn == was_turn:
        return None
    table.seen[pid] = f"{digest}{'!' if turn else ''}@{version}"
    return not previous or (turn and not was_turn)


def set_deadline(ctx: Context, table: Table) -> None:
    """When the table times out (and reminds the group, halfway through a turn)."""
    state = table.game
    now = ctx.now
    table.remind = None
    table.clock = now
    if state.phase is Phase.LOBBY:
        table.deadline = now + ctx.config.lobby_timeout
    elif table.paused():
        # Nobody is playing: the game waits as long as an idle lobby does (no reminder).
        table.deadline = now + ctx.config.lobby_timeout
    elif state.phase in ROUND_PHASES and robot_seats(table):
        # The worker that saved this makes the AI's move at once; should it die first, the
        # move is made when this falls due.
        table.deadline = now + ctx.config.ai_grace
    elif state.phase in ROUND_PHASES:
        table.deadline = now + ctx.config.turn_timeout
        table.remind = now + ctx.config.turn_timeout / 2
    else:
        table.deadline = None


# --- timeouts ---------------------------------------------------------------------------------


def timeout(ctx: Context, deadline: float) -> Result:
    """A timer entry for `deadline` fired: remind the group, or time the turn out. The late
    players go on autopilot; if that leaves no person playing, the game pauses instead
    (`Table.paused`), and a pause that times out abandons it."""
    table = ctx.snap.table
    wake = table.wake() if table is not None else None
    if table is None or wake is None:
        return Result()
    if abs(wake - deadline) > 0.001 or ctx.now < wake:
        return Result(mend=wake)  # the game moved on (or a clock is behind): index anew
    lost = downtime(ctx.outages, table.updated if table.clock is None else table.clock, ctx.now)
    if lost >= MIN_CREDIT:
        # The bot (or its Redis) was down during this turn: nobody could act, so the turn's
        # clock stood still. Its times move on by what was lost; the entry follows.
        table.clock = ctx.now
        table.deadline = None if table.deadline is None else table.deadline + lost
        table.remind = None if table.remind is None else table.remind + lost
        return moved_on(ctx, table)
    if robot_seats(table):
        # An AI move is overdue: the worker that was to make it died. The deadline moves on
        # (so it is tried again should this worker die too), and the service makes the move.
        set_deadline(ctx, table)
        return moved_on(ctx, table)
    t = ctx.look.t
    state = table.game
    if table.remind is not None:
        if table.deadline is not None and ctx.now < table.deadline:
            return remind(ctx, table)
        table.remind = None  # the whole turn time is gone already: no reminder now
    if state.phase is Phase.LOBBY:
        note = Message(t(IDLE_CLOSED), slot="lobby")
        toggles = toggles_closed(table.host, told(ctx.look, table, table.host, IDLE_CLOSED))
        shown = [Note(note), *last_game_closed(table), *toggles]
        if table.where is not None:
            # its place (a forum topic) may be gone unsaid, and its refusal of the notice then
            # finds no table left to tell anyone of: each person seated is told privately too
            shown += each_told(ctx.look, table, IDLE_CLOSED)
        return Result(shown=shown, write=closing(shown, table))
    if state.phase not in ROUND_PHASES:
        return Result()
    if table.paused():  # the pause is over, and nobody came back
        shown = cancelled(ctx.look, table, t(ABANDONED), ABANDONED)
        return Result(shown=shown, write=closing(shown, table))
    late = _late(table)
    table.away.extend(late)
    notice = None  # nobody is left playing: the game pauses (the table says so, `table_text`)
    if not table.paused():
        names = seating(table).names
        who = ", ".join(names[state.seat_of(pid) or 0] for pid in late)
        notice = t(
            "⏰ {names} ran out of time: the AI plays for them until they are back.", names=who
        )
    result = after_move(ctx, table, [], notice=notice)
    result.reindex = True  # this timer's entry is dropped once the timeout is applied
    return result


def moved_on(ctx: Context, table: Table) -> Result:
    """The write of a timer that moves the table's time on (`mend`), its entry with it. The
    entry is replaced before the write (`reindex`), as a timeout's: moved after it, it would
    cover the earlier time of a move written in between, indexed with `ZADD LT` while the entry
    was still the one due (the move's turn would time out that much late)."""
    write = Write(table=table, ttl=ttl(ctx.config, table))
    return Result(write=write, mend=table.wake(), reindex=True)


MIN_CREDIT = 1.0
"""Seconds of downtime a turn's clock is credited for at least (less is a slow tick)."""


def downtime(outages: tuple[tuple[float, float], ...], since: float, until: float) -> float:
    """Seconds of the outages between `since` and `until`."""
    return sum(max(0.0, min(end, until) - max(start, since)) for start, end in outages)


def remind(ctx: Context, table: Table) -> Result:
    """Half the turn time is gone: the group names the people it waits for."""
    table.remind = None
    state = table.game
    late = _late(table)
    result = moved_on(ctx, table)
    if late:
        names = seating(table).names
        named = tuple((pid, names[state.seat_of(pid) or 0]) for pid in late)
        left = round(table.deadline - ctx.now) if table.deadline else 0
        # TRANSLATORS: the plural speaks to several people at once (hidden bids): "you" all.
        said = ctx.look.t.ngettext(
            "⏳ {names}: it is your turn ({seconds} s left).",
            "⏳ {names}: it is your turn ({seconds} s left).",
            len(named),
        )
        text = said.format(names=", ".join(name for _, name in named), seconds=max(1, left))
        result.shown.append(Note(Message(text, mentions=named, slot=REMINDER, notify=True)))
        table.reminded = True
    return result


def _late(table: Table) -> list[str]:
    """The people the game waits for who are playing themselves (not AI, not away)."""
    state = table.game
    return [
        state.players[seat].id
        for seat in waiting_seats(state)
        if state.players[seat].id not in table.ai and state.players[seat].id not in table.away
    ]


HANDLERS: dict[Kind, Handler] = {
    Kind.JOIN: join,
    Kind.LEAVE: leave,
    Kind.ADD_AI: add_ai,
    Kind.REMOVE_AI: remove_ai,
    Kind.OPTION: option,
    Kind.START: start,
    Kind.BID: bid,
    Kind.PLAY: play,
    Kind.TRUMP: trump,
    Kind.WINGS: wings,
    Kind.HAND: hand,
    Kind.SCORES: scores,
    Kind.RULES: rules,
    Kind.RECORD: record,
    Kind.LANGUAGE: language,
    Kind.THEME: theme,
    Kind.CANCEL: cancel,
    Kind.HELP: help_,
    Kind.RESUME: resume,
    Kind.AGAIN: again,
    Kind.HINT: hint,
}
"""What each command does: the service dispatches a request to its kind's handler."""
