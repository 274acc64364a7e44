"""Long names on a narrow phone, in a real browser (headless Chromium, `tests/browser.py`): six
players with long names at the web table, measured at 360 px, 390 px and a desktop width in
every language the chat speaks.

- A trick's cards stay on as few rows as the cards need: four cards of the current trick on one
  row beside the trump, the six of the last trick on one row, each name cut short with an
  ellipsis under its card (whole in its text and tooltip), the winner's star in sight. Names
  with no space to wrap at (64 letters, CJK letters, emoji) keep the trick on the screen.
- The seats at the top take no more rows with long names than with short ones: a seat is as
  wide as its numbers and marks, and grows into what its row leaves, its name cut short with an
  ellipsis (whole in its text and tooltip); its numbers and its marks (the turn's ▶, the AI's
  🤖, the dealer's word, the away 💤) are never cut.
- The final standings leave a long name its room: the number columns' headings wrap between
  their words on a phone ("Spełnione deklaracje", "Previsioni azzeccate", "Izpildīti
  solījumi"), so the name cell is wide, and every column stays inside the panel.
- Two people with the same long name are told apart on a phone: the second one's ` (2)` stays
  in sight beside the name cut short, in the seats, under the trick's cards and in the final
  standings, and the name shown reads as its tooltip does.
- The lobby's list and the score pad's headings cut a long name short too, the namesake's
  ` (2)` in sight: the list stays inside its panel, a pad column no wider than its numbers. On
  a desktop the pad's headings wrap a name between its words: six names of 32 characters show
  whole.

The games are set up by the service's driver, played in English (its checks read English), and
the chat's language is set before each page is opened; a test in every language opens one page
and sets each language while the page shows the table (it redraws in it), and each width in
turn.
"""

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import pytest
import redis.asyncio as aioredis
from browser import (
    IN_SESSION_LOOP,
    browser,
    chromium,
    pin_fonts,
    redis_client,
    shared_browser,
    use_pinned_fonts,
)
from glyphs import badly_drawn
from playwright.async_api import Browser, Page, ViewportSize
from service_helpers import Driver, service
from test_browser import DESKTOP, OUT_OF_ITS_BOX, PHONE, caught_up
from test_browser_asks import pages
from test_web import CONFIG

from adapters.web.server import WebTable
from bot.commands import Kind
from bot.requests import User
from bot.show.i18n import LANGUAGES, texts
from engine import GameState, Phase

__all__ = ["browser", "chromium", "redis_client", "shared_browser"]  # fixtures

pytestmark = IN_SESSION_LOOP

NAMES = (
    "Bartholomäus Wolkenstein",
    "Maximiliane Oberhausen",
    "Konstantin Papadopoulos",
    "Alexandrina Vasquez-Ruiz",
    "Wilhelmina Ostrowska",
    "Friedrich Habsburger",
)
PEOPLE = [User(f"tg:{number}", name) for number, name in enumerate(NAMES, start=1)]
WIDE_PHONE: ViewportSize = {"width": 390, "height": 844}

NAME_ROOM = {360: 175, 390: 205, DESKTOP["width"]: 300}
"""The least width (px) of a name cell of the final standings, in every language: at 360 px
the Polish, Latvian and Italian headings on one line left it 133 to 164 px (a long name showed
as "Bartholomäus …"); wrapped, the narrowest (Russian) leaves 180."""


async def long_named_table(
    redis_client: aioredis.Redis,
    done: Callable[[GameState], bool],
    names: Sequence[str] | None = None,
) -> Driver:
    """Six people with long names (or with `names`) at a table on the short plan, played until
    `done(state)`."""
    people = (
        PEOPLE if names is None else [User(p.id, n) for p, n in zip(PEOPLE, names, strict=True)]
    )
    driver = Driver(service(redis_client, seed=3, config=CONFIG), people, wings_rate=0)
    await driver.lobby(["rounds=short"])
    await driver.play_until(done)
    return driver


async def opened(
    browser: Browser,
    web: WebTable,
    address: str,
    driver: Driver,
    language: str,
    viewport: ViewportSize,
) -> Page:
    """The first player's page at `driver`'s table, the chat set to `language`, at `viewport`,
    in the project's own fonts."""
    await driver.ok(PEOPLE[0], Kind.LANGUAGE, language)
    version, stored, _ = await driver.svc.snapshot(driver.chat)
    assert stored is not None
    page = await browser.new_page(viewport=viewport)
    await pin_fonts(page)
    await page.goto(f"{address}?link={web.link(driver.chat, PEOPLE[0].id, stored.game_id)}")
    await caught_up(page, version)
    await use_pinned_fonts(page)
    assert await page.get_attribute("html", "lang") == language
    return page


