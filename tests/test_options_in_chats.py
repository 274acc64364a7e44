"""The table's options as a player meets them in the chats: a Telegram game played through the
fake Bot API server (`tests/test_telegram.py`), each chat read as its person reads it."""

import pytest
from fake_telegram import User
from test_telegram import ANN, BOB, CID, GROUP, PLAYERS, Bot, game_ids, move, seat, tg

__all__ = ["game_ids", "tg"]  # the fixtures these tests use


def name(user: User) -> str:
    """The name the bot calls `user` by."""
    return " ".join(part for part in (user.first_name, user.last_name) if part)


def dealer(bot: Bot, players: tuple[User, ...] = PLAYERS) -> User:
    """The person the group's table names the dealer."""
    line = next(line for line in bot.table().text.splitlines() if "(dealer)" in line)
    return next(user for user in players if f" {name(user)} (dealer)" in line)


async def bid(bot: Bot, user: User, number: int) -> None:
    """`user` bids `number` with a button of their private hand message."""
    answer = await bot.press_label(user.id, user, bot.hand(user).message_id, str(number))
    assert not answer.show_alert, answer.text


async def test_a_dealer_told_to_change_a_hidden_bid_is_told_why_and_so_is_the_group(
    tg: Bot,
) -> None:
    """Hidden bids with notequal: when the revealed bids add up to the round's one trick, the
    dealer is asked to bid again. Their private chat and the group's table say why, not just
    whose turn it is; the private chat in one line, which says what they may bid."""
    await seat(tg)
    for option in ("bids=hidden", "notequal"):
        await tg.command(GROUP, ANN, f"/options {option}")
    await tg.command(GROUP, ANN, "/start")
    deals = dealer(tg)
    for user in PLAYERS:
        await bid(tg, user, 1 if user == deals else 0)
    why = "The bids add up to the number of tricks"
    table = tg.table().text
    assert f"{why}: {name(deals)} (dealer) must change their bid." in table, table
    hand = tg.hand(deals)
    assert hand.labels == [["0"]], hand.text
    # one line asks, and says why (not "Your bid: 1", "you must change", "only 0 is allowed"
    # and "you may not bid 1", four lines of one thing); no "(0 to 0)"
    lines = hand.text.splitlines()
    assert lines[-1] == "Your bid of 1 makes the bids add up to 1: bid 0 instead.", hand.text
    assert lines[-2].startswith("Your hand: "), hand.text
    for user in PLAYERS:
        if user != deals:
            assert why not in tg.hand(user).text  # the others have nothing to do
    await bid(tg, deals, 0)
    assert why not in tg.table().text


async def test_a_dealer_who_bids_last_under_secret_bids_is_told_so(tg: Bot) -> None:
    """Secret bids with notequal: the dealer bids once everybody else has. Meanwhile their
    private hand, which has no bid buttons, says why, and what the bids may not add up to;
    once the others have bid, it asks for their bid."""
    await seat(tg)
    for option in ("bids=secret", "notequal"):
        await tg.command(GROUP, ANN, f"/options {option}")
    await tg.command(GROUP, ANN, "/start")
    deals = dealer(tg)
    last = "You bid last, once the others have: the bids may not add up to 1."
    others = [user for user in PLAYERS if user != deals]
    for user in others:
        hand = tg.hand(deals)
        assert last in hand.text, hand.text
        assert "Your bid?" not in hand.text
        assert hand.labels == [], hand.text
        assert last not in tg.hand(user).text  # the others bid now
        await bid(tg, user, 0)
    hand = tg.hand(deals)
    assert "Your bid? " in hand.text, hand.text
    assert last not in hand.text, hand.text


async def test_a_full_table_with_tournament_rounds_is_not_called_ready(tg: Bot) -> None:
    """Tournament rounds are for 3 to 5 players: a lobby of six says so, rather than that any
    player may start (the start would be refused), and says it no longer once one leaves."""
    await seat(tg, short=False)
    for _ in range(3):
        await tg.command(GROUP, ANN, "/addbot")
    await tg.command(GROUP, ANN, "/options rounds=tournament")
    lobby = tg.lobby().text
    assert "Tournament rounds are for 3 to 5 players." in lobby, lobby
    assert "Ready" not in lobby, lobby
    await tg.command(GROUP, ANN, "/start")
    assert tg.group_texts()[-1] == "Tournament rounds are for 3 to 5 players."  # not "That option"
    await tg.command(GROUP, CID, "/leave")
    lobby = tg.lobby().text
    assert "Ready: any seated player may /start." in lobby, lobby
    assert "Tournament rounds are for" not in lobby, lobby


