// The analysis board (xiangqi): the server's engine evaluates every position of a finished
// game (#/analysis/t/ID) or of a position entered as FEN (#/analysis), a page of positions at a
// time (POST /api/analysis/eval, docs/protocol.md). The page shows the board of the chosen ply,
// the evaluation bar and number (Red's view), the best line in the page's notation, and the
// move list with the evaluation after each move; a click on a move shows its position.

import { t } from './i18n.js';
import { api, ApiError } from './net.js';
import { h } from './dom.js';
import { xiangqiBoard } from './boards.js';
import { errorText } from './format.js';
import { moveEnds } from './protocol.js';
import { expose } from './testing.js';

/**
 * An evaluation from Red's view: centipawns, or a forced mate in `mate` moves (negative: Black
 * mates).
 * @typedef {{cp: number} | {mate: number}} Eval
 */
/**
 * One analysed position (`POST /api/analysis/eval`).
 * @typedef {{ply: number, fen: string, played: string | null, eval: Eval | null,
 *   line: string[], line_text: string[], depth: number, nodes: number,
 *   outcome: import('./protocol.js').Outcome | null}} PositionEval
 */

/** The usual start, shown until the first answer arrives. */
const START_FEN = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1';

/**
 * An evaluation as written: `+0.58` (pawns of 100 centipawns), `#3` (Red mates in 3),
 * `#-2` (Black mates in 2).
 * @param {Eval | null} e
 */
export function evalText(e) {
  if (!e) return '–';
  if ('mate' in e) return `#${e.mate}`;
  const pawns = (e.cp / 100).toFixed(2);
  return e.cp > 0 ? `+${pawns}` : e.cp === 0 ? '0.00' : pawns;
}

/**
 * Red's share of the evaluation bar, 0–100: half at equality, a mate fills it.
 * @param {Eval | null} e
 */
export function redShare(e) {
  if (!e) return 50;
  if ('mate' in e) return e.mate > 0 ? 100 : 0;
  return 50 + 50 * Math.tanh(e.cp / 600);
}

/**
 * @param {import('./app.js').Shell} shell
 * @param {string | null} tableId the finished table whose game is analysed, or null (a FEN)
 * @returns {{draw: () => void, leave: () => void}}
 */
