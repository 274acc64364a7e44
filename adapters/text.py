"""Text that comes from a platform (a person's name, a chat's title, a command's argument), made
safe once, as it comes in: lone surrogates replaced, control characters (newlines among them)
made spaces, invisible characters dropped (the bidirectional overrides that would turn the text
around among them, but not the joiners that emoji and some scripts need), runs of space made
one, a letter's combining marks cut to a few, and its length bounded."""

import io
import unicodedata
from typing import TextIO

from bot.commands import MAX_ARGUMENT
from bot.show.clusters import JOINERS, head, shortened
from bot.show.emoji import TAGS
from bot.show.seating import MARKS, dealer_marks

NAME_LIMIT = 32
"""Characters of a person's name at the table."""
TITLE_LIMIT = 64
"""Characters of a chat's title in a message."""
ARG_LIMIT = MAX_ARGUMENT
"""Characters of a command's argument (no argument of ours is longer)."""

REPLACEMENT = "\ufffd"
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Embeddings, overrides and isolates: they would reorder the text around a name."""


def clean(text: str | None, limit: int) -> str:
    """`text` made safe to show and to store: one line of at most `limit` characters."""
    if not text:
        return ""
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category == "Cs":
            kept.append(REPLACEMENT)
        elif category == "Cc" or char.isspace():
            kept.append(" ")
        elif char.isprintable() or char in JOINERS or char in TAGS:
            kept.append(char)  # (the last: tag characters, which spell out emoji flags)
    text = _few_marks(" ".join("".join(kept).split()))
    return head(text, limit).strip()  # no half an emoji, no letter without its accent


MARKS_A_LETTER = 4
"""Combining marks kept on one letter: as many as a written language stacks (a Hebrew letter's
point, vowel and cantillation; a keycap's selector and frame), not the hundreds that smear over
the lines above and below ("Zalgo" text)."""


def _few_marks(text: str) -> str:
    """`text` with each run of combining marks cut to `MARKS_A_LETTER`."""
    kept, run = [], 0
    for char in text:
        run = run + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if run <= MARKS_A_LETTER:
            kept.append(char)
    return "".join(kept)


BLANKS = frozenset("\u115f\u1160\u2800\u3164\uffa0")
"""Letters that draw nothing: the Hangul fillers and the blank Braille pattern."""


NOT_AT_THE_ENDS = "".join(MARKS) + "\ufe0f "
"""What a person's name loses at its ends: the marks the table puts beside names (with the
emoji variation selector), so that a person called "🤖 Merlin" does not pass for an AI seat."""


COMBINING = ("Mn", "Mc", "Me")
"""The categories of combining marks: an accent, a vowel sign, a mark that encloses (U+0489,
U+20DD). Each sits on the character before it."""


def clean_name(text: str | None) -> str:
    """A person's name made safe (`clean`, NAME_LIMIT characters, a longer one cut with `…`:
    cut bare, "Maximilian-Alexander Schwarzenbe" read as a surname of its own), without the
    table's marks at its ends nor a combining mark at its start (it sat on what the line had
    before the name: `3. ́Ann`); "" if nothing of it shows (only joiners, fillers, blanks,
    combining marks): the caller then names them by their id. A name of enclosing marks alone
    (U+0489) passed for one that shows, and the table showed them stacked on the seat's
    number."""
    name = shortened(clean(text, 4 * NAME_LIMIT), NAME_LIMIT, len)
    while (bare := _unmarked(_unled(name))) != name:  # a mark may hide a seat mark behind it
        name = bare
    shows = any(
        char not in BLANKS and unicodedata.category(char) not in ("Cf", "Zs", *COMBINING)
        for char in name
    )
    return name if shows else ""


def _unled(name: str) -> str:
    """`name` without the combining marks it starts with."""
    start = 0
    while start < len(name) and unicodedata.category(name[start]) in COMBINING:
        start += 1
    return name[start:]


def _unmarked(name: str) -> str:
    """`name` without the table's marks at its ends, however many: the seat marks at either
    end, the dealer's `(dealer)` (in any language, in any case) at the end."""
    while True:
        name = name.strip(NOT_AT_THE_ENDS)
        end = next((len(m) for m in dealer_marks() if name[-len(m) :].casefold() == m), 0)
        if not end:
            return name
        name = name[:-end]


def shown(text: str) -> str:
    """`text` as one line that any terminal prints: control characters, lone surrogates and
    bidirectional controls written as escapes (`\\n`, `\\ud800`), the rest as it is. For text
    that is reported rather than played with (a file name, a name in a record being checked)."""
    return "".join(
        char.encode("unicode_escape").decode("ascii")
        if unicodedata.category(char) in ("Cc", "Cs") or char in BIDI_CONTROLS
        else char
        for char in text
    )


def tolerant(stream: TextIO) -> None:
    """Let `stream` print what its encoding cannot (cards, marks) as `?` rather than fail: a
    terminal or pipe that is not UTF-8."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    if encoding != "utf8" and isinstance(stream, io.TextIOWrapper):
        stream.reconfigure(errors="replace")
