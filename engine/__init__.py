"""The Wizard rules engine: a pure, typed state machine. Commands in, events and views out."""

from engine.cards import DECK, JESTER, WIZARD, Card, Suit, parse_card, parse_cards, sorted_hand
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
from engine.events import Event, audience
from engine.game import apply, legal_bids, legal_plays, step
from engine.options import BidMode, Options, RoundsPlan, hand_sizes, parse_option
from engine.records import FORMAT, RecordError, check_record, export_record
from engine.state import GameState, Phase, Player, RoundResult, Trick
from engine.views import (
    PlayerView,
    SeatView,
    TableView,
    player_view,
    table_view,
    waiting_seats,
)

__all__ = [
    "DECK",
    "FORMAT",
    "JESTER",
    "WIZARD",
    "Bid",
    "BidMode",
    "Card",
    "ChooseTrump",
    "Command",
    "Deal",
    "ErrorCode",
    "Event",
    "GameState",
    "Join",
    "Leave",
    "MarkWings",
    "Options",
    "Phase",
    "Play",
    "Player",
    "PlayerView",
    "RecordError",
    "RoundResult",
    "RoundsPlan",
    "RuleError",
    "SeatView",
    "SetOptions",
    "Start",
    "Suit",
    "TableView",
    "Trick",
    "apply",
    "audience",
    "check_record",
    "export_record",
    "hand_sizes",
    "legal_bids",
    "legal_plays",
    "parse_card",
    "parse_cards",
    "parse_option",
    "player_view",
    "sorted_hand",
    "step",
    "table_view",
    "waiting_seats",
]
