"""The web table in a real browser: headless Chromium (Debian's package, installed by the test
command when missing, `tests/browser.py`) driven by Playwright for Python.

A whole game of four seats on the short plan (`rounds=short`: five rounds of 1 to 5 cards, so
it stays quick) with hidden bids: Ann plays on the page, clicking bids and cards by their
`data-payload` as a person would, while Bob plays in the fake Telegram by pressing his hand
message's buttons, and two AI seats play in between. The page is kept current by its event
stream alone. Screenshots at each phase (bidding, playing, a trick won, the round's end with
its score pad, the game over) at 360 px wide, and one at a desktop width, are compared with the
golden PNGs in tests/golden/web/ (`pytest --update-golden` rewrites them; the desktop one is
also the README's picture, docs/images/web-table.png).

The tolerance: a pixel differs when one of its channels is off by more than 48 of 255, and a
screenshot matches when at most 0.5 % of its pixels differ. The screenshots are made
deterministic (fixed game ids, the Telegram front end's seeded service, the project's own
DejaVu Sans served to the page, the turn timer's digits hidden, animations off, the pointer
moved away); what is left is the antialiasing of glyph and SVG edges, which a different
Chromium or FreeType build may shift by a shade: a changed card, name, number or layout
changes far more than 0.5 % of a 360 px screenshot (one card is over 1 %).

A leak check: every response the page received (each `/api/view` and `/api/move` answer, read
by `page.on("response")`, and each event of its stream, read from the browser's own network
events) is checked against the game as stored at that version: no card of another seat's hand
(but in the trick or last trick, as played), and no other seat's bid before the bids are
revealed.

And from the browser's side, the forged credentials: a page opened with an altered, expired,
foreign-key or misdirected link, or forged, stale or another bot's Telegram `initData`, shows
the reason and no table.
"""

import asyncio
import contextlib
import dataclasses
import json
import random
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import pytest
import redis.asyncio as aioredis
from aiohttp import ClientSession
from browser import (
    IN_SESSION_LOOP,
    browser,
    chromium,
    compare_golden,
    pin_fonts,
    redis_client,
    shared_browser,
    use_pinned_fonts,
)
from playwright.async_api import Browser, Page, Response, Route, ViewportSize
from test_telegram import ANN, BOB, GROUP, Bot, game_ids, move, running, seat, until
from test_web import BOT_TOKEN, ann_and_two_ai, init_data, leaks, telegram_game

from adapters.relay import FORGET, relaying
from adapters.running import Shows
from adapters.web import auth
from adapters.web.server import MAX_STREAMS, WebTable
from bot import GameService, weblinks
from bot.config import Config, TelegramConfig, WebConfig
from bot.show.formatters import MEDALS, shown_points, signed_points
from bot.show.i18n import LANGUAGES, texts
from bot.show.themes import FRENCH_RANKS, Theme, card_name
from bot.store.relay import Relay
from bot.store.stats import StatsStore
from bot.table import Settings, Table
from engine import Phase, bids_met, legal_bids, table_view
from engine.cards import RANK_OF

__all__ = ["browser", "chromium", "game_ids", "redis_client", "shared_browser"]  # fixtures

pytestmark = [
    IN_SESSION_LOOP,
    pytest.mark.usefixtures("game_ids"),
    # PTB warns when it reads a 429's retry_after (the type changes in its next major version)
    pytest.mark.filterwarnings("ignore:.*retry_after:telegram.warnings.PTBDeprecationWarning"),
]

GOLDEN = Path(__file__).parent / "golden" / "web"
README_PICTURE = Path(__file__).resolve().parents[1] / "docs" / "images" / "web-table.png"
PHONE: ViewportSize = {"width": 360, "height": 740}
DESKTOP: ViewportSize = {"width": 1100, "height": 760}
SECRET = "s3cret"
CHAT = f"tg:{GROUP}"
HIDE_TIMER = "#timer { visibility: hidden !important; }"
"""The turn timer counts down in real time: its digits are hidden in screenshots (its place
stays), and the test checks its text instead."""


@dataclass
class Seen:
    """What the page received, and the game as stored at each version the test saw."""

    views: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    stored: dict[int, Table] = field(default_factory=dict)
    reading: list["asyncio.Task[None]"] = field(default_factory=list)

    def on_response(self, response: Response) -> None:
        if "/api/" in response.url and "/api/events" not in response.url:
            self.reading.append(asyncio.ensure_future(self._read(response)))

    async def _read(self, response: Response) -> None:
        data = json.loads(await response.body())
        view = data.get("view", data)
        if "version" in view:
            self.views.append((response.url.split("?")[0], view))

    def on_event(self, params: dict[str, Any]) -> None:
        if params.get("eventName") == "view":
            self.views.append(("event", json.loads(params["data"])))


@contextlib.asynccontextmanager
async def web_table(bot: Bot) -> AsyncIterator[WebTable]:
    """The web table on the Telegram front end's own service, serving on a free port of
    127.0.0.1; its moves are shown in the group by that front end (`Shows`), as
    `adapters.serve` wires it."""
    shows = Shows()
    shows.add("tg", bot.front.show_async)
    config = Config(
        telegram=TelegramConfig(token=bot.fake.token),
        web=WebConfig(secret=SECRET, init_data_ttl=3600),
    )
    table = WebTable(bot.front.service, config, bot.client, deliver=shows)
    await table.start("127.0.0.1:0")
    try:
        yield table
    finally:
        await table.stop()


async def caught_up(page: Page, version: int) -> None:
    """Wait until the page shows `version` (or a later one) and no move of its is under way."""
    await page.wait_for_function(
        "v => Number(document.querySelector('main').dataset.version) >= v"
        " && !document.body.classList.contains('busy')",
        arg=version,
        timeout=10_000,
    )


