"""Reading a game's chats as a player does: the checks a whole game's transcripts must pass on
every platform (the private chat is the player's console; nothing invites a press it would
refuse; every round's end is shown).

Platform-neutral: each front end's test gives the texts and button labels its fake shows, in
the default look (English, the colour deck, whose faces are parsed back into cards here).
"""

import re
from collections.abc import Iterable, Sequence

from bot.show.themes import SUIT_FACES, Theme, parse_card_text
from engine.cards import JESTER, SUIT_OF, WIZARD, Card

Labels = Sequence[Sequence[str]]

_FACE_OF_SUIT = {face: suit for suit, face in SUIT_FACES[Theme.COLOURS].items()}
_FOLLOW = re.compile(r"follow (\S+) \w+ if you can\.")
_BID = re.compile(
    r"Your bid\? (?:How many tricks will you take \((\d+) to (\d+)\)\?|\(only (\d+) is allowed\)|"
    r"Only (\d+) is allowed)"
    r"|Your bid of \d+ makes the bids add up to \d+: "
    r"bid (?:another \((\d+) to (\d+)\)|(\d+) instead)"
)
_FORBIDDEN = re.compile(r"Not (\d+): the bids may not add up|Your bid of (\d+) makes the bids")
_ASIDE = ("🪽", "💤", "⏸")
"""The marks of a hand's lines that are no part of its question (a wings mark, the AI playing
for them, a pause)."""


def cards_of(text: str) -> list[Card]:
    """The cards named by faces in `text` (`🔺13 ⭐4 🧙`)."""
    found = (parse_card_text(face, Theme.COLOURS) for face in text.split())
    return [card for card in found if card is not None]


def _line(text: str, start: str) -> str | None:
    return next((line for line in text.splitlines() if line.startswith(start)), None)


def check_turn(text: str, labels: Labels) -> None:
    """A message that asks its player to act holds all they need: trump (its first line), every
    player's tricks won/bid (or the bids so far), and for a card the trick so far or that they
    lead, with who is winning it and the suit to follow; its buttons are exactly the legal
    choices, in rows as even as can be (a card or a bid alone under a full row is stretched
    over the row's width, as if it meant something else)."""
    flat = [label for row in labels for label in row]
    assert " · trump: " in text.splitlines()[0], text
    choices = [
        len(row)
        for row in labels
        if row and all(label.isdigit() or parse_card_text(label, Theme.COLOURS) for label in row)
    ]
    assert not choices or max(choices) - min(choices) <= 1, f"rows {labels}:\n{text}"
    asked = _BID.search(text)
    if asked is not None:
        numbers = sorted(int(label) for label in flat if label.isdigit())
        assert numbers, f"a bid asked for without bid buttons:\n{text}"
        # One line says it all: the question, and why a bid is barred (notequal) or the one
        # made must change; nothing after the hand says it again, nor the bid to change.
        lines = text.splitlines()
        hand = next(i for i, line in enumerate(lines) if line.startswith(("Your hand", "Fore")))
        after = [line for line in lines[hand + 1 :] if not line.startswith(_ASIDE)]
        assert len(after) == 1, text
        assert _BID.match(after[0]), text
        found = _FORBIDDEN.search(text)
        forbidden = None if found is None else int(found.group(1) or found.group(2))
        allowed = set(range(numbers[0], numbers[-1] + 1))
        if forbidden is not None:
            assert forbidden not in numbers, text
            allowed.discard(forbidden)
        assert set(numbers) == allowed, text
        assert numbers[0] == 0, text
        got = asked.groups()
        low, high, only = got[0] or got[4], got[1] or got[5], got[2] or got[3] or got[6]
        if only is not None:  # one bid left: no range "from 0 to 0"
            assert numbers == [int(only)], text
        else:
            assert (int(low), int(high)) == (numbers[0], numbers[-1]), text
            assert low != high, text
        return
    if "Your turn: play a card." not in text:
        return
    assert _line(text, "Tricks won/bid: ") is not None, text
    hand_line = _line(text, "Your hand: ")
    assert hand_line is not None, text
    hand = cards_of(hand_line.removeprefix("Your hand: "))
    buttons = [card for label in flat if (card := parse_card_text(label, Theme.COLOURS))]
    assert buttons, f"a card asked for without card buttons:\n{text}"
    assert set(buttons) <= set(hand), text
    if "You lead this trick." in text or "any suit may follow" in text:
        assert sorted(buttons) == sorted(hand), f"a free choice, yet not every card:\n{text}"
        return
    assert _line(text, "Trick: ") is not None, f"the trick so far is not shown:\n{text}"
    assert " is winning it; " in text, text
    follow = _FOLLOW.search(text)
    assert follow is not None, text
    suit = _FACE_OF_SUIT[follow.group(1)]
    legal = [c for c in hand if c in (WIZARD, JESTER) or SUIT_OF[c] == suit]
    if not any(SUIT_OF[c] == suit for c in hand):
        legal = list(hand)
    assert sorted(buttons) == sorted(legal), f"buttons {buttons}, legal {legal}:\n{text}"


def check_no_stale_buttons(chat: str, shown: Iterable[tuple[str, Labels]]) -> None:
    """Once the game is over, a chat's messages offer no button but Play again (the group's
    end of the game and each player's result): nothing superseded keeps one."""
    for text, labels in shown:
        flat = [label for row in labels for label in row]
        assert flat in ([], ["Play again"]), f"{chat} still offers {flat}:\n{text}"


def check_buttons_last(chat: str, shown: Sequence[tuple[str, Labels]]) -> None:
    """In a private chat, oldest message first: the message with buttons (the hand that asks
    for a bid or a card, the game's result with Play again) is the newest, so every press is
    made from the foot of the chat; nothing (a hint, a round's review) comes below it, to
    scroll up past to press."""
    pressed = [index for index, (_text, labels) in enumerate(shown) if any(labels)]
    if pressed:
        below = [text for text, _labels in shown[pressed[-1] + 1 :]]
        assert not below, f"{chat}: below the buttons of\n{shown[pressed[-1]][0]}\ncame {below}"


def check_one_with_buttons(chat: str, shown: Sequence[tuple[str, Labels]]) -> None:
    """In a private chat, oldest message first: one message at most offers buttons (the
    newest hand, or the result with Play again), so a player never sees two live copies of
    the same decision; a hand or result posted again leaves the one above without them."""
    pressed = [text for text, labels in shown if any(labels)]
    assert len(pressed) <= 1, f"{chat}: {len(pressed)} messages offer buttons:\n" + "\n--\n".join(
        pressed
    )


ASKS = (
    "Your turn: play a card.",
    "Your bid?",
    "choose the trump suit",
    "🪽 Mark a card",
    "🪽 Marked to play by itself",
    "Press Resume",
)
"""What a hand message says while it asks its player to act, or to press one of its buttons
(a wings mark, Resume)."""


def check_no_stale_asks(chat: str, texts: Iterable[str]) -> None:
    """Once the game is over, no message a chat still shows asks for a move: a turn that is
    gone does not read as still to come."""
    for text in texts:
        assert not any(ask in text for ask in ASKS), f"{chat} still asks for a move:\n{text}"


def check_round_ends(group_texts: Sequence[str], rounds: int) -> None:
    """Every round's end reached the group: a summary per round, the last one on the final
    table."""
    for number in range(1, rounds):
        assert any(f"Round {number} is over." in t for t in group_texts), number
    final = f"🏁 Final table · round {rounds} of {rounds}"
    assert any(final in t for t in group_texts), final
