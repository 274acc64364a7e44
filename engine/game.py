"""The rules machine: one entry point applies a command to a state and returns the events.

`step` changes the state in place and is atomic: a command is checked in full before anything
changes, so an illegal one raises RuleError and leaves the state as it was. The checks are those
of `engine.checks` (`verify`, `can`), so they and `step` always agree. `apply` is the pure form:
it works on a copy and returns the new state with the events.
"""

import random
from collections.abc import Callable
from typing import Any

from engine.cards import DECK, SUIT_OF, WIZARD, Card
from engine.checks import (
    legal_bids,
    legal_plays,
    may_bid,
    not_a_command,
    verify_bid,
    verify_join,
    verify_leave,
    verify_mark,
    verify_options,
    verify_play,
    verify_start,
    verify_trump,
)
from engine.commands import (
    Bid,
    ChooseTrump,
    Command,
    Join,
    Leave,
    MarkWings,
    Play,
    SetOptions,
    Start,
    new_tuple,
)
from engine.events import (
    BidChangeRequired,
    BidMade,
    BidsRevealed,
    CardPlayed,
    Event,
    GameOver,
    GameStarted,
    OptionsChanged,
    PlayerJoined,
    PlayerLeft,
    PlayStarted,
    RoundScored,
    RoundStarted,
    TrickWon,
    TrumpChosen,
    TrumpTurned,
    WingsDropped,
    WingsMarked,
)
from engine.options import BidMode, hand_sizes, round_rules
from engine.scoring import places, round_points
from engine.state import NO_SEAT, GameState, Phase, Player, Round, RoundResult, Trick
from engine.tricks import is_legal, trick_winner

__all__ = ["apply", "legal_bids", "legal_plays", "may_bid", "shuffled_deck", "step"]
"""`legal_bids`, `legal_plays` and `may_bid` live in engine.checks; they are named here too."""


def apply(state: GameState, command: Command) -> tuple[GameState, list[Event]]:
    """Apply `command` to a copy of `state`; return the new state and the events."""
    new = state.copy()
    events = step(new, command)
    return new, events


def step(state: GameState, command: Command) -> list[Event]:
    """Apply `command` to `state` in place and return the events; RuleError changes nothing."""
    events: list[Event] = []
    if command.__class__ is Play:  # nine commands in ten, played here: the hot path
        card = verify_play(state, command.player, command.card)
        rnd = state.round
        assert rnd is not None
        _play_card(state, rnd, rnd.turn, card, False, events)
        if state.options.wings:
            _autoplay(state, rnd, events)
    else:
        handler = _HANDLERS.get(command.__class__)
        if handler is None:
            raise not_a_command(command)
        handler(state, command, events)
    state.seq += 1
    return events


# --- the lobby -------------------------------------------------------------------------------


def _join(state: GameState, command: Join, events: list[Event]) -> None:
    name = verify_join(state, command.player, command.name)
    state.players.append(Player(id=command.player, name=name))
    events.append(PlayerJoined(player=command.player, name=name, seat=len(state.players) - 1))


def _leave(state: GameState, command: Leave, events: list[Event]) -> None:
    seat = verify_leave(state, command.player)
    del state.players[seat]
    events.append(PlayerLeft(player=command.player))


def _set_options(state: GameState, command: SetOptions, events: list[Event]) -> None:
    options = verify_options(state, command.options)
    state.options = options
    events.append(OptionsChanged(options=options))


def _start(state: GameState, command: Start, events: list[Event]) -> None:
    first_dealer = verify_start(state, command.seed, command.first_dealer, command.deals)
    players = len(state.players)
    plan = hand_sizes(state.options, players)
    state.seed = command.seed
    state.first_dealer = first_dealer
    state.plan = plan
    state.deals = command.deals
    state.totals = [0] * players
    events.append(
        GameStarted(
            players=tuple(player.id for player in state.players),
            first_dealer=first_dealer,
            hand_sizes=plan,
        )
    )
    _start_round(state, 1, events)


# --- rounds ------------------------------------------------------------------------------------


