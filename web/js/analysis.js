// The analysis board: the server's engine evaluates every position of a table's game
// (#/analysis/t/ID, xiangqi, sanguo or banqi) or of a xiangqi position entered as FEN
// (#/analysis), a page of positions at a time (POST /api/analysis/eval, docs/protocol.md). The
// page shows the board of the chosen ply, the evaluation (xiangqi and banqi: bar and number from
// Red's view; sanguo: each kingdom's own, in its colour), the best line (banqi: the best turn),
// and the move list with the evaluation after each move; a click on a move shows its position.
// Banqi is analysed from the public view only: a toggle shows on each face-down square the most
// likely piece, and a table the chances of every piece still face down.

import { t } from './i18n.js';
import { api, ApiError } from './net.js';
import { h } from './dom.js';
import { xiangqiBoard, sanguoBoard, banqiBoard, banqiPieceIcon, KINGDOM_COLORS } from './boards.js';
import { errorText } from './format.js';
import { moveEnds, readXiangqiFen, readSanguoPosition, readBanqiView } from './protocol.js';
import { expose } from './testing.js';

/**
 * An evaluation from Red's view: centipawns, or a forced mate in `mate` moves (negative: Black
 * mates).
 * @typedef {{cp: number} | {mate: number}} Eval
 */
/**
 * One kingdom's evaluation of a sanguo position, from its own view (`null` once defeated).
 * @typedef {{kingdom: string, eval: Eval | null, depth: number}} KingdomEval
 */
/**
 * The chances of banqi's face-down squares: each piece still face down, most likely first.
 * @typedef {{squares: string[], pieces: {piece: string, count: number, probability: number}[]}} FaceDown
 */
/**
 * One analysed position (`POST /api/analysis/eval`).
 * @typedef {{ply: number, fen: string, played: string | null, eval: Eval | null,
 *   line: string[], line_text: string[], depth: number, nodes: number,
 *   outcome: import('./protocol.js').Outcome | null, kingdoms?: KingdomEval[],
 *   face_down?: FaceDown}} PositionEval
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

/** The empty board, shown while a refused position's analysis is cleared. */
const EMPTY_FEN = '9/9/9/9/9/9/9/9/9/9 w - - 0 1';

/**
 * The mover's winning chances in [-1, 1] of an evaluation from Red's view, as lichess computes
 * them (docs/web.md, "Analysis board"): centipawns clamped to ±1000 and put through
 * 2 / (1 + e^(-0.00368208·cp)) − 1; a mate in m counts as (21 − min(10, |m|))·100 centipawns for
 * the mating side.
 * @param {Eval} e
 */
export function winningChances(e) {
  const cp = 'mate' in e
    ? (21 - Math.min(10, Math.abs(e.mate))) * 100 * (e.mate > 0 ? 1 : e.mate < 0 ? -1 : 0)
    : Math.max(-1000, Math.min(1000, e.cp));
  return 2 / (1 + Math.exp(-0.00368208 * cp)) - 1;
}

/** @typedef {'inaccuracy' | 'mistake' | 'blunder'} Judgement */

/**
 * How bad a move was, by the drop of the mover's winning chances ([winningChances]) from the
 * position before it to the position after it (lichess's rule): a drop of 0.3 or more is a
 * blunder, 0.2 a mistake, 0.1 an inaccuracy; `null` for a good move.
 * @param {Eval} before Red's view, before the move
 * @param {Eval} after Red's view, after the move
 * @param {boolean} redMoved
 * @returns {Judgement | null}
 */
export function judgeMove(before, after, redMoved) {
  const drop = (winningChances(before) - winningChances(after)) * (redMoved ? 1 : -1);
  // a hair of rounding never turns a drop of exactly 0.1 into a good move
  const d = Math.round(drop * 1e9) / 1e9;
  if (d >= 0.3) return 'blunder';
  if (d >= 0.2) return 'mistake';
  if (d >= 0.1) return 'inaccuracy';
  return null;
}

