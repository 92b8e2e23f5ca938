// SVG drawings of the three boards. Each function draws a board from the server's view and
// highlights what it is told to (selection, legal targets, last move); every point carries
// `data-square` with its name in the variant's move text, and a click on it calls `onPick`.

import { readBanqiView, readSanguoPosition, readXiangqiFen, sanguoCoords, sanguoPoint } from './protocol.js';

const SVG = 'http://www.w3.org/2000/svg';

/**
 * @typedef {{selected: string | null, targets: Map<string, boolean>, last: string[],
 *   lastBySeat?: {seat: number, squares: string[]}[],
 *   check: string[], onPick: (square: string) => void, onDrop: (square: string) => void}} Marks
 * `lastBySeat` (sanguo) holds each kingdom's own last move, drawn in its colour, so that after two
 * replies in a row every one of them stays visible; `last` is then the newest of them.
 * `targets` maps a target square to whether the move there captures; `check` lists the squares of
 * the Generals the server says are in check (a red glow under each); `onPick` is called when the
 * pointer goes down on a point, `onDrop` when it is released over one (drag and drop).
 */

/**
 * @param {string} name
 * @param {Record<string, string | number>} attrs
 * @param {Element} [parent]
 * @returns {SVGElement}
 */
function el(name, attrs, parent) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG, name));
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

/**
 * @param {Element} parent
 * @param {number} x
 * @param {number} y
 * @param {number} size
 * @param {string} text
 * @param {string} fill
 */
function label(parent, x, y, size, text, fill) {
  const node = el('text', {
    x, y, 'font-size': size, fill, 'text-anchor': 'middle', 'dominant-baseline': 'central',
    class: /^[A-Z]$/.test(text) ? 'glyph letter' : 'glyph',
  }, parent);
  node.textContent = text;
  return node;
}

/** @typedef {'chinese' | 'western' | 'symbols'} PieceSet */
/** @type {PieceSet} */
let pieceSet = 'chinese';

/**
 * The boards' colours: `wood` (the default), `light` and `dark`. The theme is a stylesheet rule
 * on the page's root (`<html data-board="…">`, style.css), so every board drawn follows it.
 * @typedef {'wood' | 'light' | 'dark'} BoardTheme
 */
/** @type {BoardTheme[]} */
export const BOARD_THEMES = ['wood', 'light', 'dark'];

/**
 * The board theme named `name`, or `wood` for anything else (a stored value from another
 * version, nothing stored).
 * @param {string | null | undefined} name
 * @returns {BoardTheme}
 */
export function boardThemeNamed(name) {
  return BOARD_THEMES.find((x) => x === name) ?? 'wood';
}

/**
 * Chooses the pieces' faces: traditional characters, western letters (WXF letters: K general,
 * A advisor, E elephant, H horse, R chariot, C cannon, P soldier, F flag bearer), or pictographic
 * symbols (`SYMBOLS`).
 * @param {PieceSet} set
 */
export function setPieceSet(set) {
  pieceSet = set;
}

/** @returns {PieceSet} */
export function currentPieceSet() {
  return pieceSet;
}

/**
 * The kinds of piece, the keys of `SYMBOLS`.
 * @typedef {'general' | 'advisor' | 'elephant' | 'horse' | 'chariot' | 'cannon' | 'soldier' | 'flag'} PieceKind
 */

/** The kind of a piece from its letter: FEN (b elephant, n horse) or banqi and sanguo (E, H, F). */
const KIND_OF_LETTER = /** @type {Record<string, PieceKind>} */ ({
  k: 'general', a: 'advisor', b: 'elephant', e: 'elephant', n: 'horse', h: 'horse', r: 'chariot',
  c: 'cannon', p: 'soldier', f: 'flag',
});

/**
 * The kind of piece a letter names (FEN, banqi or sanguo letters, any case).
 * @param {string} letter
 * @returns {PieceKind}
 */
export function kindOf(letter) {
  return KIND_OF_LETTER[letter.toLowerCase()];
}

/** WXF letter of a FEN letter (b elephant, n horse). */
const WXF_OF_FEN = { k: 'K', a: 'A', b: 'E', n: 'H', r: 'R', c: 'C', p: 'P' };

