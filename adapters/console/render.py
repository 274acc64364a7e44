"""The terminal layout: the service's texts as they are, framed, with the decisions on offer as
a numbered list and a prompt that says what to type. Everything here is plain text, the same
on every run of the same game (no times, no ids), so a session can be compared line by line."""

import re

from adapters.console.reader import Ask, Choices, bid_span, card_example, span
from bot import Message
from bot.show.formatters import text_width
from bot.show.i18n import Texts
from bot.show.themes import Theme, card_name
from engine import Card

RULE_WIDTH = 48
ROUND_RULE = "═"
TURN_RULE = "─"


NARROWEST = 20
"""A terminal narrower than this (columns) gets its lines whole: too few words would fit."""
_SPACES = re.compile(r"( +)")
_COLUMN = re.compile(r"\S {2,}(?=\S)")


def wrapped(text: str, width: int | None) -> str:
    """`text` for a terminal `width` columns wide (None: a pipe or a file, as it is): each
    line wider broken at its spaces, never inside a word, where the terminal would cut it at
    its last column, nor after a mark of no letter or digit (`🤖`, `→`, `·`, `✗`) or a
    choice's number (`3)`), which stays with the word after it. The rest of a line is indented
    under its second column (the help's descriptions, a list's second item) where it has one
    in the first half of the width, else as the line is, and two spaces in for a line that is
    not indented."""
    if width is None or width < NARROWEST:
        return text
    return "\n".join(piece for line in text.split("\n") for piece in _wrap_line(line, width))


_NUMBERED = re.compile(r"\d+\)")


def _glued(text: str) -> bool:
    """Whether `text` ends in a mark (no letter or digit) or a choice's number (`3)`), kept
    with the word after it."""
    last = text.rsplit(" ", 1)[-1]
    return _NUMBERED.fullmatch(last) is not None or not any(char.isalnum() for char in last)


def _wrap_line(line: str, width: int) -> list[str]:
    if text_width(line) <= width:
        return [line]
    indent = len(line) - len(line.lstrip(" "))
    column = _COLUMN.search(line)
    second = None if column is None else text_width(line[: column.end()])
    hang = second if second is not None and second <= width // 2 else indent or 2
    parts = _SPACES.split(line[indent:])  # words, and the spaces between them
    units: list[tuple[str, str]] = []  # what may start a line, and the spaces before it
    for space, word in zip(["", *parts[1::2]], parts[0::2], strict=True):
        if units and _glued(units[-1][1]):
            units[-1] = (units[-1][0], units[-1][1] + space + word)
        else:
            units.append((space, word))
    lines: list[str] = []
    current = line[:indent] + units[0][1]
    for space, unit in units[1:]:
        if text_width(current + space + unit) > width:
            lines.append(current)
            current = " " * hang + unit
        else:
            current += space + unit
    lines.append(current)
    return lines


def rule(char: str = TURN_RULE) -> str:
    return char * RULE_WIDTH


def message_block(message: Message) -> str:
    """A message's text; a monospace one (the score sheet) indented as a block; a picture as
    its text form (a terminal shows no pictures)."""
    if message.pre:
        return "\n".join(f"  {line}".rstrip() for line in message.text.splitlines())
    if message.picture is not None:
        sheet = "\n".join(f"  {line}".rstrip() for line in message.picture.text().splitlines())
        return f"{message.text}\n\n{sheet}"
    return message.text


def round_end(message: Message) -> str:
    """A round summary or the end of the game, under a double rule so that it stands out."""
    return "\n".join([rule(ROUND_RULE), message_block(message)])


def hand_block(message: Message, table: str | None) -> str:
    """The person's hand. Right under the table (`table`, the text just printed) its first
    line, the round and trump the table has just shown, is left out, and so is each line the
    table has word for word (the trick, the last trick)."""
    text = message.text
    if table is None or "\n" not in text:
        return text
    above = set(table.splitlines())
    return "\n".join(line for line in text.splitlines()[1:] if line not in above)


def choice_list(choices: Choices) -> str:
    """The decisions on offer, numbered, as one or more lines: `  1) 🟦11   2) 🟦8   3) 🃏`.
    Bids need no numbers (one types the bid itself): none are listed."""
    if choices.ask in (Ask.NOTHING, Ask.BID):
        return ""
    items = [f"{index}) {choice.label}" for index, choice in enumerate(choices.items, start=1)]
    lines: list[str] = []
    line = ""
    for item in items:
        if line and text_width(line) + 3 + text_width(item) > RULE_WIDTH + 12:
            lines.append(line)
            line = ""
        line = f"{line}   {item}" if line else f"  {item}"
    lines.append(line)
    return "\n".join(lines)


def prompt(choices: Choices, t: Texts) -> str:
    """What to type, ending in an angle quote and a space (input follows on the same line)."""
    count = len(choices.items)
    if choices.ask is Ask.BID:
        return t("Bid ({bids}) › ", bids=bid_span(choices, t))
    if choices.ask is Ask.CARD:
        if count == 1 and not choices.items[0].arg:
            return t("Your unseen card (1) › ")
        return t(
            "Card ({span}, or a card like {example}) › ",
            span=span(1, count, t),
            example=card_example(choices),
        )
    if choices.ask is Ask.TRUMP:
        letters = ", ".join(choice.arg for choice in choices.items)
        return t("Trump ({span}, or {letters}) › ", span=span(1, count, t), letters=letters)
    return "› "


def refusal(text: str) -> str:
    """A refusal or a misunderstanding, one line."""
    return f"✗ {text}"


def help_text(t: Texts, theme: Theme) -> str:
    """What one can type at the terminal table."""

    def examples(*cards: str) -> str:
        return ", ".join(f"{card} {card_name(t, Card(card), theme)}" for card in cards)

    rows = [
        (t("a bid"), t("the number of tricks you will take, e.g. 1")),
        (t("a card"), t("its number in the list (1, 2, …), or the card itself:")),
        ("", examples("B11", "G3", "R13", "Y1") + ","),
        ("", examples("W", "J")),
        (t("a trump suit"), t("its number in the list, B, G, R or Y, or its name")),
        # TRANSLATORS: the commands (scores, rules, hint, hand, quit) are typed in English.
        ("scores", t("the score sheet")),
        ("rules", t("the rules of Wizard")),
        ("hint", t("the coach's figures for your bid or card (--option coach)")),
        ("hand", t("the table and your hand again")),
        ("quit", t("stop here: wizard-bot play resumes the game")),
    ]
    width = max(text_width(label) for label, _ in rows) + 2
    lines = [t("What you can type:")]
    lines += [f"  {label}{' ' * (width - text_width(label))}{text}" for label, text in rows]
    lines += [
        "",
        t("On the table, ▶️ marks who is to act."),
    ]
    return "\n".join(lines)


def header(t: Texts, players: list[str], options: str) -> str:
    """The first lines of a new game."""
    return "\n".join(
        [
            t("🔮 Wizard: {players}", players=", ".join(players)),
            t("Options: {options}", options=options),
            t("Type help for what you can type, quit to stop (the game is saved)."),
        ]
    )
