"""What /stats, /top and /forgetme say: a player's stats block and the leaderboards, in columns
for a monospace block (`Message.pre`) narrow enough for a phone, and the texts of forgetting.

The numbers come from `bot.stats` (a `Standing` per player); nothing here reads storage.
"""

from collections import Counter
from collections.abc import Mapping, Sequence

from bot.namesakes import numbered, shown, suffix
from bot.show.formatters import (
    fit,
    isolated,
    pad,
    percent,
    shown_points,
    signed_points,
    text_width,
)
from bot.show.i18n import LANGUAGES, N_, NC_, Texts, texts
from bot.stats import (
    PROVISIONAL,
    RATING_BASE,
    UNKNOWN_LEVEL,
    Rerated,
    Standing,
    folded_name,
    level_of,
)

NAME_WIDTH = 12
"""Columns of a name on a leaderboard at most (a longer one is cut)."""
CHAT_WIDTH = 12
"""Columns of a chat's name in a player's private /stats at most (a longer one is cut)."""
RATINGS_SHOWN = 3
"""Chats whose rating a player's private /stats lists at most."""
YES = N_("yes")
"""The word that confirms /forgetme (`/forgetme yes`), in any of the languages."""
BOARD_HEADS = (
    # TRANSLATORS: leaderboard header for the player's name (at most 6 letters).
    N_("player"),
    # TRANSLATORS: leaderboard header for the rating (at most 6 letters).
    N_("rating"),
    # TRANSLATORS: leaderboard header for the games played (at most 6 letters).
    N_("games"),
    # TRANSLATORS: leaderboard header for the games won (at most 6 letters).
    N_("wins"),
)
"""The leaderboard's column headers (catalog keys)."""


def player_name(t: Texts, player: str, standing: Standing) -> str:
    """A player's name as shown: as seated, or an AI level's (`AI (hard)`)."""
    level = level_of(player)
    return standing.name if level is None else level_name(t, level)


LEVEL = "AI level"
"""The catalogs' context of an AI level's word (`LEVEL_WORDS`)."""
LEVEL_WORDS = (NC_("AI level", "easy"), NC_("AI level", "normal"), NC_("AI level", "hard"))
"""The AI levels (`bot.ai.LEVELS`), each as the boards name it in the reader's language
(`level_word`); /stats takes it so, as well as the English one."""


def level_word(t: Texts, level: str) -> str:
    """An AI level's word in the language of `t` (`hard`: `сложный`)."""
    return t.pgettext(LEVEL, level)


def _typed_as(word: str) -> str:
    """A level's word as compared with what was typed: folded as a name (`folded_name`), and
    Russian `ё` as the plain letter it is often typed as, without its dots (`легкий` for
    `лёгкий`)."""
    return folded_name(word).replace("ё", "е")


def typed_level(t: Texts, name: str) -> str | None:
    """The AI level whose word in the language of `t` a name typed to /stats is (`Сложный`:
    `hard`; `легкий` or `лёгкий`: `easy`); None if it is none."""
    wanted = _typed_as(name)
    return next((lv for lv in LEVEL_WORDS if _typed_as(level_word(t, lv)) == wanted), None)


def level_name(t: Texts, level: str) -> str:
    """An AI level's name as the boards show it (`AI (hard)`, `ИИ (сложный)`)."""
    if level == UNKNOWN_LEVEL:
        return t("AI")
    return t("AI ({level})", level=level_word(t, level))


def provisional_line(t: Texts) -> str:
    """What the `?` after a rating means, under a board or a game's ratings that have one."""
    return t("? provisional: fewer than {n} games", n=PROVISIONAL)


def shown_rating(rating: int) -> str:
    """A rating as people read it: `1184`, and below 0 (a level that keeps losing) with the
    minus sign U+2212, as points are."""
    return shown_points(rating)


def _rating(t: Texts, standing: Standing) -> str:
    if standing.provisional:
        return t("{rating} (provisional)", rating=shown_rating(standing.rating))
    return shown_rating(standing.rating)


