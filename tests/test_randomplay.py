"""The random legal player: legal, and uniform over the legal cards."""

import random
from collections import Counter

from engine import Bid, Options, Phase, Play, legal_plays, step
from engine.randomplay import new_game, random_command


def _state_needing_to_follow_suit():
    """A 4-player game at a play where the player to act must follow suit."""
    for seed in range(200):
        state = new_game(4, Options(), seed)
        rng = random.Random(seed)
        while state.phase is not Phase.FINISHED:
            rnd = state.round
            if (
                state.phase is Phase.PLAYING
                and rnd is not None
                and rnd.trick
                and 1 < len(legal_plays(state, rnd.turn)) < len(set(rnd.hands[rnd.turn]))
            ):
                return state
            step(state, random_command(state, rng))
    raise AssertionError("no such position in 200 games")


def test_draws_are_legal_and_uniform_over_the_legal_cards():
    state = _state_needing_to_follow_suit()
    rnd = state.round
    assert rnd is not None
    hand = rnd.hands[rnd.turn]
    legal = legal_plays(state, rnd.turn)
    # each legal card's share of the hand's copies (Wizards and Jesters may repeat)
    copies = Counter(card for card in hand if card in legal)
    rng = random.Random(1)
    draws = 6000
    counts = Counter()
    for _ in range(draws):
        command = random_command(state, rng)
        assert isinstance(command, Play)
        counts[command.card] += 1
    assert set(counts) == set(legal)
    total = sum(copies.values())
    for card, seen in counts.items():
        expected = draws * copies[card] / total
        assert abs(seen - expected) < 0.15 * expected, (card, seen, expected)


def test_bids_are_legal():
    state = new_game(5, Options(notequal=True), 3)
    rng = random.Random(3)
    while state.phase is not Phase.PLAYING:
        command = random_command(state, rng)
        assert isinstance(command, Bid)
        step(state, command)
