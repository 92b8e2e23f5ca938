// The web client's entry: the header (language, pieces, notation, session), the routes (the lobby
// #/, a table #/t/ID, the rules pages #/rules/VARIANT, the tournaments #/tournaments and
// #/tournament/ID) and what they share. Every text comes from
// the catalogue (i18n.js); the boards are drawn by boards.js; the server decides everything else.
//
// lobby.js       the lobby page
// analysis.js    the analysis board (the engine's evaluation of a xiangqi game or a FEN)
// editor.js      the board editor (set up a xiangqi position, then analyse it)
// tournament.js  the tournaments (#/tournaments, the arena page #/tournament/ID) and the lobby's card
// swiss.js       the Swiss event's page (#/swiss/ID)
// puzzle.js      the puzzle page (#/puzzle, #/puzzle/ID, #/puzzle/daily) and the lobby's daily card
// table.js       a table's state and actions (socket, selection, seat actions, step-through)
// table-view.js  the table page
// select.js      choosing a move among the server's legal moves (table and rules diagrams)
// rules.js       the rules pages and their diagrams
// format.js      the words and numbers shown; dom.js the one element builder; testing.js the
//                browser tests' hooks

import { LANGS, LANG_NAMES, initLang, lang, setLang, t } from './i18n.js';
import { api } from './net.js';
import { BOARD_THEMES, boardThemeNamed, currentPieceSet, setPieceSet } from './boards.js';
import { h, patch } from './dom.js';
import { lobbyPage } from './lobby.js';
import { tablePage } from './table-view.js';
import { rulesPage } from './rules.js';
import { playerPage } from './player.js';
import { analysisPage } from './analysis.js';
import { editorPage } from './editor.js';
import { tournamentPage, tournamentsPage } from './tournament.js';
import { swissPage } from './swiss.js';
import { puzzlePage } from './puzzle.js';
import { isMuted, setMuted } from './sound.js';

/**
 * What the pages share: the session (who is signed in, the move list's notation) and `show`,
 * which puts a page under the header. A page whose `data-page` is the one shown (a table page
 * drawn again) is patched in place (`patch` in dom.js): focus, typed text and open selects stay.
 * `title` is the tab's title (default: the site's).
 * @typedef {{session: Session, show: (page: HTMLElement, title?: string) => void}} Shell
 */
/**
 * @typedef {{me: import('./protocol.js').PlayerInfo | null, notation: string}} Session
 * `notation`: the xiangqi move list's (`iccs`, or `wxf` and `chinese` as the server's PGN export
 * writes them)
 */

/** @type {Session} */
const session = { me: null, notation: 'iccs' };
/**
 * The current page: drawn again after a switch in the header, left on a route change. A page
 * with `leaving` is asked first: a question (a running game the receiver plays) is put to the
 * player before the page goes.
 * @type {{draw: () => void, leave: () => void, leaving?: () => string | null}}
 */
let page = { draw: () => {}, leave: () => {} };
/** The hash of the page shown (to go back to when the player stays). */
let shownHash = '';

/** The piece sets the header offers, in its order. */
const PIECE_SETS = /** @type {const} */ (['chinese', 'western', 'symbols']);

/**
 * The piece set a stored or chosen name names; characters for anything else.
 * @param {string | null} name
 * @returns {import('./boards.js').PieceSet}
 */
function pieceSetNamed(name) {
  return PIECE_SETS.find((p) => p === name) ?? 'chinese';
}

/**
 * The header; `variant` is the game of the page shown (the notation select only where a
 * xiangqi move list is: sanguo and banqi have one notation).
 * @param {string} [variant]
 */
