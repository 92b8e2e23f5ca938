// The puzzle page (#/puzzle, #/puzzle/ID, #/puzzle/daily; docs/puzzles.md, docs/web.md): the
// position before the opponent's last move is shown, that move is played (animated), and the
// player finds the line of the solution on the table page's board; the opponent's replies are
// played by the page. A wrong move says so: the player may try again or view the solution. A
// hint lights the piece to move. The first result is posted (POST /api/puzzle/ID/result) and the
// rating change shown; "next puzzle" asks GET /api/puzzle/next, by theme when one is chosen.
// No rule lives here: the legal moves and the positions come from POST /api/analysis.

import { t } from './i18n.js';
import { api, ApiError } from './net.js';
import { h } from './dom.js';
import { xiangqiBoard } from './boards.js';
import { errorText } from './format.js';
import { blackToMove, moveEnds } from './protocol.js';
import { Selection } from './select.js';
import { expose } from './testing.js';

/** The themes the filter offers (the generator's keys, docs/puzzles.md). */
export const PUZZLE_THEMES = ['mateIn1', 'mateIn2', 'mateIn3', 'mateIn4', 'advantage', 'crushing',
  'sacrifice', 'fork', 'discoveredCheck', 'doubleCheck', 'cannonScreen', 'flyingGeneral', 'endgame'];

/** How long the opponent's moves take to start, and to slide, in milliseconds. */
const REPLY_DELAY_MS = 500;
const SLIDE_MS = 350;

/**
 * A puzzle as the server answers it (GET /api/puzzle/...).
 * @typedef {{game: {id: string, fen: string, lastMove: string, ply: number},
 *   puzzle: {id: string, rating: number, plays: number, solution: string[], themes: string[],
 *   initialPly: number, fen: string, lastMove: string},
 *   user?: {id: string, rating: number, deviation: number, plays: number}}} PuzzleAndGame
 */

/**
 * The name of a theme in the page's language (its key when the catalogue has none).
 * @param {string} key
 */
export function themeName(key) {
  const text = t(`puzzle.theme.${key}`);
  return text === `puzzle.theme.${key}` ? key : text;
}

/**
 * A rating change as shown: `+12`, `−7`, `±0`.
 * @param {number} diff
 */
export function diffText(diff) {
  if (diff > 0) return `+${diff}`;
  if (diff < 0) return `−${-diff}`;
  return '±0';
}

/**
 * Slides the piece now on `to` from where `from` is drawn (the board was just drawn after the
 * move): its group starts shifted back and moves to its point.
 * @param {Element} board
 * @param {string} from
 * @param {string} to
 */
