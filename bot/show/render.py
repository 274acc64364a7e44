"""What a request shows, and the messages that says: a handler lists the screens to show (a
`Shown` item each), and once its write has succeeded they are rendered from the saved table.
Rendering happens outside the store's transaction, once per request, never for a write that lost
a race."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from bot.messages import OPTIONS, Message
from bot.show.look import Look, personal
from bot.show.screens import (
    HandScreen,
    hand_message,
    hand_screen,
    lobby,
    player_result,
    round_summary,
    rules_text,
    sheet,
    table_message,
    the_end,
)
from bot.show.seating import Seating, seating
from bot.stats import Rerated
from bot.table import Table, seen_since
from engine import (
    ROUND_PHASES,
    Event,
    Options,
    Phase,
    TableView,
    player_view,
    table_view,
    waiting_seats,
)
from engine.events import GameStarted, RoundScored, RoundStarted, WingsDropped, WingsMarked


@dataclass(frozen=True, slots=True)
class Note:
    """A message already worded (a notice, a confirmation, a file)."""

    message: Message


@dataclass(frozen=True, slots=True)
class Lobby:
    """The lobby, with the host's option toggles when `options` (`new`: as a new message);
    with `host`, their own toggles in their private chat instead (`screens.lobby`); with
    `only_edit`, its host's toggles there edited to show the lobby as it is now, only where
    they have them (`Message.only_edit`: what the lobby shows changed, and a host who never
    asked for them is sent nothing)."""

    options: bool = False
    new: bool = False
    host: str | None = None
    only_edit: bool = False


@dataclass(frozen=True, slots=True)
class Hand:
    """One player's hand message, as a new message when `notify`."""

    seat: int
    notify: bool


@dataclass(frozen=True, slots=True)
class Moved:
    """Moves were made (a person's, then the AI seats'): the round summaries and notices their
    events call for, the hands whose screens changed, and the game's end or the table."""

    events: tuple[Event, ...]
    notice: str | None
    hands: tuple[tuple[HandScreen, bool], ...]
    """The changed hands, and whether each is a new message (it notifies). A person may have
    two: the round's end, then the next round's hand (`changed_hands`); the first is shown only
    when the second is a new message."""
    view: TableView
    seating: Seating
    """The table as saved, seen by all (made once for the hands' screens, used again here)."""
    ratings: tuple[Rerated, ...] = ()
    """At a game's end: how it moved each seat's rating, as the fold that folded it noted
    (`bot.stats.Noted`); empty if that is not known (not said)."""


@dataclass(frozen=True, slots=True)
class GroupTable:
    """The group's table (`new`: as a new message)."""

    new: bool


@dataclass(frozen=True, slots=True)
class Sheet:
    """The score sheet so far."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The rules in short, with this table's options."""

    options: Options | None
    coach: bool = False
    """The table's coach option is on (`Table.coach`)."""


@dataclass(frozen=True, slots=True)
class Current:
    """What the game shows that lasts, as it is now: the lobby, or the table and every player's
    hand, or the game's end; with no game (cancelled, closed), the group's lasting messages
    without the buttons they may have kept, and so the private messages the closing write
    named (people's hands, a host's toggles), each saying what that write's posts made it
    say (`closed`, bare messages: `Snapshot.closed`; with a table, the toggles of a host who
    left it), and the group's turn reminder a cancel deleted, deleted. Shown again after a
    crash or an outage (`Outcome.again`)."""

    closed: tuple[Message, ...] = ()
    ratings: tuple[Rerated, ...] = ()
    """A finished game's: how it moved each seat's rating (as `Moved.ratings`)."""


GROUP_SLOTS = ("lobby", "table", "over")
"""The slots of a game's lasting messages in the group."""


Shown = Note | Lobby | Hand | Moved | GroupTable | Sheet | Rules | Current


def render(look: Look, table: Table | None, shown: list[Shown]) -> list[Message]:
    """The messages of `shown`, for the saved `table`."""
    messages: list[Message] = []
    for item in shown:
        if isinstance(item, Note):
            messages.append(item.message)
        elif isinstance(item, Rules):
            messages.append(Message(rules_text(look, item.options, item.coach)))
        elif table is not None:
            messages += _of_table(look, table, item)
        elif isinstance(item, Current):
            said = {m.slot: m for m in item.closed if m.to is None}
            bare = [said.get(slot, Message("", slot=slot, strip=True)) for slot in GROUP_SLOTS]
            messages += bare + [m for m in item.closed if m.to is not None or m.delete]
    return messages