function header(variant) {
  const select = h('select', {
    id: 'lang', 'aria-label': t('app.language'),
    onchange: (/** @type {Event} */ e) => {
      setLang(/** @type {any} */ (/** @type {HTMLSelectElement} */ (e.target).value));
      document.documentElement.lang = lang();
      let chosen = null;
      try { chosen = localStorage.getItem('chuhe.notation'); } catch { /* storage disabled */ }
      if (!chosen) session.notation = lang() === 'zh' ? 'chinese' : 'iccs';
      page.draw();
    },
  }, ...LANGS.map((l) => h('option', { value: l, selected: l === lang() }, LANG_NAMES[l])));
  const pieces = h('select', {
    id: 'pieces', 'aria-label': t('app.pieces'),
    onchange: (/** @type {Event} */ e) => {
      const set = pieceSetNamed(/** @type {HTMLSelectElement} */ (e.target).value);
      setPieceSet(set);
      try { localStorage.setItem('chuhe.pieces', set); } catch { /* storage disabled */ }
      page.draw();
    },
  }, ...PIECE_SETS.map((p) => h('option', { value: p, selected: p === currentPieceSet() }, t(`pieces.${p}`))));
  const boardSelect = h('select', {
    id: 'board-theme', 'aria-label': t('app.board'),
    onchange: (/** @type {Event} */ e) => {
      const theme = boardThemeNamed(/** @type {HTMLSelectElement} */ (e.target).value);
      document.documentElement.dataset.board = theme;
      try { localStorage.setItem('chuhe.board', theme); } catch { /* storage disabled */ }
    },
  }, ...BOARD_THEMES.map((x) => h('option', { value: x, selected: x === boardThemeNamed(document.documentElement.dataset.board) }, t(`board.${x}`))));
  const notationSelect = h('select', {
    id: 'notation', 'aria-label': t('app.notation'),
    onchange: (/** @type {Event} */ e) => {
      session.notation = /** @type {HTMLSelectElement} */ (e.target).value;
      try { localStorage.setItem('chuhe.notation', session.notation); } catch { /* storage disabled */ }
      page.draw();
    },
  }, ...['iccs', 'wxf', 'chinese'].map((n) => h('option', { value: n, selected: n === session.notation }, t(`notation.${n}`))));
  return h('header', {},
    h('a', { href: '#/', class: 'brand' }, h('span', { class: 'logo' }, '楚河'), ' chuhe'),
    h('nav', {}, h('a', { href: '#/', id: 'nav-lobby' }, t('app.lobby')), ' ', h('a', { href: '#/rules/xiangqi', id: 'nav-rules' }, t('rules.nav')),
      ' ', h('a', { href: '#/puzzle', id: 'nav-puzzle' }, t('puzzle.nav')),
      ' ', h('a', { href: '#/analysis', id: 'nav-analysis' }, t('analysis.nav')),
      ' ', h('a', { href: '#/tournaments', id: 'nav-tournaments' }, t('tour.nav'))),
    h('span', { class: 'spacer' }),
    session.me ? h('span', { class: 'me', id: 'me', title: session.me.name }, t('session.hello', { name: session.me.name }),
      session.me.account ? '' : ` (${t('session.guest')})`) : null,
    session.me ? h('button', { id: 'logout', class: 'small', onclick: logout }, t('session.logout')) : null,
    h('span', { class: 'settings' },
      soundButton(),
      variant === 'sanguo' || variant === 'banqi' ? null
        : h('label', { class: 'lang' }, h('span', { class: 'label-text' }, t('app.notation')), ' ', notationSelect),
      h('label', { class: 'lang' }, h('span', { class: 'label-text' }, t('app.pieces')), ' ', pieces),
      h('label', { class: 'lang' }, h('span', { class: 'label-text' }, t('app.board')), ' ', boardSelect),
      h('label', { class: 'lang' }, h('span', { class: 'label-text' }, t('app.language')), ' ', select)));
}

/** The sound switch: a speaker with its waves, or crossed out when muted. */
function soundButton() {
  const off = isMuted();
  const button = h('button', {
    id: 'mute', class: 'small sound', 'aria-pressed': off ? 'true' : 'false',
    title: t(off ? 'app.sound_off' : 'app.sound_on'), 'aria-label': t(off ? 'app.sound_off' : 'app.sound_on'),
    onclick: () => { setMuted(!isMuted()); page.draw(); },
  });
  const waves = off ? '<path d="M14 7l6 6M20 7l-6 6" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>'
    : '<path d="M14 7.5a4 4 0 0 1 0 5M16.5 5a7.5 7.5 0 0 1 0 10" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/>';
  button.innerHTML = `<svg viewBox="0 0 22 20" width="20" height="18" aria-hidden="true"><path d="M2 7h4l5-4v14l-5-4H2z" fill="currentColor"/>${waves}</svg>`;
  return button;
}