/** The move marks of the list, as annotations are written. */
export const JUDGEMENT_GLYPHS = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/**
 * The evaluation of a sanguo position in the move list: the one of the kingdom that just moved
 * (its letter starts the move, `R` Shu, `G` Wu, `B` Wei), from its own view.
 * @param {PositionEval | null | undefined} e
 */
export function sanguoCellText(e) {
  if (!e) return '…';
  if (e.outcome) return t('analysis.over');
  const k = 'RGB'.indexOf(e.played?.[0] ?? '');
  const mine = k >= 0 ? e.kingdoms?.[k]?.eval ?? null : null;
  return evalText(mine);
}

/**
 * A banqi best turn in the page's words: `flip c2` as "Voltear c2"; a move as it is.
 * @param {string} text
 */
export function banqiMoveText(text) {
  const flip = /^flip ([a-h][1-4])$/.exec(text);
  return flip ? t('analysis.flip', { square: flip[1] }) : text;
}

/**
 * The chances of a banqi view's face-down squares as the board's labels: on each face-down
 * square the most likely piece and its chance in whole percent (the same on every square: the
 * view allows no more than the pool spread evenly).
 * @param {FaceDown | undefined} down
 * @returns {Map<string, {piece: string, text: string, title: string}>}
 */
export function chanceLabels(down) {
  /** @type {Map<string, {piece: string, text: string, title: string}>} */
  const out = new Map();
  if (!down || !down.pieces.length) return out;
  const top = down.pieces[0];
  const title = down.pieces.map((c) => `${pieceName(c.piece)} ${percent(c.probability)}`).join(' · ');
  for (const sq of down.squares) out.set(sq, { piece: top.piece, text: percent(top.probability), title: `${sq}: ${title}` });
  return out;
}

/**
 * A chance in whole percent (`50%`); under 1% but not 0 as `<1%`.
 * @param {number} p
 */
export function percent(p) {
  if (p > 0 && p < 0.005) return '<1%';
  return `${Math.round(p * 100)}%`;
}

/**
 * A banqi piece in words in the page's language (`Soldado rojo`).
 * @param {string} letter
 */
export function pieceName(letter) {
  const red = letter === letter.toUpperCase();
  return t(`analysis.piece.${letter.toUpperCase()}`, { color: t(red ? 'analysis.red' : 'analysis.black') });
}

/**
 * The evaluation of an analysed position from Red's view for the graph and the judgements: the
 * engine's, or for an ended game a mate for the winner (0 for a draw).
 * @param {PositionEval | null} p
 * @returns {Eval | null}
 */
export function redEval(p) {
  if (!p) return null;
  if (p.eval) return p.eval;
  if (!p.outcome) return null;
  const w = p.outcome.winners;
  if (w.length === 1) return { mate: w[0] === 'red' ? 1 : -1 };
  return { cp: 0 };
}

/**
 * The judgement of the move that led to ply `p` (1…), or null when it was good or is not yet
 * evaluated.
 * @param {(PositionEval | null)[]} evals
 * @param {number} p
 * @returns {Judgement | null}
 */
export function judgementAt(evals, p) {
  const before = evals[p - 1] ?? null;
  const a = redEval(before);
  const b = redEval(evals[p] ?? null);
  if (!before || !a || !b) return null;
  // a banqi flip (`c2=R`) is not judged: what it revealed was chance, not the mover's choice
  if (/=/.test(evals[p]?.played ?? '')) return null;
  // xiangqi `w`/`b`, banqi `r`/`b`/`-` (before the first flip no colour is known: no judgement)
  const turn = before.fen.split(/\s+/)[1];
  if (turn === '-') return null;
  const redMoved = turn !== 'b';
  return judgeMove(a, b, redMoved);
}

/**
 * The words of a refused FEN in the page's language, from the server's message (`fen: bad FEN:
 * bad-rank-count: …`, `fen: invalid position: general-count (…); also generals-facing`): each
 * rule it breaks, in the rules' order; `null` for a message that is not about the FEN.
 * @param {string} message
 * @returns {string | null}
 */