const XIANGQI_GLYPHS = {
  r: { k: '帥', a: '仕', b: '相', n: '傌', r: '俥', c: '炮', p: '兵' },
  b: { k: '將', a: '士', b: '象', n: '馬', r: '車', c: '砲', p: '卒' },
};
const RED = '#b3261e';
const INK = '#1d1d1d';
/** The colours of Red's and Black's pieces (sanguo's kingdoms: `KINGDOM_COLORS`). */
export const SIDE_COLORS = { red: RED, black: INK };
/** The disc's face colour; a symbol's cut-outs are painted with it. */
const PAPER = '#f6e7c8';

/**
 * One shape of a symbol: an SVG element and its attributes, in a drawing where the disc has radius
 * 100 around (0, 0) (its inner ring has radius 80). `fill` and `stroke` say `ink` (the side's
 * colour) or `paper` (the disc's colour, a cut-out); the rest is copied as it is.
 * A `g` carries its own shapes as a third element.
 * @typedef {[string, Record<string, string | number>, Shape[]?]} Shape
 */

/**
 * The pictographic symbols, one per kind of piece, drawn from these basic shapes in the side's
 * colour; the shape alone names the piece, the colour only the side. The General is a crown, the
 * Advisor a guard's shield with a diagonal cross (it steps one point diagonally), the Elephant an
 * elephant's head with its trunk, the Horse a horse's head, the Chariot a spoked wheel, the Cannon
 * a barrel on its wheeled carriage with a ball, the Soldier a helmeted foot soldier, the Flag
 * bearer a swallow-tailed banner.
 * @type {Record<PieceKind, Shape[]>}
 */
