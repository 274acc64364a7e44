"""The web table for a player who uses a keyboard or a screen reader, or a phone, in a real
browser (headless Chromium, `tests/browser.py`): every move is a control reached by Tab, named
as the chat names it ("blue 12", "Wizard"; the bids inside their question) and made by Enter or
Space, its focus ring in sight; the turn and each trick's winner are said once, in a live
region of their own, and nothing else the page redraws is read out again; its text keeps a
contrast of 4.5:1 (WCAG AA) and the cards' ranks too; a bid button is at least 44 px each way
on a phone; the hand's cards do not slide for a player who asks for reduced motion.

The games are set up by the service's driver (three people, the short plan), the page served
by aiohttp's test server over the same service (`tests/test_browser_asks.py`'s `pages`).
"""

import asyncio
from typing import Any

import redis.asyncio as aioredis
from browser import IN_SESSION_LOOP, browser, chromium, redis_client, shared_browser
from playwright.async_api import Browser, Locator, Page, Route
from service_helpers import ANN, BOB, CID, DOT, Driver, service, table_of
from test_browser import caught_up
from test_browser_asks import open_page, pages

from bot import tokens
from bot.commands import Kind
from bot.show.i18n import texts
from bot.show.seating import seating
from bot.show.themes import Theme, card_name
from engine import GameState, Phase, player_view
from engine.state import Round

__all__ = ["browser", "chromium", "redis_client", "shared_browser"]  # fixtures

pytestmark = IN_SESSION_LOOP

EN = texts("en")


def ann_to(phase: Phase) -> Any:
    """A `play_until` condition: Ann is to act in `phase` (round 2 on, so her hand has a
    choice)."""

    def done(state: GameState) -> bool:
        rnd = state.round
        if state.phase is not phase or rnd is None or len(state.results) < 1:
            return False
        seat = [p.id for p in state.players].index(ANN.id)
        return player_view(state, seat).table.seats[seat].to_act

    return done


async def table_where(
    redis_client: aioredis.Redis, done: Any, chat: str = "tg:-1001", options: tuple[str, ...] = ()
) -> Driver:
    """Ann, Bob and Cid at a table of `chat` on the short plan (and `options`), played until
    `done(state)`."""
    driver = Driver(service(redis_client, seed=5), [ANN, BOB, CID], chat=chat, seed=5, wings_rate=0)
    await driver.lobby(["rounds=short", *options])
    await driver.play_until(done)
    return driver


FOCUSED = """() => {
  const node = document.activeElement;
  const style = getComputedStyle(node);
  return {
    payload: node.dataset.payload ?? null,
    card: node.dataset.card ?? null,
    style: style.outlineStyle,
    width: parseFloat(style.outlineWidth),
    colour: style.outlineColor,
  };
}"""
"""What has the keyboard's focus: its payload (a move) or card, and its outline."""


async def tabbed(page: Page, presses: int = 30) -> list[dict[str, Any]]:
    """What Tab reaches from the top of the page, in order, each once."""
    await page.evaluate("document.activeElement?.blur()")
    reached: list[dict[str, Any]] = []
    for _ in range(presses):
        await page.keyboard.press("Tab")
        focused = await page.evaluate(FOCUSED)
        if focused in reached:
            continue
        reached.append(focused)
    return reached


def luminance(rgb: tuple[float, ...]) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(v) for v in rgb[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one: tuple[float, ...], other: tuple[float, ...]) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def rgb(css: str) -> tuple[float, ...]:
    """`rgb(1, 2, 3)` or `rgba(1, 2, 3, 0.5)` as numbers."""
    return tuple(float(part) for part in css[css.index("(") + 1 : -1].split(","))


def check_focus_ring(focused: dict[str, Any], background: str) -> None:
    """A solid ring at least 2 px wide, of 3:1 against the page's background (WCAG 1.4.11)."""
    assert focused["style"] == "solid", focused
    assert focused["width"] >= 2, focused
    assert contrast(rgb(focused["colour"]), rgb(background)) >= 3, focused


