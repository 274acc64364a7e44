"""A request through the command table: which command it is, its argument (typed: a pressed bid
is an int, a pressed card a Card), whether this person may give it, then its handler.

A typed command is read from its text; a pressed button from its payload, after the payload is
checked to be ours, of this chat's game and of the decision the game waits for (a stale or forged
press changes nothing).
"""

from dataclasses import replace
from typing import Any

from bot import tokens
from bot.chat import HANDLERS, Context, Refusal, Refused, Result, refuse_aloud
from bot.commands import BY_ACTION, BY_KIND, BadArgument, CommandSpec, Kind, Who
from bot.requests import Request
from bot.tokens import GAME_OVER, NOT_OURS, Action
from engine import Phase


def apply(ctx: Context, request: Request) -> Result:
    """Apply `request` in `ctx` (raises Refused or RuleError for one that changes nothing)."""
    ctx = replace(ctx, aside=request.aside, typed=request.kind is not Kind.BUTTON)
    if request.kind is Kind.BUTTON:
        spec, value = _press(ctx, request.arg)
    else:
        spec = BY_KIND[request.kind]
        if spec.table:
            ctx.table()
        _allow(ctx, spec)
        if request.aloud and spec.move:
            refuse_aloud(ctx, spec.kind)
        try:
            value = spec.arg.read(request.arg, ctx.look.theme)
        except BadArgument as error:
            raise Refused(error.say(ctx.own.t), Refusal.BAD_ARGUMENT) from None
    return _opened(ctx, _titled(ctx, HANDLERS[spec.kind](ctx, value), request.place), request)


def _opened(ctx: Context, result: Result, request: Request) -> Result:
    """`result`, whose table, when it opens one (a new game), keeps where in the chat the
    request was given (`Table.where`): the game's posts go there."""
    write = result.write
    table = None if write is None else write.table
    before = ctx.snap.table
    if table is not None and (before is None or before.game_id != table.game_id):
        table.where = request.where
    return result


def _titled(ctx: Context, result: Result, place: str | None) -> Result:
    """`result`, whose write (if it writes) keeps the chat's name as the request brought it,
    when that changed: the title rides on a write the request makes anyway, never one of its
    own."""
    write = result.write
    if write is None or not place:
        return result
    settings = write.settings or ctx.snap.settings
    if settings.title == place:
        return result
    return replace(result, write=replace(write, settings=replace(settings, title=place)))


def _press(ctx: Context, payload: str) -> tuple[CommandSpec, Any]:
    t = ctx.own.t
    try:
        token = tokens.decode(payload)
    except tokens.TokenError:
        raise Refused(t(NOT_OURS), Refusal.FOREIGN_BUTTON) from None
    table = ctx.snap.table
    again = token.action is Action.AGAIN and table is not None and table.after == token.game
    if again and table is not None and table.game.phase is Phase.LOBBY:
        return BY_ACTION[token.action], None  # a seat at the table opened with this button
    if table is None or token.game != table.game_id:
        raise Refused(t(GAME_OVER), Refusal.OLD_GAME)
    if not tokens.current(token, table.game):
        raise Refused(t("This button is out of date."), Refusal.STALE_BUTTON)
    spec = BY_ACTION[token.action]
    try:
        value = spec.arg.button(token.arg)
    except ValueError:
        raise Refused(t(NOT_OURS), Refusal.FOREIGN_BUTTON) from None
    _allow(ctx, spec)
    return spec, value


def _allow(ctx: Context, spec: CommandSpec) -> None:
    """Refuse someone the command table does not let give `spec`."""
    if spec.who is Who.SEATED:
        ctx.seat()
    elif spec.who is Who.HOST:
        table = ctx.table()
        if ctx.user.id != table.host and not ctx.user.admin:
            raise Refused(ctx.own.t(spec.denied), Refusal.DENIED)


def check_handlers() -> None:
    """Every command of the table has a handler, and every handler a command (the stats
    commands are the service's own: `bot.queries`)."""
    commands = {kind for kind, spec in BY_KIND.items() if not spec.query}
    assert commands == set(HANDLERS), commands ^ set(HANDLERS)


check_handlers()
