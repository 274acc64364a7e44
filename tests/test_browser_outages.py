"""The web table through a worker's restart and a Redis away, in a real browser (headless
Chromium, `tests/browser.py`), on a redis-server of the test's own that it stops and starts
(`redis_alone`: every write fsynced, so nothing is lost while it is away).

- The web worker stops while the page is open, a move is made in the chat meanwhile, and a
  worker starts again at the same address: the page says it is reconnecting, then shows the
  move, by itself (no reload), and says nothing more.
- Redis goes away while the page is open: a move pressed then is refused with the chat's own
  words for it, changes nothing, and the words go once the table moves on; the page reloaded
  while Redis is away says so too (once, however often it asks again: the line is a live
  region), and shows the table by itself once Redis is back.
"""

import contextlib
from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from browser import IN_SESSION_LOOP, browser, chromium, close_pages, shared_browser
from playwright.async_api import Browser, Page
from service_helpers import ANN, BOB, Clock, Driver, raw
from test_browser import PHONE, caught_up
from test_browser_access import ann_to, table_where
from test_web import CONFIG, NOW

from adapters.web.auth import RateLimit
from adapters.web.server import WebTable
from bot.commands import Kind
from bot.service import STORE_AWAY
from bot.store.redis_server import RedisServer, free_port
from engine import GameState, Phase

__all__ = ["browser", "chromium", "shared_browser"]  # fixtures

pytestmark = IN_SESSION_LOOP

MESSAGE = "() => document.getElementById('message').textContent"


NOTE_WHAT_IS_SAID = """document.addEventListener("DOMContentLoaded", () => {
  window.said = [];
  const message = document.getElementById("message");
  new MutationObserver(() => said.push(message.textContent))
    .observe(message, { childList: true, characterData: true, subtree: true });
});"""
"""Notes each change of the page's message line (a live region: a screen reader reads out
each), in `window.said`; run before the page's own script."""


async def saying(page: Page, words: str) -> None:
    """Wait until `page` says `words` (its message line; "" for nothing)."""
    await page.wait_for_function(
        "words => document.getElementById('message').textContent === words", arg=words
    )


@contextlib.asynccontextmanager
async def on_its_own(server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    """A client of `server`, closed afterwards."""
    client = aioredis.from_url(server.url)
    try:
        yield client
    finally:
        await client.aclose()


def worker(driver: Driver) -> WebTable:
    """A web worker over `driver`'s service (each one made alike: the same key and clock)."""
    limit = RateLimit(rate=1e6, burst=1e6)
    return WebTable(driver.svc, CONFIG, driver.redis, clock=Clock(NOW), limit=limit)


async def anns_page(browser: Browser, web: WebTable, address: str, driver: Driver) -> Page:
    """Ann's page at `driver`'s table, showing it as it is now."""
    version, stored, _ = await driver.svc.snapshot(driver.chat)
    assert stored is not None
    page = await browser.new_page(viewport=PHONE)
    await page.goto(f"{address}?link={web.link(driver.chat, ANN.id, stored.game_id)}")
    await caught_up(page, version)
    return page


def bob_to_play(state: GameState) -> bool:
    """A `play_until` condition: Bob is to play a card (round 2 on)."""
    rnd = state.round
    seat = [player.id for player in state.players].index(BOB.id)
    return (
        state.phase is Phase.PLAYING
        and rnd is not None
        and rnd.turn == seat
        and bool(state.results)
    )


async def test_a_page_open_while_its_worker_restarts_shows_the_move_made_meanwhile(
    browser: Browser, redis_alone: RedisServer
) -> None:
    """The web worker stops with Ann's page open (a deploy; its streams end at once), Bob moves
    in the chat while none runs, and a worker starts again at the same address: the page said
    it was reconnecting, and shows Bob's move by itself, the words gone."""
    async with on_its_own(redis_alone) as client:
        driver = await table_where(client, bob_to_play, "tg:-1031")
        port = free_port()
        address = f"http://127.0.0.1:{port}/"
        web = worker(driver)
        await web.start(f"127.0.0.1:{port}")
        try:
            page = await anns_page(browser, web, address, driver)
            version, _, _ = await driver.svc.snapshot(driver.chat)
            await web.stop()
            await saying(page, "Reconnecting…")
            await driver.move()  # Bob's card, in the chat
            moved, _, _ = await driver.svc.snapshot(driver.chat)
            assert moved > version
            web = worker(driver)
            await web.start(f"127.0.0.1:{port}")
            await caught_up(page, moved)
            await saying(page, "")
        finally:
            await close_pages(browser)
            await web.stop()


async def test_a_page_open_while_redis_is_away_says_so_and_goes_on_by_itself(
    browser: Browser, redis_alone: RedisServer
) -> None:
    """Redis goes away with Ann's page open at her bid. She bids: the page says what the chat
    says then ("The game store cannot be reached right now. Please try again shortly."), and
    the bid is not made; Redis back, the words go once the table moves on (Bob sets a theme in
    the chat). Redis away again, the page reloaded says so, and once Redis is back it shows the
    table by itself; the bid is made then. While it asks again every 3 s, it says so once: a
    screen reader read each new saying of the same words out again. Before, the page said "The
    table cannot be shown: the game store cannot be reached. Open it again from the game's
    chat." beside the table it showed, kept saying it after Redis was back, and a page
    (re)loaded while Redis was away stayed empty until reloaded by hand."""
    async with on_its_own(redis_alone) as client:
        driver = await table_where(client, ann_to(Phase.BIDDING), "tg:-1032")
        async with contextlib.AsyncExitStack() as stack:
            web = worker(driver)
            await web.start("127.0.0.1:0")
            stack.push_async_callback(web.stop)
            stack.push_async_callback(close_pages, browser)
            page = await anns_page(browser, web, f"http://127.0.0.1:{web.port}/", driver)
            before = await raw(client, driver.chat)
            bid = "#ask button.bid[data-payload]"

            redis_alone.stop()
            await page.click(bid)
            await page.wait_for_function("() => !document.body.classList.contains('busy')")
            assert await page.evaluate(MESSAGE) == STORE_AWAY
            redis_alone.start()
            assert await raw(client, driver.chat) == before  # the bid was not made
            await driver.ok(BOB, Kind.THEME, "races")
            themed, _, _ = await driver.svc.snapshot(driver.chat)
            await caught_up(page, themed)
            assert await page.evaluate(MESSAGE) == ""

            redis_alone.stop()
            await page.add_init_script(NOTE_WHAT_IS_SAID)
            await page.reload()
            await saying(page, STORE_AWAY)
            for _ in range(3):  # it asks again and again, and says it once
                async with page.expect_response(lambda answer: answer.status == 503):
                    pass
            assert await page.evaluate("() => window.said") == [STORE_AWAY]
            redis_alone.start()
            await caught_up(page, themed)
            await saying(page, "")
            await page.click(bid)
            await caught_up(page, themed + 1)
            assert await page.evaluate(MESSAGE) == ""