def stats_text(
    t: Texts,
    name: str,
    standing: Standing,
    ratings: Sequence[tuple[str, Standing]] = (),
    chats: int = 0,
    rank: tuple[int, int] | None = None,
) -> str:
    """A player's stats block. `ratings`: their standing in each of their `chats`, with the
    chat's name ("" if not known) (their private /stats across chats; a rating is a chat's
    own, so each chat's is listed, under its name). `rank`: their row on the chat's board
    (`bot.stats.board`) and how many rows it has in all."""
    if chats:
        head = t.ngettext("📊 {name}, in {n} chat", "📊 {name}, in {n} chats", chats)
        lines = [head.format(name=name, n=chats)]
    else:
        lines = [t("📊 {name}", name=name)]
    average = round(standing.average)
    rows = [
        (t("Games"), str(standing.games)),
        (t("Wins"), f"{standing.wins} ({percent(standing.wins, standing.games)})"),
        (
            t("Points"),
            t(
                "{points} ({average} a game)",
                points=shown_points(standing.points),
                average=shown_points(average),
            ),
        ),
    ]
    if standing.met is not None:
        rows.append((t("Bids met"), percent(standing.made, standing.rounds)))
    if standing.best is not None:
        rows.append((t("Best game"), shown_points(standing.best)))
    if ratings:
        rows.append((t("Rating"), ""))
        shown = sorted(ratings, key=lambda r: (-r[1].games, -r[1].last))[:RATINGS_SHOWN]
        for title, chat in shown:
            games = t.ngettext("{n} game", "{n} games", chat.games).format(n=chat.games)
            place = " " + (isolated(fit(title, CHAT_WIDTH)) if title else "–")
            rows.append((place, f"{shown_rating(chat.rating)} ({games})"))
    else:
        rows.append((t("Rating"), _rating(t, standing)))
    if rank is not None:
        # TRANSLATORS: a player's place on the group's board by rating (/top): "3 of 7". The
        # board holds AI levels beside people: no word or counter for people alone.
        rows.append((t("Rank"), t("{rank} of {n}", rank=rank[0], n=rank[1])))
    width = max(text_width(label) for label, _ in rows) + 2
    lines += [(pad(label, width) + value).rstrip() for label, value in rows]
    return "\n".join(lines)


def _name_cell(t: Texts, player: str, standing: Standing, number: int) -> str:
    """A name on a leaderboard: cut to `NAME_WIDTH` columns but for its number among people
    called alike, which stays (`Maximil… (2)`); the name isolated, bidirectionally."""
    room = NAME_WIDTH - text_width(shown("", number))  # the number's columns: ` (2)`, or none
    return shown(isolated(fit(player_name(t, player, standing), room)), number)


def _table(t: Texts, rows: Sequence[tuple[str, Standing]], numbers: Mapping[str, int]) -> list[str]:
    """A leaderboard's lines: place, name (numbered among people called alike: `numbers`, see
    `bot.stats.namesakes`), rating (`?`: provisional), games, wins."""
    heads = tuple(t(head) for head in BOARD_HEADS)
    cells = [
        (
            str(place),
            _name_cell(t, player, standing, numbers.get(player, 1)),
            f"{shown_rating(standing.rating)}{'?' if standing.provisional else ' '}",
            str(standing.games),
            str(standing.wins),
        )
        for place, (player, standing) in enumerate(rows, start=1)
    ]
    widths = [
        max(text_width(head), *(text_width(cell[column + 1]) for cell in cells))
        for column, head in enumerate(heads)
    ]
    place_width = len(str(len(cells)))
    aligns = "<>>>"
    lines = [
        " " * place_width
        + "".join(" " + pad(h, w, a) for h, w, a in zip(heads, widths, aligns, strict=True))
    ]
    for cell in cells:
        columns = zip(cell[1:], widths, aligns, strict=True)
        lines.append(pad(cell[0], place_width, ">") + "".join(" " + pad(*c) for c in columns))
    return [line.rstrip() for line in lines]


