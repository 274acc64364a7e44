"""One player's view of a chat's table, as the JSON the web page draws.

It is made from the engine's `player_view` alone (which never holds another seat's hand or a
bid before its reveal) and the seating; every move it offers is a button payload of the
player's hand message (`bot.show.screens.hand_message`), so a move from the page is exactly
the command the chat button sends.
"""

from typing import Any

from bot import tokens
from bot.show.look import Look, look_of, personal
from bot.show.screens import hand_message, hand_screen
from bot.show.seating import seating
from bot.table import Settings, Table
from bot.tokens import Action
from engine import Card, Phase, Suit, lead_suit, player_view, trick_winner
from engine.views import ScoreRow

JSON = dict[str, Any]


def _card(look: Look, card: Card | None) -> JSON | None:
    return None if card is None else {"card": card, "face": look.card(card)}


def _plays(look: Look, cards: tuple[Card, ...], leader: int, seats: int) -> list[JSON]:
    return [
        {"seat": (leader + index) % seats, "card": card, "face": look.card(card)}
        for index, card in enumerate(cards)
    ]


def _row(row: ScoreRow) -> JSON:
    return {
        "round": row.round,
        "cards": row.cards,
        "bids": list(row.bids),
        "won": list(row.won),
        "points": list(row.points),
        "totals": list(row.totals),
    }


def seat_of(table: Table, player: str) -> int | None:
    """The seat of `player` at the table, or None."""
    return next((s for s, p in enumerate(table.game.players) if p.id == player), None)


def player_json(table: Table, settings: Settings, player: str, version: int, now: float) -> JSON:
    """What the page of `player` (who must be seated at `table`) shows, as JSON."""
    seat = seat_of(table, player)
    if seat is None:
        raise ValueError(f"{player} has no seat at the table")
    state = table.game
    look = personal(look_of(settings), table.languages, player)
    seats = seating(table)
    view = player_view(state, seat)
    tv = view.table
    count = len(tv.seats)
    screen = hand_screen(view, seats)
    message = hand_message(look, screen, notify=False)
    buttons = [button for row in message.buttons for button in row]
    by_action: dict[Action, list[tuple[str, str]]] = {}
    for button in buttons:
        token = tokens.decode(button.payload)
        by_action.setdefault(token.action, []).append((token.arg, button.payload))
    plays = dict(by_action.get(Action.PLAY, []))
    marks = dict(by_action.get(Action.WINGS, []))
    moves = [{"label": button.label, "payload": button.payload} for button in buttons]
    again = None
    if state.phase is Phase.FINISHED:
        again = {
            "label": look.t("Play again"),
            "payload": tokens.lobby(table.game_id, Action.AGAIN),
        }
        moves.append(again)
    winner = None
    if tv.trick:
        winner = (tv.trick_leader + trick_winner(tv.trick, tv.trump)) % count
    last = tv.last_trick
    return {
        "version": version,
        "now": now,
        "game": table.game_id,
        "phase": str(tv.phase),
        "language": look.t.language,
        "round": tv.round,
        "rounds": tv.rounds,
        "cards": tv.cards,
        "bid_mode": str(tv.bid_mode),
        "options": tv.options.to_dict(),
        "you": seat,
        "deadline": table.deadline if state.phase is not Phase.FINISHED else None,
        "seats": [
            {
                "seat": s.seat,
                "name": seats.names[s.seat],
                "total": s.total,
                "projected": s.projected,
                "won": s.won,
                "bid": s.bid,
                "has_bid": s.has_bid,
                "shown_bid": s.shown_bid(),
                "standing": s.standing(),
                "dealer": s.dealer,
                "to_act": s.to_act,
                "robot": s.seat in seats.robots,
                "away": s.seat in seats.away,
            }
            for s in tv.seats
        ],
        "trump": {
            "card": _card(look, tv.trump_card),
            "suit": tv.trump.value if tv.trump else None,
            "label": look.suit(tv.trump),
        },
        "trick": {
            "plays": _plays(look, tv.trick, tv.trick_leader, count),
            "leader": tv.trick_leader,
            "winning": winner,
            "follow": (lead_suit(tv.trick) or None) if tv.trick else None,
        },
        "last_trick": None
        if last is None
        else {"plays": _plays(look, last.cards, last.leader, count), "winner": last.winner},
        "hand": [
            {
                "card": card,
                "face": look.card(card),
                "legal": card in plays,
                "payload": plays.get(card),
                "mark": marks.get(card),
            }
            for card in screen.hand
        ],
        "hand_size": view.hand_size,
        "unseen": plays.get("") if screen.unseen else None,
        "bid": view.bid,
        "bids": [{"bid": int(arg), "payload": p} for arg, p in by_action.get(Action.BID, [])],
        "forbidden_bid": screen.forbidden,
        "trump_choice": [
            {"suit": arg, "label": look.suit(Suit(arg)), "payload": p}
            for arg, p in by_action.get(Action.TRUMP, [])
        ],
        "mark": _card(look, view.mark),
        "clear_mark": marks.get(""),
        "others": [
            {"seat": other, "card": card, "face": look.card(card)}
            for other, card in enumerate(view.others)
            if card is not None
        ],
        "again": again,
        "resume": next((p for arg, p in by_action.get(Action.RESUME, [])), None),
        "sheet": [_row(row) for row in tv.sheet],
        "places": list(tv.places),
        "text": message.text,
        "moves": moves,
    }