def shuffled_deck(seed: int, number: int) -> list[Card]:
    """The deck as shuffled for round `number` of the game with `seed` (the same on every run)."""
    key = random.Random(f"{seed}:{number}").random
    return sorted(DECK, key=lambda _card: key())


def _start_round(state: GameState, number: int, events: list[Event]) -> None:
    players = len(state.players)
    cards = state.plan[number - 1]
    dealer = (state.first_dealer + number - 1) % players
    rules = round_rules(state.options, number, len(state.plan), cards)
    if state.deals is not None:
        deal = state.deals[number - 1]
        dealt = deal.hands
        trump_card = deal.trump_card
    else:
        deck = shuffled_deck(state.seed, number)
        dealt = tuple(tuple(deck[seat * cards : (seat + 1) * cards]) for seat in range(players))
        trump_card = deck[players * cards] if players * cards < len(deck) else None
    trump = None if trump_card is None else SUIT_OF[trump_card]
    state.round = Round(
        number=number,
        cards=cards,
        dealer=dealer,
        rules=rules,
        dealt=dealt,
        hands=[list(hand) for hand in dealt],
        trump_card=trump_card,
        trump=trump,
        bids=[None] * players,
        revealed=rules.bids is BidMode.OPEN,
        rebid=False,
        won=[0] * players,
        trick=[],
        leader=(dealer + 1) % players,
        turn=dealer,
        tricks=[],
        marks=[None] * players,
    )
    events.append(
        RoundStarted(
            round=number,
            cards=cards,
            dealer=dealer,
            bids=rules.bids,
            notequal=rules.notequal,
            foresight=rules.foresight,
        )
    )
    events.append(TrumpTurned(card=trump_card, trump=trump))
    if trump_card == WIZARD:
        state.phase = Phase.TRUMP
    else:
        _start_bidding(state, state.round)


def _start_bidding(state: GameState, rnd: Round) -> None:
    state.phase = Phase.BIDDING
    rnd.turn = _first_bidder(rnd, len(state.players))


def _first_bidder(rnd: Round, players: int) -> int:
    """Open bids go round from the dealer's left; secret bids with notequal leave the dealer
    last; otherwise private bids come in any order."""
    if rnd.rules.bids is BidMode.OPEN:
        return (rnd.dealer + 1) % players
    return NO_SEAT


def _choose_trump(state: GameState, command: ChooseTrump, events: list[Event]) -> None:
    verify_trump(state, command.player, command.suit)
    rnd = state.round
    assert rnd is not None
    rnd.trump = command.suit
    events.append(TrumpChosen(player=command.player, suit=command.suit))
    _start_bidding(state, rnd)
    _after_bidding_changed(state, rnd, events)


# --- bids --------------------------------------------------------------------------------------


def _bid(state: GameState, command: Bid, events: list[Event]) -> None:
    seat = verify_bid(state, command.player, command.bid)
    rnd = state.round
    assert rnd is not None
    bid = command.bid
    rnd.bids[seat] = bid
    public = bid if rnd.revealed else None
    events.append(new_tuple(BidMade, (command.player, public, rnd.rebid)))
    if rnd.rebid:
        rnd.rebid = False
    elif rnd.turn != NO_SEAT:
        rnd.turn = (seat + 1) % len(state.players)
    _after_bidding_changed(state, rnd, events)


def _after_bidding_changed(state: GameState, rnd: Round, events: list[Event]) -> None:
    """Once every bid is in: reveal hidden bids, ask the dealer to change if notequal is broken,
    or start the play."""
    if state.phase is not Phase.BIDDING or None in rnd.bids or rnd.rebid:
        return
    if rnd.rules.bids is BidMode.HIDDEN and not rnd.revealed:
        rnd.revealed = True
        bids = _bids(rnd)
        events.append(BidsRevealed(bids=bids))
        if rnd.rules.notequal and sum(bids) == rnd.cards:
            rnd.rebid = True
            rnd.turn = rnd.dealer
            events.append(
                BidChangeRequired(player=state.players[rnd.dealer].id, forbidden=bids[rnd.dealer])
            )
            return
    state.phase = Phase.PLAYING
    rnd.turn = rnd.leader
    events.append(PlayStarted(leader=rnd.leader))
    if state.options.wings:
        _autoplay(state, rnd, events)


