"""What a line typed at the terminal table means.

The service offers decisions as buttons (bids, cards, trump suits); the terminal shows them as a
numbered list and maps what the person types back to one of them, so a move takes the very path
a pressed chat button takes (`Request(Kind.BUTTON, payload)`). Input that names a move the
buttons do not offer (an illegal card, a bid out of range) is sent as the move itself, so that
the service's refusal says what is wrong with it.
"""

from dataclasses import dataclass
from enum import Enum

from adapters.text import shown
from bot import Kind, Message, Request, tokens
from bot.show.i18n import Texts
from bot.show.themes import Theme, parse_card_text, parse_suit_text
from bot.tokens import Action


class Ask(Enum):
    """What the table waits for from the person."""

    NOTHING = "nothing"
    BID = "bid"
    CARD = "card"
    TRUMP = "trump"


ACTIONS = {Action.BID: Ask.BID, Action.PLAY: Ask.CARD, Action.TRUMP: Ask.TRUMP}
"""Button actions (see bot.tokens) that are the person's decisions."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One offered decision: a button, with what it means."""

    arg: str
    """The bid, the card in record notation ("" for the unseen card), or the suit letter."""
    label: str
    payload: str


@dataclass(frozen=True, slots=True)
class Choices:
    ask: Ask
    items: tuple[Choice, ...] = ()


NO_CHOICES = Choices(Ask.NOTHING)


def offered(table: Message | None, hand: Message | None) -> Choices:
    """The decisions on offer: the buttons of the person's hand (trump, hidden bids, cards),
    else the bid buttons of the table (open bids are made on the group's table)."""
    for message in (hand, table):
        if message is None:
            continue
        items: list[Choice] = []
        ask = Ask.NOTHING
        for row in message.buttons:
            for button in row:
                try:
                    token = tokens.decode(button.payload)
                except tokens.TokenError:
                    continue
                kind = ACTIONS.get(token.action)
                if kind is None or (message is table and kind is not Ask.BID):
                    continue
                if ask is Ask.NOTHING:
                    ask = kind
                if kind is ask:
                    items.append(Choice(token.arg, button.label, button.payload))
        if items:
            return Choices(ask, tuple(items))
    return NO_CHOICES


# --- what a line means ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Press:
    """Press the button with this payload."""

    payload: str


@dataclass(frozen=True, slots=True)
class Send:
    """Send this request (a move the buttons do not offer: the service says why not)."""

    request: Request


@dataclass(frozen=True, slots=True)
class Command:
    """A terminal command: scores, help, rules, show, quit."""

    name: str


@dataclass(frozen=True, slots=True)
class Problem:
    """Input that means nothing here: say so in one line and ask again."""

    text: str


Reading = Press | Send | Command | Problem

COMMANDS = {
    "scores": "scores",
    "score": "scores",
    "sheet": "scores",
    "help": "help",
    "?": "help",
    "rules": "rules",
    "hint": "hint",
    "hand": "show",
    "table": "show",
    "show": "show",
    "quit": "quit",
    "exit": "quit",
    "q": "quit",
}
"""Commands by the words that call them."""


def read(line: str, choices: Choices, t: Texts, theme: Theme) -> Reading | None:
    """What `line` asks for, given the choices on offer; None for an empty line."""
    text = line.strip()
    if not text:
        return None
    command = COMMANDS.get(text.casefold())
    if command is not None:
        return Command(command)
    if choices.ask is Ask.BID:
        return _bid(text, choices, t)
    if choices.ask is Ask.CARD:
        return _card(text, choices, t, theme)
    if choices.ask is Ask.TRUMP:
        return _trump(text, choices, t)
    return Problem(t("Nothing to choose right now: type help to see what you can type."))


ECHO = 40
"""Characters of a line typed that a refusal repeats at most."""


def _number(text: str) -> int | None:
    """The number `text` is (ASCII digits: `isdigit` alone takes "²", which `int` refuses);
    None for anything else, or more digits than any bid has."""
    digits = text[1:] if text.startswith("-") else text
    return int(text) if digits.isascii() and digits.isdigit() and len(digits) <= 6 else None


def _echo(text: str) -> str:
    """`text` as a refusal repeats it: escapes for what would drive the terminal (an escape
    sequence typed or piped in), at most ECHO characters."""
    said = shown(text)
    return said if len(said) <= ECHO else said[: ECHO - 1] + "…"


def _bid(text: str, choices: Choices, t: Texts) -> Reading:
    number = _number(text)
    if number is None:
        return Problem(
            t(
                '"{text}" is not a bid: type a number, {bids}.',
                text=_echo(text),
                bids=bid_span(choices, t),
            )
        )
    for choice in choices.items:
        if choice.arg == str(number):
            return Press(choice.payload)
    return Send(Request(Kind.BID, str(number)))


def _card(text: str, choices: Choices, t: Texts, theme: Theme) -> Reading:
    count = len(choices.items)
    number = _number(text)
    if number is not None and 1 <= number <= count:
        return Press(choices.items[number - 1].payload)
    unseen = count == 1 and not choices.items[0].arg
    if unseen and number is not None:
        return Problem(t("Type 1 to play the card you cannot see."))
    if number is not None:
        return Problem(
            t(
                "There is no card {number} in the list: type {span}, or a card like {example}.",
                number=number,
                span=span(1, count, t),
                example=card_example(choices),
            )
        )
    card = parse_card_text(text, theme)
    if card is None and unseen:
        return Problem(t("Type 1 to play the card you cannot see."))
    if card is None:
        return Problem(
            t(
                '"{text}" is not a card: type {span}, or a card like {example}.',
                text=_echo(text),
                span=span(1, count, t),
                example=card_example(choices),
            )
        )
    for choice in choices.items:
        if choice.arg == card:
            return Press(choice.payload)
    return Send(Request(Kind.PLAY, card))


def _trump(text: str, choices: Choices, t: Texts) -> Reading:
    count = len(choices.items)
    number = _number(text)
    if number is not None and 1 <= number <= count:
        return Press(choices.items[number - 1].payload)
    suit = parse_suit_text(text)
    for choice in choices.items:
        if suit is not None and choice.arg == suit.value:
            return Press(choice.payload)
    letters = ", ".join(choice.arg for choice in choices.items)
    return Problem(
        t(
            '"{text}" is not a suit: type {span}, or {letters}.',
            text=_echo(text),
            span=span(1, count, t),
            letters=letters,
        )
    )


# --- how the choices are described -----------------------------------------------------------


def span(low: int, high: int, t: Texts) -> str:
    """`1`, or `1 to 4`."""
    if low == high:
        return str(low)
    return t("{low} to {high}", low=low, high=high)


def bid_span(choices: Choices, t: Texts) -> str:
    """The bids on offer: `0 to 3`, or `0, 1 or 3` when one is left out."""
    bids = sorted(int(choice.arg) for choice in choices.items if choice.arg.isdigit())
    if not bids:
        return ""
    if bids == list(range(bids[0], bids[-1] + 1)):
        return span(bids[0], bids[-1], t)
    return t("{bids} or {last}", bids=", ".join(str(bid) for bid in bids[:-1]), last=str(bids[-1]))


def card_example(choices: Choices) -> str:
    """A card on offer in record notation (what one types), e.g. `B11`."""
    for choice in choices.items:
        if choice.arg:
            return choice.arg
    return "B11"
