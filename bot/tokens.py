"""Button payloads: short tokens naming the game, the decision they answer and the action.

A token is `<game>.<stamp>.<action>`, e.g. `k3f9a.7-3.pR13` (play R13 in round 7, trick 4).
The stamp says which decision a button belongs to, so a press on an old message (an earlier
trick, round or game) is recognised as stale even when the same move would be legal now.
Tokens fit Telegram's 64-byte callback data and Discord's 100-character custom ids.
"""

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from bot.show.i18n import N_
from engine import GameState, Phase

NOT_OURS = N_("This button is not one of ours.")
"""What a press whose payload is none of ours is answered (forged, another bot's, a broken
page): by the service, and by a front end that sees it first."""
GAME_OVER = N_("This button belongs to a game that is over.")
"""What a press of another game's button than the chat's is answered."""


class Action(StrEnum):
    """What a button does, as its payload names it (one letter keeps payloads short)."""

    JOIN = "j"
    LEAVE = "l"
    START = "s"
    CANCEL = "x"
    ADD_AI = "a"
    REMOVE_AI = "d"
    OPTION = "o"
    BID = "b"
    PLAY = "p"
    TRUMP = "t"
    WINGS = "w"
    HAND = "h"
    RESUME = "r"
    AGAIN = "n"
    SCORES = "k"
    HINT = "i"


LOBBY_STAMP = "L"
MAX_LENGTH = 64


_PLAIN = re.compile(r"[A-Za-z0-9=_-]*")
"""What a stamp and an argument are made of (letters and digits: the payload is ASCII)."""


class TokenError(ValueError):
    """A payload that is no token of ours (forged, or from another bot)."""


@dataclass(frozen=True, slots=True)
class Token:
    game: str
    stamp: str
    action: Action
    arg: str

    def encode(self) -> str:
        return encode(self.game, self.stamp, self.action, self.arg)


def encode(game: str, stamp: str, action: Action, arg: str = "") -> str:
    """The payload of the token of these parts (`Token(...).encode()` without the token)."""
    return f"{game}.{stamp}.{action}{arg}"


def decode(payload: str) -> Token:
    """Read a payload; raise TokenError when it is not a well-formed token."""
    if not isinstance(payload, str):  # anything from outside: not even hashable, maybe
        raise TokenError("bad length")
    return _decode(payload)


@lru_cache(maxsize=1024)
def _decode(payload: str) -> Token:
    """`decode` of a string. A press is read more than once (its command for the metrics, then
    to apply it), and a token does not change: the last ones read are kept."""
    if not payload.isascii() or not 0 < len(payload) <= MAX_LENGTH:
        raise TokenError("bad length")  # ASCII only, so characters are bytes
    parts = payload.split(".")
    if len(parts) != 3 or not parts[0].isalnum() or not parts[1] or not parts[2]:
        raise TokenError("bad shape")
    game, stamp, rest = parts
    action, arg = Action._value2member_map_.get(rest[0]), rest[1:]
    if not isinstance(action, Action) or _PLAIN.fullmatch(arg + stamp) is None:
        raise TokenError("bad action")
    return Token(game, stamp, action, arg)


def stamp(state: GameState) -> str:
    """The stamp of the decision the game waits for now."""
    rnd = state.round
    if state.phase is Phase.LOBBY or rnd is None:
        return LOBBY_STAMP
    if state.phase is Phase.TRUMP:
        return f"{rnd.number}t"
    if state.phase is Phase.BIDDING:
        return f"{rnd.number}b{int(rnd.rebid)}"
    return f"{rnd.number}-{len(rnd.tricks)}"


def round_stamp(state: GameState) -> str:
    """A stamp valid for the whole round (wings marks may be set at any time in it)."""
    rnd = state.round
    return LOBBY_STAMP if rnd is None else f"r{rnd.number}"


def current(token: Token, state: GameState) -> bool:
    """Whether `token` is of the decision `state` waits for (a lobby's and an end's buttons
    always are, a wings mark's for the whole round), by its stamp: its game is not looked at."""
    if token.stamp in (LOBBY_STAMP, stamp(state)):
        return True
    return token.action is Action.WINGS and token.stamp == round_stamp(state)


def make(game: str, state: GameState, action: Action, arg: str = "") -> str:
    """The payload of a button for `action` at the game's current decision."""
    return encode(game, stamp(state), action, arg)


def for_round(game: str, state: GameState, action: Action, arg: str = "") -> str:
    """The payload of a button valid until the round ends (wings marks)."""
    return encode(game, round_stamp(state), action, arg)


def lobby(game: str, action: Action, arg: str = "") -> str:
    """The payload of a lobby or end-of-game button (valid as long as the game id is)."""
    return encode(game, LOBBY_STAMP, action, arg)
