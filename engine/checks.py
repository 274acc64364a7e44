"""The rules asked in one place: whether a command is legal now, and which moves are.

`verify_x` raises the RuleError the command would meet and changes nothing (it returns what the
move needs once checked, such as the seat that acts); `can_x` says the same as a bool.
`verify(state, command)` and `can(state, command)` take any command. `engine.step` runs these
very checks before it changes anything, so what they say is what `step` does. `legal_bids` and
`legal_plays` list the moves a seat has, from the same predicates (`may_bid`, `forbidden_bid`,
and the trick rules).
"""

import random
import unicodedata
from collections.abc import Callable
from typing import Any, ParamSpec

from engine.cards import DECK, Card, Suit, is_card, missing_from_deck
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
from engine.options import MAX_PLAYERS, MIN_PLAYERS, BidMode, Options, hand_sizes
from engine.state import NO_SEAT, ROUND_PHASES, GameState, Phase, Round
from engine.tricks import is_legal, legal_cards

MAX_NAME = 64

_P = ParamSpec("_P")

_BIDDING = Phase.BIDDING  # module constants: faster than the enum lookup on hot paths
_PLAYING = Phase.PLAYING


def verify(state: GameState, command: Command) -> None:
    """Raise the RuleError `step(state, command)` would raise; return if it would accept it."""
    check = _VERIFIERS.get(command.__class__)
    if check is None:
        raise not_a_command(command)
    check(state, command)


def can(state: GameState, command: Command) -> bool:
    """Whether `step(state, command)` would accept `command` now."""
    try:
        verify(state, command)
    except RuleError:
        return False
    return True


def not_a_command(command: object) -> RuleError:
    """The error for a value that is not one of the engine's commands."""
    return RuleError(ErrorCode.BAD_COMMAND, f"not a command: {command!r}")


# --- the lobby -------------------------------------------------------------------------------


def verify_join(state: GameState, player: str, name: str) -> str:
    """Raise RuleError unless `player` may take a seat as `name`; return the name as seated."""
    _require_lobby(state)
    if not isinstance(player, str) or not player:
        raise RuleError(ErrorCode.BAD_PLAYER, "a player needs an id")
    if not isinstance(name, str) or not name.strip():
        raise RuleError(ErrorCode.BAD_PLAYER, "a player needs a name")
    if not _one_line(player) or not _one_line(name):
        raise RuleError(ErrorCode.BAD_PLAYER, "a player's id and name are one line of text")
    if state.seat_of(player) is not None:
        raise RuleError(ErrorCode.ALREADY_JOINED, f"{name} is already seated")
    if len(state.players) >= MAX_PLAYERS:
        raise RuleError(ErrorCode.GAME_FULL, f"the table has {MAX_PLAYERS} seats, all taken")
    return name.strip()[:MAX_NAME]


def _one_line(text: str) -> bool:
    """Whether `text` is text on one line: no control character (a newline among them) and no
    lone surrogate (which no encoding can store)."""
    return not any(unicodedata.category(char) in ("Cc", "Cs") for char in text)


def can_join(state: GameState, player: str, name: str) -> bool:
    """Whether `player` may take a seat as `name` now."""
    return _passes(verify_join, state, player, name)


def verify_leave(state: GameState, player: str) -> int:
    """Raise RuleError unless `player` may give up their seat; return the seat."""
    _require_lobby(state)
    return _seat(state, player)


def can_leave(state: GameState, player: str) -> bool:
    """Whether `player` may give up their seat now."""
    return _passes(verify_leave, state, player)


def verify_options(state: GameState, options: Options) -> Options:
    """Raise RuleError unless the table may take `options`; return them normalized."""
    _require_lobby(state)
    if not isinstance(options, Options):
        raise RuleError(ErrorCode.BAD_OPTION, "not a set of options")
    return options.normalized()


def can_set_options(state: GameState, options: Options) -> bool:
    """Whether the table may take `options` now."""
    return _passes(verify_options, state, options)


def verify_start(
    state: GameState,
    seed: int,
    first_dealer: int | None = None,
    deals: tuple[Deal, ...] | None = None,
) -> int:
    """Raise RuleError unless the game may start so (see `Start`); return the first dealer."""
    _require_lobby(state)
    players = len(state.players)
    if players < MIN_PLAYERS:
        raise RuleError(
            ErrorCode.TOO_FEW_PLAYERS, f"{MIN_PLAYERS} players are needed, {players} seated"
        )
    plan = hand_sizes(state.options, players)
    if not isinstance(seed, int):
        raise RuleError(ErrorCode.BAD_COMMAND, "the seed must be an integer")
    if first_dealer is None:
        first_dealer = random.Random(f"{seed}:dealer").randrange(players)
    elif not isinstance(first_dealer, int) or not 0 <= first_dealer < players:
        raise RuleError(ErrorCode.BAD_COMMAND, f"no seat {first_dealer!r} to deal first")
    if deals is not None:
        _check_deals(deals, plan, players)
    return first_dealer