async def test_every_bid_and_legal_card_is_reached_by_tab_named_and_made_by_the_keyboard(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Ann's bid: Tab reaches every bid button, in a group named by the question, its focus
    ring in sight; Space on one makes that bid. Her card: Tab reaches every legal card, named
    as the chat names it, and no other; Enter on one plays it."""
    driver = await table_where(redis_client, ann_to(Phase.BIDDING))
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, ANN.id)
        background = await page.evaluate(
            "getComputedStyle(document.documentElement).backgroundColor"
        )
        bids = page.locator("#ask button.bid:not(:disabled)")
        payloads = [await b.get_attribute("data-payload") for b in await bids.all()]
        reached = await tabbed(page)
        bid_stops = [f for f in reached if f["payload"] in payloads]
        assert [f["payload"] for f in bid_stops] == payloads, reached
        for focused in bid_stops:
            check_focus_ring(focused, background)
        group = page.get_by_role("group", name=EN("How many tricks will you take?"))
        for bid in await bids.all_inner_texts():
            assert await group.get_by_role("button", name=bid, exact=True).count() == 1, bid

        rnd, ann = await made_by_key(page, driver, redis_client, bids.first, "Space")
        assert rnd.bids[ann] == int(tokens.decode(payloads[0]).arg)

    driver = await table_where(redis_client, ann_to(Phase.PLAYING), "tg:-1002")
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, ANN.id)
        legal = await page.locator("#hand button.card.legal").all()
        assert legal
        cards = [await c.get_attribute("data-card") for c in legal]
        reached = await tabbed(page)
        assert [f["card"] for f in reached if f["card"]] == cards, reached
        for focused in reached:
            if focused["card"]:
                check_focus_ring(focused, background)
        hand = page.get_by_role("region", name=EN("Your hand"))
        for card in cards:
            assert card is not None
            name = card_name(EN, card, Theme.COLOURS)
            named = hand.get_by_role("button", name=name, exact=True)
            assert await named.count() >= 1, name
        trick = page.get_by_role("group", name=EN("Trick"))
        assert await trick.count() == 1

        first = page.locator("#hand button.card.legal").first
        rnd, ann = await made_by_key(page, driver, redis_client, first, "Enter")
        assert len(rnd.hands[ann]) == len(await page.locator("#hand .card").all())
        assert cards[0] not in rnd.hands[ann] or cards.count(cards[0]) > 1


async def made_by_key(
    page: Page, driver: Driver, redis_client: aioredis.Redis, control: Locator, key: str
) -> tuple[Round, int]:
    """`key` pressed on `control`, focused: once the page shows the move made, the stored
    round and Ann's seat."""
    version, _, _ = await driver.svc.snapshot(driver.chat)
    await control.focus()
    await page.keyboard.press(key)
    await caught_up(page, version + 1)
    stored = await table_of(redis_client, driver.chat)
    assert stored is not None
    assert stored.game.round is not None
    return stored.game.round, [p.id for p in stored.game.players].index(ANN.id)


TEXTS = """() => {
  const colour = (css) => css.match(/[\\d.]+/g).map(Number);
  // the colour behind a node: its own or its nearest ancestor's, semi-transparent ones laid
  // over what is behind them
  const behind = (node) => {
    const layers = [];
    for (let at = node; at; at = at.parentElement) {
      const [r, g, b, a = 1] = colour(getComputedStyle(at).backgroundColor);
      if (a > 0) layers.push([r, g, b, a]);
      if (a >= 1) break;
    }
    if (!layers.length || layers.at(-1)[3] < 1) layers.push([255, 255, 255, 1]);
    return layers.reverse().reduce((under, [r, g, b, a]) =>
      [r * a + under[0] * (1 - a), g * a + under[1] * (1 - a), b * a + under[2] * (1 - a)]);
  };
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    const node = text.parentElement;
    if (!text.textContent.trim() || !node.getClientRects().length) continue;
    if (node.closest("svg, :disabled")) continue;
    const style = getComputedStyle(node);
    if (style.visibility !== "visible") continue;
    const size = parseFloat(style.fontSize);
    found.push({
      text: text.textContent.trim(), id: node.closest("[id]")?.id, colour: colour(style.color),
      behind: behind(node), large: size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700),
    });
  }
  return found;
}"""
"""Each piece of text the page shows (outside the cards and disabled controls): its colour,
the colour behind it, and whether it is large (24 px, or 18.66 px bold)."""

RANKS = """async () => {
  const { cardSvg } = await import("./static/cards.js");
  const box = document.createElement("div");
  document.body.append(box);
  const found = [];
  for (const theme of ["colours", "races", "french"]) {
    for (const card of ["B7", "G7", "R7", "Y7", "W", "J"]) {
      box.innerHTML = cardSvg(card, { name: card, role: card }, theme);
      for (const text of box.querySelectorAll("text")) {
        found.push({ theme, card, fill: getComputedStyle(text).fill,
          behind: box.querySelector("rect").getAttribute("fill") });
      }
    }
  }
  box.remove();
  return found;
}"""
"""The colour of each card's printed rank or name, and of the card's face behind it."""


def too_faint(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The texts of `found` (TEXTS) under 4.5:1 against what is behind them (3:1 if large)."""
    return [
        text
        for text in found
        if contrast(text["colour"], text["behind"]) < (3 if text["large"] else 4.5)
    ]


async def test_the_pages_text_and_the_cards_ranks_keep_a_contrast_of_4_5(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Every text the table shows (the header, the seats' numbers, the last round's result, the
    bid question and buttons, the last trick and the score sheet unfolded) and every card's
    rank or name, in each deck, against what is behind it: at least 4.5:1 (WCAG AA)."""
    driver = await table_where(redis_client, ann_to(Phase.BIDDING))
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, ANN.id)
        await page.click("#last > summary")
        await page.click("#sheet > summary")
        assert await page.locator("#summary").is_visible()
        found = await page.evaluate(TEXTS)
        assert {"summary", "seats", "ask", "last", "sheet"} <= {t["id"] for t in found}
        assert too_faint(found) == [], [
            (t["id"], t["text"], round(contrast(t["colour"], t["behind"]), 2))
            for t in too_faint(found)
        ]
        ranks = await page.evaluate(RANKS)
        faint = [r for r in ranks if contrast(rgb(r["fill"]), (255, 255, 255)) < 4.5]
        assert {r["behind"] for r in ranks} == {"#fff"}
        assert faint == []


LIVE = "[aria-live]:not([aria-live=off]), [role=status], [role=alert], [role=log]"
LISTEN = """live => {
  window.spoken = [];
  new MutationObserver((records) => {
    for (const record of records) {
      const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
      const region = node?.closest(live);
      if (!region) continue;
      const added = record.type === "characterData" ? record.target.textContent
        : [...record.addedNodes].map((n) => n.textContent).join(" ");
      if (added.trim()) window.spoken.push([region.id, region.textContent.trim()]);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""
"""Record what each live region of the page is given to say (a screen reader reads out what
is added to one): its id and its text then."""


def said_of(state: GameState, seat: int) -> tuple[Any, Any]:
    """What a screen reader is told of at the table for `seat`: the trick taken last (its
    cards, leader, winner), and the decision the seat is to make (none when it is not its turn):
    a new one each phase, round, card of the trick and trick taken."""
    tv = player_view(state, seat).table
    last = tv.last_trick
    trick = None if last is None else (last.cards, last.leader, last.winner)
    turn = (tv.phase, tv.round, len(tv.trick), trick) if tv.seats[seat].to_act else None
    return trick, turn


async def test_the_turn_and_each_tricks_winner_are_said_once_and_nothing_else_again(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Two rounds played move by move while Ann's page is open: after each move, what its
    live regions say (the round's summary aside) is the trick's winner when a trick was taken
    ("Bob won the trick") and "Your turn" when Ann has a new decision to make, in that order;
    after any other move, nothing (the bid question and the buttons, redrawn with each view,
    were read out again each time)."""
    driver = await table_where(redis_client, lambda s: s.round is not None, "tg:-1003")
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, ANN.id)
        await page.evaluate(LISTEN, LIVE)
        state = (await table_of(redis_client, driver.chat)).game  # type: ignore[union-attr]
        seat = [p.id for p in state.players].index(ANN.id)
        before = said_of(state, seat)
        counted = {"trick": 0, "turn": 0}
        while len(state.results) < 2:
            await driver.move()
            version, stored, _ = await driver.svc.snapshot(driver.chat)
            assert stored is not None
            await caught_up(page, version)
            state = stored.game
            now = said_of(state, seat)
            expected = []
            if now[0] is not None and now[0] != before[0]:
                winner = seating(stored).names[now[0][2]]
                expected.append(EN("{name} won the trick", name=winner))
                counted["trick"] += 1
            if now[1] is not None and now[1] != before[1]:
                expected.append(EN("Your turn"))
                counted["turn"] += 1
            spoken = await page.evaluate("window.spoken.splice(0)")
            heard = [text for region, text in spoken if region != "summary"]
            assert heard == ([". ".join(expected)] if expected else []), (state, spoken)
            before = now
        assert counted["trick"] >= 3
        assert counted["turn"] >= 3


