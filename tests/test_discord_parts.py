"""The pure parts of the Discord front end: ids, texts, the button grid, custom ids."""

from dataclasses import replace

import discord
import pytest
from joined import JOINED

from adapters.discord import buttons
from adapters.discord.ids import (
    chat_key,
    discord_id,
    display_name,
    missing_permissions,
    place_name,
    user_key,
)
from adapters.discord.render import (
    MAX_CONTENT,
    MAX_LABEL,
    coalesce,
    content,
    game_id,
    hand_id,
    post,
    posts,
    pre_blocks,
    rows,
)
from bot.messages import Button, Message, Outcome

CHANNEL = 894250000000000200


def test_ids() -> None:
    assert chat_key(42) == "dc:42"
    assert user_key(7) == "dc:7"
    assert discord_id("dc:42") == 42
    assert discord_id("tg:42") is None
    assert discord_id("dc:x") is None
    assert discord_id(None) is None
    assert display_name("  Ann \n  Lee ", 1) == "Ann Lee"
    assert display_name("", 5) == "#5"
    assert len(display_name("x" * 99, 1)) == 32


def test_a_channel_is_named_by_its_name_then_its_servers() -> None:
    assert place_name("cards", "Friday Wizards") == "#cards (Friday Wizards)"
    assert place_name("cards", None) == "#cards"
    assert place_name(None, "Friday Wizards") == "Friday Wizards"
    assert place_name(None, None) is None
    assert place_name("\u202e\n", "\u2066 ") is None  # nothing of them shows
    # overrides dropped, line breaks made spaces, cut to 64 characters in all
    hostile = place_name("ca\u202erds\nroom", "\u202eFriday" + " Wizards" * 20)
    assert hostile is not None
    assert hostile.startswith("#cards room (Friday Wizards Wizards")
    assert len(hostile) <= 64
    assert "\u202e" not in hostile


def test_texts_are_escaped_cut_and_laid_out() -> None:
    assert content("*Bob* _x_") == "\\*Bob\\* \\_x\\_"
    assert len(content("y" * 5000)) == MAX_CONTENT
    sheet = content("Rnd | A\n  1 | 20", pre=True)
    assert sheet.startswith("```\n")
    assert sheet.endswith("\n```")
    assert len(content("z" * 5000, pre=True)) <= MAX_CONTENT


@pytest.mark.parametrize("joined", JOINED.values(), ids=list(JOINED))
def test_a_text_cut_to_fit_keeps_each_character_whole(joined: str) -> None:
    """A message's content, a code block's line, a button's label: cut where a character that
    is written with several (a joined emoji, a flag, a skin tone, a keycap, an accented letter)
    ends, never inside it."""
    fill = "a" * (MAX_CONTENT - 2)
    assert content(fill + joined * 2) == fill + "…"
    assert content(fill[:-8] + joined * 2, pre=True) == f"```\n{fill[:-8]}\n```"
    assert pre_blocks(fill[:-7] + joined) == [f"```\n{fill[:-7]}\n```"]
    label = "x" * (MAX_LABEL - 1)
    grid = rows(CHANNEL, Message("?", buttons=((Button(label + joined, "g1.20b0.b1"),),)))
    assert grid[0][0].label == label


def test_a_cut_text_keeps_its_mentions_whole() -> None:
    """A mention the cut would fall in goes whole: no `<@1234` left as text."""
    fill = "a" * (MAX_CONTENT - 10)
    shown = content(fill + " Ann", mentions={"Ann": 123456789012345678})
    assert shown == fill + "…"


def test_the_grid_holds_five_rows_of_five() -> None:
    bids = tuple(Button(str(n), f"g1.20b0.b{n}") for n in range(21))
    message = Message("bids", buttons=(bids[:6], bids[6:12], bids[12:18], bids[18:]))
    grid = rows(CHANNEL, message)
    assert [len(row) for row in grid] == [5, 4, 4, 4, 4]  # none alone on a row
    assert [key.label for row in grid for key in row] == [str(n) for n in range(21)]
    cards = tuple(Button(f"c{n}", f"g1.20-0.pR{n}") for n in range(20))
    hand = Message("hand", buttons=tuple(cards[i : i + 4] for i in range(0, 20, 4)))
    assert [len(row) for row in rows(CHANNEL, hand)] == [4, 4, 4, 4, 4]


def test_bids_are_laid_at_most_five_to_a_row_in_even_rows() -> None:
    """The bids come six to a row (Telegram's grid); Discord's five split each row, so a round
    of 6 cards showed [0-4] [5] [6] and one of 12 [0-4] [5] [6-11 less one] [12]: a lone
    button on a row, as if it meant something else. The bids are laid at most five to a row,
    in rows as even as can be (a round of 5 cards showed [0-4] [5] still); the rows of
    something else under them (a hint) stay rows of their own."""
    bids = [Button(str(n), f"g1.6b0.b{n}") for n in range(7)]
    hint = (Button("💡 Hint", "g1.6b0.i"),)
    grid = rows(CHANNEL, Message("bids", buttons=(tuple(bids[:6]), tuple(bids[6:]), hint)))
    assert [[key.label for key in row] for row in grid] == [
        ["0", "1", "2", "3"],
        ["4", "5", "6"],
        ["💡 Hint"],
    ]
    twelve = [Button(str(n), f"g1.6b0.b{n}") for n in range(13) if n != 7]
    grid = rows(CHANNEL, Message("bids", buttons=(tuple(twelve[:6]), tuple(twelve[6:]))))
    assert [len(row) for row in grid] == [4, 4, 4]
    six = tuple(Button(str(n), f"g1.5b0.b{n}") for n in range(6))  # a round of 5 cards
    grid = rows(CHANNEL, Message("bids", buttons=(six,)))
    assert [[key.label for key in row] for row in grid] == [["0", "1", "2"], ["3", "4", "5"]]


