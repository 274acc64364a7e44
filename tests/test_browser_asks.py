"""What the web table asks of its player, and says beside it, in a real browser (headless
Chromium, `tests/browser.py`), on games the service's driver sets up where the moment is rare
in a game played through: a Wizard turned up for the dealer to choose the trump, a round of
foresight, a player on autopilot whose turn it is while the AI decides for them. The page is
the web table's own (`adapters/web`), served by aiohttp's test server over the same service.
"""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as aioredis
from browser import (
    IN_SESSION_LOOP,
    browser,
    chromium,
    close_pages,
    redis_client,
    shared_browser,
)
from playwright.async_api import Browser, Page
from service_helpers import ANN, BOB, CID, Clock, Driver, service, table_of
from test_browser import PHONE, caught_up
from test_web import CONFIG, NOW, web_client

from adapters.web.auth import RateLimit
from adapters.web.server import WebTable
from bot import GameService, tokens
from bot.show.look import look_of
from bot.show.screens import hand_message, hand_screen
from bot.show.seating import seating
from bot.store import keys
from bot.table import Settings
from bot.tokens import Action
from engine import GameState, Phase, player_view, table_view

__all__ = ["browser", "chromium", "redis_client", "shared_browser"]  # fixtures

pytestmark = IN_SESSION_LOOP

FORESIGHT_UNSEEN = "Foresight: you cannot see your card."


@asynccontextmanager
async def pages(driver: Driver, browser: Browser) -> AsyncIterator[tuple[WebTable, str]]:
    """The web table of `driver`'s service, and its address; the pages `browser` opened are
    closed before it stops."""
    limit = RateLimit(rate=1e6, burst=1e6)
    async with web_client(driver, Clock(NOW), limit) as (web, client):
        try:
            yield web, str(client.make_url("/"))
        finally:
            await close_pages(browser)


async def open_page(
    browser: Browser, web: WebTable, address: str, driver: Driver, player: str
) -> Page:
    """`player`'s page at `driver`'s table, showing the table as it is now."""
    version, stored, _ = await driver.svc.snapshot(driver.chat)
    assert stored is not None
    page = await browser.new_page(viewport=PHONE)
    await page.goto(f"{address}?link={web.link(driver.chat, player, stored.game_id)}")
    await caught_up(page, version)
    return page


async def wizard_turned_up(svc: GameService) -> Driver:
    """A game of three people whose first round's trump card is a Wizard: its dealer (a
    person) is to choose the trump."""
    for attempt in range(300):
        driver = Driver(svc, [ANN, BOB, CID], chat=f"tg:-1003{attempt}", wings_rate=0)
        await driver.lobby(["rounds=short"])
        stored = await table_of(svc.store.client, driver.chat)
        assert stored is not None
        if stored.game.phase is Phase.TRUMP:
            return driver
    raise AssertionError("no Wizard turned up")


