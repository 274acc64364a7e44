"""Pure trick rules (lead suit, legal cards, trick winner) and scoring, on fixed cards."""

import pytest

from engine import Suit, parse_cards
from engine.scoring import places, round_points
from engine.tricks import is_legal, lead_suit, legal_cards, trick_winner


def cards(text: str) -> list[str]:
    return [str(card) for card in parse_cards(text)]


# --- lead suit -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trick", "lead"),
    [
        ("", None),
        ("R5", Suit.RED),
        ("R5 B13 W", Suit.RED),
        ("J", None),
        ("J J", None),
        ("J G2", Suit.GREEN),
        ("J J Y9 R13", Suit.YELLOW),
        ("W", None),
        ("W R5", None),
        ("J W R5", None),
        ("J W", None),
        ("B2 W", Suit.BLUE),
    ],
)
def test_lead_suit(trick: str, lead: Suit | None) -> None:
    assert lead_suit(cards(trick)) is lead


# --- which cards may be played -------------------------------------------------------------


def test_jester_led_then_wizard_leaves_no_lead_suit_anything_may_be_played() -> None:
    trick = cards("J W")
    hand = cards("R3 B7 G13 J")
    assert lead_suit(trick) is None
    assert all(is_legal(card, hand, trick) for card in hand)
    assert sorted(legal_cards(parse_cards("R3 B7 G13 J"), trick)) == sorted(hand)


def test_jester_led_then_suit_makes_that_suit_lead_and_it_must_be_followed() -> None:
    trick = cards("J B4")
    hand = cards("B9 R13 W J")
    assert lead_suit(trick) is Suit.BLUE
    assert is_legal("B9", hand, trick)
    assert not is_legal("R13", hand, trick)
    assert sorted(legal_cards(parse_cards("B9 R13 W J"), trick)) == sorted(cards("B9 W J"))


def test_a_jester_in_hand_does_not_count_as_the_lead_suit() -> None:
    trick = cards("J")
    hand = cards("J R2 G5")
    # a Jester led leaves the lead open: anything may follow
    assert all(is_legal(card, hand, trick) for card in hand)


def test_wizard_or_jester_always_legal_even_when_holding_the_lead_suit() -> None:
    hand = cards("W J R3 B4")
    trick = cards("R9")
    assert is_legal("W", hand, trick)
    assert is_legal("J", hand, trick)
    assert is_legal("R3", hand, trick)
    assert not is_legal("B4", hand, trick)


def test_must_follow_suit_only_when_holding_it() -> None:
    trick = cards("R9")
    assert not is_legal("B4", cards("B4 R3"), trick)
    assert is_legal("B4", cards("B4 G3"), trick)
    assert is_legal("G3", cards("B4 G3"), trick)
    assert sorted(legal_cards(parse_cards("B4 G3"), trick)) == ["B4", "G3"]


def test_trump_is_no_excuse_to_revoke() -> None:
    # holding the lead suit, a trump may not be played instead (trump is passed in only at scoring)
    assert not is_legal("Y1", cards("Y1 R2"), cards("R10"))


def test_any_card_may_lead() -> None:
    hand = cards("R3 B7 W J")
    assert all(is_legal(card, hand, []) for card in hand)


def test_legal_cards_lists_each_card_once() -> None:
    hand = parse_cards("W R3 W B2 J R7 J")
    assert sorted(legal_cards(hand, cards("R9"))) == sorted(cards("W R3 J R7"))
    assert sorted(legal_cards(hand, [])) == sorted(cards("W R3 B2 J R7"))
    assert sorted(legal_cards(hand, cards("G9"))) == sorted(cards("W R3 B2 J R7"))


# --- who wins a trick ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        # Jester led then a Wizard: the Wizard wins
        ("J W R13", Suit.RED, 1),
        # Jester led then a suit: that suit is the lead suit
        ("J B4 B9 R2", None, 2),
        ("J B4 R2", None, 1),
        # all Jesters: the first Jester wins
        ("J J J", Suit.RED, 0),
        ("J J J J J J", None, 0),
        # the first of several Wizards wins
        ("R3 W W B13", Suit.BLUE, 1),
        ("W W W", None, 0),
        ("J J W W", None, 2),
        # trump beats the lead suit
        ("R13 B1 R12", Suit.BLUE, 1),
        ("R13 B1 B2", Suit.BLUE, 2),
        ("B1 R13", Suit.BLUE, 0),
        # off-suit never wins, however high
        ("R2 G13 Y13", Suit.BLUE, 0),
        ("R2 G13 Y13", None, 0),
        ("J R2 G13", None, 1),
        # highest of the lead suit
        ("G5 G11 G7", None, 1),
        ("G5 G11 G7", Suit.GREEN, 1),
        # a Jester never wins against a numbered card
        ("J R1 J", None, 1),
    ],
)
def test_trick_winner(trick: str, trump: Suit | None, winner: int) -> None:
    assert trick_winner(cards(trick), trump) == winner


# --- scoring ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bid", "won", "points"),
    [
        (4, 4, 60),  # RULES.md example
        (0, 0, 20),  # RULES.md example
        (5, 3, -20),  # RULES.md example
        (1, 1, 30),
        (0, 2, -20),
        (3, 4, -10),
        (1, 0, -10),
        (20, 20, 220),
    ],
)
def test_round_points(bid: int, won: int, points: int) -> None:
    assert round_points(bid, won) == points


@pytest.mark.parametrize(
    ("totals", "expected"),
    [
        ([10, 30, 20], [3, 1, 2]),
        ([10, 30, 10, -5], [2, 1, 2, 4]),
        ([0, 0, 0], [1, 1, 1]),
        ([-10, -30, -20], [1, 3, 2]),
        ([50, 50, 20, 20, 70, 10], [2, 2, 4, 4, 1, 6]),
    ],
)
def test_places_share_equal_totals(totals: list[int], expected: list[int]) -> None:
    assert places(totals) == expected
