// SVG drawings of the three boards. Each function draws a board from the server's view and
// highlights what it is told to (selection, legal targets, last move); every point carries
// `data-square` with its name in the variant's move text, and a click on it calls `onPick`.

import { readBanqiView, readSanguoPosition, readXiangqiFen, sanguoCoords, sanguoPoint } from './protocol.js';

const SVG = 'http://www.w3.org/2000/svg';

/**
 * @typedef {{selected: string | null, targets: Map<string, boolean>, last: string[],
 *   check: string[], onPick: (square: string) => void, onDrop: (square: string) => void}} Marks
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

/** @typedef {'chinese' | 'western'} PieceSet */
/** @type {PieceSet} */
let pieceSet = 'chinese';

/**
 * Chooses the pieces' faces: traditional characters or western letters (WXF letters: K general,
 * A advisor, E elephant, H horse, R chariot, C cannon, P soldier, F flag bearer).
 * @param {PieceSet} set
 */
export function setPieceSet(set) {
  pieceSet = set;
}

/** @returns {PieceSet} */
export function currentPieceSet() {
  return pieceSet;
}

/** WXF letter of a FEN letter (b elephant, n horse). */
const WXF_OF_FEN = { k: 'K', a: 'A', b: 'E', n: 'H', r: 'R', c: 'C', p: 'P' };

const XIANGQI_GLYPHS = {
  r: { k: '帥', a: '仕', b: '相', n: '傌', r: '俥', c: '炮', p: '兵' },
  b: { k: '將', a: '士', b: '象', n: '馬', r: '車', c: '砲', p: '卒' },
};
const RED = '#b3261e';
const INK = '#1d1d1d';

/**
 * Draws one piece: a disc with its character.
 * @param {Element} g
 * @param {number} x
 * @param {number} y
 * @param {number} r
 * @param {string} glyph
 * @param {string} color
 * @param {string} cls
 */
function disc(g, x, y, r, glyph, color, cls) {
  const p = el('g', { class: `piece ${cls}` }, g);
  el('circle', { cx: x, cy: y + r * 0.08, r, fill: 'rgba(0,0,0,0.25)' }, p);
  el('circle', { cx: x, cy: y, r, fill: '#f6e7c8', stroke: color, 'stroke-width': r * 0.09 }, p);
  el('circle', { cx: x, cy: y, r: r * 0.8, fill: 'none', stroke: color, 'stroke-width': r * 0.04 }, p);
  label(p, x, y + r * 0.04, r * 1.15, glyph, color);
  return p;
}

/**
 * Marks shared by the boards: last move, selection, targets and the click areas.
 * @param {Element} svg
 * @param {Map<string, [number, number]>} points square -> drawing position
 * @param {number} r the radius of a piece
 * @param {Marks} marks
 */
function drawMarks(svg, points, r, marks) {
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
 * @param {Element} svg
 * @param {Map<string, [number, number]>} points
 * @param {number} r
 * @param {Marks} marks
 */
function drawOverlay(svg, points, r, marks) {
  if (marks.selected) {
    const p = points.get(marks.selected);
    if (p) el('circle', { cx: p[0], cy: p[1], r: r * 1.08, class: 'mark-selected' }, svg);
  }
  for (const [sq, capture] of marks.targets) {
    const p = points.get(sq);
    if (!p) continue;
    if (capture) el('circle', { cx: p[0], cy: p[1], r: r * 1.02, class: 'mark-target-capture' }, svg);
    else el('circle', { cx: p[0], cy: p[1], r: r * 0.28, class: 'mark-target' }, svg);
  }
  for (const [sq, p] of points) {
    const hit = el('circle', { cx: p[0], cy: p[1], r: r * 1.05, class: 'hit', 'data-square': sq }, svg);
    hit.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      marks.onPick(sq);
    });
  }
  // drag and drop: releasing the pointer over another point is a second pick
  svg.addEventListener('pointerup', (e) => {
    const { clientX, clientY } = /** @type {PointerEvent} */ (e);
    const target = document.elementFromPoint(clientX, clientY);
    const sq = target?.getAttribute('data-square');
    if (sq) marks.onDrop(sq);
  });
}