function slide(board, from, to) {
  const piece = /** @type {SVGGElement | null} */ (board.querySelector(`g.piece[data-at="${to}"]`));
  const a = board.querySelector(`circle.hit[data-square="${from}"]`);
  const b = board.querySelector(`circle.hit[data-square="${to}"]`);
  if (!piece || !a || !b) return;
  const dx = Number(a.getAttribute('cx')) - Number(b.getAttribute('cx'));
  const dy = Number(a.getAttribute('cy')) - Number(b.getAttribute('cy'));
  if (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return;
  piece.style.transform = `translate(${dx}px, ${dy}px)`;
  piece.style.transition = 'none';
  // the next frame: the transition runs from the old point to the new one
  requestAnimationFrame(() => requestAnimationFrame(() => {
    piece.style.transition = `transform ${SLIDE_MS}ms ease-out`;
    piece.style.transform = 'translate(0px, 0px)';
  }));
}

/**
 * The puzzle page.
 * @param {import('./app.js').Shell} shell
 * @param {string | null} id the puzzle to show; `daily` the daily one; null the next one
 * @returns {{draw: () => void, leave: () => void}}
 */
export function puzzlePage(shell, id) {
  let stopped = false;
  /** @type {PuzzleAndGame | null} */
  let p = null;
  /** @type {'loading' | 'intro' | 'play' | 'reply' | 'wrong' | 'solved' | 'failed' | 'error'} */
  let phase = 'loading';
  let fen = '';
  /** @type {string[]} the last move's ends */
  let last = [];
  /** the index in the solution of the next move */
  let step = 0;
  /** whether a wrong move was made or the solution viewed (the result is then a loss) */
  let missed = false;
  let posted = false;
  let message = '';
  /** @type {{rating: number, diff: number, rated: boolean} | null} */
  let outcome = null;
  /** the move to animate once drawn */
  /** @type {[string, string] | null} */
  let animate = null;
  let theme = '';
  try { theme = localStorage.getItem('chuhe.puzzle.theme') ?? ''; } catch { /* storage disabled */ }
  if (!PUZZLE_THEMES.includes(theme)) theme = '';
  const selection = new Selection({ toggle: true });
  /** @type {string[]} squares in check */
  let check = [];
  /** counts the puzzles loaded, so that late answers of an old one are dropped */
  let generation = 0;

  const tell = () => expose('puzzle', { id: p?.puzzle.id ?? null, phase, step, fen, solution: p?.puzzle.solution ?? [], outcome });

  /**
   * What the rules say after `moves` from the puzzle's position.
   * @param {string[]} moves
   */
  const analyse = async (moves) => api('POST', '/api/analysis', { variant: 'xiangqi', position: p?.puzzle.fen, moves });

  /** Asks for the legal moves of the position reached (the player's turn). */
  const refresh = async () => {
    const mine = generation;
    const a = await analyse(/** @type {PuzzleAndGame} */ (p).puzzle.solution.slice(0, step));
    if (mine !== generation || stopped) return;
    fen = a.board.fen;
    check = a.check;
    selection.setMoves(a.legal_moves, a.capture_moves);
  };

  /** Posts the first result (signed in only), then shows the rating change. */
  const post = async () => {
    if (posted || !p || !shell.session.me) return;
    posted = true;
    const mine = generation;
    try {
      const r = await api('POST', `/api/puzzle/${encodeURIComponent(p.puzzle.id)}/result`, { win: !missed });
      if (mine !== generation || stopped) return;
      outcome = { rating: Math.round(r.player.rating), diff: r.player.ratingDiff, rated: r.rated };
      // the panel shows the ratings after the result
      if (p.user) p.user = { ...p.user, rating: outcome.rating };
      p.puzzle = { ...p.puzzle, rating: Math.round(r.puzzle.rating), plays: r.plays };
    } catch (err) {
      if (mine !== generation) return;
      message = errorText(err);
    }
    tell();
    draw();
  };

  /** Plays the opponent's reply of the solution, if any, then hands the turn back. */
  const reply = async () => {
    if (!p) return;
    const mine = generation;
    phase = 'reply';
    draw();
    await new Promise((r) => setTimeout(r, REPLY_DELAY_MS));
    if (mine !== generation || stopped) return;
    const mv = p.puzzle.solution[step];
    const a = await analyse(p.puzzle.solution.slice(0, step + 1));
    if (mine !== generation || stopped) return;
    step += 1;
    fen = a.board.fen;
    check = a.check;
    const ends = moveEnds(mv);
    last = [ends.from, ends.to];
    animate = [ends.from, ends.to];
    selection.setMoves(a.legal_moves, a.capture_moves);
    phase = 'play';
    tell();
    draw();
  };

  /**
   * The player chose `mv`.
   * @param {string} mv
   */
  const played = async (mv) => {
    if (!p || phase !== 'play') return;
    const mine = generation;
    const expected = p.puzzle.solution[step];
    const ends = moveEnds(mv);
    let a;
    try {
      a = await analyse([...p.puzzle.solution.slice(0, step), mv]);
    } catch (err) {
      message = errorText(err);
      draw();
      return;
    }
    if (mine !== generation || stopped) return;
    // another move that mates at once solves it too
    const mates = a.outcome && a.outcome.winners.length === 1 && a.outcome.winners[0] === (blackToMove(fen) ? 'black' : 'red');
    if (mv !== expected && !mates) {
      missed = true;
      phase = 'wrong';
      tell();
      draw();
      post();
      return;
    }
    fen = a.board.fen;
    check = a.check;
    last = [ends.from, ends.to];
    step += 1;
    if (step >= p.puzzle.solution.length || mates) {
      phase = missed ? 'failed' : 'solved';
      step = p.puzzle.solution.length;
      selection.setMoves([]);
      tell();
      draw();
      post();
      return;
    }
    tell();
    await reply();
  };

  /** Plays the rest of the solution, one move at a time. */
  const viewSolution = async () => {
    if (!p) return;
    const mine = generation;
    missed = true;
    post();
    phase = 'reply';
    selection.setMoves([]);
    draw();
    while (step < p.puzzle.solution.length) {
      await new Promise((r) => setTimeout(r, REPLY_DELAY_MS));
      if (mine !== generation || stopped) return;
      const a = await analyse(p.puzzle.solution.slice(0, step + 1));
      if (mine !== generation || stopped) return;
      const ends = moveEnds(p.puzzle.solution[step]);
      step += 1;
      fen = a.board.fen;
      check = a.check;
      last = [ends.from, ends.to];
      animate = [ends.from, ends.to];
      draw();
    }
    phase = 'failed';
    tell();
    draw();
  };

  /** Back to the position before the wrong move. */
  const retry = () => {
    phase = 'play';
    selection.select(null);
    tell();
    draw();
  };

  /** Lights the piece the solution moves next, with its moves. */
  const hint = () => {
    if (!p || phase !== 'play') return;
    selection.select(moveEnds(p.puzzle.solution[step]).from);
    draw();
  };

  /**
   * Shows `puzzle`: the position before the opponent's move, then that move.
   * @param {PuzzleAndGame} puzzle
   */
  const begin = async (puzzle) => {
    const mine = ++generation;
    p = puzzle;
    step = 0;
    missed = false;
    posted = false;
    outcome = null;
    message = '';
    check = [];
    fen = puzzle.game.fen;
    last = [];
    selection.setMoves([]);
    phase = 'intro';
    tell();
    draw();
    await new Promise((r) => setTimeout(r, REPLY_DELAY_MS));
    if (mine !== generation || stopped) return;
    try {
      await refresh();
    } catch (err) {
      if (mine !== generation) return;
      phase = 'error';
      message = errorText(err);
      draw();
      return;
    }
    if (mine !== generation || stopped) return;
    const ends = moveEnds(puzzle.game.lastMove);
    last = [ends.from, ends.to];
    animate = [ends.from, ends.to];
    phase = 'play';
    tell();
    draw();
  };

  /**
   * Loads a puzzle: `which` an id, `daily`, or null for the next one (by the chosen theme).
   * @param {string | null} which
   */
  const load = async (which) => {
    const mine = ++generation;
    phase = 'loading';
    message = '';
    p = null;
    tell();
    draw();
    try {
      const path = which === 'daily' ? '/api/puzzle/daily'
        : which ? `/api/puzzle/${encodeURIComponent(which)}`
          : `/api/puzzle/next${theme ? `?angle=${encodeURIComponent(theme)}` : ''}`;
      /** @type {PuzzleAndGame} */
      const answer = await api('GET', path);
      if (mine !== generation || stopped) return;
      if (which === null) history.replaceState(null, '', `#/puzzle/${answer.puzzle.id}`);
      begin(answer);
    } catch (err) {
      if (mine !== generation || stopped) return;
      phase = 'error';
      message = err instanceof ApiError && err.status === 404 ? t('puzzle.none') : errorText(err);
      tell();
      draw();
    }
  };

  const draw = () => {
    if (stopped) return;
    const flipped = p ? blackToMove(p.puzzle.fen) : false;
    const mySide = flipped ? 'black' : 'red';
    /** @type {import('./boards.js').Marks} */
    const marks = {
      selected: phase === 'play' ? selection.selected : null,
      targets: phase === 'play' ? selection.targets() : new Map(),
      last, check,
      onPick: (sq) => {
        if (phase !== 'play') return;
        const mv = selection.pick(sq);
        if (mv) played(mv);
        else draw();
      },
      onDrop: (sq) => {
        if (phase !== 'play') return;
        const mv = selection.drop(sq);
        if (mv) played(mv);
      },
    };
    const coords = /** @type {'iccs' | 'wxf' | 'chinese'} */ (shell.session.notation);
    const board = xiangqiBoard(fen || '9/9/9/9/9/9/9/9/9/9 w - - 0 1', flipped, marks, coords);
    if (animate) {
      const [from, to] = animate;
      animate = null;
      requestAnimationFrame(() => slide(board, from, to));
    }
    const status = {
      loading: t('puzzle.loading'),
      intro: t('puzzle.watch'),
      play: step === 0 ? t(`puzzle.find_${mySide}`) : t('puzzle.keep_going'),
      reply: t('puzzle.watch'),
      wrong: t('puzzle.wrong'),
      solved: t('puzzle.solved'),
      failed: t('puzzle.failed'),
      error: message,
    }[phase];
    const statusClass = phase === 'wrong' || phase === 'error' ? 'error' : phase === 'solved' ? 'success' : '';
    const done = phase === 'solved' || phase === 'failed';
    const themeSelect = h('select', {
      id: 'puzzle-theme', 'aria-label': t('puzzle.theme'),
      onchange: (/** @type {Event} */ e) => {
        theme = /** @type {HTMLSelectElement} */ (e.target).value;
        try { localStorage.setItem('chuhe.puzzle.theme', theme); } catch { /* storage disabled */ }
        load(null);
      },
    }, h('option', { value: '', selected: theme === '' }, t('puzzle.any_theme')),
    ...PUZZLE_THEMES.map((k) => h('option', { value: k, selected: k === theme }, themeName(k))));
    const info = p ? h('div', { class: 'card puzzle-info', id: 'puzzle-info' },
      h('div', {}, h('strong', {}, t('puzzle.rating')), ' ', h('span', { id: 'puzzle-rating' }, String(p.puzzle.rating)),
        ' · ', t('puzzle.plays', { n: String(p.puzzle.plays) })),
      h('div', { class: 'puzzle-themes' }, ...p.puzzle.themes.map((k) => h('span', { class: 'theme-tag' }, themeName(k)))),
      h('div', { class: 'muted fine' }, t('puzzle.from_game', { game: p.game.id, ply: String(p.puzzle.initialPly + 1) })),
      p.user ? h('div', { class: 'muted fine', id: 'my-puzzle-rating' }, t('puzzle.your_rating', { rating: String(p.user.rating) })) : null)
      : null;
    const result = outcome ? h('p', { class: `rating-change ${outcome.diff >= 0 ? 'up' : 'down'}`, id: 'rating-change' },
      outcome.rated ? t('puzzle.rating_now', { rating: String(outcome.rating), diff: diffText(outcome.diff) })
        : t('puzzle.not_rated', { rating: String(outcome.rating) }))
      : done && !shell.session.me ? h('p', { class: 'muted', id: 'rating-change' }, t('puzzle.sign_in')) : null;
    const buttons = h('div', { class: 'puzzle-buttons' },
      phase === 'play' ? h('button', { id: 'puzzle-hint', type: 'button', onclick: hint }, t('puzzle.hint')) : null,
      phase === 'play' || phase === 'wrong' ? h('button', { id: 'puzzle-solution', type: 'button', onclick: viewSolution }, t('puzzle.view_solution')) : null,
      phase === 'wrong' ? h('button', { id: 'puzzle-retry', type: 'button', class: 'primary', onclick: retry }, t('puzzle.retry')) : null,
      done || phase === 'error' ? h('button', { id: 'puzzle-next', type: 'button', class: 'primary', onclick: () => load(null) }, t('puzzle.next')) : null);
    shell.show(h('main', { class: 'table-page puzzle-page', 'data-variant': 'xiangqi', 'data-page': 'puzzle' },
      h('div', { class: 'board-col' }, h('div', { class: 'board-wrap', id: 'board-wrap' }, board)),
      h('aside', { class: 'side-col' },
        h('h2', {}, id === 'daily' ? t('puzzle.daily') : t('puzzle.title')),
        h('p', { class: `puzzle-status ${statusClass}`, id: 'puzzle-status', role: 'status', 'data-phase': phase }, status),
        buttons,
        result,
        phase !== 'error' && message ? h('p', { class: 'error', role: 'alert' }, message) : null,
        info,
        h('div', { class: 'card' }, h('label', { class: 'theme-filter' }, h('span', {}, t('puzzle.theme')), ' ', themeSelect),
          h('p', { class: 'muted fine' }, t('puzzle.about'))))), `${t('puzzle.title')} · chuhe`);
  };

  load(id);
  return { draw, leave: () => { stopped = true; generation += 1; } };
}

/**
 * The lobby's card of the daily puzzle: its board (small, not played on), rating and themes,
 * and a link to solve it; nothing when the server has no puzzles.
 * @param {PuzzleAndGame | null} daily
 */
export function dailyCard(daily) {
  if (!daily) return null;
  const flipped = blackToMove(daily.puzzle.fen);
  const ends = moveEnds(daily.puzzle.lastMove);
  /** @type {import('./boards.js').Marks} */
  const marks = { selected: null, targets: new Map(), last: [ends.from, ends.to], check: [], onPick: () => { location.hash = '#/puzzle/daily'; }, onDrop: () => {} };
  return h('section', { class: 'card daily-puzzle', id: 'daily-puzzle' },
    h('h2', {}, t('puzzle.daily')),
    h('a', { href: '#/puzzle/daily', class: 'daily-board', 'aria-label': t('puzzle.solve_daily') }, xiangqiBoard(daily.puzzle.fen, flipped, marks, null)),
    h('p', {}, t(`puzzle.find_${flipped ? 'black' : 'red'}`), ' · ', t('puzzle.rating'), ' ', String(daily.puzzle.rating)),
    h('p', {}, h('a', { href: '#/puzzle/daily', id: 'daily-link', class: 'button primary' }, t('puzzle.solve_daily')), ' ',
      h('a', { href: '#/puzzle', id: 'more-puzzles' }, t('puzzle.more'))));
}