TARGETS = """() => [...document.querySelectorAll("#ask button:enabled, #summary button")]
  .map((node) => { const at = node.getBoundingClientRect();
    return { text: node.textContent, width: at.width, height: at.height }; })"""
"""Each button of the question and of the round's summary, and its size."""

RING_CLIPPED = """() => {
  const node = document.activeElement;
  if (!node.matches("#summary .close:focus-visible")) return null;
  const style = getComputedStyle(node);
  const reach = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
  const ring = node.getBoundingClientRect();
  const panel = node.parentElement;
  const box = panel.getBoundingClientRect();
  const top = box.top + panel.clientTop;
  const right = box.left + panel.clientLeft + panel.clientWidth;
  return ring.top - reach < top || ring.right + reach > right;
}"""
"""Whether the focus ring of the summary's close button (focused by Tab) is cut by its panel,
which clips what stands out of it (null: the focus is elsewhere)."""

SLIDES = """() => [...document.querySelectorAll("#hand .card")]
  .map((node) => getComputedStyle(node).transitionDuration)"""
"""How long each card of the hand slides up as it is pointed at or focused."""


async def test_on_a_phone_the_buttons_are_44_px_and_reduced_motion_stops_the_cards_sliding(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """At 360 px each bid button and the summary's close button is at least 44 by 44 px, the
    least touch target of the platforms' guidelines (a bid button was 40 px high, the close
    button 32 px). The hand's cards slide as they are pointed at, except for a player whose
    system asks for reduced motion."""
    driver = await table_where(redis_client, ann_to(Phase.BIDDING), "tg:-1004")
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, ANN.id)
        targets = await page.evaluate(TARGETS)
        assert len(targets) >= 3, targets
        assert [t for t in targets if t["width"] < 44 or t["height"] < 44] == [], targets
        await page.evaluate("document.activeElement?.blur()")
        await page.keyboard.press("Tab")
        assert await page.evaluate(RING_CLIPPED) is False
        assert set(await page.evaluate(SLIDES)) == {"0.1s"}
        await page.emulate_media(reduced_motion="reduce")
        assert set(await page.evaluate(SLIDES)) == {"0s"}