async def shoot(page: Page, request: pytest.FixtureRequest, name: str, *opened: str) -> None:
    """Screenshot the whole page with the folded parts `opened` (ids) unfolded, as a person
    clicks them open, and compare it with tests/golden/web/`name`.png; fold them again."""
    for part in opened:
        await page.click(f"#{part} > summary")
    # Nothing is wider than the screen (a wide score pad scrolls inside its panel).
    assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth"), name
    await page.mouse.move(0, 0)  # no card raised by the pointer over it
    png = await page.screenshot(full_page=True, animations="disabled", style=HIDE_TIMER)
    compare_golden(request, GOLDEN / f"{name}.png", png)
    for part in opened:
        await page.click(f"#{part} > summary")


DRAWN = """cells => cells.map(cell => (cell.querySelector("[aria-hidden]") || cell).textContent)"""
"""A row's cells as drawn: a score sheet cell's numbers, not its words for a screen reader."""

STANDINGS = """panel => [...panel.querySelectorAll("tr")].slice(1).map(row => [
  ...[...row.cells].filter(cell => cell.getClientRects().length && !cell.matches(".rating"))
    .map(cell => (cell.querySelector(".who") ?? cell).textContent),
  ...[...row.querySelectorAll(".rating")]
    .filter(rating => rating.getClientRects().length && rating.textContent)
    .map(rating => rating.textContent),
])"""
"""The rows of the final standings as drawn: each cell's text (a name cell's name) and, last,
the row's rating where it is drawn (its column, or its line under the name) and has one."""

MARKED = """panel => [...panel.querySelectorAll("td.rating, td .rating")]
  .filter(rating => rating.getClientRects().length && rating.textContent)
  .map(rating => [getComputedStyle(rating).color, getComputedStyle(rating).fontWeight])"""
"""The colour and weight of each rating drawn in the final standings, row by row (of the rows
that have one)."""

WIDE_AS_IT_WAS = """panel => [...panel.querySelectorAll("td:nth-child(2)")]
  .every(cell => cell.getBoundingClientRect().width >= 175)"""
"""Whether every name cell of the final standings keeps the room it had before the ratings."""


def bob_may_act(stored: Table, bob: int) -> bool:
    game = stored.game
    rnd = game.round
    if rnd is None:
        return False
    if game.phase is Phase.TRUMP:
        return rnd.dealer == bob
    if game.phase is Phase.BIDDING:
        return bool(legal_bids(game, bob))
    return game.phase is Phase.PLAYING and rnd.turn == bob