export const SYMBOLS = {
  general: [
    ['path', { d: 'M -44 26 L -52 -26 L -25 0 L 0 -40 L 25 0 L 52 -26 L 44 26 Z', fill: 'ink' }],
    ['circle', { cx: -52, cy: -32, r: 8, fill: 'ink' }],
    ['circle', { cx: 0, cy: -47, r: 9, fill: 'ink' }],
    ['circle', { cx: 52, cy: -32, r: 8, fill: 'ink' }],
    ['rect', { x: -46, y: 31, width: 92, height: 20, rx: 5, fill: 'ink' }],
    ['circle', { cx: 0, cy: 41, r: 6, fill: 'paper' }],
    ['circle', { cx: -25, cy: 41, r: 4, fill: 'paper' }],
    ['circle', { cx: 25, cy: 41, r: 4, fill: 'paper' }],
    ['path', { d: 'M 0 -14 L 8 -2 L 0 10 L -8 -2 Z', fill: 'paper' }],
  ],
  advisor: [
    ['path', { d: 'M -44 -50 Q 0 -38 44 -50 L 44 -8 C 44 24 24 46 0 60 C -24 46 -44 24 -44 -8 Z', fill: 'ink' }],
    ['path', { d: 'M -25 -30 L 25 26 M 25 -30 L -25 26', stroke: 'paper', 'stroke-width': 12, 'stroke-linecap': 'round' }],
  ],
  elephant: [
    ['ellipse', { cx: -40, cy: -10, rx: 26, ry: 34, fill: 'ink' }],
    ['ellipse', { cx: 40, cy: -10, rx: 26, ry: 34, fill: 'ink' }],
    ['ellipse', { cx: 0, cy: -16, rx: 30, ry: 32, fill: 'ink' }],
    ['path', { d: 'M 0 0 C 0 24 -4 40 6 52 S 24 56 26 46', fill: 'none', stroke: 'ink', 'stroke-width': 20, 'stroke-linecap': 'round' }],
    ['path', { d: 'M -50 -28 Q -62 -8 -48 12 M 50 -28 Q 62 -8 48 12', fill: 'none', stroke: 'paper', 'stroke-width': 5, 'stroke-linecap': 'round' }],
    ['circle', { cx: -13, cy: -18, r: 5, fill: 'paper' }],
    ['circle', { cx: 13, cy: -18, r: 5, fill: 'paper' }],
    ['path', { d: 'M -16 14 Q -22 34 -36 40 M 16 14 Q 22 34 36 40', fill: 'none', stroke: 'ink', 'stroke-width': 7, 'stroke-linecap': 'round' }],
  ],
  horse: [
    ['g', { transform: 'translate(2 0) scale(0.95)' }, [
      ['path', { d: 'M 42 60 C 50 30 48 0 36 -22 C 30 -34 24 -42 18 -48 L 14 -68 L 2 -50 C -14 -46 -28 -34 -40 -16 L -58 10 C -62 16 -60 26 -52 28 L -40 28 C -30 28 -18 24 -8 18 C -4 30 -12 46 -20 60 Z', fill: 'ink' }],
      ['ellipse', { cx: -12, cy: -23, rx: 6.5, ry: 4.5, transform: 'rotate(-35 -12 -23)', fill: 'paper' }],
      ['circle', { cx: -48, cy: 13, r: 3.5, fill: 'paper' }],
      ['path', { d: 'M 26 -28 C 36 -8 38 20 32 48', stroke: 'paper', 'stroke-width': 5, 'stroke-linecap': 'round' }],
    ]],
  ],
  chariot: [
    ['circle', { cx: 0, cy: 0, r: 53, stroke: 'ink', 'stroke-width': 15 }],
    ['path', { d: 'M 0 -50 V 50 M -43.3 -25 L 43.3 25 M 43.3 -25 L -43.3 25', stroke: 'ink', 'stroke-width': 11 }],
    ['circle', { cx: 0, cy: 0, r: 18, fill: 'ink' }],
    ['circle', { cx: 0, cy: 0, r: 6, fill: 'paper' }],
  ],
  cannon: [
    ['g', { transform: 'translate(7 -2)' }, [
      ['path', { d: 'M -58 50 L -14 18 L 6 28 L -46 58 Z', fill: 'ink' }],
      ['g', { transform: 'translate(-4 -4) rotate(-30)' }, [
        ['path', { d: 'M -44 -16 L 46 -10 L 46 10 L -44 16 Z', fill: 'ink' }],
        ['rect', { x: 40, y: -15, width: 16, height: 30, rx: 4, fill: 'ink' }],
        ['circle', { cx: -44, cy: 0, r: 16, fill: 'ink' }],
        ['circle', { cx: -62, cy: 0, r: 7, fill: 'ink' }],
        ['path', { d: 'M -24 -15 V 15 M 22 -11 V 11', stroke: 'paper', 'stroke-width': 4 }],
      ]],
      ['circle', { cx: -2, cy: 30, r: 24, fill: 'ink' }],
      ['circle', { cx: -2, cy: 30, r: 16, stroke: 'paper', 'stroke-width': 4 }],
      ['circle', { cx: -2, cy: 30, r: 5, fill: 'paper' }],
      ['circle', { cx: 44, cy: 50, r: 10, fill: 'ink' }],
    ]],
  ],
  soldier: [
    ['path', { d: 'M -44 58 C -44 26 -26 12 0 12 C 26 12 44 26 44 58 Z', fill: 'ink' }],
    ['circle', { cx: 0, cy: -16, r: 18, fill: 'ink' }],
    ['path', { d: 'M -24 -22 C -24 -48 24 -48 24 -22 Z', fill: 'ink' }],
    ['rect', { x: -31, y: -27, width: 62, height: 9, rx: 4.5, fill: 'ink' }],
    ['path', { d: 'M 0 -66 L 7 -53 L 0 -45 L -7 -53 Z', fill: 'ink' }],
    ['path', { d: 'M -31 -17 H 31', stroke: 'paper', 'stroke-width': 3 }],
    ['circle', { cx: 0, cy: 38, r: 9, stroke: 'paper', 'stroke-width': 4.5 }],
  ],
  flag: [
    ['rect', { x: -42, y: -52, width: 10, height: 110, rx: 4, fill: 'ink' }],
    ['circle', { cx: -37, cy: -57, r: 7, fill: 'ink' }],
    ['path', { d: 'M -32 -48 C -10 -58 10 -38 48 -48 L 34 -22 L 48 4 C 10 12 -10 -10 -32 0 Z', fill: 'ink' }],
    ['circle', { cx: 4, cy: -22, r: 8, fill: 'paper' }],
  ],
};

/** How much larger than its drawing a symbol is shown (its shapes stay inside the inner ring). */
const SYMBOL_SCALE = 1.05;

/**
 * Draws the symbol of `kind` in `color` centred on (x, y) for a disc of radius `r`.
 * @param {Element} parent
 * @param {PieceKind} kind
 * @param {number} x
 * @param {number} y
 * @param {number} r
 * @param {string} color
 */
function symbol(parent, kind, x, y, r, color) {
  const g = el('g', { class: 'symbol', 'data-symbol': kind, transform: `translate(${x} ${y}) scale(${(r / 100) * SYMBOL_SCALE})` }, parent);
  /** @param {Shape[]} shapes @param {Element} into */
  const draw = (shapes, into) => {
    for (const [tag, attrs, inner] of shapes) {
      /** @type {Record<string, string | number>} */
      const painted = {};
      for (const [k, v] of Object.entries(attrs)) painted[k] = v === 'ink' ? color : v === 'paper' ? PAPER : v;
      if (tag !== 'g' && !('fill' in painted)) painted.fill = 'none';
      const node = el(tag, painted, into);
      if (inner) draw(inner, node);
    }
  };
  draw(SYMBOLS[kind], g);
  return g;
}

