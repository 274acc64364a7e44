// The web table: one player's live view of a game, drawn from /api/view and kept current by
// /api/events. Every move is a button payload the view offers, sent back to /api/move; each
// clickable element carries it as data-payload (a browser test clicks by that).
import { backSvg, cardSvg } from "./cards.js";
import { keepReadable } from "./colours.js";

const ROBOT = "🤖"; // an AI seat's mark before its name (bot/show/seating.py)
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const hash = new URLSearchParams(location.hash.slice(1));
let credential = null; // { header, query }
let view = null;
let skew = 0; // server time minus ours, in seconds
let stream = null;
const RELISTEN_MS = 3000; // a stream refused: the page asks again after this long
let words = JSON.parse($("words")?.textContent || "{}"); // the browser's language until a view
let language = null; // the language of the words on the page
// The round summaries folded away ("game:round"), remembered while the tab lives.
const dismissed = new Set(JSON.parse(sessionStorage.getItem("dismissed") || "[]"));

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value === true ? "" : value);
  }
  if (text) node.textContent = text;
  return node;
}

/** Points as the chat shows them (bot/show/formatters.py): below zero with the minus sign −. */
const points = (value) => (value < 0 ? `\u2212${-value}` : String(value));
/** Points won or lost in a round: +30, 0, −10. */
const pointsWon = (value) => (value > 0 ? `+${value}` : points(value));

/** The page's word `key` (in the chat's language, from the server), filled with `values`. */
function w(key, values = {}) {
  return (words[key] ?? key).replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** The page's fixed words (its title, folds, labels) in the language of `words`. */
function applyWords() {
  for (const node of document.querySelectorAll("[data-word]")) node.textContent = w(node.dataset.word);
  for (const node of document.querySelectorAll("[data-label]")) node.setAttribute("aria-label", w(node.dataset.label));
}

function loadScript(src) {
  return new Promise((resolve) => {
    const script = element("script", { src });
    script.onload = () => resolve(true);
    script.onerror = () => resolve(false);
    document.head.append(script);
  });
}

function linkCredential(link) {
  return { header: `Bearer ${link}`, query: `link=${encodeURIComponent(link)}` };
}

let telegram = null; // a Mini App's own credential, its initData (null: the page is no Mini App)

/** Who we are: a signed link (?link=… or #link=…), or a Telegram Mini App's initData, which the
 * first view answers with a link of the game (initData is good for an hour from the app's
 * opening, and a game may last longer); a Mini App reloaded has both in its address. */
async function authenticate() {
  if (hash.has("tgWebAppData")) telegram = await miniApp();
  const link = params.get("link") || hash.get("link");
  return link ? linkCredential(link) : telegram;
}

/** The Mini App's credential, its initData, once Telegram's script has set its theme. */
async function miniApp() {
  document.body.classList.add("telegram");
  let initData = hash.get("tgWebAppData");
  if (await loadScript("https://telegram.org/js/telegram-web-app.js") && window.Telegram?.WebApp) {
    const app = window.Telegram.WebApp;
    app.ready();
    app.expand();
    // the theme's colours, each readable where the page draws it, as they are and as they change
    keepReadable();
    app.onEvent?.("themeChanged", keepReadable);
    initData = app.initData || initData;
  }
  const chat = params.get("chat");
  const query = `tma=${encodeURIComponent(initData)}${chat ? `&chat=${encodeURIComponent(chat)}` : ""}`;
  return { header: `tma ${initData}`, query };
}

/** The page's credential from now on: `link`, in its address too (for a reload), beside what
 * else the address holds (a Mini App's initData). */
function useLink(link) {
  credential = linkCredential(link);
  params.delete("link");
  hash.set("link", link);
  const search = params.toString();
  history.replaceState(null, "", `${location.pathname}${search ? `?${search}` : ""}#${hash}`);
}

/** The view as it is now. In a Mini App whose link is no good any more (its game is over, and
 * another began), asked again with its initData; a view asked with that comes with a link of
 * the game, the page's credential from then on. */
async function askView() {
  let v;
  try {
    v = await api("api/view");
  } catch (error) {
    if (!error.final || !telegram || credential === telegram) throw error;
    credential = telegram;
    v = await api("api/view");
  }
  if (v.link) useLink(v.link);
  return v;
}

async function api(path, options = {}) {
  const headers = { ...(credential ? { Authorization: credential.header } : {}), ...(options.body ? { "Content-Type": "application/json" } : {}) };
  let answer;
  try {
    answer = await fetch(path, { ...options, headers });
  } catch {
    throw new Error(w("unreachable"));
  }
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) {
    const error = new Error(data.message || data.error || w("unreachable"));
    error.final = answer.status === 401 || answer.status === 403; // the link is no good here
    throw error;
  }
  return data;
}