async def test_a_whole_game_on_the_page_against_two_ai_seats_and_a_chat_player(
    browser: Browser, redis_url: str, request: pytest.FixtureRequest
) -> None:
    seen = Seen()
    async with running(redis_url) as bot, web_table(bot) as table:
        await seat(bot, (ANN, BOB))
        await bot.command(GROUP, ANN, "/options bids=hidden")
        for _ in range(2):
            await bot.command(GROUP, ANN, "/addbot")
        await bot.command(GROUP, ANN, "/start")
        service = bot.front.service
        read = service.snapshot

        async def recorded(chat: str) -> tuple[int, Table | None, Settings]:
            """The service's read, keeping each table read (the web table makes every view
            it sends from one), so the leak check knows the game at each version shown."""
            version, stored, settings = await read(chat)
            if stored is not None:
                seen.stored[version] = stored
            return version, stored, settings

        service.snapshot = recorded  # type: ignore[method-assign]
        version, stored, _ = await service.snapshot(CHAT)
        assert stored is not None
        seen.stored[version] = stored
        players = [p.id for p in stored.game.players]
        ann, bob = players.index(f"tg:{ANN.id}"), players.index(f"tg:{BOB.id}")

        page = await browser.new_page(viewport=PHONE)
        page.on("response", seen.on_response)
        cdp = await page.context.new_cdp_session(page)
        await cdp.send("Network.enable")
        cdp.on("Network.eventSourceMessageReceived", seen.on_event)
        await pin_fonts(page)
        link = table.link(CHAT, f"tg:{ANN.id}", stored.game_id)
        await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
        await caught_up(page, version)
        await use_pinned_fonts(page)

        rng = random.Random(5)
        shots: list[str] = []
        clicks = presses = 0
        timers: set[str] = set()
        for _ in range(400):
            await bot.idle()
            version, stored, _ = await service.snapshot(CHAT)
            assert stored is not None
            seen.stored[version] = stored
            await caught_up(page, version)
            game = stored.game
            if game.phase is Phase.FINISHED:
                break
            rnd = game.round
            assert rnd is not None
            timers.add(await page.inner_text("#timer"))
            if "trick-won" not in shots and rnd.number >= 3 and sum(rnd.won) > 0:
                shots.append("trick-won")
                await shoot(page, request, "phone-trick-won", "last")
            if "round-end" not in shots and rnd.number == 4:
                shots.append("round-end")
                # Round 3's result, until round 4's play starts or Ann folds it away.
                summary = page.locator("#summary[data-kind=round]")
                assert "Round 3 is over." in await summary.inner_text()
                row = stored.game.results[2]
                cells = await summary.locator("tr").nth(1 + ann).locator("td").all_inner_texts()
                assert cells[1:] == [
                    "Ann",
                    str(row.bids[ann]),
                    str(row.won[ann]),
                    signed_points(row.points[ann]),
                    shown_points(row.totals[ann]),
                ], cells
                await shoot(page, request, "phone-round-end", "sheet")
                await summary.locator("button.close").click()
                assert await page.locator("#summary").is_hidden()
            offered = page.locator("#ask button[data-payload], #hand button.legal[data-payload]")
            count = await offered.count()
            if count:
                if "bidding" not in shots and rnd.number >= 3 and game.phase is Phase.BIDDING:
                    shots.append("bidding")
                    await shoot(page, request, "phone-bidding")
                if "playing" not in shots and rnd.number >= 3 and len(rnd.trick) > 0:
                    shots.append("playing")
                    await shoot(page, request, "phone-playing")
                if "desktop" not in shots and rnd.number == 5 and len(rnd.trick) > 0:
                    shots.append("desktop")
                    await page.set_viewport_size(DESKTOP)
                    await shoot(page, request, "desktop-playing", "last", "sheet")
                    if request.config.getoption("--update-golden"):
                        README_PICTURE.parent.mkdir(parents=True, exist_ok=True)
                        README_PICTURE.write_bytes((GOLDEN / "desktop-playing.png").read_bytes())
                    await page.set_viewport_size(PHONE)
                await offered.nth(rng.randrange(count)).click()
                clicks += 1
                await page.wait_for_function(
                    "v => Number(document.querySelector('main').dataset.version) > v",
                    arg=version,
                    timeout=10_000,
                )
            elif bob_may_act(stored, bob):
                await move(bot, (BOB,))
                presses += 1
            else:
                raise AssertionError(f"nobody acts at version {version}: {game.phase}")
        else:
            raise AssertionError("the game did not end")
        # The final standings: places, totals and bids met, best first, as the chat's; and
        # each seat's rating after the game and its change, as the chat's end says them, once
        # the chat's stats folded the game: an AI level's named, once at its better seat,
        # counted for its two seats (they share its one rating).
        final = page.locator("#summary[data-kind=final]")
        await final.locator(".provisional").wait_for(timeout=10_000)  # with the ratings
        folded = (await StatsStore(bot.client).fold(CHAT)).players
        public = table_view(stored.game)
        names = [f"🤖 {p.name}" if p.id in stored.ai else p.name for p in stored.game.players]
        order = sorted(range(len(names)), key=lambda s: (public.places[s], s))
        level, *others = sorted(stored.ai.values())
        assert others == [level], others  # two AI seats of one level
        ratings = {}  # by seat, of the seats whose row has one
        for s in order:
            player = players[s]
            standing = folded[f"ai:{stored.ai[player]}" if player in stored.ai else player]
            mark = "?" if standing.provisional else ""
            change = signed_points(standing.rating - 1000)  # a first game: each from 1000
            rating = f"{standing.rating}{mark} ({change})"
            if player not in stored.ai:
                ratings[s] = rating
            elif not any(shown.startswith("2×") for shown in ratings.values()):
                ratings[s] = f"2× AI ({level}) {rating}"
        said = next(
            line
            for text in bot.group_texts()
            for line in text.splitlines()
            if line.startswith("Ratings here: ")
        )
        assert all(f" {rating}" in said for rating in ratings.values()), (said, ratings)
        over = await final.inner_text()
        assert "The game is over" in over
        assert "Final standings" in over
        expected = [
            [
                MEDALS.get(public.places[s], f"{public.places[s]}."),
                names[s],
                shown_points(public.seats[s].total),
                f"{bids_met(public.sheet, s)}/{len(public.sheet)}",
                *([ratings[s]] if s in ratings else []),  # the level's other seat: none
            ]
            for s in order
        ]
        shown = await final.evaluate(STANDINGS)
        assert shown == expected, shown  # on a phone each rating a line under its name
        assert "Rating" not in await final.inner_text()  # its column is a desktop's
        assert await final.evaluate(WIDE_AS_IT_WAS)
        assert "? provisional: fewer than 5 games" in over
        # Ann's own rating marked as her turn is (the accent colour, bold); the others' not
        assert await final.locator("tr.you .who").all_text_contents() == ["Ann"]
        accent = await final.locator(".winners").evaluate("node => getComputedStyle(node).color")
        mine = [s == ann for s in order if s in ratings]
        assert [mark == [accent, "700"] for mark in await final.evaluate(MARKED)] == mine
        # The score sheet: each cell's total (the round's points) won/bid, points below zero
        # with the minus sign, as the chat writes them (drawn; its words are a screen reader's)
        cells = [
            await line.locator("td").evaluate_all(DRAWN)  # the sheet may be folded
            for line in await page.locator("#sheet table tr").all()
        ][1:]
        assert cells == [
            [
                str(row.round),
                *(
                    f"{shown_points(row.totals[s])} ({signed_points(row.points[s])}) "
                    f"{row.won[s]}/{row.bids[s]}"
                    for s in range(len(names))
                ),
            ]
            for row in public.sheet
        ]
        assert any("\u2212" in cell for row in cells for cell in row)  # some points lost
        standings = await page.locator(".standing").all_inner_texts()
        assert sorted(standings) == sorted(seat.standing(shown_points) for seat in public.seats)
        await shoot(page, request, "phone-game-over", "sheet")
        await page.set_viewport_size(DESKTOP)
        assert await final.evaluate(STANDINGS) == expected
        assert (await final.locator("th").all_inner_texts())[-1] == "Rating"
        assert [mark == [accent, "700"] for mark in await final.evaluate(MARKED)] == mine
        await shoot(page, request, "desktop-game-over")
        shots.append("game-over")
        assert any("The game is over" in text for text in bot.group_texts())
        # Play again on the page: the new table's lobby, Ann seated, under a fresh link that the
        # page's address keeps (a reload finds the new table), and the chat shows it too.
        await page.locator("#ask button[data-payload]", has_text="Play again").click()
        lobby = page.locator("#summary[data-kind=lobby]")
        await lobby.wait_for(timeout=10_000)
        assert "Ann 👑" in await lobby.locator("li").all_text_contents()
        _, opened, _ = await read(CHAT)
        assert opened is not None
        assert opened.after == stored.game_id
        fresh = page.url.partition("#link=")[2]
        followed = auth.check_link(table.secret, fresh, time.time())
        assert (followed.player, followed.game) == (f"tg:{ANN.id}", opened.game_id)
        await page.reload()
        await page.locator("#summary[data-kind=lobby]").wait_for(timeout=10_000)
        await bot.idle()
        assert "1. Ann 👑" in bot.lobby().text
        await asyncio.gather(*seen.reading)
        assert not bot.real_errors()
    assert shots == ["bidding", "playing", "trick-won", "round-end", "desktop", "game-over"]
    assert clicks >= 15  # every bid and card of Ann's (5 bids, 15 cards), all on the page
    assert presses >= 15  # and Bob's, in the chat
    assert {re.sub(r"\d", "9", text) for text in timers} == {"⏱ 9:99"}  # a running turn timer

    checked = hidden = 0
    for source, view in seen.views:
        at = seen.stored.get(view["version"])
        assert at is not None, (source, view["version"], sorted(seen.stored))
        assert leaks(view, at, ann) == [], (source, view["version"])
        checked += 1
        rnd = at.game.round
        hidden += bool(
            rnd is not None
            and not rnd.revealed
            and any(s["has_bid"] and s["bid"] is None for s in view["seats"])
        )
    assert checked > 40  # the page's every view: its answers and its stream's events
    assert {source.rsplit("/", 1)[-1] for source, _ in seen.views} == {"view", "move", "event"}
    assert hidden > 5  # views made while others' bids were hidden
    assert README_PICTURE.read_bytes() == (GOLDEN / "desktop-playing.png").read_bytes(), (
        "docs/images/web-table.png is the desktop golden (pytest --update-golden copies it)"
    )


