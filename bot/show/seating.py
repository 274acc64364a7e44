"""Who sits where as a chat shows them, and what this game's buttons carry: the part of a chat's
table that screens need beside the engine's views."""

import functools
import math
from dataclasses import dataclass

from bot import tokens
from bot.namesakes import numbers, shown
from bot.show.i18n import LANGUAGES, Texts, texts
from bot.table import Table

ROBOT = "🤖"
AWAY = "💤"
CROWN = "👑"
"""The host's mark, after their name in the lobby."""
MARKS = (ROBOT, AWAY, CROWN)
"""The marks a chat puts beside a seat's name: a person's name does not begin or end with one
(`adapters.text.clean_name`), or it would pass for an AI seat, a player away or the host."""


def dealer_mark(t: Texts) -> str:
    """The dealer's mark after their name on the table: `(dealer)` in the language of `t`."""
    # TRANSLATORS: the dealer's mark after their name, in brackets (`Ann (dealer)`): it is said
    # of anyone, so it takes no gender (a verb, as Russian `сдаёт`, Spanish `reparte`).
    word = t("dealer")
    return f"({word})"


@functools.cache
def dealer_marks() -> frozenset[str]:
    """The dealer's mark in every language of the catalogs, casefolded: a person's name does
    not end with one (`adapters.text.clean_name`), or it would pass for the dealer's."""
    return frozenset(dealer_mark(texts(language)).casefold() for language in LANGUAGES)


@dataclass(frozen=True, slots=True)
class Seating:
    """A game's seats as shown, and its button stamps."""

    game: str
    """The game's id (every button of the game carries it)."""
    names: tuple[str, ...]
    """Seat names, AI seats marked with a robot, and a name already taken at the table numbered
    (`Ann (2)`): two people called alike are told apart."""
    host: int | None
    """The host's seat."""
    away: frozenset[int]
    """Seats the AI plays for until their players are back."""
    stamp: str
    """The stamp of the decision the game waits for now (see bot.tokens)."""
    round_stamp: str
    """A stamp valid for the whole round (wings marks)."""
    robots: frozenset[int] = frozenset()
    """The AI seats."""
    coach: bool = False
    """The table's coach option is on: hints are offered (`Table.coach`)."""
    numbers: tuple[int, ...] = ()
    """Each seat's number among the people called alike (`bot.namesakes.numbers`): 1 for a name
    shown as it is, 2 for the name shown as `Ann (2)` in `names`; empty: nobody numbered."""
    last_robot: tuple[int, str] | None = None
    """The AI seat added last (the last in seat order) and the number of its player
    (`ai:<number>`), which the lobby's button that takes it off carries; None: no AI seat."""
    locales: tuple[str | None, ...] = ()
    """Per seat, the language of its person's app where it tells the writing of their name
    (`Table.locales`): the score sheet's picture draws it in its face. None: not known, or an
    AI seat; empty: none known."""
    paused: int | None = None
    """While the game is paused (nobody is playing, `Table.paused`): the minutes it waits, from
    when it paused (or its clock last resumed after an outage), before it is abandoned."""


def seating(table: Table) -> Seating:
    """The seating of a chat's table."""
    state = table.game
    players = state.players
    robots = [(seat, p.id) for seat, p in enumerate(players) if p.id in table.ai]
    called = tuple(f"{ROBOT} {p.name}" if p.id in table.ai else p.name for p in players)
    counted = numbers(called)
    return Seating(
        game=table.game_id,
        names=tuple(map(shown, called, counted)),
        numbers=counted,
        host=next((seat for seat, p in enumerate(players) if p.id == table.host), None),
        away=frozenset(seat for seat, p in enumerate(players) if p.id in table.away),
        stamp=tokens.stamp(state),
        round_stamp=tokens.round_stamp(state),
        robots=frozenset(seat for seat, _ in robots),
        coach=table.coach,
        last_robot=(robots[-1][0], robots[-1][1].removeprefix("ai:")) if robots else None,
        paused=_pause_minutes(table),
        locales=tuple(table.locales.get(p.id) for p in players) if table.locales else (),
    )


def _pause_minutes(table: Table) -> int | None:
    """The minutes a paused game waits (`Seating.paused`), rounded up; None: not paused."""
    if not table.paused() or table.deadline is None:
        return None
    start = table.clock if table.clock is not None else table.updated
    return max(1, math.ceil((table.deadline - start) / 60))