def board_text(
    t: Texts,
    all_time: Sequence[tuple[str, Standing]],
    month: Sequence[tuple[str, Standing]],
    numbers: Mapping[str, int],
) -> str:
    """/top: the chat's leaderboard of all time and of the last 30 days, by rating; people
    called alike numbered on both as `numbers` says (`bot.stats.namesakes` of all time). A
    30-day board that shows just what the first does (every game here is of the last 30 days)
    is not shown twice: a line says so. Under them, what a rating starts from (a number alone
    says little), and what `?` means if a rating is marked so."""
    lines = [t("🏆 Best players here, by rating")]
    table = _table(t, all_time, numbers)
    lines += table
    if not month:
        lines += ["", t("Last 30 days"), t("Nobody played in the last 30 days.")]
    elif _table(t, month, numbers) == table:  # every game here is of the last 30 days
        lines += ["", t("Last 30 days: the same as above.")]
    else:
        lines += ["", t("Last 30 days"), *_table(t, month, numbers)]
    # TRANSLATORS: under /top: what a rating is measured from (the rating of a new player).
    lines += ["", t("New players start at {rating}.", rating=RATING_BASE)]
    if any(standing.provisional for _, standing in [*all_time, *month]):
        lines.append(provisional_line(t))
    return "\n".join(lines)


def namesakes_text(t: Texts, name: str, matches: Sequence[tuple[str, Standing, int]]) -> str:
    """/stats of a `name` that several people here go by: each of them (player, standing,
    number among people called alike) as /stats takes them, with their games, to pick one."""
    count = len(matches)
    head = t.ngettext(
        "{n} player here is called {name}. Which one?",
        "{n} players here are called {name}. Which one?",
        count,
    )
    lines = [head.format(n=count, name=name)]
    for player, standing, number in matches:
        games = t.ngettext("{n} game", "{n} games", standing.games).format(n=standing.games)
        lines.append(f"/stats {numbered(player_name(t, player, standing), number)} · {games}")
    return "\n".join(lines)


def suggested_text(t: Texts, matches: Sequence[tuple[str, Standing, int]]) -> str:
    """What /stats of a name that matches nobody suggests (`bot.stats.near`): each of
    `matches` (player, standing, number among people called alike) as /stats takes them."""
    lines = [t("Did you mean:")]
    for player, standing, number in matches:
        level = level_of(player)
        name = level_word(t, level) if level is not None else shown(standing.name, number)
        lines.append(f"/stats {name}")
    return "\n".join(lines)


def confirms(word: str) -> bool:
    """Whether `word` is the word that confirms /forgetme, in any of the languages."""
    said = word.strip().casefold()
    words = {texts(language)(YES).casefold() for language in LANGUAGES} | {YES}
    return bool(said) and said in words | {"si", "sí"}


def forget_question(t: Texts) -> str:
    return t(
        "/forgetme deletes your stats and ratings in every chat you played in. The others keep "
        "their results, with you as an unnamed player. A game you are playing now is not "
        "changed, and its result will name you: send /forgetme again once it has ended. To go "
        "ahead, send: /forgetme {word}",
        word=t(YES),
    )


def forgotten_text(t: Texts, chats: int) -> str:
    if not chats:
        return t("There were no stats of yours to delete.")
    text = t.ngettext(
        "Done: your stats are deleted in {n} chat.",
        "Done: your stats are deleted in {n} chats.",
        chats,
    )
    return text.format(n=chats)


# --- a game's end ---------------------------------------------------------------------------


def rerated(moved: Rerated) -> str:
    """A rating after a game and its change, as the boards mark it: `1031 (+31)`, `985? (-15)`
    (`?`: provisional), `1000 (±0)`."""
    return f"{shown_rating(moved.rating)}{'?' if moved.provisional else ''} ({_change(moved)})"


