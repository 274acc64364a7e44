"""A real browser for the tests: headless Chromium from the Debian `chromium` package, driven by
Playwright for Python through its `executable_path` (Playwright's own browser builds are never
downloaded), and golden screenshots compared with a tolerance.

`chromium` (a session fixture) installs the packages when /usr/bin/chromium or the emoji font
is missing (`apt-get install -y --no-install-recommends chromium fonts-noto-color-emoji`, as
root) and fails with the reason when it cannot: a browser test is never skipped. `launch()`
starts it with the flags this machine's closed network needs; Playwright gives each launch a
fresh, empty profile (its own `--user-data-dir` in a temporary directory, removed on close).
"""

import asyncio
import contextlib
import io
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from tempfile import mkdtemp

import pytest
from PIL import Image, ImageChops
from playwright.async_api import Browser, Page, Route, async_playwright

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
FONT_STYLE = f"""
@font-face {{ font-family: "Table Test"; font-weight: 400;
  src: url("{FONT_ROUTE}DejaVuSans.ttf"); }}
@font-face {{ font-family: "Table Test"; font-weight: 700;
  src: url("{FONT_ROUTE}DejaVuSans-Bold.ttf"); }}
*, .card text {{ font-family: "Table Test", "Noto Color Emoji" !important; }}
"""
"""The page asks for `system-ui`, which is whatever the machine's fontconfig picks (DejaVu Sans
on Debian with the chromium package): the tests pin it to the DejaVu Sans the project ships
(bot/show/fonts/), served from the page's own origin, so a screenshot does not depend on the
fonts a machine has installed; emoji come from Debian's Noto Color Emoji (`EMOJI`)."""


EMOJI = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
"""Debian's colour emoji font (fonts-noto-color-emoji): the page shows emoji (an AI seat's 🤖,
the trump's coloured square) as a phone does, where the project's DejaVu Sans has none."""

PACKAGES = {CHROMIUM: "chromium", EMOJI: "fonts-noto-color-emoji"}
"""What the browser tests need, and the Debian package that brings it."""


def install_chromium() -> Path:
    """/usr/bin/chromium (and the emoji font), installed from Debian's packages first where
    missing; fails the test with the reason if they cannot be."""
    missing = [package for path, package in PACKAGES.items() if not path.exists()]
    if not missing:
        return CHROMIUM
    wanted = " ".join(missing)
    if shutil.which("apt-get") is None:
        pytest.fail(f"the browser tests need Debian's {wanted}, and there is no apt-get here")
    if os.geteuid() != 0:
        pytest.fail(
            f"the browser tests need Debian's {wanted} "
            f"(as root: apt-get install -y --no-install-recommends {wanted})"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
    ):
        done = subprocess.run(
            command, check=False, env=env, capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            pytest.fail(
                f"{' '.join(command)} failed ({done.returncode}), so there is no {wanted} "
                f"for the browser tests:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            )
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


@contextlib.asynccontextmanager
async def launching(executable: Path) -> AsyncIterator["asyncio.Task[Browser]"]:
    """`launch(executable)` under way in the background while the caller sets up the rest (a
    launch takes about half a second): await the task for the browser. Closed afterwards."""
    stack = contextlib.AsyncExitStack()
    task = asyncio.ensure_future(stack.enter_async_context(launch(executable)))
    try:
        yield task
    finally:
        await asyncio.wait([task])
        if not task.cancelled() and task.exception() is None:
            await stack.aclose()


async def pin_fonts(page: Page) -> None:
    """Serve the project's DejaVu Sans to `page` at its own origin (see FONT_STYLE); call before
    the page is opened, then `use_pinned_fonts` once it is."""
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):
        await page.route(f"**{FONT_ROUTE}{name}", _serve((FONTS / name).read_bytes()))


def _serve(body: bytes) -> Callable[[Route], Awaitable[None]]:
    async def fulfil(route: Route) -> None:
        await route.fulfill(body=body, content_type="font/ttf")

    return fulfil


async def use_pinned_fonts(page: Page) -> None:
    await page.add_style_tag(content=FONT_STYLE)
    await page.evaluate(
        "async () => { await document.fonts.load('16px \"Table Test\"');"
        " await document.fonts.load('bold 16px \"Table Test\"'); await document.fonts.ready; }"
    )
    assert await page.evaluate("document.fonts.check('16px \"Table Test\"')")


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