async def test_the_dealer_is_asked_once_to_choose_the_trump_beside_the_suits(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """A Wizard turned up: the dealer's page asks them once, in the hand message's words, with
    the four suits beside the question (the card's caption says nothing more); another
    player's page says under the card who chooses, and offers no suit. Once chosen, the
    caption names the trump and the question is gone."""
    driver = await wizard_turned_up(service(redis_client, seed=3, config=CONFIG))
    stored = await table_of(redis_client, driver.chat)
    assert stored is not None
    assert stored.game.round is not None
    players = stored.game.players
    dealer = stored.game.round.dealer
    async with pages(driver, browser) as (web, address):
        mine = await open_page(browser, web, address, driver, players[dealer].id)
        other = await open_page(browser, web, address, driver, players[(dealer + 1) % 3].id)
        question = "A Wizard was turned up: you are the dealer, choose the trump suit."
        assert await mine.locator("#ask p").all_inner_texts() == [question]
        assert await mine.locator("#ask button.trump").count() == 4
        assert await mine.locator("#trump figcaption").count() == 0
        shown = (await mine.inner_text("#table")).lower()
        assert shown.count("choose") == 1, shown
        caption = await other.inner_text("#trump figcaption")
        assert caption == f"{players[dealer].name} chooses trump."
        assert await other.locator("#ask button.trump").count() == 0
        assert "choose" not in (await other.inner_text("#ask")).lower()

        version, _, _ = await driver.svc.snapshot(driver.chat)
        await mine.locator("#ask button.trump").first.click()
        await caught_up(mine, version + 1)
        now = await table_of(redis_client, driver.chat)
        assert now is not None
        trump = table_view(now.game).trump
        assert trump is not None
        label = look_of(Settings()).suit(trump)
        assert await mine.inner_text("#trump figcaption") == f"Trump: {label}"
        assert "choose" not in (await mine.inner_text("#ask")).lower()


async def test_under_foresight_the_page_says_its_player_cannot_see_their_card(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """A round of foresight (one card each, the others' seen, one's own not): the page of the
    player to lead draws their card from its back and says, as their hand message does, that
    they cannot see it; once they have played it, which card it was, as the hand message then
    says, while the others are still to play."""
    driver = Driver(service(redis_client, seed=3, config=CONFIG), [ANN, BOB, CID], wings_rate=0)
    await driver.lobby(["rounds=short", "foresight"])
    state = await driver.play_until(lambda s: s.phase is Phase.PLAYING)
    assert state.round is not None
    assert state.round.rules.foresight
    leader = state.players[state.round.turn]
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, leader.id)
        notes = page.locator("#ask p.note")
        assert await notes.all_inner_texts() == [FORESIGHT_UNSEEN]
        assert await page.locator("#hand .card.back").count() == 1
        assert await page.locator("#seats .card").count() == 2  # the others' cards

        version, _, _ = await driver.svc.snapshot(driver.chat)
        await page.locator("#ask button.unseen").click()
        await caught_up(page, version + 1)
        stored = await table_of(redis_client, driver.chat)
        assert stored is not None
        assert stored.game.round is not None
        (played,) = stored.game.round.trick  # the others are still to play
        card = look_of(Settings()).card(played)
        assert await notes.all_inner_texts() == [f"Foresight: you played {card} without seeing it."]
        assert await page.locator("#hand .card").count() == 0


async def test_a_player_on_autopilot_is_told_their_own_move_takes_them_back_and_it_does(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Ann's turn timed out: the AI plays for her. While it decides her card, her page (as her
    hand message) still offers her cards, with Resume, and says that a move of hers, or
    Resume, takes her back. She plays a card on the page: it is played, she is back, and the
    AI's move, decided meanwhile, is refused."""
    clock = Clock(NOW)
    svc = service(redis_client, seed=21, clock=clock, config=CONFIG)
    driver = Driver(svc, [ANN, BOB, CID], seed=21, wings_rate=0)
    await driver.lobby(["rounds=short"])

    def ann_leads_or_follows(state: GameState) -> bool:
        rnd = state.round
        return (
            state.phase is Phase.PLAYING
            and rnd is not None
            and state.players[rnd.turn].id == ANN.id
            and len(rnd.trick) < len(state.players) - 1  # her card does not end the trick
        )

    state = await driver.play_until(ann_leads_or_follows)
    seat = [p.id for p in state.players].index(ANN.id)
    # The AI that moves for her is held (the service's thinkers), so that the moment lasts.
    held = asyncio.Semaphore(0)
    svc._thinkers = held
    stored = await table_of(redis_client, driver.chat)
    assert stored is not None
    assert stored.deadline is not None
    clock.now = stored.deadline + 1
    await svc.run_timers(keys.scope(driver.chat), aside=True)
    away = await table_of(redis_client, driver.chat)
    assert away is not None
    assert away.away == [ANN.id]
    said = "💤 The AI is playing for you. Make your move, or press Resume, to play yourself again."
    # Her hand message, as the chat shows it now: the same line, her cards, Resume.
    hand = hand_message(
        look_of(Settings()), hand_screen(player_view(away.game, seat), seating(away)), False
    )
    assert said in hand.text.splitlines()
    actions = [tokens.decode(b.payload).action for row in hand.buttons for b in row]
    assert Action.PLAY in actions
    assert Action.RESUME in actions
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, ANN.id)
        notes = page.locator("#ask p.note")
        assert await notes.all_inner_texts() == [said]
        assert await page.inner_text("#ask button.resume") == "Resume"
        legal = page.locator("#hand button.legal")
        assert await legal.count() >= 1
        card = await legal.first.get_attribute("data-card")

        version, _, _ = await svc.snapshot(driver.chat)
        await legal.first.click()
        await caught_up(page, version + 1)
        back = await table_of(redis_client, driver.chat)
        assert back is not None
        assert back.away == []
        assert back.game.round is not None
        assert back.game.round.trick[-1] == card
        assert card not in back.game.round.hands[seat]
        assert await notes.all_inner_texts() == []

        for _ in range(3):
            held.release()
        await svc.moved()
        after, stored_after, _ = await svc.snapshot(driver.chat)
        assert after == version + 1  # the AI's move for her was refused: nothing written
        assert stored_after is not None
        assert stored_after.away == []
