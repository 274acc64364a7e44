"""The stats commands, answered outside the game's transaction: /stats, /top and /forgetme.

They read a chat's results and stats and a player's index of chats (`bot.store.stats`), never a
chat's table, so they take no compare-and-set of the game and wait for none. In a group they
show that group's data only. In a private chat with the bot (`Request.private`), /stats shows
the asker's own stats across every chat they played in, and nobody else's. A person picked by the
platform (`Request.whom`: a reply, a mention, a user option) is looked up by their id, not their
name; a bot picked so has no stats, and is told so. /forgetme asks first
and deletes once confirmed (`/forgetme yes`), in every chat.

What they say goes into the chat as a message; a refusal, and /forgetme's answers in a group, to
the asker alone (in a private chat everything is a message: it is theirs alone anyway).
"""

from collections.abc import Awaitable, Callable

from bot.commands import BY_KIND, BadArgument, Kind
from bot.messages import Message, Outcome
from bot.namesakes import shown
from bot.requests import Request, User
from bot.show.formatters import fit
from bot.show.i18n import Texts
from bot.show.look import Look
from bot.show.stats import (
    board_text,
    confirms,
    forget_question,
    forgotten_text,
    namesakes_text,
    player_name,
    stats_text,
    suggested_text,
    typed_level,
)
from bot.stats import AI, board, find, folded_name, level_of, namesakes, near, starts_a_word, total
from bot.store.stats import StatsStore

NAME_SHOWN = 32
"""Characters of a name someone typed that an answer repeats at most."""


def _say(text: str, private: bool, alert: bool = False) -> Outcome:
    """`text` for the asker: a message in a private chat, else an answer for them alone."""
    if private:
        return Outcome(messages=(Message(text),))
    return Outcome(answer=text, alert=alert)


async def no_title(chat: str) -> str:
    """A chat's name unknown (`answer`'s default)."""
    return ""


async def answer(
    store: StatsStore,
    chat: str,
    user: User,
    request: Request,
    look: Look,
    now: float,
    title: Callable[[str], Awaitable[str]] = no_title,
    own: Look | None = None,
) -> Outcome:
    """What a stats command from `user` in `chat` shows (in the chat's `look`; `title`: a
    chat's name, as its settings keep it, for the private /stats across chats; `own`: the
    look of what the asker alone reads, an answer or a refusal, when not `look`)."""
    t = look.t
    said = (own or look).t
    spec = BY_KIND[request.kind]
    try:
        arg = spec.arg.read(request.arg, look.theme)
    except BadArgument as error:
        return _say(error.say(said), request.private, alert=True)
    if request.kind is Kind.STATS:
        if request.whom is not None and request.whom.bot:
            return _say(no_bot_stats(said, request.whom.name), request.private, alert=True)
        if request.private:
            other = request.whom is not None and request.whom.id != user.id
            return await mine(store, user, str(arg or ""), t, other, title)
        return await stats(store, chat, user, str(arg or ""), t, request.whom, said)
    if request.kind is Kind.TOP:
        return await top(store, chat, t, now, request.private, said)
    return await forget(store, chat, user, str(arg or ""), said, request.private)


def no_bot_stats(t: Texts, name: str) -> str:
    """The answer to /stats of a bot (this one or another), picked rather than named: bots play
    no game; the AI seats at the table are rated by level, under the level's name."""
    # TRANSLATORS: "/stats hard" stays as it is: the command and the AI level's name.
    return t(
        "{name} is a bot, and bots have no stats. AI players have stats by level, such as "
        "/stats hard.",
        name=fit(name, NAME_SHOWN),
    )


