// The board editor (xiangqi, #/editor): set up a position by placing and removing pieces, choose
// the side to move, and keep the FEN field in step with the board both ways. The server's rules
// (POST /api/analysis) say whether the position is legal and, when not, why; a legal position
// opens on the analysis board ("Analizar").

import { t } from './i18n.js';
import { api, ApiError } from './net.js';
import { h } from './dom.js';
import { currentPieceSet, kindOf, pieceIcon, SIDE_COLORS, xiangqiBoard } from './boards.js';
import { errorText } from './format.js';
import { readXiangqiFen } from './protocol.js';
import { fenErrorText } from './analysis.js';
import { expose } from './testing.js';

/** The usual start position. */
export const START_FEN = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1';
/** The board with no piece, Red to move. */
export const EMPTY_FEN = '9/9/9/9/9/9/9/9/9/9 w - - 0 1';

/** The palette's pieces as FEN letters: Red's seven kinds, then Black's. */
export const PALETTE = ['K', 'A', 'B', 'N', 'R', 'C', 'P', 'k', 'a', 'b', 'n', 'r', 'c', 'p'];

/** Traditional characters of the palette's pieces. */
const GLYPHS = /** @type {Record<string, string>} */ ({
  K: '帥', A: '仕', B: '相', N: '傌', R: '俥', C: '炮', P: '兵',
  k: '將', a: '士', b: '象', n: '馬', r: '車', c: '砲', p: '卒',
});
/** WXF letters of the FEN letters (b Elephant, n Horse). */
const WXF = /** @type {Record<string, string>} */ ({ k: 'K', a: 'A', b: 'E', n: 'H', r: 'R', c: 'C', p: 'P' });

/** The bin's picture: a can with a lid. */
function binIcon() {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', '30');
  svg.setAttribute('height', '30');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', 'M9 3h6l1 2h4v2H4V5h4zM6 8h12l-1 13H7zm3 2v9h2v-9zm4 0v9h2v-9z');
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  return svg;
}

/**
 * A board as FEN letters by [rank][file] (rank 0 is Red's back rank), `''` for an empty point.
 * @typedef {string[][]} Grid
 */

/**
 * Goes to the lobby with its form for a game from `fen` (a legal xiangqi position): the
 * computer's card (`computer`) or the form of a table for people. Such a game is casual.
 * @param {string} fen
 * @param {boolean} computer
 */
export function playFromPosition(fen, computer) {
  try {
    sessionStorage.setItem('chuhe.form', JSON.stringify(computer
      ? { computer: { variant: 'xiangqi', fen } }
      : { variant: 'xiangqi', fen, rated: false }));
  } catch {
    // storage disabled: the lobby opens with its usual forms
  }
  location.hash = '#/';
}

/**
 * The grid and side of a FEN; throws on a board that does not read.
 * @param {string} fen
 * @returns {{grid: Grid, side: 'w' | 'b'}}
 */
export function gridOf(fen) {
  const { board, turn } = readXiangqiFen(fen);
  const grid = board.map((rank) => rank.map((p) => (p ? (p.color === 'r' ? p.kind.toUpperCase() : p.kind) : '')));
  return { grid, side: turn === 'b' ? 'b' : 'w' };
}

/**
 * The FEN of a grid and side (counters 0 and 1).
 * @param {Grid} grid
 * @param {'w' | 'b'} side
 */
export function fenOf(grid, side) {
  const ranks = [];
  for (let r = 9; r >= 0; r--) {
    let text = '';
    let empty = 0;
    for (let f = 0; f < 9; f++) {
      const p = grid[r]?.[f] ?? '';
      if (p) {
        if (empty) text += String(empty);
        empty = 0;
        text += p;
      } else empty += 1;
    }
    if (empty) text += String(empty);
    ranks.push(text);
  }
  return `${ranks.join('/')} ${side} - - 0 1`;
}

/**
 * A click on point `square` with the palette's `tool` (a FEN letter, or `bin`): the piece is put
 * there, or taken away when the same piece already stands there or the tool is the bin. Returns
 * the new grid (the old one is left as it was).
 * @param {Grid} grid
 * @param {string} square ICCS, `e0`
 * @param {string} tool
 * @returns {Grid}
 */
