"""Game records (`wizard-record/1`): export a finished game, and check a record by replaying it.

The checker replays every deal, bid and card through the engine and reports the first broken
rule as `round R trick T: reason`; T is 0 for a problem in a round outside its tricks (the deal,
trump, bids, scores) and R is 0 for the record as a whole (format, players, options, totals).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import DECK, SUIT_OF, WIZARD, Card, Suit, is_card, missing_from_deck
from engine.commands import Bid, ChooseTrump, Deal, Join, Play, SetOptions, Start
from engine.errors import ErrorCode, RuleError
from engine.events import BidChangeRequired
from engine.game import step
from engine.options import MAX_PLAYERS, MIN_PLAYERS, Options, hand_sizes
from engine.state import GameState, Phase

FORMAT = "wizard-record/1"


class RecordError(Exception):
    """A record that breaks a rule (or is not a record), with where: round and trick."""

    def __init__(self, round_number: int, trick: int, reason: str) -> None:
        super().__init__(f"round {round_number} trick {trick}: {reason}")
        self.round = round_number
        self.trick = trick
        self.reason = reason


def export_record(state: GameState) -> dict[str, Any]:
    """The `wizard-record/1` record of a finished game."""
    if state.phase is not Phase.FINISHED:
        raise ValueError("only a finished game has a record")
    return {
        "format": FORMAT,
        "players": [player.name for player in state.players],
        "options": state.options.to_dict(),
        "first_dealer": state.first_dealer,
        "rounds": [
            {
                "number": result.number,
                "cards": result.cards,
                "dealer": result.dealer,
                "hands": [list(hand) for hand in result.hands],
                "trump_card": result.trump_card,
                "trump": None if result.trump is None else str(result.trump),
                "bids": list(result.bids),
                "tricks": [
                    {"leader": trick.leader, "cards": list(trick.cards), "winner": trick.winner}
                    for trick in result.tricks
                ],
                "won": list(result.won),
                "points": list(result.points),
            }
            for result in state.results
        ],
        "totals": list(state.totals),
        "seed": state.seed,
    }


@dataclass(frozen=True, slots=True)
class _ParsedRound:
    deal: Deal | None
    problem: str | None
    data: dict[str, Any]


def check_record(data: object) -> GameState:
    """Replay `data` through the engine; return the final state or raise RecordError."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError(0, 0, f"not a {FORMAT} record")
    names = data.get("players")
    if (
        not isinstance(names, list)
        or not MIN_PLAYERS <= len(names) <= MAX_PLAYERS
        or not all(isinstance(name, str) and name.strip() for name in names)
    ):
        raise RecordError(0, 0, f"players must be {MIN_PLAYERS} to {MAX_PLAYERS} names")
    count = len(names)
    try:
        options = Options.from_dict(data.get("options", {}))
        plan = hand_sizes(options, count)
    except RuleError as error:
        raise RecordError(0, 0, error.message) from None
    first_dealer = data.get("first_dealer")
    if not isinstance(first_dealer, int) or isinstance(first_dealer, bool):
        first_dealer = -1
    if not 0 <= first_dealer < count:
        raise RecordError(0, 0, f"first_dealer must be a seat from 0 to {count - 1}")
    rounds = data.get("rounds")
    if not isinstance(rounds, list):
        raise RecordError(0, 0, "rounds must be a list")
    if len(rounds) != len(plan):
        raise RecordError(0, 0, f"{len(rounds)} rounds recorded, the game has {len(plan)}")

    parsed = [
        _parse_round(number, raw, plan[number - 1], count, (first_dealer + number - 1) % count)
        for number, raw in enumerate(rounds, start=1)
    ]
    state = GameState()
    for seat, name in enumerate(names):
        try:
            step(state, Join(player=_player_id(seat), name=name))
        except RuleError as error:  # a name the rules refuse (a newline in it)
            raise RecordError(0, 0, f"player {seat + 1}: {error.message}") from None
    step(state, SetOptions(options=options))
    deals = tuple(
        p.deal or _placeholder_deal(cards, count) for p, cards in zip(parsed, plan, strict=True)
    )
    step(state, Start(seed=0, first_dealer=first_dealer, deals=deals))

    for number, current in enumerate(parsed, start=1):
        if current.problem is not None:
            raise RecordError(number, 0, current.problem)
        _replay_round(state, number, current.data, names)

    totals = data.get("totals")
    if not _same(totals, state.totals):
        raise RecordError(0, 0, f"wrong totals: recorded {totals}, the rules give {state.totals}")
    return state


def _player_id(seat: int) -> str:
    return f"seat{seat}"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _same(value: object, expected: int | Sequence[int]) -> bool:
    """Whether a recorded number (or list of numbers) is exactly `expected`: `true` is no 1."""
    if isinstance(expected, int):
        return _is_int(value) and value == expected
    return (
        isinstance(value, list)
        and len(value) == len(expected)
        and all(_is_int(item) and item == want for item, want in zip(value, expected, strict=True))
    )


def _placeholder_deal(cards: int, count: int) -> Deal:
    """A valid stand-in for a round whose deal is broken (its error is reported on reaching it)."""
    hands = tuple(tuple(DECK[seat * cards : (seat + 1) * cards]) for seat in range(count))
    left = count * cards
    return Deal(hands=hands, trump_card=DECK[left] if left < len(DECK) else None)


def _parse_round(number: int, raw: object, cards: int, count: int, dealer: int) -> _ParsedRound:
    """Check one round's shape, deal and trump; keep the first problem for later."""
    if not isinstance(raw, dict):
        return _ParsedRound(None, "a round must be an object", {})
    problem = _deal_problem(number, raw, cards, count, dealer)
    if problem is not None:
        return _ParsedRound(None, problem, raw)
    hands = tuple(tuple(Card(card) for card in hand) for hand in raw["hands"])
    return _ParsedRound(Deal(hands=hands, trump_card=raw["trump_card"]), None, raw)