/**
 * Draws one piece: a disc with its face, the character `text` (or the WXF letter, when the header
 * chose letters) or the symbol of `kind`.
 * @param {Element} g
 * @param {number} x
 * @param {number} y
 * @param {number} r
 * @param {PieceKind} kind
 * @param {string} text the character, or the letter in the western set
 * @param {string} color
 * @param {string} cls
 */
function disc(g, x, y, r, kind, text, color, cls) {
  const p = el('g', { class: `piece ${cls}` }, g);
  el('circle', { cx: x, cy: y + r * 0.08, r, fill: 'rgba(0,0,0,0.25)' }, p);
  el('circle', { cx: x, cy: y, r, fill: PAPER, stroke: color, 'stroke-width': r * 0.09 }, p);
  el('circle', { cx: x, cy: y, r: r * 0.8, fill: 'none', stroke: color, 'stroke-width': r * 0.04 }, p);
  if (pieceSet === 'symbols') {
    p.classList.add('sym');
    symbol(p, kind, x, y, r, color);
  } else label(p, x, y + r * 0.04, r * 1.15, text, color);
  return p;
}

/**
 * A piece on its own, for lists and legends: a disc `size` pixels wide with the face of the
 * chosen set.
 * @param {PieceKind} kind
 * @param {string} text the character or letter shown when the set is not `symbols`
 * @param {string} color
 * @param {number} size pixels
 */
export function pieceIcon(kind, text, color, size) {
  const svg = el('svg', { viewBox: '0 0 40 40', width: size, height: size, class: 'piece-icon' });
  const cls = color === RED ? 'red' : color === INK ? 'black' : `k${KINGDOM_COLORS.indexOf(color)}`;
  disc(svg, 20, 19, 17, kind, text, color, cls);
  return svg;
}

/**
 * The symbol of `kind` alone (no disc), for a face drawn by CSS (the rules pages' chips); its size
 * is the stylesheet's.
 * @param {PieceKind} kind
 * @param {'red' | 'black'} side
 */
export function symbolIcon(kind, side) {
  const svg = el('svg', { viewBox: '-80 -80 160 160', class: 'symbol-icon', 'data-symbol': kind });
  symbol(svg, kind, 0, 0, 100, side === 'red' ? RED : INK);
  return svg;
}

/**
 * Marks shared by the boards: last move, selection, targets and the click areas.
 * @param {Element} svg
 * @param {Map<string, [number, number]>} points square -> drawing position
 * @param {number} r the radius of a piece
 * @param {Marks} marks
 */
function drawMarks(svg, points, r, marks) {
  for (const { seat, squares } of marks.lastBySeat ?? []) {
    for (const sq of squares) {
      const p = points.get(sq);
      if (p) el('rect', { x: p[0] - r * 1.1, y: p[1] - r * 1.1, width: r * 2.2, height: r * 2.2, rx: r * 0.25, class: `mark-last-seat k${seat}`, 'data-last-seat': seat }, svg);
    }
  }
  for (const sq of marks.last) {
    const p = points.get(sq);
    if (p) el('rect', { x: p[0] - r * 1.1, y: p[1] - r * 1.1, width: r * 2.2, height: r * 2.2, rx: r * 0.25, class: 'mark-last' }, svg);
  }
  for (const sq of marks.check) {
    const p = points.get(sq);
    if (!p) continue;
    const g = el('g', { class: 'mark-check', 'data-check': sq }, svg);
    el('circle', { cx: p[0], cy: p[1], r: r * 1.5, class: 'check-glow' }, g);
    el('circle', { cx: p[0], cy: p[1], r: r * 1.18, class: 'check-ring' }, g);
  }
}

/**
 * The selection, the targets and the pointer handling of a board.
 * @param {Element} svg
 * @param {Map<string, [number, number]>} points
 * @param {number} r the radius of a piece
 * @param {Marks} marks
 * @param {number} [reach] how far from a point, in piece radii, a tap still picks it
 * @param {number} [dot] the radius of a target dot, in piece radii
 */