async def test_a_page_with_forged_credentials_shows_why_and_no_table(
    browser: Browser, redis_url: str
) -> None:
    """Every forged or misdirected credential of tests/test_web.py's API check, opened in the
    browser as a person would open the address: the page says why and shows no table (no
    seat, no card, no move), and the good ones show it."""
    async with running(redis_url) as bot, web_table(bot) as table:
        await seat(bot, (ANN,))
        for _ in range(2):
            await bot.command(GROUP, ANN, "/addbot")
        await bot.command(GROUP, ANN, "/start")
        _, stored, _ = await bot.front.service.snapshot(CHAT)
        assert stored is not None
        gid, ann, start = stored.game_id, f"tg:{ANN.id}", str(GROUP)
        secret = SECRET.encode()
        good_link = table.link(CHAT, ann, gid)
        body, _, signature = good_link.partition(".")
        claims = json.loads(weblinks.unb64(body))
        forged = weblinks.b64(json.dumps({**claims, "p": f"tg:{BOB.id}"}).encode())
        now = time.time()
        good_tma = init_data(ANN.id, start, now - 10, token=bot.fake.token)
        fields = dict(pair.split("=", 1) for pair in good_tma.split("&"))

        def link(token: str) -> str:
            return f"?link={token}"

        def mini_app(data: str) -> str:
            return f"#tgWebAppData={quote(data, safe='')}"

        refused = {
            "no credentials": ("", "Open the table from the game's chat"),
            "a link of altered claims": (link(f"{forged}.{signature}"), "not signed by this bot"),
            "a link's signature altered": (
                link(f"{body}.{signature[:-2]}AA"),
                "not signed by this bot",
            ),
            "an expired link": (
                link(auth.sign_link(secret, CHAT, ann, gid, now - 1)),
                "the link token has expired",
            ),
            "a link signed with another key": (
                link(auth.sign_link(b"another secret", CHAT, ann, gid, now + 60)),
                "not signed by this bot",
            ),
            "a link for another game": (link(table.link(CHAT, ann, "zz9")), "another game"),
            "a link for another seat": (
                link(table.link(CHAT, f"tg:{BOB.id}", gid)),
                "not seated at this game",
            ),
            "a link for another chat": (link(table.link("tg:-999", ann, gid)), "no game"),
            "initData of a bad hash": (
                mini_app(good_tma.replace(fields["hash"], "0" * 64)),
                "initData is not signed by Telegram for this bot",
            ),
            "initData of an altered field": (
                mini_app(good_tma.replace(f"%22id%22%3A+{ANN.id}", f"%22id%22%3A+{BOB.id}")),
                "initData is not signed by Telegram for this bot",
            ),
            "stale initData": (
                mini_app(init_data(ANN.id, start, now - 3601, token=bot.fake.token)),
                "initData is too old",
            ),
            "another bot's initData": (
                mini_app(init_data(ANN.id, start, now - 10, token=BOT_TOKEN)),
                "initData is not signed by Telegram for this bot",
            ),
            "initData of a person not seated": (
                mini_app(init_data(BOB.id, start, now - 10, token=bot.fake.token)),
                "not seated at this game",
            ),
        }
        page = await browser.new_page(viewport=PHONE)
        # The Mini App's script from telegram.org cannot be reached here: refused at once.
        await page.route("https://telegram.org/**", lambda route: route.abort())
        base = f"http://127.0.0.1:{table.port}/"
        for case, (address, reason) in refused.items():
            await page.goto("about:blank")  # a new page each time (not a fragment's change)
            await page.goto(base + address)
            message = page.locator("#message")
            await message.filter(has_text=re.compile(".")).wait_for(timeout=10_000)
            said = await message.inner_text()
            assert reason in said, (case, said)
            assert await page.get_attribute("main", "data-phase") == "loading", case
            for selector in ("[data-seat]", "[data-card]", "[data-payload]"):
                assert await page.locator(selector).count() == 0, (case, selector)
        for case, address in (("a link", link(good_link)), ("initData", mini_app(good_tma))):
            await page.goto("about:blank")
            await page.goto(base + address)
            await page.locator("#hand [data-card]").first.wait_for(timeout=10_000)
            assert await page.get_attribute("main", "data-phase") != "loading", case
            assert await page.locator("[data-seat]").count() == 3, case


async def play_on_the_page(page: Page, bot: Bot, until_round: int) -> int:
    """Make Ann's moves on the page (the other seats are AI) until round `until_round` asks
    her for something; the version shown then."""
    rng = random.Random(3)
    for _ in range(100):
        await bot.idle()
        version, stored, _ = await bot.front.service.snapshot(CHAT)
        assert stored is not None
        assert stored.game.round is not None
        await caught_up(page, version)
        shown = int(await page.get_attribute("main", "data-version") or 0)
        offered = page.locator("#ask button[data-payload], #hand button.legal[data-payload]")
        count = await offered.count()
        if shown != version or not count:
            # an AI moved since the snapshot, or is still thinking (AI players think in threads,
            # beside what bot.idle() waits for): once the page moves on, look again
            await page.wait_for_function(
                "v => Number(document.querySelector('main').dataset.version) > v",
                arg=version,
                timeout=10_000,
            )
            continue
        if stored.game.round.number >= until_round:
            return version
        await offered.nth(rng.randrange(count)).click()
        await page.wait_for_function(
            "v => Number(document.querySelector('main').dataset.version) > v",
            arg=version,
            timeout=10_000,
        )
    raise AssertionError(f"round {until_round} did not come")


