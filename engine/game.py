"""The rules machine: one entry point applies a command to a state and returns the events.

`step` changes the state in place and is atomic: a command is checked in full before anything
changes, so an illegal one raises RuleError and leaves the state as it was. `apply` is the pure
form: it works on a copy and returns the new state with the events.
"""

import random
from collections.abc import Callable
from typing import Any

from engine.cards import DECK, SUIT_OF, WIZARD, Card, Suit, is_card, missing_from_deck
from engine.commands import (
    Bid,
    ChooseTrump,
    Command,
    Deal,
    Join,
    Leave,
    MarkWings,
    Play,
    SetOptions,
    Start,
)
from engine.errors import ErrorCode, RuleError
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
from engine.options import MAX_PLAYERS, MIN_PLAYERS, BidMode, Options, hand_sizes, round_rules
from engine.scoring import places, round_points
from engine.state import NO_SEAT, GameState, Phase, Player, Round, RoundResult, Trick
from engine.tricks import is_legal, legal_cards, trick_winner

MAX_NAME = 64


def apply(state: GameState, command: Command) -> tuple[GameState, list[Event]]:
    """Apply `command` to a copy of `state`; return the new state and the events."""
    new = state.copy()
    events = step(new, command)
    return new, events


def step(state: GameState, command: Command) -> list[Event]:
    """Apply `command` to `state` in place and return the events; RuleError changes nothing."""
    handler = _HANDLERS.get(command.__class__)
    if handler is None:
        raise RuleError(ErrorCode.BAD_COMMAND, f"not a command: {command!r}")
    events: list[Event] = []
    handler(state, command, events)
    state.seq += 1
    return events


# --- the lobby -------------------------------------------------------------------------------


def _join(state: GameState, command: Join, events: list[Event]) -> None:
    _require_lobby(state)
    if not isinstance(command.player, str) or not command.player:
        raise RuleError(ErrorCode.BAD_PLAYER, "a player needs an id")
    if not isinstance(command.name, str) or not command.name.strip():
        raise RuleError(ErrorCode.BAD_PLAYER, "a player needs a name")
    if state.seat_of(command.player) is not None:
        raise RuleError(ErrorCode.ALREADY_JOINED, f"{command.name} is already seated")
    if len(state.players) >= MAX_PLAYERS:
        raise RuleError(ErrorCode.GAME_FULL, f"the table has {MAX_PLAYERS} seats, all taken")
    name = command.name.strip()[:MAX_NAME]
    state.players.append(Player(id=command.player, name=name))
    events.append(PlayerJoined(player=command.player, name=name, seat=len(state.players) - 1))


def _leave(state: GameState, command: Leave, events: list[Event]) -> None:
    _require_lobby(state)
    seat = _seat(state, command.player)
    del state.players[seat]
    events.append(PlayerLeft(player=command.player))


def _set_options(state: GameState, command: SetOptions, events: list[Event]) -> None:
    _require_lobby(state)
    if not isinstance(command.options, Options):
        raise RuleError(ErrorCode.BAD_OPTION, "not a set of options")
    options = command.options.normalized()
    state.options = options
    events.append(OptionsChanged(options=options))


def _start(state: GameState, command: Start, events: list[Event]) -> None:
    _require_lobby(state)
    players = len(state.players)
    if players < MIN_PLAYERS:
        raise RuleError(
            ErrorCode.TOO_FEW_PLAYERS, f"{MIN_PLAYERS} players are needed, {players} seated"
        )
    plan = hand_sizes(state.options, players)
    if not isinstance(command.seed, int):
        raise RuleError(ErrorCode.BAD_COMMAND, "the seed must be an integer")
    first_dealer = command.first_dealer
    if first_dealer is None:
        first_dealer = random.Random(f"{command.seed}:dealer").randrange(players)
    elif not isinstance(first_dealer, int) or not 0 <= first_dealer < players:
        raise RuleError(ErrorCode.BAD_COMMAND, f"no seat {first_dealer!r} to deal first")
    if command.deals is not None:
        _check_deals(command.deals, plan, players)
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