function drawOverlay(svg, points, r, marks, reach = 1.6, dot = 0.28) {
  if (marks.selected) {
    const p = points.get(marks.selected);
    if (p) el('circle', { cx: p[0], cy: p[1], r: r * 1.08, class: 'mark-selected' }, svg);
  }
  for (const [sq, capture] of marks.targets) {
    const p = points.get(sq);
    if (!p) continue;
    if (capture) el('circle', { cx: p[0], cy: p[1], r: r * 1.02, class: 'mark-target-capture' }, svg);
    else el('circle', { cx: p[0], cy: p[1], r: r * dot, class: 'mark-target' }, svg);
  }
  for (const [sq, p] of points) el('circle', { cx: p[0], cy: p[1], r: r * 1.05, class: 'hit', 'data-square': sq }, svg);
  /**
   * The point nearest to where the pointer is, within `reach` piece radii: every point owns the
   * area closer to it than to any other (on sanguo's dense board a tap between two points goes
   * to the nearer one instead of nowhere).
   * @param {MouseEvent} e
   */
  const nearest = (e) => {
    const ctm = /** @type {SVGGraphicsElement} */ (/** @type {unknown} */ (svg)).getScreenCTM?.();
    if (!ctm) return /** @type {Element | null} */ (e.target)?.getAttribute?.('data-square') ?? null;
    const inv = ctm.inverse();
    const x = inv.a * e.clientX + inv.c * e.clientY + inv.e;
    const y = inv.b * e.clientX + inv.d * e.clientY + inv.f;
    let best = null;
    let bestD = (r * reach) ** 2;
    for (const [sq, p] of points) {
      const d = (p[0] - x) ** 2 + (p[1] - y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = sq;
      }
    }
    return best;
  };
  svg.addEventListener('pointerdown', (e) => {
    const sq = nearest(/** @type {PointerEvent} */ (e));
    if (!sq) return;
    e.preventDefault();
    marks.onPick(sq);
  });
  // drag and drop: releasing the pointer over another point is a second pick
  svg.addEventListener('pointerup', (e) => {
    const { clientX, clientY } = /** @type {PointerEvent} */ (e);
    // the board may have been drawn again since the pointer went down: ask the one shown now
    const shown = document.elementFromPoint(clientX, clientY)?.closest('svg.board');
    if (shown && shown !== svg) return;
    const sq = nearest(/** @type {PointerEvent} */ (e));
    if (sq) marks.onDrop(sq);
  });
}

/** Chinese numerals 1–9 (Red's files in Chinese notation). */
const CHINESE_NUMBERS = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/**
 * The xiangqi board (9 x 10 points), Red at the bottom unless `flipped`. `coords` writes the
 * files and ranks as the move list does: ICCS letters `a`–`i` and ranks `0`–`9`; WXF each
 * side's files 1–9 from its own right (Red's under the board, Black's above it); Chinese the
 * same with Red's in Chinese numerals. `null`: none (the rules diagrams).
 * @param {string} fen
 * @param {boolean} flipped
 * @param {Marks} marks
 * @param {'iccs' | 'wxf' | 'chinese' | null} [coords]
 */