def can_start(
    state: GameState,
    seed: int,
    first_dealer: int | None = None,
    deals: tuple[Deal, ...] | None = None,
) -> bool:
    """Whether the game may start now with these settings (see `Start`)."""
    return _passes(verify_start, state, seed, first_dealer, deals)


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


# --- trump and bids --------------------------------------------------------------------------


def verify_trump(state: GameState, player: str, suit: Suit) -> None:
    """Raise RuleError unless `player` may name `suit` as trump now."""
    rnd = _require_phase(state, Phase.TRUMP)
    seat = _seat(state, player)
    if seat != rnd.dealer:
        raise RuleError(ErrorCode.NOT_DEALER, "only the dealer chooses trump")
    if not isinstance(suit, Suit):
        raise RuleError(ErrorCode.BAD_SUIT, "the dealer must choose one of the four suits")


def can_trump(state: GameState, player: str, suit: Suit) -> bool:
    """Whether `player` may name `suit` as trump now."""
    return _passes(verify_trump, state, player, suit)


def verify_bid(state: GameState, player: str, bid: int) -> int:
    """Raise RuleError unless `player` may bid `bid` now; return the bidder's seat."""
    rnd = _require_phase(state, Phase.BIDDING)
    seat = _seat(state, player)
    if not isinstance(bid, int) or isinstance(bid, bool) or not 0 <= bid <= rnd.cards:
        raise RuleError(ErrorCode.BID_OUT_OF_RANGE, f"bids run from 0 to {rnd.cards}")
    if not may_bid(rnd, seat):
        if rnd.turn == NO_SEAT and rnd.bids[seat] is not None:
            raise RuleError(ErrorCode.ALREADY_BID, "you have already bid this round")
        raise RuleError(ErrorCode.NOT_YOUR_TURN, "it is not your turn to bid")
    if bid == _notequal_bid(rnd, seat):
        raise RuleError(
            ErrorCode.BID_FORBIDDEN,
            f"notequal: the bids may not add up to {rnd.cards}, so {bid} is not allowed",
        )
    return seat


def can_bid(state: GameState, player: str, bid: int) -> bool:
    """Whether `player` may bid `bid` now."""
    return _passes(verify_bid, state, player, bid)


def legal_bids(state: GameState, seat: int) -> list[int]:
    """The bids `seat` may make now (empty when it is not theirs to bid)."""
    rnd = _bidding(state, seat)
    if rnd is None:
        return []
    forbidden = _notequal_bid(rnd, seat)
    return [bid for bid in range(rnd.cards + 1) if bid != forbidden]


def forbidden_bid(state: GameState, seat: int) -> int | None:
    """The bid notequal forbids `seat` now: the one `legal_bids` leaves out, if any."""
    rnd = _bidding(state, seat)
    return None if rnd is None else _notequal_bid(rnd, seat)


def may_bid(rnd: Round, seat: int) -> bool:
    """Whether `seat` may bid now in the bidding round `rnd`."""
    if rnd.rebid or rnd.turn != NO_SEAT:
        return rnd.turn == seat
    if rnd.bids[seat] is not None:
        return False
    if bids_last(rnd, seat):
        return sum(bid is None for bid in rnd.bids) == 1
    return True


def bids_last(rnd: Round, seat: int) -> bool:
    """Whether `seat` bids once everybody else has, in any order: the dealer, with secret bids
    and notequal (the dealer alone learns what the others' bids add up to)."""
    return rnd.rules.bids is BidMode.SECRET and rnd.rules.notequal and seat == rnd.dealer


def _bidding(state: GameState, seat: int) -> Round | None:
    """The round, when the table is bidding and `seat` may bid now; else None."""
    rnd = state.round
    if state.phase is not _BIDDING or rnd is None or not may_bid(rnd, seat):
        return None
    return rnd


def _notequal_bid(rnd: Round, seat: int) -> int | None:
    """The bid notequal forbids to `seat` in `rnd`, if any: only the dealer, bidding last, is
    bound."""
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


# --- play ------------------------------------------------------------------------------------


def verify_play(state: GameState, player: str, card: Card | None) -> Card:
    """Raise RuleError unless `player` may play `card` now (None: the unseen card under
    foresight); return the card to play."""
    # The hot path of every simulation: the checks that pass are inlined, errors take the
    # slow road.
    rnd = state.round
    if state.phase is not _PLAYING or rnd is None:
        rnd = _require_phase(state, Phase.PLAYING)
    seat = rnd.turn
    if state.players[seat].id != player:
        _seat(state, player)  # an unknown player is told so
        raise RuleError(ErrorCode.NOT_YOUR_TURN, "it is not your turn to play")
    hand = rnd.hands[seat]
    if card is None:
        if not rnd.rules.foresight:
            raise RuleError(ErrorCode.UNKNOWN_CARD, "name the card to play")
        card = hand[0]
    if card not in hand or (rnd.trick and not is_legal(card, hand, rnd.trick)):
        _check_playable(rnd, hand, card)
    return card