/**
 * The xiangqi board (9 x 10 points), Red at the bottom unless `flipped`.
 * @param {string} fen
 * @param {boolean} flipped
 * @param {Marks} marks
 */
export function xiangqiBoard(fen, flipped, marks) {
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
  const riverY = (at(0, 4)[1] + at(0, 5)[1]) / 2;
  label(svg, m + 2 * c, riverY, c * 0.5, flipped ? '漢 界' : '楚 河', '#6b4b2a');
  label(svg, m + 6 * c, riverY, c * 0.5, flipped ? '楚 河' : '漢 界', '#6b4b2a');
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
      const glyph = pieceSet === 'western' ? WXF_OF_FEN[/** @type {'k'} */ (piece.kind)]
        : XIANGQI_GLYPHS[piece.color][/** @type {'k'} */ (piece.kind)];
      disc(pieces, x, y, c * 0.44, glyph, piece.color === 'r' ? RED : INK, piece.color === 'r' ? 'red' : 'black');
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
  const svg = el('svg', { viewBox: '0 0 40 40', width: size, height: size, class: 'piece-icon', 'data-piece': letter });
  const red = letter === letter.toUpperCase();
  const glyph = pieceSet === 'western' ? letter.toUpperCase() : BANQI_GLYPHS[/** @type {'K'} */ (letter)];
  disc(svg, 20, 19, 17, glyph, red ? RED : INK, red ? 'red' : 'black');
  return svg;
}

/**
 * The banqi board: 8 files (a..h, left to right) x 4 ranks (1 at the bottom); face-down discs.
 * @param {string} view
 * @param {Marks} marks
 */
export function banqiBoard(view, marks) {
  const { board } = readBanqiView(view);
  const c = 76;
  const m = 20;
  const W = 8 * c + 2 * m;
  const H = 4 * c + 2 * m + 22;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'board banqi', role: 'img' });
  el('rect', { x: 4, y: 4, width: W - 8, height: H - 8, rx: 10, class: 'wood' }, svg);
  /** @param {number} f @param {number} r @returns {[number, number]} */
  const at = (f, r) => [m + f * c + c / 2, m + (3 - r) * c + c / 2];
  const lines = el('g', { class: 'lines' }, svg);
  for (let r = 0; r <= 4; r++) el('line', { x1: m, y1: m + r * c, x2: m + 8 * c, y2: m + r * c }, lines);
  for (let f = 0; f <= 8; f++) el('line', { x1: m + f * c, y1: m, x2: m + f * c, y2: m + 4 * c }, lines);
  for (let f = 0; f < 8; f++) label(svg, at(f, 0)[0], m + 4 * c + 12, 14, 'abcdefgh'[f], '#6b4b2a');
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
        const glyph = pieceSet === 'western' ? sq.kind.toUpperCase() : BANQI_GLYPHS[/** @type {'K'} */ (sq.kind)];
        disc(pieces, x, y, c * 0.4, glyph, red ? RED : INK, red ? 'red' : 'black');
      }
    }
  }
  drawOverlay(svg, points, c * 0.4, marks);
  return svg;
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
  const r = s * 0.42;
  drawMarks(svg, points, r, marks);
  const g = el('g', {}, svg);
  for (const [sq, piece] of pieces) {
    const p = points.get(sq);
    if (!p) continue;
    const glyphs = SANGUO_GLYPHS[/** @type {'A'} */ (piece.kind)];
    const glyph = pieceSet === 'western' ? piece.kind
      : piece.kind === 'K' ? SANGUO_GLYPHS.K[piece.owner] : /** @type {string} */ (glyphs);
    disc(g, p[0], p[1], r, glyph, KINGDOM_COLORS[piece.owner], `k${piece.owner}`);
  }
  drawOverlay(svg, points, r, marks);
  return svg;
}
