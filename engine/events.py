"""Events: what a command did, for front ends to show.

Every event is public unless it has a `to` field: then only that player may see it.
Public events never carry a hand, a wings mark or a bid that is not yet revealed.

Events are NamedTuples: immutable, typed, and twice as fast to make as frozen dataclasses
(an event is made for every card of every simulated game).
"""

from typing import NamedTuple

from engine.cards import Card, Suit
from engine.options import BidMode, Options


class PlayerJoined(NamedTuple):
    player: str
    name: str
    seat: int


class PlayerLeft(NamedTuple):
    player: str


class OptionsChanged(NamedTuple):
    options: Options


class GameStarted(NamedTuple):
    players: tuple[str, ...]
    first_dealer: int
    hand_sizes: tuple[int, ...]


class RoundStarted(NamedTuple):
    round: int
    cards: int
    dealer: int
    bids: BidMode
    notequal: bool
    foresight: bool


class TrumpTurned(NamedTuple):
    """The card turned up (None: none left). `trump` is None for a Jester, for no card, and for a
    Wizard until the dealer chooses (then TrumpChosen follows)."""

    card: Card | None
    trump: Suit | None


class TrumpChosen(NamedTuple):
    player: str
    suit: Suit


class BidMade(NamedTuple):
    """A bid was made; `bid` is None while bids are hidden or secret."""

    player: str
    bid: int | None
    changed: bool = False


class BidsRevealed(NamedTuple):
    """Hidden bids shown together, in seat order (also every secret bid at a round's end)."""

    bids: tuple[int, ...]


class BidChangeRequired(NamedTuple):
    """notequal with hidden bids: the revealed bids add up to the tricks; the dealer must change."""

    player: str
    forbidden: int


class PlayStarted(NamedTuple):
    leader: int


class CardPlayed(NamedTuple):
    """A card was played; `auto` when it was a wings card played by itself."""

    player: str
    card: Card
    auto: bool = False


class TrickWon(NamedTuple):
    player: str
    trick: int
    cards: tuple[Card, ...]


class RoundScored(NamedTuple):
    round: int
    bids: tuple[int, ...]
    won: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]


class GameOver(NamedTuple):
    totals: tuple[int, ...]
    places: tuple[int, ...]


class WingsMarked(NamedTuple):
    to: str
    card: Card | None


class WingsDropped(NamedTuple):
    """The marked card was no longer legal when the turn came; the player must choose."""

    to: str
    card: Card


Event = (
    PlayerJoined
    | PlayerLeft
    | OptionsChanged
    | GameStarted
    | RoundStarted
    | TrumpTurned
    | TrumpChosen
    | BidMade
    | BidsRevealed
    | BidChangeRequired
    | PlayStarted
    | CardPlayed
    | TrickWon
    | RoundScored
    | GameOver
    | WingsMarked
    | WingsDropped
)


def audience(event: Event) -> str | None:
    """The one player who may see `event`, or None when everybody may."""
    if isinstance(event, WingsMarked | WingsDropped):
        return event.to
    return None