export function fenErrorText(message) {
  const syntax = /^(?:bad message: )?(?:fen|position): bad FEN: ([a-z-]+)/.exec(message);
  if (syntax) {
    const key = `fen.${syntax[1]}`;
    return t('fen.syntax', { why: t(key) === key ? t('fen.unreadable') : t(key) });
  }
  const invalid = /^(?:bad message: )?(?:fen|position): invalid position: ([a-z-]+)/.exec(message);
  if (invalid) {
    const also = /; also (.*)$/.exec(message);
    const kinds = [invalid[1], ...(also ? also[1].split(/,\s*/) : [])];
    const words = kinds.map((k) => (t(`fen.${k}`) === `fen.${k}` ? null : t(`fen.${k}`))).filter((w) => w !== null);
    return t('fen.invalid', { why: words.length ? words.join('; ') : t('fen.unreadable') });
  }
  if (/^(?:bad message: )?(?:fen|position): /.test(message)) return t('fen.syntax', { why: t('fen.unreadable') });
  return null;
}

/**
 * The evaluation graph over the game: Red's winning chances ([winningChances], so clamped to the
 * band) after each ply, Red above the middle line, the shown ply marked by a line; a click goes
 * to the nearest ply.
 * @param {(PositionEval | null)[]} evals
 * @param {number} ply
 * @param {(ply: number) => void} go
 */
export function evalGraph(evals, ply, go) {
  const W = 600;
  const H = 100;
  const n = Math.max(1, evals.length - 1);
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('class', 'eval-graph');
  svg.setAttribute('id', 'eval-graph');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('analysis.graph'));
  /** @param {string} name @param {Record<string, string | number>} attrs */
  const add = (name, attrs) => {
    const e = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    svg.append(e);
    return e;
  };
  add('rect', { x: 0, y: 0, width: W, height: H, class: 'graph-bg' });
  /** @type {[number, number][]} */
  const points = [];
  evals.forEach((p, i) => {
    const e = redEval(p);
    if (e) points.push([(i / n) * W, H / 2 - (winningChances(e) * H) / 2]);
  });
  if (points.length) {
    const line = points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
    const first = points[0][0].toFixed(1);
    const last = points[points.length - 1][0].toFixed(1);
    add('polygon', { points: `${first},${H / 2} ${line} ${last},${H / 2}`, class: 'graph-area' });
    add('polyline', { points: line, class: 'graph-line', fill: 'none' });
  }
  add('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'graph-mid' });
  const x = (ply / n) * W;
  add('line', { x1: x, y1: 0, x2: x, y2: H, class: 'graph-ply', id: 'graph-ply', 'data-ply': ply });
  evals.forEach((_, i) => {
    const j = i > 0 ? judgementAt(evals, i) : null;
    if (j === 'mistake' || j === 'blunder') {
      const e = redEval(evals[i]);
      if (e) add('circle', { cx: (i / n) * W, cy: H / 2 - (winningChances(e) * H) / 2, r: 4, class: `graph-${j}` });
    }
  });
  svg.addEventListener('click', (ev) => {
    const box = svg.getBoundingClientRect();
    if (box.width <= 0) return;
    const share = Math.max(0, Math.min(1, (ev.clientX - box.left) / box.width));
    go(Math.round(share * n));
  });
  return svg;
}

/**
 * @param {import('./app.js').Shell} shell
 * @param {string | null} tableId the finished table whose game is analysed, or null (a FEN)
 * @param {string | null} [startFen] a position to analyse first (the board editor's), or null
 * @returns {{draw: () => void, leave: () => void}}
 */