export function analysisPage(shell, tableId) {
  let stopped = false;
  /** @type {string | null} the start position as FEN (null: the usual start) */
  let fen = null;
  /** @type {string[]} the game's moves, ICCS */
  let moves = [];
  /** @type {(PositionEval | null)[]} per ply, as they arrive */
  let evals = [];
  let ply = 0;
  let loading = false;
  let message = '';
  /** the notation the evaluations were asked in (asked again when the page's changes) */
  let asked = '';
  /** counts the loads, so that a late answer of an old one is dropped */
  let generation = 0;
  /** the FEN field's text, kept while the page is drawn again */
  let fenText = '';
  /** whether the game is still being fetched */
  let fetching = tableId !== null;
  /** whether the moves are the finished table's game (not a FEN entered here) */
  let fromGame = tableId !== null;

  const load = async () => {
    const mine = ++generation;
    asked = shell.session.notation;
    evals = Array(moves.length + 1).fill(null);
    loading = true;
    message = '';
    expose('analysis', { evals, ply, loading: true });
    draw();
    /** @type {number | null} */
    let from = 0;
    let busy = 0;
    while (from !== null && !stopped && mine === generation) {
      try {
        /** @type {{positions: PositionEval[], next: number | null}} */
        const answer = await api('POST', '/api/analysis/eval', { fen, moves, from, notation: asked });
        if (mine !== generation || stopped) return;
        for (const p of answer.positions) evals[p.ply] = p;
        from = answer.next;
        busy = 0;
      } catch (err) {
        if (mine !== generation || stopped) return;
        // the engine is busy with other analyses (or this address's other one): wait as long
        // as the answer's Retry-After says and ask again
        if (err instanceof ApiError && err.code === 'rate_limited' && busy < 20) {
          busy += 1;
          await new Promise((r) => setTimeout(r, 1000 * Math.min(err.retryAfterS ?? 1, 10)));
          continue;
        }
        message = errorText(err);
        break;
      }
      expose('analysis', { evals, ply, loading: from !== null });
      draw();
    }
    if (mine === generation) {
      loading = false;
      expose('analysis', { evals, ply, loading: false });
      draw();
    }
  };

  /** @param {number} p */
  const go = (p) => {
    ply = Math.max(0, Math.min(moves.length, p));
    expose('analysis', { evals, ply, loading });
    draw();
  };

  const fenForm = () => h('form', {
    class: 'fen-form', id: 'fen-form',
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      const text = fenText.trim();
      if (!text) return;
      fen = text;
      moves = [];
      ply = 0;
      fromGame = false;
      if (tableId !== null) {
        // a position of one's own: the game's link is left
        history.replaceState(null, '', '#/analysis');
      }
      load();
    },
  },
  h('label', { for: 'fen-input' }, t('analysis.fen')),
  h('div', { class: 'fen-row' },
    h('input', {
      id: 'fen-input', type: 'text', value: fenText, spellcheck: 'false', autocomplete: 'off',
      placeholder: START_FEN,
      oninput: (/** @type {Event} */ e) => { fenText = /** @type {HTMLInputElement} */ (e.target).value; },
    }),
    h('button', { id: 'fen-go', type: 'submit', class: 'primary' }, t('analysis.analyse'))));

  /**
   * A step button of the move list (as the table's step-through).
   * @param {string} id @param {string} key @param {string} path @param {number} to @param {boolean} off
   */
  const step = (id, key, path, to, off) => {
    const b = h('button', { id, class: 'step', title: t(key), 'aria-label': t(key), disabled: off, onclick: () => go(to) });
    b.innerHTML = `<svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true"><path d="${path}" fill="currentColor"/></svg>`;
    return b;
  };

  const draw = () => {
    if (stopped) return;
    if (asked && asked !== shell.session.notation && !fetching) {
      load();
      return;
    }
    const here = evals[ply] ?? null;
    const position = here?.fen ?? (ply === 0 && fen ? fen : START_FEN);
    const next = ply < moves.length ? moves[ply] : null;
    const played = ply > 0 ? moveEnds(moves[ply - 1]) : null;
    const best = here?.line[0] ? moveEnds(here.line[0]) : null;
    /** @type {import('./boards.js').Marks} */
    const marks = {
      selected: best ? best.from : null,
      targets: new Map(best ? [[best.to, false]] : []),
      last: played ? [played.from, played.to] : [],
      check: [], onPick: () => {}, onDrop: () => {},
    };
    const coords = /** @type {'iccs' | 'wxf' | 'chinese'} */ (shell.session.notation);
    const share = redShare(here?.eval ?? null);
    const bar = h('div', { class: 'eval-bar', id: 'eval-bar', role: 'img', 'aria-label': t('analysis.eval_bar') },
      h('div', { class: 'eval-red', style: `width:${share.toFixed(1)}%` }));
    const rows = [];
    for (let i = 0; i < moves.length; i += 2) {
      /** @param {number} p */
      const cell = (p) => {
        if (p > moves.length) return h('span');
        const e = evals[p];
        return h('button', {
          type: 'button', class: `amv${p === ply ? ' current' : ''}`, 'data-ply': String(p),
          onclick: () => go(p),
        }, h('span', { class: 'amv-text' }, e?.played ?? moves[p - 1]),
        h('span', { class: 'amv-eval' }, e ? (e.outcome ? t('analysis.over') : evalText(e.eval)) : '…'));
      };
      rows.push(h('li', {}, h('span', { class: 'num' }, `${i / 2 + 1}.`), cell(i + 1), cell(i + 2)));
    }
    const total = moves.length + 1;
    const done = evals.filter((e) => e !== null).length;
    const lineText = here && here.line_text.length ? here.line_text.join(' ') : '';
    const source = fromGame
      ? h('p', { class: 'muted', id: 'analysis-source' }, t('analysis.of_game'), ' ',
        h('a', { href: `#/t/${tableId}`, id: 'analysis-table' }, tableId))
      : h('p', { class: 'muted', id: 'analysis-source' }, fen ? t('analysis.of_fen') : t('analysis.of_start'));
    shell.show(h('main', { class: 'table-page analysis-page', 'data-variant': 'xiangqi', 'data-page': 'analysis' },
      h('div', { class: 'board-col' },
        bar,
        h('div', { class: 'board-wrap', id: 'board-wrap' }, xiangqiBoard(position, false, marks, coords)),
        moves.length ? h('div', { class: 'replay', id: 'replay' },
          step('a-first', 'replay.first', 'M3 3h3v14H3zM17 3v14L7 10z', 0, ply === 0),
          step('a-prev', 'replay.prev', 'M15 3v14L5 10z', ply - 1, ply === 0),
          h('span', { class: 'ply', id: 'a-ply' }, ply === 0 ? t('replay.start') : t('replay.ply', { ply, plies: moves.length })),
          step('a-next', 'replay.next', 'M5 3v14l10-7z', ply + 1, next === null),
          step('a-last', 'replay.last', 'M3 3v14l10-7zM14 3h3v14h-3z', moves.length, ply === moves.length)) : null),
      h('aside', { class: 'side-col' },
        h('h2', {}, t('analysis.title')),
        source,
        h('div', { class: 'eval-panel card' },
          h('div', { class: 'eval-number', id: 'eval' }, here ? (here.outcome ? t('analysis.over') : evalText(here.eval)) : '…'),
          h('div', { class: 'eval-detail' },
            h('div', { class: 'best-line' }, h('strong', {}, t('analysis.best_line')), ' ',
              h('span', { id: 'best-line' }, lineText || (here?.outcome ? t('analysis.over') : '…'))),
            here && !here.outcome ? h('div', { class: 'muted fine', id: 'eval-depth' },
              t('analysis.depth', { depth: String(here.depth), nodes: here.nodes.toLocaleString() })) : null)),
        loading ? h('p', { class: 'muted', id: 'analysis-progress', role: 'status' }, t('analysis.progress', { done: String(done), total: String(total) })) : null,
        message ? h('p', { class: 'error', role: 'alert', id: 'analysis-error' }, message) : null,
        moves.length ? h('section', { class: 'card moves-card' }, h('h3', {}, t('table.moves')),
          h('ol', { class: 'moves per-2 analysis-moves', id: 'analysis-moves' }, ...rows)) : null,
        h('div', { class: 'card' }, fenForm(),
          h('p', { class: 'muted fine' }, t('analysis.limits'))))), `${t('analysis.title')} · chuhe`);
  };

  (async () => {
    if (tableId === null) {
      load();
      return;
    }
    try {
      /** @type {import('./protocol.js').Positions} */
      const game = await api('GET', `/api/tables/${encodeURIComponent(tableId)}/positions`);
      if (stopped) return;
      if (game.variant !== 'xiangqi') {
        fetching = false;
        message = t('analysis.xiangqi_only');
        draw();
        return;
      }
      moves = game.moves;
      const first = game.positions[0]?.position;
      fen = first && first !== START_FEN ? first : null;
      ply = moves.length;
      fetching = false;
      load();
      // the start's FEN was the game's: the source stays the game
      if (fen === null) draw();
    } catch (err) {
      fetching = false;
      message = errorText(err);
      draw();
    }
  })();
  draw();
  return { draw, leave: () => { stopped = true; } };
}
