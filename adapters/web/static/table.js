// The web table: one player's live view of a game, drawn from /api/view and kept current by
// /api/events. Every move is a button payload the view offers, sent back to /api/move; each
// clickable element carries it as data-payload (a browser test clicks by that).
import { backSvg, cardSvg } from "./cards.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const hash = new URLSearchParams(location.hash.slice(1));
let credential = null; // { header, query }
let view = null;
let skew = 0; // server time minus ours, in seconds
let stream = null;

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value === true ? "" : value);
  }
  if (text) node.textContent = text;
  return node;
}

function loadScript(src) {
  return new Promise((resolve) => {
    const script = element("script", { src });
    script.onload = () => resolve(true);
    script.onerror = () => resolve(false);
    document.head.append(script);
  });
}

/** Who we are: a signed link (?link=…), or a Telegram Mini App's initData. */
async function authenticate() {
  const link = params.get("link") || hash.get("link");
  if (link) return { header: `Bearer ${link}`, query: `link=${encodeURIComponent(link)}` };
  if (!hash.has("tgWebAppData")) return null;
  document.body.classList.add("telegram");
  let initData = hash.get("tgWebAppData");
  if (await loadScript("https://telegram.org/js/telegram-web-app.js") && window.Telegram?.WebApp) {
    const app = window.Telegram.WebApp;
    app.ready();
    app.expand();
    initData = app.initData || initData;
  }
  const chat = params.get("chat");
  const query = `tma=${encodeURIComponent(initData)}${chat ? `&chat=${encodeURIComponent(chat)}` : ""}`;
  return { header: `tma ${initData}`, query };
}

async function api(path, options = {}) {
  const headers = { Authorization: credential.header, ...(options.body ? { "Content-Type": "application/json" } : {}) };
  const answer = await fetch(path, { ...options, headers });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new Error(data.error || `HTTP ${answer.status}`);
  return data;
}

function say(text) {
  $("message").textContent = text || "";
}

async function move(payload) {
  document.body.classList.add("busy");
  try {
    const answer = await api("api/move", { method: "POST", body: JSON.stringify({ payload }) });
    say(answer.ok ? "" : answer.answer);
    show(answer.view);
  } catch (error) {
    say(error.message);
  } finally {
    document.body.classList.remove("busy");
  }
}

function button(label, payload, classes = "") {
  const node = element("button", { type: "button", class: classes, "data-payload": payload }, label);
  node.addEventListener("click", () => move(payload));
  return node;
}

function cardNode(card, face, { payload = null, tag = "div", classes = "" } = {}) {
  const node = element(tag, { class: `card ${classes}`.trim(), "data-card": card, "data-payload": payload });
  if (tag === "button") {
    node.type = "button";
    node.disabled = !payload;
    if (payload) node.addEventListener("click", () => move(payload));
  }
  node.innerHTML = card ? cardSvg(card, face) : backSvg();
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
    node.append(element("span", { class: "name" }, seat.name + (seat.dealer ? " · D" : "")));
    node.append(element("span", { class: "standing", title: "total (projected) won/bid" }, seat.standing));
    const other = v.others.find((o) => o.seat === seat.seat);
    if (other) node.append(cardNode(other.card, other.face, { classes: "small" }));
    seats.append(node);
  }
}

function drawMiddle(v) {
  const trump = $("trump");
  trump.replaceChildren();
  if (v.trump.card) trump.append(cardNode(v.trump.card.card, v.trump.card.face, { classes: "small" }));
  trump.append(element("figcaption", {}, `Trump: ${v.trump.label}`));
  const trick = $("trick");
  trick.replaceChildren();
  for (const play of v.trick.plays) {
    const winning = play.seat === v.trick.winning;
    const spot = element("div", { class: `play${winning ? " winning" : ""}`, "data-seat": play.seat });
    spot.append(cardNode(play.card, play.face));
    spot.append(element("span", {}, `${v.seats[play.seat].name}${winning ? " ★" : ""}`));
    trick.append(spot);
  }
  const last = $("last").querySelector(".plays");
  last.replaceChildren();
  if (v.last_trick) {
    for (const play of v.last_trick.plays) {
      const spot = element("div", { class: `play${play.seat === v.last_trick.winner ? " winning" : ""}` });
      spot.append(cardNode(play.card, play.face, { classes: "small" }));
      spot.append(element("span", {}, v.seats[play.seat].name + (play.seat === v.last_trick.winner ? " ★" : "")));
      last.append(spot);
    }
  }
}