let saidAt = null; // the version the page's words were said at: a newer view takes them away

/** Say `text` on the page (a move refused, the stream reconnecting) until the table moves on.
 * The same words said again (each try while the worker or Redis is away) are left as they
 * are: the line is a live region, and a screen reader reads out each change. */
function say(text) {
  const line = $("message");
  if (line.textContent !== (text || "")) line.textContent = text || "";
  saidAt = text && view ? view.version : null;
}

let hintFor = null; // the hint payload whose answer the hint panel shows

/** The coach's hint (its private message), shown until the decision it is for is made. */
function showHint(text, payload) {
  hintFor = payload;
  $("hint").textContent = text;
  $("hint").hidden = false;
}

function hideHint() {
  hintFor = null;
  $("hint").textContent = "";
  $("hint").hidden = true;
}

// A move handed to the worker of the chat's front end ("relayed"): its view comes by the
// event stream, and the page stays busy until a newer version does. Should none come within
// ASK_MS, the page asks what became of it, again while the answer is that the worker has not
// answered yet (each ask waits a few seconds for it; the server says so for a minute at most):
// a refusal is said; a move made is waited for a few seconds more (WAIT_MS). An ask that fails
// (the connection lost) is waited for as well: if no newer view came by then, the page says it
// cannot tell whether the move was made.
let relayed = null;
const ASK_MS = 500;
const WAIT_MS = 5000;

function settled() {
  if (relayed) clearTimeout(relayed.timer);
  if (relayed) clearTimeout(relayed.asking);
  relayed = null;
  document.body.classList.remove("busy");
}

/** Ask what became of the move handed over, `waiting` for it (the 202's `entry` and `update`):
 * its refusal by the chat's worker, in the chat's words, is said on the page. */
async function askRelayed(waiting, entry, update) {
  let said;
  do {
    try {
      said = await api(`api/relayed?entry=${encodeURIComponent(entry)}&update=${encodeURIComponent(update)}`);
    } catch {
      said = { ok: true, unknown: true }; // the event stream shows the move made, or it is said
    }
    if (relayed !== waiting) return;
  } while (said.pending);
  if (said.unknown) {
    waiting.timer = setTimeout(() => {
      settled();
      say(w("unsure"));
    }, WAIT_MS);
    return;
  }
  if (said.ok) {
    waiting.timer = setTimeout(settled, WAIT_MS);
    return;
  }
  say(said.answer);
  settled();
}

async function move(payload) {
  // one move at a time: the stylesheet stops a pointer while one is under way, this a key
  if (document.body.classList.contains("busy")) return;
  const hint = payload === view?.hint;
  document.body.classList.add("busy");
  let handed = false;
  try {
    const answer = await api("api/move", { method: "POST", body: JSON.stringify({ payload }) });
    if (answer.relayed) {
      handed = true;
      const waiting = { version: answer.view.version };
      waiting.asking = setTimeout(() => askRelayed(waiting, answer.entry, answer.update), ASK_MS);
      relayed = waiting;
    }
    if (answer.link) follow(answer.link);
    if (answer.view) show(answer.view);
    say(answer.ok ? "" : answer.answer); // of the view it came with
    // its event stream may have brought the move before this answer (as it was before it)
    if (relayed && view && view.version > relayed.version) settled();
    if (hint && answer.private?.length) showHint(answer.private.join("\n\n"), payload);
  } catch (error) {
    say(error.message);
  } finally {
    if (!handed) settled();
  }
}

