// Cards drawn as SVG in the chat's deck theme (bot/show/themes.py), readable without colour:
// every suit has a symbol of its own shape, as the chat's faces do (colours: ◆ blue, ■ green,
// ▲ red, ★ yellow; races: a person, a leaf, an axe, a stone head; French: ♠ ♣ ♥ ♦). The rank
// is printed as the theme prints it (1-13; 2-10 J Q K A in the French deck), and Wizards and
// Jesters carry their symbol and their name in the chat's language.

const COLOURS = { B: "#1f5fbf", G: "#1d7f3a", R: "#c0262d", Y: "#966d00" }; // each 4.5:1 or more on the white face
const WIZARD = "#5b2a86";
const JESTER = "#555";

// Each symbol in a 24 × 24 box.
const HAT = '<path d="M12 1 L18.5 17 H5.5 Z"/><path d="M1 17 H23 V21 H1 Z"/>'
  + '<path d="M12 6 l1 2.6 h2.7 l-2.2 1.6 .9 2.7 -2.4 -1.7 -2.4 1.7 .9 -2.7 -2.2 -1.6 h2.7 Z" fill="#fff"/>';
const CAP = '<path d="M4 22 L2 6 L8.5 13 L12 3 L15.5 13 L22 6 L20 22 Z"/>'
  + '<circle cx="2" cy="5" r="2"/><circle cx="12" cy="2.5" r="2"/><circle cx="22" cy="5" r="2"/>';
const SYMBOLS = {
  colours: {
    B: '<path d="M12 1 L22.5 12 L12 23 L1.5 12 Z"/>',
    G: '<rect x="2.5" y="2.5" width="19" height="19" rx="2"/>',
    R: '<path d="M12 1.5 L23 21.5 H1 Z"/>',
    Y: '<path d="M12 .5 L14.9 8.4 L23.3 8.7 L16.7 13.9 L19 22 L12 17.3 L5 22 L7.3 13.9 L.7 8.7 L9.1 8.4 Z"/>',
    W: HAT,
    J: CAP,
  },
  races: {
    B: '<circle cx="12" cy="6.5" r="5.5"/><path d="M1.5 23 C1.5 15.5 6 12.8 12 12.8 C18 12.8 22.5 15.5 22.5 23 Z"/>',
    G: '<path d="M12 .5 C21 6 22 15 12 23.5 C2 15 3 6 12 .5 Z"/><path d="M12 4 V21 M12 10 L16 7 M12 15 L7.5 11.5" stroke="#fff" stroke-width="1.3" fill="none"/>',
    R: '<path d="M10.5 2 H13.5 V23.5 H10.5 Z"/><path d="M13.5 4 L20 1 C23.5 5 23.5 12 20 16 L13.5 13 Z"/>',
    Y: '<path d="M7 1 H16 C17 1 17.5 2 17.5 3 V7 L20.5 12.5 L17.5 13.5 V17 C17.5 19 16 20 14 20 V23.5 H5.5 V14 C4.5 10 5.5 4 7 1 Z"/><path d="M9 7.5 H17.5 M12 16.5 H16.5" stroke="#fff" stroke-width="1.4"/>',
    W: HAT,
    J: CAP,
  },
  french: {
    B: '<path d="M12 1 C9 5 2 9.5 2 14.5 C2 18 5 20 8 19 C9.5 18.5 10.5 17.5 11 16.5 C10.8 19 10 21 8 23 H16 C14 21 13.2 19 13 16.5 C13.5 17.5 14.5 18.5 16 19 C19 20 22 18 22 14.5 C22 9.5 15 5 12 1 Z"/>',
    G: '<circle cx="12" cy="6.5" r="5"/><circle cx="6.3" cy="14" r="5"/><circle cx="17.7" cy="14" r="5"/><path d="M11 12 H13 C13 17 14 20 16.5 23 H7.5 C10 20 11 17 11 12 Z"/>',
    R: '<path d="M12 22.5 C9 19.5 1.5 14.5 1.5 8 C1.5 4.5 4 2 7 2 C9.3 2 11 3.5 12 5.5 C13 3.5 14.7 2 17 2 C20 2 22.5 4.5 22.5 8 C22.5 14.5 15 19.5 12 22.5 Z"/>',
    Y: '<path d="M12 .5 L20.5 12 L12 23.5 L3.5 12 Z"/>',
    W: CAP,
    J: CAP,
  },
};

