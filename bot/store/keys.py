"""Every Redis key the bot uses, in one place. A chat's keys share the hash tag `{chat}`, so
they live in one Redis Cluster slot and one script may change them together.

The indexes that span chats are split the same way: a chat's timer entry lives in one of
`TIMER_SHARDS` sorted sets of its scope (the platform prefix of its id, `tg` in `tg:-100123`),
and each worker's journal, the scope's heartbeats and each player's index of chats have hash
tags of their own. No script touches two of them, so each runs on one Cluster node, and a
worker that scans every shard of its scope finds every due timer.
"""

import zlib

TIMER_SHARDS = 8
"""Sorted sets the timer index of a scope is split into (spread over a Cluster's masters)."""

PREFIX = "wiz:"
"""Every key of the bot begins so, a hash tag next (`wiz:{tag}:...`): a backup takes these, and
leaves the keys of other applications in the same Redis alone."""


def game(chat: str) -> str:
    """Hash: `v` (version, bumped by every write) and `t` (the table, compressed JSON)."""
    return f"wiz:{{{chat}}}:game"


def versions(chat: str) -> str:
    """Pub/sub channel: every write of the chat's game publishes its new version here (the
    compare-and-set script names it from `game(chat)`, replacing `game` by `ver`), for the live
    views that watch it (`adapters.web`)."""
    return f"wiz:{{{chat}}}:ver"


def settings(chat: str) -> str:
    """String: the chat's lasting settings (language, deck theme) as JSON."""
    return f"wiz:{{{chat}}}:cfg"


def update(chat: str, update_id: str) -> str:
    """String, set once per platform update applied (expires): a redelivered update is skipped."""
    return f"wiz:{{{chat}}}:u:{update_id}"


def results(chat: str) -> str:
    """List: one JSON summary per finished game, newest first (capped), for stats."""
    return f"wiz:{{{chat}}}:results"


def stats(chat: str) -> str:
    """Hash of the chat's stats: `v` (bumped by every write), `s` (JSON: the fold of its
    results, every player's tally and rating, and the newest game folded; `bot.stats.Fold`),
    `e` (JSON: how that newest game moved its seats' ratings, `bot.stats.Noted`) and `m` (the
    fold of the last 30 days' games alone, with the time the oldest of them ended)."""
    return f"wiz:{{{chat}}}:stats"


def played(player: str) -> str:
    """Set of the chats whose results may name the player (a person's id), under a hash tag of
    the player's own: where their stats are, for their private /stats and /forgetme."""
    return f"wiz:{{p:{player}}}:chats"


def seats(player: str) -> str:
    """Set of the chats where the person has a seat at a live game (a lobby, or a game in
    play), under the same hash tag of their own as `played`: whether to name the chat in their
    private messages (`bot.store.seats`)."""
    return f"wiz:{{p:{player}}}:seats"


def record(chat: str) -> str:
    """String: the `wizard-record/1` record of the chat's last finished game (JSON)."""
    return f"wiz:{{{chat}}}:record"


def telegram(chat: str) -> str:
    """Hash of the Telegram front end for the chat where messages live (a group, or a player's
    private chat): field `<game chat>:<slot>` → the id of the last message sent for that slot,
    so it is edited in place across restarts and workers."""
    return f"wiz:{{{chat}}}:tg"


def unreached(chat: str, game_id: str, person: int) -> str:
    """String, set (expires) the first time the Telegram front end could not write privately to
    `person` in the game `game_id` of the group `chat`, or was told they blocked the bot while
    a round was played there; deleted by their private /start, or their unblocking the bot: the
    group is told once each time they block the bot."""
    return f"wiz:{{{chat}}}:tg:unreached:{game_id}:{person}"


def notices_moved(chat: str) -> str:
    """String, set (expires) by the first of Telegram's two messages of the Telegram group
    `chat`'s move to a supergroup (handled at once, by one worker or two) that moves the
    group's notices: the other leaves them, so they are shown anew in the order they were
    posted."""
    return f"wiz:{{{chat}}}:tg:moved"


def no_pictures(chat: str) -> str:
    """String (expires): the id of the game in whose course the Telegram group `chat` refused
    the bot a picture (its permissions allow no photos); that game's later pictures there go as
    text at once, from every worker. Deleted when the bot's rights there change."""
    return f"wiz:{{{chat}}}:tg:nopics"


def unblocked(player: str) -> str:
    """String, set for a few seconds when the Telegram front end sent `player` their hands as
    they unblocked the bot; deleted by the /start that Telegram's Restart button sends right
    after the unblocking, which then sends no hand a second time."""
    return f"wiz:{{p:{player}}}:tg:unblocked"


def opening(player: str) -> str:
    """Set of the Telegram groups (their ids) where `player` was told, in a notice with a link
    (the group slot `open:<user id>`), to open a private chat with the bot to sit down; kept
    30 days after the last. Their private /start, through a link or not, takes the buttons off
    those notices; written only when a notice is posted."""
    return f"wiz:{{p:{player}}}:tg:open"


def discord(chat: str) -> str:
    """Hash of the Discord front end for the channel where messages live (a game channel, or a
    player's DM channel): field `<game chat>:<slot>` → the id of the last message sent for that
    slot, so it is edited in place across restarts and workers."""
    return f"wiz:{{{chat}}}:dc"


def posts(chat: str) -> str:
    """Sorted set of the posts a front end made to the chat where messages are shown (a group,
    a channel, a person's private chat) in the last flood period, scored by when the platform
    answered each: every worker paces its posts by it, across restarts (`adapters.flood`)."""
    return f"wiz:{{{chat}}}:posts"