export function analysisPage(shell, tableId, startFen = null) {
  let stopped = false;
  /** @type {string | null} the start position as FEN (null: the usual start) */
  let fen = tableId === null ? startFen : null;
  /** whether the server refused the entered FEN: its analysis is cleared and the board empty */
  let refused = false;
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
  let fenText = fen ?? '';
  /** whether the game is still being fetched */
  let fetching = tableId !== null;
  /** whether the moves are the finished table's game (not a FEN entered here) */
  let fromGame = tableId !== null;
  /** @type {'xiangqi' | 'sanguo' | 'banqi'} the game analysed (a FEN entered here: xiangqi) */
  let variant = 'xiangqi';
  /** @type {string[]} the table's positions by ply, drawn until their analysis arrives */
  let snapshots = [];
  /** banqi: whether the face-down squares show their chances */
  let showChances = false;
  /** @type {string | null} banqi: the face-down square last tapped (its chances are listed) */
  let picked = null;

  const load = async () => {
    const mine = ++generation;
    asked = shell.session.notation;
    evals = Array(moves.length + 1).fill(null);
    loading = true;
    message = '';
    expose('analysis', { evals, ply, loading: true, variant });
    draw();
    /** @type {number | null} */
    let from = 0;
    let busy = 0;
    while (from !== null && !stopped && mine === generation) {
      try {
        /** @type {{positions: PositionEval[], next: number | null}} */
        const answer = await api('POST', '/api/analysis/eval', { variant, fen, moves, from, notation: asked });
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
        const why = err instanceof ApiError && err.code === 'bad_message' ? fenErrorText(err.message) : null;
        if (why !== null) {
          // the position is refused: nothing of the old analysis stays, the reason is shown
          refused = true;
          moves = [];
          evals = [];
          ply = 0;
        }
        message = why ?? errorText(err);
        break;
      }
      expose('analysis', { evals, ply, loading: from !== null, variant });
      draw();
    }
    if (mine === generation) {
      loading = false;
      expose('analysis', { evals, ply, loading: false, variant });
      draw();
    }
  };

  /** @param {number} p */
  const go = (p) => {
    ply = Math.max(0, Math.min(moves.length, p));
    expose('analysis', { evals, ply, loading, variant });
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
      variant = 'xiangqi';
      snapshots = [];
      refused = false;
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
    let position = here?.fen ?? snapshots[ply] ?? (refused ? EMPTY_FEN : ply === 0 && fen ? fen : START_FEN);
    if (variant === 'xiangqi') {
      try {
        readXiangqiFen(position);
      } catch {
        // a FEN the board cannot draw (the server's words about it follow)
        position = EMPTY_FEN;
      }
    }
    const next = ply < moves.length ? moves[ply] : null;
    const played = ply > 0 ? moveEnds(moves[ply - 1]) : null;
    let best = null;
    try {
      best = here?.line[0] ? moveEnds(here.line[0]) : null;
    } catch { /* a move the board cannot mark */ }
    /** @type {import('./boards.js').Marks} */
    const marks = {
      selected: best ? best.from : null,
      targets: new Map(best ? [[best.to, false]] : []),
      last: played ? [played.from, played.to] : [],
      check: [], onPick: (/** @type {string} */ sq) => {
        // banqi: a tap on a face-down square lists its chances
        if (variant === 'banqi' && here?.face_down?.squares.includes(sq)) {
          picked = sq;
          showChances = true;
          draw();
        }
      }, onDrop: () => {},
    };
    /** @returns {Element} */
    const boardOf = () => {
      try {
        if (variant === 'sanguo') return sanguoBoard(position, 0, readSanguoPosition(position).toMove, marks);
        if (variant === 'banqi') {
          readBanqiView(position);
          return banqiBoard(position, marks, false, showChances ? chanceLabels(here?.face_down) : new Map());
        }
      } catch {
        return h('p', { class: 'error' }, '–');
      }
      return xiangqiBoard(position, false, marks, coords);
    };
    const coords = /** @type {'iccs' | 'wxf' | 'chinese'} */ (shell.session.notation);
    const share = redShare(here?.eval ?? null);
    const bar = variant === 'sanguo' ? null : h('div', { class: 'eval-bar', id: 'eval-bar', role: 'img', 'aria-label': t('analysis.eval_bar') },
      h('div', { class: 'eval-red', style: `width:${share.toFixed(1)}%` }));
    const rows = [];
    const perRow = variant === 'sanguo' ? 3 : 2;
    for (let i = 0; i < moves.length; i += perRow) {
      /** @param {number} p */
      const cell = (p) => {
        if (p > moves.length) return h('span');
        const e = evals[p];
        const j = judgementAt(evals, p);
        const shown = variant === 'sanguo' ? sanguoCellText(e) : e ? (e.outcome ? t('analysis.over') : evalText(e.eval)) : '…';
        return h('button', {
          type: 'button', class: `amv${p === ply ? ' current' : ''}${j ? ` ${j}` : ''}`, 'data-ply': String(p),
          'data-judgement': j ?? undefined, title: j ? t(`analysis.${j}`) : undefined,
          onclick: () => go(p),
        }, h('span', { class: 'amv-text' }, e?.played ?? moves[p - 1],
          j ? h('span', { class: 'amv-glyph' }, JUDGEMENT_GLYPHS[j]) : null),
        h('span', { class: 'amv-eval' }, shown));
      };
      rows.push(h('li', {}, h('span', { class: 'num' }, `${i / perRow + 1}.`), cell(i + 1), cell(i + 2), perRow === 3 ? cell(i + 3) : null));
    }
    const total = moves.length + 1;
    const done = evals.filter((e) => e !== null).length;
    const lineText = here && here.line_text.length ? here.line_text.join(' ') : '';
    // the judgement of the move that led here, with the engine's choice at the position before
    const judged = ply > 0 ? judgementAt(evals, ply) : null;
    const before = ply > 0 ? evals[ply - 1] : null;
    const better = judged && before && before.line[0] && before.line[0] !== moves[ply - 1] ? before.line_text[0] ?? before.line[0] : null;
    const advice = judged
      ? h('p', { class: `advice ${judged}`, id: 'advice' },
        h('strong', {}, t(`analysis.${judged}`)),
        better ? h('span', {}, t('analysis.better', { move: better })) : null)
      : null;
    const source = fromGame
      ? h('p', { class: 'muted', id: 'analysis-source' }, t('analysis.of_game'), ' ',
        h('a', { href: `#/t/${tableId}`, id: 'analysis-table' }, tableId))
      : h('p', { class: 'muted', id: 'analysis-source' }, fen ? t('analysis.of_fen') : t('analysis.of_start'));
    const number = here ? (here.outcome ? t('analysis.over') : evalText(here.eval)) : refused ? '–' : '…';
    const evalBox = variant === 'sanguo'
      ? h('div', { class: 'kingdom-evals', id: 'kingdom-evals' }, ...[0, 1, 2].map((k) => {
        const e = here?.kingdoms?.[k];
        const text = !here ? '…' : e?.eval ? evalText(e.eval) : here.outcome ? t('analysis.over') : t('analysis.fallen');
        return h('div', { class: `kingdom-eval k${k}`, 'data-kingdom': String(k), style: `border-color:${KINGDOM_COLORS[k]}` },
          h('span', { class: 'kingdom-name', style: `color:${KINGDOM_COLORS[k]}` }, t(`seat.sanguo.${k}`)),
          h('span', { class: 'kingdom-value', style: `color:${KINGDOM_COLORS[k]}` }, text));
      }))
      : h('div', { class: 'eval-number', id: 'eval' }, number);
    const down = variant === 'banqi' ? here?.face_down : undefined;
    const chances = variant === 'banqi' && down && down.squares.length
      ? h('div', { class: 'card chances-card', id: 'chances-card' },
        h('button', {
          type: 'button', id: 'a-chances', 'aria-pressed': showChances ? 'true' : 'false',
          onclick: () => { showChances = !showChances; if (!showChances) picked = null; draw(); },
        }, showChances ? t('analysis.chances_hide') : t('analysis.chances_show')),
        showChances ? h('table', { class: 'chances-table', id: 'chances-table' },
          h('caption', {}, picked && down.squares.includes(picked)
            ? t('analysis.chances_of', { square: picked }) : t('analysis.chances_any', { n: String(down.squares.length) })),
          h('tbody', {}, ...down.pieces.map((c) => h('tr', { 'data-piece': c.piece },
            h('td', { class: 'chance-icon' }, banqiPieceIcon(c.piece, 24)),
            h('td', {}, pieceName(c.piece)),
            h('td', { class: 'num' }, `×${c.count}`),
            h('td', { class: 'num chance-p' }, percent(c.probability)))))) : null)
      : null;
    const limits = variant === 'sanguo' ? t('analysis.limits_sanguo') : variant === 'banqi' ? t('analysis.limits_banqi') : t('analysis.limits');
    shell.show(h('main', { class: 'table-page analysis-page', 'data-variant': variant, 'data-page': 'analysis' },
      h('div', { class: 'board-col' },
        bar,
        h('div', { class: 'board-wrap', id: 'board-wrap' }, boardOf()),
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
          evalBox,
          h('div', { class: 'eval-detail' },
            h('div', { class: 'best-line' }, h('strong', {}, t(variant === 'banqi' ? 'analysis.best_move' : 'analysis.best_line')), ' ',
              h('span', { id: 'best-line' }, (variant === 'banqi' ? banqiMoveText(lineText) : lineText) || (here?.outcome ? t('analysis.over') : refused ? '–' : '…'))),
            here && !here.outcome ? h('div', { class: 'muted fine', id: 'eval-depth' },
              t('analysis.depth', { depth: String(here.depth), nodes: here.nodes.toLocaleString() })) : null)),
        chances,
        advice,
        moves.length && variant !== 'sanguo' ? evalGraph(evals, ply, go) : null,
        loading ? h('p', { class: 'muted', id: 'analysis-progress', role: 'status' }, t('analysis.progress', { done: String(done), total: String(total) })) : null,
        message ? h('p', { class: 'error', role: 'alert', id: 'analysis-error' }, message) : null,
        moves.length ? h('section', { class: 'card moves-card' }, h('h3', {}, t('table.moves')),
          h('ol', { class: `moves per-${perRow} analysis-moves`, id: 'analysis-moves' }, ...rows)) : null,
        h('div', { class: 'card' }, variant === 'xiangqi' ? fenForm() : null,
          variant === 'xiangqi' ? h('p', {}, h('a', { href: `#/editor?fen=${encodeURIComponent(here?.fen ?? fen ?? START_FEN)}`, id: 'to-editor' }, t('editor.open'))) : null,
          h('p', { class: 'muted fine' }, limits),
          h('p', { class: 'muted fine' }, t('analysis.keys'))))), `${t('analysis.title')} · chuhe`);
  };

  // Left and Right step through the game, Home and End go to its ends (not while typing)
  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    if (stopped || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = /** @type {HTMLElement | null} */ (e.target);
    if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable)) return;
    const to = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: moves.length }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  };
  document.addEventListener('keydown', onKey);

  (async () => {
    if (tableId === null) {
      load();
      return;
    }
    try {
      /** @type {import('./protocol.js').Positions} */
      const game = await api('GET', `/api/tables/${encodeURIComponent(tableId)}/positions`);
      if (stopped) return;
      variant = game.variant;
      moves = game.moves;
      snapshots = game.positions.map((p) => p.position);
      const first = game.positions[0]?.position;
      // sanguo and banqi: the start is always sent (sanguo's says whether flag bearers play;
      // banqi's is the public view, nothing face down but the pool)
      fen = first && (variant !== 'xiangqi' || first !== START_FEN) ? first : null;
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
  return { draw, leave: () => { stopped = true; document.removeEventListener('keydown', onKey); } };
}