def _check_deals(deals: tuple[Deal, ...], plan: tuple[int, ...], players: int) -> None:
    if len(deals) != len(plan):
        raise RuleError(ErrorCode.BAD_DEAL, f"{len(deals)} deals for {len(plan)} rounds")
    for number, (deal, cards) in enumerate(zip(deals, plan, strict=True), start=1):
        if len(deal.hands) != players or any(len(hand) != cards for hand in deal.hands):
            raise RuleError(
                ErrorCode.BAD_DEAL, f"round {number} needs {players} hands of {cards} cards"
            )
        dealt = [card for hand in deal.hands for card in hand]
        if deal.trump_card is not None:
            dealt.append(deal.trump_card)
        problem = missing_from_deck(dealt)
        if problem is not None:
            raise RuleError(ErrorCode.BAD_DEAL, f"round {number}: {problem}")
        if (deal.trump_card is None) != (players * cards == len(DECK)):
            raise RuleError(
                ErrorCode.BAD_DEAL,
                f"round {number}: a trump card is turned exactly when cards remain",
            )


def _require_lobby(state: GameState) -> None:
    if state.phase is not Phase.LOBBY:
        if state.phase is Phase.FINISHED:
            raise RuleError(ErrorCode.GAME_OVER, "the game is over")
        raise RuleError(ErrorCode.GAME_STARTED, "the game has already started")


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
    rnd = _require_phase(state, Phase.TRUMP)
    seat = _seat(state, command.player)
    if seat != rnd.dealer:
        raise RuleError(ErrorCode.NOT_DEALER, "only the dealer chooses trump")
    if not isinstance(command.suit, Suit):
        raise RuleError(ErrorCode.BAD_SUIT, "the dealer must choose one of the four suits")
    rnd.trump = command.suit
    events.append(TrumpChosen(player=command.player, suit=command.suit))
    _start_bidding(state, rnd)
    _after_bidding_changed(state, rnd, events)


# --- bids --------------------------------------------------------------------------------------


def legal_bids(state: GameState, seat: int) -> list[int]:
    """The bids `seat` may make now (empty when it is not theirs to bid)."""
    rnd = state.round
    if state.phase is not Phase.BIDDING or rnd is None or not may_bid(rnd, seat):
        return []
    forbidden = _forbidden_bid(rnd, seat)
    return [bid for bid in range(rnd.cards + 1) if bid != forbidden]


def may_bid(rnd: Round, seat: int) -> bool:
    """Whether `seat` may bid now in the bidding round `rnd`."""
    if rnd.rebid or rnd.turn != NO_SEAT:
        return rnd.turn == seat
    if rnd.bids[seat] is not None:
        return False
    if rnd.rules.bids is BidMode.SECRET and rnd.rules.notequal and seat == rnd.dealer:
        # secret bids with notequal: the dealer bids once everybody else has
        return sum(bid is None for bid in rnd.bids) == 1
    return True


def _forbidden_bid(rnd: Round, seat: int) -> int | None:
    """The bid notequal forbids to `seat` now, if any: only the dealer, bidding last, is bound."""
    if not rnd.rules.notequal or seat != rnd.dealer:
        return None
    if rnd.rules.bids is BidMode.HIDDEN and not rnd.rebid:
        return None  # hidden bids are checked once revealed
    others = 0
    for other, bid in enumerate(rnd.bids):
        if other != seat:
            if bid is None:
                return None
            others += bid
    forbidden = rnd.cards - others
    return forbidden if forbidden >= 0 else None


def _bid(state: GameState, command: Bid, events: list[Event]) -> None:
    rnd = _require_phase(state, Phase.BIDDING)
    seat = _seat(state, command.player)
    bid = command.bid
    if not isinstance(bid, int) or isinstance(bid, bool) or not 0 <= bid <= rnd.cards:
        raise RuleError(ErrorCode.BID_OUT_OF_RANGE, f"bids run from 0 to {rnd.cards}")
    if not may_bid(rnd, seat):
        if rnd.turn == NO_SEAT and rnd.bids[seat] is not None:
            raise RuleError(ErrorCode.ALREADY_BID, "you have already bid this round")
        raise RuleError(ErrorCode.NOT_YOUR_TURN, "it is not your turn to bid")
    if bid == _forbidden_bid(rnd, seat):
        raise RuleError(
            ErrorCode.BID_FORBIDDEN,
            f"notequal: the bids may not add up to {rnd.cards}, so {bid} is not allowed",
        )
    rnd.bids[seat] = bid
    public = bid if rnd.revealed else None
    events.append(BidMade(player=command.player, bid=public, changed=rnd.rebid))
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


def legal_plays(state: GameState, seat: int) -> list[Card]:
    """The cards `seat` may play now, without repeats (empty when it is not their turn)."""
    rnd = state.round
    if state.phase is not Phase.PLAYING or rnd is None or rnd.turn != seat:
        return []
    return legal_cards(rnd.hands[seat], rnd.trick)


_PLAYING = Phase.PLAYING  # a module constant: faster than the enum lookup on the hot path


