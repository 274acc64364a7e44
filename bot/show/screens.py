"""What people see, built from engine views: the lobby, the group's table, each player's hand,
round summaries, the end of a game. Platform-neutral text and buttons, every word translated."""

from collections.abc import Sequence
from dataclasses import dataclass

from bot import tokens
from bot.commands import Action
from bot.messages import Button, Message
from bot.show.formatters import score_sheet
from bot.show.i18n import Texts, error_text
from bot.show.themes import Theme, card_face, cards_line, suit_face, suit_name
from bot.table import Table
from engine import (
    WIZARD,
    BidMode,
    Card,
    ErrorCode,
    GameState,
    Options,
    Phase,
    PlayerView,
    RoundsPlan,
    Suit,
    TableView,
    Trick,
    legal_bids,
    player_view,
    table_view,
)
from engine.options import MAX_PLAYERS, MIN_PLAYERS
from engine.scoring import places
from engine.views import ScoreRow

ROW = 4
"""Card buttons per row (phones show four comfortably)."""
BID_ROW = 6


@dataclass(frozen=True, slots=True)
class Look:
    """How a chat is shown: its language and deck theme."""

    t: Texts
    theme: Theme

    def card(self, card: Card | None) -> str:
        return "—" if card is None else card_face(card, self.theme)

    def suit(self, suit: Suit | None) -> str:
        if suit is None:
            # TRANSLATORS: the trump suit when there is none; it follows "Trump:"
            return self.t("none")
        return f"{suit_face(suit, self.theme)} {suit_name(self.t, suit, self.theme)}"


def names(state: GameState, table: Table | None = None) -> list[str]:
    """Seat names, AI seats marked with a robot."""
    ai = table.ai if table else {}
    return [f"🤖 {p.name}" if p.id in ai else p.name for p in state.players]


# --- lobby -----------------------------------------------------------------------------------


def options_line(look: Look, options: Options) -> str:
    t = look.t
    parts = []
    bids = {
        BidMode.OPEN: t("open bids"),
        BidMode.HIDDEN: t("hidden bids"),
        BidMode.SECRET: t("secret bids"),
    }
    parts.append(bids[options.bids])
    rounds = {
        RoundsPlan.STANDARD: t("all rounds"),
        RoundsPlan.SHORT: t("5 rounds"),
        RoundsPlan.TOURNAMENT: t("tournament rounds"),
    }
    parts.append(rounds[options.rounds])
    if options.notequal_on:
        parts.append(t("notequal"))
    if options.dmmixed:
        parts.append(t("dmmixed"))
    if options.foresight:
        parts.append(t("foresight"))
    if options.wings:
        parts.append(t("wings"))
    return ", ".join(parts)


def lobby(look: Look, table: Table, show_options: bool = False) -> Message:
    t = look.t
    state = table.game
    seated = names(state, table)
    lines = [t("🧙 Wizard: a new table"), ""]
    for seat, name in enumerate(seated):
        host = " 👑" if state.players[seat].id == table.host else ""
        lines.append(f"{seat + 1}. {name}{host}")
    free = MAX_PLAYERS - len(seated)
    if free:
        lines.append(t("{free} seats free", free=free) if free > 1 else t("1 seat free"))
    lines += ["", t("Options: {options}", options=options_line(look, state.options))]
    if len(seated) < MIN_PLAYERS:
        lines.append(
            t("{n} to {m} players; the game starts with /start.", n=MIN_PLAYERS, m=MAX_PLAYERS)
        )
    else:
        lines.append(t("Ready: any seated player may /start."))
    gid = table.game_id
    rows: list[tuple[Button, ...]] = [
        (
            Button(t("Join"), tokens.lobby(gid, Action.JOIN)),
            Button(t("Leave"), tokens.lobby(gid, Action.LEAVE)),
            Button(t("Start"), tokens.lobby(gid, Action.START)),
        ),
        (
            Button(t("Add AI"), tokens.lobby(gid, Action.ADD_AI)),
            Button(t("Options"), tokens.lobby(gid, Action.OPTION)),
            Button(t("Cancel"), tokens.lobby(gid, Action.CANCEL)),
        ),
    ]
    if show_options:
        rows = [*option_buttons(look, table), rows[0]]
    return Message("\n".join(lines), buttons=tuple(rows), slot="lobby")