async def switched(page: Page, driver: Driver, language: str) -> None:
    """The chat set to `language` while `page` shows its table: the page redraws all it shows
    in that language (the view it is sent says the language and all its words), as it does
    for a player whose chat changes its language."""
    await driver.ok(PEOPLE[0], Kind.LANGUAGE, language)
    version, _, _ = await driver.svc.snapshot(driver.chat)
    await caught_up(page, version)
    assert await page.get_attribute("html", "lang") == language


PLAYS = """selector => [...document.querySelectorAll(selector)].map(play => {
  const name = play.querySelector(".name") ?? play.lastElementChild;
  const star = play.querySelector(".star");
  const at = play.getBoundingClientRect();
  return {
    top: Math.round(at.top),
    width: Math.round(at.width),
    card: Math.round(play.querySelector(".card").getBoundingClientRect().width),
    name: name.textContent,
    title: name.title,
    cut: name.scrollWidth > name.clientWidth,
    star: star === null ? null : star.getBoundingClientRect().right <= at.right + 0.5,
  };
})"""
"""Each played card of `selector`: where its row is, its width and its card's, its name (the
text, the tooltip, whether it is cut short) and whether its star (if any) is within it."""


def check_plays(plays: list[dict[str, Any]], count: int, cut: bool | None) -> None:
    """`count` played cards on one row, each name whole in its text and tooltip (every one cut
    short on the screen if `cut`, none if not `cut`), and the winner's star in sight."""
    assert len(plays) == count, plays
    assert len({play["top"] for play in plays}) == 1, plays
    for play in plays:
        assert play["name"] in NAMES, play
        assert play["title"] == play["name"], play
        assert cut is None or play["cut"] is cut, play
    assert [play["star"] for play in plays if play["star"] is not None] == [True], plays


def four_played(state: GameState) -> bool:
    """Four cards of a trick on the table, and the trick before of all six (round 3 on)."""
    rnd = state.round
    return (
        state.phase is Phase.PLAYING
        and rnd is not None
        and len(state.results) >= 2
        and len(rnd.trick) == 4
    )