FOCUS = """() => { const node = document.activeElement;
  return [node.closest("[id]")?.id, node.textContent, node.matches(":focus-visible")]; }"""
"""Where the keyboard's focus is: the part of the page, the control's text, its ring shown."""


async def test_a_view_redrawn_keeps_the_keyboards_focus_on_its_control(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """Secret bids: Ann and Bob bid at once. Ann has Tabbed to her bid "1" when Bob's bid
    redraws her page: the focus is still on "1" (it fell to the page's top, and Tab started
    over from there), and Enter bids it."""

    def both_bid(state: GameState) -> bool:
        rnd = state.round
        if state.phase is not Phase.BIDDING or rnd is None or len(state.results) < 1:
            return False
        ids = [p.id for p in state.players]
        asked = [s for s in range(3) if player_view(state, s).table.seats[s].to_act]
        return {ids.index(ANN.id), ids.index(BOB.id)} <= set(asked)

    driver = await table_where(redis_client, both_bid, "tg:-1005", ("bids=secret",))
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, ANN.id)
        for _ in range(10):
            await page.keyboard.press("Tab")
            if await page.evaluate(FOCUS) == ["ask", "1", True]:
                break
        assert await page.evaluate(FOCUS) == ["ask", "1", True]
        bob = next(p for user, p in driver.choices() if user == BOB)
        await driver.press(BOB, bob)
        version, _, _ = await driver.svc.snapshot(driver.chat)
        await caught_up(page, version)
        assert await page.evaluate(FOCUS) == ["ask", "1", True]
        await page.keyboard.press("Enter")
        await caught_up(page, version + 1)
        stored = await table_of(redis_client, driver.chat)
        assert stored is not None
        assert stored.game.round is not None
        assert stored.game.round.bids[[p.id for p in stored.game.players].index(ANN.id)] == 1