function button(label, payload, classes = "") {
  const node = element("button", { type: "button", class: classes, "data-payload": payload }, label);
  node.addEventListener("click", () => move(payload));
  return node;
}

function cardNode(card, about, { payload = null, tag = "div", classes = "" } = {}) {
  const node = element(tag, { class: `card ${classes}`.trim(), "data-card": card, "data-payload": payload });
  if (tag === "button") {
    node.type = "button";
    node.disabled = !payload;
    if (payload) node.addEventListener("click", () => move(payload));
  }
  node.innerHTML = card ? cardSvg(card, about, view?.theme) : backSvg(w("hidden_card"));
  return node;
}

/** A seat's name in two: the name, which may be cut short, and what tells it from a namesake's
 * at its end (" (2)", the view's `namesake`), which never is; a name of someone called "Ann (2)"
 * themselves has no `namesake` and stays whole. The two read together as the name does, to its
 * plain space (the stylesheet keeps it), so the name on the screen and its tooltip are the same
 * "Ann (2)". */
function nameParts(seat) {
  const tail = seat.namesake ?? "";
  if (!tail || !seat.name.endsWith(tail)) return [seat.name, ""];
  return [seat.name.slice(0, -tail.length), tail];
}

/** A name as written, in its own direction: one in Arabic or Hebrew is laid out from right to
 * left inside its box, so where it is cut short it loses its end, as any other, its beginning
 * in sight (the page's own direction showed its last words), and a mark beside it keeps its
 * place. */
function nameNode(name, attributes = {}) {
  return element("span", { class: "name", dir: "auto", ...attributes }, name);
}

/** The namesake's number beside a name, never cut (nothing for a name nobody else has). */
function namesake(tail, classes = "namesake") {
  return tail ? [element("span", { class: classes }, tail)] : [];
}

/** A seat's name line: the name, cut short with an ellipsis where the seat has no room for it
 * (whole in its text and tooltip), and its marks, never cut: the AI's 🤖, a namesake's number,
 * the dealer's word (the turn's ▶ and the away 💤 are the stylesheet's). The 🤖 and its space
 * are the name's own first characters, so the name line reads as its tooltip does. */
function seatName(seat) {
  const node = element("span", { class: "who" });
  let [name, tail] = nameParts(seat);
  const robot = `${ROBOT} `;
  if (seat.robot && name.startsWith(robot)) {
    node.append(element("span", { class: "mark robot" }, robot));
    name = name.slice(robot.length);
  }
  const text = nameNode("", { title: seat.name, "data-name": name });
  text.append(element("span", {}, name));
  node.append(text, ...namesake(tail, "mark namesake"));
  if (seat.dealer) node.append(element("span", { class: "mark" }, `\u00a0(${w("dealer")})`));
  return node;
}

function drawSeats(v) {
  const seats = $("seats");
  seats.replaceChildren();
  const count = v.seats.length;
  for (let i = 0; i < count; i++) {
    const seat = v.seats[(v.you + 1 + i) % count]; // from the left of you round to you
    const node = element("div", {
      class: ["seat", seat.seat === v.you && "you", seat.to_act && "to-act", seat.dealer && "dealer",
        seat.away && "away", v.trick.winning === seat.seat && "winning"].filter(Boolean).join(" "),
      "data-seat": seat.seat,
    });
    node.append(seatName(seat));
    // the numbers ("20 (40) 1/2") are drawn; a screen reader says them in words instead
    node.append(element("span", { class: "standing", title: w("standing"), "aria-hidden": "true" }, seat.standing),
      element("span", { class: "said" }, seat.said));
    const other = v.others.find((o) => o.seat === seat.seat);
    if (other) node.append(cardNode(other.card, other, { classes: "small" }));
    seats.append(node);
  }
}

/** Who played a card, under it: the name (cut short with an ellipsis where it is wider than the
 * card, whole in its text and tooltip), a namesake's number and, for the card taking the trick,
 * a star. */
