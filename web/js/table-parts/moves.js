// The table page's move list: one row per round and one column per seat (a defeated kingdom's
// column stays empty, and the words of its defeat follow the round), the move shown marked; a
// click on a move shows the board after it.

import { t } from '../i18n.js';
import { h } from '../dom.js';
import { seatLabel } from '../format.js';
import { blackToMove } from '../protocol.js';

/** @typedef {import('../protocol.js').Defeat} Defeat */

/**
 * One line of the move list: a round with the ply of each seat's move (`null`: no move in that
 * column), or the defeat that followed it.
 * @typedef {{round: number, plies: (number | null)[]} | {defeat: Defeat}} MoveRow
 */

/**
 * The words of a defeat: who fell, why, who took the army.
 * @param {Defeat} d
 * @returns {string}
 */
export function defeatText(d) {
  return t('table.defeat_line', {
    seat: seatLabel('sanguo', d.seat), reason: t(`defeat.${d.reason}`), heir: seatLabel('sanguo', d.heir),
  });
}

/**
 * The lines of the move list of a game of `count` moves (plies 1 to `count`) among `per` seats:
 * the first seat starts, each move goes in its seat's column, and after a ply that defeated a seat
 * the round ends, the defeats follow, and the defeated seats lose their turns. `first` is the
 * seat that moves first (xiangqi from a set-up position with Black to move: 1, and the first
 * round's Red cell is empty).
 * @param {number} count
 * @param {number} per
 * @param {Defeat[]} defeats
 * @param {number} [first]
 * @returns {MoveRow[]}
 */
export function moveRows(count, per, defeats, first = 0) {
  /** @type {MoveRow[]} */
  const rows = [];
  /** @type {(number | null)[]} */
  let row = [];
  let round = 0;
  const flush = () => {
    if (row.length === 0) return;
    round += 1;
    rows.push({ round, plies: row });
    row = [];
  };
  const out = new Set(/** @type {number[]} */ ([]));
  let seat = first;
  for (let ply = 1; ply <= count; ply++) {
    if (seat < row.length) flush();
    while (row.length < seat) row.push(null);
    row.push(ply);
    const fell = defeats.filter((d) => d.ply === ply);
    for (const d of fell) out.add(d.seat);
    // the next seat in turn order that still plays
    let next = (seat + 1) % per;
    while (out.has(next) && out.size < per) next = (next + 1) % per;
    if (fell.length) {
      flush();
      for (const d of fell) rows.push({ defeat: d });
    }
    seat = next;
  }
  flush();
  return rows;
}

/**
 * The move list of `table` in the session's notation, the move shown (the step-through's ply, else
 * the last) marked `current`.
 * @param {import('../table.js').Table} table
 * @param {string} notation
 * @returns {HTMLElement}
 */
export function movesNode(table, notation) {
  if (!table.state) return h('div');
  const moves = table.movesIn(notation);
  const per = table.state.table.seats.length;
  const current = table.review ? table.review.ply : moves.length;
  /** @param {number} ply */
  const cell = (ply) => h('span', {
    class: `mv${ply === current ? ' current' : ''}`, 'data-ply': ply,
    onclick: () => table.browse(ply),
  }, moves[ply - 1]);
  // a xiangqi game from a set-up position may start with Black's move
  const fen = table.state.table.options.fen;
  const first = fen && blackToMove(fen) ? 1 : 0;
  const rows = moveRows(moves.length, per, table.state.defeats ?? [], first).map((r) => ('defeat' in r
    ? h('li', { class: 'defeat-line', 'data-defeat': r.defeat.seat }, defeatText(r.defeat))
    : h('li', { 'data-round': r.round }, h('span', { class: 'no' }, `${r.round}.`),
      ...r.plies.map((ply) => (ply === null ? h('span', { class: 'mv-empty' }) : cell(ply))))));
  const list = h('ol', { class: `moves per-${per}`, id: 'moves' }, ...rows);
  return h('section', { class: 'card moves-card' }, h('h3', {}, t('table.moves')), list);
}

/**
 * Scrolls the shown move list: the move shown in the middle while stepping through, else the
 * end.
 * @param {boolean} reviewing
 */
export function scrollMoves(reviewing) {
  const list = document.getElementById('moves');
  const current = list?.querySelector('.mv.current');
  if (list && current && reviewing) {
    const li = /** @type {HTMLElement} */ (current.parentElement);
    list.scrollTop = li.offsetTop - list.clientHeight / 2;
  } else if (list) list.scrollTop = list.scrollHeight;
}