async def test_the_page_speaks_the_chats_language_and_draws_its_deck_theme(
    browser: Browser, redis_url: str, request: pytest.FixtureRequest
) -> None:
    """A chat set to German with the French deck: the lobby and then every word of the page
    are German, from the same catalogs as the chat, and the cards are the French deck's (2-10
    J Q K A, ♠ ♣ ♥ ♦, the jokers); the deck changed to races in the chat, the page draws that.
    A refused link in a German browser says why in German (the browser's language, as no chat
    is proven)."""
    ann = dataclasses.replace(ANN, language_code=None)  # her app names no language of its own
    async with running(redis_url) as bot, web_table(bot) as table:
        await seat(bot, (ann,))
        await bot.command(GROUP, ann, "/language de")
        await bot.command(GROUP, ann, "/theme french")
        for _ in range(2):
            await bot.command(GROUP, ann, "/addbot")
        version, stored, _ = await bot.front.service.snapshot(CHAT)
        assert stored is not None
        link = table.link(CHAT, f"tg:{ANN.id}", stored.game_id)
        page = await browser.new_page(viewport=PHONE)
        await pin_fonts(page)
        await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
        await caught_up(page, version)
        await use_pinned_fonts(page)
        # The lobby, read-only: who has joined (the host crowned) and the options. (Each name
        # line's parts are boxes of their own, a name cut short beside its marks, so the list
        # is read by its lines' text.)
        lobby = page.locator("#summary[data-kind=lobby]")
        assert await lobby.locator("h2").inner_text() == "Warte auf Spieler …"
        assert await lobby.locator("li").all_text_contents() == [
            "Ann 👑",
            "🤖 Merlin",
            "🤖 Morgana",
        ]
        assert await lobby.locator("p").inner_text() == "Optionen: offene Ansagen, 5 Runden"
        await shoot(page, request, "phone-lobby")
        await bot.command(GROUP, ann, "/start")
        version = await play_on_the_page(page, bot, 3)

        assert await page.get_attribute("html", "lang") == "de"
        assert await page.title() == "Wizard · der Tisch"
        assert (await page.inner_text("#round")).startswith("Runde 3 von 5")
        assert await page.inner_text("#last > summary") == "Letzter Stich"
        assert await page.inner_text("#sheet > summary") == "Block der Wahrheit"
        assert await page.get_attribute("#hand", "aria-label") == "Deine Karten"
        assert await page.get_attribute("#seats", "aria-label") == "Spieler"
        assert "Runde 2 ist vorbei." in await page.inner_text("#summary")
        caption = await page.locator("#trump figcaption").all_inner_texts()
        ask = await page.inner_text("#ask")
        if "wähle die Trumpffarbe" in ask:  # a Wizard turned up, and Ann deals
            assert caption == [], caption  # asked once, beside the suits
        else:
            assert len(caption) == 1, caption
            assert caption[0].startswith("Trumpf: "), caption
            assert "Wie viele Stiche machst du?" in ask, ask
        _, stored, _ = await bot.front.service.snapshot(CHAT)
        assert stored is not None
        assert stored.game.round is not None
        hand = stored.game.round.hands[
            stored.game.players.index(
                next(p for p in stored.game.players if p.id == f"tg:{ANN.id}")
            )
        ]
        labels = await page.locator("#hand svg").evaluate_all(
            "svgs => svgs.map(s => s.getAttribute('aria-label'))"
        )
        assert len(labels) == len(hand) == 3
        de = texts("de")
        assert sorted(labels) == sorted(card_name(de, c, Theme.FRENCH) for c in hand)
        corners = await page.locator("#hand svg text").evaluate_all(
            "texts => texts.map(t => t.textContent)"
        )
        assert sorted(corners) == sorted(  # 2-10 J Q K A; a joker's ▲ or ▼ and its role
            [FRENCH_RANKS[RANK_OF[c]] for c in hand if c not in "WJ"]
            + [
                m
                for c in hand
                if c in "WJ"
                for m in ("▲▼"[c == "J"], card_name(de, c, Theme.COLOURS))
            ]
        ), corners
        await shoot(page, request, "phone-german-french")

        await bot.command(GROUP, ann, "/theme races")
        await page.reload()
        await caught_up(page, version)
        await use_pinned_fonts(page)
        assert await page.get_attribute("main", "data-theme") == "races"
        assert await page.inner_text("#last > summary") == "Letzter Stich"
        await shoot(page, request, "phone-german-races")

        german = await browser.new_page(viewport=PHONE, locale="de-DE")
        expired = auth.sign_link(SECRET.encode(), CHAT, f"tg:{ANN.id}", stored.game_id, 1.0)
        await german.goto(f"http://127.0.0.1:{table.port}/?link={expired}")
        message = german.locator("#message")
        await message.filter(has_text=re.compile(".")).wait_for(timeout=10_000)
        said = await message.inner_text()
        assert said == (
            "Der Tisch kann nicht angezeigt werden: das Link-Token ist abgelaufen. "
            "Öffne ihn erneut aus dem Chat des Spiels."
        ), said
        assert await german.get_attribute("html", "lang") == "de"
        assert await german.inner_text("#last > summary") == "Letzter Stich"
        assert not bot.real_errors()


