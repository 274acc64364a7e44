"""A real browser for the tests: headless Chromium from the Debian `chromium` package, driven by
Playwright for Python through its `executable_path` (Playwright's own browser builds are never
downloaded), and golden screenshots compared with a tolerance.

`chromium` (a session fixture) installs the packages when /usr/bin/chromium or the emoji font
is missing (`apt-get install -y --no-install-recommends chromium fonts-noto-color-emoji`, as
root, `system_packages.apt_install`) and fails with the reason when it cannot: a browser test
is never skipped. `launch()` starts it with the flags this machine's closed network needs;
Playwright gives each launch a fresh, empty profile (its own `--user-data-dir` in a temporary
directory, removed on close). The tests share one launch (`browser`, in the session's event
loop: `IN_SESSION_LOOP`), each page in a fresh browser context, closed after its test.
"""

import contextlib
import io
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from tempfile import mkdtemp

import pytest
import pytest_asyncio
import redis.asyncio as aioredis
from PIL import Image, ImageChops
from playwright.async_api import Browser, Page, Route, async_playwright
from system_packages import apt_install

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--font-render-hinting=none",  # the same glyph shapes whatever the machine's fontconfig says
]
"""Without the background-networking flags Chromium keeps trying to reach Google's hosts, and
this machine's closed network refuses each connection."""

FONTS = Path(__file__).resolve().parents[1] / "bot" / "show" / "fonts"
FONT_ROUTE = "/__test_fonts__/"
PINNED = {
    ("Table Test", 400): "DejaVuSans.ttf",
    ("Table Test", 700): "DejaVuSans-Bold.ttf",
    ("Table Test Hangul", 400): "SheetHangul-Regular.ttf",
    ("Table Test Hangul", 700): "SheetHangul-Bold.ttf",
}
"""The project's fonts (bot/show/fonts/) served to a test page, by family and weight."""
FONT_STYLE = "".join(
    f'@font-face {{ font-family: "{family}"; font-weight: {weight}; '
    f'src: url("{FONT_ROUTE}{name}"); }}\n'
    for (family, weight), name in PINNED.items()
) + (
    '*, .card text { font-family: "Table Test", "Table Test Hangul", "Noto Color Emoji"'
    " !important; }\n"
)
"""The page asks for `system-ui`, which is whatever the machine's fontconfig picks (DejaVu Sans
on Debian with the chromium package): the tests pin it to the DejaVu Sans the project ships
(bot/show/fonts/), served from the page's own origin, so a screenshot does not depend on the
fonts a machine has installed; Hangul, which DejaVu Sans lacks and the test machine has no font
of, comes from the score sheet's Hangul subset (SheetHangul, of NanumSquare), so a Korean page
is measured on real glyphs, not missing-glyph boxes (`tests/glyphs.py` checks it); emoji come
from Debian's Noto Color Emoji (`EMOJI`)."""


EMOJI = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
"""Debian's colour emoji font (fonts-noto-color-emoji): the page shows emoji (an AI seat's 🤖,
the trump's coloured square) as a phone does, where the project's DejaVu Sans has none."""

PACKAGES = {CHROMIUM: "chromium", EMOJI: "fonts-noto-color-emoji"}
"""What the browser tests need, and the Debian package that brings it."""


def install_chromium() -> Path:
    """/usr/bin/chromium (and the emoji font), installed from Debian's packages first where
    missing (`system_packages`); fails the test with the reason if they cannot be."""
    missing = [package for path, package in PACKAGES.items() if not path.exists()]
    if not missing:
        return CHROMIUM
    why = apt_install(missing)
    if why is not None:
        pytest.fail(f"the browser tests need Debian's {' '.join(missing)}: {why}")
    for path, package in PACKAGES.items():
        if not path.exists():
            pytest.fail(f"apt-get installed {package} but there is no {path}")
    return CHROMIUM


@pytest.fixture(scope="session")
def chromium() -> Path:
    """The path of Debian's Chromium, installed once per test session when missing."""
    return install_chromium()


@contextlib.asynccontextmanager
async def launch(executable: Path) -> AsyncIterator[Browser]:
    """Headless Chromium at `executable`, closed afterwards."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(executable), headless=True, args=FLAGS
        )
        try:
            yield browser
        finally:
            await browser.close()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_browser(chromium: Path) -> AsyncIterator[Browser]:
    """One Chromium for the whole test session (a launch, with Playwright's driver, takes about
    half a second), in the session's event loop, where every browser test runs."""
    async with launch(chromium) as browser:
        yield browser


@pytest_asyncio.fixture(loop_scope="session")
async def browser(shared_browser: Browser) -> AsyncIterator[Browser]:
    """The session's Chromium for one test. Each page it opens (`browser.new_page`) is in a
    fresh browser context of its own, as in a browser launched for the test alone: no cookie,
    storage or cache of another page or test; every context the test opened is closed after
    it."""
    assert not shared_browser.contexts, "a browser test before this one left a page open"
    try:
        yield shared_browser
    finally:
        await close_pages(shared_browser)


async def close_pages(browser: Browser) -> None:
    """Close every page open in `browser`, each with its context: before the server they show
    stops (an open page's event stream would hold the server's shutdown up)."""
    for context in browser.contexts:
        await context.close()


@pytest_asyncio.fixture(loop_scope="session")
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """tests/conftest.py's `redis_client`, made and closed in the session's event loop, where
    the browser tests run (their browser is bound to that loop)."""
    connection = aioredis.from_url(redis_url)
    yield connection
    await connection.aclose()