def _change(moved: Rerated) -> str:
    """How far a game moved a rating: `+31`, `-15` (with the minus sign), `±0`."""
    return "±0" if moved.change == 0 else signed_points(moved.change)


def _level_called(t: Texts, level: str, seats: int) -> str:
    """An AI level whose one rating its `seats` seats at a game shared, as its end names it:
    `AI (hard)`, or for several, counted with a times sign before it ("2", the sign, the level)."""
    if seats > 1:
        # TRANSLATORS: at a game's end, in the ratings line: an AI level that had {n} seats
        # in the game, all sharing the level's one rating: "2", a multiplication sign, then
        # the level ("AI (hard)").
        return t("{n}× {name}", n=seats, name=level_name(t, level))
    return level_name(t, level)


def seat_ratings(t: Texts, places: Sequence[int], ratings: Sequence[Rerated]) -> list[str]:
    """Each seat's rating after a game and its change, in seat order, as the game's end says
    them without a person's name: a person's `1031 (+31)`; an AI seat's as its level's, named
    (`AI (hard) 1050? (+20)`), once at its best seat's place (ties in seat order), counted if
    it had several seats (`_level_called`), and "" at its other seats."""
    order = sorted(range(len(ratings)), key=lambda seat: (places[seat], seat))
    seats = Counter(moved.player for moved in ratings)
    shown, seen = [""] * len(ratings), set()
    for seat in order:
        moved = ratings[seat]
        if moved.player in seen:
            continue
        seen.add(moved.player)
        level = level_of(moved.player)
        named = "" if level is None else f"{_level_called(t, level, seats[moved.player])} "
        shown[seat] = named + rerated(moved)
    return shown


def ratings_lines(
    t: Texts,
    names: Sequence[str],
    numbers: Sequence[int],
    places: Sequence[int],
    ratings: Sequence[Rerated],
) -> list[str]:
    """A game's end in the group: each seat's rating after the game and its change, best
    place first (as the standings), on one line: `Ratings here: Cid 1031 (+31) · Ann 985
    (-15)`. A person by the name the table showed (`names`, numbered among people called alike
    as `numbers` says), cut to `NAME_WIDTH` columns but for that number, before it; an AI seat
    as its level, once, counted if it had several seats (`seat_ratings`). Under it, what `?`
    means if a rating is marked so."""
    order = sorted(range(len(ratings)), key=lambda seat: (places[seat], seat))
    shown = seat_ratings(t, places, ratings)
    items = []
    for seat in order:
        if not shown[seat]:
            continue
        if level_of(ratings[seat].player) is None:
            end = suffix(numbers[seat] if numbers else 1)
            called = names[seat].removesuffix(end) if end else names[seat]
            items.append(f"{fit(called, NAME_WIDTH - text_width(end)) + end} {shown[seat]}")
        else:
            items.append(shown[seat])
    # TRANSLATORS: at a game's end, under the standings: each player's rating in this chat
    # after the game, and how much the game moved it ("Ann 1031 (+31) · Bob 985 (-15)").
    lines = [t("Ratings here: {ratings}", ratings=" · ".join(items))]
    if any(moved.provisional for moved in ratings):
        lines.append(provisional_line(t))
    return lines


def own_rating(t: Texts, moved: Rerated) -> str:
    """A person's own result at a game's end: their rating in the chat after it, and its
    change (`Your rating here: 1031 (+31)`), said to be provisional if it is."""
    change = _change(moved)
    if moved.provisional:
        # TRANSLATORS: a player's own result at a game's end: their rating in the group after
        # the game, and how much the game moved it; "provisional": fewer than 5 games so far.
        return t(
            "Your rating here: {rating} ({change}), provisional",
            rating=shown_rating(moved.rating),
            change=change,
        )
    # TRANSLATORS: a player's own result at a game's end: their rating in the group after the
    # game, and how much the game moved it.
    return t(
        "Your rating here: {rating} ({change})", rating=shown_rating(moved.rating), change=change
    )