async def test_a_second_enter_while_a_move_is_under_way_sends_nothing(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """While a move is under way the page takes no other (a pointer cannot press through it):
    Ann presses Enter on her card, and again before the answer comes (the answer is held
    until then). Only one move is sent (the second went out too, the same card again, and
    was refused), and the page says nothing of it."""
    driver = await table_where(redis_client, ann_to(Phase.PLAYING), "tg:-1006")
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, ANN.id)
        sent: list[str] = []
        first = asyncio.Event()
        release = asyncio.Event()

        async def hold(route: Route) -> None:
            sent.append(route.request.post_data or "")
            first.set()
            await release.wait()
            await route.continue_()

        await page.route("**/api/move", hold)
        version, _, _ = await driver.svc.snapshot(driver.chat)
        await page.locator("#hand button.card.legal").first.focus()
        await page.keyboard.press("Enter")
        await first.wait()
        await page.keyboard.press("Enter")
        release.set()
        await caught_up(page, version + 1)
        assert len(sent) == 1, sent
        assert await page.inner_text("#message") == ""


TAP = 44
"""The least touch target (px) each way, as the platforms' guidelines have it."""

HAND_TARGETS = """() => [...document.querySelectorAll("#hand .card")].map((card) => {
  // the part of the card no later card covers: its box less those of the cards drawn over it
  const box = card.getBoundingClientRect();
  let right = box.right;
  let bottom = box.bottom;
  for (let next = card.nextElementSibling; next; next = next.nextElementSibling) {
    const over = next.getBoundingClientRect();
    if (over.left >= box.right || over.right <= box.left || over.top >= box.bottom
        || over.bottom <= box.top) continue;
    // a card of a row below it is a row's height lower; one beside it, in its row, at most
    // the raise of a card that may be played higher or lower
    if (over.top > box.top + 24) bottom = Math.min(bottom, over.top);
    else right = Math.min(right, over.left);
  }
  const x = (box.left + right) / 2;
  const y = (box.top + bottom) / 2;
  const hit = document.elementFromPoint(x, y)?.closest("#hand .card");
  return { card: card.dataset.card, width: right - box.left, height: bottom - box.top,
    hit: hit === card, inside: box.left >= 0 && box.right <= innerWidth };
})"""
"""Each card of the hand: the width and height of the part of it in sight (no card after it
drawn over it), whether the card is what a tap at that part's centre reaches, and whether the
card is inside the screen's width."""

FRAME = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
"""Two frames: the page laid out again (its hand too) after the window changed its size."""


def holds(count: int) -> Any:
    """A `play_until` condition: the tournament's round of `count` cards, Ann to play its first
    card, her hand whole."""

    def done(state: GameState) -> bool:
        rnd = state.round
        if state.phase is not Phase.PLAYING or rnd is None:
            return False
        seat = [p.id for p in state.players].index(ANN.id)
        return len(rnd.hands[seat]) == count and player_view(state, seat).table.seats[seat].to_act

    return done


