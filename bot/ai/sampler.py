"""What one player knows of a round (from its own view only) and deals of the unseen cards
consistent with it: voids shown respected, deals weighted toward hands that fit the bids made,
each bid read by what its player's earlier bids of the game showed (`lean`)."""

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from bot.ai.fastsim import (
    CHANCE_ROWS,
    JES,
    NONE_SUIT,
    RANK,
    SUIT,
    TO_INT,
    WIZ,
    chance_table,
    to_ints,
    trump_index,
)
from engine import PlayerView, ScoreRow
from engine.tricks import lead_suit

BID_SPREAD = 0.5
"""How far (in tricks) a player's bid may stray from the model's estimate of their hand."""
SAMPLE_TRIES = 20
"""Shuffles tried for a deal that respects every void before the voids are relaxed."""
PRIOR_ROUNDS = 4.0
"""The read of a player's bids (`lean`) is their bids less the tricks they took, summed over
the game's finished rounds and divided by the rounds plus this many: a few rounds say little."""
LEAN_SCALE = 2.0
"""Tricks a player's bids run above their hand's worth per trick their bids ran above what they
took: a player who bids a trick under plays to duck and takes only part of it more (measured on
`normal`'s model: `cautious` bids 0.8 under and takes 0.29 more than it bids, `aggressive` bids
0.8 over and takes 0.55 less)."""
LEAN_MOST = 1.5
"""The largest lean read, either way."""


@dataclass(slots=True)
class Knowledge:
    """One seat's knowledge of the round, in the fast simulation's ints."""

    seat: int
    players: int
    cards: int
    """Cards each player was dealt this round."""
    trump: int
    hand: list[int]
    leader: int
    trick: list[int]
    won: list[int]
    bids: list[int | None]
    """Bids the seat can see (its own included); None where unknown."""
    played: list[list[int]]
    """The cards each seat has played this round (the current trick included)."""
    voids: list[set[int]]
    """Suits each seat has shown out of."""
    held: list[int]
    """Cards each seat holds now."""
    unseen: list[int]
    """The cards the seat has not seen: in the others' hands or undealt."""
    lean: list[float]
    """How many tricks each seat's bids are read to run above their hand's worth (`read_bids`;
    0 for the own seat, and for all when the read is off)."""


def read_bids(sheet: Sequence[ScoreRow], players: int, seat: int) -> list[float]:
    """How many tricks each other seat's bids are read to run above the worth of their hands,
    from the game's finished rounds (`sheet`, what the table shows): the bids less the tricks
    taken, summed, over the rounds plus PRIOR_ROUNDS, times LEAN_SCALE, within LEAN_MOST."""
    leans = [0.0] * players
    if not sheet:
        return leans
    for other in range(players):
        if other == seat:
            continue
        over = sum(row.bids[other] - row.won[other] for row in sheet)
        lean = LEAN_SCALE * over / (len(sheet) + PRIOR_ROUNDS)
        leans[other] = max(-LEAN_MOST, min(LEAN_MOST, lean))
    return leans


def read_view(view: PlayerView, read: bool = True) -> Knowledge:
    """The knowledge in `view` (never more: the view is all an AI gets); `read`: read the
    others' bids by the game so far (`read_bids`), else take every bid at its word."""
    table = view.table
    players = len(table.seats)
    trump = trump_index(table.trump)
    hand = to_ints(view.hand)
    played: list[list[int]] = [[] for _ in range(players)]
    voids: list[set[int]] = [set() for _ in range(players)]
    tricks = [(trick.leader, trick.cards) for trick in table.tricks]
    tricks.append((table.trick_leader, table.trick))
    for leader, shown in tricks:
        for index, name in enumerate(shown):
            seat = (leader + index) % players
            played[seat].append(TO_INT[name])
            lead = lead_suit(shown[:index])
            if lead is not None and SUIT[TO_INT[name]] != NONE_SUIT and name[0] != lead:
                voids[seat].add("BGRY".index(lead))
    seen = list(hand)
    for mine in played:
        seen.extend(mine)
    if table.trump_card is not None:
        seen.append(to_ints([table.trump_card])[0])
    unseen = list(range(52)) + [WIZ] * 4 + [JES] * 4
    for known in seen:
        unseen.remove(known)
    cards = table.cards
    held = [cards - len(played[seat]) for seat in range(players)]
    return Knowledge(
        seat=view.seat,
        players=players,
        cards=cards,
        trump=trump,
        hand=hand,
        leader=table.trick_leader,
        trick=to_ints(table.trick),
        won=[seat.won for seat in table.seats],
        bids=[seat.bid for seat in table.seats],
        played=played,
        voids=voids,
        held=held,
        unseen=unseen,
        lean=read_bids(table.sheet, players, view.seat) if read else [0.0] * players,
    )


def deal_unseen(know: Knowledge, rng: random.Random) -> list[list[int]]:
    """One deal of the unseen cards to the other seats, their hand sizes kept and (when
    possible) no card of a suit they have shown out of; the own seat gets its own hand."""
    unseen = know.unseen
    order = sorted(
        (seat for seat in range(know.players) if seat != know.seat),
        key=lambda seat: -len(know.voids[seat]),
    )
    pool = list(unseen)
    if not any(know.voids[seat] for seat in order):
        return _split(know, order, shuffle(pool, sum(know.held[seat] for seat in order), rng))
    for _ in range(SAMPLE_TRIES):
        shuffle(pool, len(pool), rng)
        filled = _fill(know, order, pool)
        if filled is not None:
            return filled
    return _split(know, order, pool)