/** The suit of a card code (`R13` → `R`), or null for a Wizard or a Jester. */
export function suitOf(card) {
  return card === "W" || card === "J" ? null : card[0];
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// A Wizard's or a Jester's name, in bold 9 px, is squeezed into the card's width when it is
// wider: measured in the page's own font, so a name of few but wide letters (Russian
// «Волшебник») is squeezed too, and a short one is never stretched.
const NAME_ROOM = 52;
let measuring = null;

function nameWidth(name) {
  measuring ??= document.createElement("canvas").getContext("2d");
  if (!measuring) return name.length > 10 ? Infinity : 0;
  measuring.font = `700 9px ${getComputedStyle(document.documentElement).fontFamily}`;
  return measuring.measureText(name).width;
}

function symbol(shapes, key, x, y, size) {
  return `<g transform="translate(${x} ${y}) scale(${size / 24})">${shapes[key]}</g>`;
}

/** The SVG of `card` (record notation) as `theme` draws it. `about` is the view's card:
 * `name` (its full name, read out by screen readers), `rank` (as the theme prints it) and
 * `role` (printed on a Wizard or a Jester: `Wizard` also on the French deck's high joker; the
 * name when there is none). */
export function cardSvg(card, about = {}, theme = "colours") {
  const shapes = SYMBOLS[theme] || SYMBOLS.colours;
  const suit = suitOf(card);
  const name = about.name || card;
  let colour;
  let body;
  if (suit === null) {
    const wizard = card === "W";
    colour = wizard ? WIZARD : JESTER;
    // The French deck's jokers: the high one (▲) stands for the Wizard, the low one (▼) the Jester.
    const corner = theme === "french"
      ? `<text x="7" y="17" font-size="13" font-weight="700">${wizard ? "▲" : "▼"}</text>`
      : symbol(shapes, card, 5, 5, 13);
    const role = about.role || name;
    const fit = nameWidth(role) > NAME_ROOM ? ` textLength="${NAME_ROOM}" lengthAdjust="spacingAndGlyphs"` : "";
    body = corner + symbol(shapes, card, 14, 26, 32)
      + `<text x="30" y="80" font-size="9" text-anchor="middle" font-weight="700"${fit}>${escape(role)}</text>`;
  } else {
    colour = COLOURS[suit];
    const rank = escape(about.rank || card.slice(1));
    body = `<text x="5" y="17" font-size="14" font-weight="700">${rank}</text>`
      + symbol(shapes, suit, 5, 21, 11) + symbol(shapes, suit, 15, 33, 30) + symbol(shapes, suit, 44, 74, 11);
  }
  return `<svg class="face" viewBox="0 0 60 90" role="img" aria-label="${escape(name)}" fill="${colour}" style="--ink: ${colour}">`
    + `<rect x="1" y="1" width="58" height="88" rx="6" fill="#fff" stroke="${colour}" stroke-width="2"/>`
    + `${body}</svg>`;
}

/** The SVG of a card's back (one nobody may see), labelled `label`. */
export function backSvg(label) {
  return `<svg class="face" viewBox="0 0 60 90" role="img" aria-label="${escape(label)}">`
    + '<rect x="1" y="1" width="58" height="88" rx="6" fill="#334" stroke="#889" stroke-width="2"/>'
    + '<path d="M30 22 L44 45 L30 68 L16 45 Z" fill="none" stroke="#889" stroke-width="2"/></svg>';
}
