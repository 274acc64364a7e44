"""A random legal player: picks uniformly among the moves the rules allow (simulations, tests)."""

import random

from engine.cards import Suit
from engine.commands import Bid, ChooseTrump, Command, Join, MarkWings, Play, Start
from engine.events import Event
from engine.game import legal_bids, legal_plays, may_bid, step
from engine.options import Options
from engine.state import GameState, Phase


def random_command(state: GameState, rng: random.Random, wings: float = 0.0) -> Command:
    """A legal command for whoever must act next; with `wings` > 0 it sometimes marks a card."""
    rnd = state.round
    if rnd is None:
        raise ValueError(f"nobody acts in phase {state.phase}")
    players = state.players
    if state.phase is Phase.TRUMP:
        return ChooseTrump(players[rnd.dealer].id, rng.choice(list(Suit)))
    if state.phase is Phase.BIDDING:
        seats = [seat for seat in range(len(players)) if may_bid(rnd, seat)]
        seat = rng.choice(seats)
        return Bid(players[seat].id, rng.choice(legal_bids(state, seat)))
    seat = rnd.turn
    if wings and state.options.wings and not rnd.rules.foresight and rng.random() < wings:
        others = [other for other in range(len(players)) if other != seat and rnd.hands[other]]
        if others:
            other = rng.choice(others)
            return MarkWings(players[other].id, rng.choice(rnd.hands[other]))
    return Play(players[seat].id, rng.choice(legal_plays(state, seat)))


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


NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")
