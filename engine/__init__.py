"""The Wizard rules engine: a pure, typed state machine. Commands in, events and views out.

Its names are loaded with the module that holds them, when first used (PEP 562): a program
that needs only the options, as `wizard-bot simulate` does, does not load the rules, records
and views.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.cards import DECK, JESTER, WIZARD, Card, Suit, parse_card, parse_cards, sorted_hand
    from engine.checks import (
        can,
        can_bid,
        can_join,
        can_leave,
        can_mark,
        can_play,
        can_set_options,
        can_start,
        can_trump,
        forbidden_bid,
        legal_bids,
        legal_plays,
        verify,
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
    from engine.game import apply, step
    from engine.options import BidMode, Options, RoundsPlan, hand_sizes, parse_option
    from engine.records import FORMAT, RecordError, check_record, export_record
    from engine.state import ROUND_PHASES, GameState, Phase, Player, RoundResult, Trick
    from engine.tricks import lead_suit, trick_winner
    from engine.views import (
        PlayerView,
        ScoreRow,
        SeatView,
        TableView,
        bids_met,
        player_view,
        score_row,
        score_rows,
        table_view,
        waiting_seats,
    )

HOMES: dict[str, tuple[str, ...]] = {
    "engine.cards": (
        "DECK",
        "JESTER",
        "WIZARD",
        "Card",
        "Suit",
        "parse_card",
        "parse_cards",
        "sorted_hand",
    ),
    "engine.checks": (
        "can",
        "can_bid",
        "can_join",
        "can_leave",
        "can_mark",
        "can_play",
        "can_set_options",
        "can_start",
        "can_trump",
        "forbidden_bid",
        "legal_bids",
        "legal_plays",
        "verify",
        "verify_bid",
        "verify_join",
        "verify_leave",
        "verify_mark",
        "verify_options",
        "verify_play",
        "verify_start",
        "verify_trump",
    ),
    "engine.commands": (
        "Bid",
        "ChooseTrump",
        "Command",
        "Deal",
        "Join",
        "Leave",
        "MarkWings",
        "Play",
        "SetOptions",
        "Start",
    ),
    "engine.errors": (
        "ErrorCode",
        "RuleError",
    ),
    "engine.events": (
        "Event",
        "audience",
    ),
    "engine.game": (
        "apply",
        "step",
    ),
    "engine.options": (
        "BidMode",
        "Options",
        "RoundsPlan",
        "hand_sizes",
        "parse_option",
    ),
    "engine.records": (
        "FORMAT",
        "RecordError",
        "check_record",
        "export_record",
    ),
    "engine.state": (
        "ROUND_PHASES",
        "GameState",
        "Phase",
        "Player",
        "RoundResult",
        "Trick",
    ),
    "engine.tricks": (
        "lead_suit",
        "trick_winner",
    ),
    "engine.views": (
        "PlayerView",
        "ScoreRow",
        "SeatView",
        "TableView",
        "bids_met",
        "player_view",
        "score_row",
        "score_rows",
        "table_view",
        "waiting_seats",
    ),
}
"""Where each name above is loaded from (tests/test_engine_names.py: the three lists agree)."""

_HOME_OF = {name: module for module, names in HOMES.items() for name in names}


if not TYPE_CHECKING:  # hidden from mypy, which would take any name as one of them

    def __getattr__(name: str) -> Any:
        """Load `name` from its module, once."""
        module = _HOME_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_HOME_OF})


__all__ = [
    "DECK",
    "FORMAT",
    "JESTER",
    "ROUND_PHASES",
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
    "ScoreRow",
    "SeatView",
    "SetOptions",
    "Start",
    "Suit",
    "TableView",
    "Trick",
    "apply",
    "audience",
    "bids_met",
    "can",
    "can_bid",
    "can_join",
    "can_leave",
    "can_mark",
    "can_play",
    "can_set_options",
    "can_start",
    "can_trump",
    "check_record",
    "export_record",
    "forbidden_bid",
    "hand_sizes",
    "lead_suit",
    "legal_bids",
    "legal_plays",
    "parse_card",
    "parse_cards",
    "parse_option",
    "player_view",
    "score_row",
    "score_rows",
    "sorted_hand",
    "step",
    "table_view",
    "trick_winner",
    "verify",
    "verify_bid",
    "verify_join",
    "verify_leave",
    "verify_mark",
    "verify_options",
    "verify_play",
    "verify_start",
    "verify_trump",
    "waiting_seats",
]
