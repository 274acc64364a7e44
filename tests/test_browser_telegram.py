"""The web table opened as a Telegram Mini App, in a real browser (headless Chromium,
`tests/browser.py`): it takes Telegram's theme colours, and its text keeps a contrast of 4.5:1
(WCAG AA) in the themes Telegram's apps come with, as they are and as they change while the
page is open; a colour of the theme too faint where the page draws it is made readable. The
cards of the hand that may not be played now read at 4.5:1 too, there and on the page's own
colours.

Telegram's script is `tests/browser.py`'s stand-in (telegram.org cannot be reached here); the
page is opened with `initData` signed as Telegram signs it (`tests/test_web.py`).
"""

import json
import re
from typing import Any
from urllib.parse import quote

import redis.asyncio as aioredis
from browser import IN_SESSION_LOOP, as_mini_app, browser, chromium, redis_client, shared_browser
from playwright.async_api import Browser, Page
from service_helpers import ANN
from test_browser import caught_up
from test_browser_access import TEXTS, ann_to, contrast, rgb, table_where, too_faint
from test_browser_asks import open_page, pages
from test_web import BOT_TOKEN, NOW, init_data

from adapters.web import auth
from adapters.web.server import WebTable
from bot.store import keys
from engine import GameState, Phase
from engine.tricks import legal_cards

__all__ = ["browser", "chromium", "redis_client", "shared_browser"]  # fixtures

pytestmark = IN_SESSION_LOOP

LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#999999",
    "link_color": "#168acd",
    "button_color": "#40a7e3",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f1f1f1",
}
"""Telegram Desktop's default light theme, as its Mini Apps are given it (`themeParams`)."""

NIGHT = {
    "bg_color": "#17212b",
    "text_color": "#f5f5f5",
    "hint_color": "#708499",
    "link_color": "#6ab3f3",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#232e3c",
}
"""Telegram Desktop's default night theme."""

THEMES = {"light": LIGHT, "night": NIGHT}


async def mini_app(
    browser: Browser, web: WebTable, address: str, chat: str, theme: dict[str, str]
) -> Page:
    """Ann's page opened as Telegram opens a Mini App in `theme`, at 360 px."""
    data = init_data(int(ANN.id.removeprefix("tg:")), chat.removeprefix("tg:"), NOW - 10, BOT_TOKEN)
    page = await browser.new_page(viewport={"width": 360, "height": 740})
    await as_mini_app(page)
    themed = quote(json.dumps(theme), safe="")
    await page.goto(f"{address}#tgWebAppData={quote(data, safe='')}&tgWebAppThemeParams={themed}")
    return page