function who(seat, winning) {
  const node = element("span", { class: "who" });
  const [name, tail] = nameParts(seat);
  node.append(nameNode(name, { title: seat.name }), ...namesake(tail));
  if (winning) node.append(element("span", { class: "star" }, "\u00a0★"));
  return node;
}

function drawMiddle(v) {
  const trump = $("trump");
  trump.replaceChildren();
  if (v.trump.card) trump.append(cardNode(v.trump.card.card, v.trump.card, { classes: "small" }));
  if (v.trump.line) trump.append(element("figcaption", {}, v.trump.line));
  const trick = $("trick");
  trick.replaceChildren();
  for (const play of v.trick.plays) {
    const winning = play.seat === v.trick.winning;
    const spot = element("div", { class: `play${winning ? " winning" : ""}`, "data-seat": play.seat });
    spot.append(cardNode(play.card, play), who(v.seats[play.seat], winning));
    trick.append(spot);
  }
  const last = $("last").querySelector(".plays");
  last.replaceChildren();
  if (v.last_trick) {
    for (const play of v.last_trick.plays) {
      const spot = element("div", { class: `play${play.seat === v.last_trick.winner ? " winning" : ""}` });
      spot.append(cardNode(play.card, play, { classes: "small" }), who(v.seats[play.seat], play.seat === v.last_trick.winner));
      last.append(spot);
    }
  }
}

function drawAsk(v) {
  const ask = $("ask");
  ask.replaceChildren();
  if (v.trump_choice.length) {
    ask.append(element("p", {}, w("choose_trump")));
    for (const choice of v.trump_choice) ask.append(button(choice.label, choice.payload, "trump"));
  }
  if (v.bids.length) {
    // the bid buttons ("0", "1", …) are a group named by the question, for screen readers
    ask.append(element("p", { id: "bid-question" }, w("your_bid")));
    const group = element("div", { class: "bids", role: "group", "aria-labelledby": "bid-question" });
    const bids = new Map(v.bids.map((b) => [b.bid, b.payload]));
    const high = Math.max(v.cards, ...v.bids.map((b) => b.bid));
    for (let bid = 0; bid <= high; bid++) {
      if (bids.has(bid)) group.append(button(String(bid), bids.get(bid), "bid"));
      else if (bid === v.forbidden_bid) {
        group.append(element("button", { type: "button", class: "bid forbidden", disabled: true, "data-bid": bid, title: w("forbidden_bid") }, String(bid)));
      }
    }
    ask.append(group);
  }
  // What the hand message says of the question beside it (a bid to change and why, the bid
  // notequal forbids, bidding last, a wings mark, the AI playing for you), as it says it.
  for (const note of v.notes) ask.append(element("p", { class: "note" }, note));
  // These buttons say what the chat's hand message says on them (the view's moves).
  const label = (payload) => v.moves.find((m) => m.payload === payload)?.label ?? "";
  if (v.unseen) ask.append(button(label(v.unseen), v.unseen, "unseen"));
  if (v.clear_mark) ask.append(button(label(v.clear_mark), v.clear_mark, "wings"));
  if (v.resume) ask.append(button(label(v.resume), v.resume, "resume"));
  if (v.hint) ask.append(button(label(v.hint), v.hint, "hint"));
  if (v.again) ask.append(button(v.again.label, v.again.payload, "again"));
}

/** A summary's table: `heads`, then `rows` of cells (the second a seat); the row of the seat
 * `you` marked as yours, and each column's cells of the class `classes` names for it. */
function table(heads, rows, { you = null, classes = [] } = {}) {
  const node = element("table");
  const head = element("tr");
  heads.forEach((text, index) => head.append(element("th", { class: classes[index] }, text)));
  node.append(head);
  for (const cells of rows) {
    const line = element("tr", { class: cells[1].seat === you && "you" });
    // the name (the second cell, a seat) whole in its tooltip, where it may be cut short
    cells.forEach((cell, index) => {
      if (index !== 1) line.append(element("td", { class: classes[index] }, String(cell)));
      else {
        const [name, tail] = nameParts(cell);
        const td = element("td", { title: cell.name });
        const text = element("span", { class: "who" });
        text.append(nameNode(name), ...namesake(tail));
        td.append(text);
        line.append(td);
      }
    });
    node.append(line);
  }
  return node;
}

