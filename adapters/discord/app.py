"""The Discord front end: slash commands and button presses become requests for the game
service, its outcomes become posts; and the lifecycle (log in, sync the commands, the gateway,
the timer loop).

Handlers only translate: a slash command → a `Request`, a press → `Request(BUTTON, payload)`,
each with the interaction's id so a redelivered interaction applies once. Every interaction is
acknowledged within Discord's 3 seconds: the service usually answers in milliseconds; if it takes
longer than `defer_after`, the interaction is deferred first and answered by a followup. The
outcome's answer (a refusal too) goes back as an ephemeral message. What this front end adds is
Discord's own: a person whose DMs are closed is told in the channel, with a "Your hand" button
that shows whoever presses it their own hand, ephemerally; presses on that ephemeral hand update
it in place; a coach's review for them follows up their newest interaction in the channel.
"""

import asyncio
import contextlib
import io
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, TypeVar, cast

import aiohttp
import discord
from discord import app_commands

from adapters.delivered import Delivered
from adapters.discord import buttons
from adapters.discord.commands import (
    COMMANDS,
    MAX_CHOICE,
    MAX_CHOICES,
    Spec,
    Translator,
    as_person,
    as_text,
    choices,
    description,
    mentioned,
    mentions_any,
    option_description,
)
from adapters.discord.followups import Followups, Kept
from adapters.discord.ids import (
    SCOPE,
    cached_permissions,
    chat_key,
    discord_id,
    display_name,
    is_admin,
    missing_permissions,
    place_name,
    user_key,
)
from adapters.discord.render import (
    Key,
    Post,
    coalesce,
    content,
    hand_id,
    is_channel,
    packed,
    post,
    posts,
    strip_post,
    with_text,
)
from adapters.discord.sender import THREAD_ARCHIVED, Delivery, Sender, drawn, is_hand, retryable
from adapters.discord.slots import Slots
from adapters.discord.watch import connected, counting_trace
from adapters.flood import Windows
from adapters.outbox import Limits, Outbox
from adapters.text import ARG_LIMIT, clean
from bot import (
    Config,
    GameService,
    Kind,
    Message,
    Outcome,
    RedisClient,
    Request,
    StoreErrors,
    User,
    WebLinks,
    caused_by_store,
)
from bot.commands import BY_KIND
from bot.logs import about, after, playing
from bot.show.clusters import head
from bot.show.i18n import Texts, catalog_language, error_text, texts
from bot.timers import stop_timer_loop, timer_loop
from bot.tokens import NOT_OURS
from engine import ROUND_PHASES, ErrorCode
from engine.options import DECK_SIZE, MIN_PLAYERS

log = logging.getLogger(__name__)

T = TypeVar("T")

Interaction = discord.Interaction[Any]

PLATFORM = "discord"
"""This front end's name in the metrics (`platform` label) and readiness."""
DISCORD_LIMITS = Limits(
    group_count=5,
    group_period=5.0,
    group_burst=5,
    private_count=5,
    private_period=5.0,
    private_burst=5,
    slack=0.25,
)
"""Discord allows about five posts (edits included) per five seconds in one channel."""
DEFER_AFTER = 1.5
"""Seconds the service may take before an interaction is deferred (Discord allows 3)."""
ANSWERED_HERE = frozenset(
    {
        Kind.HAND,
        Kind.HINT,
        Kind.REVIEW,
        Kind.SCORES,
        Kind.RULES,
        Kind.RECORD,
        Kind.STATS,
        Kind.TOP,
        Kind.FORGET,
        Kind.HELP,
    }
)
"""Requests whose whole answer is the interaction's own (or a DM): they post nothing in the
channel, so they need no permission there (`_may_post`)."""
DELIVERY_WAIT = 10.0
"""Seconds a host's private /options waits for their toggles to reach their DMs before it
reads their lobbies again and answers (`_for_host`): a refusal is said instead of "Done"."""
PLACEHOLDER = "wizard-placeholder"
"""`Interaction.extras` key: a command was deferred, with a public (True) or private
placeholder."""
HANDLED_WAIT = 5.0
"""Seconds a stop waits at most for the interactions being handled (a move, a hint given up
as the worker stops) to be answered before it disconnects."""


def intents() -> discord.Intents:
    """Guilds only (discord.py keeps its channel and guild cache with it): slash commands and
    presses arrive as interactions whatever the intents, and the bot reads no messages, members
    or presences, so it needs no privileged intent."""
    return discord.Intents(guilds=True)


def build_client(config: Config, trace: aiohttp.TraceConfig | None = None) -> discord.Client:
    """The discord.py client: sharded (AutoShardedClient) when `discord.shards` is set. It pings
    nobody unless a post names whom; `trace` watches its HTTP requests."""
    kind = discord.AutoShardedClient if config.discord.shards else discord.Client
    mentions = discord.AllowedMentions.none()
    if trace is None:
        return kind(intents=intents(), allowed_mentions=mentions)
    return kind(intents=intents(), allowed_mentions=mentions, http_trace=trace)


@dataclass
class Reply:
    """How one interaction is answered: the actor's own messages to show ephemerally (their
    hand), a public reply (a command's answer such as the rules), and the short answer."""

    private: list[Message] = field(default_factory=list)
    public: Message | None = None
    answer: str | None = None
    alert: bool = False
    version: tuple[str, int] | None = None
    """The outcome's (game id, version): what a hand's "Open the table" link is for."""


