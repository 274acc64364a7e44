"""A fast simulation of the rest of a round for the hard AI: cards as small ints, a specialised
trick loop and cheap rollout policies in which every player tries to make their bid: a greedy
one (`_choose`) and, for the other players, one modelled on how `normal` plays, drawn at random
by models fitted to its choices (`_lead`, `_patient`); for screens, `normal`'s own reckoning
(`_normal_card`, `Budget.exact`).

Cards are ints: `suit * 13 + rank - 1` for the numbered cards (suits in the order B, G, R, Y),
`WIZ` for a Wizard and `JES` for a Jester (copies repeat the same int). Trump is a suit index,
or `NO_TRUMP`. `tests/test_ai_hard.py` checks the trick winner and whole playouts against the
engine.
"""

import math
import operator
from collections.abc import Sequence
from random import Random

from bot.ai.normal import SATED_WILL, WIZARD_WILL, card_chance
from engine.cards import NUMBERED, WIZARD, Card, Suit
from engine.scoring import round_points

WIZ, JES = 52, 53
NONE_SUIT = 4
"""The suit index of Wizards and Jesters."""
NO_TRUMP = -1
SUITS = "BGRY"

SUIT: tuple[int, ...] = (*(index // 13 for index in range(52)), NONE_SUIT, NONE_SUIT)
RANK: tuple[int, ...] = (*(index % 13 + 1 for index in range(52)), 14, 0)
TO_INT: dict[str, int] = {
    str(card): SUITS.index(card[0]) * 13 + int(card[1:]) - 1 for card in NUMBERED
}
TO_INT |= {"W": WIZ, "J": JES}
TO_CARD: tuple[Card, ...] = (*NUMBERED, WIZARD, Card("J"))

UNDECIDED = -2
"""Lead suit of an empty trick or one of Jesters only; -1 is no lead suit (a Wizard led)."""


def trump_index(trump: Suit | None) -> int:
    """The suit index of `trump`, or NO_TRUMP."""
    return NO_TRUMP if trump is None else SUITS.index(trump)


def winner(trick: Sequence[int], trump: int) -> int:
    """Index in `trick` of the winning card (as `engine.tricks.trick_winner`)."""
    lead = UNDECIDED
    best, best_key = 0, -2
    for index, card in enumerate(trick):
        if card == WIZ:
            return index
        suit = SUIT[card]
        if suit == NONE_SUIT:
            if best_key < -1:
                best, best_key = index, -1
            continue
        if lead == UNDECIDED:
            lead = suit
        key = RANK[card] + 100 if suit == trump else RANK[card] if suit == lead else 0
        if key > best_key:
            best, best_key = index, key
    return best


def trick_state(trick: Sequence[int], trump: int) -> tuple[int, bool, int, int]:
    """The lead suit of `trick` (UNDECIDED, or -1 after a Wizard led), whether a Wizard lies in
    it, the position of the card taking it so far (-1: none yet) and the best power in it (as
    `KEY`, not raised by a Wizard), as `playout` keeps them."""
    lead, wizard, best_pos, best_key = UNDECIDED, False, -1, -2
    for played, card in enumerate(trick):
        if wizard:
            continue
        if card == WIZ:
            wizard = True
            best_pos = played
            lead = -1 if lead == UNDECIDED else lead
        elif card == JES:
            if best_key < -1:
                best_pos, best_key = played, -1
        else:
            suit = SUIT[card]
            lead = suit if lead == UNDECIDED else lead
            key = RANK[card] + 100 if suit == trump else RANK[card] if suit == lead else 0
            if key > best_key:
                best_pos, best_key = played, key
    return lead, wizard, best_pos, best_key


def lead_strength(card: int, trump: int) -> int:
    """How likely a led card is to take the trick, in plain order (Wizards first)."""
    if card == WIZ:
        return 100
    if card == JES:
        return -1
    return RANK[card] + (8 if SUIT[card] == trump else 0)


def playout(
    hands: list[list[int]],
    trump: int,
    leader: int,
    trick: Sequence[int],
    won: list[int],
    bids: Sequence[int],
    first: int = -1,
    me: int = -1,
    gone: list[int] | None = None,
    rand: Random | None = None,
    shown: list[int] | None = None,
) -> list[int]:
    """Play the rest of the round out: every player follows the bid-seeking policy, except that
    the player to act now plays `first` (when given). With `gone` (per suit, a bit mask of the
    ranks every player has seen played, `seen_masks`) and `rand`, the seats other than `me`
    play as modelled on `normal`: their leads are drawn by `_lead`, and one who needs tricks
    takes a trick it could leave by the chance `_patient` gives; with `shown` as well
    (`shown_list`), they play every card as `normal` reckons it (`_normal_card`). `hands`,
    `won`, `gone` and `shown` are changed in place; returns `won`, the tricks each seat has
    taken at the end."""
    players = len(hands)
    suit_of, rank_of = SUIT, RANK
    patient = gone is not None
    lead, wizard, best_pos, best_key = trick_state(trick, trump)  # the trick in progress
    played = len(trick)
    turn = (leader + played) % players
    while True:
        hand = hands[turn]
        if not hand:
            return won
        if first >= 0:
            card = first
            first = -1
        elif shown is not None and turn != me:
            assert gone is not None
            card = _normal_card(
                hand, trump, lead, wizard, best_key, played, players, turn, bids, won, gone, shown
            )
        elif patient and turn != me and (played == 0 or (bids[turn] > won[turn] and not wizard)):
            assert gone is not None
            assert rand is not None
            need = bids[turn] - won[turn]
            if played == 0:
                card = _lead(hand, trump, need, players, gone, rand)
            else:
                card = _patient(hand, trump, lead, best_key, played, players, need, gone, rand)
        else:
            card = _choose(
                hand, trump, lead, wizard, best_key, played, players, bids[turn] - won[turn]
            )
        hand.remove(card)
        if shown is not None:
            if card == WIZ:
                shown[0] += 1
            elif card == JES:
                shown[1] += 1
            elif lead >= 0 and suit_of[card] != lead:
                shown[SHOWN + turn] |= 1 << lead
        if patient and card < WIZ:
            assert gone is not None
            gone[card // 13] |= 1 << (card % 13)
        # add `card` to the trick (`trick_state`'s step, inline: the hot loop)
        if wizard:
            pass
        elif card == WIZ:
            wizard = True
            best_pos = played
            if lead == UNDECIDED:
                lead = -1
        elif card == JES:
            if best_key < -1:
                best_pos, best_key = played, -1
        else:
            suit = suit_of[card]
            if lead == UNDECIDED:
                lead = suit
            key = rank_of[card] + 100 if suit == trump else rank_of[card] if suit == lead else 0
            if key > best_key:
                best_pos, best_key = played, key
        played += 1
        if played == players:
            leader = (leader + best_pos) % players
            won[leader] += 1
            lead, wizard, best_pos, best_key, played = UNDECIDED, False, -1, -2, 0
            turn = leader
        else:
            turn = (turn + 1) % players


def _strengths(trump: int) -> tuple[int, ...]:
    return tuple(lead_strength(card, trump) for card in range(54))


def _keys(trump: int, lead: int) -> tuple[int, ...]:
    keys = []
    for card in range(54):
        suit = SUIT[card]
        if card == WIZ:
            keys.append(1000)
        elif suit == NONE_SUIT:
            keys.append(-2)
        elif suit == trump:
            keys.append(RANK[card] + 100)
        elif lead in (suit, UNDECIDED):
            keys.append(RANK[card])
        else:
            keys.append(0)
    return tuple(keys)


STRENGTH: dict[int, tuple[int, ...]] = {trump: _strengths(trump) for trump in range(-1, 4)}
"""`lead_strength` of every card, by trump."""
KEY: dict[tuple[int, int], tuple[int, ...]] = {
    (trump, lead): _keys(trump, lead) for trump in range(-1, 4) for lead in range(-2, 4)
}
"""The power of every card in a trick without a Wizard, by trump and lead suit: a card above
the trick's best takes it (Jesters -2 never do)."""


def _sure(hand: list[int], trump: int) -> int:
    """Cards that will very likely take a trick later: Wizards and the trump 13 and 12."""
    sure = 0
    for card in hand:
        if card == WIZ or (SUIT[card] == trump and RANK[card] >= 12):
            sure += 1
    return sure


def _legal(hand: list[int], lead: int) -> list[int]:
    """The cards of `hand` that may be played to a trick led in suit `lead` (-1 or UNDECIDED:
    any): the lead suit and Wizards and Jesters, when it holds the lead suit."""
    if lead >= 0:
        suit_of = SUIT
        follow = [card for card in hand if suit_of[card] == lead]
        if follow:
            return follow + [card for card in hand if card >= WIZ]
    return hand


def _taker(winners: list[int], keys: Sequence[int], last: bool) -> int:
    """The card that takes the trick, of `winners` (their power in `keys`): the cheapest when
    `last` to play, else the highest of the lead suit, else the lowest trump, else a Wizard."""
    power = keys.__getitem__
    if last:
        return min(winners, key=power)
    plain = [card for card in winners if keys[card] < 100]
    if plain:
        return max(plain, key=power)
    trumps = [card for card in winners if card != WIZ]
    return min(trumps, key=power) if trumps else WIZ


def _choose(
    hand: list[int],
    trump: int,
    lead: int,
    wizard: bool,
    best_key: int,
    played: int,
    players: int,
    need: int,
) -> int:
    """The rollout policy: with tricks still needed, win cheaply when last, else strongly, and
    lead strength; with none needed, duck with the highest card that loses."""
    strength = STRENGTH[trump].__getitem__
    if played == 0:
        return max(hand, key=strength) if need > 0 else min(hand, key=strength)
    legal = _legal(hand, lead)
    if len(legal) == 1:
        return legal[0]
    if wizard:  # nothing takes the trick: keep the best (or shed it, when ducking)
        return min(legal, key=strength) if need > 0 else max(legal, key=strength)
    keys = KEY[trump, lead]
    power = keys.__getitem__
    winners = [card for card in legal if keys[card] > best_key]
    if need > 0 and (need > _sure(hand, trump) or len(winners) == len(legal)):
        if not winners:
            return min(legal, key=strength)
        return _taker(winners, keys, played == players - 1)
    if len(winners) < len(legal):
        return max((card for card in legal if keys[card] <= best_key), key=strength)
    return max(legal, key=power) if played == players - 1 else min(legal, key=power)


TAKE_WEIGHTS = (0.23, 3.542, -0.156, -0.484, -0.322, -3.9)
"""How likely `normal`, needing tricks, takes a trick it could also leave (`take_features`): a
logistic model in 1, its need less the tricks its other cards are expected to take
(`later_tricks`), the players still to play after it, whether the card that takes is a Wizard,
whether it is a trump, and that card's own chance of a trick later. Fitted by
`benchmarks/fit_normal_model.py` to 13,442 such choices in 120 games of `normal` alone (3 to 6
players): it predicts 77 % of them (the fixed margin of 0.6 tricks used before: 65 %)."""
LEAD_NEED = (-0.993, -0.362, 1.089, 0.463, -2.312, -0.163, 0.495, -1.302, -0.344, 2.001)
"""Which card `normal` leads when it needs tricks (`lead_features`): a choice model, each card in
proportion to exp(weights . features): whether it is a Wizard, a Jester, a trump; its rank / 13,
the same for a trump; whether it is the top, the bottom card of its suit in hand; its suit's
share of the hand; whether no unseen card of its suit is higher; its chance of a trick later.
Fitted by the same script to 8,753 leads: the likeliest card is `normal`'s 31 % of the time
(the highest side card, led before: 13 to 24 %)."""
LEAD_SATED = (-15.419, -0.488, -0.409, -1.528, 1.535, -0.558, 0.266, -3.526, -0.444, 13.556)
"""The same for a player whose bid is made: it leads the card likeliest to take a trick later
that is not a Wizard (3,463 leads: the likeliest card is `normal`'s 68 % of the time, the
weakest card, led before, 37 %)."""
WIZARD_CHANCE = 0.97
_TABLES: dict[tuple[int, int], tuple[tuple[float, ...], ...]] = {}
"""`chance_table` by players and hand size."""
FULL = (1 << 13) - 1


def seen_masks(cards: Sequence[int]) -> list[int]:
    """Per suit, the bit mask of the ranks among `cards` (bit `rank - 1`)."""
    masks = [0, 0, 0, 0]
    for card in cards:
        if 0 <= card < WIZ:
            masks[card // 13] |= 1 << (card % 13)
    return masks


def later_tricks(hand: list[int], trump: int, players: int, gone: list[int]) -> list[float]:
    """The model's chance (as `normal` reckons it) that each card of `hand` takes a trick later,
    the cards above it counted only while neither seen played nor in the hand."""
    own, length = _masks(hand)
    return _later(hand, trump, players, gone, own, length)


def _masks(hand: list[int]) -> tuple[list[int], list[int]]:
    """Per suit index (Wizards and Jesters the fifth): the ranks held as a bit mask, and how
    many cards."""
    own = [0, 0, 0, 0, 0]
    length = [0, 0, 0, 0, 0]
    for card in hand:
        suit = SUIT[card]
        own[suit] |= 1 << (card % 13)
        length[suit] += 1
    return own, length


def _later(
    hand: list[int], trump: int, players: int, gone: list[int], own: list[int], length: list[int]
) -> list[float]:
    """`later_tricks`, with the hand's `_masks` given."""
    table = chance_table(players, len(hand))
    rows = CHANCE_ROWS[trump]
    out = []
    for card in hand:
        if card >= WIZ:
            out.append(WIZARD_CHANCE if card == WIZ else 0.0)
            continue
        suit = card // 13
        step = card % 13 + 1
        higher = ((FULL >> step) << step & ~gone[suit] & ~own[suit]).bit_count()
        out.append(table[rows[suit] + higher][length[suit]])
    return out


CHANCE_ROWS = {
    trump: tuple(26 if trump == NO_TRUMP else 0 if suit == trump else 13 for suit in range(4))
    for trump in range(-1, 4)
}
"""By trump, where each suit's rows start in a `chance_table` (add the unseen cards above)."""


def chance_table(players: int, size: int) -> tuple[tuple[float, ...], ...]:
    """`card_chance` for hands of `size` cards among `players`: row `CHANCE_ROWS[trump][suit] +
    higher` (from 0 for a trump, 13 for an off-suit card, 26 without trump), column the suit's
    length in hand.
    Made once per players and size."""
    known = _TABLES.get((players, size))
    if known is not None:
        return known
    fill = round(size * players / 60, 3)
    table = tuple(
        tuple(card_chance(kind, higher, players, fill, length) for length in range(size + 1))
        for kind in "TON"
        for higher in range(13)
    )
    _TABLES[players, size] = table
    return table


def lead_features(
    hand: list[int], trump: int, players: int, gone: list[int]
) -> list[tuple[float, ...]]:
    """For each card of `hand`, what `LEAD_NEED` and `LEAD_SATED` weigh (see there)."""
    own, length = _masks(hand)
    chances = _later(hand, trump, players, gone, own, length)
    size = len(hand)
    rows: list[tuple[float, ...]] = []
    for card, chance in zip(hand, chances, strict=True):
        if card >= WIZ:
            wizard = 1.0 if card == WIZ else 0.0
            rows.append((wizard, 1.0 - wizard, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, chance))
            continue
        suit = card // 13
        rank = card % 13 + 1
        above = (FULL >> rank) << rank
        trumps = 1.0 if suit == trump else 0.0
        rows.append(
            (
                0.0,
                0.0,
                trumps,
                rank / 13,
                trumps * rank / 13,
                0.0 if own[suit] & above else 1.0,
                0.0 if own[suit] & ((1 << (rank - 1)) - 1) else 1.0,
                length[suit] / size,
                0.0 if above & ~gone[suit] & ~own[suit] else 1.0,
                chance,
            )
        )
    return rows


def _lead(
    hand: list[int], trump: int, need: int, players: int, gone: list[int], rand: Random
) -> int:
    """The card a player modelled on `normal` leads, drawn by `LEAD_NEED` or `LEAD_SATED`."""
    weights = LEAD_NEED if need > 0 else LEAD_SATED
    exp, mul = math.exp, operator.mul
    chances = [
        exp(sum(map(mul, weights, row), 0.0)) for row in lead_features(hand, trump, players, gone)
    ]
    pick = rand.random() * sum(chances, 0.0)
    for card, chance in zip(hand, chances, strict=True):
        pick -= chance
        if pick < 0.0:
            return card
    return hand[-1]


def card_to_take(
    hand: list[int], trump: int, lead: int, best_key: int, played: int, players: int, need: int
) -> int:
    """When a player who needs `need` tricks could both take the trick (no Wizard in it) and
    leave it: the card it would take it with (`_choose`'s, or when `_choose` would duck, the
    highest that takes); else -1."""
    return _take_or_leave(hand, trump, lead, best_key, played, players, need)[0]


def _take_or_leave(
    hand: list[int], trump: int, lead: int, best_key: int, played: int, players: int, need: int
) -> tuple[int, list[int]]:
    """`card_to_take`'s card, and the legal cards that would leave the trick."""
    keys = KEY[trump, lead]
    winners: list[int] = []
    losers: list[int] = []
    for card in _legal(hand, lead):
        (winners if keys[card] > best_key else losers).append(card)
    if not winners or not losers:
        return -1, losers
    if need > _sure(hand, trump):
        return _taker(winners, keys, played == players - 1), losers
    return max(winners, key=keys.__getitem__), losers


def take_features(
    hand: list[int], trump: int, take: int, played: int, players: int, need: int, gone: list[int]
) -> tuple[float, ...]:
    """What `TAKE_WEIGHTS` weighs (see there), for taking the trick with `take`."""
    chances = later_tricks(hand, trump, players, gone)
    chance = chances[hand.index(take)]
    return (
        1.0,
        need - sum(chances, 0.0) + chance,
        players - played - 1,
        1.0 if take == WIZ else 0.0,
        1.0 if SUIT[take] == trump else 0.0,
        chance,
    )


def _patient(
    hand: list[int],
    trump: int,
    lead: int,
    best_key: int,
    played: int,
    players: int,
    need: int,
    gone: list[int],
    rand: Random,
) -> int:
    """A follow (no Wizard in the trick) by a player modelled on `normal` who still needs
    `need` tricks: when it could both take the trick and leave it, it takes it by the chance
    `TAKE_WEIGHTS` gives, else it discards its weakest card; otherwise as `_choose`."""
    take, losers = _take_or_leave(hand, trump, lead, best_key, played, players, need)
    if take < 0:
        return _choose(hand, trump, lead, False, best_key, played, players, need)
    features = take_features(hand, trump, take, played, players, need, gone)
    score = sum(map(operator.mul, TAKE_WEIGHTS, features), 0.0)
    if rand.random() * (1.0 + math.exp(-score)) < 1.0:
        return take
    return min(losers, key=STRENGTH[trump].__getitem__)


def to_ints(cards: Sequence[str]) -> list[int]:
    """Cards in record notation as ints."""
    return [TO_INT[card] for card in cards]


# --- `normal` as it plays -----------------------------------------------------------------------

SHOWN = 2
"""Where the seats' void masks start in a playout's `shown` list (after the Wizards and the
Jesters seen)."""


def shown_list(
    played: Sequence[Sequence[int]], trump_card: int, voids: Sequence[set[int]]
) -> list[int]:
    """What `_normal_card` reads besides `gone`: the Wizards and the Jesters everyone has seen
    (played this round, or turned up), then each seat's void suits as a bit mask."""
    wizards = jesters = 0
    for cards in played:
        for card in cards:
            wizards += card == WIZ
            jesters += card == JES
    wizards += trump_card == WIZ
    jesters += trump_card == JES
    return [wizards, jesters, *(sum(1 << suit for suit in seat) for seat in voids)]


def _rank_key(card: int, trump: int) -> int:
    """`normal`'s plain order of power: Jesters, suit cards, trumps, Wizards."""
    if card == WIZ:
        return 200
    if card == JES:
        return 0
    return RANK[card] + (100 if SUIT[card] == trump else 0)


def _normal_card(
    hand: list[int],
    trump: int,
    lead: int,
    wizard: bool,
    best_key: int,
    played: int,
    players: int,
    turn: int,
    bids: Sequence[int],
    won: list[int],
    gone: list[int],
    shown: list[int],
) -> int:
    """The card `normal` plays (`NormalAI.play`, the same arithmetic on ints): the legal card
    with the best expected points, its chance to take the trick (by `Reading.chance`) and the
    model's chances for the cards kept deciding; the plainer card breaks ties."""
    own, length = _masks(hand)
    follow = played > 0 and lead >= 0 and length[lead] > 0
    if follow and length[lead] + length[NONE_SUIT] == 1:
        for card in hand:
            if SUIT[card] == lead or card >= WIZ:
                return card
    later = _later(hand, trump, players, gone, own, length)
    size = len(hand)
    seen = shown[0] + shown[1]
    unseen_suit = [0, 0, 0, 0]
    for suit in range(4):
        known = gone[suit] | own[suit]
        seen += gone[suit].bit_count()
        unseen_suit[suit] = 13 - known.bit_count()
    wizards_here = 0
    for card in hand:
        wizards_here += card == WIZ
    total = 60 - size - seen
    keep_share = 1.0 - size / (total if total > 1 else 1)
    keep = [1.0]
    for _ in range(14):
        keep.append(keep[-1] * keep_share)
    after = [(turn + k) % players for k in range(1, players - played)]
    wills: list[float] = []
    wizard_parts: list[float] = []
    voids: list[int] = []
    for seat in after:
        need = bids[seat] - won[seat]
        wills.append(1.0 if need > 0 else SATED_WILL)
        will = WIZARD_WILL * need / (size if size > 1 else 1)
        wizard_parts.append(
            (will if will < 1.0 else 1.0) * (1.0 - keep[4 - shown[0] - wizards_here])
        )
        voids.append(shown[SHOWN + seat])
    bid = bids[turn]
    have = won[turn]
    whole = [1.0] + [0.0] * size
    for count, chance in enumerate(later):
        for index in range(count + 1, 0, -1):
            whole[index] = whole[index] * (1.0 - chance) + whole[index - 1] * chance
        whole[0] *= 1.0 - chance
    points = [float(round_points(bid, have + more)) for more in range(size + 1)]
    best_card, best_score, best_rank = -1, 0, 0
    for position in range(size):
        card = hand[position]
        suit = SUIT[card]
        if follow and suit != lead and suit < NONE_SUIT:
            continue
        now = 0.0
        if not wizard:
            if card == WIZ:
                now = 1.0
            elif card != JES:
                new_lead = suit if lead == UNDECIDED else lead
                key = RANK[card] + 100 if suit == trump else RANK[card] if suit == new_lead else 0
                if key > best_key:
                    step = card % 13 + 1
                    higher = ((FULL >> step) << step & ~gone[suit] & ~own[suit]).bit_count()
                    now = 1.0
                    for index in range(len(after)):
                        void = voids[index]
                        no_higher = 1.0 if void >> suit & 1 else keep[higher]
                        out = 1.0 if void >> new_lead & 1 else keep[unseen_suit[new_lead]]
                        if suit == trump:
                            safe = no_higher if new_lead == trump else 1.0 - out * (1.0 - no_higher)
                        elif trump == NO_TRUMP:
                            safe = no_higher
                        else:
                            ruff = (
                                0.0 if void >> trump & 1 else out * (1.0 - keep[unseen_suit[trump]])
                            )
                            safe = no_higher * (1.0 - ruff)
                        beat = 1.0 - (1.0 - wizard_parts[index]) * (
                            1.0 - wills[index] * (1.0 - safe)
                        )
                        now *= 1.0 - beat
        # the kept cards' distribution is the whole hand's with the card's own chance taken
        # out: each count of it in turn, weighed by the points it makes with this trick or not
        chance = later[position]
        expected = 0.0
        if chance <= 0.5:
            rest = 1.0 - chance
            part = 0.0
            for count in range(size):
                part = (whole[count] - chance * part) / rest
                expected += part * ((1.0 - now) * points[count] + now * points[count + 1])
        else:
            part = 0.0
            for count in range(size, 0, -1):
                part = (whole[count] - (1.0 - chance) * part) / chance
                expected += part * ((1.0 - now) * points[count - 1] + now * points[count])
        score = math.floor(expected * 100.0 + 0.5)
        rank = -_rank_key(card, trump)
        if best_card < 0 or score > best_score or (score == best_score and rank > best_rank):
            best_card, best_score, best_rank = card, score, rank
    return best_card
