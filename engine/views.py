"""What each person may see: the public table and one player's private view.

A front end needs nothing else to draw a game. Views never carry another player's hand,
wings mark, or a bid before it is revealed (the viewer's own bid excepted).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from engine.cards import Card, Suit, sorted_hand
from engine.checks import bids_last, forbidden_bid, legal_bids, legal_plays, may_bid
from engine.options import BidMode, Options
from engine.scoring import places, round_points
from engine.state import NO_SEAT, GameState, Phase, Round, RoundResult, Trick


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    player: str
    name: str
    total: int
    has_bid: bool
    bid: int | None
    """The bid if the viewer may see it (None also before it is made)."""
    won: int
    projected: int | None
    """The total if the round ended now; None while the bid is not known to the viewer."""
    dealer: bool
    to_act: bool

    def shown_bid(self) -> str:
        """The bid as the table shows it: the number, `?` while hidden, `-` before it is made."""
        if self.bid is not None:
            return str(self.bid)
        return "?" if self.has_bid else "-"

    def standing(self, points: Callable[[int], str] = str) -> str:
        """`total (projected) won/bid` as the table shows it, e.g. `90 (80) 0/1` or `20 (?) 1/?`,
        the points written by `points`."""
        projected = "?" if self.has_bid else points(self.total)
        if self.projected is not None:  # the bid is known
            projected = points(self.projected)
        return f"{points(self.total)} ({projected}) {self.won}/{self.shown_bid()}"


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One round of the score sheet ("block of truth")."""

    round: int
    cards: int
    bids: tuple[int, ...]
    won: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]
    last_trick: Trick | None = None
    """The round's last trick, for a summary of the round (None in a row made without it)."""


def score_row(result: RoundResult) -> ScoreRow:
    """The score sheet's row for the finished round `result`."""
    return ScoreRow(
        round=result.number,
        cards=result.cards,
        bids=result.bids,
        won=result.won,
        points=result.points,
        totals=result.totals,
        last_trick=result.tricks[-1] if result.tricks else None,
    )


def bids_met(sheet: Sequence[ScoreRow], seat: int) -> int:
    """How many rounds of `sheet` the seat took exactly the tricks it bid."""
    return sum(row.bids[seat] == row.won[seat] for row in sheet)


def score_rows(state: GameState) -> tuple[ScoreRow, ...]:
    """The score sheet so far: one row per finished round (a finished game's whole sheet).
    Made again only when the finished rounds are not those it was last made of."""
    results = tuple(state.results)
    made_of, rows = state.sheet_cache
    if results != made_of:  # the same objects compare equal at once
        rows = tuple(score_row(result) for result in results)
        state.sheet_cache = (results, rows)
    return cast(tuple[ScoreRow, ...], rows)


@dataclass(frozen=True, slots=True)
class TableView:
    """The public table (as seen by `viewer`, whose own hidden bid is included)."""

    phase: Phase
    options: Options
    seq: int
    round: int
    rounds: int
    cards: int
    dealer: int
    trump_card: Card | None
    trump: Suit | None
    bid_mode: BidMode
    notequal: bool
    foresight: bool
    waiting: tuple[int, ...]
    """Seats whose move the table waits for (several while private bids come in)."""
    trick: tuple[Card, ...]
    trick_leader: int
    last_trick: Trick | None
    tricks: tuple[Trick, ...]
    """The tricks completed so far this round (public: every card played is seen)."""
    forbidden_bid: int | None
    """The bid notequal forbids the dealer, when that is public (open bids, or a hidden rebid)."""
    open_bids: tuple[int, ...]
    """In open bidding, the bids the player to act may make (public, as open bids are); empty
    otherwise (other bid modes, a hidden rebid, other phases)."""
    seats: tuple[SeatView, ...]
    sheet: tuple[ScoreRow, ...]
    places: tuple[int, ...]
    """Final places (1 = first, ties shared) once the game is over; empty before."""


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One player's view: the table plus what only they may see and do."""

    table: TableView
    seat: int
    player: str
    hand: tuple[Card, ...]
    """Own hand in display order; empty under foresight, where one cannot see one's card."""
    hand_size: int
    others: tuple[Card | None, ...]
    """Under foresight, the card each other player holds (own seat None); else empty."""
    bid: int | None
    mark: Card | None
    choose_trump: bool
    legal_bids: tuple[int, ...]
    forbidden_bid: int | None
    """The bid notequal forbids this player now (the one `legal_bids` leaves out), if any."""
    legal_cards: tuple[Card, ...]
    play_unseen: bool
    """Under foresight: it is this player's turn to play the card they cannot see."""
    bids_last: bool = False
    """While the others bid: this player bids once they all have (the dealer, with secret bids
    and notequal)."""