export function xiangqiBoard(fen, flipped, marks, coords = null) {
  const { board } = readXiangqiFen(fen);
  const c = 60;
  const m = 44;
  const W = 8 * c + 2 * m;
  const H = 9 * c + 2 * m;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'board xiangqi', role: 'img' });
  /** @param {number} f @param {number} r @returns {[number, number]} */
  const at = (f, r) => (flipped ? [m + (8 - f) * c, m + r * c] : [m + f * c, m + (9 - r) * c]);
  el('rect', { x: 4, y: 4, width: W - 8, height: H - 8, rx: 10, class: 'wood' }, svg);
  const lines = el('g', { class: 'lines' }, svg);
  el('rect', { x: m, y: m, width: 8 * c, height: 9 * c, fill: 'none', 'stroke-width': 3 }, lines);
  for (let r = 0; r <= 9; r++) {
    const [x1, y] = at(0, r);
    const [x2] = at(8, r);
    el('line', { x1, y1: y, x2, y2: y }, lines);
  }
  for (let f = 0; f <= 8; f++) {
    for (const [r1, r2] of f === 0 || f === 8 ? [[0, 9]] : [[0, 4], [5, 9]]) {
      const [x, y1] = at(f, r1);
      const [, y2] = at(f, r2);
      el('line', { x1: x, y1, x2: x, y2 }, lines);
    }
  }
  for (const [r0, r2] of [[0, 2], [7, 9]]) {
    for (const [a, b] of [[[3, r0], [5, r2]], [[5, r0], [3, r2]]]) {
      const [x1, y1] = at(a[0], a[1]);
      const [x2, y2] = at(b[0], b[1]);
      el('line', { x1, y1, x2, y2 }, lines);
    }
  }
  if (coords) {
    const g = el('g', { class: 'coords' }, svg);
    const bottomY = at(0, flipped ? 9 : 0)[1] + m * 0.79;
    const topY = at(0, flipped ? 0 : 9)[1] - m * 0.79;
    for (let f = 0; f <= 8; f++) {
      const [x] = at(f, 0);
      if (coords === 'iccs') label(g, x, flipped ? topY : bottomY, 13, 'abcdefghi'[f], '#6b4b2a');
      else {
        // a side's file 1 is on its right: Red's right is file i, Black's is file a
        const red = coords === 'chinese' ? CHINESE_NUMBERS[8 - f] : String(9 - f);
        label(g, x, flipped ? topY : bottomY, 13, red, '#8b2a1e');
        label(g, x, flipped ? bottomY : topY, 13, String(f + 1), '#222');
      }
    }
    if (coords === 'iccs') {
      for (let r = 0; r <= 9; r++) label(g, m * 0.27, at(0, r)[1], 13, String(r), '#6b4b2a');
    }
  }
  const riverY = (at(0, 4)[1] + at(0, 5)[1]) / 2;
  label(svg, m + 2 * c, riverY, c * 0.5, flipped ? '漢 界' : '楚 河', '#6b4b2a').classList.add('river');
  label(svg, m + 6 * c, riverY, c * 0.5, flipped ? '楚 河' : '漢 界', '#6b4b2a').classList.add('river');
  /** @type {Map<string, [number, number]>} */
  const points = new Map();
  for (let r = 0; r <= 9; r++) {
    for (let f = 0; f <= 8; f++) points.set(`${'abcdefghi'[f]}${r}`, at(f, r));
  }
  drawMarks(svg, points, c * 0.44, marks);
  const pieces = el('g', {}, svg);
  for (let r = 0; r <= 9; r++) {
    for (let f = 0; f <= 8; f++) {
      const piece = board[r][f];
      if (!piece) continue;
      const [x, y] = at(f, r);
      const text = pieceSet === 'western' ? WXF_OF_FEN[/** @type {'k'} */ (piece.kind)]
        : XIANGQI_GLYPHS[piece.color][/** @type {'k'} */ (piece.kind)];
      disc(pieces, x, y, c * 0.44, kindOf(piece.kind), text, piece.color === 'r' ? RED : INK, piece.color === 'r' ? 'red' : 'black')
        .setAttribute('data-at', `${'abcdefghi'[f]}${r}`);
    }
  }
  drawOverlay(svg, points, c * 0.44, marks);
  return svg;
}

const BANQI_GLYPHS = {
  K: '帥', A: '仕', E: '相', R: '俥', H: '傌', C: '炮', P: '兵',
  k: '將', a: '士', e: '象', r: '車', h: '馬', c: '包', p: '卒',
};

/**
 * A small banqi piece (face up) for the list of captured pieces.
 * @param {string} letter `K A E R H C P` red, `k a e r h c p` black
 * @param {number} size pixels
 */
export function banqiPieceIcon(letter, size) {
  const red = letter === letter.toUpperCase();
  const text = pieceSet === 'western' ? letter.toUpperCase() : BANQI_GLYPHS[/** @type {'K'} */ (letter)];
  const svg = pieceIcon(kindOf(letter), text, red ? RED : INK, size);
  svg.setAttribute('data-piece', letter);
  return svg;
}

/**
 * The banqi board: 8 files (a..h, left to right) x 4 ranks (1 at the bottom); face-down discs;
 * turned half a turn when `flipped`. Files under the board, ranks on its left.
 * `labels` writes a short text over squares (the analysis board's chances of a face-down piece:
 * the glyph of the most likely one and its chance), each with a hover title.
 * @param {string} view
 * @param {Marks} marks
 * @param {boolean} [flipped]
 * @param {Map<string, {piece: string, text: string, title: string}>} [labels]
 */
