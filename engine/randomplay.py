"""A random legal player: picks uniformly among the moves the rules allow (simulations, tests)."""

import random

from engine.cards import Suit
from engine.checks import legal_bids, may_bid
from engine.commands import Bid, ChooseTrump, Command, Join, MarkWings, Play, Start, new_tuple
from engine.events import Event
from engine.game import step
from engine.names import NAMES
from engine.options import Options
from engine.state import NO_SEAT, GameState, Phase, Round
from engine.tricks import is_legal, legal_cards


def random_command(state: GameState, rng: random.Random, wings: float = 0.0) -> Command:
    """A legal command for whoever must act next; with `wings` > 0 it sometimes marks a card."""
    rnd = state.round
    if rnd is None:
        raise ValueError(f"nobody acts in phase {state.phase}")
    players = state.players
    phase = state.phase
    if phase is _PLAYING:
        seat = rnd.turn
        if wings and state.options.wings and not rnd.rules.foresight and rng.random() < wings:
            return _random_mark(state, rnd, seat, rng)
        # Uniform over the legal cards: draw from the hand, and only if that card may not be
        # played draw again among the legal ones (one draw is enough most of the time).
        hand = rnd.hands[seat]
        card = hand[int(rng.random() * len(hand))]
        trick = rnd.trick
        if trick and not is_legal(card, hand, trick):
            cards = legal_cards(hand, trick, unique=False)
            card = cards[int(rng.random() * len(cards))]
        return new_tuple(Play, (players[seat].id, card))
    if phase is Phase.TRUMP:
        return ChooseTrump(players[rnd.dealer].id, rng.choice(list(Suit)))
    seat = rnd.turn
    if seat == NO_SEAT:  # private bids: any player yet to bid
        seat = rng.choice([seat for seat in range(len(players)) if may_bid(rnd, seat)])
    bids = legal_bids(state, seat)
    return Bid(players[seat].id, bids[int(rng.random() * len(bids))])


_PLAYING = Phase.PLAYING


def _random_mark(state: GameState, rnd: Round, seat: int, rng: random.Random) -> Command:
    """Mark a random card for wings: for another player (or, on one's turn, play it)."""
    others = [other for other in range(len(state.players)) if rnd.hands[other]]
    other = rng.choice(others)
    if other == seat:
        cards = legal_cards(rnd.hands[seat], rnd.trick)
        return MarkWings(state.players[seat].id, rng.choice(cards))
    return MarkWings(state.players[other].id, rng.choice(rnd.hands[other]))


def new_game(players: int, options: Options, seed: int) -> GameState:
    """A started game with players `p0`, `p1`, … named Ann, Bob, …"""
    state = GameState()
    for seat in range(players):
        step(state, Join(player=f"p{seat}", name=NAMES[seat]))
    state.options = options
    step(state, Start(seed=seed))
    return state


def play_random_game(
    players: int, options: Options, seed: int, wings: float = 0.0
) -> tuple[GameState, list[Event]]:
    """Play a whole game with random legal players; return the final state and all events."""
    state = new_game(players, options, seed)
    rng = random.Random(seed)
    events: list[Event] = []
    while state.phase is not Phase.FINISHED:
        events.extend(step(state, random_command(state, rng, wings)))
    return state, events
