// The table page's board: the live board with the selection (or the premove), the last move and
// the check marks; while stepping through a game, the board of the ply shown with the
// step-through controls under it; and banqi's lost pieces.

import { t } from '../i18n.js';
import { generalSquares, moveEnds, readPool, readSanguoPosition } from '../protocol.js';
import { banqiBoard, banqiPieceIcon, sanguoBoard, xiangqiBoard } from '../boards.js';
import { h } from '../dom.js';
import { moveRows } from './moves.js';

/** @typedef {import('../table.js').Table} Table */

/**
 * How the receiver looks at the board: `flip` turns it (xiangqi and banqi half a turn; sanguo:
 * the next kingdom at the bottom), `coords` are the xiangqi coordinates (as the move list writes
 * them).
 * @typedef {{flip: boolean, coords: 'iccs' | 'wxf' | 'chinese'}} Viewpoint
 */

/**
 * The kingdom at the bottom of the sanguo board.
 * @param {number | null} you
 * @param {boolean} flip
 * @returns {number}
 */
export function bottomKingdom(you, flip) {
  return ((you ?? 0) + (flip ? 1 : 0)) % 3;
}

/**
 * Whether Black is at the bottom of the xiangqi board.
 * @param {number | null} you
 * @param {boolean} flip
 * @returns {boolean}
 */
export function blackBelow(you, flip) {
  return (you === 1) !== flip;
}

/**
 * Sanguo: the last move of each kingdom still playing after the first `count` moves (plies 1 to
 * `count`), oldest first, so that the replies of two kingdoms in a row are all marked.
 * @param {string[]} moves the game's moves
 * @param {number} count
 * @param {import('../protocol.js').Defeat[]} defeats
 * @returns {{seat: number, squares: string[]}[]}
 */
export function lastMovesBySeat(moves, count, defeats) {
  /** @type {Map<number, number>} seat -> its last ply */
  const lastPly = new Map();
  for (const row of moveRows(count, 3, defeats)) {
    if ('round' in row) row.plies.forEach((ply, seat) => { if (ply !== null) lastPly.set(seat, ply); });
  }
  const out = new Set(defeats.filter((d) => d.ply <= count).map((d) => d.seat));
  return [...lastPly].filter(([seat]) => !out.has(seat)).sort((a, b) => a[1] - b[1]).flatMap(([seat, ply]) => {
    const ends = moveEnds(moves[ply - 1]);
    return ends ? [{ seat, squares: [ends.from, ends.to] }] : [];
  });
}

/**
 * The board of the review's current ply: only what the server's positions say.
 * @param {Table} table
 * @param {Viewpoint} view
 */
function reviewBoard(table, view) {
  const you = table.state?.you ?? null;
  const r = /** @type {NonNullable<Table['review']>} */ (table.review);
  const snap = r.positions.positions[r.ply];
  const variant = r.positions.variant;
  const lastText = r.ply > 0 ? r.positions.moves[r.ply - 1] : null;
  const last = lastText ? moveEnds(lastText) : null;
  /** @type {import('../boards.js').Marks} */
  const marks = {
    selected: null, targets: new Map(), last: last ? [last.from, last.to] : [],
    check: generalSquares(variant, snap.position, snap.check), onPick: () => {}, onDrop: () => {},
  };
  if (variant === 'xiangqi') return xiangqiBoard(snap.position, blackBelow(you, view.flip), marks, view.coords);
  if (variant === 'banqi') return banqiBoard(snap.position, marks, view.flip);
  const toMove = r.ply < r.positions.moves.length ? readSanguoPosition(snap.position).toMove : null;
  marks.lastBySeat = lastMovesBySeat(r.positions.moves, r.ply, table.state?.defeats ?? []);
  return sanguoBoard(snap.position, bottomKingdom(you, view.flip), toMove, marks);
}