class DiscordFrontEnd:
    """One worker's Discord front end for `service`; start() and stop() it in a running loop."""

    def __init__(
        self,
        config: Config,
        service: GameService,
        client: RedisClient,
        *,
        limits: Limits = DISCORD_LIMITS,
        timer_interval: float = 1.0,
        defer_after: float = DEFER_AFTER,
    ) -> None:
        self.config = config
        self.service = service
        metrics = service.metrics
        self.client = build_client(config, counting_trace(metrics.rate_limited.labels(PLATFORM)))
        self.tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(self.client)
        self.slots = Slots(client)
        self.notices: dict[tuple[int, int], int] = {}
        """(channel, person) → the round of the newest "Your hand" notice queued (`_dms_closed`)."""
        self.followups = Followups(client)
        """Each person's newest interaction in a server channel, in Redis: a plain private
        message that cannot go to their closed DMs (a coach's review) follows it up,
        ephemerally, while Discord lets it (`_follow_up`)."""
        self.sender = Sender(
            self.client,
            self.slots,
            self._dms_closed,
            on_open=self._dms_open,
            superseded=self._superseded,
            on_locked=self._thread_locked,
            on_muted=self._muted,
        )
        self.links = WebLinks.of(config, service.clock)
        """The web table's addresses, for the hands' "Open the table" buttons (None: none)."""
        self.outbox: Outbox[Post] = Outbox(
            self.sender,
            limits,
            coalesce,
            is_group=is_channel,
            windows=Windows(client),
            chat_of=lambda target: f"dc:{target}",  # dc:c<channel> or dc:u<person>
            retry=retryable,
            posting=metrics.posting(PLATFORM, (delivery.value for delivery in Delivery)),
        )
        self.delivered = Delivered(service, self.outbox, self._shown)
        """Forgets the notes of the coach's reviews once posted (`adapters.delivered`)."""
        self.timer_interval = timer_interval
        self.defer_after = defer_after
        self._timers: asyncio.Task[None] | None = None
        self._gateway: asyncio.Task[None] | None = None
        self._busy = 0
        self._quiet = asyncio.Event()
        """Set while no interaction is being handled (`busy` is 0)."""
        self._quiet.set()
        self._register()

    @property
    def busy(self) -> int:
        """Interactions (and gateway events) being handled now: a stop waits for them, a test
        for none."""
        return self._busy

    @busy.setter
    def busy(self, count: int) -> None:
        self._busy = count
        if count:
            self._quiet.clear()
        else:
            self._quiet.set()

    # --- lifecycle ------------------------------------------------------------------------------

    def _register(self) -> None:
        for name, spec in COMMANDS.items():
            self.tree.add_command(self._command(name, spec))
        self.tree.on_error = self.on_command_error  # type: ignore[method-assign]
        buttons.register(self.client, self)
        self.client.event(self.on_interaction)
        self.client.event(self.on_guild_channel_delete)
        self.client.event(self.on_raw_thread_delete)
        self.client.event(self.on_raw_thread_update)
        self.client.event(self.on_guild_remove)

    async def start(self, *, connect: bool = True) -> None:
        """Log in, sync the slash commands, start the timer loop and (with `connect`) the
        gateway connection that brings the interactions."""
        token = self.config.discord.token
        if not token:
            raise ValueError("no Discord token configured")
        # discord.py has one REST address per process (a class attribute): Discord's, or a test's
        discord.http.Route.BASE = self.config.discord.base_url.rstrip("/")
        await self.client.login(token)
        await self.tree.set_translator(Translator())
        await self.tree.sync()
        self._timers = asyncio.create_task(
            timer_loop(self.service, self.show, SCOPE, self.timer_interval)
        )
        if connect:
            self._gateway = asyncio.create_task(self.client.connect(reconnect=True))
            self.service.metrics.ready.report(PLATFORM, lambda: connected(self.client))

    async def stop(self) -> None:
        """Stop timers, post what waits (a hint under way is not waited
        for: its asker is told to ask again, `Coach.stop`), disconnect."""
        self.service.metrics.ready.report(PLATFORM, None)
        self.service.coach.stop()
        await stop_timer_loop(self._timers)
        self._timers = None
        try:  # the interactions under way are answered (a hint's: that the bot restarts)
            await asyncio.wait_for(self._quiet.wait(), HANDLED_WAIT)
        except TimeoutError:
            log.warning("stopping with interactions still being handled")
        await self.outbox.close()
        await self.delivered.close()  # the notes of the reviews posted are forgotten
        await self.client.close()
        if self._gateway is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._gateway
            self._gateway = None

    async def wait_gateway(self) -> None:
        """Return when the gateway connection ends (it raises if it failed)."""
        if self._gateway is not None:
            await self._gateway

    def _command(self, name: str, spec: Spec) -> app_commands.Command[Any, Any, None]:
        kind, public = spec.kind, spec.public
        if spec.option is None:

            async def plain(interaction: discord.Interaction) -> None:
                await self.on_command(interaction, kind, "", public=public)

            callback: Any = plain
        else:
            option, text = spec.option

            async def with_text(interaction: discord.Interaction, value: str = "") -> None:
                await self.on_command(interaction, kind, as_text(value), public=public)

            if spec.choices:  # offered as a list: nobody need know the words
                with_text = app_commands.choices(value=choices(name, spec))(with_text)
            callback = app_commands.rename(value=option)(
                app_commands.describe(value=option_description(text))(with_text)
            )
            if spec.pick is not None:
                pick, about = spec.pick

                async def with_pick(
                    interaction: discord.Interaction,
                    value: str = "",
                    person: discord.User | discord.Member | None = None,
                ) -> None:
                    whom = as_person(person)  # a user option synced as text: its text
                    typed = as_text(value) or ("" if whom is not None else as_text(person))
                    await self.on_command(
                        interaction, kind, typed, public=public, whom=whom, picks=True
                    )

                described = app_commands.describe(
                    value=option_description(text), person=option_description(about)
                )
                callback = app_commands.rename(value=option, person=pick)(described(with_pick))
        command: app_commands.Command[Any, Any, None] = app_commands.Command(
            name=name, description=description(name), callback=callback
        )
        if spec.players:  # a player's name: those of this channel's, as one types
            command.autocomplete("value")(self.on_player_name)
        if spec.guild_only:
            command = app_commands.guild_only(command)
        return command

    async def on_player_name(
        self, interaction: discord.Interaction, typed: str
    ) -> list[app_commands.Choice[str]]:
        """The names of the channel's players that start with what is typed so far, for a
        command that names one (`/stats name`); none in a DM, where a name is refused."""
        if interaction.guild_id is None or interaction.channel_id is None:
            return []
        chat = chat_key(interaction.channel_id)
        found = await self.service.player_names(chat, typed[:ARG_LIMIT], MAX_CHOICES)
        return [
            app_commands.Choice(name=head(name, MAX_CHOICE), value=head(name, MAX_CHOICE))
            for name in found
        ]

    # --- showing outcomes -----------------------------------------------------------------------

    async def show(self, chat: str, outcome: Outcome) -> None:
        """Queue an outcome's messages for their channels and DMs (in order; slots coalesce).
        A DM for someone whose DMs are known to be closed is not tried (but a new round's hand:
        `Sender.skips`): see `_dms_closed`; a plain private message for them that comes with
        their hand asking for their attention (a wings mark that could not be played) is held
        for that hand (`_dms_closed`)."""
        await self.delivered.show(chat, outcome)

    async def _shown(self, chat: str, outcome: Outcome) -> list["asyncio.Future[object] | None"]:
        return await self._queue(posts(chat, outcome, self.links))

    async def _queue(self, items: list[Post]) -> list["asyncio.Future[object] | None"]:
        """Queue posts for their channels and DMs, in order, as `show` does: what each one's
        delivery will be (`Outbox.put`), None for one not tried (the person's DMs are closed)."""
        held: dict[int, list[Post]] = {}
        queued: list[asyncio.Future[object] | None] = []
        for index, item in enumerate(items):
            queued.append(None)
            if item.user is None or not self.sender.skips(item):
                queued[-1] = self.outbox.put(item.target, item, key=item.slot)
            elif item.slot is None and _asks_later(
                [later for later in items[index + 1 :] if self.sender.skips(later)], item.user
            ):
                held.setdefault(item.user, []).append(item)
            else:
                await self._dms_closed(item, tuple(held.pop(item.user, ())))
        return queued

    async def _thread_locked(self, failed: Post) -> bool:
        """A post to the game's thread was refused (or not tried: the gateway said so): the
        thread is archived, and a moderator locked it (only a moderator may open it again), so
        its table stays as it is while the game goes on in the DMs, whose hands show each
        trick. Each player of a game going on there is told so in their DM, in their client's
        language as their DMs are (`Table.languages`), once a game (noted in the thread's slot
        map, for every worker); once a moderator opens the thread, the table's next post shows
        it again. Whether they were told, now or before."""
        chat = chat_key(failed.game)
        try:
            table = await self.service.table(chat)
            if table is None or table.game.phase not in ROUND_PHASES:
                return False
            if not await self.slots.first_locked(failed.game, table.game_id):
                return True
            t = await self._texts(chat)
        except StoreErrors as error:
            log.warning("could not tell the players of %s it is locked: %s", chat, error)
            return False
        thread = f"<#{failed.game}>"
        told = []
        for player in table.game.players:
            person = discord_id(player.id)
            if person is None:
                continue
            own = table.languages.get(player.id)  # their client's, as their DMs are
            said, closed = self._locked_words(texts(own) if own is not None else t, thread)
            told.append(Post(failed.game, said, user=person, instead=closed, hand_under=True))
        await self._queue(told)
        return True

    @staticmethod
    def _locked_words(t: Texts, thread: str) -> tuple[str, str]:
        """What a player of a game whose thread (`thread`, as Discord links it) a moderator locked
        is told in their DM, and, their DMs closed, shown alone in the thread (`_thread_locked`)."""
        # TRANSLATORS: in a player's DM. {thread}: the game's thread on Discord, shown by
        # Discord as its name (#wizards-night).
        said = t(
            "🔒 {thread}, this game's thread, was locked by a moderator, so I can no longer "
            "show the table there. The game goes on here, in your DMs: your hand shows each "
            "trick. Once a moderator opens the thread, the table shows there again."
        )
        # TRANSLATORS: shown on Discord in a game's thread to a player alone, whose DMs are
        # closed to the bot. {thread}: the game's thread, shown by Discord as its name.
        closed = t(
            "🔒 {thread}, this game's thread, was locked by a moderator, so I can no longer "
            "show the table there. As your DMs are closed to me, your hand comes here, shown to "
            "you alone, when it is your turn (Discord lets me send it only within 15 minutes of "
            "your last press here). To get it in your DMs, allow direct messages from this "
            "server's members (in its Privacy Settings). Once a moderator opens the thread, the "
            "table shows there again."
        )
        return content(said).format(thread=thread), content(closed).format(thread=thread)

    async def _muted(self, failed: Post) -> None:
        """A post to the game's channel was refused: the bot may no longer send messages there
        (Missing Permissions). A game going on there ends, as a timer's moves and timeouts
        would go on unseen, and its players are told why in their DMs; a lobby closes, and its
        people are told so (`GameService.unseen`, `muted`). An admin who gives the permission
        back finds the channel ready for a new /join."""
        chat = chat_key(failed.game)
        with about(chat):
            try:
                await self.show(chat, await self.service.unseen(chat, muted=True))
            except StoreErrors as error:  # the next refused post tries again
                log.warning("could not end the game of %s, where I may not post: %s", chat, error)

    def _superseded(self, post: Post, message_id: int, behind: str | None = None) -> None:
        """An old slot message's buttons come off once its channel has nothing newer to show
        (in the same edit, its text becomes `behind`, if given: `Message.behind`)."""
        strip = strip_post(post, message_id, behind)
        self.outbox.put(strip.target, strip, key=("strip", message_id), low=True)

    async def _dms_closed(self, failed: Post, told: tuple[Post, ...] = ()) -> None:
        """A hand cannot go to a DM: when it asks for the person's attention, the channel
        gets a notice with a "Your hand" button (what the hand shows stays private). One notice
        a round, which pings once: the round's later turns find it there (the hand button shows
        what is asked). The notice of the round before loses its button; the first one of a
        game says why. Once the game is over (ended, cancelled or abandoned: its hand slot shows
        no round), the last notice loses its button: there is no hand to show any more; their
        own result (the hand slot's new message then) is shown to them alone by `_follow_up`,
        as a plain private message (a coach's review) is.

        `told`: plain private messages that came with this hand (a wings mark that could not be
        played when their turn came). When the round's notice is there already (no new ping),
        they are followed up in one message with the hand as it is now under them, with its
        buttons, as "Your hand" shows it: they can choose the card where they are told to;
        else each is followed up on its own, after the new notice. A hand that asks them to bid
        again (`Post.rebid`: they bid, and the table alone would say it) is followed up so too,
        even with nothing told: a turn they do not expect, where they can act on it.

        In a thread known to be locked (`_locked`) no notice can be posted: the hand that asks
        for their attention is followed up instead (with `told` above it), the hand as it is
        now with its buttons, each turn: else nothing would tell them it is their turn, nor show
        them a card to play (nobody may type /hand there)."""
        if failed.user is None:
            return
        base = f"{chat_key(failed.game)}:dm:{failed.user}"
        game_id = failed.version[0] if failed.version is not None else None
        if failed.round is None:
            if failed.slot is None:
                await self._follow_up(failed)
                if failed.hand_under:
                    await self._hand_under(failed)
            elif is_hand(failed):
                if failed.notify:  # their result: the channel's end shows no bids met
                    await self._follow_up(failed, hand=True)
                if not failed.quiet:  # their result again, under a review: over already
                    await self._game_over_for(failed.game, failed.user, game_id)
            return
        if not failed.notify:
            return
        # the hand again under a message of theirs followed up before it (a coach's review:
        # `hand_again`, posted quiet), or no notice can show (a locked thread): the hand itself
        if failed.quiet or await self._locked(failed.game):
            await self._follow_up_hand(failed, told)
            return
        number = failed.round
        slot = f"{base}:r{number}"
        if await self._noticed(failed.game, slot, game_id):  # this round's notice is there
            if told or (failed.rebid and not failed.again):
                await self._follow_up_hand(failed, told)
            return
        await self._notice(failed, base, game_id)
        for item in told:
            await self._follow_up(item)

    async def _follow_up_hand(self, hand: Post, told: tuple[Post, ...]) -> None:
        """The hand, with its buttons, followed up to its person alone in the game's channel,
        under what they are `told` with it (`_dms_closed`). It leaves behind the hand their
        newest interaction there was answered with, which loses its buttons and its asking
        line, as a DM's hand does: under a message of theirs (`Post.quiet`: a coach's review),
        a wings notice, a bid to change, a locked thread's turn alike (there, if Discord lets
        it be edited), so no two copies of their hand ask for the same press."""
        newest = await self._not_behind(hand)
        if newest is not hand and not newest.asks and not told:
            return  # as it is now it asks nothing: nothing to show again
        hand = newest
        said = "".join(f"{item.here}\n" for item in told)
        text = f"{said}{hand.here}"
        await self._follow_up(replace(hand, text=text, instead=None), hand=True)

    async def _hand_under(self, told: Post) -> None:
        """The hand of `told`'s person as it is now followed up under `told` (a locked thread's
        notice, `Post.hand_under`, just followed up to them), where it offers buttons or one
        shown to them before does: that one loses them (in a locked thread it is deleted, the
        notice stays), and their hand, the one with buttons, is the newest thing they see, not
        the notice. Nothing where the game shows them no hand in a round now (over, say), or
        the store cannot say."""
        assert told.user is not None
        try:
            hand = await self._hand_now(chat_key(told.game), user_key(told.user))
            kept = await self.followups.kept(told.game, told.user)
        except StoreErrors as error:
            log.warning("could not read the hand of %s: %s", told.user, error)
            return
        shown = kept is not None and not kept.lost
        if hand is not None and hand.round is not None and (hand.asks or shown):
            await self._follow_up_hand(hand, ())

    async def _not_behind(self, hand: Post) -> Post:
        """`hand`, to be followed up to its person alone, or their hand as it is now where the
        one kept for them shows a newer state of the game (`_behind`): their hand again under
        a review, worked out before their press was saved, comes once the press's answer is
        kept (or shown without buttons: `Kept.lost`), and would else show them the hand a move
        old, with the buttons of a move made (refused as stale). As it is where the store
        cannot say."""
        assert hand.user is not None
        try:
            kept = await self.followups.kept(hand.game, hand.user)
            if kept is None or not _behind(hand.version, kept.version):
                return hand
            now = await self._hand_now(chat_key(hand.game), user_key(hand.user))
        except StoreErrors as error:
            log.warning("could not read the hand of %s: %s", hand.user, error)
            return hand
        if now is None or now.round is None or now.version is None:
            return hand
        return now

    async def _hand_now(self, chat: str, player: str) -> Post | None:
        """`player`'s hand in the game of `chat` as it is now (`GameService.current`), as
        posted; None where it shows them none."""
        now = await self.service.current(chat)
        hand = next((m for m in now.messages if m.to == player and m.slot == "hand"), None)
        return None if hand is None else post(chat, hand, version=now.version, links=self.links)

    async def _locked(self, game: int) -> bool:
        """Whether the game's channel is a thread known to be locked (`Sender.locked`); not,
        when the store cannot say (a notice is tried, as before)."""
        try:
            return await self.sender.locked(game)
        except StoreErrors as error:
            log.info("could not read whether %s is locked: %s", game, error)
            return False

    async def _dms_open(self, sent: Post) -> None:
        """A hand went to a person whose DMs were found closed, by this worker or another (the
        slot map's mark: `SlotMap.refused`): the newest "Your hand" notice of the game loses
        its button, as at the game's end; their hands are in their DMs now, and no notice
        follows while they stay open."""
        if sent.user is not None:
            game_id = sent.version[0] if sent.version is not None else None
            await self._retire_notice(sent.game, sent.user, game_id)

    async def _notice(self, failed: Post, base: str, game_id: str | None) -> None:
        """The round's "Your hand" notice for the person of `failed`, a hand asking for their
        attention, in the game's channel (`_dms_closed`)."""
        assert failed.user is not None
        assert failed.round is not None
        t = await self._texts(chat_key(failed.game))
        mention = f"<@{failed.user}>"
        number = failed.round
        slot = f"{base}:r{number}"
        earlier = await self._last_notice(failed.game, base, number, game_id)
        if earlier is None:
            text = t(
                "{mention}: your DMs are closed, so your cards are shown here, only to you: "
                "press “Your hand”.",
                mention=mention,
            )
        else:
            text = t("{mention}: your cards: press “Your hand”.", mention=mention)
            bare = Post(game=failed.game, text="", slot=earlier, bare=True)
            self.outbox.put(bare.target, bare, key=bare.slot, low=True)
        notice = Post(
            game=failed.game,
            text=text,
            keys=((Key(t("Your hand"), hand_id(failed.game)),),),
            slot=slot,
            notify=True,
            mentions=(failed.user,),
            version=failed.version,
            stands_for=failed.user,
        )
        self.outbox.put(notice.target, notice, key=notice.slot)
        if len(self.notices) > 10_000:  # games this worker never saw end: the slots know them
            self.notices.clear()
        self.notices[(failed.game, failed.user)] = number

    async def _follow_up(self, failed: Post, hand: bool = False) -> None:
        """A plain private message (a coach's review, a wings notice) for a person whose DMs
        are closed: shown to them alone in the game's channel, as a followup of their newest
        interaction there, whichever worker received it (`Followups`), if Discord still takes
        one (a /review is answered so, a round's review follows their last move of the round).
        Else it is dropped, and logged: nothing private ever goes to the channel itself.
        `hand`: the message is their hand, or their result: the one with buttons shown to them
        before loses them first (`_leave_behind`), and this one is kept in its place."""
        assert failed.user is not None
        try:
            webhook = await self.followups.webhook(self.client, failed.game, failed.user)
        except StoreErrors as error:
            webhook = None
            log.warning("could not read the interactions of %s: %s", failed.user, error)
        if webhook is None:
            log.info("a private message for %s, whose DMs are closed, is dropped", failed.user)
            return
        extra: dict[str, Any] = {}
        if (keys := buttons.view(failed.keys)) is not None:
            extra["view"] = keys
        left = None
        if hand:
            left = await self._leave_behind(failed.game, failed.user, failed)
        try:
            sent = await webhook.send(failed.here, ephemeral=True, wait=True, **extra)
        except discord.HTTPException as error:
            log.info("could not follow up an interaction of %s: %s", failed.user, error)
            return
        if hand and failed.keys:
            await self._keep(failed.game, failed.user, webhook, sent.id, failed, done=(left,))

    async def _keep(
        self,
        game: int,
        person: int,
        webhook: discord.Webhook,
        message: int,
        new: Post | None,
        *,
        original: bool = False,
        done: tuple[int | None, ...] = (),
    ) -> None:
        """Keep `message` of `webhook`'s interaction (its `original` message, or a followup),
        just shown to `person` alone in the channel `game` with its buttons (`new`: their hand,
        or their result), as the one a later one leaves behind (`Followups.show`). Another one
        kept meanwhile (not one of those `done` with: left behind already, or the one pressed)
        was shown while this one was being posted (a round's review and the result again
        under it, worked out while the answer to the game's last press was made): the older
        of the two loses its buttons (`_leave_behind`), and the newer one, the lower in the
        channel (Discord's ids grow with time), is kept; but where the lower one is a hand
        that shows an older state of the game than this hand (`_behind`: their hand again
        under a review, worked out before the press this answers was saved), it shows this
        hand instead (`_show_newer`). A hand lost (`Kept.lost`) is none to compare with."""
        if webhook.token is None:
            return
        version = None if new is None else new.version
        try:
            kept = await self.followups.kept(game, person)
            if kept is not None and kept.lost:  # nothing to leave behind
                kept = None
            if kept is not None and kept.message != message and kept.message not in done:
                if kept.message > message:  # a newer one is under it: this one goes behind
                    # unless it shows an older state than this hand, and went (a locked thread)
                    hand = new is not None and new.round is not None
                    if not (
                        hand
                        and new is not None
                        and _behind(kept.version, version)
                        and await self._show_newer(game, person, kept, new)
                    ):
                        await self._unbutton(game, person, webhook, message, new, original)
                        return
                else:
                    await self._leave_behind(game, person, new)
            await self.followups.show(game, person, webhook.token, message, original, version)
        except StoreErrors as error:
            log.warning("could not keep the hand of %s: %s", person, error)

    async def _show_newer(self, game: int, person: int, kept: Kept, new: Post) -> bool:
        """The hand `kept`, shown to `person` alone in the channel `game` under the one just
        shown them (`new`), shows an older state of the game than `new` (their hand again
        under a review, worked out before their press was saved, followed up while the press
        was answered): it shows `new` instead, with its buttons, and is kept as showing it,
        the one above to lose its buttons. In a thread a moderator locked, which takes no
        edit, it is deleted instead, and the one above stays as it is, to be kept: whether it
        went so."""
        webhook = self.followups.webhook_of(self.client, kept)
        if webhook is None:
            return False
        target = ORIGINAL if kept.original else kept.message
        fields: dict[str, Any] = {"content": new.here, "view": buttons.view(new.keys)}
        try:
            if not await self._locked(game):
                await webhook.edit_message(target, **fields)
                await self.followups.show(
                    game, person, kept.token, kept.message, kept.original, new.version
                )
                return False
        except discord.HTTPException as error:
            if error.code != THREAD_ARCHIVED:
                log.info("could not show the hand of %s anew: %s", person, error)
                return False
        try:
            await webhook.delete_message(target)
        except discord.HTTPException as error:
            log.info("could not take the hand of %s away: %s", person, error)
            return False
        return True

    async def _leave_behind(self, game: int, person: int, new: Post | None) -> int | None:
        """The message with buttons last shown to `person` alone in the channel `game` (their
        hand, or their result: `Followups.shown`) loses them, as `new` (their hand, or result,
        again) comes (`_unbutton`). A player never sees two live copies of the same decision.
        The id of the message left behind, if one was kept."""
        try:
            kept = await self.followups.shown(self.client, game, person)
        except StoreErrors as error:
            log.warning("could not read the hand of %s: %s", person, error)
            return None
        if kept is None:
            return None
        webhook, message, left = kept
        await self._unbutton(game, person, webhook, left, new, message is None)
        return left

    async def _unbutton(
        self,
        game: int,
        person: int,
        webhook: discord.Webhook,
        message: int,
        new: Post | None,
        original: bool,
    ) -> None:
        """`person`'s message `message` of `webhook`'s interaction (its `original` message, or
        a followup), shown to them alone in the channel `game`, loses its buttons as `new`
        (their hand, or result, again) comes: a hand shows `new.behind` (the hand as it is
        now, asking nothing), a result keeps its text. In a thread a moderator locked
        (`_locked`, or the edit refused as archived), which takes no edit, it is deleted
        instead."""
        target = ORIGINAL if original else message
        extra: dict[str, Any] = {}
        if new is not None and new.round is not None:
            extra["content"] = new.behind or new.here
        try:
            if not await self._locked(game):
                await webhook.edit_message(target, view=None, **extra)
                return
        except discord.HTTPException as error:  # dismissed, say: the new one comes all the same
            if error.code != THREAD_ARCHIVED:
                log.info("could not leave the hand of %s behind: %s", person, error)
                return
        # An archived thread (a moderator locked it) takes no edit, a deletion alone: the
        # older copy goes, the new one under it shows all it did.
        try:
            await webhook.delete_message(target)
        except discord.HTTPException as error:
            log.info("could not take the hand of %s away: %s", person, error)

    async def _last_notice(
        self, game: int, base: str, number: int, game_id: str | None
    ) -> str | None:
        """The slot of the newest notice of the game `game_id` before round `number`: the
        round before's, or an older one's where a round had none (each of its hands came as
        the answer to the person's own press, or a marked card played itself), whose button
        would else stay; None before the game's first. One read where the round before had
        a notice, as before; one more for each round back without one."""
        for earlier in range(number - 1, 0, -1):
            if await self._noticed(game, f"{base}:r{earlier}", game_id):
                return f"{base}:r{earlier}"
        return None

    async def _noticed(self, game: int, slot: str, game_id: str | None) -> bool:
        """Whether the notice `slot` in the game's channel is of the game `game_id` (of any,
        when that is not known): the slots of a round's notice are the same in every game of
        the channel, and an earlier game's does not stand for this one's."""
        if game_id is None:
            return await self.slots.get(game, slot) is not None
        shown = await self.slots.shown(game, slot)
        return shown is not None and shown[0] == game_id

    async def _game_over_for(self, game: int, person: int, game_id: str | None) -> None:
        """The game `game_id` in channel `game` is over for `person`, whose DMs are closed:
        their last notice loses its button, and the refusal's mark goes (`_forget_refusal`)."""
        await self._retire_notice(game, person, game_id)
        await self._forget_refusal(game, person)

    async def _forget_refusal(self, game: int, person: int) -> None:
        """The refusal's mark in the slot map goes (`Sender.forget_refusal`): the game is over
        for `person` and their notice's button is off, nothing is left for it to tidy, and a
        later game's first hand in their DMs, once open, would else go looking for a notice."""
        try:
            await self.sender.forget_refusal(game, person)
        except StoreErrors as error:  # the mark stays: it costs a search later, no more
            log.info("could not clear the closed DMs of %s: %s", person, error)

    async def _retire_notice(self, game: int, person: int, game_id: str | None) -> None:
        """Take the button off the newest round's "Your hand" notice of `person` in the game's
        channel for the game `game_id`, if any: the one this worker queued (its post may still
        wait in the outbox, which sends this tidying after it), else the newest one the slots
        know."""
        base = f"{chat_key(game)}:dm:{person}"
        number = self.notices.pop((game, person), None)
        for known in range(DECK_SIZE // MIN_PLAYERS, 0, -1):
            if number is not None:
                break
            if await self._noticed(game, f"{base}:r{known}", game_id):
                number = known
        if number is not None:
            bare = Post(game=game, text="", slot=f"{base}:r{number}", bare=True)
            self.outbox.put(bare.target, bare, key=bare.slot, low=True)

    async def _texts(self, chat: str) -> Texts:
        """The texts of a game chat's language."""
        return await self.service.texts(chat)

    async def _own_texts(self, interaction: Interaction, chat: str) -> Texts:
        """The texts of what `interaction`'s person alone sees (an ephemeral reply): their
        client's language where a catalog has it, as the service words its answers to them
        (`Request.alone`); else the chat's."""
        own = catalog_language(str(interaction.locale))
        return texts(own) if own is not None else await self._texts(chat)

    # --- handlers -------------------------------------------------------------------------------

    async def on_command(
        self,
        interaction: Interaction,
        kind: Kind,
        arg: str,
        *,
        public: bool = False,
        whom: discord.User | discord.Member | None = None,
        picks: bool = False,
    ) -> None:
        """A slash command: the game is the channel's. `public`: its answer is usually for
        everyone (a slow one is deferred in public). `whom`: the person its user option picked;
        `picks`: it has one, and with nobody picked there, a text that is exactly a user mention
        picks that user, and one with a mention in other words is refused (`_stray_mention`)."""
        channel = interaction.channel_id
        if channel is None:
            return
        chat = chat_key(channel)
        user = self._user(interaction)
        picked = None if whom is None else _person(whom)
        if picks and picked is None and (typed := mentioned(arg)) is not None:
            picked, arg = _mentioned(interaction, typed), ""
        request = Request(
            kind,
            clean(arg, ARG_LIMIT),
            private=interaction.guild_id is None,
            place=_place(interaction),
            whom=picked,
        )
        with about(chat):
            self.busy += 1
            try:
                if picks and _stray_mention(request):
                    await self._say(
                        interaction,
                        content(await self._no_mention(interaction, chat)),
                        ephemeral=True,
                    )
                    return
                if request.private and BY_KIND[kind].hosted:
                    await self._hosted(interaction, chat, user, request)
                    return
                if not await self._may_post(interaction, chat, kind):
                    return
                outcome = await self._handle(interaction, chat, user, request, public=public)
                reply = await self._split(
                    chat, outcome, user.id, here=kind is Kind.HAND, command=True
                )
                await self._respond(interaction, chat, reply, command=True)
            finally:
                self.busy -= 1

    async def _hosted(
        self, interaction: Interaction, chat: str, user: User, request: Request
    ) -> None:
        """A host's command in their DM `chat` (/options): the toggles of each lobby they host
        come as DMs of its channel's game (`GameService.for_host`), and the command is answered
        "Done", or with a refusal; one who hosts none is answered why; one whose DMs refuse the
        toggles, where else to see them (`_toggles_refused`)."""
        work = self._for_host(chat, user, request, str(interaction.id))
        reply, refused = await self._in_time(interaction, asyncio.ensure_future(work), public=False)
        if refused:
            for text in packed(refused):  # a line a lobby: as many messages as they take
                await self._say(interaction, text, ephemeral=True)
        else:
            await self._respond(interaction, chat, reply, command=True)

    async def _for_host(
        self, chat: str, user: User, request: Request, update: str
    ) -> tuple[Reply, list[str]]:
        """What `_hosted` answers, once the toggles are queued and, where they go to the
        host's DMs, delivered or refused (at most `DELIVERY_WAIT` seconds): the reply, and
        what a host whose DMs refused them is told instead (as Discord shows it, a line a
        lobby; none where nothing was refused). Delivered, each lobby is read again, and the
        toggles edited where it moved on meanwhile (`GameService.toggles_now`): a change
        written while they were on their way found no toggles of theirs to edit."""
        done = await self.service.for_host(chat, user, request, update)
        reply = Reply()
        refused: list[int] = []
        for game, outcome in done:
            if game == chat:  # they host no lobby: what they are told
                reply.public = next(iter(outcome.messages), None)
            else:
                items = posts(game, replace(outcome, answer=None), self.links)
                channel = discord_id(game)
                mine = [
                    queued
                    for item, queued in zip(items, await self._queue(items), strict=True)
                    if item.user == discord_id(user.id) and item.slot is not None
                ]
                if not await _refused(mine):
                    now = await self.service.toggles_now(game, user.id, outcome.version)
                    await self.show(game, now)
                elif channel is not None:
                    refused.append(channel)
            if outcome.alert and reply.answer is None:
                reply.answer, reply.alert = outcome.answer, True
        if refused and reply.answer is None:
            return reply, _toggles_refused(user, refused, self.config.language)
        return reply, []

    async def _no_mention(self, interaction: Interaction, chat: str) -> str:
        """The answer to a person's text holding a mention that picks nobody alone."""
        t = await self._own_texts(interaction, chat)
        # TRANSLATORS: said on Discord to one who typed a role, a channel, or a mention with
        # other words into /stats's name option. "player" is the option's name: keep it.
        return t(
            "To see someone's stats, pick one person in the player option, or type the name "
            "they play under."
        )

    async def on_button(self, interaction: Interaction, channel: int, payload: str) -> None:
        """A press on a game button. In a server the game is the channel's; in a DM, the channel
        named in the custom id (the service refuses it unless the presser plays there). A press
        in a DM, or on a message shown to the presser alone in the channel (their hand while
        their DMs are closed), is aside (`Request.aside`): what it shows them is a new message
        of theirs, so a hint is posted once a decision there too."""
        message = interaction.message
        ephemeral = message is not None and message.flags.ephemeral
        aside = interaction.guild_id is None or ephemeral
        await self._press(interaction, channel, Request(Kind.BUTTON, payload, aside=aside))

    async def on_hand(self, interaction: Interaction, channel: int) -> None:
        """A press on "Your hand": the presser's own hand, ephemerally."""
        await self._press(interaction, channel, Request(Kind.HAND))

    async def _press(self, interaction: Interaction, channel: int, request: Request) -> None:
        game = interaction.channel_id if interaction.guild_id is not None else channel
        if game is None:
            return
        chat = chat_key(game)
        with about(chat):
            self.busy += 1
            try:
                if not await self._may_post(interaction, chat, request.kind):
                    return
                user = self._user(interaction)
                request = replace(request, place=_place(interaction))
                outcome = await self._handle(interaction, chat, user, request, public=None)
                ephemeral = interaction.message is not None and interaction.message.flags.ephemeral
                here = request.kind is Kind.HAND or ephemeral
                mirror = ephemeral and request.kind is not Kind.HAND
                reply = await self._split(
                    chat, outcome, user.id, here=here, command=False, mirror=mirror
                )
                if ephemeral and request.kind is Kind.BUTTON:
                    await self._as_now(interaction, chat, user.id, reply)
                await self._respond(interaction, chat, reply, command=False)
            except Exception as error:
                if _unanswerable(error):  # nothing to apologise with either
                    log.warning("could not answer a Discord button press: %s", error)
                    return
                if caused_by_store(error):  # Redis is away: said once, no traceback
                    log.warning("could not handle a Discord button press: %s", error)
                else:
                    log.exception("error handling a Discord button press")
                await self._apologise(interaction, chat, error)
            finally:
                self.busy -= 1

    async def on_interaction(self, interaction: Interaction) -> None:
        """Every interaction (after discord.py routed it): a press on a button that is not one
        of ours, or not on its message, is refused rather than left unanswered."""
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        if buttons.ours(custom_id) and _on_message(interaction, custom_id):
            return
        if interaction.response.is_done():
            return
        chat = chat_key(interaction.channel_id or 0)
        t = await self._own_texts(interaction, chat)
        with contextlib.suppress(discord.HTTPException):
            await interaction.response.send_message(t(NOT_OURS), ephemeral=True)

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted (the gateway tells of those the cache knows): its game ends."""
        await self._unseen([channel.id])

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A thread was deleted (with its channel, or alone): its game ends."""
        await self._unseen([payload.thread_id])

    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        """A thread changed: one a moderator locked (archived and locked) is sent nothing
        until the gateway says it is open again, and the players of its game are told now
        (`Sender.thread_update`)."""
        metadata = payload.data.get("thread_metadata", {})
        locked = bool(metadata.get("archived") and metadata.get("locked"))
        with about(chat_key(payload.thread_id)):
            self.busy += 1
            try:
                await self.sender.thread_update(payload.thread_id, locked)
            except StoreErrors as error:  # the next post finds it, refused
                log.warning(
                    "could not note thread %s as locked or open: %s", payload.thread_id, error
                )
            finally:
                self.busy -= 1

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot left the server, or was removed from it: the games of its channels and
        threads end."""
        await self._unseen([channel.id for channel in (*guild.channels, *guild.threads)])

    async def _unseen(self, channels: list[int]) -> None:
        """The bot can no longer post in these channels: a game going on in one ends, and its
        players are told in their DMs (`GameService.unseen`); the channel is sent nothing."""
        for channel in channels:
            chat = chat_key(channel)
            with about(chat):
                self.busy += 1
                try:
                    await self.show(chat, await self.service.unseen(chat))
                finally:
                    self.busy -= 1

    async def on_command_error(
        self, interaction: Interaction, error: app_commands.AppCommandError
    ) -> None:
        """Log the error and say sorry, ephemerally (unless Discord took no answer: then
        it would take no apology either). A command this version does not have (another
        version synced it, or the person's client has not yet seen it go) is no error: they
        are told it is not understood."""
        chat = chat_key(interaction.channel_id or 0)
        with after(error):
            if isinstance(error, app_commands.CommandNotFound):
                log.info("a Discord command this version does not have: /%s", error.name)
                t = await self._own_texts(interaction, chat)
                await self._tell(interaction, error_text(t, ErrorCode.BAD_COMMAND))
                return
            if _unanswerable(error):
                log.warning("could not answer a Discord command: %s", error)
                return
            if caused_by_store(error):
                log.warning("could not handle a Discord command: %s", error)
            else:
                log.error("error handling a Discord command", exc_info=error)
        await self._apologise(interaction, chat, error)

    async def _apologise(self, interaction: Interaction, chat: str, error: BaseException) -> None:
        """Say sorry, ephemerally (or that the store cannot be reached, when that was the
        cause), in the person's client language where a catalog has it, as `_own_texts`."""
        own = catalog_language(str(interaction.locale))
        await self._tell(interaction, await self.service.apology(chat, error, own=own))

    @staticmethod
    async def _tell(interaction: Interaction, text: str) -> None:
        """Answer an interaction with `text`, ephemerally (by a followup once it has an
        answer); if Discord refuses it, there is nothing more to say."""
        with contextlib.suppress(discord.HTTPException):
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)

    async def _may_post(self, interaction: Interaction, chat: str, kind: Kind) -> bool:
        """Whether the bot may show what a command or a press posts in the game's channel; if
        not, the person is told which permission it lacks, ephemerally, and nothing is done: a
        game nobody sees, or a lobby that never shows who joined, would be worse. In a server
        channel Discord includes the bot's own permissions in the interaction. A press in a DM
        (on a hand) changes the game's channel too: the bot's permissions there are what the
        client's cache of the guild says, and when it does not know the channel (its gateway
        has not described the guild yet) the press is taken, as nothing says otherwise. A
        request answered by the interaction alone (`ANSWERED_HERE`) is not checked."""
        if kind in ANSWERED_HERE:
            return True
        there = None  # the game's channel, when the interaction is elsewhere (a DM)
        if interaction.guild_id is not None:
            permissions = interaction.app_permissions
            thread = isinstance(interaction.channel, discord.Thread)
        elif (there := discord_id(chat)) is not None and (
            cached := cached_permissions(self.client, there)
        ) is not None:
            permissions, thread = cached
        else:
            return True
        missing = missing_permissions(permissions, thread)
        if not missing:
            return True
        t = await self._own_texts(interaction, chat)
        if there is None:
            # TRANSLATORS: {permissions}: the names of Discord permissions the bot lacks in the
            # channel, separated by commas ("Send Messages", "Attach Files").
            said = t.ngettext(
                "I may not post in this channel, so the game could not be seen here. An admin "
                "can give me this permission in the channel's settings: {permissions}.",
                "I may not post in this channel, so the game could not be seen here. An admin "
                "can give me these permissions in the channel's settings: {permissions}.",
                len(missing),
            )
        else:
            # TRANSLATORS: said in a DM to a player who pressed a button of their hand there.
            # {channel}: the game's channel, shown by Discord as its name (#wizards);
            # {permissions}: as in "I may not post in this channel...".
            said = t.ngettext(
                "I may not post in {channel}, the game's channel, so the game could not be seen "
                "there. An admin can give me this permission in that channel's settings: "
                "{permissions}.",
                "I may not post in {channel}, the game's channel, so the game could not be seen "
                "there. An admin can give me these permissions in that channel's settings: "
                "{permissions}.",
                len(missing),
            )
        names = ", ".join(t(name) for name in missing)
        text = content(said).format(permissions=names, channel=f"<#{there}>")
        await self._say(interaction, text, ephemeral=True)
        return False

    # --- translating ----------------------------------------------------------------------------

    def _user(self, interaction: Interaction) -> User:
        person = interaction.user
        admin = interaction.guild_id is not None and is_admin(interaction.permissions)
        name = display_name(person.display_name, person.id)
        return User(user_key(person.id), name, admin, language=str(interaction.locale))

    async def _handle(
        self,
        interaction: Interaction,
        chat: str,
        user: User,
        request: Request,
        *,
        public: bool | None,
    ) -> Outcome:
        """The service's outcome; the interaction is deferred first if it takes long: a press
        silently, a command with a "thinking" placeholder (public if `public`), which its
        answer replaces (see `_say`)."""
        task = asyncio.ensure_future(self._serve(interaction, chat, user, request))
        outcome = await self._in_time(interaction, task, public=public)
        if outcome.version is not None:  # the service read the game in a task of its own
            playing(outcome.version[0])
        return outcome

    async def _in_time(
        self, interaction: Interaction, task: asyncio.Future[T], *, public: bool | None
    ) -> T:
        """What `task` gives; the interaction is deferred first if it takes long: a press
        silently, a command with a "thinking" placeholder (public if `public`), which its
        answer replaces (see `_say`)."""
        done, _ = await asyncio.wait({task}, timeout=self.defer_after)
        if not done:
            with contextlib.suppress(discord.HTTPException):
                if public is None:
                    await interaction.response.defer()
                else:
                    await interaction.response.defer(ephemeral=not public, thinking=True)
                    interaction.extras[PLACEHOLDER] = public
        return await task

    async def _serve(
        self, interaction: Interaction, chat: str, user: User, request: Request
    ) -> Outcome:
        """The service's outcome of `request`, whose answer Discord shows the person alone
        (`Request.alone`: worded in their client's language); for a press, the message it came
        from is adopted first if it needs to be (`_adopt`)."""
        if request.kind is Kind.BUTTON:
            await self._adopt(interaction, chat, user)
        alone = replace(request, alone=True)  # its answer is ephemeral: `_own_texts`
        return await self.service.handle(chat, user, alone, str(interaction.id))

    async def _adopt(self, interaction: Interaction, chat: str, user: User) -> None:
        """A press in a DM on a hand message newer than the one the slot map names (a crash
        lost its record, see `adapters.slots`): it is the hand's message again, the one named
        before loses its buttons, and it shows the hand as it is now, in place (before what
        the press changes), so the newest message is the live one. With Redis away, the next
        press tries again."""
        message, where, game = interaction.message, interaction.channel_id, discord_id(chat)
        if interaction.guild_id is not None or message is None or message.flags.ephemeral:
            return
        if where is None or game is None:
            return
        found = await self.slots.adopt_hand(where, chat, user.id, message.id, self.service.current)
        if found is None:
            return
        adopted, hand = found
        if adopted.replaced is not None:
            self._superseded(Post(game=game, text="", user=interaction.user.id), adopted.replaced)
        await self.show(chat, hand)

    async def _split(
        self,
        chat: str,
        outcome: Outcome,
        actor: str,
        *,
        here: bool,
        command: bool,
        mirror: bool = False,
    ) -> Reply:
        """Queue what goes to the channel and DMs; keep what the interaction itself shows: the
        actor's private messages when they are to be shown here (or their DMs are closed), and
        for a command its first plain message for the channel (the rules, the scores...). With
        `mirror` (a move on an ephemeral hand), the actor's DM is updated too, if it is open."""
        reply = Reply(answer=outcome.answer, alert=outcome.alert, version=outcome.version)
        person = discord_id(actor)
        closed = person is not None and self.sender.dms_closed(person)
        rest = []
        for message in outcome.messages:
            if message.to == actor and (here or closed):
                reply.private.append(message)
                if mirror and not closed:
                    rest.append(message)
            elif command and reply.public is None and message.to is None and message.slot is None:
                reply.public = message
            else:
                rest.append(message)
        game = discord_id(chat)
        over = any(item.slot == "hand" and item.round is None for item in reply.private)
        ended = None  # (channel, person): their game is over, as in `_dms_closed`
        if closed and over and game is not None and person is not None:
            ended = (game, person)
            game_id = outcome.version[0] if outcome.version is not None else None
            await self._retire_notice(game, person, game_id)
        await self.show(chat, replace(outcome, messages=tuple(rest), answer=None))
        if ended is not None:  # once the end is queued: the notice's edit waits behind it
            await self._forget_refusal(*ended)
        return reply

    async def _as_now(self, interaction: Interaction, chat: str, actor: str, reply: Reply) -> None:
        """A press on an ephemeral hand that shows the presser nothing (it changed nothing, say
        a mark cleared that is gone, or it was refused): the hand pressed shows the hand as it
        is now, in place, unless it shows that already. Nothing else ever edits an ephemeral
        hand, so it would go on saying what is no longer true (a card marked that was played,
        or dropped) and offering its buttons; a DM hand that a new one supersedes loses them."""
        if reply.private or interaction.message is None:
            return
        now = await self.service.current(chat)
        hand = next((m for m in now.messages if m.to == actor and m.slot == "hand"), None)
        item = None if hand is None else post(chat, hand, version=now.version, links=self.links)
        if hand is not None and item is not None and not _shows(interaction.message, item):
            reply.private.append(hand)
            reply.version = now.version

    async def _respond(
        self, interaction: Interaction, chat: str, reply: Reply, *, command: bool
    ) -> None:
        """Acknowledge the interaction with what it shows (once; by followup if deferred); then
        it is the person's newest in the channel (`_remember`)."""
        response = interaction.response
        deferred = response.is_done()
        said = False
        ephemeral_press = (
            not command and interaction.message is not None and interaction.message.flags.ephemeral
        )
        # their hand (or result) with buttons it shows: its id, and whether it is the original
        # message, and what it shows; the one shown before, left behind
        shown: tuple[int, bool] | None = None
        kept: Post | None = None
        left: int | None = None
        lost: Post | None = None  # the hand pressed, shown now without buttons
        said_id: int | None = None
        make = partial(post, chat, version=reply.version, links=self.links)
        mine = [(message.slot, item) for message in reply.private if (item := make(message))]
        if mine:
            # the hand (the actor's message of the "hand" slot) answers, or updates the
            # ephemeral hand pressed; anything else for them (a hint, a wings notice) is an
            # ephemeral message of its own, so the hand pressed keeps its buttons; a hand said
            # anew comes last, under what else they are shown (a hint: docs/players.md)
            hand = next((item for slot, item in mine if slot == "hand"), None)
            others = [other for _slot, other in mine if other is not hand]
            # with more to show, a hand that asks for a press is said anew under the rest,
            # the one pressed left behind without its buttons (a hand with the web table's
            # link alone asks nothing: the one pressed shows it, above their result say)
            anew = hand is not None and ephemeral_press and bool(others) and hand.asks
            if hand is not None and ephemeral_press:
                if anew:
                    text, keys = hand.behind or hand.text, None
                else:
                    text, keys = hand.text, buttons.view(hand.keys)
                if not deferred:
                    await response.edit_message(content=text, view=keys)
                else:
                    await interaction.edit_original_response(content=text, view=keys)
                if keys is None:  # kept no more at once: what comes meanwhile leaves it be
                    await self._lost(chat, interaction, hand)
                    if not anew:
                        lost = hand
            for other in others:
                said_id = await self._say(
                    interaction, other.text, view=buttons.view(other.keys), ephemeral=True
                )
                if is_hand(other) and other.keys and said_id is not None:
                    shown = (said_id, False)  # their result, with Play again, under their hand
                    kept = other
            if hand is not None and (anew or not ephemeral_press):
                said_id = await self._say(
                    interaction, hand.text, view=buttons.view(hand.keys), ephemeral=True
                )
            # its original message is the hand with its buttons: the hand pressed, edited in
            # place, or one shown as its whole answer ("Your hand"); a new one leaves the one
            # shown before behind
            if hand is not None and ephemeral_press and interaction.message is not None:
                if anew and said_id is not None:
                    shown, kept = (said_id, False), hand  # under a hint: the one pressed lost them
                elif hand.asks and not anew:
                    shown, kept = (interaction.message.id, True), hand
            elif hand is not None and hand.keys and not others and not deferred:
                shown, kept = (None if said_id is None else (said_id, True)), hand
                if (game := discord_id(chat)) is not None:
                    left = await self._leave_behind(game, interaction.user.id, hand)
            said = True
        elif reply.public is not None:
            public = post(chat, reply.public)
            assert public is not None
            file, first, text = await _public(public)
            for block in first:
                await self._say(interaction, block, ephemeral=False)
            await self._say(
                interaction, text, view=buttons.view(public.keys), file=file, ephemeral=False
            )
            said = True
        if reply.answer and (not said or reply.alert):
            await self._say(interaction, content(reply.answer), ephemeral=True)
        elif not said and command:
            t = await self._own_texts(interaction, chat)
            await self._say(interaction, t("Done"), ephemeral=True)
        elif not said and not response.is_done():
            await response.defer()  # a press that shows nothing more: the message changes
        await self._remember(interaction, chat, shown=shown, kept=kept, left=left, lost=lost)

    async def _lost(self, chat: str, interaction: Interaction, hand: Post) -> None:
        """The ephemeral hand pressed (`interaction`'s message) lost its buttons, in the edit
        that answered the press (showing `hand`): if it is the one kept (`Followups.show`),
        it is kept no more (`Followups.lost`), at once, so that a hand or result shown to them
        meanwhile (posted again under a review a tick handed over) finds none to leave behind;
        but the state it shows is, so that a hand followed up later that shows an older one
        is shown as it is now (`_not_behind`). If the store is away, it stays kept (logged):
        a later one edits it for nothing."""
        game = discord_id(chat)
        if interaction.guild_id is None or game is None or interaction.message is None:
            return
        person = interaction.user.id
        version = hand.version if hand.round is not None else None
        try:
            await self.followups.lost(game, person, interaction.message.id, version)
        except StoreErrors as error:
            log.warning("could not forget the hand of %s: %s", person, error)

    async def _outdated(
        self, game: int, person: int, hand: Post, done: tuple[int | None, ...]
    ) -> None:
        """The answer to `person`'s press showed `hand` (in a round) without buttons, in place
        of the hand pressed: a hand kept meanwhile (not one of those `done` with), followed up
        to them while the press was answered (their hand again under a review), that shows an
        older state of the game still asks for the move made. It loses its buttons, showing
        `hand` (in a locked thread it is deleted: `_unbutton`), and is kept no more."""
        kept = await self.followups.kept(game, person)
        if kept is None or kept.lost or kept.message in done:
            return
        if not _behind(kept.version, hand.version):
            return
        webhook = self.followups.webhook_of(self.client, kept)
        if webhook is not None:
            await self._unbutton(game, person, webhook, kept.message, hand, kept.original)
        await self.followups.lost(game, person, kept.message, hand.version)

    async def _remember(
        self,
        interaction: Interaction,
        chat: str,
        shown: tuple[int, bool] | None = None,
        kept: Post | None = None,
        left: int | None = None,
        lost: Post | None = None,
    ) -> None:
        """Keep an interaction in a server channel as its person's newest there (`followups`),
        once it is answered: the first followup of an interaction still deferred takes the
        place of its "thinking" placeholder, public if that is, so a private message must not
        be the one. If the store is away, their earlier one stays (it is logged). `shown`: a
        message of it (its id, and whether it is its original message) is their hand with
        its buttons, or their result with Play again (`kept`): the one kept before (not the
        one pressed, nor the one `left` behind already) loses its buttons, or, newer (shown to
        them meanwhile), leaves this one behind instead (`_keep`). (The hand pressed is kept
        no more as soon as it loses its buttons: `_lost`; `lost`: it shows that hand now,
        without buttons, and a hand kept meanwhile that shows an older state loses them too,
        `_outdated`.)"""
        game = discord_id(chat)
        if interaction.guild_id is None or game is None:
            return
        person = interaction.user.id
        try:
            await self.followups.remember(interaction, game)
            done = (left, interaction.message.id if interaction.message is not None else None)
            if shown is not None:
                message, original = shown
                followup = interaction.followup
                await self._keep(
                    game, person, followup, message, kept, original=original, done=done
                )
            elif lost is not None and lost.round is not None:
                await self._outdated(game, person, lost, done)
        except StoreErrors as error:
            log.warning("could not keep an interaction of %s: %s", person, error)

    async def _say(
        self,
        interaction: Interaction,
        text: str,
        *,
        ephemeral: bool,
        view: discord.ui.View | None = None,
        file: discord.File | None = None,
    ) -> int | None:
        """An interaction's response, or a followup once it has one; the id of its message
        (Discord says it), if it does."""
        extra: dict[str, Any] = {}
        if view is not None:
            extra["view"] = view
        if file is not None:
            extra["file"] = file
        placeholder = interaction.extras.pop(PLACEHOLDER, None)
        if placeholder is not None and placeholder == ephemeral:
            # The first followup replaces the "thinking" placeholder, public or not as it is:
            # one of the other kind goes in its own message once the placeholder is gone.
            with contextlib.suppress(discord.HTTPException):
                await interaction.delete_original_response()
        if interaction.response.is_done():
            sent = await interaction.followup.send(text, ephemeral=ephemeral, wait=True, **extra)
            return sent.id
        answer = await interaction.response.send_message(text, ephemeral=ephemeral, **extra)
        return answer.message_id


ORIGINAL = cast("int", "@original")
"""What a webhook's message id is for an interaction's original message (its answer, or the
message its button is on where the answer edited that), as Discord's API names it in the
path; discord.py's `Webhook.edit_message` puts the id in the path as it is."""

UNANSWERABLE = frozenset({10015, 10062, 40060})
"""Discord's codes for an answer it takes no more: the interaction is unknown (it expired:
Discord waits 3 seconds for the first answer), so is its webhook (for a followup), or it was
answered already (the gateway delivered it twice: the first delivery answered it)."""


def _unanswerable(error: BaseException | None) -> bool:
    """Whether `error`, or an error it wraps (`raise ... from`: discord.py's
    `CommandInvokeError`), is Discord refusing an interaction's answer as one it takes no
    more (`UNANSWERABLE`): what the interaction did stands, and the person sees Discord's own
    "This interaction failed". An error raised while handling such a refusal is not one."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, discord.HTTPException) and error.code in UNANSWERABLE:
            return True
        error = error.__cause__
        seen += 1
    return False


async def _public(shown: Post) -> tuple[discord.File | None, list[str], str]:
    """A command's public answer (the rules, the scores...) as it is sent: its file, the
    messages that go before it and its own text. A picture that cannot be drawn (a font
    missing, a Pillow error) is its text form instead, as a game's end shows it where the
    channel takes no files (`with_text`): below the text, or, too long for one message, in
    messages of their own before it."""
    if shown.attachment is not None:
        name, data = shown.attachment
        return discord.File(io.BytesIO(data), filename=name), [], shown.text
    if shown.picture is None:
        return None, [], shown.text
    file = await drawn(shown.picture)
    if file is not None:
        return file, [], shown.text
    *first, text = with_text(shown.text, shown.picture)
    return None, first, text


async def _refused(delivered: list["asyncio.Future[object] | None"]) -> bool:
    """Whether the host's DMs refused their toggles: one was not tried (known closed), or
    Discord refused it (waited for at most `DELIVERY_WAIT` seconds: a slow one counts as sent,
    as before)."""
    if any(queued is None for queued in delivered):
        return True
    waits = [queued for queued in delivered if queued is not None]
    if waits:
        await asyncio.wait(waits, timeout=DELIVERY_WAIT)
    return any(queued.done() and queued.result() is Delivery.CLOSED for queued in waits)


def _toggles_refused(user: User, channels: list[int], language: str) -> list[str]:
    """What a host whose DMs refused the toggles of their lobbies in `channels` is told, in
    their client's language, as Discord shows it, a line a lobby: where to see them instead,
    and how to open their DMs."""
    t = texts(catalog_language(user.language) or language)
    # TRANSLATORS: answers a host's /options in their Discord DMs. {channel}: the lobby's
    # channel, shown by Discord as its name (#wizards). "Privacy Settings" is Discord's menu
    # of a server: use its name in Discord's own translation.
    said = content(
        t(
            "I cannot send you the options of the table in {channel} here: your DMs are "
            "closed to me. Send /options in {channel}, and the table's message there shows "
            "them. To get them in your DMs, allow direct messages from that server's members "
            "(in its Privacy Settings)."
        )
    )
    return [said.format(channel=f"<#{channel}>") for channel in channels]


def _person(person: discord.abc.User) -> User:
    """A person a command's user option picked, as the service knows them (their server
    nickname, as at the table; whether Discord says they are a bot)."""
    return User(user_key(person.id), display_name(person.display_name, person.id), bot=person.bot)


def _mentioned(interaction: Interaction, user_id: int) -> User:
    """The person a mention typed as a command's text names (`<@42>`): this bot, as it knows
    itself; else as Discord sent them with the interaction (`resolved`, their server nickname
    first); else as the client's cache of the server knows them; else by the id alone (`#42`:
    the service finds them in its stats by their id all the same)."""
    me = interaction.client.user
    if me is not None and me.id == user_id:
        return _person(me)
    found = _resolved(interaction, user_id)
    if found is not None:
        return found
    member = interaction.guild.get_member(user_id) if interaction.guild is not None else None
    if member is not None:
        return _person(member)
    return User(user_key(user_id), display_name(None, user_id))


def _resolved(interaction: Interaction, user_id: int) -> User | None:
    """A user as the interaction's `resolved` data has them (Discord adds the people mentioned
    in its text options, as for a user option), as `_person` names them; None if it has not."""
    data: Mapping[str, Any] = cast(Mapping[str, Any], interaction.data or {})
    resolved = data.get("resolved") or {}
    found = (resolved.get("users") or {}).get(str(user_id))
    if not isinstance(found, dict):
        return None
    member = (resolved.get("members") or {}).get(str(user_id)) or {}
    name = member.get("nick") or found.get("global_name") or found.get("username")
    return User(user_key(user_id), display_name(name, user_id), bot=bool(found.get("bot")))


def _stray_mention(request: Request) -> bool:
    """A server's request that picks nobody, with a mention in its text: a role's, a channel's,
    or a person's among other words (`/stats name:<@&42>`), which no player is called."""
    return request.whom is None and not request.private and mentions_any(request.arg)


