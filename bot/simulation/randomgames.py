"""Random legal games played whole, fast: the games `wizard-bot simulate` writes as records.

These are the games `engine.randomplay` plays through the engine, move for move: the same deals
(`engine.game.shuffled_deck`), the same draws of the same random number generator in the same
order, hence the same records, byte for byte. They are played on cards coded as small ints
(`suit * 13 + rank - 1`, then `WIZ` and `JES`), with a trick's winner looked up in a table and
nothing built that a record does not hold; `bot.native` runs this module compiled where the
install compiled it. tests/test_random_games.py plays both ways over table sizes, seeds and options
and compares the records.
"""

from collections.abc import Sequence
from random import Random
from typing import Any, Final

from engine.options import BidMode, Options, hand_sizes, round_rules
from engine.scoring import round_points

WIZ: Final = 52
JES: Final = 53
NO_SUIT: Final = 4
"""The suit of Wizards and Jesters, and the lead of a trick that has none."""
OPEN_LEAD: Final = -2
NO_LEAD: Final = -1
"""A trick's lead while it is empty or holds only Jesters; after a Wizard came first."""

SUITS: Final = "BGRY"
DECK_SIZE: Final = 60
DECK: Final[tuple[int, ...]] = (*range(52), *(WIZ,) * 4, *(JES,) * 4)
"""The deck in `engine.cards.DECK`'s order."""
NAME: Final[tuple[str, ...]] = (
    *(f"{suit}{rank}" for suit in SUITS for rank in range(1, 14)),
    "W",
    "J",
)
"""Each code's card in record notation."""
SUIT: Final[tuple[int, ...]] = (*(code // 13 for code in range(52)), NO_SUIT, NO_SUIT)
TRUMP_CHOICES: Final = (0, 1, 2, 3)
"""The suits a dealer who turned up a Wizard names, as `engine.cards.Suit` lists them."""


def _strengths(trump: int, lead: int) -> tuple[int, ...]:
    """Each code's strength in a trick (as `engine.tricks`): the first strongest card wins."""
    return (
        *(
            code % 13 + 14 if code // 13 == trump else code % 13 + 1 if code // 13 == lead else 0
            for code in range(52)
        ),
        27,
        0,
    )


STRENGTH: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(_strengths(trump, lead) for lead in range(NO_SUIT + 1)) for trump in range(NO_SUIT + 1)
)
"""`STRENGTH[trump][lead][code]`; NO_SUIT for no trump, or no lead suit."""


def random_record(names: Sequence[str], options: Options, seed: int) -> dict[str, Any]:
    """The `wizard-record/1` record of the game `engine.randomplay.play_random_game` plays
    for `names` (their number the table's size) with `options` and `seed`."""
    players = len(names)
    plan = hand_sizes(options, players)
    rng = Random(seed)
    first_dealer = Random(f"{seed}:dealer").randrange(players)
    totals = [0] * players
    rounds: list[dict[str, Any]] = []
    for number in range(1, len(plan) + 1):
        cards = plan[number - 1]
        dealer = (first_dealer + number - 1) % players
        key = Random(f"{seed}:{number}").random
        deck = sorted(DECK, key=lambda _code: key())
        dealt = [deck[seat * cards : (seat + 1) * cards] for seat in range(players)]
        trump_card = deck[players * cards] if players * cards < DECK_SIZE else -1
        trump = NO_SUIT if trump_card < 0 else SUIT[trump_card]
        if trump_card == WIZ:
            trump = rng.choice(TRUMP_CHOICES)
        rules = round_rules(options, number, len(plan), cards)
        bids = _bids(rng, players, cards, dealer, rules.bids, rules.notequal)
        won = [0] * players
        tricks = _play(rng, [list(hand) for hand in dealt], cards, trump, dealer, won)
        points = [round_points(bid, taken) for bid, taken in zip(bids, won, strict=True)]
        for seat in range(players):
            totals[seat] += points[seat]
        rounds.append(
            {
                "number": number,
                "cards": cards,
                "dealer": dealer,
                "hands": [[NAME[code] for code in hand] for hand in dealt],
                "trump_card": None if trump_card < 0 else NAME[trump_card],
                "trump": None if trump == NO_SUIT else SUITS[trump],
                "bids": bids,
                "tricks": tricks,
                "won": won,
                "points": points,
            }
        )
    return {
        "format": "wizard-record/1",  # engine.records.FORMAT, which loads the rules
        "players": list(names),
        "options": options.to_dict(),
        "first_dealer": first_dealer,
        "rounds": rounds,
        "totals": totals,
        "seed": seed,
    }


def _bids(
    rng: Random, players: int, cards: int, dealer: int, mode: BidMode, notequal: bool
) -> list[int]:
    """The round's bids, drawn as `engine.randomplay.random_command` draws them: open bids in
    turn from the dealer's left; private ones by a seat drawn among those who may bid, and
    under hidden bids with notequal the dealer's rebid when the revealed bids add up."""
    bids = [-1] * players
    if mode is BidMode.OPEN:
        for offset in range(1, players + 1):
            seat = (dealer + offset) % players
            bids[seat] = _bid(rng, cards, _forbidden(bids, seat, cards) if notequal else -1)
        return bids
    secret = mode is BidMode.SECRET
    for left in range(players, 0, -1):
        # secret bids with notequal: the dealer bids once everybody else has
        last_dealer = secret and notequal and left > 1
        may = [s for s in range(players) if bids[s] < 0 and not (last_dealer and s == dealer)]
        seat = rng.choice(may)
        bound = notequal and secret and seat == dealer  # hidden bids are checked once revealed
        bids[seat] = _bid(rng, cards, _forbidden(bids, seat, cards) if bound else -1)
    if not secret and notequal and sum(bids) == cards:
        bids[dealer] = _bid(rng, cards, bids[dealer])  # the dealer must change their bid
    return bids


def _forbidden(bids: list[int], dealer: int, cards: int) -> int:
    """The bid notequal forbids `dealer` once the others are in (as `engine.checks`), or -1."""
    others = 0
    for seat in range(len(bids)):
        if seat != dealer:
            if bids[seat] < 0:
                return -1
            others += bids[seat]
    return cards - others


def _bid(rng: Random, cards: int, forbidden: int) -> int:
    """A bid from 0 to `cards`, uniform over those allowed (all but `forbidden`). (Here and
    below a count is made a float before it multiplies a draw: the same product, multiplied
    without boxing when compiled.)"""
    if forbidden < 0:
        return int(rng.random() * float(cards + 1))
    bid = int(rng.random() * float(cards))
    return bid if bid < forbidden else bid + 1


def _play(
    rng: Random, hands: list[list[int]], cards: int, trump: int, dealer: int, won: list[int]
) -> list[dict[str, Any]]:
    """Play the round's tricks with random legal cards; count them in `won`; return the
    tricks as the record holds them."""
    players = len(hands)
    rand = rng.random
    tricks: list[dict[str, Any]] = []
    leader = (dealer + 1) % players
    for _ in range(cards):
        trick: list[int] = []
        lead = OPEN_LEAD
        seat = leader
        for _played in range(players):
            hand = hands[seat]
            index = int(rand() * float(len(hand)))
            card = hand[index]
            suit = SUIT[card]
            if lead >= 0 and suit != NO_SUIT and suit != lead:  # noqa: PLR1714 - compiled
                follow = [code for code in hand if SUIT[code] == lead]
                if follow:  # it had to follow suit: a draw among the legal cards
                    follow += [code for code in hand if SUIT[code] == NO_SUIT]
                    card = follow[int(rand() * float(len(follow)))]
                    suit = SUIT[card]
                    index = hand.index(card)
            if card >= WIZ:  # the engine's list.remove takes the first of equal copies
                index = hand.index(card)
            del hand[index]
            trick.append(card)
            if lead == OPEN_LEAD and card != JES:
                lead = NO_LEAD if card == WIZ else suit
            seat = (seat + 1) % players
        strength = STRENGTH[trump][lead if lead >= 0 else NO_SUIT]
        best, taker = -1, 0
        for played in range(players):
            if strength[trick[played]] > best:  # the first of the strongest takes it
                best, taker = strength[trick[played]], played
        winner = (leader + taker) % players
        won[winner] += 1
        tricks.append({"leader": leader, "cards": [NAME[code] for code in trick], "winner": winner})
        leader = winner
    return tricks
