"""The one error type of the engine: an illegal command, with a stable code front ends translate."""

from enum import StrEnum


class ErrorCode(StrEnum):
    """Why a command was refused. The values are stable: front ends key translations on them."""

    BAD_COMMAND = "bad_command"
    BAD_OPTION = "bad_option"
    OPTION_UNAVAILABLE = "option_unavailable"
    OPTION_OFF = "option_off"
    BAD_PLAYER = "bad_player"
    UNKNOWN_PLAYER = "unknown_player"
    ALREADY_JOINED = "already_joined"
    GAME_FULL = "game_full"
    TOO_FEW_PLAYERS = "too_few_players"
    GAME_STARTED = "game_started"
    GAME_OVER = "game_over"
    WRONG_PHASE = "wrong_phase"
    BAD_DEAL = "bad_deal"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_DEALER = "not_dealer"
    BAD_SUIT = "bad_suit"
    ALREADY_BID = "already_bid"
    BID_OUT_OF_RANGE = "bid_out_of_range"
    BID_FORBIDDEN = "bid_forbidden"
    UNKNOWN_CARD = "unknown_card"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    CARD_NOT_VISIBLE = "card_not_visible"


class RuleError(Exception):
    """An illegal command. The state it was applied to is unchanged."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