def shuffle(cards: list[int], count: int, rng: random.Random) -> list[int]:
    """Put `count` cards drawn at random from `cards` in its first places, in random order (a
    Fisher-Yates shuffle stopped after `count` draws) and return `cards`. Each draw is one
    `rng.random()`: `random.shuffle` and `random.sample` draw by bits, a Python call a card."""
    draw = rng.random
    size = len(cards)
    for index in range(min(count, size - 1)):
        pick = index + int(draw() * (size - index))
        cards[index], cards[pick] = cards[pick], cards[index]
    return cards


def _split(know: Knowledge, order: list[int], cards: list[int]) -> list[list[int]]:
    """The hands: the own one, and `cards` handed out in turn to the seats of `order`."""
    hands = [list(know.hand) if seat == know.seat else [] for seat in range(know.players)]
    start = 0
    for seat in order:
        hands[seat] = cards[start : start + know.held[seat]]
        start += know.held[seat]
    return hands


def _fill(know: Knowledge, order: list[int], pool: list[int]) -> list[list[int]] | None:
    """Give each seat of `order` the first cards of `pool` it may hold; None if one runs short."""
    taken = [False] * len(pool)
    hands = [list(know.hand) if seat == know.seat else [] for seat in range(know.players)]
    for seat in order:
        voids = know.voids[seat]
        want = know.held[seat]
        hand = hands[seat]
        if want == 0:
            continue
        for index, card in enumerate(pool):
            if taken[index] or (voids and SUIT[card] in voids):
                continue
            taken[index] = True
            hand.append(card)
            if len(hand) == want:
                break
        if len(hand) < want:
            return None
    return hands


def estimate(hand: list[int], trump: int, players: int, exclude: int = -1) -> float:
    """The tricks the model expects of `hand` as dealt (as NormalAI bids): a Wizard 0.97, a
    numbered card by its suit, rank and length. `exclude` is a card known elsewhere (the trump
    card turned up)."""
    table = chance_table(players, len(hand))
    rows = CHANCE_ROWS[trump]
    held = [0] * 5
    for card in hand:
        held[SUIT[card]] += 1
    above_held = [0] * 5
    gone = SUIT[exclude] if exclude >= 0 else -1
    total = 0.0
    for card in sorted(hand, reverse=True):  # high to low within each suit
        suit = SUIT[card]
        if suit == NONE_SUIT:
            total += 0.97 if card == WIZ else 0.0
            continue
        rank = RANK[card]
        above = 13 - rank - above_held[suit] - (suit == gone and RANK[exclude] > rank)
        above_held[suit] += 1
        total += table[rows[suit] + above][held[suit]]
    return total


def guess_bid(hand: list[int], trump: int, players: int, lean: float = 0.0) -> int:
    """A plausible bid for `hand`: the model's estimate (moved by the player's `lean`), rounded."""
    return max(0, min(len(hand), round(estimate(hand, trump, players) + lean - 0.05)))


def bid_weight(know: Knowledge, hands: list[list[int]], trump_card: int) -> float:
    """How well a deal fits the bids seen: the product over the other bidders of a Gaussian in
    the gap between their bid, less their `lean`, and the model's estimate of the hand they were
    dealt, BID_SPREAD wide and wider by half the lean (a bid that strays says less)."""
    log = 0.0
    for seat, bid in enumerate(know.bids):
        if seat == know.seat or bid is None:
            continue
        dealt = hands[seat] + know.played[seat]
        lean = know.lean[seat]
        gap = estimate(dealt, know.trump, know.players, trump_card) - (bid - lean)
        spread = BID_SPREAD + 0.5 * abs(lean)
        log -= gap * gap / (2 * spread * spread)
    return math.exp(log)


def sample_deals(
    know: Knowledge, count: int, pool: int, rng: random.Random, trump_card: int
) -> list[list[list[int]]]:
    """`count` deals of the unseen cards: `pool` candidates drawn, then `count` chosen among
    them in proportion to how well they fit the bids made (systematic resampling)."""
    if not has_bidders(know) or pool <= count:
        return candidates(know, count, rng)
    drawn = candidates(know, pool, rng)
    return resample(drawn, deal_weights(know, drawn, trump_card), count, rng)


def has_bidders(know: Knowledge) -> bool:
    """Whether another seat's bid is seen (then deals are weighted by the bids)."""
    return any(bid is not None for seat, bid in enumerate(know.bids) if seat != know.seat)


def candidates(know: Knowledge, count: int, rng: random.Random) -> list[list[list[int]]]:
    """`count` deals of the unseen cards as they come (`deal_unseen`)."""
    return [deal_unseen(know, rng) for _ in range(count)]


def deal_weights(know: Knowledge, deals: list[list[list[int]]], trump_card: int) -> list[float]:
    """How well each deal fits the bids made (`bid_weight`)."""
    return [bid_weight(know, deal, trump_card) for deal in deals]


def resample(
    drawn: list[list[list[int]]], weights: list[float], count: int, rng: random.Random
) -> list[list[list[int]]]:
    """`count` of the deals `drawn`, chosen in proportion to their `weights` (systematic
    resampling: one draw)."""
    total = sum(weights, 0.0)
    if total <= 0.0:
        return drawn[:count]
    step = total / count
    point = rng.random() * step
    chosen: list[list[list[int]]] = []
    running = 0.0
    for deal, weight in zip(drawn, weights, strict=True):
        running += weight
        while point < running and len(chosen) < count:
            chosen.append(deal)
            point += step
    while len(chosen) < count:
        chosen.append(drawn[-1])
    return chosen