export function banqiBoard(view, marks, flipped = false, labels = new Map()) {
  const { board } = readBanqiView(view);
  const c = 76;
  const m = 20;
  const W = 8 * c + 2 * m;
  const H = 4 * c + 2 * m + 22;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'board banqi', role: 'img' });
  el('rect', { x: 4, y: 4, width: W - 8, height: H - 8, rx: 10, class: 'wood' }, svg);
  /** @param {number} f @param {number} r @returns {[number, number]} */
  const at = (f, r) => (flipped ? [m + (7 - f) * c + c / 2, m + r * c + c / 2] : [m + f * c + c / 2, m + (3 - r) * c + c / 2]);
  const lines = el('g', { class: 'lines' }, svg);
  for (let r = 0; r <= 4; r++) el('line', { x1: m, y1: m + r * c, x2: m + 8 * c, y2: m + r * c }, lines);
  for (let f = 0; f <= 8; f++) el('line', { x1: m + f * c, y1: m, x2: m + f * c, y2: m + 4 * c }, lines);
  const coords = el('g', { class: 'coords' }, svg);
  for (let f = 0; f < 8; f++) label(coords, at(f, 0)[0], m + 4 * c + 12, 14, 'abcdefgh'[f], '#6b4b2a');
  for (let r = 0; r < 4; r++) label(coords, m / 2, at(0, r)[1], 13, String(r + 1), '#6b4b2a');
  /** @type {Map<string, [number, number]>} */
  const points = new Map();
  for (let r = 0; r < 4; r++) for (let f = 0; f < 8; f++) points.set(`${'abcdefgh'[f]}${r + 1}`, at(f, r));
  drawMarks(svg, points, c * 0.4, marks);
  const pieces = el('g', {}, svg);
  for (let r = 0; r < 4; r++) {
    for (let f = 0; f < 8; f++) {
      const sq = board[r][f];
      if (!sq) continue;
      const [x, y] = at(f, r);
      if (sq.down) {
        const p = el('g', { class: 'piece down' }, pieces);
        el('circle', { cx: x, cy: y + 3, r: c * 0.4, fill: 'rgba(0,0,0,0.25)' }, p);
        el('circle', { cx: x, cy: y, r: c * 0.4, class: 'face-down' }, p);
        el('circle', { cx: x, cy: y, r: c * 0.27, fill: 'none', stroke: '#d9b37a', 'stroke-width': 2 }, p);
      } else {
        const red = sq.kind === sq.kind.toUpperCase();
        const text = pieceSet === 'western' ? sq.kind.toUpperCase() : BANQI_GLYPHS[/** @type {'K'} */ (sq.kind)];
        disc(pieces, x, y, c * 0.4, kindOf(sq.kind), text, red ? RED : INK, red ? 'red' : 'black');
      }
    }
  }
  drawOverlay(svg, points, c * 0.4, marks);
  // after the click areas, but letting the pointer through to them
  for (const [sq, { piece, text, title }] of labels) {
    const p = points.get(sq);
    if (!p) continue;
    const g = el('g', { class: 'chance', 'data-square': sq, 'pointer-events': 'none' }, svg);
    el('title', {}, g).textContent = title;
    const red = piece === piece.toUpperCase();
    el('rect', { x: p[0] - c * 0.44, y: p[1] - c * 0.18, width: c * 0.88, height: c * 0.36, rx: c * 0.12, class: 'chance-pill' }, g);
    const glyph = pieceSet === 'western' ? piece.toUpperCase() : BANQI_GLYPHS[/** @type {'K'} */ (piece)];
    const t1 = el('text', { x: p[0] - c * 0.25, y: p[1] + c * 0.085, 'font-size': c * 0.24, 'text-anchor': 'middle', class: red ? 'chance-red' : 'chance-black' }, g);
    t1.textContent = glyph;
    const t2 = el('text', { x: p[0] + c * 0.15, y: p[1] + c * 0.07, 'font-size': c * 0.19, 'text-anchor': 'middle', class: 'chance-text' }, g);
    t2.textContent = text;
  }
  return svg;
}

/**
 * The glyph of a banqi piece in the current piece set.
 * @param {string} letter
 */
export function banqiGlyph(letter) {
  return pieceSet === 'western' ? letter.toUpperCase() : BANQI_GLYPHS[/** @type {'K'} */ (letter)] ?? letter;
}

export const KINGDOM_COLORS = ['#b3261e', '#1e7a3c', '#1f4e9c'];
const KINGDOM_TINTS = ['#f3d9c7', '#d9ead0', '#d5e0f0'];
const SANGUO_GLYPHS = { K: ['蜀', '吳', '魏'], A: '仕', E: '相', H: '馬', R: '車', C: '炮', P: '兵', F: '旗' };

/**
 * Sanguo's 135-point board with the drawing coordinates of spec/sanguo.md §9, turned so that
 * kingdom `bottom` sits at the bottom.
 * @param {string} position
 * @param {number} bottom
 * @param {number | null} toMove the kingdom to move (its half is outlined in its colour)
 * @param {Marks} marks
 */