async function logout() {
  try {
    await api('POST', '/api/logout');
  } catch {
    // the cookie is gone either way for this page
  }
  session.me = null;
  location.hash = '#/';
  route();
}

/**
 * @param {HTMLElement} main
 * @param {string} [title]
 */
function show(main, title) {
  document.title = title ?? t('app.title');
  const shown = document.body.querySelector(':scope > main');
  const oldHeader = document.body.querySelector(':scope > header');
  if (shown && oldHeader && main.dataset.page && shown.getAttribute('data-page') === main.dataset.page) {
    patch(oldHeader, header(main.dataset.variant));
    patch(shown, main);
    return;
  }
  document.body.replaceChildren(header(main.dataset.variant), main);
}

/** @type {Shell} */
const shell = { session, show };

/**
 * A link's parameter as text (`decodeURIComponent`), or null when it does not decode.
 * @param {string} text
 */
function readParam(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

function route() {
  const question = location.hash !== shownHash ? page.leaving?.() : null;
  if (question && !confirm(question)) {
    // stay: put the address back without routing again
    history.replaceState(null, '', shownHash || '#/');
    return;
  }
  shownHash = location.hash;
  page.leave();
  page = { draw: () => {}, leave: () => {} };
  const table = /^#\/t\/([a-z0-9]+)$/.exec(location.hash);
  const rules = /^#\/rules\/(xiangqi|sanguo|banqi)$/.exec(location.hash);
  const player = /^#\/p\/([A-Za-z0-9]+)$/.exec(location.hash);
  const analysis = /^#\/analysis(?:\/t\/([a-z0-9]+))?$/.exec(location.hash);
  const analysisFen = /^#\/analysis\?fen=(.+)$/.exec(location.hash);
  const editor = /^#\/editor(?:\?fen=(.+))?$/.exec(location.hash);
  const tournament = /^#\/tournament\/([A-Za-z0-9]+)$/.exec(location.hash);
  const swiss = /^#\/swiss\/([A-Za-z0-9]+)$/.exec(location.hash);
  const puzzle = /^#\/puzzle(?:\/([A-Za-z0-9-]+))?$/.exec(location.hash);
  if (table) page = tablePage(shell, table[1]);
  else if (tournament) {
    page = tournamentPage(shell, tournament[1]);
    window.scrollTo(0, 0);
  }
  else if (swiss) {
    page = swissPage(shell, swiss[1]);
    window.scrollTo(0, 0);
  }
  else if (location.hash === '#/tournaments') {
    page = tournamentsPage(shell);
    window.scrollTo(0, 0);
  }
  else if (puzzle) {
    page = puzzlePage(shell, puzzle[1] ?? null);
    window.scrollTo(0, 0);
  }
  else if (analysis || analysisFen) {
    page = analysisPage(shell, analysis?.[1] ?? null, analysisFen ? readParam(analysisFen[1]) : null);
    window.scrollTo(0, 0);
  }
  else if (editor) {
    page = editorPage(shell, editor[1] ? readParam(editor[1]) : null);
    window.scrollTo(0, 0);
  }
  else if (player) {
    page = playerPage(shell, player[1]);
    window.scrollTo(0, 0);
  }
  else if (rules) {
    page = rulesPage(/** @type {'xiangqi' | 'sanguo' | 'banqi'} */ (rules[1]), show);
    page.draw();
    window.scrollTo(0, 0);
  } else page = lobbyPage(shell);
}

async function start() {
  initLang();
  document.documentElement.lang = lang();
  try {
    setPieceSet(pieceSetNamed(localStorage.getItem('chuhe.pieces')));
    document.documentElement.dataset.board = boardThemeNamed(localStorage.getItem('chuhe.board'));
    const saved = localStorage.getItem('chuhe.notation');
    if (saved === 'wxf' || saved === 'chinese' || saved === 'iccs') session.notation = saved;
    // a Chinese page writes Chinese notation unless the player chose another
    else if (lang() === 'zh') session.notation = 'chinese';
  } catch { /* storage disabled */ }
  try {
    session.me = await api('GET', '/api/me');
  } catch {
    session.me = null;
  }
  window.addEventListener('hashchange', route);
  // closing the tab or reloading during a game the player plays: the browser's own question
  window.addEventListener('beforeunload', (e) => {
    if (page.leaving?.()) e.preventDefault();
  });
  route();
}

start();
