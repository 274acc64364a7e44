"""Which font draws each character a page shows, as Chromium says (the DevTools protocol's
`CSS.getPlatformFontsForNode`), and whether that font has the character.

A character no font of the page's stack has is drawn by Chromium with the first font's missing
glyph (a box), and that font is named for it all the same: so each character the page shows is
drawn alone in a probe span (in both weights) and the font named for it is looked up among the
font files the tests pin (`browser.FONT_STYLE`, the emoji font) and asked with Pillow whether it
has a glyph for it (the character drawn differs from the missing glyph, as
`bot.show.picture_fonts` finds it for the score sheet).
"""

import functools
import unicodedata
from pathlib import Path

from browser import EMOJI, FONTS
from PIL import Image, ImageDraw, ImageFont
from playwright.async_api import Page

FILES = {
    "DejaVuSans": FONTS / "DejaVuSans.ttf",
    "DejaVuSans-Bold": FONTS / "DejaVuSans-Bold.ttf",
    "SheetHangul-Regular": FONTS / "SheetHangul-Regular.ttf",
    "SheetHangul-Bold": FONTS / "SheetHangul-Bold.ttf",
    "NotoColorEmoji": EMOJI,
}
"""The font files a test page may draw with, by their PostScript names."""

INVISIBLE = frozenset({"Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp"})
"""Characters drawn as nothing of their own (spaces, joiners, variation selectors)."""

SHOWN = """() => {
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const parent = walker.currentNode.parentElement;
    if (parent && parent.checkVisibility({ visibilityProperty: true })) {
      for (const character of walker.currentNode.data) seen.add(character);
    }
  }
  return [...seen].join("");
}"""
"""Every character of the text the page shows (its text in elements that are drawn)."""

PROBE = """async characters => {
  const probe = document.createElement("div");
  probe.id = "glyph-probe";
  for (const weight of [400, 700]) {
    for (const character of characters) {
      const span = document.createElement("span");
      span.style.fontWeight = weight;
      span.textContent = character;
      probe.append(span);
    }
  }
  document.body.append(probe);
  await document.fonts.ready;
}"""


@functools.cache
def _font(path: Path) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), 109 if path == EMOJI else 32)  # a colour font's size


@functools.cache
def _drawn(path: Path, character: str) -> bytes:
    font = _font(path)
    canvas = Image.new("RGBA", (4 * int(font.size), 3 * int(font.size)))
    at = (font.size, 2 * font.size)
    ImageDraw.Draw(canvas).text(at, character, font=font, embedded_color=True, anchor="ls")
    return canvas.tobytes()


def has_glyph(path: Path, character: str) -> bool:
    """Whether the font file at `path` draws `character` as something else than its missing
    glyph (drawn for a noncharacter, which no font maps)."""
    return _drawn(path, character) != _drawn(path, "\U0010ffff")


async def badly_drawn(page: Page) -> list[str]:
    """Each character `page` shows that is drawn by a font without it (a missing-glyph box) or
    by a font the tests do not pin, as `"<character> <weight>: <font>"`; empty if none."""
    shown = await page.evaluate(SHOWN)
    characters = sorted(
        {c for c in shown if unicodedata.category(c) not in INVISIBLE and not c.isspace()}
    )
    await page.evaluate(PROBE, characters)
    cdp = await page.context.new_cdp_session(page)
    try:
        await cdp.send("DOM.enable")
        await cdp.send("CSS.enable")
        root = (await cdp.send("DOM.getDocument", {"depth": 0}))["root"]["nodeId"]
        found = await cdp.send(
            "DOM.querySelectorAll", {"nodeId": root, "selector": "#glyph-probe > span"}
        )
        problems = []
        weights = [400] * len(characters) + [700] * len(characters)
        for node, character, weight in zip(found["nodeIds"], characters * 2, weights, strict=True):
            used = await cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})
            for font in used["fonts"]:
                name = font["postScriptName"]
                path = FILES.get(name)
                if path is None or not has_glyph(path, character):
                    problems.append(f"{character} U+{ord(character):04X} {weight}: {name}")
        return problems
    finally:
        await cdp.detach()
        await page.evaluate("document.getElementById('glyph-probe').remove()")