def option_buttons(look: Look, table: Table) -> list[tuple[Button, ...]]:
    """Buttons that change one option each (for the host)."""
    t = look.t
    options = table.game.options
    gid = table.game_id

    def flag(name: str, label: str, on: bool) -> Button:
        mark = "✅" if on else "⬜"
        return Button(
            f"{mark} {label}", tokens.lobby(gid, Action.OPTION, f"{name}={'off' if on else 'on'}")
        )

    bids_next = {BidMode.OPEN: "hidden", BidMode.HIDDEN: "secret", BidMode.SECRET: "open"}
    rounds_next = {
        RoundsPlan.STANDARD: "short",
        RoundsPlan.SHORT: "tournament",
        RoundsPlan.TOURNAMENT: "standard",
    }
    return [
        (
            Button(
                t("Bids: {mode}", mode=t(options.bids.value)),
                tokens.lobby(gid, Action.OPTION, f"bids={bids_next[options.bids]}"),
            ),
            Button(
                t("Rounds: {plan}", plan=t(options.rounds.value)),
                tokens.lobby(gid, Action.OPTION, f"rounds={rounds_next[options.rounds]}"),
            ),
        ),
        (
            flag("notequal", t("notequal"), options.notequal_on),
            flag("dmmixed", t("dmmixed"), options.dmmixed),
        ),
        (
            flag("foresight", t("foresight"), options.foresight),
            flag("wings", t("wings"), options.wings),
        ),
    ]


# --- the table -------------------------------------------------------------------------------


def status(look: Look, view: TableView, seated: Sequence[str]) -> str:
    """Who the table waits for."""
    t = look.t
    if view.phase is Phase.TRUMP:
        return t("{name} (dealer) chooses trump.", name=seated[view.dealer])
    if view.phase is Phase.BIDDING:
        waiting = ", ".join(seated[seat] for seat in view.waiting)
        if view.bid_mode is BidMode.OPEN or len(view.waiting) == 1:
            return t("{names} to bid.", names=waiting)
        return t("Waiting for bids from {names}.", names=waiting)
    if view.phase is Phase.PLAYING:
        return t("{name} to play.", name=seated[view.waiting[0]])
    return ""


def table_text(
    look: Look, table: Table, notice: str | None = None, view: TableView | None = None
) -> str:
    t = look.t
    state = table.game
    view = view or table_view(state)
    seated = names(state, table)
    if view.cards == 1:
        head = t("🧙 Round {round} of {rounds} · 1 card", round=view.round, rounds=view.rounds)
    else:
        head = t(
            "🧙 Round {round} of {rounds} · {cards} cards",
            round=view.round,
            rounds=view.rounds,
            cards=view.cards,
        )
    lines = [head, trump_line(look, view, seated)]
    rules = []
    if view.bid_mode is not BidMode.OPEN:
        rules.append(t("hidden bids") if view.bid_mode is BidMode.HIDDEN else t("secret bids"))
    if view.notequal:
        rules.append(t("notequal"))
    if view.foresight:
        rules.append(t("foresight"))
    if rules:
        lines.append(" · ".join(rules))
    lines += ["", t("points (if the round ended now) · tricks won/bid")]
    dealer_word = t("dealer")
    for seat in view.seats:
        mark = "▶️" if seat.to_act else "▫️"
        away = " 💤" if seat.player in table.away else ""
        dealer = f" ({dealer_word})" if seat.dealer else ""
        lines.append(f"{mark} {seated[seat.seat]}{dealer}{away}: {seat.standing()}")
    lines.append("")
    if view.trick:
        count = len(seated)
        played = " · ".join(
            f"{seated[(view.trick_leader + index) % count]} {look.card(card)}"
            for index, card in enumerate(view.trick)
        )
        lines.append(t("Trick: {cards}", cards=played))
    if view.tricks:
        lines.append(last_trick(look, view.tricks[-1], seated))
    text = status(look, view, seated)
    if text:
        lines.append(text)
    if notice:
        lines += ["", notice]
    return "\n".join(lines)


def trump_line(look: Look, view: TableView, seated: Sequence[str]) -> str:
    t = look.t
    card = look.card(view.trump_card)
    if view.phase is Phase.TRUMP:
        return t(
            "Trump: {card} turned up, {name} (dealer) chooses", card=card, name=seated[view.dealer]
        )
    if view.trump_card == WIZARD:
        return t(
            "Trump: {suit} ({card} turned up, chosen by {name})",
            suit=look.suit(view.trump),
            card=card,
            name=seated[view.dealer],
        )
    if view.trump_card is None:
        return t("Trump: none (no card left to turn up)")
    return t("Trump: {suit} ({card} turned up)", suit=look.suit(view.trump), card=card)