def _play(state: GameState, command: Play, events: list[Event]) -> None:
    # The hot path of every simulation: checks are inlined, errors take the slow road.
    rnd = state.round
    if state.phase is not _PLAYING or rnd is None:
        rnd = _require_phase(state, Phase.PLAYING)
    seat = rnd.turn
    if state.players[seat].id != command.player:
        _seat(state, command.player)  # an unknown player is told so
        raise RuleError(ErrorCode.NOT_YOUR_TURN, "it is not your turn to play")
    card = command.card
    hand = rnd.hands[seat]
    if card is None:
        if not rnd.rules.foresight:
            raise RuleError(ErrorCode.UNKNOWN_CARD, "name the card to play")
        card = hand[0]
    if card not in hand or (rnd.trick and not is_legal(card, hand, rnd.trick)):
        _check_playable(rnd, hand, card)
    _play_card(state, rnd, seat, card, False, events)
    if state.options.wings:
        _autoplay(state, rnd, events)


def _check_playable(rnd: Round, hand: list[Card], card: object) -> None:
    if card not in hand:
        if not is_card(card):
            raise RuleError(ErrorCode.UNKNOWN_CARD, f"not a card: {card!r}")
        raise RuleError(ErrorCode.CARD_NOT_IN_HAND, f"{card} is not in your hand")
    assert isinstance(card, str)
    if rnd.trick and not is_legal(card, hand, rnd.trick):
        raise RuleError(ErrorCode.MUST_FOLLOW_SUIT, f"you must follow suit; {card} does not")


def _play_card(
    state: GameState, rnd: Round, seat: int, card: Card, auto: bool, events: list[Event]
) -> None:
    players = state.players
    trick = rnd.trick
    rnd.hands[seat].remove(card)
    rnd.marks[seat] = None
    trick.append(card)
    events.append(CardPlayed(players[seat].id, card, auto))
    count = len(players)
    if len(trick) < count:
        rnd.turn = (seat + 1) % count
        return
    cards = tuple(trick)
    winner = (rnd.leader + trick_winner(cards, rnd.trump)) % count
    rnd.won[winner] += 1
    rnd.tricks.append(Trick(rnd.leader, cards, winner))
    events.append(TrickWon(players[winner].id, len(rnd.tricks), cards))
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
    if state.phase is Phase.FINISHED:
        raise RuleError(ErrorCode.GAME_OVER, "the game is over")
    if not state.options.wings:
        raise RuleError(ErrorCode.OPTION_OFF, "wings is not on at this table")
    rnd = state.round
    if rnd is None or state.phase not in (Phase.TRUMP, Phase.BIDDING, Phase.PLAYING):
        raise RuleError(ErrorCode.WRONG_PHASE, "cards can be marked only during a round")
    seat = _seat(state, command.player)
    card = command.card
    if card is not None:
        if rnd.rules.foresight:
            raise RuleError(ErrorCode.CARD_NOT_VISIBLE, "you cannot see your card this round")
        if not is_card(card):
            raise RuleError(ErrorCode.UNKNOWN_CARD, f"not a card: {card!r}")
        if card not in rnd.hands[seat]:
            raise RuleError(ErrorCode.CARD_NOT_IN_HAND, f"{card} is not in your hand")
        if state.phase is Phase.PLAYING and rnd.turn == seat:
            # marking on one's own turn plays the card, as the mark would at once
            _check_playable(rnd, rnd.hands[seat], card)
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


# --- helpers -----------------------------------------------------------------------------------


def _seat(state: GameState, player: str) -> int:
    seat = state.seat_of(player)
    if seat is None:
        raise RuleError(ErrorCode.UNKNOWN_PLAYER, f"{player!r} is not seated at this table")
    return seat


def _require_phase(state: GameState, phase: Phase) -> Round:
    if state.phase is not phase or state.round is None:
        if state.phase is Phase.FINISHED:
            raise RuleError(ErrorCode.GAME_OVER, "the game is over")
        if state.phase is Phase.LOBBY:
            raise RuleError(ErrorCode.WRONG_PHASE, "the game has not started")
        raise RuleError(ErrorCode.WRONG_PHASE, f"not now: the table is at {state.phase}")
    return state.round


_HANDLERS: dict[type, Callable[[GameState, Any, list[Event]], None]] = {
    Join: _join,
    Leave: _leave,
    SetOptions: _set_options,
    Start: _start,
    ChooseTrump: _choose_trump,
    Bid: _bid,
    Play: _play,
    MarkWings: _mark_wings,
}
