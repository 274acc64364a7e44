"""Trick rules: the lead suit, which cards may be played, and who wins a trick."""

from collections.abc import Sequence

from engine.cards import RANK_OF, SUIT_OF, WIZARD, Card, Suit


def lead_suit(trick: Sequence[str]) -> Suit | None:
    """The suit of the trick's first numbered card, or None if a Wizard came before any.

    Jesters leave the lead suit open: the next card decides.
    """
    for card in trick:
        if card == WIZARD:
            return None
        suit = SUIT_OF[card]
        if suit is not None:
            return suit
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


def trick_winner(trick: Sequence[str], trump: Suit | None) -> int:
    """Index in `trick` of the winning card.

    The first Wizard; else the highest trump; else the highest card of the lead suit;
    if only Jesters were played, the first Jester.
    """
    if WIZARD in trick:
        return trick.index(WIZARD)
    lead = lead_suit(trick)
    best = 0
    best_key = -1
    for index, card in enumerate(trick):
        suit = SUIT_OF[card]
        if suit is None:
            continue
        rank = RANK_OF[card]
        key = rank + 100 if suit is trump else rank if suit is lead else -1
        if key > best_key:
            best, best_key = index, key
    return best