async def test_long_names_keep_a_tricks_cards_on_one_row_on_a_phone(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Four cards of a trick and the six of the last trick, each on one row on a phone (360 px
    and 390 px) in every language (the trump's line beside them differs), their long names cut
    short. The page is opened once, each language set while it shows the table, and each width
    in turn: its layout is the stylesheet's alone (the script reads no width)."""
    driver = await long_named_table(redis_client, four_played)
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", PHONE)
        for language in LANGUAGES:
            await switched(page, driver, language)
            for viewport in (PHONE, WIDE_PHONE):
                await page.set_viewport_size(viewport)
                check_plays(await page.evaluate(PLAYS, "#trick .play"), 4, cut=True)
            await page.click("#last > summary")  # open
            for viewport in (WIDE_PHONE, PHONE):
                await page.set_viewport_size(viewport)
                check_plays(await page.evaluate(PLAYS, "#last .play"), 6, cut=True)
                assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth")
            await page.click("#last > summary")  # folded again, as the page opens
        await page.close()


async def test_every_character_the_page_shows_is_drawn_by_a_font_that_has_it(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """In every language each character the page shows (the table, the last trick and the
    score pad unfolded), in either weight, is drawn by a font the tests pin that has it: no
    missing-glyph box, so the layout checks above measure real glyphs (Korean with the
    project's Hangul font, which the test machine has no other of)."""
    driver = await long_named_table(redis_client, four_played)
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", PHONE)
        await page.click("#last > summary")
        await page.click("#sheet > summary")
        problems = {}
        for language in LANGUAGES:
            await switched(page, driver, language)
            if badly := await badly_drawn(page):
                problems[language] = badly
        assert not problems, problems


async def test_on_a_desktop_a_tricks_names_have_more_room_than_their_cards(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """At a desktop width a trick's cards are on one row too, and a name has room beyond its
    card's width (the whole name where it fits)."""
    driver = await long_named_table(redis_client, four_played)
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", DESKTOP)
        trick = await page.evaluate(PLAYS, "#trick .play")
        check_plays(trick, 4, cut=None)
        assert all(play["width"] > play["card"] + 40 for play in trick), trick
        await page.click("#last > summary")
        last = await page.evaluate(PLAYS, "#last .play")
        check_plays(last, 6, cut=None)
        assert not all(play["cut"] for play in last), last  # "Wilhelmina Ostrowska" is whole


UNBROKEN = (
    "王小明的非常长的名字和更多的字符在这里",
    "😀😃😄😁😆😅🤣😂🙂🙃😉😊😇🥰😍🤩",
    "A" * 64,
    "Ölçü Şahin-Çelik Yılmazoğlu",
    "Jo",
    "Bartholomäus von Wolkenstein-Trostburg",
)
"""Names with no space to wrap at (wide CJK letters, emoji, 64 letters: as long as a Telegram
name may be), a long one with spaces, and a short one."""

NAME_ROOM_UNDER_A_CARD = {360: 120, 390: 120, DESKTOP["width"]: 150}
"""The stylesheet's --name-room: the most a name under a played card may take."""


@pytest.mark.parametrize(
    "viewport", [PHONE, WIDE_PHONE, DESKTOP], ids=["360px", "390px", "desktop"]
)
async def test_names_without_a_space_keep_a_trick_on_the_screen(
    browser: Browser, redis_client: aioredis.Redis, viewport: ViewportSize
) -> None:
    """Four cards of a trick played by people with names of no space (UNBROKEN): on one row
    beside the trump, on the screen (the page does not scroll sideways); each card's width is
    no more than its name's room and the star, each name whole in its text and tooltip."""
    driver = await long_named_table(redis_client, four_played, UNBROKEN)
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", viewport)
        plays = await page.evaluate(PLAYS, "#trick .play")
        assert len(plays) == 4, plays
        assert len({play["top"] for play in plays}) == 1, plays
        room = NAME_ROOM_UNDER_A_CARD[viewport["width"]] + 20  # and the star
        for play in plays:
            assert play["name"] in UNBROKEN, play
            assert play["title"] == play["name"], play
            assert play["width"] <= room, play
        assert [play["star"] for play in plays if play["star"] is not None] == [True], plays
        assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        assert await page.evaluate(
            "document.querySelector('#trump').getBoundingClientRect().left >= 0"
        )


NAME_CELLS = """() => [...document.querySelectorAll("#summary[data-kind=final] td:nth-child(2)")]
  .map(cell => ({ name: cell.querySelector(".who").textContent, title: cell.title,
                  width: Math.round(cell.getBoundingClientRect().width),
                  ratings: [...cell.parentElement.querySelectorAll(".rating")]
                    .filter(rating => rating.getClientRects().length).length }))"""
"""Each name cell of the final standings: the name, its tooltip, its width, and how many ratings
its row draws (a column on a desktop, a line under the name on a phone)."""

HEADINGS = """() => [...document.querySelectorAll("#summary[data-kind=final] th")]
  .map(cell => Math.round(cell.getBoundingClientRect().height))"""

STANDINGS_AT_A_WIDTH = f"""() => ({{
  cells: ({NAME_CELLS})(), outside: ({OUT_OF_ITS_BOX})(), headings: ({HEADINGS})() }})"""
"""NAME_CELLS, OUT_OF_ITS_BOX and HEADINGS at the page's width, in one round trip."""


async def test_the_final_standings_leave_a_long_name_its_room_in_every_language(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """The final standings at 360 px, 390 px and a desktop width, in every language: each
    name cell is at least NAME_ROOM wide (its name whole in its text and tooltip) and every
    column is inside the panel, each row's rating drawn once (a column of its own took the
    name's room on a phone: it is a line under the name there); on a desktop the headings keep
    to one line."""
    driver = await long_named_table(redis_client, lambda state: state.phase is Phase.FINISHED)
    narrow: list[tuple[str, int, int]] = []
    outside: list[tuple[str, int]] = []
    untitled: list[tuple[str, int]] = []
    tall: list[tuple[str, int]] = []
    unrated: list[tuple[str, int]] = []
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", PHONE)
        for language in LANGUAGES:
            await switched(page, driver, language)
            for viewport in (PHONE, WIDE_PHONE, DESKTOP):
                await page.set_viewport_size(viewport)
                at = (language, viewport["width"])
                measured = await page.evaluate(STANDINGS_AT_A_WIDTH)
                cells = measured["cells"]
                assert sorted(cell["name"] for cell in cells) == sorted(NAMES)
                least = min(cell["width"] for cell in cells)
                if least < NAME_ROOM[viewport["width"]]:
                    narrow.append((*at, least))
                if measured["outside"]:
                    outside.append(at)
                if any(cell["title"] != cell["name"] for cell in cells):
                    untitled.append(at)
                if any(cell["ratings"] != 1 for cell in cells):
                    unrated.append(at)
                if viewport is DESKTOP and max(measured["headings"]) >= 20:
                    tall.append(at)  # a heading on two lines where there is room for one
        await page.close()
    assert narrow == []
    assert outside == []
    assert untitled == []
    assert unrated == []
    assert tall == []


ROBOT_NAME = "Taliesin ap Gwyddno Garanhir"
SEATED = (*NAMES[:5], f"🤖 {ROBOT_NAME}")
"""The seat names of a table of five people and an AI seat, all with long names."""

SEATS = """() => [...document.querySelectorAll("#seats .seat")].map(seat => {
  const at = seat.getBoundingClientRect();
  const inside = node => {
    const box = node.getBoundingClientRect();
    return box.left >= at.left && box.right <= at.right;
  };
  const name = seat.querySelector(".name");
  const text = name.querySelector("span") ?? name;
  const who = seat.querySelector(".who") ?? name;
  const standing = seat.querySelector(".standing");
  return {
    top: Math.round(at.top),
    title: name.title,
    text: who.textContent.replaceAll("\\u00a0", " "),
    cut: text.scrollWidth > text.clientWidth,
    room: text.clientWidth,
    marks: who.scrollWidth <= who.clientWidth && inside(who)
      && [...seat.querySelectorAll(".mark")].every(inside),
    numbers: standing.scrollWidth <= standing.clientWidth && inside(standing),
  };
})"""
"""Each seat: where its row is, its name's tooltip, the text of its name line, whether the name
is cut short on the screen and the room it has, whether the name line's marks and the numbers
are wholly within the seat."""

SHORTEN = """() => { for (const name of document.querySelectorAll("#seats .name")) {
  const text = name.querySelector("span") ?? name;
  text.textContent = text.textContent.slice(0, 3);
  if (name.dataset.name) name.dataset.name = text.textContent;
} }"""
"""Every seat's name cut to its first three letters, as a table of short names."""

EVERY_MARK = """() => {
  const seat = document.querySelector("#seats .seat.dealer");
  const added = ["to-act", "away"].filter(mark => !seat.classList.contains(mark));
  seat.classList.add(...added);
  return added;
}"""
"""The dealer's seat marked as to act and away too (the marks it had not): every mark at once."""

NO_MORE_MARKS = (
    """added => document.querySelector("#seats .seat.dealer").classList.remove(...added)"""
)

NAME_FLOOR = 55
"""The least room (px) of a name cut short in a seat: 4em of 14 px, less a pixel's rounding."""

ROWS = """() => new Set([...document.querySelectorAll("#seats .seat")]
  .map(seat => Math.round(seat.getBoundingClientRect().top))).size"""

SEATS_AT_A_WIDTH = f"""() => {{
  const seats = ({SEATS})();
  const rows = ({ROWS})();
  const added = ({EVERY_MARK})();
  const marked = ({SEATS})();
  const fits = document.documentElement.scrollWidth <= innerWidth;
  ({NO_MORE_MARKS})(added);
  return {{ seats, rows, marked, fits }};
}}"""
"""The seats at the page's width in one round trip: SEATS, ROWS, SEATS again with every mark
on the dealer's seat (EVERY_MARK, then NO_MORE_MARKS) and whether the page is no wider than
the screen with them."""


async def long_named_table_with_an_ai_seat(redis_client: aioredis.Redis) -> Driver:
    """Five people with long names and an AI seat with a long name, in round 3's play."""
    config = dataclasses.replace(CONFIG, ai_names=(ROBOT_NAME,))
    driver = Driver(service(redis_client, seed=3, config=config), PEOPLE[:5], wings_rate=0)
    await driver.lobby(["rounds=short"], ai=1)
    await driver.play_until(lambda state: state.phase is Phase.PLAYING and len(state.results) >= 2)
    return driver


async def test_long_names_take_the_seats_no_more_rows_than_short_ones(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """The seats at 360 px, 390 px and a desktop width, in every language: they take no more
    rows than the same seats with names of three letters; each name is whole in its text and
    tooltip, and a name cut short keeps at least NAME_FLOOR px; on a phone some names are cut.
    Each seat's numbers and marks are wholly in sight, the dealer's seat also marked as to act
    and away (every mark at once, as a player on autopilot dealing)."""
    driver = await long_named_table_with_an_ai_seat(redis_client)
    more_rows: list[tuple[str, int, int, int]] = []
    hidden: list[tuple[str, int, str]] = []
    squeezed: list[tuple[str, int, str, int]] = []
    untitled: list[tuple[str, int]] = []
    uncut: list[tuple[str, int]] = []
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", PHONE)
        for language in LANGUAGES:
            await switched(page, driver, language)
            dealer = texts(language)("dealer")
            lines = {*SEATED, *(f"{name} ({dealer})" for name in SEATED)}
            rows: dict[int, int] = {}
            for viewport in (PHONE, WIDE_PHONE, DESKTOP):
                await page.set_viewport_size(viewport)
                at = (language, viewport["width"])
                measured = await page.evaluate(SEATS_AT_A_WIDTH)
                seats = measured["seats"]
                if sorted(seat["title"] for seat in seats) != sorted(SEATED):
                    untitled.append(at)
                if viewport is not DESKTOP and not any(seat["cut"] for seat in seats):
                    uncut.append(at)  # the long names are all whole: the test proves nothing
                rows[viewport["width"]] = measured["rows"]
                for seat in seats + measured["marked"]:
                    assert seat["text"] in lines, (at, seat)  # the name line's text is whole
                    if not seat["numbers"] or not seat["marks"]:
                        hidden.append((*at, seat["text"]))
                    if seat["cut"] and seat["room"] < NAME_FLOOR:
                        squeezed.append((*at, seat["text"], seat["room"]))
                assert measured["fits"], at
            await page.evaluate(SHORTEN)  # the same seats with short names, at each width again
            for viewport in (PHONE, WIDE_PHONE, DESKTOP):
                await page.set_viewport_size(viewport)
                short = await page.evaluate(ROWS)
                if rows[viewport["width"]] > short:
                    more_rows.append((language, viewport["width"], rows[viewport["width"]], short))
        await page.close()
    assert more_rows == []
    assert hidden == []
    assert squeezed == []
    assert untitled == []
    assert uncut == []


ROBOT_LINE = """() => [...document.querySelectorAll("#seats .seat")]
  .filter(seat => seat.querySelector(".name").title.startsWith("🤖"))
  .map(seat => {
    const name = seat.querySelector(".name");
    const mark = [...seat.querySelectorAll(".who .mark")]
      .find(node => node.textContent.startsWith("🤖"));
    const robot = document.createRange(); // the 🤖 alone, drawn
    robot.setStart(mark.firstChild, 0);
    robot.setEnd(mark.firstChild, "🤖".length);
    const shown = name.querySelector("span") ?? name;
    return {
      title: name.title,
      shown: mark.textContent + name.textContent,
      gap: Math.round(shown.getBoundingClientRect().left - robot.getBoundingClientRect().right),
    };
  })"""
"""Each AI seat's name as shown (its 🤖 mark and its name, character for character), its tooltip,
and how wide the space between the 🤖 and the name is drawn (px)."""


async def test_an_ai_seats_name_reads_as_its_tooltip(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """An AI seat's name in the seats: its 🤖 and the name after it read as its tooltip does,
    a plain space between them, drawn (the page put a no-break space there, which the tooltip,
    the view's `name`, lacked)."""
    driver = await long_named_table_with_an_ai_seat(redis_client)
    async with pages(driver, browser) as (web, address):
        for viewport in (PHONE, DESKTOP):
            page = await opened(browser, web, address, driver, "en", viewport)
            robots = await page.evaluate(ROBOT_LINE)
            assert [robot["title"] for robot in robots] == [f"🤖 {ROBOT_NAME}"], robots
            assert all(robot["shown"] == robot["title"] for robot in robots), robots
            assert all(robot["gap"] >= 2 for robot in robots), robots  # the space is drawn
            await page.close()


NAMESAKE = "Bartholomäus von Wolkensteiner"
NAMESAKES = (NAMESAKE, NAMESAKE, *NAMES[1:5])
"""Six people, the first two called alike: the second is shown as `NAMESAKE (2)`, too long for
the name cell of the final standings at 360 px too (a name as it comes in is at most 32
characters: `adapters/text.py`)."""

SECOND = f"{NAMESAKE} (2)"

SUFFIX = """selector => [...document.querySelectorAll(selector)]
  .filter(node => node.textContent.includes("(2)"))
  .map(node => {
    const walk = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    let text = walk.nextNode();
    while (text !== null && !text.data.includes("(2)")) text = walk.nextNode();
    const range = document.createRange();
    const at = text.data.lastIndexOf("(2)");
    range.setStart(text, at);
    range.setEnd(text, at + 3);
    const box = range.getBoundingClientRect();
    const space = document.createRange(); // the space before the number, drawn
    space.setStart(text, Math.max(0, at - 1));
    space.setEnd(text, at);
    const gap = text.data[at - 1] === " " ? space.getBoundingClientRect().width : 0;
    const inside = element => {
      const room = element.getBoundingClientRect();
      return box.left >= room.left - 0.5 && box.right <= room.right + 0.5;
    };
    const clips = [];
    for (let element = text.parentElement; element !== node.parentElement;
         element = element.parentElement) {
      if (getComputedStyle(element).overflowX !== "visible") clips.push(element);
    }
    const names = [node, ...node.querySelectorAll(".name > span, .name")];
    const titled = node.title ? node : node.querySelector("[title]");
    return {
      text: node.textContent.replaceAll("\\u00a0", " "),
      seen: inside(node) && clips.every(inside),
      cut: names.some(name => name.scrollWidth > name.clientWidth),
      shown: [...node.querySelectorAll(".name, .namesake")].map(part => part.textContent).join(""),
      title: titled === null ? null : titled.title,
      gap: Math.round(gap),
    };
  })"""
"""Each of `selector`'s nodes whose text has a `(2)`: its text, whether that `(2)` is wholly
inside the node and every box between them that clips what overflows it (a `(2)` cut away
with an ellipsis is outside its name's box), whether the name beside it is cut short, the
name as it is shown (the name and its number, character for character), its tooltip and how
wide the space before the number is drawn (px; 0 for no space there)."""


def check_suffix(found: list[dict[str, Any]], where: str, second: str = SECOND) -> None:
    """The second namesake's name line (`second`) is there, the name cut short, its ` (2)` in
    sight, and its tooltip reads as the name does, to the space before the number."""
    assert found, where
    for node in found:
        assert second in node["text"], (where, node)
        assert node["cut"], (where, node)  # a name not cut would prove nothing
        assert node["seen"], (where, node)
        assert node["shown"] == node["title"] == second, (where, node)
        assert node["gap"] >= 2, (where, node)  # the space is drawn, not dropped


async def test_a_namesakes_number_stays_in_sight_on_a_phone(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Two people with the same long name at 360 px: the second one's ` (2)` stays in sight
    beside the name cut short, in the seats, under the trick's cards (the last trick's too) and
    in the final standings, so the two are told apart where there are no tooltips; and the
    name shown reads as its tooltip does, a plain space before the number (the page drew a
    no-break space there, which the tooltip lacked), the space drawn."""
    driver = await long_named_table(redis_client, four_played, NAMESAKES)
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", PHONE)
        await page.click("#last > summary")
        check_suffix(await page.evaluate(SUFFIX, "#seats .seat .who"), "seats")
        check_suffix(await page.evaluate(SUFFIX, "#trick .play .who, #last .play .who"), "trick")
        await page.close()
        await driver.play_until(lambda state: state.phase is Phase.FINISHED)
        page = await opened(browser, web, address, driver, "en", PHONE)
        standings = "#summary[data-kind=final] td:nth-child(2)"
        check_suffix(await page.evaluate(SUFFIX, standings), "standings")
        await page.close()


LOBBY = """() => {
  const panel = document.querySelector("#summary[data-kind=lobby]");
  const box = panel.getBoundingClientRect();
  return [...panel.querySelectorAll("li")].map(line => ({
    title: line.title,
    shown: [...line.querySelectorAll(".name, .namesake")].map(part => part.textContent).join(""),
    inside: line.getBoundingClientRect().right <= box.right + 0.5,
  }));
}"""
"""Each player of the lobby's list: its tooltip, its name as shown (the name and its number)
and whether its line is inside the panel."""

SHOUTED = "MAXIMILIANOBERHAUSENWOLKENSTEIN"
"""A name in capitals with no space to wrap at, wider than the lobby's list at 360 px."""
LOBBY_NAMES = (SHOUTED, SHOUTED, *NAMES[1:5])
"""Six people, the first two called alike, by a name with no space to wrap at."""

CROWN_IN_SIGHT = """() => {
  const line = document.querySelector("#summary li");
  const crown = [...line.querySelectorAll("span")].find(span => span.textContent === " 👑");
  return crown !== undefined
    && crown.getBoundingClientRect().right <= line.getBoundingClientRect().right + 0.5;
}"""
"""Whether the host's crown is on the lobby's first line, within it."""

PANEL_SCROLLS = """() => {
  const panel = document.querySelector("#summary");
  return panel.scrollWidth > panel.clientWidth;
}"""


async def test_the_lobby_list_cuts_a_long_name_short_on_a_phone(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Six people with long names in a lobby, at 360 px: the list of who has joined showed each
    name whole, so a name with no space to wrap at widened the list past its panel (which
    scrolled), and a long name wrapped onto two lines. Each name is now cut short with an
    ellipsis on its line, whole in its tooltip, and the second namesake's ` (2)` stays in sight
    beside it, the host's crown too; nothing is wider than the screen."""
    people = [User(p.id, n) for p, n in zip(PEOPLE, LOBBY_NAMES, strict=True)]
    driver = Driver(service(redis_client, seed=3, config=CONFIG), people, wings_rate=0)
    await driver.lobby(["rounds=short"], start=False)
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", PHONE)
        lines = await page.evaluate(SUFFIX, "#summary[data-kind=lobby] li")
        check_suffix(lines, "lobby", f"{SHOUTED} (2)")
        players = await page.evaluate(LOBBY)
        assert sorted(player["title"] for player in players) == sorted(
            [SHOUTED, f"{SHOUTED} (2)", *LOBBY_NAMES[2:]]
        )
        assert all(player["shown"] == player["title"] for player in players), players
        assert all(player["inside"] for player in players), players
        assert not await page.evaluate(PANEL_SCROLLS)
        assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        assert await page.evaluate(CROWN_IN_SIGHT)
        await page.close()


SHEET = """() => {
  const rows = [...document.querySelector("#sheet .pad table").rows];
  return [...rows[0].cells].slice(1).map((head, index) => {
    const widest = Math.max(...rows.slice(1).map(row => {
      const range = document.createRange();
      range.selectNodeContents(row.cells[index + 1]);
      return range.getBoundingClientRect().width;
    }));
    const padding = parseFloat(getComputedStyle(head).paddingLeft)
      + parseFloat(getComputedStyle(head).paddingRight);
    return {
      title: head.title,
      shown: [...head.querySelectorAll(".name, .namesake")].map(part => part.textContent).join(""),
      width: head.getBoundingClientRect().width,
      numbers: widest + padding,
    };
  });
}"""
"""Each seat's heading of the score pad: its tooltip, its name as shown, its column's width and
the width its numbers need (the widest cell's text and the padding)."""


async def test_the_score_pads_headings_do_not_widen_its_columns_on_a_phone(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """The score pad at 360 px with six long names, two of them alike: each heading showed the
    whole name, so a column was as wide as its name, not its numbers, and the pad scrolled the
    further for it. Each column is now as wide as its numbers, the name cut short with an
    ellipsis, whole in its tooltip, the second namesake's ` (2)` in sight."""
    driver = await long_named_table(redis_client, four_played, NAMESAKES)
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", PHONE)
        await page.click("#sheet > summary")
        check_suffix(await page.evaluate(SUFFIX, "#sheet th"), "score pad")
        heads = await page.evaluate(SHEET)
        assert sorted(head["title"] for head in heads) == sorted([NAMESAKE, *NAMESAKES[2:], SECOND])
        assert all(head["shown"] == head["title"] for head in heads), heads
        assert all(head["width"] <= head["numbers"] + 1 for head in heads), heads
        assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        await page.close()


LONGEST = (
    "Bartholomäus von Wolkensteinerei",
    "Maximiliane Oberhausen-Schmidtke",
    "Konstantin Papadopoulos-Andreous",
    "Alexandrina Vasquez-Ruiz de Leon",
    "Friedrich v. Habsburg-Lothringen",
    "MAXIMILIANOBERHAUSENWOLKENSTEINS",
)
"""Six names as long as a name may be (32 characters, `adapters/text.py`), the last with no space
to wrap at."""

HEADS = """() => [...document.querySelectorAll("#sheet .pad th[title]")].map(head => {
  const name = head.querySelector(".name");
  const style = getComputedStyle(name);
  return {
    title: head.title,
    shown: [...head.querySelectorAll(".name, .namesake")].map(part => part.textContent).join(""),
    cut: name.scrollWidth > name.clientWidth + 0.5 || name.scrollHeight > name.clientHeight + 0.5,
    ellipsis: style.textOverflow === "ellipsis" && style.overflowX === "hidden",
  };
})"""
"""Each seat's heading of the score pad: its tooltip, its name as shown, whether the name is cut
(wider or taller than its box) and whether a cut would end in an ellipsis."""


async def test_the_score_pad_gives_six_long_names_room_on_a_desktop(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """The score pad at a desktop width with six names of 32 characters: each heading was one
    line, a sixth of the pad, so every name was cut to half of itself ("Konstantin P…"). A name
    now wraps between its words there and shows whole; one with no space to wrap at is cut
    short with an ellipsis, whole in its tooltip; the pad does not scroll sideways."""
    driver = await long_named_table(redis_client, four_played, LONGEST)
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", DESKTOP)
        await page.click("#sheet > summary")
        heads = await page.evaluate(HEADS)
        assert sorted(head["title"] for head in heads) == sorted(LONGEST), heads
        assert all(head["shown"] == head["title"] for head in heads), heads
        assert all(head["ellipsis"] for head in heads), heads
        cut = [head["title"] for head in heads if head["cut"]]
        assert cut == [LONGEST[-1]], heads
        assert not await page.evaluate(
            "(pad => pad.scrollWidth > pad.clientWidth)(document.querySelector('#sheet .pad'))"
        )
        await page.close()


RIGHT_TO_LEFT = (
    "محمد عبد الرحمن الهاشمي",
    "אברהם בן-דוד רוזנברג",
    "فاطمة الزهراء بنت علي",
    "יוסף כהן הגדול מירושלים",
    "Wilhelmina Ostrowska",
    "عائشة بنت أبي بكر الصديق",
)
"""Six long names, five of them in a script written from right to left (Arabic, Hebrew)."""

BEGINNINGS = """selector => [...document.querySelectorAll(selector)].map(name => {
  const text = name.querySelector("span") ?? name; // the box that cuts the name short
  const box = text.getBoundingClientRect();
  const first = document.createRange(); // the name's first letter, as written
  first.setStart(text.firstChild, 0);
  first.setEnd(text.firstChild, 1);
  const letter = first.getBoundingClientRect();
  return {
    name: text.textContent,
    cut: text.scrollWidth > text.clientWidth + 0.5,
    first: letter.left >= box.left - 0.5 && letter.right <= box.right + 0.5,
  };
})"""
"""Each name of `selector` (`.name` elements): its text, whether it is cut short, and whether
its first letter, as written, is in sight inside the box that cuts it."""


async def test_a_right_to_left_name_cut_short_keeps_its_beginning_in_sight(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Long Arabic and Hebrew names at 320 px (the narrowest phone the page is for), in the
    seats, under the trick's cards, the last trick's and as the score pad's headings: a name cut
    short keeps its first letters in sight, as a name written from left to right does, and loses
    its end. The page is written from left to right, and each name was laid out so too: an
    Arabic name cut short showed its last words ("…ن الهاشمي" for "محمد عبد الرحمن الهاشمي"),
    the first name out of sight."""
    driver = await long_named_table(redis_client, four_played, RIGHT_TO_LEFT)
    async with pages(driver, browser) as (web, address):
        page = await opened(browser, web, address, driver, "en", {"width": 320, "height": 700})
        await page.click("#last > summary")
        await page.click("#sheet > summary")
        where = "#seats .name, #trick .name, #last .name, #sheet th .name"
        names = await page.evaluate(BEGINNINGS, where)
        assert {name["name"] for name in names} == set(RIGHT_TO_LEFT), names
        cut = [name for name in names if name["cut"]]
        assert {name["name"] for name in cut} >= set(RIGHT_TO_LEFT[:4]), names  # else: no proof
        assert [name for name in cut if not name["first"]] == []
        assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        await page.close()
