"""The web table opened as a Telegram Mini App, in a real browser (headless Chromium,
`tests/browser.py`): it takes Telegram's theme colours, and its text keeps a contrast of 4.5:1
(WCAG AA) in the themes Telegram's apps come with, as they are and as they change while the
page is open; a colour of the theme too faint where the page draws it is made readable.

Telegram's script is `tests/browser.py`'s stand-in (telegram.org cannot be reached here); the
page is opened with `initData` signed as Telegram signs it (`tests/test_web.py`).
"""

import json
from typing import Any
from urllib.parse import quote

import redis.asyncio as aioredis
from browser import IN_SESSION_LOOP, as_mini_app, browser, chromium, redis_client, shared_browser
from playwright.async_api import Browser, Page
from service_helpers import ANN
from test_browser import caught_up
from test_browser_access import TEXTS, ann_to, contrast, rgb, table_where, too_faint
from test_browser_asks import pages
from test_web import BOT_TOKEN, NOW, init_data

from adapters.web.server import WebTable
from engine import Phase

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