/** The last round's result until the next round's play starts (or it is folded away), the
 * final standings once the game is over, the lobby while it gathers: as the chat says them. */
let summaryShown = null; // what the panel shows now: redrawn (and read out) only when it changes

function drawSummary(v) {
  const summary = $("summary");
  const round = v.round_end && !dismissed.has(`${v.game}:${v.round_end.round}`) ? v.round_end : null;
  const shown = JSON.stringify([v.language, v.final, round, !v.final && !round && v.lobby]);
  if (shown === summaryShown) return;
  summaryShown = shown;
  summary.replaceChildren();
  let kind = "";
  if (v.final) {
    kind = "final";
    summary.append(element("h2", {}, v.final.title), element("h3", {}, w("standings")));
    // each seat's rating after the game and its change, once the chat's stats folded it, as
    // the chat's end says them (an AI level's once, at its best seat: "" at its others), yours
    // marked as your turn is: a column of its own on a desktop, a line under the name on a
    // phone (where the name keeps the room it has)
    const rated = v.final.rows.every((r) => r.rating !== null);
    const heads = ["", "", w("total"), w("bids_met"), ...(rated ? [w("rating")] : [])];
    const standings = table(heads, v.final.rows.map((r) => [
      r.medal, v.seats[r.seat], points(r.total), `${r.bids_met}/${v.final.rounds}`, ...(rated ? [r.rating] : [])]),
    { you: v.you, classes: ["", "", "", "", "rating"] });
    if (rated) {
      standings.classList.add("rated");
      v.final.rows.forEach((r, index) => r.rating && standings.rows[index + 1].cells[1].append(
        element("span", { class: "rating under" }, r.rating)));
    }
    summary.append(standings);
    summary.append(element("p", { class: "winners" }, v.final.winners));
    if (rated && v.final.provisional) summary.append(element("p", { class: "provisional" }, v.final.provisional));
  } else if (round) {
    kind = "round";
    const key = `${v.game}:${v.round_end.round}`;
    const close = element("button", { type: "button", class: "close", "aria-label": w("close"), title: w("close") }, "×");
    close.addEventListener("click", () => {
      dismissed.add(key);
      sessionStorage.setItem("dismissed", JSON.stringify([...dismissed].slice(-20)));
      drawSummary(view);
    });
    summary.append(close, element("h2", {}, v.round_end.title));
    summary.append(table(["", "", w("bid"), w("tricks"), w("points"), w("total")], v.round_end.rows.map((r) => [
      r.made ? "✅" : "❌", v.seats[r.seat], r.bid, r.won, pointsWon(r.points), points(r.total)])));
  } else if (v.lobby) {
    kind = "lobby";
    summary.append(element("h2", {}, v.lobby.title));
    const list = element("ol");
    // each name on its line, cut short where it is too long (whole in its tooltip), a
    // namesake's number and the host's crown beside it
    for (const player of v.lobby.players) {
      const [name, tail] = nameParts(player);
      const line = element("span", { class: "who" });
      line.append(nameNode(name), ...namesake(tail));
      if (player.host) line.append(element("span", { class: "mark" }, " 👑"));
      const item = element("li", { title: player.name });
      item.append(line);
      list.append(item);
    }
    summary.append(list, element("p", {}, v.lobby.options));
  }
  summary.hidden = !kind;
  summary.dataset.kind = kind;
}

function drawHand(v) {
  const hand = $("hand");
  hand.replaceChildren();
  const playing = v.hand.some((c) => c.legal);
  for (const card of v.hand) {
    const payload = card.legal ? card.payload : playing ? null : card.mark;
    const classes = [card.legal && "legal", !playing && card.mark && "markable",
      v.mark && v.mark.card === card.card && "marked"].filter(Boolean).join(" ");
    hand.append(cardNode(card.card, card, { payload, tag: "button", classes }));
  }
  if (!v.hand.length && v.hand_size) {
    for (let i = 0; i < v.hand_size; i++) hand.append(cardNode(null, {}, { classes: "back" }));
  }
  hand.classList.toggle("playing", playing);
  fanHand();
}