export function sanguoBoard(position, bottom, toMove, marks) {
  const { pieces } = readSanguoPosition(position);
  const s = 40;
  const size = 17.2 * s;
  const svg = el('svg', { viewBox: `${-size / 2} ${-size / 2} ${size} ${size}`, class: 'board sanguo', role: 'img' });
  const turn = (-bottom * 120 * Math.PI) / 180;
  /** @param {number} k @param {number} f @param {number} r @returns {[number, number]} */
  const at = (k, f, r) => {
    const [x, y] = sanguoCoords(k, f, r);
    const xr = x * Math.cos(turn) - y * Math.sin(turn);
    const yr = x * Math.sin(turn) + y * Math.cos(turn);
    return [xr * s, -yr * s];
  };
  el('circle', { cx: 0, cy: 0, r: 8.5 * s, class: 'wood' }, svg);
  for (let k = 0; k < 3; k++) {
    const outline = [at(k, 0, 1), at(k, 8, 1), at(k, 8, 5), at(k, 4, 5), at(k, 0, 5)];
    el('polygon', {
      points: outline.map((p) => p.join(',')).join(' '), fill: KINGDOM_TINTS[k],
      stroke: k === toMove ? KINGDOM_COLORS[k] : 'none', 'stroke-width': 6, 'stroke-linejoin': 'round',
      class: k === toMove ? 'half to-move' : 'half',
    }, svg);
  }
  const lines = el('g', { class: 'lines' }, svg);
  /** @param {[number, number]} a @param {[number, number]} b */
  const seg = (a, b) => el('line', { x1: a[0], y1: a[1], x2: b[0], y2: b[1] }, lines);
  for (let k = 0; k < 3; k++) {
    for (let r = 1; r <= 5; r++) for (let f = 0; f < 8; f++) seg(at(k, f, r), at(k, f + 1, r));
    for (let f = 0; f <= 8; f++) for (let r = 1; r < 5; r++) seg(at(k, f, r), at(k, f, r + 1));
    seg(at(k, 3, 1), at(k, 5, 3));
    seg(at(k, 5, 1), at(k, 3, 3));
    const next = (k + 1) % 3;
    for (let f = 4; f <= 8; f++) seg(at(k, f, 5), at(next, 8 - f, 5));
  }
  /** @type {Map<string, [number, number]>} */
  const points = new Map();
  for (let k = 0; k < 3; k++) {
    for (let r = 1; r <= 5; r++) for (let f = 0; f <= 8; f++) points.set(sanguoPoint(k, f, r), at(k, f, r));
  }
  // each kingdom's files a–i along its back rank and ranks 1–5 along its file a, outside the grid,
  // in the kingdom's colour (the point names of the move list: Rh3 = Shu's file h, rank 3)
  const coords = el('g', { class: 'coords' }, svg);
  /** @param {[number, number]} p @param {[number, number]} q the label goes beyond p, away from q */
  const beyond = (p, q) => /** @type {[number, number]} */ ([p[0] + (p[0] - q[0]) * 0.55, p[1] + (p[1] - q[1]) * 0.55]);
  for (let k = 0; k < 3; k++) {
    for (let f = 0; f <= 8; f++) {
      const [x, y] = beyond(at(k, f, 1), at(k, f, 2));
      label(coords, x, y, s * 0.34, 'abcdefghi'[f], KINGDOM_COLORS[k]);
    }
    for (let rk = 1; rk <= 5; rk++) {
      const [x, y] = beyond(at(k, 0, rk), at(k, 1, rk));
      label(coords, x, y, s * 0.34, String(rk), KINGDOM_COLORS[k]);
    }
  }
  const r = s * 0.42;
  drawMarks(svg, points, r, marks);
  const g = el('g', {}, svg);
  for (const [sq, piece] of pieces) {
    const p = points.get(sq);
    if (!p) continue;
    const glyphs = SANGUO_GLYPHS[/** @type {'A'} */ (piece.kind)];
    const text = pieceSet === 'western' ? piece.kind
      : piece.kind === 'K' ? SANGUO_GLYPHS.K[piece.owner] : /** @type {string} */ (glyphs);
    disc(g, p[0], p[1], r, kindOf(piece.kind), text, KINGDOM_COLORS[piece.owner], `k${piece.owner}`);
  }
  // sanguo's points are close together: bigger target dots, and each point owns its whole area
  drawOverlay(svg, points, r, marks, 1.6, 0.42);
  return svg;
}