def can_play(state: GameState, player: str, card: Card | None) -> bool:
    """Whether `player` may play `card` now (None: the unseen card under foresight)."""
    return _passes(verify_play, state, player, card)


def legal_plays(state: GameState, seat: int) -> list[Card]:
    """The cards `seat` may play now, without repeats (empty when it is not their turn)."""
    rnd = state.round
    if state.phase is not _PLAYING or rnd is None or rnd.turn != seat:
        return []
    return legal_cards(rnd.hands[seat], rnd.trick)


def verify_mark(state: GameState, player: str, card: Card | None) -> int:
    """Raise RuleError unless `player` may mark `card` for wings now (None clears the mark);
    return the player's seat. On one's own turn a mark plays the card, so it must be playable."""
    if state.phase is Phase.FINISHED:
        raise RuleError(ErrorCode.GAME_OVER, "the game is over")
    if not state.options.wings:
        raise RuleError(ErrorCode.OPTION_OFF, "wings is not on at this table")
    rnd = state.round
    if rnd is None or state.phase not in ROUND_PHASES:
        raise RuleError(ErrorCode.WRONG_PHASE, "cards can be marked only during a round")
    seat = _seat(state, player)
    if card is not None:
        if rnd.rules.foresight:
            raise RuleError(ErrorCode.CARD_NOT_VISIBLE, "you cannot see your card this round")
        if not is_card(card):
            raise RuleError(ErrorCode.UNKNOWN_CARD, f"not a card: {card!r}")
        if card not in rnd.hands[seat]:
            raise RuleError(ErrorCode.CARD_NOT_IN_HAND, f"{card} is not in your hand")
        if state.phase is Phase.PLAYING and rnd.turn == seat:
            _check_playable(rnd, rnd.hands[seat], card)
    return seat


def can_mark(state: GameState, player: str, card: Card | None) -> bool:
    """Whether `player` may mark `card` for wings now (None clears the mark)."""
    return _passes(verify_mark, state, player, card)


def _check_playable(rnd: Round, hand: list[Card], card: object) -> None:
    if card not in hand:
        if not is_card(card):
            raise RuleError(ErrorCode.UNKNOWN_CARD, f"not a card: {card!r}")
        raise RuleError(ErrorCode.CARD_NOT_IN_HAND, f"{card} is not in your hand")
    assert isinstance(card, str)
    if rnd.trick and not is_legal(card, hand, rnd.trick):
        raise RuleError(ErrorCode.MUST_FOLLOW_SUIT, f"you must follow suit; {card} does not")


# --- helpers ---------------------------------------------------------------------------------


def _passes(check: Callable[_P, object], *args: _P.args, **kwargs: _P.kwargs) -> bool:
    try:
        check(*args, **kwargs)
    except RuleError:
        return False
    return True


def _seat(state: GameState, player: str) -> int:
    seat = state.seat_of(player)
    if seat is None:
        raise RuleError(ErrorCode.UNKNOWN_PLAYER, f"{player!r} is not seated at this table")
    return seat


def _require_lobby(state: GameState) -> None:
    if state.phase is not Phase.LOBBY:
        if state.phase is Phase.FINISHED:
            raise RuleError(ErrorCode.GAME_OVER, "the game is over")
        raise RuleError(ErrorCode.GAME_STARTED, "the game has already started")


def _require_phase(state: GameState, phase: Phase) -> Round:
    if state.phase is not phase or state.round is None:
        if state.phase is Phase.FINISHED:
            raise RuleError(ErrorCode.GAME_OVER, "the game is over")
        if state.phase is Phase.LOBBY:
            raise RuleError(ErrorCode.WRONG_PHASE, "the game has not started")
        raise RuleError(ErrorCode.WRONG_PHASE, f"not now: the table is at {state.phase}")
    return state.round


_VERIFIERS: dict[type, Callable[[GameState, Any], object]] = {
    Join: lambda state, c: verify_join(state, c.player, c.name),
    Leave: lambda state, c: verify_leave(state, c.player),
    SetOptions: lambda state, c: verify_options(state, c.options),
    Start: lambda state, c: verify_start(state, c.seed, c.first_dealer, c.deals),
    ChooseTrump: lambda state, c: verify_trump(state, c.player, c.suit),
    Bid: lambda state, c: verify_bid(state, c.player, c.bid),
    Play: lambda state, c: verify_play(state, c.player, c.card),
    MarkWings: lambda state, c: verify_mark(state, c.player, c.card),
}