def faint(found: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The texts of `found` (TEXTS) under 4.5:1, each with its part, words and contrast."""
    return [
        (t["id"], t["text"], round(contrast(t["colour"], t["behind"]), 2)) for t in too_faint(found)
    ]


async def all_texts(page: Page) -> list[dict[str, Any]]:
    """Every text the page shows (TEXTS), the last trick and the score sheet unfolded."""
    for fold in ("#last", "#sheet"):
        if not await page.evaluate(f"document.querySelector('{fold}').open"):
            await page.click(f"{fold} > summary")
    found: list[dict[str, Any]] = await page.evaluate(TEXTS)
    assert {"summary", "seats", "ask", "turn", "last", "sheet"} <= {t["id"] for t in found}
    return found


BACKGROUND = "getComputedStyle(document.documentElement).backgroundColor"


async def test_in_telegrams_themes_every_text_keeps_a_contrast_of_4_5(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Ann's page as a Mini App, bidding with the last round's result shown, in Telegram's
    default light and night themes: the page takes the theme's background, and every text
    (the header with "Your turn", the seats, the result, the bid question and its buttons, the
    last trick and the score sheet) keeps 4.5:1 against what is behind it. In the light theme
    the hint grey (#999999: 2.5:1 on the panels, 2.9:1 on white) and the button blue behind
    the white digits and under "Your turn" (#40a7e3, 2.7:1) fell short; in the night one the
    hint (3.6:1 on the panels, 4.2:1 on the page), the buttons (3.7:1) and "Your turn" (4.4:1).
    Then the app's theme changes while the page is open (light to night): the page follows it,
    every text still readable."""
    driver = await table_where(redis_client, ann_to(Phase.BIDDING), "tg:-1011")
    async with pages(driver, browser) as (web, address):
        version, _, _ = await driver.svc.snapshot(driver.chat)
        for name, theme in THEMES.items():
            page = await mini_app(browser, web, address, driver.chat, theme)
            await caught_up(page, version)
            assert rgb(await page.evaluate(BACKGROUND))[:3] == rgb_of(theme["bg_color"]), name
            assert faint(await all_texts(page)) == [], name
            if name == "light":
                light = page
            else:
                await page.close()
        await light.evaluate(
            "theme => Telegram.WebView.receiveEvent('theme_changed', { theme_params: theme })",
            NIGHT,
        )
        assert rgb(await light.evaluate(BACKGROUND))[:3] == rgb_of(NIGHT["bg_color"])
        assert faint(await all_texts(light)) == []


def rgb_of(colour: str) -> tuple[float, ...]:
    """`#rrggbb` as numbers."""
    return tuple(float(int(colour[at : at + 2], 16)) for at in (1, 3, 5))


def ann_to_follow(state: GameState) -> bool:
    """A `play_until` condition: Ann is to play a card, and some of her hand may not be played
    now (she must follow the suit led)."""
    rnd = state.round
    if not ann_to(Phase.PLAYING)(state) or rnd is None:
        return False
    hand = rnd.hands[[p.id for p in state.players].index(ANN.id)]
    return len(set(legal_cards(hand, rnd.trick))) < len(set(hand))


UNPLAYABLE = """async () => {
  const { cardSvg } = await import("./static/cards.js");
  // beside the hand's own, every suit's card and the Wizard and the Jester of each deck, drawn
  // as the hand draws a card that may not be played now
  const hand = document.getElementById("hand");
  const samples = [];
  for (const theme of ["colours", "races", "french"]) {
    for (const card of ["B7", "G7", "R7", "Y7", "W", "J"]) {
      const node = document.createElement("button");
      node.className = "card sample";
      node.disabled = true;
      node.dataset.card = `${theme} ${card}`;
      node.innerHTML = cardSvg(card, { name: card, role: card }, theme);
      samples.push(node);
    }
  }
  hand.append(...samples);
  const colour = (css) => css.match(/[\\d.]+/g).map(Number).slice(0, 3);
  // the filters and opacities the card is drawn through, from the card outwards
  const through = (node) => {
    const found = [];
    for (let at = node; at; at = at.parentElement) {
      const style = getComputedStyle(at);
      if (style.filter !== "none") found.push(["filter", style.filter]);
      if (Number(style.opacity) < 1) found.push(["opacity", style.opacity]);
    }
    return found;
  };
  const found = [...hand.querySelectorAll("button.card:disabled")].map((card) => {
    const face = card.querySelector("svg.face > rect");
    return {
      card: card.dataset.card,
      raised: getComputedStyle(card).transform,
      face: colour(getComputedStyle(face).fill),
      page: colour(getComputedStyle(document.documentElement).backgroundColor),
      through: through(card.querySelector("svg.face")),
      marks: [...card.querySelectorAll("svg.face > text, svg.face > g")].map((mark) => ({
        text: mark.tagName === "text", fill: colour(getComputedStyle(mark).fill),
      })),
    };
  });
  for (const node of samples) node.remove();
  return found;
}"""
"""Each card of the hand that may not be played now, and a card of each suit and the Wizard
and the Jester of each deck drawn as one (its `card` names its deck too): its face's colour,
the colour of each of its printed ranks and names (`text`) and suit marks (`g`), and the
filters and opacities the page draws it through."""


def drawn(colour: tuple[float, ...], through: list[list[str]], page: tuple[float, ...]) -> Any:
    """`colour` as the page draws it through `through` (UNPLAYABLE): CSS's `brightness()` and
    `grayscale()` as the Filter Effects spec defines them on sRGB values, an opacity laid over
    the page's background; any other filter fails the test."""
    red, green, blue = colour
    for kind, value in through:
        if kind == "opacity":
            alpha = float(value)
            red, green, blue = (
                c * alpha + p * (1 - alpha) for c, p in zip((red, green, blue), page, strict=True)
            )
            continue
        for function, argument in re.findall(r"([a-z-]+)\(([^)]*)\)", value):
            amount = float(argument.rstrip("%")) / (100 if argument.endswith("%") else 1)
            if function == "brightness":
                red, green, blue = (min(255.0, c * amount) for c in (red, green, blue))
            elif function == "grayscale":
                g = 1 - min(amount, 1)
                red, green, blue = (
                    (0.2126 + 0.7874 * g) * red
                    + (0.7152 - 0.7152 * g) * green
                    + (0.0722 - 0.0722 * g) * blue,
                    (0.2126 - 0.2126 * g) * red
                    + (0.7152 + 0.2848 * g) * green
                    + (0.0722 - 0.0722 * g) * blue,
                    (0.2126 - 0.2126 * g) * red
                    + (0.7152 - 0.7152 * g) * green
                    + (0.0722 + 0.9278 * g) * blue,
                )
            else:
                raise AssertionError(f"a card drawn through {function}(), not measured here")
    return (red, green, blue)


def too_faint_cards(found: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The marks of the cards of `found` (UNPLAYABLE) that read under 4.5:1 against the card's
    face as drawn (a suit mark, a graphic, under 3:1): each with its card and contrast."""
    faint = []
    for card in found:
        face = drawn(card["face"], card["through"], card["page"])
        for mark in card["marks"]:
            ratio = contrast(drawn(mark["fill"], card["through"], card["page"]), face)
            if ratio < (4.5 if mark["text"] else 3):
                faint.append((card["card"], "text" if mark["text"] else "mark", round(ratio, 2)))
    return faint


async def test_a_card_that_may_not_be_played_now_reads_at_4_5_and_looks_unplayable(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Ann to follow a suit, some of her cards not playable now: on the page's own baize (as
    it is in a browser asking for a dark look too) and in Telegram's light and night themes,
    each such card's rank or name reads at 4.5:1 against its face as the page draws it, and its
    suit marks at 3:1; it is not raised, and its face is not the white of a playable card. They
    were dimmed by `brightness(0.6) grayscale(0.5)`: a yellow rank read at 3.5:1, a green one
    at 3.75:1, a blue one at 4.2:1."""
    driver = await table_where(redis_client, ann_to_follow, "tg:-1012")
    async with pages(driver, browser) as (web, address):
        version, _, _ = await driver.svc.snapshot(driver.chat)
        opened = [("baize", await open_page(browser, web, address, driver, ANN.id))]
        dark = await browser.new_page(viewport={"width": 360, "height": 740}, color_scheme="dark")
        await dark.goto(opened[0][1].url)
        await caught_up(dark, version)
        opened.append(("baize, dark", dark))
        for name, theme in THEMES.items():
            page = await mini_app(browser, web, address, driver.chat, theme)
            await caught_up(page, version)
            opened.append((name, page))
        for name, page in opened:
            found = await page.evaluate(UNPLAYABLE)
            own = [c["card"] for c in found if " " not in c["card"]]  # the samples' have a deck
            assert own, name
            assert len(found) == len(own) + 18, (name, own)
            assert await page.locator("#hand button.card.legal").count(), name
            faint = too_faint_cards(found)
            assert faint == [], (name, faint)
            for card in found:
                assert card["raised"] == "none", (name, card["card"])
                assert drawn(card["face"], card["through"], card["page"]) != (255, 255, 255), name
            await page.close()


async def test_a_mini_app_open_longer_than_its_init_data_is_good_for_plays_on(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Ann opens the table as a Mini App and keeps it open for longer than `initData` is good
    for (`web.init_data_ttl`, an hour: Telegram signs it once, when the app is opened, and a
    game may last longer): her bid is still made, the page says no refusal, and the page
    reloaded then (Telegram's menu, Reload) shows the table again, in the theme. Before, each
    move after the hour was refused ("The table cannot be shown: initData is too old"), and so
    was the event stream once it had to reconnect: the page could only be opened anew from the
    chat."""
    driver = await table_where(redis_client, ann_to(Phase.BIDDING), "tg:-1012")
    async with pages(driver, browser) as (web, address):
        version, _, _ = await driver.svc.snapshot(driver.chat)
        page = await mini_app(browser, web, address, driver.chat, LIGHT)
        await caught_up(page, version)
        web.clock.advance(3600 + 60)  # type: ignore[attr-defined]
        await page.click("#ask button.bid[data-payload]")
        await caught_up(page, version + 1)
        assert await page.text_content("#message") == ""
        made, stored, _ = await driver.svc.snapshot(driver.chat)
        assert made > version
        assert stored is not None
        seat = [player.id for player in stored.game.players].index(ANN.id)
        assert stored.game.round is not None
        assert stored.game.round.bids[seat] is not None
        await page.reload()
        await caught_up(page, made)
        assert await page.text_content("#message") == ""
        assert await page.evaluate("document.body.classList.contains('telegram')")
        assert rgb(await page.evaluate(BACKGROUND))[:3] == rgb_of(LIGHT["bg_color"])


async def test_a_mini_app_whose_game_is_gone_shows_the_chats_next_game_it_sits_at(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Ann's game is gone from Redis (evicted, or deleted by an operator) and another begins in
    the chat, Ann seated: her Mini App's page, which goes on with a link of the old game (the
    link leads nowhere now), asks with its initData again and shows the new game, saying
    nothing. A chat whose game is lost counts its versions from 0 again, and the page took
    every view of a lower version than the one it showed for a late answer, whichever game it
    was of: it kept the old game's round 2 (version 11) and never showed the new game's
    (version 5), as a Mini App's page did before it went on with a link."""
    driver = await table_where(redis_client, ann_to(Phase.BIDDING), "tg:-1013")
    async with pages(driver, browser) as (web, address):
        web.poll = 60.0  # the page hears of the new game by its writes, not by a poll between
        version, old, _ = await driver.svc.snapshot(driver.chat)
        assert old is not None
        page = await mini_app(browser, web, address, driver.chat, LIGHT)
        await caught_up(page, version)
        await redis_client.delete(keys.game(driver.chat))
        await driver.lobby(["rounds=short"])
        now, new, _ = await driver.svc.snapshot(driver.chat)
        assert new is not None
        assert new.game_id != old.game_id
        assert old.game.round is not None
        assert old.game.round.number > 1  # the new game's first round tells them apart
        await page.wait_for_function(
            "now => Number(document.querySelector('main').dataset.version) === now"
            " && document.getElementById('round').textContent.startsWith('Round 1 ')",
            arg=now,
        )
        # it listens again, with the new game's link; should its stream have asked only once
        # the new game began (refused: its link is the old game's), the page said it was
        # reconnecting and asked for the view again 3 s later: those words go once it listens
        await page.wait_for_function("() => document.getElementById('message').textContent === ''")


async def test_play_again_on_a_mini_app_goes_on_at_the_new_table_and_a_reload_stays_there(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Ann presses Play again on her Mini App's page at a finished game: the page goes on at the
    lobby it opened, with a link of that table in its address beside the app's initData and
    theme, so the page reloaded (Telegram's menu, Reload) shows the lobby again, in the theme."""
    driver = await table_where(
        redis_client, lambda state: state.phase is Phase.FINISHED, "tg:-1014"
    )
    async with pages(driver, browser) as (web, address):
        version, old, _ = await driver.svc.snapshot(driver.chat)
        assert old is not None
        page = await mini_app(browser, web, address, driver.chat, LIGHT)
        await caught_up(page, version)
        await page.click("#ask button.again")
        await page.wait_for_selector("main[data-phase=lobby]")
        _, new, _ = await driver.svc.snapshot(driver.chat)
        assert new is not None
        assert new.after == old.game_id
        fields = await page.evaluate(
            "() => Object.fromEntries(new URLSearchParams(location.hash.slice(1)))"
        )
        assert {"tgWebAppData", "tgWebAppThemeParams", "link"} <= set(fields)
        assert auth.check_link(web.secret, fields["link"], NOW).game == new.game_id
        await page.reload()
        await page.wait_for_selector("main[data-phase=lobby]")
        assert await page.text_content("#message") == ""
        assert rgb(await page.evaluate(BACKGROUND))[:3] == rgb_of(LIGHT["bg_color"])