OUT_OF_ITS_BOX = """() => {
  const panel = document.querySelector("#summary");
  const box = panel.getBoundingClientRect();
  const out = [];
  if (panel.scrollWidth > panel.clientWidth) out.push("the panel scrolls");
  for (const cell of document.querySelectorAll("#summary th, #summary td")) {
    if (!cell.getClientRects().length) continue; // not drawn here (a phone's rating column)
    const at = cell.getBoundingClientRect();
    if (at.right > box.right - 2 || at.left < box.left) out.push(cell.textContent);
  }
  return out;
}"""
"""The cells of the summary panel (the round's result, the final standings) drawn but not
wholly inside it, as a person on a phone would have to scroll to see them."""


async def play_to_the_end(page: Page, bot: Bot) -> int:
    """Make Ann's moves on the page (the other seats are AI) until the game is over; the
    version shown then."""
    rng = random.Random(4)
    for _ in range(200):
        await bot.idle()
        version, stored, _ = await bot.front.service.snapshot(CHAT)
        assert stored is not None
        await caught_up(page, version)
        if stored.game.phase is Phase.FINISHED:
            return version
        shown = int(await page.get_attribute("main", "data-version") or 0)
        offered = page.locator("#ask button[data-payload], #hand button.legal[data-payload]")
        count = await offered.count()
        if shown == version and count:
            await offered.nth(rng.randrange(count)).click()
        await page.wait_for_function(
            "v => Number(document.querySelector('main').dataset.version) > v",
            arg=version,
            timeout=10_000,
        )
    raise AssertionError("the game did not end")


async def test_a_long_name_leaves_every_number_of_the_summary_in_sight_on_a_phone(
    browser: Browser, redis_url: str
) -> None:
    """A long name on a phone: the round's result and the final standings, in German, keep
    every column inside the panel, the name cut short with an ellipsis (its text is whole, as
    a screen reader reads it)."""
    ann = dataclasses.replace(
        ANN, first_name="Annemarie-Theresa", last_name="Wolkenstein", language_code=None
    )
    long_name = "Annemarie-Theresa Wolkenstein"
    async with running(redis_url) as bot, web_table(bot) as table:
        await seat(bot, (ann,))
        await bot.command(GROUP, ann, "/language de")
        for _ in range(2):
            await bot.command(GROUP, ann, "/addbot")
        await bot.command(GROUP, ann, "/start")
        version, stored, _ = await bot.front.service.snapshot(CHAT)
        assert stored is not None
        page = await browser.new_page(viewport=PHONE)
        await pin_fonts(page)
        link = table.link(CHAT, f"tg:{ANN.id}", stored.game_id)
        await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
        await caught_up(page, version)
        await use_pinned_fonts(page)
        await play_on_the_page(page, bot, 2)
        summary = page.locator("#summary[data-kind=round]")
        assert long_name in await summary.inner_text()
        assert await page.evaluate(OUT_OF_ITS_BOX) == []
        await play_to_the_end(page, bot)
        final = page.locator("#summary[data-kind=final]")
        assert long_name in await final.inner_text()
        assert await page.evaluate(OUT_OF_ITS_BOX) == []
        assert not bot.real_errors()


async def test_every_languages_wizard_and_jester_fit_on_the_card(
    browser: Browser, redis_url: str
) -> None:
    """The name a Wizard or a Jester carries on its card, in each language, stays within the
    card: measured in the page's font, so Russian «Волшебник» (9 letters, but wide ones) is
    squeezed to fit, as the French deck's long joker names are."""
    names = sorted(
        {
            card_name(texts(language), card, theme)
            for language in LANGUAGES
            for card in ("W", "J")
            for theme in Theme
        }
    )
    async with running(redis_url) as bot, web_table(bot) as table:
        await seat(bot, (ANN,))
        version, stored, _ = await bot.front.service.snapshot(CHAT)
        assert stored is not None
        page = await browser.new_page(viewport=PHONE)
        await pin_fonts(page)
        link = table.link(CHAT, f"tg:{ANN.id}", stored.game_id)
        await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
        await caught_up(page, version)
        await use_pinned_fonts(page)
        widths = await page.evaluate(
            """async names => {
              const { cardSvg } = await import("./static/cards.js");
              const box = document.createElement("div");
              box.className = "card";
              document.body.append(box);
              const widths = {};
              for (const name of names) {
                box.innerHTML = cardSvg("W", { name });
                widths[name] = box.querySelector("text:last-of-type").getBBox().width;
              }
              box.remove();
              return widths;
            }""",
            names,
        )
        assert len(widths) == len(names)
        assert {name: width for name, width in widths.items() if width > 53} == {}, widths


async def test_at_a_coach_table_the_page_shows_the_hint_its_player_asks_for(
    browser: Browser, redis_url: str
) -> None:
    """A coach table: the page has the hand message's Hint button while Ann has a bid to
    choose; pressed, the coach's hint is shown on the page (and not posted in her private
    chat), until her bid is made."""
    async with running(redis_url) as bot, web_table(bot) as table:
        await seat(bot, (ANN,))
        await bot.command(GROUP, ANN, "/options coach")
        for _ in range(2):
            await bot.command(GROUP, ANN, "/addbot")
        await bot.command(GROUP, ANN, "/start")
        version, stored, _ = await bot.front.service.snapshot(CHAT)
        assert stored is not None
        page = await browser.new_page(viewport=PHONE)
        link = table.link(CHAT, f"tg:{ANN.id}", stored.game_id)
        await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
        await caught_up(page, version)
        hint = page.locator("#ask button.hint")
        assert await hint.inner_text() == "💡 Hint"
        assert await page.locator("#hint").is_hidden()
        await hint.click()
        await page.locator("#hint").wait_for(state="visible", timeout=10_000)
        said = await page.inner_text("#hint")
        assert said.startswith("💡 Hint for your bid, round 1:"), said
        assert "points expected" in said
        await bot.idle()
        assert not any("💡 Hint for" in event.text for event in bot.fake.transcript(ANN.id))
        await page.locator("#ask button.bid").first.click()
        await page.locator("#hint").wait_for(state="hidden", timeout=10_000)
        assert not bot.real_errors()


