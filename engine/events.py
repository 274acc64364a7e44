"""Events: what a command did, for front ends to show.

Every event is public unless it has a `to` field: then only that player may see it.
Public events never carry a hand, a wings mark or a bid that is not yet revealed.
"""

from dataclasses import dataclass

from engine.cards import Card, Suit
from engine.options import BidMode, Options


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    player: str
    name: str
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    player: str


@dataclass(frozen=True, slots=True)
class OptionsChanged:
    options: Options


@dataclass(frozen=True, slots=True)
class GameStarted:
    players: tuple[str, ...]
    first_dealer: int
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round: int
    cards: int
    dealer: int
    bids: BidMode
    notequal: bool
    foresight: bool


@dataclass(frozen=True, slots=True)
class TrumpTurned:
    """The card turned up (None: none left). `trump` is None for a Jester, for no card, and for a
    Wizard until the dealer chooses (then TrumpChosen follows)."""

    card: Card | None
    trump: Suit | None


@dataclass(frozen=True, slots=True)
class TrumpChosen:
    player: str
    suit: Suit


@dataclass(frozen=True, slots=True)
class BidMade:
    """A bid was made; `bid` is None while bids are hidden or secret."""

    player: str
    bid: int | None
    changed: bool = False


@dataclass(frozen=True, slots=True)
class BidsRevealed:
    """Hidden bids shown together, in seat order (also every secret bid at a round's end)."""

    bids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BidChangeRequired:
    """notequal with hidden bids: the revealed bids add up to the tricks; the dealer must change."""

    player: str
    forbidden: int


@dataclass(frozen=True, slots=True)
class PlayStarted:
    leader: int


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A card was played; `auto` when it was a wings card played by itself."""

    player: str
    card: Card
    auto: bool = False


@dataclass(frozen=True, slots=True)
class TrickWon:
    player: str
    trick: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class RoundScored:
    round: int
    bids: tuple[int, ...]
    won: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver:
    totals: tuple[int, ...]
    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class WingsMarked:
    to: str
    card: Card | None


@dataclass(frozen=True, slots=True)
class WingsDropped:
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