def table_view(state: GameState, viewer: int | None = None) -> TableView:
    """The public table; pass a seat as `viewer` to include that player's own hidden bid."""
    rnd = state.round
    finished = state.phase is Phase.FINISHED
    waiting = waiting_seats(state)
    seats = tuple(
        _seat_view(state, rnd, seat, viewer, seat in waiting) for seat in range(len(state.players))
    )
    last_trick = None
    if rnd is not None and rnd.tricks:
        last_trick = rnd.tricks[-1]
    elif state.results and state.results[-1].tricks:
        last_trick = state.results[-1].tricks[-1]
    sheet = score_rows(state)
    last = state.results[-1] if state.results else None
    return TableView(
        phase=state.phase,
        options=state.options,
        seq=state.seq,
        round=rnd.number if rnd else (last.number if last else 0),
        rounds=len(state.plan),
        cards=rnd.cards if rnd else 0,
        dealer=rnd.dealer if rnd else NO_SEAT,
        trump_card=rnd.trump_card if rnd else None,
        trump=rnd.trump if rnd else None,
        bid_mode=rnd.rules.bids if rnd else state.options.bids,
        notequal=rnd.rules.notequal if rnd else state.options.notequal_on,
        foresight=rnd.rules.foresight if rnd else False,
        waiting=waiting,
        trick=tuple(rnd.trick) if rnd else (),
        trick_leader=rnd.leader if rnd else NO_SEAT,
        last_trick=last_trick,
        tricks=tuple(rnd.tricks) if rnd else (),
        forbidden_bid=_public_forbidden(state, rnd),
        open_bids=_open_bids(state, rnd),
        seats=seats,
        sheet=sheet,
        places=tuple(places(state.totals)) if finished else (),
    )


def player_view(state: GameState, seat: int, table: TableView | None = None) -> PlayerView:
    """What the player in `seat` sees and may do now. A caller drawing several views may pass
    the public `table_view(state)`; it is used where it equals this player's."""
    rnd = state.round
    if table is None or (rnd is not None and not rnd.revealed and rnd.bids[seat] is not None):
        table = table_view(state, viewer=seat)
    if rnd is None:
        return PlayerView(
            table=table,
            seat=seat,
            player=state.players[seat].id,
            hand=(),
            hand_size=0,
            others=(),
            bid=None,
            mark=None,
            choose_trump=False,
            legal_bids=(),
            forbidden_bid=None,
            legal_cards=(),
            play_unseen=False,
        )
    foresight = rnd.rules.foresight
    hand = rnd.hands[seat]
    plays = legal_plays(state, seat)
    others: tuple[Card | None, ...] = ()
    if foresight:
        others = tuple(
            None if other == seat or not cards else cards[0]
            for other, cards in enumerate(rnd.hands)
        )
    return PlayerView(
        table=table,
        seat=seat,
        player=state.players[seat].id,
        hand=() if foresight else tuple(sorted_hand(hand)),
        hand_size=len(hand),
        others=others,
        bid=rnd.bids[seat],
        mark=rnd.marks[seat],
        choose_trump=state.phase is Phase.TRUMP and seat == rnd.dealer,
        legal_bids=tuple(legal_bids(state, seat)),
        forbidden_bid=forbidden_bid(state, seat),
        legal_cards=() if foresight else tuple(sorted_hand(plays)),
        play_unseen=foresight and bool(plays),
        bids_last=state.phase is Phase.BIDDING
        and rnd.bids[seat] is None
        and bids_last(rnd, seat)
        and not may_bid(rnd, seat),
    )


def waiting_seats(state: GameState) -> tuple[int, ...]:
    """The seats whose move the game waits for now (several while private bids come in)."""
    rnd = state.round
    if rnd is None:
        return ()
    if state.phase is Phase.TRUMP:
        return (rnd.dealer,)
    if state.phase is Phase.BIDDING:
        return tuple(seat for seat in range(len(state.players)) if may_bid(rnd, seat))
    if state.phase is Phase.PLAYING:
        return (rnd.turn,)
    return ()


def _seat_view(
    state: GameState, rnd: Round | None, seat: int, viewer: int | None, to_act: bool
) -> SeatView:
    player = state.players[seat]
    total = state.totals[seat] if state.totals else 0
    if rnd is None:
        return SeatView(seat, player.id, player.name, total, False, None, 0, None, False, False)
    made = rnd.bids[seat]
    bid = made if (rnd.revealed or seat == viewer) else None
    won = rnd.won[seat]
    projected = None if bid is None else total + round_points(bid, won)
    return SeatView(
        seat=seat,
        player=player.id,
        name=player.name,
        total=total,
        has_bid=made is not None,
        bid=bid,
        won=won,
        projected=projected,
        dealer=seat == rnd.dealer,
        to_act=to_act,
    )


def _public_forbidden(state: GameState, rnd: Round | None) -> int | None:
    """The dealer's forbidden bid, when the bids it follows from are public."""
    if rnd is None or not rnd.revealed:
        return None
    return forbidden_bid(state, rnd.dealer)


def _open_bids(state: GameState, rnd: Round | None) -> tuple[int, ...]:
    """The bids of the player to act, in open bidding."""
    if rnd is None or state.phase is not Phase.BIDDING or rnd.rules.bids is not BidMode.OPEN:
        return ()
    return tuple(legal_bids(state, rnd.turn))