async def test_a_move_on_a_web_only_workers_page_is_made_by_the_chats_worker(
    browser: Browser, redis_url: str
) -> None:
    """The page of a worker without the chat's front end: a bid clicked there is handed to the
    Telegram worker (`adapters.relay`), which makes it and posts it in the group; the page,
    busy meanwhile, shows it from its event stream."""
    async with (
        running(redis_url) as bot,
        relaying(bot.front.service, bot.front.show_async, "tg", bot.client, 1.0),
        web_only(redis_url, Relay) as (table, _),
    ):
        link = await ann_and_two_ai(bot)
        version, stored, _ = await bot.front.service.snapshot(CHAT)
        assert stored is not None
        page = await browser.new_page(viewport=PHONE)
        await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
        await caught_up(page, version)
        group = bot.table().text
        async with page.expect_response("**/api/move") as answered:
            await page.locator("#ask button.bid").first.click()
        assert (await answered.value).status == 202
        await caught_up(page, version + 1)
        # posted once the worker has made the AI seats' moves that follow (the page may
        # show the bid before that)
        await until(lambda: bot.table().text != group, "the group's table shows the bid")
        await bot.idle()
        assert not bot.real_errors()


async def behind(
    browser: Browser, bot: Bot, table: WebTable, link: str
) -> tuple[Page, list[Route]]:
    """Ann's page of `link` on a phone, caught up with the game as it is now, then behind: its
    event stream held unanswered (the requests held are the list), so it hears of no move."""
    version, _, _ = await bot.front.service.snapshot(CHAT)
    page = await browser.new_page(viewport=PHONE)
    held: list[Route] = []

    def hold(route: Route) -> None:  # a function: Playwright takes no bound method of a list
        held.append(route)

    await page.route("**/api/events?**", hold)
    await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
    await caught_up(page, version)
    return page, held


async def says_and_waits_no_more(page: Page, words: str) -> None:
    """Wait (10 s at most) until the page says `words` and is busy no longer."""
    await page.wait_for_function(
        "words => document.getElementById('message').textContent === words"
        " && !document.body.classList.contains('busy')",
        arg=words,
        timeout=10_000,
    )


@pytest.mark.parametrize(
    ("asks_fail", "words"),
    [
        (False, "You have already bid."),
        (True, "Your move may not have been made: look at the table."),
    ],
)
async def test_a_move_the_chats_worker_refuses_is_said_on_a_web_only_workers_page(
    browser: Browser, redis_url: str, asks_fail: bool, words: str
) -> None:
    """Hidden bids, Bob yet to bid: Ann bids in the chat while her page is behind (its event
    stream held unanswered, so it never hears of it), then clicks a bid there. By the web
    worker's read it is the same decision, so the bid is handed over (202); the Telegram worker
    refuses it, and the page says so in the chat's words, "You have already bid.", busy no
    longer. Should every ask of the page about its bid fail (the connection lost meanwhile),
    with no newer view come it says it cannot tell whether the move was made. It said nothing
    in either case: the player thought the bid made."""
    async with (
        running(redis_url) as bot,
        relaying(bot.front.service, bot.front.show_async, "tg", bot.client, 1.0),
        web_only(redis_url, Relay) as (table, _),
    ):
        link = await telegram_game(bot, (ANN, BOB), 1, "bids=hidden")
        page, held = await behind(browser, bot, table, link)
        await move(bot, (ANN,))  # her bid, in the chat
        if asks_fail:
            await page.route("**/api/relayed?**", lambda route: route.abort())
        async with page.expect_response("**/api/move") as answered:
            await page.locator("#ask button.bid").first.click()
        assert (await answered.value).status == 202
        await says_and_waits_no_more(page, words)
        assert held
        await bot.idle()
        assert not bot.real_errors()


class SlowTaker(Relay):
    """A relay on which a consumer ("slow") takes each move handed over as it is added and holds
    it (a chat worker busy, or killed before it acknowledged it)."""

    async def given(self, scope: str, entry: str) -> bool:
        await self.read(scope, "slow", 10, None)
        return await super().given(scope, entry)


async def test_a_relayed_move_held_longer_than_its_page_asks_is_said_once_refused(
    browser: Browser, redis_url: str
) -> None:
    """As above (Ann's bid made in the chat, her page behind), but the chat worker that takes
    the page's bid holds it longer than `/api/relayed` waits: the page, told the move is still
    pending, asks again, and once another worker took it over and refused it, it says so. It
    took the first answer for the move made, said nothing and was busy no longer 5 s later."""
    async with running(redis_url) as bot, web_only(redis_url, SlowTaker, 0.5) as (table, _):
        link = await telegram_game(bot, (ANN, BOB), 1, "bids=hidden")
        page, held = await behind(browser, bot, table, link)
        await move(bot, (ANN,))  # her bid, in the chat
        relay = Relay(bot.client)
        await relay.join("tg")
        await relay.present("tg", "slow", FORGET)  # "slow" reads the relay: it is live
        async with page.expect_response("**/api/relayed?**") as asked:
            await page.locator("#ask button.bid").first.click()
        assert await (await asked.value).json() == {"ok": True, "answer": None, "pending": True}
        front = bot.front
        async with relaying(front.service, front.show_async, "tg", bot.client, 1.0, claim=0.5):
            await says_and_waits_no_more(page, "You have already bid.")
        assert held
        await bot.idle()
        assert not bot.real_errors()


async def test_a_page_whose_stream_was_refused_listens_again_once_it_may(
    browser: Browser, redis_url: str
) -> None:
    """An answer other than 200 ends a browser's event stream for good: here the 429 of a
    person who holds `MAX_STREAMS` streams already (a proxy's 502 while a worker restarts is
    the same to the browser). The page says it is reconnecting, asks for the view again until
    it is answered, listens again, and shows a move made in the chat (before, it said
    "Reconnecting…" for good and showed no move made elsewhere)."""
    async with running(redis_url) as bot, web_table(bot) as table, ClientSession() as other:
        link = await ann_and_two_ai(bot)
        version, _, _ = await bot.front.service.snapshot(CHAT)
        streams = f"http://127.0.0.1:{table.port}/api/events"
        held = [await other.get(streams, params={"link": link}) for _ in range(MAX_STREAMS)]
        page = await browser.new_page(viewport=PHONE)
        async with page.expect_response("**/api/events?**") as refused:
            await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
        assert (await refused.value).status == 429
        await caught_up(page, version)
        assert await page.inner_text("#message") == "Reconnecting…"
        for stream in held:
            stream.close()
        await page.wait_for_function(  # the server sees them gone within a poll
            "() => document.getElementById('message').textContent === ''", timeout=15_000
        )
        await move(bot, (ANN,))
        await caught_up(page, version + 1)
        assert not bot.real_errors()