IN_SESSION_LOOP = pytest.mark.asyncio(loop_scope="session")
"""Every browser test runs in the session's event loop, the shared browser's."""


async def pin_fonts(page: Page) -> None:
    """Serve the project's fonts to `page` at its own origin (see FONT_STYLE); call before the
    page is opened, then `use_pinned_fonts` once it is."""
    for name in PINNED.values():
        await page.route(f"**{FONT_ROUTE}{name}", _serve((FONTS / name).read_bytes()))


def _serve(body: bytes) -> Callable[[Route], Awaitable[None]]:
    async def fulfil(route: Route) -> None:
        await route.fulfill(body=body, content_type="font/ttf")

    return fulfil


async def use_pinned_fonts(page: Page) -> None:
    await page.add_style_tag(content=FONT_STYLE)
    faces = [f'{weight} 16px "{family}"' for family, weight in PINNED]
    await page.evaluate(
        "async faces => { for (const face of faces) await document.fonts.load(face, 'A한');"
        " await document.fonts.ready; }",
        faces,
    )
    for face in faces:
        assert await page.evaluate("face => document.fonts.check(face, 'A한')", face), face


# --- golden screenshots -------------------------------------------------------------------------

CHANNEL_TOLERANCE = 48
"""A pixel differs when one of its channels is off by more than this (of 255)."""
SHARE_TOLERANCE = 0.005
"""A screenshot matches its golden when at most this share of its pixels differ."""


def differing_share(now: Image.Image, expected: Image.Image) -> float:
    """The share of pixels of the two same-sized images that differ beyond CHANNEL_TOLERANCE."""
    difference = ImageChops.difference(now.convert("RGB"), expected.convert("RGB"))
    worst = ImageChops.lighter(
        ImageChops.lighter(difference.getchannel("R"), difference.getchannel("G")),
        difference.getchannel("B"),
    )
    over = worst.point(lambda value: 255 if value > CHANNEL_TOLERANCE else 0)
    return over.histogram()[255] / (now.width * now.height)


def compare_golden(request: pytest.FixtureRequest, path: Path, png: bytes) -> None:
    """Compare the screenshot `png` with the golden PNG at `path` (within the tolerance above),
    or rewrite it (`pytest --update-golden`, or UPDATE_GOLDEN=1). A missing golden fails; a
    mismatch writes the new screenshot beside the test's temporary files and names it."""
    if request.config.getoption("--update-golden") or os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
    if not path.exists():
        pytest.fail(f"{path} is missing (write it with pytest --update-golden)")
    now = Image.open(io.BytesIO(png))
    expected = Image.open(path)
    problem = None
    if now.size != expected.size:
        problem = f"is {now.size}, was {expected.size}"
    else:
        share = differing_share(now, expected)
        if share > SHARE_TOLERANCE:
            problem = f"differs in {share:.2%} of its pixels (at most {SHARE_TOLERANCE:.1%})"
    if problem is not None:
        cache = getattr(request.config, "cache", None)  # none under -p no:cacheprovider
        seen = cache.mkdir("browser") if cache is not None else Path(mkdtemp(prefix="golden-"))
        (seen / path.name).write_bytes(png)
        pytest.fail(
            f"{path.name} {problem}; the new one is {seen / path.name} "
            "(rewrite with pytest --update-golden)"
        )


# --- a Telegram Mini App ------------------------------------------------------------------------

TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"

TELEGRAM_WEB_APP = """(() => {
  const hash = new URLSearchParams(location.hash.slice(1));
  const handlers = {};
  const root = document.documentElement;
  const app = {
    initData: hash.get("tgWebAppData") || "",
    themeParams: {},
    colorScheme: "light",
    ready() {},
    expand() {},
    onEvent(type, handler) { (handlers[type] ??= []).push(handler); },
  };
  function setThemeParams(params) {
    for (const [key, colour] of Object.entries(params)) {
      app.themeParams[key] = colour;
      root.style.setProperty(`--tg-theme-${key.split("_").join("-")}`, colour);
    }
  }
  setThemeParams(JSON.parse(hash.get("tgWebAppThemeParams") || "{}"));
  window.Telegram = {
    WebApp: app,
    WebView: {
      receiveEvent(type, data) {
        if (type !== "theme_changed") return;
        setThemeParams(data.theme_params);
        for (const handler of handlers.themeChanged ?? []) handler.call(app);
      },
    },
  };
})();"""
"""What the page uses of Telegram's `telegram-web-app.js`, done as it does it: the Mini App's
`initData` and theme come in the address (`#tgWebAppData=…&tgWebAppThemeParams=…`); each
theme colour is set on the page's root as `--tg-theme-<name>` (`bg_color` →
`--tg-theme-bg-color`), at once and again when the app's theme changes
(`Telegram.WebView.receiveEvent("theme_changed", {theme_params})`, which calls the
`themeChanged` handlers). telegram.org cannot be reached from the tests."""


async def as_mini_app(page: Page) -> None:
    """`page` gets TELEGRAM_WEB_APP for Telegram's script; call before it is opened."""

    async def fulfil(route: Route) -> None:
        await route.fulfill(body=TELEGRAM_WEB_APP, content_type="text/javascript")

    await page.route(TELEGRAM_SCRIPT, fulfil)