def last_trick(look: Look, trick: Trick, seated: Sequence[str]) -> str:
    """`Last trick: Ann 🟥7 · Bob 🧙 · Cid 🟥2 → Bob`."""
    return look.t(
        "Last trick: {cards} → {name}",
        cards=trick_cards(look, trick, seated),
        name=seated[trick.winner],
    )


def trick_cards(look: Look, trick: Trick, seated: Sequence[str]) -> str:
    """A trick's cards with who played each: `Ann 🟥7 · Bob 🧙 · Cid 🟥2`."""
    count = len(seated)
    return " · ".join(
        f"{seated[(trick.leader + index) % count]} {look.card(card)}"
        for index, card in enumerate(trick.cards)
    )


def table_message(
    look: Look,
    table: Table,
    new: bool,
    notice: str | None = None,
    view: TableView | None = None,
) -> Message:
    """The group's table; open bids are made with its buttons."""
    state = table.game
    buttons: tuple[tuple[Button, ...], ...] = ()
    rnd = state.round
    if state.phase is Phase.BIDDING and rnd is not None and rnd.rules.bids is BidMode.OPEN:
        seat = rnd.turn
        bids = legal_bids(state, seat)
        buttons = bid_buttons(table, bids)
    text = table_text(look, table, notice, view)
    return Message(text, buttons=buttons, slot="table", notify=new)


def bid_buttons(table: Table, bids: Sequence[int]) -> tuple[tuple[Button, ...], ...]:
    payloads = [
        Button(str(bid), tokens.make(table.game_id, table.game, Action.BID, str(bid)))
        for bid in bids
    ]
    return tuple(tuple(payloads[i : i + BID_ROW]) for i in range(0, len(payloads), BID_ROW))


# --- a player's hand --------------------------------------------------------------------------


def hand_text(look: Look, table: Table, view: PlayerView) -> str:
    t = look.t
    state = table.game
    seated = names(state, table)
    tv = view.table
    lines = [
        t(
            "Round {round} of {rounds} · trump: {suit}",
            round=tv.round,
            rounds=tv.rounds,
            suit=look.suit(tv.trump),
        )
    ]
    if view.others:
        seen = ", ".join(
            f"{seated[seat]} {look.card(card)}"
            for seat, card in enumerate(view.others)
            if card is not None
        )
        lines.append(t("Foresight: you cannot see your card. The others hold: {cards}", cards=seen))
    elif view.hand:
        lines.append(t("Your hand: {cards}", cards=cards_line(view.hand, look.theme)))
    if view.bid is not None:
        mine = tv.seats[view.seat]
        lines.append(t("Your bid: {bid} · tricks won: {won}", bid=view.bid, won=mine.won))
    if view.mark is not None:
        lines.append(t("🪽 Marked to play by itself: {card}", card=look.card(view.mark)))
    if view.player in table.away:
        lines.append(t("💤 The AI is playing for you. Press Resume to play yourself."))
    if view.choose_trump:
        lines.append(t("A Wizard was turned up: you are the dealer, choose the trump suit."))
    elif view.legal_bids:
        lines.append(
            t("Your bid? ({low} to {high})", low=view.legal_bids[0], high=view.legal_bids[-1])
        )
        if tv.forbidden_bid is not None or (tv.notequal and len(view.legal_bids) <= tv.cards):
            missing = sorted(set(range(tv.cards + 1)) - set(view.legal_bids))
            if missing:
                lines.append(t("notequal: you may not bid {bid}.", bid=missing[0]))
    elif view.legal_cards or view.play_unseen:
        lines.append(t("Your turn: play a card."))
    return "\n".join(lines)


