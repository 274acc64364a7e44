// Cards drawn as SVG, readable without colour: each suit has its letter and a shape of its own
// (B ● circle, G ▲ triangle, R ◆ diamond, Y ★ star); Wizards say W, Jesters J.

const SUITS = {
  B: { name: "blue", colour: "#1f5fbf", shape: "circle" },
  G: { name: "green", colour: "#1d7f3a", shape: "triangle" },
  R: { name: "red", colour: "#c0262d", shape: "diamond" },
  Y: { name: "yellow", colour: "#b8860b", shape: "star" },
};

const SHAPES = {
  circle: '<circle cx="30" cy="47" r="12"/>',
  triangle: '<polygon points="30,33 44,58 16,58"/>',
  diamond: '<polygon points="30,31 43,47 30,63 17,47"/>',
  star: '<polygon points="30,32 34,43 46,43 36,50 40,62 30,55 20,62 24,50 14,43 26,43"/>',
};

/** The suit of a card code (`R13` → `R`), or null for a Wizard or a Jester. */
export function suitOf(card) {
  return card === "W" || card === "J" ? null : card[0];
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

/** The SVG of `card` (record notation), labelled `face` for screen readers. */
export function cardSvg(card, face = card) {
  const suit = suitOf(card);
  let colour = "#444";
  let corner = card;
  let middle;
  if (suit === null) {
    const wizard = card === "W";
    colour = wizard ? "#5b2a86" : "#666";
    middle = `<text x="30" y="56" font-size="26" text-anchor="middle" font-weight="700">${wizard ? "W" : "J"}</text>`
      + `<text x="30" y="74" font-size="8" text-anchor="middle">${wizard ? "WIZARD" : "JESTER"}</text>`;
  } else {
    const about = SUITS[suit];
    colour = about.colour;
    corner = card.slice(1);
    middle = SHAPES[about.shape];
  }
  const letter = suit === null ? "" : `<text x="52" y="84" font-size="10" text-anchor="end" font-weight="700">${suit}</text>`;
  return `<svg class="face" viewBox="0 0 60 90" role="img" aria-label="${escape(face)}" fill="${colour}">`
    + `<rect x="1" y="1" width="58" height="88" rx="6" fill="#fff" stroke="${colour}" stroke-width="2"/>`
    + `<text x="7" y="17" font-size="14" font-weight="700">${escape(corner)}</text>`
    + `${middle}${letter}</svg>`;
}

/** The SVG of a card's back (one nobody may see). */
export function backSvg() {
  return '<svg class="face" viewBox="0 0 60 90" role="img" aria-label="a card">'
    + '<rect x="1" y="1" width="58" height="88" rx="6" fill="#334" stroke="#889" stroke-width="2"/>'
    + '<text x="30" y="52" font-size="16" text-anchor="middle" fill="#ccd">?</text></svg>';
}
