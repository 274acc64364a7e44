"""The 60-card Wizard deck: suits, card notation (`R13`, `W`, `J`), parsing and ordering."""

from collections.abc import Iterable
from enum import StrEnum
from typing import NewType


class Suit(StrEnum):
    """The four suits; they carry no order among themselves."""

    BLUE = "B"
    GREEN = "G"
    RED = "R"
    YELLOW = "Y"


Card = NewType("Card", str)
"""A card in record notation: suit letter and rank 1-13 (`R13`), `W` (Wizard) or `J` (Jester)."""

WIZARD = Card("W")
JESTER = Card("J")
RANKS = range(1, 14)

NUMBERED: tuple[Card, ...] = tuple(Card(f"{suit}{rank}") for suit in Suit for rank in RANKS)
DECK: tuple[Card, ...] = NUMBERED + (WIZARD,) * 4 + (JESTER,) * 4
"""The whole deck in a fixed order; shuffled copies of it are dealt."""

SUIT_OF: dict[str, Suit | None] = {card: Suit(card[0]) for card in NUMBERED} | {
    WIZARD: None,
    JESTER: None,
}
"""The suit of each card; None for Wizards and Jesters."""

RANK_OF: dict[str, int] = {str(card): int(card[1:]) for card in NUMBERED} | {WIZARD: 14, JESTER: 0}
"""Rank 1-13 of a numbered card; a Wizard counts 14 and a Jester 0 (for sorting only)."""

COPIES: dict[str, int] = {str(card): 1 for card in NUMBERED} | {WIZARD: 4, JESTER: 4}
"""How many copies of each card the deck holds."""


def is_card(value: object) -> bool:
    """True when `value` is a card in record notation."""
    return isinstance(value, str) and value in SUIT_OF


def parse_card(text: str) -> Card:
    """Parse one card in record notation (case-insensitive); raise ValueError otherwise."""
    card = text.strip().upper()
    if card not in SUIT_OF:
        raise ValueError(f"not a card: {text!r}")
    return Card(card)


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas, e.g. `"R13 B1 W"`."""
    return [parse_card(part) for part in text.replace(",", " ").split()]


def sort_key(card: Card) -> tuple[int, int]:
    """Display order: Wizards first, then suits B, G, R, Y high to low, Jesters last."""
    suit = SUIT_OF[card]
    if suit is None:
        return (0, 0) if card == WIZARD else (9, 0)
    return (1 + "BGRY".index(suit), -RANK_OF[card])


_DISPLAY_ORDER: dict[str, tuple[int, int]] = {card: sort_key(card) for card in DECK}
"""`sort_key` of each card, looked up rather than worked out (hands are sorted for every view)."""


def sorted_hand(cards: Iterable[Card]) -> list[Card]:
    """The cards in display order (see `sort_key`)."""
    return sorted(cards, key=_DISPLAY_ORDER.__getitem__)


def missing_from_deck(cards: Iterable[str]) -> str | None:
    """Describe the first way `cards` cannot all come from one deck, or None if they can."""
    counts: dict[str, int] = {}
    for card in cards:
        if not isinstance(card, str) or card not in COPIES:
            return f"{card!r} is not a card"
        counts[card] = counts.get(card, 0) + 1
        if counts[card] > COPIES[card]:
            return f"{card} appears {counts[card]} times; the deck has {COPIES[card]}"
    return None