def _deal_problem(
    number: int, raw: dict[str, Any], cards: int, count: int, dealer: int
) -> str | None:
    if not _same(raw.get("number"), number):
        return f"round number {raw.get('number')!r}, expected {number}"
    if not _same(raw.get("cards"), cards):
        return f"{raw.get('cards')!r} cards a player, the plan has {cards}"
    if not _same(raw.get("dealer"), dealer):
        return f"dealer {raw.get('dealer')!r}, expected seat {dealer}"
    hands = raw.get("hands")
    if (
        not isinstance(hands, list)
        or len(hands) != count
        or not all(isinstance(hand, list) and len(hand) == cards for hand in hands)
    ):
        return f"hands must be {count} lists of {cards} cards"
    trump_card = raw.get("trump_card")
    if trump_card is not None and not is_card(trump_card):
        return f"trump_card {trump_card!r} is not a card"
    dealt = [card for hand in hands for card in hand]
    problem = missing_from_deck([*dealt, *([trump_card] if trump_card else [])])
    if problem is not None:
        return f"cards not from one deck: {problem}"
    left = len(DECK) - count * cards
    if left and trump_card is None:
        return "wrong trump: cards remain, so one must be turned up"
    if not left and trump_card is not None:
        return "wrong trump: no card remains to turn up"
    trump = raw.get("trump")
    if trump_card == WIZARD:
        if not isinstance(trump, str) or trump not in {suit.value for suit in Suit}:
            return "wrong trump: a Wizard was turned up, so the dealer must choose a suit"
    else:
        expected = None if trump_card is None else SUIT_OF[trump_card]
        if trump != expected:
            gives = "none" if expected is None else expected.value
            return f"wrong trump: {trump!r}, the turned card gives {gives}"
    return None


def _replay_round(state: GameState, number: int, raw: dict[str, Any], names: list[str]) -> None:
    rnd = state.round
    assert rnd is not None
    assert rnd.number == number
    count = len(names)
    if state.phase is Phase.TRUMP:
        _do(state, number, 0, ChooseTrump(_player_id(rnd.dealer), Suit(raw["trump"])), names)
    bids = raw.get("bids")
    if not isinstance(bids, list) or len(bids) != count or not all(_is_int(b) for b in bids):
        raise RecordError(number, 0, f"bids must be {count} whole numbers")
    order = [(rnd.dealer + 1 + offset) % count for offset in range(count)]
    for seat in order:
        events = _do(state, number, 0, Bid(_player_id(seat), bids[seat]), names)
        if any(isinstance(event, BidChangeRequired) for event in events):
            raise RecordError(
                number, 0, f"bids add up to {rnd.cards}, which notequal forbids ({bids})"
            )
    _replay_tricks(state, number, raw, names)


def _replay_tricks(state: GameState, number: int, raw: dict[str, Any], names: list[str]) -> None:
    rnd = state.round
    assert rnd is not None
    count = len(names)
    tricks = raw.get("tricks")
    if not isinstance(tricks, list) or len(tricks) != rnd.cards:
        raise RecordError(number, 0, f"the round has {rnd.cards} tricks")
    for index, trick in enumerate(tricks, start=1):
        cards = trick.get("cards") if isinstance(trick, dict) else None
        if not isinstance(cards, list) or len(cards) != count:
            raise RecordError(number, index, f"a trick has {count} cards, one from each player")
        if not _same(trick.get("leader"), rnd.leader):
            raise RecordError(
                number, index, f"wrong leader {trick.get('leader')!r}, expected seat {rnd.leader}"
            )
        for offset, card in enumerate(cards):
            seat = (rnd.leader + offset) % count
            _do(state, number, index, Play(_player_id(seat), card), names)
        winner = rnd.tricks[index - 1].winner
        if not _same(trick.get("winner"), winner):
            raise RecordError(
                number, index, f"wrong winner {trick.get('winner')!r}, the rules give seat {winner}"
            )
    result = state.results[number - 1]
    for key, expected in (("won", result.won), ("points", result.points)):
        if not _same(raw.get(key), expected):
            raise RecordError(
                number, 0, f"wrong {key}: recorded {raw.get(key)}, the rules give {list(expected)}"
            )


def _do(state: GameState, number: int, trick: int, command: Any, names: Sequence[str]) -> list[Any]:
    try:
        return step(state, command)
    except RuleError as error:
        raise RecordError(number, trick, _reason(state, command, error, names)) from None


def _reason(state: GameState, command: Any, error: RuleError, names: Sequence[str]) -> str:
    seat = state.seat_of(command.player)
    who = names[seat] if seat is not None else "?"
    if isinstance(command, Play):
        if error.code is ErrorCode.MUST_FOLLOW_SUIT:
            return f"revoke: {who} played {command.card} but could follow suit"
        if error.code is ErrorCode.CARD_NOT_IN_HAND:
            return f"{who} played {command.card}, which is not in their hand"
        return f"{who} played {command.card!r}: {error.message}"
    if isinstance(command, Bid):
        if error.code is ErrorCode.BID_FORBIDDEN:
            return f"{who}'s bid {command.bid} is forbidden by notequal"
        if error.code is ErrorCode.BID_OUT_OF_RANGE:
            return f"{who}'s bid {command.bid} is out of range ({error.message})"
        return f"{who}'s bid {command.bid}: {error.message}"
    return error.message