def hand_again(
    look: Look,
    table: Table,
    player: str,
    hinted: bool = False,
    ratings: Sequence[Rerated] | None = None,
) -> Message | None:
    """`player`'s hand message as a new message, without a sound, where it asks them for a
    press now (a bid, a card, the trump, a wings mark, Resume; once the game is over, their
    result with Play again): posted again under a message of theirs that would push it up
    their private chat (a coach's hint or review), the one above losing its buttons as any
    hand left behind does. None where it asks nothing (their next turn comes as a new message
    anyway), or they hold no seat. `hinted`: under the hint of this decision, without the
    Hint button (its answer is right above). `ratings`: a finished game's, for the result
    (as `Current.ratings`; None: not posted again)."""
    state = table.game
    seat = next((i for i, p in enumerate(state.players) if p.id == player), None)
    if seat is None or player in table.ai:
        return None
    if state.phase is Phase.FINISHED and ratings is not None:
        mine = personal(look, table.languages, player)
        rating = ratings[seat] if ratings else None
        result = player_result(mine, table_view(state), seating(table), seat, rating)
        return replace(result, quiet=True)
    if state.phase not in ROUND_PHASES:
        return None
    screen = hand_screen(player_view(state, seat), seating(table))
    if hinted:
        screen = replace(screen, hint=False)
    message = hand_message(personal(look, table.languages, player), screen, notify=True)
    return replace(message, quiet=True) if message.buttons else None


def _of_table(look: Look, table: Table, item: Shown) -> list[Message]:
    state = table.game
    if isinstance(item, Moved):
        return _moved(look, item, table.languages)
    view = table_view(state)
    seats = seating(table)
    if isinstance(item, Lobby):
        if item.only_edit:
            return _toggles(look, table, view, seats)
        if item.host is not None:
            mine = personal(look, table.languages, item.host)
            message = lobby(mine, view, seats, host=item.host)
        else:
            message = lobby(look, view, seats, item.options)
        return [replace(message, notify=True) if item.new else message]
    if isinstance(item, Hand):
        screen = hand_screen(player_view(state, item.seat, view), seats)
        mine = personal(look, table.languages, screen.player)
        return [hand_message(mine, screen, item.notify)]
    if isinstance(item, GroupTable):
        return [table_message(look, view, seats, new=item.new)]
    if isinstance(item, Sheet):
        return [sheet(look, view, seats)]
    if isinstance(item, Current):
        return [*_current(look, table, view, seats, item.ratings), *item.closed]
    return []


def _current(
    look: Look, table: Table, view: TableView, seats: Seating, ratings: tuple[Rerated, ...]
) -> list[Message]:
    """The lasting messages of the game as it is now (see `Current`; `ratings`: how a finished
    game moved them); each hand, and the lobby once closed, says since which version it shows
    what it shows."""
    state = table.game
    if state.phase is Phase.LOBBY:
        return [lobby(look, view, seats), *_toggles(look, table, view, seats)]
    closed = _closed_lobby(look, table, view, seats)
    if state.phase is Phase.FINISHED:
        return closed + the_end(look, view, seats, table.languages, ratings)
    messages = [*closed, table_message(look, view, seats, new=False)]
    waiting = set(waiting_seats(state))
    for seat, player in enumerate(state.players):
        if player.id in table.ai:
            continue
        screen = hand_screen(player_view(state, seat, view), seats)
        turn = seat in waiting and player.id not in table.away
        since = seen_since(table.seen.get(player.id, ""))
        mine = personal(look, table.languages, player.id)
        messages.append(replace(hand_message(mine, screen, turn), since=since))
    return messages


