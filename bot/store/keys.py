"""Every Redis key the bot uses, in one place. A chat's keys share the hash tag `{chat}`, so
they live in one Redis Cluster slot and one script may change them together."""


def game(chat: str) -> str:
    """Hash: `v` (version, bumped by every write) and `t` (the table, compressed JSON)."""
    return f"wiz:{{{chat}}}:game"


def settings(chat: str) -> str:
    """String: the chat's lasting settings (language, deck theme) as JSON."""
    return f"wiz:{{{chat}}}:cfg"


def update(chat: str, update_id: str) -> str:
    """String, set once per platform update applied (expires): a redelivered update is skipped."""
    return f"wiz:{{{chat}}}:u:{update_id}"


def results(chat: str) -> str:
    """List: one JSON summary per finished game, newest first (capped), for stats."""
    return f"wiz:{{{chat}}}:results"


def record(chat: str) -> str:
    """String: the `wizard-record/1` record of the chat's last finished game (JSON)."""
    return f"wiz:{{{chat}}}:record"


def telegram(chat: str) -> str:
    """Hash of the Telegram front end for the chat where messages live (a group, or a player's
    private chat): field `<game chat>:<slot>` → the id of the last message sent for that slot,
    so it is edited in place across restarts and workers."""
    return f"wiz:{{{chat}}}:tg"


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


TIMERS = "wiz:timers"
"""Sorted set of chats by their table's deadline: an index any worker may read to find what is
due. The deadline inside the table is the truth; an entry that does not match it is mended."""