const TAP = 44; // the least touch target (px) each way: the part of a card in sight is as wide

/** The hand laid out for its width: one fanned row while each card keeps TAP px of itself in
 * sight, else as few rows as keep it so, the cards spread evenly over them (20 cards at
 * 360 px: 7, 7 and 6), each row in front of the one above it, whose cards' tops (rank and
 * suit) stay in sight. Laid out again as the window changes its size (a phone turned). */
function fanHand() {
  const hand = $("hand");
  const count = hand.children.length;
  const room = hand.clientWidth;
  if (!count || !room) return;
  const card = hand.children[0].getBoundingClientRect().width;
  const fits = Math.max(1, Math.floor((room - card) / TAP) + 1); // cards a row holds
  const rows = Math.ceil(count / fits);
  const perRow = Math.ceil(count / rows);
  // each card's step from the one before it: its own width and a gap while they fit so,
  // else what shares the row out, never less than TAP
  const gap = 4;
  const step = perRow > 1 ? Math.min(card + gap, (room - card) / (perRow - 1)) : card;
  const column = Math.floor(Math.min(step, card) * 100) / 100; // a gap keeps cards apart
  hand.style.setProperty("--per-row", String(perRow));
  hand.style.setProperty("--column", `${column}px`);
  hand.style.setProperty("--gap", `${Math.max(0, step - card)}px`);
  hand.style.setProperty("--overhang", `${card - column}px`);
  hand.classList.toggle("rows", rows > 1);
}

addEventListener("resize", fanHand);

function drawSheet(v) {
  const pad = $("sheet").querySelector(".pad");
  const table = element("table");
  const head = element("tr");
  head.append(element("th", {}, w("sheet_round")));
  // each seat's name, cut short to its column's numbers (whole in its tooltip), a namesake's
  // number beside it
  for (const seat of v.seats) {
    const [name, tail] = nameParts(seat);
    const line = element("span", { class: "who" });
    line.append(nameNode(name), ...namesake(tail));
    const cell = element("th", { title: seat.name });
    cell.append(line);
    head.append(cell);
  }
  table.append(head);
  for (const row of v.sheet) {
    const line = element("tr");
    line.append(element("td", {}, String(row.round)));
    row.totals.forEach((total, seat) => {
      // the numbers are drawn; a screen reader says them in words instead, as a seat's
      const cell = element("td", { title: w("cell", { bid: row.bids[seat], won: row.won[seat] }) });
      cell.append(element("span", { "aria-hidden": "true" },
        `${points(total)} (${pointsWon(row.points[seat])}) ${row.won[seat]}/${row.bids[seat]}`),
      element("span", { class: "said" }, row.said[seat]));
      line.append(cell);
    });
    table.append(line);
  }
  pad.replaceChildren(table);
}

/** What a screen reader was told of last: the trick taken last and the decision at hand. */
let told = null;

/** Tell a screen reader (`#announce`, a live region) who took a trick, as it is taken, and
 * "Your turn" when its player has a new decision to make (each phase, round, card of the trick
 * and trick taken); nothing on a view that changes neither, nor on the first. The rest of the
 * page is redrawn with each view and is no live region: it would be read out each time. */
function announce(v) {
  const last = v.last_trick;
  const trick = last ? JSON.stringify([last.plays.map((p) => [p.seat, p.card]), last.winner]) : null;
  const turn = v.seats[v.you].to_act ? JSON.stringify([v.phase, v.round, v.trick.plays.length, trick]) : null;
  const said = [];
  if (told && trick && trick !== told.trick) said.push(w("trick_won", { name: v.seats[last.winner].name }));
  if (told && turn && turn !== told.turn) said.push(w("your_turn"));
  told = { trick, turn };
  if (said.length) $("announce").textContent = said.join(". ");
}