def _bids(rnd: Round) -> tuple[int, ...]:
    return tuple(bid if bid is not None else 0 for bid in rnd.bids)


# --- play --------------------------------------------------------------------------------------


def _play_card(
    state: GameState, rnd: Round, seat: int, card: Card, auto: bool, events: list[Event]
) -> None:
    players = state.players
    trick = rnd.trick
    rnd.hands[seat].remove(card)
    rnd.marks[seat] = None
    trick.append(card)
    events.append(new_tuple(CardPlayed, (players[seat].id, card, auto)))
    count = len(players)
    if len(trick) < count:
        rnd.turn = (seat + 1) % count
        return
    cards = tuple(trick)
    winner = (rnd.leader + trick_winner(cards, rnd.trump)) % count
    rnd.won[winner] += 1
    rnd.tricks.append(new_tuple(Trick, (rnd.leader, cards, winner)))
    events.append(new_tuple(TrickWon, (players[winner].id, len(rnd.tricks), cards)))
    rnd.trick = []
    rnd.leader = rnd.turn = winner
    if not rnd.hands[winner]:
        _score_round(state, rnd, events)


def _autoplay(state: GameState, rnd: Round, events: list[Event]) -> None:
    """Wings: while the player to act has marked a card, play it if it is legal, else drop it."""
    while state.phase is Phase.PLAYING and state.round is rnd:
        seat = rnd.turn
        card = rnd.marks[seat]
        if card is None:
            return
        if card in rnd.hands[seat] and is_legal(card, rnd.hands[seat], rnd.trick):
            _play_card(state, rnd, seat, card, True, events)
        else:
            rnd.marks[seat] = None
            events.append(WingsDropped(to=state.players[seat].id, card=card))
            return


def _mark_wings(state: GameState, command: MarkWings, events: list[Event]) -> None:
    seat = verify_mark(state, command.player, command.card)
    rnd = state.round
    assert rnd is not None
    card = command.card
    if card is not None and state.phase is Phase.PLAYING and rnd.turn == seat:
        # marking on one's own turn plays the card, as the mark would at once
        _play_card(state, rnd, seat, card, False, events)
        _autoplay(state, rnd, events)
        return
    rnd.marks[seat] = card
    events.append(WingsMarked(to=command.player, card=card))


# --- scoring -----------------------------------------------------------------------------------


def _score_round(state: GameState, rnd: Round, events: list[Event]) -> None:
    bids = _bids(rnd)
    won = tuple(rnd.won)
    points = tuple(round_points(bid, taken) for bid, taken in zip(bids, won, strict=True))
    state.totals = [total + gain for total, gain in zip(state.totals, points, strict=True)]
    totals = tuple(state.totals)
    state.results.append(
        RoundResult(
            number=rnd.number,
            cards=rnd.cards,
            dealer=rnd.dealer,
            hands=rnd.dealt,
            trump_card=rnd.trump_card,
            trump=rnd.trump,
            bids=bids,
            tricks=tuple(rnd.tricks),
            won=won,
            points=points,
            totals=totals,
        )
    )
    if rnd.rules.bids is BidMode.SECRET:
        events.append(BidsRevealed(bids=bids))
    events.append(RoundScored(round=rnd.number, bids=bids, won=won, points=points, totals=totals))
    if rnd.number == len(state.plan):
        state.phase = Phase.FINISHED
        state.round = None
        events.append(GameOver(totals=totals, places=tuple(places(totals))))
    else:
        _start_round(state, rnd.number + 1, events)


# --- dispatch ----------------------------------------------------------------------------------


_HANDLERS: dict[type, Callable[[GameState, Any, list[Event]], None]] = {
    Join: _join,
    Leave: _leave,
    SetOptions: _set_options,
    Start: _start,
    ChooseTrump: _choose_trump,
    Bid: _bid,
    # Play: `step` itself, the hot path of every simulation
    MarkWings: _mark_wings,
}