def hand_message(
    look: Look, table: Table, seat: int, notify: bool, shared: TableView | None = None
) -> Message:
    state = table.game
    view = player_view(state, seat, shared)
    gid = table.game_id
    rows: list[tuple[Button, ...]] = []
    t = look.t
    if view.choose_trump:
        rows.append(
            tuple(
                Button(look.suit(suit), tokens.make(gid, state, Action.TRUMP, suit.value))
                for suit in Suit
            )
        )
    elif view.legal_bids and view.table.bid_mode is not BidMode.OPEN:
        rows.extend(bid_buttons(table, view.legal_bids))
    elif view.play_unseen:
        rows.append((Button(t("Play your unseen card"), tokens.make(gid, state, Action.PLAY, "")),))
    elif view.legal_cards:
        cards = [
            Button(look.card(card), tokens.make(gid, state, Action.PLAY, card))
            for card in view.legal_cards
        ]
        rows.extend(tuple(cards[i : i + ROW]) for i in range(0, len(cards), ROW))
    elif (
        state.options.wings
        and view.hand
        and state.phase in (Phase.BIDDING, Phase.PLAYING, Phase.TRUMP)
    ):
        marks = [
            Button(f"🪽{look.card(card)}", tokens.for_round(gid, state, Action.WINGS, card))
            for card in dict.fromkeys(view.hand)
        ]
        rows.extend(tuple(marks[i : i + ROW]) for i in range(0, len(marks), ROW))
        if view.mark is not None:
            rows.append(
                (Button(t("Clear the mark"), tokens.for_round(gid, state, Action.WINGS, "")),)
            )
    if view.player in table.away:
        rows.append((Button(t("Resume"), tokens.lobby(gid, Action.RESUME)),))
    return Message(
        hand_text(look, table, view),
        to=view.player,
        buttons=tuple(rows),
        slot="hand",
        notify=notify,
    )


# --- round and game ends ------------------------------------------------------------------------


def round_summary(look: Look, table: Table, row: ScoreRow) -> Message:
    t = look.t
    seated = names(table.game, table)
    lines = [t("Round {round} is over.", round=row.round)]
    result = table.game.results[row.round - 1]
    if result.tricks:
        lines.append(last_trick(look, result.tricks[-1], seated))
    lines.append("")
    for seat, name in enumerate(seated):
        made = "✅" if row.bids[seat] == row.won[seat] else "❌"
        lines.append(
            f"{made} {name}: {row.won[seat]}/{row.bids[seat]} "
            f"{row.points[seat]:+d} → {row.totals[seat]}"
        )
    return Message("\n".join(lines))


def game_over(look: Look, table: Table) -> Message:
    t = look.t
    state = table.game
    seated = names(state, table)
    ranks = places(state.totals)
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    lines = [t("🏁 The game is over."), ""]
    for seat in sorted(range(len(seated)), key=lambda seat: (ranks[seat], seat)):
        medal = medals.get(ranks[seat], f"{ranks[seat]}.")
        lines.append(f"{medal} {seated[seat]}: {state.totals[seat]}")
    winners = [seated[seat] for seat in range(len(seated)) if ranks[seat] == 1]
    lines.append("")
    if len(winners) == 1:
        lines.append(t("{name} wins!", name=winners[0]))
    else:
        lines.append(t("{names} share first place!", names=", ".join(winners)))
    buttons = ((Button(t("Play again"), tokens.lobby(table.game_id, Action.AGAIN)),),)
    return Message("\n".join(lines), buttons=buttons)


def sheet(look: Look, table: Table) -> Message:
    t = look.t
    state = table.game
    view = table_view(state)
    if not view.sheet:
        return Message(t("No round has been played yet."))
    words = {
        "Rnd": t("Rnd"),
        "Cards": t("Cards"),
        "Rd": t("Rd"),
        "Cd": t("Cd"),
        "w/b": t("w/b"),
        "pts": t("pts"),
        "tot": t("tot"),
    }
    text = score_sheet(names(state, table), view.sheet, width=60, words=words)
    return Message(t("Score sheet (w/b: tricks won/bid)") + "\n\n" + text, pre=True)


def refusal(look: Look, code: ErrorCode) -> str:
    return error_text(look.t, code)


def rules_text(look: Look, options: Options | None) -> str:
    t = look.t
    lines = [
        t("📜 Wizard in short"),
        t("60 cards: four suits 1–13, 4 Wizards (highest), 4 Jesters (lowest)."),
        t("Round r deals r cards; the next card turned up sets trump."),
        t("A Jester turned up: no trump. A Wizard: the dealer chooses the trump suit."),
        t("Everyone bids how many tricks they will take."),
        t("Follow the lead suit if you can; a Wizard or a Jester may always be played."),
        t("The first Wizard wins a trick, else the highest trump, else the highest lead card."),
        t("Bid met: 20 points + 10 per trick. Missed: −10 per trick too many or too few."),
    ]
    if options is not None:
        lines += ["", t("This table: {options}", options=options_line(look, options))]
    return "\n".join(lines)