function tick() {
  const timer = $("timer");
  if (!view || !view.deadline) {
    timer.textContent = "";
    return;
  }
  const left = Math.max(0, Math.round(view.deadline - (Date.now() / 1000 + skew)));
  timer.textContent = `⏱ ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

/** The control that has the keyboard's focus in a part the page redraws with each view (the
 * question's buttons, the hand, the summary), as it can be found again: its card or words. */
function focusMark() {
  const node = document.activeElement;
  const part = node?.closest("#ask, #hand, #summary");
  return part && node !== part ? { node, part: part.id, card: node.dataset.card, text: node.textContent } : null;
}

/** Once the page is redrawn, the focus back on the control of `mark` (the same card, or the
 * same words), where it is still offered: a view brought by another player's move no longer
 * sends a keyboard's player back to the top of the page. */
function refocus(mark) {
  if (!mark || mark.node.isConnected) return;
  const same = [...$(mark.part).querySelectorAll("button:enabled")]
    .find((c) => (mark.card ? c.dataset.card === mark.card : c.textContent === mark.text));
  same?.focus({ preventScroll: true });
}

function show(v) {
  // an older answer than the one shown; a chat whose game Redis lost counts its versions from
  // 0 again, so another game's view is shown whatever its version
  if (view && v.game === view.game && v.version < view.version) return;
  const focused = focusMark();
  view = v;
  if (saidAt !== null && v.version > saidAt) say(""); // said of a table that has moved on
  skew = v.now - Date.now() / 1000;
  if (v.language !== language) {
    words = v.words;
    language = v.language;
    document.documentElement.lang = v.language;
    applyWords();
  }
  const main = $("table");
  main.dataset.phase = v.phase;
  main.dataset.version = String(v.version);
  main.dataset.theme = v.theme;
  $("round").textContent = v.round ? w("round", { round: v.round, rounds: v.rounds }) : "";
  const me = v.seats[v.you];
  $("turn").textContent = me.to_act ? w("your_turn") : v.status;
  $("turn").classList.toggle("yours", me.to_act);
  if (relayed && v.version > relayed.version) settled();
  if (hintFor !== null && v.hint !== hintFor) hideHint(); // its decision was made
  drawSummary(v);
  drawSeats(v);
  drawMiddle(v);
  drawAsk(v);
  drawHand(v);
  drawSheet(v);
  refocus(focused);
  announce(v);
  tick();
}

function listen() {
  if (stream) stream.close();
  stream = new EventSource(`api/events?${credential.query}`);
  stream.addEventListener("view", (event) => show(JSON.parse(event.data)));
  stream.addEventListener("gone", (event) => {
    const data = JSON.parse(event.data);
    if (data.link) return follow(data.link);
    stream.close();
    // a Mini App shows the chat's game of the moment: asked again with its initData
    if (telegram && credential !== telegram) return relisten();
    say(data.message || data.error);
  });
  // The browser reconnects by itself; the first event after it is the view as it is now.
  // An answer other than 200 (a proxy's 502 while the worker restarts, 429, 503) ends an
  // EventSource for good: the page then asks for the view, and listens again once it has it.
  stream.addEventListener("error", () => {
    say(w("reconnecting"));
    if (stream.readyState === EventSource.CLOSED) setTimeout(relisten, RELISTEN_MS);
  });
  stream.addEventListener("open", () => say(""));
}

/** Show the view and listen for the next ones; until the view is answered (the worker or
 * Redis is away, too many requests), say why and ask again every RELISTEN_MS; a 401 or 403
 * (no credential, the link expired, the table is not theirs any more) is said for good. */
async function relisten() {
  try {
    show(await askView());
  } catch (error) {
    say(error.message);
    if (!error.final) setTimeout(relisten, RELISTEN_MS);
    return;
  }
  listen();
}

/** Go on at the table Play again opened, with its fresh link (in the address too, for a
 * reload). */
function follow(link) {
  useLink(link);
  listen();
}

async function start() {
  applyWords();
  credential = await authenticate();
  setInterval(tick, 1000);
  // Without a credential too: the server answers why, in the browser's language. A page
  // opened while Redis is away says so, and shows the table by itself once it is back.
  relisten();
}

start();