def scope(chat: str) -> str:
    """The platform part of a chat id (`tg` of `tg:-100123`): the scope whose workers serve it."""
    return chat.partition(":")[0] if ":" in chat else ""


def timers(chat: str) -> str:
    """Sorted set of chats by their table's next time (a deadline, a reminder), one shard of the
    chat's scope: an index any worker of that scope reads to find what is due. The time inside
    the table is the truth; an entry that does not match it is mended when it fires."""
    return timer_shard(scope(chat), zlib.crc32(chat.encode()) % TIMER_SHARDS)


def timer_shard(of: str, shard: int) -> str:
    """The timer index shard `shard` of scope `of`."""
    return f"wiz:{{t:{of}:{shard}}}:timers"


def beats(of: str) -> str:
    """Sorted set of the workers of scope `of` by their last heartbeat (Unix seconds): a worker
    whose beat is older than a lease is gone, and another takes over its journal."""
    return f"wiz:{{w:{of}}}:beats"


def outages(of: str) -> str:
    """List of `start:end` spans (newest first, capped) in which no worker of scope `of` beat:
    the bot, or its Redis, was down, and turn clocks are credited for them."""
    return f"wiz:{{w:{of}}}:outages"


def journal(of: str, worker: str) -> str:
    """Sorted set of the chats of scope `of` a worker wrote lately, by when: what it may not have
    posted yet if it dies, shown again by whoever takes over (see `bot.recovery`)."""
    return f"wiz:{{j:{of}:{worker}}}:journal"


def reviews(of: str, worker: str) -> str:
    """Hash of the reviews a worker of scope `of` promised and has not handed over yet (note id:
    what to work out again, JSON), in its journal's slot: taken over with its journal by whoever
    finds the worker gone (`bot.coaching`)."""
    return f"wiz:{{j:{of}:{worker}}}:reviews"


def never(tag: str = "") -> str:
    """A key nothing ever writes, in the slot of hash tag `probe:<tag>`: readiness asks a Redis
    before 7.0 to set it only if it exists (`SET ... XX`), which it refuses as any write and
    which writes nothing (`bot.store.writable`)."""
    return f"wiz:{{probe:{tag}}}:never"


def moves() -> str:
    """Sorted set of the chats moved lately (`<old> <new>`, scored by the Redis server's time):
    noted before each move, so a backup that ran meanwhile reads the two chats again."""
    return "wiz:{m}:moves"


def of_chat(chat: str) -> tuple[str, ...]:
    """The chat's keys of fixed names (its applied update ids aside), whether they exist or not."""
    return (
        game(chat),
        settings(chat),
        results(chat),
        stats(chat),
        record(chat),
        telegram(chat),
        discord(chat),
        posts(chat),
    )


RELAY_PREFIX = "wiz-relay:"
"""The relay streams' prefix: outside `PREFIX` on purpose. A relayed request lives for seconds
(it is applied, or dropped as too old, within a minute), so a backup has nothing to keep of
it, and a backup holds the bot's kinds of keys only (a stream is none of them)."""


def relay(of: str) -> str:
    """Stream of the requests web-only workers hand to the chat workers of scope `of` (a move
    made on the web table for a chat whose front end runs elsewhere), read by those workers in
    one consumer group (`bot.store.relay`); one stream per scope, under a hash tag of its own
    (its one slot on a Cluster)."""
    return f"{RELAY_PREFIX}{{r:{of}}}:moves"


def readers(of: str) -> str:
    """Sorted set of the workers reading scope `of`'s relay, by when each last read it (the
    Redis server's clock): the relay is live while one read lately."""
    return f"{RELAY_PREFIX}{{r:{of}}}:readers"


def refused(of: str, update: str) -> str:
    """String (JSON: who asked, the service's answer) of the refusal of the relayed request of
    update id `update` in scope `of`, written by the chat worker that refused it, kept a minute:
    the web worker that handed it over answers its page with it (`bot.store.relay`)."""
    return f"{RELAY_PREFIX}{{r:{of}}}:refused:{update}"


HINT_PREFIX = "wiz-hint:"
"""The prefix of the marks of hints posted (`hinted`): outside `PREFIX` on purpose. Each lives
minutes, so a backup has nothing to keep of it."""


def hinted(chat: str, player: str, game: str, seq: int) -> str:
    """String, set by the first worker to post `player`'s hint for one decision (`seq`, the
    game's moves so far) of game `game` of `chat` in their private chat: a second press, on
    any worker, is answered that it was sent (`bot.store.store.HINT_TTL`)."""
    return f"{HINT_PREFIX}{{{chat}}}:{player}:{game}:{seq}"


FOLLOW_UP_PREFIX = "wiz-followup:"
"""The prefix of the Discord interactions kept for followups: outside `PREFIX` on purpose. Each
is a token that lets whoever holds it post in the interaction's place, and lives 14 minutes
(Discord takes followups for 15), so a backup has nothing to keep of it, and should not."""


def follow_up(chat: str, person: int) -> str:
    """String: the token of `person`'s newest interaction in the Discord channel `chat`, kept
    (with its time to live) while Discord takes followups to it (`adapters.discord.followups`)."""
    return f"{FOLLOW_UP_PREFIX}{{{chat}}}:{person}"


def follow_up_hand(chat: str, person: int) -> str:
    """String: `person`'s newest message with buttons shown to them alone in the Discord
    channel `chat` (their hand, or their result with Play again): "<token> <message id>", the
    interaction it is of, with " original" where it is that interaction's original message
    (same time to live). A hand or result shown to them later takes those buttons off it."""
    return f"{follow_up(chat, person)}:hand"
