"""The state of one game as plain data: phases, seats, the current round, the score sheet.

A state serializes to compact JSON (with a schema version) and back; `copy()` gives an
independent state. It holds its seed (or fixed deals), so a game replays exactly.
"""

import json
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any, NamedTuple

from engine.cards import Card, Suit
from engine.commands import Deal
from engine.options import BidMode, Options, RoundRules

SCHEMA = 1
"""Version of the serialized form; bump it when the form changes."""

NO_SEAT = -1


class Phase(StrEnum):
    LOBBY = "lobby"  # seats are taken, options set
    TRUMP = "trump"  # a Wizard was turned up: the dealer chooses trump
    BIDDING = "bidding"
    PLAYING = "playing"
    FINISHED = "finished"


ROUND_PHASES = (Phase.TRUMP, Phase.BIDDING, Phase.PLAYING)
"""The phases of a round being played (between the deal and the score)."""

_blank = object.__new__
"""An instance with no field set yet, for the copies to fill in."""


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str


class Trick(NamedTuple):
    """A completed trick: seat that led, cards in play order, seat that won."""

    leader: int
    cards: tuple[Card, ...]
    winner: int


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round: one row of the score sheet, and all a game record needs of it."""

    number: int
    cards: int
    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    trump_card: Card | None
    trump: Suit | None
    bids: tuple[int, ...]
    tricks: tuple[Trick, ...]
    won: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(slots=True)
class Round:
    """The round being played."""

    number: int
    cards: int
    dealer: int
    rules: RoundRules
    dealt: tuple[tuple[Card, ...], ...]
    hands: list[list[Card]]
    trump_card: Card | None
    trump: Suit | None
    bids: list[int | None]
    revealed: bool
    """Whether the bids made so far are public (open bids always; hidden once all are in)."""
    rebid: bool
    """notequal with hidden bids: the revealed sum is equal and the dealer must change."""
    won: list[int]
    trick: list[Card]
    leader: int
    turn: int
    """The seat to act; NO_SEAT while private bids may come in any order."""
    tricks: list[Trick]
    marks: list[Card | None]

    def copy(self) -> "Round":
        """An independent copy: each field set in turn, which costs half the keyword call of
        the constructor (every `engine.apply` copies). A new field must be copied here too."""
        new = _blank(Round)
        new.number = self.number
        new.cards = self.cards
        new.dealer = self.dealer
        new.rules = self.rules
        new.dealt = self.dealt
        new.hands = [list(hand) for hand in self.hands]
        new.trump_card = self.trump_card
        new.trump = self.trump
        new.bids = list(self.bids)
        new.revealed = self.revealed
        new.rebid = self.rebid
        new.won = list(self.won)
        new.trick = list(self.trick)
        new.leader = self.leader
        new.turn = self.turn
        new.tricks = list(self.tricks)
        new.marks = list(self.marks)
        return new


@dataclass(slots=True)
class GameState:
    """Everything about one game. Change it only through `engine.apply` or `engine.step`."""

    options: Options = field(default_factory=Options)
    players: list[Player] = field(default_factory=list)
    phase: Phase = Phase.LOBBY
    seed: int = 0
    first_dealer: int = 0
    plan: tuple[int, ...] = ()
    """Hand size of every round, fixed at the start."""
    deals: tuple[Deal, ...] | None = None
    round: Round | None = None
    results: list[RoundResult] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    seq: int = 0
    """How many commands have been applied; a version for stale-button checks."""
    seat_cache: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    """Player id to seat, rebuilt from `players` whenever it disagrees (not serialized)."""
    sheet_cache: tuple[tuple[RoundResult, ...], tuple[object, ...]] = field(
        default=((), ()), compare=False, repr=False
    )
    """The finished rounds the score sheet was last made of, and its rows
    (`engine.views.score_rows`; not serialized): they change once a round, the views with
    every command."""

    def seat_of(self, player: str) -> int | None:
        """The seat of `player`, or None if they are not seated."""
        seat = self.seat_cache.get(player)
        players = self.players
        if seat is not None and seat < len(players) and players[seat].id == player:
            return seat
        self.seat_cache = {seated.id: index for index, seated in enumerate(players)}
        return self.seat_cache.get(player)

    def copy(self) -> "GameState":
        """An independent copy (immutable parts are shared), set field by field as
        `Round.copy` is. A new field must be copied here too."""
        new = _blank(GameState)
        new.options = self.options
        new.players = list(self.players)
        new.phase = self.phase
        new.seed = self.seed
        new.first_dealer = self.first_dealer
        new.plan = self.plan
        new.deals = self.deals
        new.round = None if self.round is None else self.round.copy()
        new.results = list(self.results)
        new.totals = list(self.totals)
        new.seq = self.seq
        new.seat_cache = {}
        new.sheet_cache = self.sheet_cache
        return new

    def to_dict(self, results: bool = True) -> dict[str, Any]:
        """Plain, compact data (cards of a hand or trick joined by spaces). With
        `results=False` the finished rounds are left out (see `results_to_list`)."""
        data = {
            "v": SCHEMA,
            "seq": self.seq,
            "options": _options_out(self.options),
            "players": [[player.id, player.name] for player in self.players],
            "phase": str(self.phase),
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "plan": list(self.plan),
            "deals": None if self.deals is None else [_deal_out(deal) for deal in self.deals],
            "round": None if self.round is None else _round_out(self.round),
            "totals": list(self.totals),
        }
        if results:
            data["results"] = self.results_to_list()
        return data

    def results_to_list(self) -> list[dict[str, Any]]:
        """The finished rounds as plain data: they change once a round, so a store may keep
        them apart from the rest of the state, which changes with every command."""
        return [_result_out(result) for result in self.results]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GameState":
        """The inverse of `to_dict`; raises ValueError for another schema version."""
        if data.get("v") != SCHEMA:
            raise ValueError(f"game state schema {data.get('v')!r}, expected {SCHEMA}")
        deals = data["deals"]
        return cls(
            options=_options_in(data["options"]),
            players=[Player(id=pid, name=name) for pid, name in data["players"]],
            phase=Phase(data["phase"]),
            seed=data["seed"],
            first_dealer=data["first_dealer"],
            plan=tuple(data["plan"]),
            deals=None if deals is None else tuple(_deal_in(deal) for deal in deals),
            round=None if data["round"] is None else _round_in(data["round"]),
            results=[_result_in(result) for result in data.get("results", ())],
            totals=list(data["totals"]),
            seq=data["seq"],
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> "GameState":
        return cls.from_dict(json.loads(text))


def _cards_out(cards: "tuple[Card, ...] | list[Card]") -> str:
    return " ".join(cards)


def _cards_in(text: str) -> tuple[Card, ...]:
    # Card is a NewType of str: the split strings are the cards, no call per card needed.
    return tuple(text.split())  # type: ignore[arg-type]


def _options_out(options: Options) -> dict[str, Any]:
    data = options.to_dict()
    data["notequal"] = options.notequal  # keep "the plan's default" (None) as it is
    return data


def _options_in(data: dict[str, Any]) -> Options:
    if not isinstance(data, dict):
        return _read_options(data)  # refused as the options of no table
    try:
        return _options_of(tuple(data.items()))
    except TypeError:  # a value that cannot be a key (so no option): read it to refuse it
        return _read_options(data)


@lru_cache(maxsize=64)
def _options_of(items: tuple[tuple[str, Any], ...]) -> Options:
    """The options stored as `items`: a table has few, read with every state (Options is
    frozen, so one instance serves every state that has them)."""
    return _read_options(dict(items))


def _read_options(data: dict[str, Any]) -> Options:
    options = Options.from_dict(data)
    return options.with_option("notequal", data.get("notequal"))


def _deal_out(deal: Deal) -> list[Any]:
    return [[_cards_out(hand) for hand in deal.hands], deal.trump_card]


def _deal_in(data: list[Any]) -> Deal:
    hands, trump_card = data
    return Deal(hands=tuple(_cards_in(hand) for hand in hands), trump_card=trump_card)


def _tricks_out(tricks: "tuple[Trick, ...] | list[Trick]") -> list[Any]:
    return [[trick.leader, _cards_out(trick.cards), trick.winner] for trick in tricks]


def _tricks_in(data: list[Any]) -> list[Trick]:
    return [Trick(leader, _cards_in(cards), winner) for leader, cards, winner in data]


def _suit_in(value: str | None) -> Suit | None:
    return None if value is None else Suit(value)


def _round_out(rnd: Round) -> dict[str, Any]:
    return {
        "number": rnd.number,
        "cards": rnd.cards,
        "dealer": rnd.dealer,
        "rules": [str(rnd.rules.bids), rnd.rules.notequal, rnd.rules.foresight],
        "dealt": [_cards_out(hand) for hand in rnd.dealt],
        "hands": [_cards_out(hand) for hand in rnd.hands],
        "trump_card": rnd.trump_card,
        "trump": rnd.trump,
        "bids": rnd.bids,
        "revealed": rnd.revealed,
        "rebid": rnd.rebid,
        "won": rnd.won,
        "trick": _cards_out(rnd.trick),
        "leader": rnd.leader,
        "turn": rnd.turn,
        "tricks": _tricks_out(rnd.tricks),
        "marks": rnd.marks,
    }


def _round_in(data: dict[str, Any]) -> Round:
    bids, notequal, foresight = data["rules"]
    return Round(
        number=data["number"],
        cards=data["cards"],
        dealer=data["dealer"],
        rules=RoundRules(bids=BidMode(bids), notequal=notequal, foresight=foresight),
        dealt=tuple(_cards_in(hand) for hand in data["dealt"]),
        hands=[list(_cards_in(hand)) for hand in data["hands"]],
        trump_card=data["trump_card"],
        trump=_suit_in(data["trump"]),
        bids=list(data["bids"]),
        revealed=data["revealed"],
        rebid=data["rebid"],
        won=list(data["won"]),
        trick=list(_cards_in(data["trick"])),
        leader=data["leader"],
        turn=data["turn"],
        tricks=_tricks_in(data["tricks"]),
        marks=list(data["marks"]),
    )


def _result_out(result: RoundResult) -> dict[str, Any]:
    return {
        "number": result.number,
        "cards": result.cards,
        "dealer": result.dealer,
        "hands": [_cards_out(hand) for hand in result.hands],
        "trump_card": result.trump_card,
        "trump": result.trump,
        "bids": list(result.bids),
        "tricks": _tricks_out(result.tricks),
        "won": list(result.won),
        "points": list(result.points),
        "totals": list(result.totals),
    }


def _result_in(data: dict[str, Any]) -> RoundResult:
    return RoundResult(
        number=data["number"],
        cards=data["cards"],
        dealer=data["dealer"],
        hands=tuple(_cards_in(hand) for hand in data["hands"]),
        trump_card=data["trump_card"],
        trump=_suit_in(data["trump"]),
        bids=tuple(data["bids"]),
        tricks=tuple(_tricks_in(data["tricks"])),
        won=tuple(data["won"]),
        points=tuple(data["points"]),
        totals=tuple(data["totals"]),
    )