def _closed_lobby(look: Look, table: Table, view: TableView, seats: Seating) -> list[Message]:
    """The lobby as the game's start left it, without buttons (since the version it started
    at), and, for a game opened by the last one's "Play again", that game's end without its
    button (a bare message), and so the own result of each of its players who sit this one out
    (`Table.before`); none for a table saved before the start's version was kept."""
    if table.started is None:
        return []
    closed = replace(lobby(look, view, seats), since=table.started)
    lasting = [closed]
    if table.host is not None:  # its host's toggles, as the start left them (`toggles_closed`)
        said = lobby(personal(look, table.languages, table.host), view, seats).text
        toggles = Message("", to=table.host, slot=OPTIONS, strip=True, behind=said)
        lasting.append(replace(toggles, since=table.started))
    if table.after is None or view.phase not in ROUND_PHASES:
        return lasting
    gone = [Message("", to=pid, slot="hand", strip=True) for pid in table.before]
    return [*lasting, Message("", slot="over", strip=True), *gone]


def _toggles(look: Look, table: Table, view: TableView, seats: Seating) -> list[Message]:
    """The lobby's option toggles in its host's private chat as the lobby is now, an edit only
    where they have them (`Message.only_edit`); none once the game has started."""
    if table.host is None or view.phase is not Phase.LOBBY:
        return []
    mine = personal(look, table.languages, table.host)
    return [replace(lobby(mine, view, seats, host=table.host), only_edit=True)]


def _edited_again(hands: Sequence[tuple[HandScreen, bool]], index: int) -> bool:
    """Whether the hand screen at `index` is followed by an edit of the same person's message,
    which shows instead (a round's end before the next round's hand, `changed_hands`); one
    followed by a new message stays on the message before it."""
    player = hands[index][0].player
    later = [notify for screen, notify in hands[index + 1 :] if screen.player == player]
    return bool(later) and not later[0]


def _moved(look: Look, item: Moved, languages: Mapping[str, str]) -> list[Message]:
    """What moves show: round summaries and wings notices as their events come, then the game's
    end (after the hands as it left them), or the table and the changed hands (a hand under
    its wings notice: `_under_notice`)."""
    view, seats = item.view, item.seating
    messages: list[Message] = []
    new_round = False
    told: set[str] = set()
    for event in item.events:
        if isinstance(event, GameStarted):
            messages.append(lobby(look, view, seats))  # without its buttons now
            messages.append(Message("", slot="over", strip=True))  # the last game's Play again
        elif isinstance(event, RoundStarted):
            new_round = True
        elif isinstance(event, RoundScored) and not (
            view.phase is Phase.FINISHED and event.round == len(view.sheet)
        ):  # the last round's end is on the game's final table
            messages.append(round_summary(look, view.sheet[event.round - 1], seats))
        elif isinstance(event, WingsDropped):
            mine = personal(look, languages, event.to)
            text = mine.t(
                "🪽 {card} could not be played: choose a card.", card=mine.card(event.card)
            )
            messages.append(Message(text, to=event.to))
            told.add(event.to)
    hands = [
        _under_notice(hand_message(personal(look, languages, screen.player), screen, notify), told)
        for index, (screen, notify) in enumerate(item.hands)
        if not _edited_again(item.hands, index)
    ]
    if view.phase is Phase.FINISHED:  # the hands as the game ended, then each one's result
        messages += hands + the_end(look, view, seats, languages, item.ratings)
    elif view.phase in ROUND_PHASES:
        if not _marked_only(item):
            messages.append(table_message(look, view, seats, new_round, item.notice))
        messages += hands
    return messages


def _under_notice(hand: Message, told: set[str]) -> Message:
    """A hand that asks for a press, of a person told privately in the same moves that their
    wings mark could not be played: a new message under that notice, without a sound (the
    notice rang), the one above losing its buttons, as under a coach's hint (`hand_again`).
    An edit would leave it above the notice: the turn that dropped the mark may come on the
    message of their bid (the last to bid, their turn came with the bid's move)."""
    if hand.to not in told or not hand.buttons or hand.notify:
        return hand
    return replace(hand, notify=True, quiet=True)


def _marked_only(item: Moved) -> bool:
    """Whether the moves were wings marks alone, which the table does not show (its message
    would be edited to what it shows already: a call for nothing, in a group's rate limit)."""
    events = item.events
    return bool(events) and item.notice is None and all(isinstance(e, WingsMarked) for e in events)
