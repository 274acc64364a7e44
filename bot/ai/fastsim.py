"""A fast simulation of the rest of a round for the hard AI: cards as small ints, a specialised
trick loop and cheap rollout policies in which every player tries to make their bid: a greedy
one (`_choose`) and, for the other players, one modelled on how `normal` plays (`_patient`).

Cards are ints: `suit * 13 + rank - 1` for the numbered cards (suits in the order B, G, R, Y),
`WIZ` for a Wizard and `JES` for a Jester (copies repeat the same int). Trump is a suit index,
or `NO_TRUMP`. `tests/test_ai_hard.py` checks the trick winner and whole playouts against the
engine.
"""

from collections.abc import Sequence

from bot.ai.normal import card_chance
from engine.cards import NUMBERED, WIZARD, Card, Suit

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
) -> list[int]:
    """Play the rest of the round out: every player follows the bid-seeking policy, except that
    the player to act now plays `first` (when given). With `gone` (per suit, a bit mask of the
    ranks every player has seen played, `seen_masks`), the seats other than `me` play like
    `normal`: a player who needs tricks takes one only when the cards it keeps are unlikely
    to bring them (`_patient`). `hands`, `won` and `gone` are changed in place; returns `won`,
    the tricks each seat has taken at the end."""
    players = len(hands)
    suit_of, rank_of = SUIT, RANK
    patient = gone is not None
    # the state of the trick in progress
    lead = UNDECIDED
    wizard = False
    best_pos, best_key = -1, -2
    played = 0
    for card in trick:
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
    turn = (leader + played) % players
    while True:
        hand = hands[turn]
        if not hand:
            return won
        if first >= 0:
            card = first
            first = -1
        elif patient and turn != me and bids[turn] > won[turn]:
            assert gone is not None
            card = _patient(
                hand, trump, lead, wizard, best_key, played, players, bids[turn] - won[turn], gone
            )
        else:
            card = _choose(
                hand, trump, lead, wizard, best_key, played, players, bids[turn] - won[turn]
            )
        hand.remove(card)
        if patient and card < WIZ:
            assert gone is not None
            gone[card // 13] |= 1 << (card % 13)
        # add `card` to the trick
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
        if played == players - 1:
            return min(winners, key=power)
        plain = [card for card in winners if keys[card] < 100]
        if plain:  # the highest of the lead suit
            return max(plain, key=power)
        trumps = [card for card in winners if card != WIZ]
        return min(trumps, key=power) if trumps else WIZ
    if len(winners) < len(legal):
        return max((card for card in legal if keys[card] <= best_key), key=strength)
    return max(legal, key=power) if played == players - 1 else min(legal, key=power)


PATIENCE = 0.6
"""A player modelled on `normal` takes a trick it needs only when the cards it keeps are expected
to take fewer than its remaining need plus this margin. Measured on 30 games of `normal` alone,
in rounds of 10 cards and more: `normal` takes 43 % of the tricks it needs and could take (not
leading), the greedy policy in its place 88 %, this one 55 %; this one takes or leaves such a
trick as `normal` did 65 % of the time, the greedy one 51 %."""
PATIENT_LEAD = True
"""Whether the player modelled on `normal` leads its highest side-suit card when it needs tricks
(as `normal` mostly does), rather than its strongest card."""
WIZARD_CHANCE = 0.97
_CHANCE: dict[tuple[str, int, int, float, int], float] = {}
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
    fill = round(len(hand) * players / 60, 3)
    own = [0, 0, 0, 0, 0]
    length = [0, 0, 0, 0, 0]
    for card in hand:
        suit = SUIT[card]
        if suit < NONE_SUIT:
            own[suit] |= 1 << (card % 13)
            length[suit] += 1
    out = []
    for card in hand:
        if card >= WIZ:
            out.append(WIZARD_CHANCE if card == WIZ else 0.0)
            continue
        suit = SUIT[card]
        step = card % 13 + 1
        higher = ((FULL >> step) << step & ~gone[suit] & ~own[suit]).bit_count()
        kind = "N" if trump == NO_TRUMP else "T" if suit == trump else "O"
        key = (kind, higher, players, fill, length[suit])
        chance = _CHANCE.get(key)
        if chance is None:
            chance = _CHANCE[key] = card_chance(*key)
        out.append(chance)
    return out


def _patient(
    hand: list[int],
    trump: int,
    lead: int,
    wizard: bool,
    best_key: int,
    played: int,
    players: int,
    need: int,
    gone: list[int],
) -> int:
    """The rollout policy of a player modelled on `normal` who still needs `need` tricks: as
    `_choose`, but it leaves a trick it could take (discarding its weakest card) when the cards
    it would keep are expected to make the need anyway."""
    if played == 0 and PATIENT_LEAD:
        plain = [other for other in hand if other < WIZ and SUIT[other] != trump]
        if plain:  # `normal` leads a high card of a side suit far more often than a Wizard
            return max(plain, key=RANK.__getitem__)
    card = _choose(hand, trump, lead, wizard, best_key, played, players, need)
    if played == 0 or wizard:
        return card
    keys = KEY[trump, lead]
    if keys[card] <= best_key:
        return card
    legal = _legal(hand, lead)
    losers = [other for other in legal if keys[other] <= best_key]
    if not losers:
        return card
    chances = later_tricks(hand, trump, players, gone)
    later = sum(chances) - chances[hand.index(card)]
    if need <= later + PATIENCE:
        return min(losers, key=STRENGTH[trump].__getitem__)
    return card


def to_ints(cards: Sequence[str]) -> list[int]:
    """Cards in record notation as ints."""
    return [TO_INT[card] for card in cards]
