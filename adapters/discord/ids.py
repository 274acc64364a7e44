"""Discord ids and people as the game service names them.

A channel is `dc:<channel id>`, a person `dc:<user id>` (Discord's snowflakes are unique across
kinds, so the two never clash). A person's name is their server nickname or display name.
Whoever may manage the server or the channel counts as an admin (may cancel any game there):
Discord says so in each interaction, so no request is needed. What the bot itself may do in a
channel comes with each interaction there too; for another channel (a game's, from a DM) the
client's cache of the guild tells it.
"""

import discord

from adapters.text import TITLE_LIMIT, clean, clean_name
from bot.show.i18n import N_

SCOPE = "dc"
"""The scope of this platform's chats: their ids' prefix (`bot.store.keys.scope`)."""
PREFIX = f"{SCOPE}:"


def chat_key(channel_id: int) -> str:
    """The service's id of a Discord channel."""
    return f"{PREFIX}{channel_id}"


def user_key(user_id: int) -> str:
    """The service's id of a Discord user."""
    return f"{PREFIX}{user_id}"


def discord_id(key: str | None) -> int | None:
    """The snowflake in a service id (`dc:42` → 42); None for anything else."""
    if key is None or not key.startswith(PREFIX):
        return None
    rest = key[len(PREFIX) :]
    return int(rest) if rest.isdigit() and len(rest) <= 20 else None


def display_name(name: str | None, user_id: int) -> str:
    """A person's name at the table: made safe, one line, at most NAME_LIMIT characters
    (`#<id>` for a name with nothing left)."""
    return clean_name(name) or f"#{user_id}"


def place_name(channel: str | None, server: str | None) -> str | None:
    """A server channel's name as players are shown it: `#cards (Friday Wizards)`, the
    channel's first (of two channels of one server, it is what tells them apart), made safe
    (`adapters.text.clean`); None if Discord named neither."""
    shown = clean(channel, TITLE_LIMIT)
    around = clean(server, TITLE_LIMIT)
    if shown:
        shown = f"#{shown}"
    if around:
        shown = f"{shown} ({around})" if shown else around
    return clean(shown, TITLE_LIMIT) or None


def is_admin(permissions: discord.Permissions) -> bool:
    """Whether the person's permissions (in the interaction's channel) make them an admin."""
    return permissions.administrator or permissions.manage_guild or permissions.manage_channels


def missing_permissions(permissions: discord.Permissions, thread: bool) -> list[str]:
    """What the bot lacks, of `permissions` (its own in a channel), to show a game there: see
    the channel, post in it (in a thread, post in threads) and attach files (the score sheet
    at the end of a game is a picture). Their names as Discord shows them, marked for the
    catalogs. Only what an admin must give back is named: without View Channel the bot has no
    other right in the channel, and without the right to post none to attach files (Discord
    and discord.py take them away with it), so the one it hangs on is named alone, whatever
    else was taken (that is named once it is given back)."""
    # TRANSLATORS: the name of a Discord permission, as Discord's settings show it in your
    # language (so an admin finds it there); the next three too.
    view = N_("View Channel")
    send = N_("Send Messages in Threads") if thread else N_("Send Messages")
    attach = N_("Attach Files")
    posting = permissions.send_messages_in_threads if thread else permissions.send_messages
    needed = ((permissions.view_channel, view), (posting, send), (permissions.attach_files, attach))
    for granted, name in needed:
        if not granted:
            return [name]
    return []


def cached_permissions(
    client: discord.Client, channel: int
) -> tuple[discord.Permissions, bool] | None:
    """The bot's own permissions in a server channel or thread as `client`'s cache knows them
    (the gateway keeps it: the guild's roles, the channel's overwrites), and whether it is a
    thread; None when the cache does not know the channel, its guild, or the bot there."""
    found = client.get_channel(channel)
    if not isinstance(found, discord.abc.GuildChannel | discord.Thread):
        return None
    me = found.guild.me
    if me is None:
        return None
    try:
        return found.permissions_for(me), isinstance(found, discord.Thread)
    except discord.ClientException:  # a thread whose parent channel is not known
        return None