async def test_on_a_phone_every_card_of_the_largest_hands_is_a_44_px_target(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """The largest hands, 20 cards (three players) and 15 (four), at 320, 360 and 390 px and on
    a desktop: each card's part in sight (no later card drawn over it) is at least 44 by 44 px,
    a tap at its centre reaches that card, and the hand is no wider than the screen. The hand
    was one fanned row, each card a slice of about 14 px at 360 px for 20 cards."""
    sizes: list[tuple[int, int, int]] = []
    small: list[tuple[int, int, dict[str, Any]]] = []
    tables = (([ANN, BOB, CID], 20, "tg:-1007"), ([ANN, BOB, CID, DOT], 15, "tg:-1008"))
    for people, count, chat in tables:
        driver = Driver(service(redis_client, seed=5), people, chat=chat, seed=5, wings_rate=0)
        await driver.lobby(["rounds=tournament"])
        await driver.play_until(holds(count))
        async with pages(driver, browser) as (web, address):
            page = await open_page(browser, web, address, driver, ANN.id)
            for width in (360, 320, 390, 1100):
                await page.set_viewport_size({"width": width, "height": 740})
                await page.evaluate(FRAME)
                cards = await page.evaluate(HAND_TARGETS)
                sizes.append((count, width, len(cards)))
                small += [
                    (count, width, card)
                    for card in cards
                    if min(card["width"], card["height"]) < TAP
                    or not (card["hit"] and card["inside"])
                ]
    assert [size[2] for size in sizes] == [20] * 4 + [15] * 4, sizes
    assert small == [], small


def in_words(seat: dict[str, Any]) -> str:
    """A seat's numbers as a screen reader is to say them, in English, from its view."""

    def count(n: int, one: str, many: str) -> str:
        return (one if abs(n) == 1 else many).format(n=str(n).replace("-", "\u2212"))

    parts = [count(seat["total"], "{n} point", "{n} points")]
    if seat["projected"] is not None:
        parts.append(
            count(
                seat["projected"],
                "{n} point if the round ended now",
                "{n} points if the round ended now",
            )
        )
    if seat["bid"] is not None:
        tricks = "trick" if seat["bid"] == 1 else "tricks"
        parts.append(f"{seat['won']} of {seat['bid']} {tricks} won")
    elif seat["has_bid"]:
        parts.append(f"{seat['won']} {'trick' if seat['won'] == 1 else 'tricks'} won, bid hidden")
    else:
        parts.append("no bid yet")
    return ", ".join(parts)


def ann_bids_after_another(state: GameState) -> bool:
    """A `play_until` condition: Ann is to bid (round 2 on) and another seat has bid."""
    rnd = state.round
    if not ann_to(Phase.BIDDING)(state) or rnd is None:
        return False
    seat = [p.id for p in state.players].index(ANN.id)
    return any(bid is not None for other, bid in enumerate(rnd.bids) if other != seat)


async def test_a_screen_reader_says_a_seats_numbers_in_words(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """The seats' numbers ("-10 (20) 0/1", with the minus sign) were read out bare ("minus 10
    20 0 slash 1"): the accessibility tree now has them in words instead ("-10 points, 20 points
    if the round ended now, 0 of 1 trick won"; a bid not made yet, "no bid yet"; a hidden one,
    "bid hidden"), in the chat's language, and the bare numbers are drawn only."""
    for options, chat, shown in (
        ((), "tg:-1009", (" won", "no bid yet")),
        (("bids=hidden",), "tg:-1010", ("bid hidden", "no bid yet")),
    ):
        driver = await table_where(redis_client, ann_bids_after_another, chat, options)
        async with pages(driver, browser) as (web, address):
            page = await open_page(browser, web, address, driver, ANN.id)
            view = await page.evaluate("fetch(`api/view${location.search}`).then(r => r.json())")
            tree = await page.get_by_role("region", name=EN("Players")).aria_snapshot()
            for seat in view["seats"]:
                assert in_words(seat) in tree, (seat, tree)
                assert seat["standing"] not in tree, (seat, tree)
            assert all(words in tree for words in shown), tree
            await driver.ok(ANN, Kind.LANGUAGE, "de")
            version, _, _ = await driver.svc.snapshot(driver.chat)
            await caught_up(page, version)
            region = page.get_by_role("region", name=texts("de")("Players"))
            assert "Punkte" in await region.aria_snapshot()


def cell_in_words(total: int, won_now: int, won: int, bid: int) -> str:
    """A score sheet cell ("20 (+20) 1/1") as a screen reader is to say it, in English."""
    minus = lambda n: str(n).replace("-", "\u2212")  # noqa: E731
    sign = f"+{won_now}" if won_now > 0 else minus(won_now)
    return (
        f"{minus(total)} {'point' if abs(total) == 1 else 'points'}, "
        f"{sign} {'point' if abs(won_now) == 1 else 'points'} this round, "
        f"{won} of {bid} {'trick' if bid == 1 else 'tricks'} won"
    )


async def test_a_screen_reader_says_the_score_sheets_cells_in_words(
    browser: Browser, redis_client: aioredis.Redis
) -> None:
    """The score sheet's cells ("20 (+20) 1/1") were read out bare ("20 plus 20 1 slash 1"),
    their meaning in the tooltip only: the accessibility tree has each in words instead ("20
    points, +20 points this round, 1 of 1 trick won"), in the chat's language; the bare
    numbers are drawn only."""
    driver = await table_where(redis_client, ann_to(Phase.PLAYING), "tg:-1011")
    async with pages(driver, browser) as (web, address):
        page = await open_page(browser, web, address, driver, ANN.id)
        view = await page.evaluate("fetch(`api/view${location.search}`).then(r => r.json())")
        assert view["sheet"], "no round over yet"
        await page.locator("#sheet summary").click()
        tree = await page.locator("#sheet").aria_snapshot()
        for row in view["sheet"]:
            for seat, total in enumerate(row["totals"]):
                won_now, won, bid = row["points"][seat], row["won"][seat], row["bids"][seat]
                assert cell_in_words(total, won_now, won, bid) in tree, (row, tree)
                assert f"/{bid}" not in tree, tree
        await driver.ok(ANN, Kind.LANGUAGE, "de")
        version, _, _ = await driver.svc.snapshot(driver.chat)
        await caught_up(page, version)
        assert "in dieser Runde" in await page.locator("#sheet").aria_snapshot()
