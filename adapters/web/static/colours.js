// Telegram's theme colours kept readable. In a Mini App the page is drawn in the colours of
// the person's Telegram theme (the stylesheet's --tg-theme-* fallbacks), whose text colours
// are not all 4.5:1 (WCAG AA) against the backgrounds the page draws them on: Telegram
// Desktop's light theme has a hint grey of 2.5:1 on its panels and white digits on a button
// blue of 2.7:1. Each colour that falls short is taken towards black or white, whichever
// reads better, just as far as it reads at 4.5:1 against all it is drawn on; the others are
// the theme's own.

const READABLE = 4.5;

/** What the page draws in which colour, on which: [colour, [backgrounds]]; a colour moved
 * here is what the next ones are checked against. */
const PAIRS = [
  ["--fg", ["--bg", "--panel"]], // the text
  ["--hint", ["--bg", "--panel"]], // the header, the seats' numbers, the headings, the folds
  ["--accent", ["--bg", "--panel"]], // "Your turn", the page's messages, the winners
  ["--button", ["--button-fg"]], // behind the bid buttons' digits
];

let canvas = null;

/** A CSS colour as [r, g, b] (0-255), read the way the browser reads it. */
function parse(css) {
  canvas ??= document.createElement("canvas").getContext("2d");
  canvas.fillStyle = "#000";
  canvas.fillStyle = css;
  const value = canvas.fillStyle; // "#rrggbb", or "rgba(r, g, b, a)" when not opaque
  if (value.startsWith("#")) return [1, 3, 5].map((at) => parseInt(value.slice(at, at + 2), 16));
  return value.match(/[\d.]+/g).slice(0, 3).map(Number);
}

function luminance(rgb) {
  const [r, g, b] = rgb.map((value) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(one, other) {
  const [light, dark] = [luminance(one), luminance(other)].sort((a, b) => b - a);
  return (light + 0.05) / (dark + 0.05);
}

const worst = (colour, backgrounds) => Math.min(...backgrounds.map((b) => contrast(colour, b)));

/** `colour`, or the least step of it towards black or white that reads at 4.5:1 against each
 * of `backgrounds`. */
export function readable(colour, backgrounds) {
  if (worst(colour, backgrounds) >= READABLE) return colour;
  const ends = [[0, 0, 0], [255, 255, 255]];
  const end = ends.reduce((best, e) => (worst(e, backgrounds) > worst(best, backgrounds) ? e : best));
  for (let step = 1; step <= 20; step++) {
    const mixed = colour.map((value, i) => Math.round(value + ((end[i] - value) * step) / 20));
    if (worst(mixed, backgrounds) >= READABLE) return mixed;
  }
  return end;
}

/** The page's colours checked as above, those that fall short replaced (on the root, over the
 * stylesheet's); again from the theme's own whenever it changes. */
export function keepReadable() {
  const root = document.documentElement;
  for (const [name] of PAIRS) root.style.removeProperty(name);
  const style = getComputedStyle(root);
  const colours = {};
  const read = (name) => (colours[name] ??= parse(style.getPropertyValue(name).trim()));
  for (const [name, behind] of PAIRS) {
    const colour = read(name);
    const better = readable(colour, behind.map(read));
    if (better !== colour) {
      colours[name] = better;
      root.style.setProperty(name, `rgb(${better.join(" ")})`);
    }
  }
}
