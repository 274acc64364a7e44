"""Trick rules: the lead suit, which cards may be played, and who wins a trick."""

from collections.abc import Sequence

from engine.cards import JESTER, NUMBERED, RANK_OF, SUIT_OF, WIZARD, Card, Suit


def lead_suit(trick: Sequence[str]) -> Suit | None:
    """The suit of the trick's first numbered card, or None if a Wizard came before any.

    Jesters leave the lead suit open: the next card decides.
    """
    for card in trick:
        if card != JESTER:
            return SUIT_OF[card]  # None for a Wizard
    return None


def is_legal(card: str, hand: Sequence[str], trick: Sequence[str]) -> bool:
    """Whether `card` (which must be in `hand`) may be played to `trick`."""
    suit = SUIT_OF[card]
    if suit is None:
        return True  # a Wizard or a Jester is always legal
    lead = lead_suit(trick)
    if lead is None or suit is lead:
        return True
    for other in hand:  # noqa: SIM110 - a loop beats all() on this hot path
        if SUIT_OF[other] is lead:
            return False
    return True


def legal_cards(hand: Sequence[Card], trick: Sequence[str], unique: bool = True) -> list[Card]:
    """The cards of `hand` that may be played to `trick`: when the player must follow suit, the
    cards of the lead suit then Wizards and Jesters; otherwise the whole hand. With `unique`,
    each Wizard or Jester is listed once."""
    if trick:
        lead = lead_suit(trick)
        if lead is not None:
            suits = SUIT_OF
            follow = [card for card in hand if suits[card] is lead]
            if follow:
                follow += [card for card in hand if suits[card] is None]
                return list(dict.fromkeys(follow)) if unique else follow
    return list(dict.fromkeys(hand)) if unique else list(hand)


def _strengths(trump: Suit | None, lead: Suit | None) -> dict[str, int]:
    """How strongly each card bids for a trick under `trump` led in `lead`: the first of the
    strongest cards wins. A Wizard beats every trump, a trump every card of the lead suit, and
    the lead suit the other cards, which (with the Jesters) all count 0."""
    strengths: dict[str, int] = {WIZARD: 27, JESTER: 0}
    for card in NUMBERED:
        suit, rank = SUIT_OF[card], RANK_OF[card]
        strengths[card] = rank + 13 if suit is trump else rank if suit is lead else 0
    return strengths


_SUITS_OR_NONE = (*Suit, None)

_STRENGTHS: dict[Suit | None, dict[Suit | None, dict[str, int]]] = {
    trump: {lead: _strengths(trump, lead) for lead in _SUITS_OR_NONE} for trump in _SUITS_OR_NONE
}
"""Each card's strength by trump, then lead suit (see `_strengths`): a trick's winner is one
lookup a card."""


def trick_winner(trick: Sequence[str], trump: Suit | None) -> int:
    """Index in `trick` of the winning card.

    The first Wizard; else the highest trump; else the highest card of the lead suit;
    if only Jesters were played, the first Jester.
    """
    strengths = list(map(_STRENGTHS[trump][lead_suit(trick)].__getitem__, trick))
    return strengths.index(max(strengths))