function drawAsk(v) {
  const ask = $("ask");
  ask.replaceChildren();
  if (v.trump_choice.length) {
    ask.append(element("p", {}, "Choose the trump suit:"));
    for (const choice of v.trump_choice) ask.append(button(choice.label, choice.payload, "trump"));
  }
  if (v.bids.length) {
    ask.append(element("p", {}, "Your bid:"));
    const bids = new Map(v.bids.map((b) => [b.bid, b.payload]));
    const high = Math.max(v.cards, ...v.bids.map((b) => b.bid));
    for (let bid = 0; bid <= high; bid++) {
      if (bids.has(bid)) ask.append(button(String(bid), bids.get(bid), "bid"));
      else if (bid === v.forbidden_bid) {
        ask.append(element("button", { type: "button", class: "bid forbidden", disabled: true, "data-bid": bid, title: "notequal: not this bid" }, String(bid)));
      }
    }
  }
  if (v.unseen) ask.append(button("Play your unseen card", v.unseen, "unseen"));
  if (v.clear_mark) ask.append(button("Clear the wings mark", v.clear_mark, "wings"));
  if (v.resume) ask.append(button("Resume", v.resume, "resume"));
  if (v.phase === "finished") {
    const places = v.seats.map((s) => `${v.places[s.seat]}. ${s.name} ${s.total}`).sort();
    ask.append(element("p", { class: "summary" }, `The game is over: ${places.join(" · ")}`));
    if (v.again) ask.append(button(v.again.label, v.again.payload, "again"));
  } else if (v.phase === "lobby") {
    ask.append(element("p", {}, "Waiting for the game to start."));
  }
}

function drawHand(v) {
  const hand = $("hand");
  hand.replaceChildren();
  const playing = v.hand.some((c) => c.legal);
  for (const card of v.hand) {
    const payload = card.legal ? card.payload : playing ? null : card.mark;
    const classes = [card.legal && "legal", !playing && card.mark && "markable",
      v.mark && v.mark.card === card.card && "marked"].filter(Boolean).join(" ");
    hand.append(cardNode(card.card, card.face, { payload, tag: "button", classes }));
  }
  if (!v.hand.length && v.hand_size) {
    for (let i = 0; i < v.hand_size; i++) hand.append(cardNode(null, "", { classes: "back" }));
  }
  hand.style.setProperty("--cards", String(Math.max(1, hand.children.length)));
  hand.classList.toggle("playing", playing);
}

function drawSheet(v) {
  const pad = $("sheet").querySelector(".pad");
  const table = element("table");
  const head = element("tr");
  head.append(element("th", {}, "#"));
  for (const seat of v.seats) head.append(element("th", {}, seat.name));
  table.append(head);
  for (const row of v.sheet) {
    const line = element("tr");
    line.append(element("td", {}, String(row.round)));
    row.totals.forEach((total, seat) => {
      line.append(element("td", { title: `bid ${row.bids[seat]}, won ${row.won[seat]}` },
        `${total} (${row.points[seat] >= 0 ? "+" : ""}${row.points[seat]}) ${row.won[seat]}/${row.bids[seat]}`));
    });
    table.append(line);
  }
  pad.replaceChildren(table);
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

function show(v) {
  if (view && v.version < view.version) return; // an older answer than the one shown
  view = v;
  skew = v.now - Date.now() / 1000;
  document.documentElement.lang = v.language;
  const main = $("table");
  main.dataset.phase = v.phase;
  main.dataset.version = String(v.version);
  $("round").textContent = v.round ? `Round ${v.round} of ${v.rounds}` : "";
  drawSeats(v);
  drawMiddle(v);
  drawAsk(v);
  drawHand(v);
  drawSheet(v);
  tick();
}

function listen() {
  if (stream) stream.close();
  stream = new EventSource(`api/events?${credential.query}`);
  stream.addEventListener("view", (event) => show(JSON.parse(event.data)));
  stream.addEventListener("gone", (event) => {
    say(JSON.parse(event.data).error);
    stream.close();
  });
  // The browser reconnects by itself; the first event after it is the view as it is now.
  stream.addEventListener("error", () => say("Reconnecting…"));
  stream.addEventListener("open", () => say(""));
}

async function start() {
  credential = await authenticate();
  if (!credential) {
    say("Open the table from the game's chat: this page needs its link.");
    return;
  }
  try {
    show(await api("api/view"));
  } catch (error) {
    say(`The table cannot be shown: ${error.message}. Open it again from the game's chat.`);
    return;
  }
  listen();
  setInterval(tick, 1000);
}

start();