async def stats(
    store: StatsStore,
    chat: str,
    user: User,
    name: str,
    t: Texts,
    whom: User | None = None,
    said: Texts | None = None,
) -> Outcome:
    """/stats in a group: the asker's, the picked person's (`whom`, by their id, before any
    name), or the named player's, in this chat only. A name that several people here go by gets
    them told apart, to pick one (`Ann (2)`), for the asker; one that matches nobody gets the
    players it may mean (`Bob` for Bob Brown), to pick from. The block says where they stand
    on the group's board (`Rank 3 of 7`: /top's order, past its eight rows too). What the
    asker alone is told is in `said` (else `t`)."""
    block, t = t, said or t  # `t`, as the extractor finds texts: what the asker alone is told
    done = await store.fold(chat)
    numbers = namesakes(done.players)
    if whom is not None and whom.id != user.id:
        player = whom.id
        if player not in done.players:
            text = t("{name} has not finished a game here yet.", name=fit(whom.name, NAME_SHOWN))
            return _say(text, private=False, alert=True)
    elif name and whom is None:
        level = typed_level(block, name) or typed_level(t, name)  # as the boards name it
        found = [AI + level] if level and AI + level in done.players else find(done.players, name)
        if not found:
            text = t("Nobody called {name} has played here.", name=fit(name, NAME_SHOWN))
            if name.startswith("@"):  # a username: the platforms do not say whose it is
                text += " " + t("Players are known by the name they play under, not by @username.")
            elif nearby := near(done.players, name):  # `Bob` for Bob Brown
                matches = [(p, done.players[p], numbers.get(p, 1)) for p in nearby]
                text += "\n" + suggested_text(t, matches)
            return _say(text, private=False, alert=True)
        if len(found) > 1:
            matches = [(p, done.players[p], numbers[p]) for p in found]
            return _say(namesakes_text(t, fit(name, NAME_SHOWN), matches), private=False)
        player = found[0]
    else:
        player = user.id
        if player not in done.players:
            return _say(t("No game of yours has finished here yet."), private=False, alert=True)
    standing = done.players[player]
    ranked = [p for p, _ in board(done.players, limit=len(done.players))]
    rank = (ranked.index(player) + 1, len(ranked)) if player in ranked else None
    name = shown(player_name(block, player, standing), numbers.get(player, 1))
    text = stats_text(block, name, standing, rank=rank)
    return Outcome(messages=(Message(text, pre=True),))


async def names(store: StatsStore, chat: str, typed: str, limit: int) -> list[str]:
    """The people /stats can name in this chat whose name, or a word of it, starts with `typed`
    (everyone for nothing typed), each as it picks them alone (`Ann (2)` for the second Ann),
    in the order of /top; at most `limit`. What a front end offers as one types a name."""
    done = await store.fold(chat)
    numbers = namesakes(done.players)
    wanted = folded_name(typed)
    return [
        shown(standing.name, numbers.get(player, 1))
        for player, standing in board(done.players, limit=len(done.players))
        if level_of(player) is None and starts_a_word(standing.name, wanted)
    ][:limit]


async def mine(
    store: StatsStore,
    user: User,
    name: str,
    t: Texts,
    other: bool = False,
    title: Callable[[str], Awaitable[str]] = no_title,
) -> Outcome:
    """/stats in a private chat: the asker's own, added up over every chat they played in, each
    chat's rating under the chat's name (`title`: the chats are theirs, so are their names)
    (`other`: someone else was picked, which is refused as a name is)."""
    if name or other:
        return _say(t("Here, /stats shows your own stats only."), private=True)
    ratings = []
    for chat in await store.chats(user.id):
        standing = (await store.fold(chat)).players.get(user.id)
        if standing is not None and standing.games:
            ratings.append((await title(chat), standing))
    if not ratings:
        return _say(t("No game of yours has finished yet."), private=True)
    standings = [standing for _, standing in ratings]
    text = stats_text(t, user.name, total(standings), ratings, chats=len(ratings))
    return Outcome(messages=(Message(text, pre=True),))


async def top(
    store: StatsStore, chat: str, t: Texts, now: float, private: bool, said: Texts | None = None
) -> Outcome:
    """/top: the chat's leaderboards, all time (its fold) and the last 30 days (a fold of
    those games alone, from new ratings); that there are none yet is told in `said` (else
    `t`), the asker's."""
    done = await store.fold(chat)
    all_time = board(done.players)
    if not all_time:
        t = said or t  # the asker's, named `t` as the extractor finds texts
        return _say(t("No game has finished in this chat yet."), private, alert=not private)
    month = await store.recent_fold(chat, now)
    text = board_text(t, all_time, board(month.players), namesakes(done.players))
    return Outcome(messages=(Message(text, pre=True),))


async def forget(
    store: StatsStore, chat: str, user: User, word: str, t: Texts, private: bool
) -> Outcome:
    """/forgetme: what it deletes and how to confirm; `/forgetme yes`: delete, everywhere."""
    if not confirms(word):
        return _say(forget_question(t), private)
    chats = await store.forget(user.id, also=() if private else (chat,))
    return _say(forgotten_text(t, chats), private)