R = TypeVar("R", bound=Relay)


@contextlib.asynccontextmanager
async def web_only(
    redis_url: str, relay: Callable[[aioredis.Redis], R], answered: float = 4.0
) -> AsyncIterator[tuple[WebTable, R]]:
    """A worker that runs the web table alone, on a Redis client of its own, and hands its
    pages' moves to the chat's worker through the relay `relay` makes of that client
    (`/api/relayed` waits `answered` seconds for one to be acknowledged)."""
    client = aioredis.Redis.from_url(redis_url)
    config = Config(web=WebConfig(secret=SECRET))
    handover = relay(client)
    table = WebTable(
        GameService.on_redis(client, config),
        config,
        client,
        deliver=Shows(),
        relay=handover,
        answered=answered,
    )
    await table.start("127.0.0.1:0")
    try:
        yield table, handover
    finally:
        await table.stop()
        await client.aclose()


class HeldRelay(Relay):
    """A relay whose web worker hears that a consumer took a move only once `release` is set:
    the page's answer comes after the move's view came by its event stream."""

    def __init__(self, client: "aioredis.Redis") -> None:
        super().__init__(client)
        self.release = asyncio.Event()

    async def given(self, scope: str, entry: str) -> bool:
        await self.release.wait()
        return await super().given(scope, entry)


async def test_a_relayed_move_shown_before_its_answer_leaves_the_page_busy_no_longer(
    browser: Browser, redis_url: str
) -> None:
    """The event stream brings the relayed bid's view before the page's answer (202, with the
    view as it was before the bid) comes: the page is not busy a moment after the answer, not
    until its 5 s run out."""
    async with (
        running(redis_url) as bot,
        relaying(bot.front.service, bot.front.show_async, "tg", bot.client, 1.0),
        web_only(redis_url, HeldRelay) as (table, relay),
    ):
        link = await ann_and_two_ai(bot)
        version, _, _ = await bot.front.service.snapshot(CHAT)
        page = await browser.new_page(viewport=PHONE)
        await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
        await caught_up(page, version)
        async with page.expect_response("**/api/move") as answered:
            await page.locator("#ask button.bid").first.click()
            await page.wait_for_function(
                "v => Number(document.querySelector('main').dataset.version) > v",
                arg=version,
                timeout=10_000,
            )
            assert await page.evaluate("() => document.body.classList.contains('busy')")
            relay.release.set()
        response = await answered.value
        assert response.status == 202
        assert (await response.json())["view"]["version"] == version
        await page.wait_for_function(
            "() => !document.body.classList.contains('busy')", timeout=2_000
        )


async def test_the_page_says_what_the_hand_message_says_of_a_wings_mark(
    browser: Browser, redis_url: str
) -> None:
    """A wings table, Ann on the page and Bob in the chat: while Bob is to play, Ann's page
    says under the question what her hand message says (how to mark a card), she clicks a
    card to mark it, and the page then says it is marked, as the hand message does, with the
    hand message's Clear the mark."""
    async with running(redis_url) as bot, web_table(bot) as table:
        await seat(bot, (ANN, BOB))
        await bot.command(GROUP, ANN, "/options wings")
        await bot.command(GROUP, ANN, "/addbot")
        await bot.command(GROUP, ANN, "/start")
        service = bot.front.service
        version, stored, _ = await service.snapshot(CHAT)
        assert stored is not None
        bob = [p.id for p in stored.game.players].index(f"tg:{BOB.id}")
        page = await browser.new_page(viewport=PHONE)
        link = table.link(CHAT, f"tg:{ANN.id}", stored.game_id)
        await page.goto(f"http://127.0.0.1:{table.port}/?link={link}")
        notes = page.locator("#ask p.note")

        def wings_line() -> str:
            """The wings line of Ann's hand message as the chat shows it now."""
            shown = bot.fake.current_messages(ANN.id).values()
            hands = [m.text for m in shown if "Your hand:" in m.text]
            return next(line for line in hands[-1].splitlines() if line.startswith("🪽"))

        for _ in range(100):
            await bot.idle()
            version, stored, _ = await service.snapshot(CHAT)
            assert stored is not None
            assert stored.game.phase is not Phase.FINISHED, "Ann was never asked to wait"
            await caught_up(page, version)
            markable = page.locator("#hand button.markable")
            if bob_may_act(stored, bob) and stored.game.phase is Phase.PLAYING:
                if await markable.count():
                    break
                await move(bot, (BOB,))
                continue
            if bob_may_act(stored, bob):
                await move(bot, (BOB,))
                continue
            await page.locator("#ask button[data-payload], #hand button.legal").first.click()
            await page.wait_for_function(
                "v => Number(document.querySelector('main').dataset.version) > v",
                arg=version,
                timeout=10_000,
            )
        else:
            raise AssertionError("Ann was never asked to wait")
        assert wings_line() == "🪽 Mark a card to have it played by itself when your turn comes."
        assert await notes.all_inner_texts() == [wings_line()]
        card = await markable.first.get_attribute("data-card")
        await markable.first.click()
        await page.locator(f"#hand button.marked[data-card='{card}']").wait_for(timeout=10_000)
        await bot.idle()
        assert wings_line().startswith("🪽 Marked to play by itself: ")
        assert await notes.all_inner_texts() == [wings_line()]
        assert await page.inner_text("#ask button.wings") == "Clear the mark"
        assert not bot.real_errors()