def test_custom_ids_fit_and_parse() -> None:
    payload = "a" * 64
    longest = game_id(99999999999999999999, payload)
    assert len(longest) <= 100
    assert buttons.ours(longest)
    assert buttons.ours(hand_id(CHANNEL))
    assert not buttons.ours("other:thing")
    assert not buttons.ours(f"wz:{CHANNEL}:" + "a" * 65)


def test_where_messages_go() -> None:
    chat = chat_key(CHANNEL)
    to_channel = post(chat, Message("hi", slot="table"))
    assert to_channel is not None
    assert to_channel.user is None
    assert to_channel.target == f"c{CHANNEL}"
    assert to_channel.slot == f"{chat}:table"
    private = post(chat, Message("cards", to="dc:5", slot="hand"))
    assert private is not None
    assert private.user == 5
    assert private.target == "u5"
    assert post(chat, Message("x", to="tg:5")) is None


def test_the_people_a_message_names_are_mentioned_and_no_one_else() -> None:
    message = Message(
        "⏳ Ann, Anna_B, Zed: it is your turn (45 s left).",
        mentions=(("dc:11", "Ann"), ("dc:12", "Anna_B"), ("tg:13", "Zed")),
    )
    shown = post(f"dc:{CHANNEL}", message)
    assert shown is not None
    assert shown.text == "⏳ <@11>, <@12>, Zed: it is your turn (45 s left)."
    assert shown.mentions == (11, 12)
    assert post(f"dc:{CHANNEL}", Message("Round 2")).mentions == ()  # type: ignore[union-attr]


def test_a_name_is_shown_as_written_never_as_a_mention_a_channel_or_a_time() -> None:
    assert content("1. <@42> 👑\n2. <#7>, <t:0:R>, </join:9>") == (
        "1. \\<@42> 👑\n2. \\<#7>, \\<t:0:R>, \\</join:9>"
    )
    message = Message("⏳ <@42>, Bob: it is your turn.", mentions=(("dc:11", "<@42>"),))
    shown = post(f"dc:{CHANNEL}", message)
    assert shown is not None
    assert shown.text == "⏳ <@11>, Bob: it is your turn."


def test_a_name_inside_a_mention_already_put_in_is_left_alone() -> None:
    """A player named "1" (or "00") is not looked for inside the `<@id>` of the others."""
    ann, one, cid = 100000000000000018, 11, 100000000000000020
    message = Message(
        "⏳ Ann, 1, Cid, 00: it is your turn (45 s left).",
        mentions=((f"dc:{ann}", "Ann"), ("dc:11", "1"), (f"dc:{cid}", "Cid"), ("dc:12", "00")),
    )
    shown = post(f"dc:{CHANNEL}", message)
    assert shown is not None
    assert shown.text == f"⏳ <@{ann}>, <@{one}>, <@{cid}>, <@12>: it is your turn (45 s left)."


def test_slot_posts_carry_the_games_version_and_the_newest_wins() -> None:
    outcome = Outcome((Message("table v7", slot="table"), Message("note")), version=("g1", 7))
    table, note = posts(f"dc:{CHANNEL}", outcome)
    assert table.version == ("g1", 7)
    assert note.version is None  # not a slot: always shown
    older = replace(table, text="table v6", version=("g1", 6), notify=True)
    assert coalesce(table, older).text == "table v7"  # queued late, still not shown over v7
    assert coalesce(table, older).notify
    assert coalesce(older, table).text == "table v7"


def test_the_permissions_a_table_needs_in_a_channel_and_in_a_thread() -> None:
    invited = discord.Permissions(274877942784)  # the invite's (docs/discord.md)
    assert missing_permissions(invited, thread=False) == []
    assert missing_permissions(invited, thread=True) == []
    posts_here = discord.Permissions(view_channel=True, send_messages=True, attach_files=True)
    assert missing_permissions(posts_here, thread=False) == []
    assert missing_permissions(posts_here, thread=True) == ["Send Messages in Threads"]
    # What hangs on a permission missing is not named: only what an admin must give back.
    assert missing_permissions(discord.Permissions.none(), thread=False) == ["View Channel"]
    silenced = discord.Permissions(view_channel=True)  # Discord's and discord.py's: no files
    assert missing_permissions(silenced, thread=False) == ["Send Messages"]
    assert missing_permissions(silenced, thread=True) == ["Send Messages in Threads"]
    no_files = discord.Permissions(view_channel=True, send_messages=True)
    assert missing_permissions(no_files, thread=False) == ["Attach Files"]


def test_text_in_columns_too_long_for_a_message_is_split_between_lines() -> None:
    """Each block is a whole code block within Discord's limit, no line is split, and the
    blocks hold the text as it was, in order; text that fits is one block."""
    lines = [f"{number:>3} " + "x" * 76 for number in range(60)]  # 80 characters a line
    blocks = pre_blocks("\n".join(lines))
    assert len(blocks) == 3
    assert all(len(block) <= MAX_CONTENT for block in blocks)
    assert all(block.startswith("```\n") and block.endswith("\n```") for block in blocks)
    assert "\n".join(block[4:-4] for block in blocks) == "\n".join(lines)
    assert pre_blocks("a\nb") == ["```\na\nb\n```"]