/**
 * The board of `table`: the step-through's ply, else the live board, whose picks and drops go to
 * the table.
 * @param {Table} table
 * @param {Viewpoint} view
 * @returns {Element}
 */
export function boardNode(table, view) {
  const state = table.state;
  if (!state) return h('div');
  if (table.review) return reviewBoard(table, view);
  const lastText = state.board.moves[state.board.moves.length - 1];
  const last = lastText ? moveEnds(lastText) : null;
  const text = state.board.variant === 'xiangqi' ? state.board.fen
    : state.board.variant === 'banqi' ? state.board.view : state.board.position;
  const check = generalSquares(state.board.variant, text, state.check ?? []);
  const pre = table.premove;
  /** @type {import('../boards.js').Marks} */
  const marks = {
    selected: pre ? pre.from : table.selection.selected,
    targets: pre ? new Map(pre.to ? [[pre.to, false]] : []) : table.selection.targets(),
    last: last ? [last.from, last.to] : [], check,
    onPick: (sq) => table.pick(sq), onDrop: (sq) => table.drop(sq),
  };
  if (state.board.variant === 'xiangqi') return xiangqiBoard(state.board.fen, blackBelow(state.you, view.flip), marks, view.coords);
  if (state.board.variant === 'banqi') return banqiBoard(state.board.view, marks, view.flip);
  marks.lastBySeat = lastMovesBySeat(state.board.moves, state.board.moves.length, state.defeats ?? []);
  return sanguoBoard(state.board.position, bottomKingdom(state.you, view.flip), state.to_move, marks);
}

/**
 * Banqi: the pieces each side has lost, from the server's count, in rank order (of the ply shown).
 * @param {Table} table
 * @returns {HTMLElement | null}
 */
export function capturedNode(table) {
  if (!table.state || table.state.board.variant !== 'banqi') return null;
  const snap = table.review ? table.review.positions.positions[table.review.ply] : null;
  const pool = readPool(snap?.captured ?? table.state.board.captured);
  /** @param {'red' | 'black'} color */
  const row = (color) => h('div', { class: 'lost-row', 'data-color': color },
    h('span', { class: 'lost-label' }, t(`banqi.lost_${color}`)),
    h('span', { class: 'lost-pieces' }, ...(pool[color].length ? pool[color].map((p) => banqiPieceIcon(p, 30))
      : [h('span', { class: 'muted' }, t('banqi.none_lost'))])));
  return h('div', { class: 'card captured', id: 'captured' }, row('red'), row('black'));
}

/**
 * The step-through controls (first, previous, the ply, next, last), while stepping through.
 * @param {Table} table
 * @returns {HTMLElement | null}
 */
export function replayNode(table) {
  if (!table.review) return null;
  const r = table.review;
  // a running game: the live board is the last step
  const n = table.state && table.state.table.phase !== 'ended' ? table.state.board.moves.length : r.positions.moves.length;
  /** @param {string} id @param {string} key @param {string} path @param {number} ply @param {boolean} off */
  const button = (id, key, path, ply, off) => {
    const b = h('button', { id, class: 'step', title: t(key), 'aria-label': t(key), disabled: off, onclick: () => table.goTo(ply) });
    b.innerHTML = `<svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true"><path d="${path}" fill="currentColor"/></svg>`;
    return b;
  };
  return h('div', { class: 'replay', id: 'replay' },
    button('first', 'replay.first', 'M3 3h3v14H3zM17 3v14L7 10z', 0, r.ply === 0),
    button('prev', 'replay.prev', 'M15 3v14L5 10z', r.ply - 1, r.ply === 0),
    h('span', { class: 'ply', id: 'ply' }, r.ply === 0 ? t('replay.start') : t('replay.ply', { ply: r.ply, plies: n })),
    button('next', 'replay.next', 'M5 3v14l10-7z', r.ply + 1, r.ply === n),
    button('last', 'replay.last', 'M3 3v14l10-7zM14 3h3v14h-3z', n, r.ply === n));
}