async def test_wings_mark_buttons_say_what_a_mark_does(tg: Bot) -> None:
    """With wings, a hand offers 🪽 buttons between turns: the message says what marking a card
    does; once a card is marked it says which, and the buttons still change the mark."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options wings")
    await tg.command(GROUP, ANN, "/start")
    explained = "🪽 Mark a card to have it played by itself when your turn comes."
    waiting = [user for user in PLAYERS if tg.hand(user).labels[0][0].startswith("🪽")]
    assert waiting, "nobody is offered a mark"
    user = waiting[0]
    hand = tg.hand(user)
    assert explained in hand.text, hand.text
    answer = await tg.press_label(user.id, user, hand.message_id, hand.labels[0][0])
    assert not answer.show_alert, answer.text
    hand = tg.hand(user)
    assert "🪽 Marked to play by itself: " in hand.text, hand.text
    assert explained not in hand.text, hand.text
    for other in PLAYERS:  # a mark is its owner's alone
        if other != user:
            assert "Marked" not in tg.hand(other).text
    assert not any("🪽" in text for text in tg.group_texts())


OPTION_NOTES = {
    "bids=hidden": "Hidden bids: everyone bids privately; all bids are shown once the last is in.",
    "bids=secret": "Secret bids: everyone bids privately; the bids are shown at the round's end.",
    "rounds=tournament": "Tournament rounds: 10 rounds with set hand sizes (Amigo rules).",
    "notequal": "notequal: the dealer may not make the bids add up to the number of tricks.",
    "dmmixed": "dmmixed: hidden bids in rounds 1–6 and the last round, notequal in between.",
    "foresight": "foresight: with one card each, you see the others' cards but not your own.",
    "wings": "wings: mark a card ahead; it is played by itself on your turn if allowed.",
    "coach": "coach: a Hint button on your turn, and a private review after each round.",
}


@pytest.mark.parametrize("option", list(OPTION_NOTES))
async def test_the_lobby_and_the_rules_say_what_an_option_does(tg: Bot, option: str) -> None:
    """An option's name alone (`dmmixed`, `wings`) tells a player nothing: the lobby and /rules
    say in a line what each option that is on does; the default table needs none. /rules names
    the table's options as the lobby does (it left the coach out)."""
    await seat(tg, short=False)
    assert not any(note in tg.lobby().text for note in OPTION_NOTES.values())
    await tg.command(GROUP, ANN, f"/options {option}")
    lobby = tg.lobby().text
    on = {option, "notequal"} if option == "rounds=tournament" else {option}  # its default
    assert all(OPTION_NOTES[name] in lobby for name in on), lobby
    others = [note for name, note in OPTION_NOTES.items() if name not in on]
    assert not any(note in lobby for note in others), lobby
    await tg.command(GROUP, BOB, "/rules")
    rules = tg.group_texts()[-1]
    assert OPTION_NOTES[option] in rules
    (named,) = [line for line in lobby.splitlines() if line.startswith("Options: ")]
    assert f"This table: {named.removeprefix('Options: ')}" in rules.splitlines()


async def test_a_foresight_card_once_played_is_no_longer_called_unseen(tg: Bot) -> None:
    """Foresight, round 1: each player sees the others' cards, not their own, until they play
    it. Once played it lies on the table: their hand message names it, and the cards the others
    still hold, rather than that they cannot see it. The last to play is told of no others'
    cards (the trick shows them)."""
    await seat(tg)
    await tg.command(GROUP, ANN, "/options foresight")
    await tg.command(GROUP, ANN, "/start")
    unseen = [["Play your unseen card"]]
    while not any(tg.hand(user).labels == unseen for user in PLAYERS):
        await move(tg)
    first = next(user for user in PLAYERS if tg.hand(user).labels == unseen)
    others = [user for user in PLAYERS if user != first]
    held = "Foresight: you cannot see your card. The others hold: "
    assert held in tg.hand(first).text, tg.hand(first).text
    answer = await tg.press_label(first.id, first, tg.hand(first).message_id, unseen[0][0])
    assert not answer.show_alert, answer.text
    text = tg.hand(first).text
    assert "cannot see" not in text, text
    line = next(line for line in text.splitlines() if line.startswith("Foresight: "))
    played, _, rest = line.removeprefix("Foresight: you played ").partition(" without seeing it.")
    assert rest.startswith(" The others hold: "), line
    assert all(f"{name(user)} " in rest for user in others), line
    assert f"{name(first)} {played}" in tg.table().text  # the card it names is the one played
    await move(tg)  # the second plays; the third is the last
    last = next(user for user in others if tg.hand(user).labels == unseen)
    lines = tg.hand(last).text.splitlines()
    assert "Foresight: you cannot see your card." in lines, lines