export function applyTool(grid, square, tool) {
  const f = square.charCodeAt(0) - 97;
  const r = Number(square.slice(1));
  if (!(f >= 0 && f < 9 && r >= 0 && r < 10)) return grid;
  const next = grid.map((rank) => rank.slice());
  next[r][f] = tool === 'bin' || next[r][f] === tool ? '' : tool;
  return next;
}

/**
 * @param {import('./app.js').Shell} shell
 * @param {string | null} startFen the position to start from (null: the usual start)
 * @returns {{draw: () => void, leave: () => void}}
 */
export function editorPage(shell, startFen) {
  let stopped = false;
  let grid = gridOf(START_FEN).grid;
  /** @type {'w' | 'b'} */
  let side = 'w';
  let fenText = START_FEN;
  /** the palette's chosen piece (a FEN letter) or `bin` */
  let tool = 'K';
  /** the words of what is wrong (syntax or rules), or '' when the position is legal */
  let problem = '';
  /** whether the server said the position is legal */
  let legal = false;
  let checking = false;
  /** counts the checks, so that a late answer of an old one is dropped */
  let generation = 0;

  const fen = () => fenOf(grid, side);

  /** Asks the server whether the shown position is legal. */
  const check = async () => {
    const mine = ++generation;
    const text = fen();
    checking = true;
    legal = false;
    publish();
    try {
      await api('POST', '/api/analysis', { variant: 'xiangqi', position: text });
      if (stopped || mine !== generation) return;
      problem = '';
      legal = true;
    } catch (err) {
      if (stopped || mine !== generation) return;
      const why = err instanceof ApiError && err.code === 'bad_message' ? fenErrorText(err.message) : null;
      problem = why ?? errorText(err);
      legal = false;
    }
    checking = false;
    publish();
    draw();
  };

  const publish = () => expose('editor', { fen: fen(), legal, checking, problem, tool });

  /** The board changed: the field follows, and the rules are asked. */
  const changed = () => {
    fenText = fen();
    draw();
    check();
  };

  /** @param {string} text the FEN field's text */
  const typed = (text) => {
    fenText = text;
    try {
      const read = gridOf(text.trim());
      grid = read.grid;
      side = read.side;
      check();
    } catch {
      // not a board yet: the server's syntax words say why
      ++generation;
      legal = false;
      checking = false;
      problem = '';
      api('POST', '/api/analysis', { variant: 'xiangqi', position: text.trim() || '-' })
        .then(() => {})
        .catch((err) => {
          if (stopped || fenText !== text) return;
          problem = err instanceof ApiError && err.code === 'bad_message'
            ? fenErrorText(err.message) ?? errorText(err)
            : errorText(err);
          publish();
          draw();
        });
    }
    publish();
    draw();
  };

  /** @param {string} square */
  const put = (square) => {
    grid = applyTool(grid, square, tool);
    changed();
  };

  const paletteButton = (/** @type {string} */ letter) => {
    const red = letter === letter.toUpperCase();
    const kind = kindOf(letter);
    const text = currentPieceSet() === 'western' ? WXF[letter.toLowerCase()] : GLYPHS[letter];
    const name = t(`editor.piece.${letter.toLowerCase()}`);
    const label = `${t(red ? 'editor.red' : 'editor.black')} · ${name}`;
    return h('button', {
      type: 'button', class: `tool${tool === letter ? ' chosen' : ''}`, 'data-tool': letter,
      title: label, 'aria-label': label, 'aria-pressed': tool === letter ? 'true' : 'false',
      onclick: () => { tool = letter; publish(); draw(); },
    }, pieceIcon(kind, text, red ? SIDE_COLORS.red : SIDE_COLORS.black, 40));
  };

  const draw = () => {
    if (stopped) return;
    const shown = fen();
    /** @type {import('./boards.js').Marks} */
    const marks = {
      selected: null, targets: new Map(), last: [], check: [],
      onPick: put, onDrop: () => {},
    };
    const board = xiangqiBoard(shown, false, marks, /** @type {'iccs'} */ ('iccs'));
    // a right click takes the piece away, whatever the tool
    board.addEventListener('contextmenu', (e) => {
      e.preventDefault();
      const sq = /** @type {Element | null} */ (e.target)?.closest?.('[data-square]')?.getAttribute('data-square');
      if (sq) {
        grid = applyTool(grid, sq, 'bin');
        changed();
      }
    });
    const status = checking
      ? h('p', { class: 'muted', id: 'editor-status', role: 'status' }, t('editor.checking'))
      : problem
        ? h('p', { class: 'error', id: 'editor-status', role: 'alert' }, problem)
        : legal ? h('p', { class: 'ok', id: 'editor-status', role: 'status' }, t('editor.legal')) : null;
    const analyse = `#/analysis?fen=${encodeURIComponent(shown)}`;
    shell.show(h('main', { class: 'table-page editor-page', 'data-variant': 'xiangqi', 'data-page': 'editor' },
      h('div', { class: 'board-col' },
        h('div', { class: 'palette', id: 'palette-black' }, ...PALETTE.slice(7).map(paletteButton)),
        h('div', { class: 'board-wrap', id: 'board-wrap' }, board),
        h('div', { class: 'palette', id: 'palette-red' }, ...PALETTE.slice(0, 7).map(paletteButton),
          h('button', {
            type: 'button', class: `tool bin${tool === 'bin' ? ' chosen' : ''}`, 'data-tool': 'bin',
            title: t('editor.bin'), 'aria-label': t('editor.bin'), 'aria-pressed': tool === 'bin' ? 'true' : 'false',
            onclick: () => { tool = 'bin'; publish(); draw(); },
          }, binIcon()))),
      h('aside', { class: 'side-col' },
        h('h2', {}, t('editor.title')),
        h('p', { class: 'muted fine' }, t('editor.help')),
        h('div', { class: 'card editor-controls' },
          h('label', { for: 'editor-side' }, t('editor.side')), ' ',
          h('select', {
            id: 'editor-side',
            onchange: (/** @type {Event} */ e) => {
              side = /** @type {HTMLSelectElement} */ (e.target).value === 'b' ? 'b' : 'w';
              changed();
            },
          },
          h('option', { value: 'w', selected: side === 'w' }, t('editor.red_moves')),
          h('option', { value: 'b', selected: side === 'b' }, t('editor.black_moves'))),
          h('div', { class: 'editor-buttons' },
            h('button', { type: 'button', id: 'editor-start', onclick: () => { ({ grid, side } = gridOf(START_FEN)); changed(); } }, t('editor.start')),
            h('button', { type: 'button', id: 'editor-empty', onclick: () => { ({ grid, side } = gridOf(EMPTY_FEN)); changed(); } }, t('editor.empty')))),
        h('div', { class: 'card fen-form' },
          h('label', { for: 'editor-fen' }, t('analysis.fen')),
          h('input', {
            id: 'editor-fen', type: 'text', value: fenText, spellcheck: 'false', autocomplete: 'off',
            oninput: (/** @type {Event} */ e) => typed(/** @type {HTMLInputElement} */ (e.target).value),
          })),
        status,
        h('div', { class: 'editor-buttons' },
          legal && !checking
            ? h('a', { class: 'button primary', id: 'editor-analyse', href: analyse }, t('analysis.analyse'))
            : h('button', { type: 'button', class: 'primary', id: 'editor-analyse', disabled: true }, t('analysis.analyse')),
          h('button', { type: 'button', id: 'editor-computer', disabled: !legal || checking, onclick: () => playFromPosition(shown, true) }, t('editor.play_computer')),
          h('button', { type: 'button', id: 'editor-friend', disabled: !legal || checking, onclick: () => playFromPosition(shown, false) }, t('editor.play_friend'))))),
    `${t('editor.title')} · chuhe`);
  };

  if (startFen) {
    try {
      ({ grid, side } = gridOf(startFen));
    } catch {
      // a link with a board that does not read: the usual start instead
    }
  }
  fenText = fen();
  draw();
  check();
  return { draw, leave: () => { stopped = true; } };
}