def _behind(version: tuple[str, int] | None, newer: tuple[str, int] | None) -> bool:
    """Whether what shows the game at `version` shows an older state of the same game than
    what shows it at `newer`; not where either is not known."""
    return (
        version is not None
        and newer is not None
        and version[0] == newer[0]
        and version[1] < newer[1]
    )


def _asks_later(items: list[Post], person: int) -> bool:
    """Whether `items` hold the person's hand asking for their attention (`Post.notify`) in a
    round (a turn of theirs)."""
    return any(
        item.user == person and item.round is not None and item.notify and item.slot is not None
        for item in items
    )


def _shows(message: discord.Message, item: Post) -> bool:
    """Whether `message` shows `item` already: its text and its buttons."""
    shown = [
        (child.label, child.custom_id, child.url)
        for row in message.components
        for child in getattr(row, "children", ())
        if isinstance(child, discord.Button)
    ]
    wanted = [(key.label, key.custom_id or None, key.url) for row in item.keys for key in row]
    return message.content == item.text and shown == wanted


def _place(interaction: Interaction) -> str | None:
    """The name of the server channel an interaction came from (`place_name`); None in a DM."""
    if interaction.guild_id is None:
        return None
    guild = interaction.guild
    channel = getattr(interaction.channel, "name", None)
    return place_name(channel, guild.name if guild is not None else None)


def _on_message(interaction: Interaction, custom_id: str) -> bool:
    """Whether the pressed button is on the message (else discord.py drops the press)."""
    message = interaction.message
    if message is None:
        return False
    for row in message.components:
        for child in getattr(row, "children", ()):
            if getattr(child, "custom_id", None) == custom_id:
                return True
    return False
