// The web client: a lobby (#/) and a table page (#/t/ID). Every text comes from the catalogue
// (i18n.js); the boards are drawn by boards.js; the server decides everything else.

import { LANGS, LANG_NAMES, initLang, lang, setLang, t } from './i18n.js';
import { SEATS, generalSquares, moveEnds, pgnMoves, readPool, readSanguoPosition, readXiangqiFen, iccsSquare } from './protocol.js';
import { ApiError, TableSocket, api } from './net.js';
import {
  banqiBoard, banqiPieceIcon, currentPieceSet, sanguoBoard, setPieceSet, xiangqiBoard, KINGDOM_COLORS,
} from './boards.js';
import { rulesLinks, rulesPage } from './rules.js';

/** @typedef {import('./protocol.js').StateMessage} StateMessage */
/** @typedef {import('./protocol.js').TableSummary} TableSummary */

/**
 * Builds an element: `h('button', {class: 'x', onclick: f}, 'text', child)`.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node | string | null | false | undefined)} children
 * @returns {HTMLElement}
 */
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'value') /** @type {HTMLInputElement} */ (node).value = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

/** @type {import('./protocol.js').PlayerInfo | null} */
let me = null;
/** The xiangqi move list's notation (the server writes WXF and Chinese through its PGN export). */
let notation = 'iccs';
/** What the current page draws again after a language switch. */
let redraw = () => {};
/** Stops the current page's timers and sockets. */
let leavePage = () => {};

/** @param {unknown} e */
function errorText(e) {
  if (e instanceof ApiError && e.code === 'conflict') return t('error.conflict');
  if (e instanceof ApiError && e.code === 'not_ready') return t('error.not_ready');
  if (e instanceof ApiError && e.code === 'rate_limited') {
    return t('error.rate_limited', { seconds: String(e.retryAfterS ?? 1) });
  }
  return t('error.generic', { message: e instanceof Error ? e.message : String(e) });
}

/**
 * The text of a refused login or registration: the server's code decides the words.
 * @param {unknown} e
 */
function accountErrorText(e) {
  if (e instanceof ApiError && e.code === 'conflict') return t('error.name_taken');
  if (e instanceof ApiError && e.code === 'unauthorized') return t('error.wrong_password');
  return errorText(e);
}

/**
 * A date and time in the page's language.
 * @param {number} ms milliseconds since the Unix epoch
 */
function formatDate(ms) {
  const locale = { es: 'es-ES', en: 'en-GB', zh: 'zh-CN' }[lang()];
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(ms));
}

/**
 * The result line of an ended game: who won and by which rule, in the page's language.
 * @param {string} variant
 * @param {import('./protocol.js').Outcome} o
 * @param {number[]} [winnerSeats]
 */
function resultLine(variant, o, winnerSeats) {
  if (o.reason === 'aborted') return t('result.aborted');
  const reason = t(`reason.${o.reason}`);
  let names = o.winners.map((w) => t(`winner.${w}`));
  if (names.length === 0 && winnerSeats?.length) names = winnerSeats.map((i) => seatLabel(variant, i));
  if (names.length === 0) return `${t('result.draw')} · ${reason}`;
  const who = names.join(t('result.and'));
  return `${t(names.length > 1 ? 'result.win_both' : 'result.wins', { who })} · ${reason}`;
}

/** @param {number} ms */
export function formatClock(ms) {
  const v = Math.max(0, ms);
  const s = Math.floor(v / 1000);
  const mm = Math.floor(s / 60);
  const ss = String(s % 60).padStart(2, '0');
  if (v < 10000) return `${mm}:${ss}.${Math.floor((v % 1000) / 100)}`;
  return `${mm}:${ss}`;
}

/** @param {import('./protocol.js').TimeControl | null} time */
function timeText(time) {
  if (!time) return t('lobby.untimed');
  const inc = time.increment_ms / 1000;
  // under a minute: the seconds with their unit (a 1 s table is "1s+600", never "0+600")
  if (time.initial_ms < 60000) return `${Math.round(time.initial_ms / 1000)}s+${inc}`;
  return `${Math.round(time.initial_ms / 60000 * 10) / 10}+${inc}`;
}

/**
 * The words for a seat: its side or kingdom (banqi: its colour once known).
 * @param {string} variant
 * @param {number} seat
 * @param {(string | null)[]} [colors]
 */
function seatLabel(variant, seat, colors) {
  if (variant === 'banqi' && colors && colors[seat]) return t(`color.${colors[seat]}`);
  return t(`seat.${variant}.${seat}`);
}

/** The small "rated" badge of a rated table; nothing for a friendly one. @param {boolean} rated */
function ratedBadge(rated) {
  return rated ? h('span', { class: 'badge rated-badge', title: t('table.rated_hint') }, t('table.rated_badge')) : null;
}

/** @param {import('./protocol.js').SeatEntry | null} entry */
function occupant(entry) {
  if (!entry) return t('lobby.empty_seat');
  if (entry.kind === 'computer') return t('table.computer_name', { level: entry.level });
  return entry.name;
}

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

function header() {
  const select = h('select', {
    id: 'lang', 'aria-label': t('app.language'),
    onchange: (/** @type {Event} */ e) => {
      setLang(/** @type {any} */ (/** @type {HTMLSelectElement} */ (e.target).value));
      document.documentElement.lang = lang();
      redraw();
    },
  }, ...LANGS.map((l) => h('option', { value: l, selected: l === lang() }, LANG_NAMES[l])));
  const pieces = h('select', {
    id: 'pieces', 'aria-label': t('app.pieces'),
    onchange: (/** @type {Event} */ e) => {
      const set = pieceSetNamed(/** @type {HTMLSelectElement} */ (e.target).value);
      setPieceSet(set);
      try { localStorage.setItem('chuhe.pieces', set); } catch { /* storage disabled */ }
      redraw();
    },
  }, ...PIECE_SETS.map((p) => h('option', { value: p, selected: p === currentPieceSet() }, t(`pieces.${p}`))));
  const notationSelect = h('select', {
    id: 'notation', 'aria-label': t('app.notation'),
    onchange: (/** @type {Event} */ e) => {
      notation = /** @type {HTMLSelectElement} */ (e.target).value;
      try { localStorage.setItem('chuhe.notation', notation); } catch { /* storage disabled */ }
      redraw();
    },
  }, ...['iccs', 'wxf', 'chinese'].map((n) => h('option', { value: n, selected: n === notation }, t(`notation.${n}`))));
  return h('header', {},
    h('a', { href: '#/', class: 'brand' }, h('span', { class: 'logo' }, '楚河'), ' chuhe'),
    h('nav', {}, h('a', { href: '#/', id: 'nav-lobby' }, t('app.lobby')), ' ', h('a', { href: '#/rules/xiangqi', id: 'nav-rules' }, t('rules.nav'))),
    h('span', { class: 'spacer' }),
    me ? h('span', { class: 'me', id: 'me', title: me.name }, t('session.hello', { name: me.name }),
      me.account ? '' : ` (${t('session.guest')})`) : null,
    me ? h('button', { id: 'logout', class: 'small', onclick: logout }, t('session.logout')) : null,
    h('span', { class: 'settings' },
      h('label', { class: 'lang' }, h('span', { class: 'label-text' }, t('app.notation')), ' ', notationSelect),
      h('label', { class: 'lang' }, h('span', { class: 'label-text' }, t('app.pieces')), ' ', pieces),
      h('label', { class: 'lang' }, h('span', { class: 'label-text' }, t('app.language')), ' ', select)));
}

async function logout() {
  try {
    await api('POST', '/api/logout');
  } catch {
    // the cookie is gone either way for this page
  }
  me = null;
  location.hash = '#/';
  route();
}

/** @param {HTMLElement} page */
function show(page) {
  document.title = t('app.title');
  document.body.replaceChildren(header(), page);
}

// ---------------------------------------------------------------------------------- lobby

function lobbyPage() {
  /** @type {TableSummary[]} */
  let tables = [];
  let message = '';
  let accountMessage = '';
  let stopped = false;
  const form = { variant: 'xiangqi', minutes: 10, increment: 5, timed: true, rated: false, limit: 120, flags: true };
  /** @type {import('./protocol.js').FinishedPage} */
  let finished = { games: [], next: null };
  /** the `before` of each page shown so far: the current page's is the last (null: the newest) */
  /** @type {(string | null)[]} */
  const cursors = [null];
  /** @type {import('./protocol.js').RatingInfo[] | null} */
  let ratings = null;
  /** what was typed in the session forms, kept across redraws (passwords are not kept) */
  /** @type {Record<string, string>} */
  const typed = { name: '', 'login-name': '', 'register-name': '' };
  /** @param {string} id */
  const keep = (id) => ({
    id, value: typed[id],
    oninput: (/** @type {Event} */ e) => { typed[id] = /** @type {HTMLInputElement} */ (e.target).value; },
  });

  const listNode = () => {
    const rows = tables.map((tb) => {
      const free = tb.phase === 'open' && tb.seats.some((s) => s === null);
      return h('tr', { 'data-table': tb.id },
        h('td', {}, t(`variant.${tb.options.variant}`), ratedBadge(tb.options.rated) ? ' ' : null, ratedBadge(tb.options.rated)),
        h('td', { 'data-label': t('lobby.time') }, timeText(tb.options.time)),
        h('td', { class: 'seats' }, ...tb.seats.map((s, i) => h('span', { class: `seat-chip${s ? '' : ' free'}`, title: occupant(s) },
          `${seatLabel(tb.options.variant, i)}: ${occupant(s)}`))),
        h('td', { 'data-label': t('lobby.phase') }, t(`phase.${tb.phase}`)),
        h('td', {}, h('a', { class: 'button', href: `#/t/${tb.id}` }, free ? t('lobby.open_table') : t('lobby.watch'))));
    });
    return h('section', { class: 'card' }, h('h2', {}, t('lobby.tables')),
      tables.length === 0 ? h('p', { class: 'muted' }, t('lobby.none'))
        : h('table', { class: 'tables', id: 'tables' },
          h('thead', {}, h('tr', {}, h('th', {}, t('lobby.variant')), h('th', {}, t('lobby.time')),
            h('th', {}, t('lobby.seats')), h('th', {}, t('lobby.phase')), h('th', {}))),
          h('tbody', {}, ...rows)));
  };

  const finishedNode = () => {
    const rows = finished.games.map((g) => {
      const variant = g.options.variant;
      return h('tr', { 'data-game': g.id, class: 'game-row', onclick: () => { location.hash = `#/t/${g.id}`; } },
        h('td', { class: 'date' }, formatDate(g.ended_ms)),
        h('td', {}, t(`variant.${variant}`)),
        h('td', { class: 'seats' }, ...g.seats.map((s, i) => h('span', { class: `seat-chip${g.winner_seats.includes(i) ? ' won' : ''}`, title: occupant(s) },
          `${seatLabel(variant, i)}: ${occupant(s)}`))),
        h('td', { class: 'result' }, resultLine(variant, g.outcome, g.winner_seats)),
        h('td', { class: 'plies', 'data-label': t('lobby.moves') }, String(g.plies)),
        h('td', {}, h('a', { class: 'button', href: `#/t/${g.id}` }, t('lobby.review'))));
    });
    const page = cursors.length;
    return h('section', { class: 'card' }, h('h2', {}, t('lobby.finished')),
      finished.games.length === 0 ? h('p', { class: 'muted' }, t('lobby.no_finished'))
        : h('div', { class: 'scroll-x' }, h('table', { class: 'tables finished', id: 'finished' },
          h('thead', {}, h('tr', {}, h('th', {}, t('lobby.date')), h('th', {}, t('lobby.variant')),
            h('th', {}, t('lobby.players')), h('th', {}, t('lobby.result')), h('th', {}, t('lobby.moves')), h('th', {}))),
          h('tbody', {}, ...rows))),
      page > 1 || finished.next ? h('div', { class: 'pager' },
        h('button', { id: 'finished-newer', disabled: page === 1, onclick: () => { cursors.pop(); loadFinished(); } }, t('lobby.newer')),
        h('span', { class: 'muted' }, t('lobby.page', { n: page })),
        h('button', { id: 'finished-older', disabled: !finished.next, onclick: () => { cursors.push(finished.next); loadFinished(); } }, t('lobby.older')))
        : null);
  };

  const ratingsNode = () => {
    if (!me?.account) return null;
    const list = ratings ?? [];
    return h('section', { class: 'card ratings', id: 'ratings' }, h('h2', {}, t('ratings.title')),
      ratings === null ? h('p', { class: 'muted' }, t('app.connecting'))
        : list.length === 0 ? h('p', { class: 'muted', id: 'no-ratings' }, t('ratings.none'))
          : h('ul', {}, ...list.map((r) => h('li', { 'data-variant': r.variant },
            h('strong', {}, t(`variant.${r.variant}`)), ' ',
            h('span', { class: 'rating' }, `${Math.round(r.rating)} ± ${Math.round(r.deviation)}`), ' · ',
            t('ratings.games', { n: r.games })))));
  };

  const listBox = h('div', { id: 'tables-box' });
  const finishedBox = h('div', { id: 'finished-box' });
  const ratingsBox = h('div', { id: 'ratings-box' });
  const messageBox = h('div', { id: 'lobby-message' });
  const drawList = () => {
    listBox.replaceChildren(listNode());
    finishedBox.replaceChildren(finishedNode());
    ratingsBox.replaceChildren(ratingsNode() ?? '');
    messageBox.replaceChildren(message ? h('p', { class: 'error', role: 'alert' }, message) : '');
  };

  /**
   * Signs in through `path` with the inputs of a form and redraws the lobby.
   * @param {string} path
   * @param {unknown} body
   */
  const signIn = async (path, body) => {
    try {
      me = await api('POST', path, body);
      accountMessage = '';
      message = '';
      ratings = null;
      draw();
      loadRatings();
    } catch (err) {
      accountMessage = accountErrorText(err);
      draw();
    }
  };
  /** @param {string} id */
  const value = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id)).value;

  const draw = () => {
    const session = me ? null : h('section', { class: 'card session-card', id: 'session-card' },
      h('p', { class: 'lead' }, t('session.needed')),
      h('div', { class: 'session-forms' },
        h('form', {
          class: 'session', id: 'session-form',
          onsubmit: async (/** @type {Event} */ e) => {
            e.preventDefault();
            try {
              me = await api('POST', '/api/session', { name: value('name') });
              accountMessage = '';
              draw();
            } catch (err) {
              accountMessage = errorText(err);
              draw();
            }
          },
        }, h('h3', {}, t('session.as_guest')),
        h('input', { ...keep('name'), required: true, maxlength: 24, placeholder: t('session.name'), 'aria-label': t('session.name') }),
        h('button', { type: 'submit', id: 'enter' }, t('session.enter'))),
        h('form', {
          class: 'session', id: 'login-form',
          onsubmit: (/** @type {Event} */ e) => {
            e.preventDefault();
            signIn('/api/login', { name: value('login-name'), password: value('login-password') });
          },
        }, h('h3', {}, t('session.login_title')),
        h('input', { ...keep('login-name'), required: true, maxlength: 24, autocomplete: 'username', placeholder: t('session.account_name'), 'aria-label': t('session.account_name') }),
        h('input', { id: 'login-password', type: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'current-password', placeholder: t('session.password'), 'aria-label': t('session.password') }),
        h('button', { type: 'submit', id: 'login' }, t('session.login'))),
        h('form', {
          class: 'session', id: 'register-form',
          onsubmit: (/** @type {Event} */ e) => {
            e.preventDefault();
            signIn('/api/accounts', { name: value('register-name'), password: value('register-password') });
          },
        }, h('h3', {}, t('session.register_title')),
        h('input', { ...keep('register-name'), required: true, maxlength: 24, autocomplete: 'username', placeholder: t('session.account_name'), 'aria-label': t('session.account_name') }),
        h('input', { id: 'register-password', type: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password', placeholder: t('session.new_password'), 'aria-label': t('session.new_password') }),
        h('button', { type: 'submit', id: 'register' }, t('session.register')))),
      accountMessage ? h('p', { class: 'error', role: 'alert', id: 'session-error' }, accountMessage) : null);

    // rated games are for account holders: a guest cannot ask for one
    const guest = !!me && !me.account;
    /** @param {string} key @param {Node} input */
    const field = (key, input) => h('label', { class: 'field' }, h('span', {}, t(key)), input);
    const create = h('form', {
      class: 'card create', id: 'create-form',
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        /** @type {import('./protocol.js').TableOptions} */
        const options = {
          variant: /** @type {any} */ (form.variant),
          time: form.timed ? { initial_ms: Math.round(form.minutes * 60000), increment_ms: Math.round(form.increment * 1000) } : null,
          rated: form.rated && !!me?.account,
          no_capture_limit: form.variant === 'xiangqi' ? form.limit : null,
          flag_bearers: form.variant === 'sanguo' ? form.flags : null,
        };
        try {
          const summary = await api('POST', '/api/tables', options);
          location.hash = `#/t/${summary.id}`;
        } catch (err) {
          message = errorText(err);
          drawList();
        }
      },
    }, h('h2', {}, t('lobby.create')),
    field('lobby.variant', h('select', { id: 'variant', onchange: (/** @type {Event} */ e) => { form.variant = /** @type {HTMLSelectElement} */ (e.target).value; draw(); } },
      ...['xiangqi', 'sanguo', 'banqi'].map((v) => h('option', { value: v, selected: v === form.variant }, t(`variant.${v}`))))),
    field('lobby.untimed', h('input', { type: 'checkbox', id: 'untimed', checked: !form.timed, onchange: (/** @type {Event} */ e) => { form.timed = !(/** @type {HTMLInputElement} */ (e.target).checked); draw(); } })),
    form.timed ? field('lobby.minutes', h('input', { type: 'number', id: 'minutes', required: true, min: 1, max: 180, step: 1, value: form.minutes, onchange: (/** @type {Event} */ e) => { form.minutes = Number(/** @type {HTMLInputElement} */ (e.target).value); } })) : null,
    form.timed ? field('lobby.increment', h('input', { type: 'number', id: 'increment', required: true, min: 0, max: 600, step: 1, value: form.increment, onchange: (/** @type {Event} */ e) => { form.increment = Number(/** @type {HTMLInputElement} */ (e.target).value); } })) : null,
    form.variant === 'xiangqi' ? field('lobby.no_capture_limit', h('input', { type: 'number', id: 'limit', required: true, min: 0, max: 1000, step: 1, value: form.limit, onchange: (/** @type {Event} */ e) => { form.limit = Number(/** @type {HTMLInputElement} */ (e.target).value); } })) : null,
    form.variant === 'sanguo' ? field('lobby.flag_bearers', h('input', { type: 'checkbox', id: 'flags', checked: form.flags, onchange: (/** @type {Event} */ e) => { form.flags = /** @type {HTMLInputElement} */ (e.target).checked; } })) : null,
    field('lobby.rated', h('input', {
      type: 'checkbox', id: 'rated', checked: guest ? false : form.rated, disabled: guest,
      'aria-describedby': guest ? 'rated-hint' : undefined,
      onchange: (/** @type {Event} */ e) => { form.rated = /** @type {HTMLInputElement} */ (e.target).checked; },
    })),
    guest ? h('p', { class: 'muted hint', id: 'rated-hint' }, t('lobby.rated_needs_account')) : null,
    h('button', { type: 'submit', id: 'create', disabled: !me }, t('lobby.create_button')));

    show(h('main', { class: 'lobby' }, session, ratingsBox, messageBox, listBox, create, finishedBox, rulesLinks()));
    drawList();
  };

  const loadFinished = async () => {
    const before = cursors[cursors.length - 1];
    try {
      const page = await api('GET', `/api/games?limit=10${before ? `&before=${encodeURIComponent(before)}` : ''}`);
      if (cursors[cursors.length - 1] === before) finished = page;
    } catch (err) {
      message = errorText(err);
    }
    if (!stopped) drawList();
  };

  const loadRatings = async () => {
    if (!me?.account) return;
    try {
      ratings = await api('GET', `/api/players/${encodeURIComponent(me.id)}/ratings`);
    } catch (err) {
      message = errorText(err);
    }
    if (!stopped) drawList();
  };

  const refresh = async () => {
    if (stopped) return;
    try {
      tables = await api('GET', '/api/tables');
    } catch (err) {
      message = errorText(err);
    }
    if (!stopped) drawList();
    // the newest finished games come in as tables end
    if (cursors.length === 1) loadFinished();
  };
  draw();
  refresh();
  loadRatings();
  const timer = setInterval(refresh, 2500);
  redraw = draw;
  leavePage = () => { stopped = true; clearInterval(timer); };
}

// ---------------------------------------------------------------------------------- table

/** @param {string} id */
function tablePage(id) {
  /** @type {StateMessage | null} */
  let state = null;
  let receivedAt = 0;
  /** @type {string | null} */
  let selected = null;
  let notice = '';
  let connection = t('app.connecting');
  let level = 3;
  /**
   * Stepping through an ended game: the server's positions (one per ply and the start) and the
   * ply shown; `null` while the game runs or until the positions arrive.
   * @type {{positions: import('./protocol.js').Positions, ply: number} | null}
   */
  let review = null;
  let reviewLoading = false;
  /** whether the server answered 404 for this table: the page says so and stops retrying */
  let missing = false;

  const socket = new TableSocket(id, (msg) => {
    if (msg.type === 'state') {
      state = msg;
      // the last state, for the browser tests
      /** @type {any} */ (window).chuheState = msg;
      receivedAt = performance.now();
      if (selected && !state.legal_moves.some((m) => moveEnds(m).from === selected)) selected = null;
      notice = '';
      if (state.table.phase === 'ended') loadPositions();
      draw();
    } else if (msg.type === 'error') {
      notice = msg.code === 'not_your_turn' ? t('error.not_your_turn')
        : msg.code === 'not_ready' ? t('error.not_ready')
          : t('error.generic', { message: msg.message });
      draw();
    }
  }, (status) => {
    if (missing) return;
    connection = status === 'lost' ? t('app.reconnecting') : '';
    if (status !== 'closed') draw();
    // no state yet and the socket failed: a table the server does not know stops the retries
    if (status === 'lost' && !state) checkExists();
  });

  /** Asks the server whether the table exists; a 404 shows that and closes the socket. */
  const checkExists = async () => {
    try {
      await api('GET', `/api/tables/${id}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && !missing) {
        missing = true;
        socket.close();
        draw();
      }
    }
  };
  // tests reach the socket to drop it as a network failure would
  /** @type {any} */ (window).chuheSocket = socket;

  /** @param {import('./protocol.js').ClientMessage} msg */
  const send = (msg) => socket.send(msg);

  /** Fetches the positions of the ended game once (the step-through reads only these). */
  const loadPositions = async () => {
    if (reviewLoading || (review && review.positions.moves.length === state?.board.moves.length)) return;
    reviewLoading = true;
    try {
      /** @type {import('./protocol.js').Positions} */
      const positions = await api('GET', `/api/tables/${id}/positions`);
      review = { positions, ply: positions.moves.length };
      // for the browser tests
      /** @type {any} */ (window).chuheReview = review;
      draw();
    } catch (err) {
      notice = errorText(err);
      draw();
    } finally {
      reviewLoading = false;
    }
  };

  /** @param {number} ply */
  const goTo = (ply) => {
    if (!review) return;
    review.ply = Math.max(0, Math.min(review.positions.moves.length, ply));
    draw();
  };

  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    if (!review || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = /** @type {HTMLElement | null} */ (e.target);
    if (target && ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName)) return;
    const step = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    goTo(Number.isFinite(step) ? review.ply + step : step < 0 ? 0 : review.positions.moves.length);
  };
  window.addEventListener('keydown', onKey);

  /** @param {string} sq */
  const pick = (sq) => {
    if (!state) return;
    const moves = state.legal_moves.map((m) => ({ text: m, ...moveEnds(m) }));
    const flip = moves.find((m) => m.flip && m.from === sq);
    if (flip) {
      selected = null;
      send({ type: 'move', version: state.version, move: flip.text });
      return;
    }
    if (selected) {
      const mv = moves.find((m) => !m.flip && m.from === selected && m.to === sq);
      if (mv) {
        selected = null;
        send({ type: 'move', version: state.version, move: mv.text });
        draw();
        return;
      }
    }
    selected = moves.some((m) => !m.flip && m.from === sq) && selected !== sq ? sq : null;
    draw();
  };

  /**
   * The pointer released over `sq`: a drop when it differs from the selected piece's square.
   * @param {string} sq
   */
  const drop = (sq) => {
    if (!state || !selected || sq === selected) return;
    const mv = state.legal_moves.map((m) => ({ text: m, ...moveEnds(m) }))
      .find((m) => !m.flip && m.from === selected && m.to === sq);
    if (mv) {
      selected = null;
      send({ type: 'move', version: state.version, move: mv.text });
      draw();
    }
  };

  /** The board of the review's current ply: only what the server's positions say. */
  const reviewBoard = () => {
    const s = /** @type {StateMessage} */ (state);
    const r = /** @type {NonNullable<typeof review>} */ (review);
    const snap = r.positions.positions[r.ply];
    const variant = r.positions.variant;
    const lastText = r.ply > 0 ? r.positions.moves[r.ply - 1] : null;
    const last = lastText ? moveEnds(lastText) : null;
    /** @type {import('./boards.js').Marks} */
    const marks = {
      selected: null, targets: new Map(), last: last ? [last.from, last.to] : [],
      check: generalSquares(variant, snap.position, snap.check), onPick: () => {}, onDrop: () => {},
    };
    if (variant === 'xiangqi') return xiangqiBoard(snap.position, s.you === 1, marks);
    if (variant === 'banqi') return banqiBoard(snap.position, marks);
    const toMove = r.ply < r.positions.moves.length ? readSanguoPosition(snap.position).toMove : null;
    return sanguoBoard(snap.position, s.you ?? 0, toMove, marks);
  };

  const boardNode = () => {
    if (!state) return h('div');
    if (review) return reviewBoard();
    const targets = new Map();
    /** @type {Set<string>} */
    let occupied = new Set();
    if (state.board.variant === 'xiangqi') {
      const { board } = readXiangqiFen(state.board.fen);
      board.forEach((rank, r) => rank.forEach((p, f) => { if (p) occupied.add(`${'abcdefghi'[f]}${r}`); }));
    }
    for (const m of state.legal_moves) {
      const e = moveEnds(m);
      if (!e.flip && e.from === selected) targets.set(e.to, m.includes('x') || occupied.has(e.to));
    }
    const lastText = state.board.moves[state.board.moves.length - 1];
    const last = lastText ? moveEnds(lastText) : null;
    const text = state.board.variant === 'xiangqi' ? state.board.fen
      : state.board.variant === 'banqi' ? state.board.view : state.board.position;
    const check = generalSquares(state.board.variant, text, state.check ?? []);
    /** @type {import('./boards.js').Marks} */
    const marks = { selected, targets, last: last ? [last.from, last.to] : [], check, onPick: pick, onDrop: drop };
    if (state.board.variant === 'xiangqi') return xiangqiBoard(state.board.fen, state.you === 1, marks);
    if (state.board.variant === 'banqi') return banqiBoard(state.board.view, marks);
    return sanguoBoard(state.board.position, state.you ?? 0, state.to_move, marks);
  };

  const clockNode = (/** @type {number} */ seat) => {
    const c = state?.clocks?.[seat];
    if (!c) return null;
    return h('span', { class: `clock${c.running ? ' running' : ''}`, 'data-clock': seat }, formatClock(c.remaining_ms));
  };

  const seatsNode = () => {
    if (!state) return h('div');
    const s = state;
    const variant = s.table.options.variant;
    const colors = s.board.variant === 'banqi' ? s.board.colors : undefined;
    const seated = s.you !== null;
    const open = s.table.phase === 'open';
    // a guest is not offered a seat at a rated table: the server would refuse it
    const ratedForGuest = s.table.options.rated && !me?.account;
    const order = Array.from({ length: SEATS[variant] }, (_, i) => i);
    // the receiver's seat last (nearest to its side of the board)
    if (variant !== 'sanguo' && s.you !== null) order.sort((a, b) => (a === s.you ? 1 : 0) - (b === s.you ? 1 : 0));
    return h('div', { class: 'seats-panel' }, ...order.map((i) => {
      const entry = s.table.seats[i];
      const toMove = s.to_move === i;
      const side = variant === 'xiangqi' ? ['red', 'black'][i] : colors?.[i];
      // banqi before the first flip: no colours yet
      const color = variant === 'sanguo' ? KINGDOM_COLORS[i] : side === 'red' ? '#b3261e' : side === 'black' ? '#1d1d1d' : '#b9ab95';
      // the seat to move: its border and a badge in its own colour (banqi before the first flip: blue)
      const turnColor = variant === 'banqi' && !side ? '#1565c0' : color;
      return h('div', { class: `seat${toMove ? ' to-move' : ''}`, 'data-seat': i, style: toMove ? `border-color:${turnColor}` : undefined },
        h('span', { class: 'dot', style: `background:${color}` }),
        h('span', { class: 'seat-name' }, seatLabel(variant, i, colors)),
        toMove ? h('span', { class: 'turn-badge', style: `background:${turnColor}` }, t('table.moving')) : null,
        h('span', { class: 'occupant', title: occupant(entry) }, occupant(entry), s.you === i ? ` (${t('table.you')})` : '',
          entry && !s.connected[i] && s.table.phase !== 'ended' ? ` · ${t('table.offline')}` : ''),
        clockNode(i),
        open && !entry && me && !seated && ratedForGuest ? h('span', { class: 'muted sit-refused', 'data-no-sit': i }, t('table.rated_guest')) : null,
        open && !entry && me && !seated && !ratedForGuest ? h('button', { class: 'sit', 'data-sit': i, onclick: () => send({ type: 'sit', seat: i }) }, t('table.sit')) : null,
        open && !entry && seated ? h('button', { class: 'computer', 'data-computer': i, onclick: () => send({ type: 'sit_computer', seat: i, level }) }, t('table.computer')) : null,
        open && s.you === i ? h('button', { class: 'stand', onclick: () => send({ type: 'stand' }) }, t('table.stand')) : null);
    }));
  };

  const resultText = () => {
    const s = /** @type {StateMessage} */ (state);
    return s.outcome ? resultLine(s.table.options.variant, s.outcome, s.winner_seats) : '';
  };

  /** Banqi: the pieces each side has lost, from the server's count, in rank order. */
  const capturedNode = () => {
    if (!state || state.board.variant !== 'banqi') return null;
    const snap = review ? review.positions.positions[review.ply] : null;
    const pool = readPool(snap?.captured ?? state.board.captured);
    /** @param {'red' | 'black'} color */
    const row = (color) => h('div', { class: 'lost-row', 'data-color': color },
      h('span', { class: 'lost-label' }, t(`banqi.lost_${color}`)),
      h('span', { class: 'lost-pieces' }, ...(pool[color].length ? pool[color].map((p) => banqiPieceIcon(p, 30))
        : [h('span', { class: 'muted' }, t('banqi.none_lost'))])));
    return h('div', { class: 'card captured', id: 'captured' }, row('red'), row('black'));
  };

  /** The step-through controls of an ended game. */
  const replayNode = () => {
    if (!review) return null;
    const r = review;
    const n = r.positions.moves.length;
    /** @param {string} id @param {string} key @param {string} path @param {number} ply @param {boolean} off */
    const button = (id, key, path, ply, off) => {
      const b = h('button', { id, class: 'step', title: t(key), 'aria-label': t(key), disabled: off, onclick: () => goTo(ply) });
      b.innerHTML = `<svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true"><path d="${path}" fill="currentColor"/></svg>`;
      return b;
    };
    return h('div', { class: 'replay', id: 'replay' },
      button('first', 'replay.first', 'M3 3h3v14H3zM17 3v14L7 10z', 0, r.ply === 0),
      button('prev', 'replay.prev', 'M15 3v14L5 10z', r.ply - 1, r.ply === 0),
      h('span', { class: 'ply', id: 'ply' }, r.ply === 0 ? t('replay.start') : t('replay.ply', { ply: r.ply, plies: n })),
      button('next', 'replay.next', 'M5 3v14l10-7z', r.ply + 1, r.ply === n),
      button('last', 'replay.last', 'M3 3v14l10-7zM14 3h3v14h-3z', n, r.ply === n));
  };

  /** @type {{key: string, moves: string[]}} the server's PGN moves of the last state, by notation */
  let written = { key: '', moves: [] };
  /** Fetches the move list in the chosen notation (xiangqi) when the moves or the notation changed. */
  const fetchWritten = async () => {
    if (!state || state.board.variant !== 'xiangqi' || notation === 'iccs' || state.board.moves.length === 0) return;
    const key = `${notation} ${state.board.moves.length}`;
    if (written.key === key) return;
    try {
      const res = await fetch(`/api/tables/${id}/pgn?notation=${notation}`);
      if (!res.ok) return;
      const moves = pgnMoves(await res.text());
      if (moves.length === state.board.moves.length && `${notation} ${moves.length}` === key) {
        written = { key, moves };
        draw();
      }
    } catch {
      // the list stays in ICCS
    }
  };

  const movesNode = () => {
    if (!state) return h('div');
    const key = `${notation} ${state.board.moves.length}`;
    const moves = written.key === key ? written.moves : state.board.moves;
    if (written.key !== key) fetchWritten();
    const per = SEATS[state.table.options.variant];
    const current = review ? review.ply : moves.length;
    const rows = [];
    for (let i = 0; i < moves.length; i += per) {
      rows.push(h('li', {}, ...moves.slice(i, i + per).map((m, j) => {
        const ply = i + j + 1;
        return h('span', {
          class: `mv${ply === current ? ' current' : ''}`, 'data-ply': ply,
          onclick: review ? () => goTo(ply) : undefined,
        }, m);
      })));
    }
    const list = h('ol', { class: 'moves', id: 'moves' }, ...rows);
    return h('section', { class: 'card moves-card' }, h('h3', {}, t('table.moves')), list);
  };

  const actionsNode = () => {
    if (!state) return h('div');
    const s = state;
    const seated = s.you !== null;
    const running = s.table.phase === 'running';
    const full = s.table.seats.every((x) => x !== null);
    const buttons = [];
    if (s.table.phase === 'open' && seated) {
      buttons.push(h('label', { class: 'field inline' }, t('table.level'), ' ', h('select', {
        id: 'level', onchange: (/** @type {Event} */ e) => { level = Number(/** @type {HTMLSelectElement} */ (e.target).value); },
      }, ...[1, 2, 3, 4, 5, 6, 7, 8].map((l) => h('option', { value: l, selected: l === level }, String(l))))));
      if (full) buttons.push(h('button', { id: 'start', class: 'primary', onclick: () => send({ type: 'start' }) }, t('table.start')));
    }
    if (running && seated) {
      if (s.board.moves.length === 0) buttons.push(h('button', { id: 'abort', onclick: () => send({ type: 'abort' }) }, t('table.abort')));
      if (s.draw_offer !== null && s.draw_offer !== s.you && s.table.options.variant !== 'sanguo') {
        buttons.push(h('button', { id: 'accept-draw', class: 'primary', onclick: () => send({ type: 'accept_draw' }) }, t('table.accept_draw')));
        buttons.push(h('button', { id: 'decline-draw', onclick: () => send({ type: 'decline_draw' }) }, t('table.decline_draw')));
      } else if (s.table.options.variant !== 'sanguo') {
        buttons.push(h('button', { id: 'offer-draw', disabled: s.draw_offer === s.you, onclick: () => send({ type: 'offer_draw' }) }, t('table.offer_draw')));
      }
      buttons.push(h('button', { id: 'resign', onclick: () => { if (confirm(t('table.confirm_resign'))) send({ type: 'resign' }); } }, t('table.resign')));
    }
    if (s.table.options.variant === 'xiangqi' && s.board.moves.length > 0) {
      const notation = lang() === 'zh' ? 'chinese' : 'wxf';
      buttons.push(h('a', { class: 'button', id: 'pgn', href: `/api/tables/${s.table.id}/pgn?notation=${notation}`, download: `chuhe-${s.table.id}.pgn` }, t('table.pgn')));
    }
    buttons.push(h('a', { class: 'button', id: 'leave', href: '#/' }, t('table.leave')));
    return h('div', { class: 'actions' }, ...buttons);
  };

  const statusText = () => {
    if (!state) return t('app.connecting');
    const s = state;
    const variant = s.table.options.variant;
    const colors = s.board.variant === 'banqi' ? s.board.colors : undefined;
    if (s.table.phase === 'open') return s.table.seats.every((x) => x !== null) ? t('table.ready') : t('table.waiting');
    if (s.to_move === null) return '';
    if (s.to_move === s.you) return t('table.your_turn');
    const line = t('table.to_move', { seat: seatLabel(variant, s.to_move, colors) });
    return s.you === null ? `${t('table.spectator')} · ${line}` : line;
  };

  const draw = () => {
    if (missing) {
      show(h('main', { class: 'table-page missing' }, h('section', { class: 'card', id: 'not-found' },
        h('p', { class: 'lead' }, t('table.not_found')),
        h('a', { class: 'button', id: 'back-to-lobby', href: '#/' }, t('table.back_to_lobby')))));
      return;
    }
    const s = state;
    const variant = s?.table.options.variant;
    const title = s ? `${t(`variant.${variant}`)} · ${timeText(s.table.options.time)}` : t('app.connecting');
    const offer = s && s.draw_offer !== null && s.table.phase === 'running'
      ? h('p', { class: 'offer' }, t('table.draw_offered', { seat: seatLabel(/** @type {string} */ (variant), s.draw_offer) })) : null;
    const toMoveColor = s && s.to_move !== null
      ? (variant === 'sanguo' ? KINGDOM_COLORS[s.to_move] : '') : '';
    show(h('main', { class: 'table-page', 'data-variant': variant ?? '' },
      h('div', { class: `board-col${review ? ' reviewing' : ''}` },
        connection ? h('p', { class: 'connection', role: 'status' }, connection) : null,
        s?.outcome ? h('div', { class: 'banner', id: 'result', role: 'status' }, resultText()) : null,
        h('div', { class: 'board-wrap' }, boardNode()),
        replayNode(),
        capturedNode()),
      h('aside', { class: 'side-col' },
        h('h2', {}, title, s?.table.options.rated ? ' ' : null, ratedBadge(!!s?.table.options.rated)),
        statusText() ? h('p', { class: `status${s && s.to_move !== null && s.to_move === s.you ? ' yours' : ''}`, id: 'status', style: toMoveColor ? `border-color:${toMoveColor}` : undefined }, statusText()) : null,
        seatsNode(),
        offer,
        notice ? h('p', { class: 'error', role: 'alert' }, notice) : null,
        actionsNode(),
        movesNode())));
    const list = document.getElementById('moves');
    const current = list?.querySelector('.mv.current');
    if (list && current && review) {
      const li = /** @type {HTMLElement} */ (current.parentElement);
      list.scrollTop = li.offsetTop - list.clientHeight / 2;
    } else if (list) list.scrollTop = list.scrollHeight;
  };

  const tick = setInterval(() => {
    if (!state?.clocks) return;
    const elapsed = performance.now() - receivedAt;
    state.clocks.forEach((c, i) => {
      const node = document.querySelector(`[data-clock="${i}"]`);
      if (node) node.textContent = formatClock(c.running ? c.remaining_ms - elapsed : c.remaining_ms);
    });
  }, 100);

  draw();
  redraw = draw;
  leavePage = () => { clearInterval(tick); socket.close(); window.removeEventListener('keydown', onKey); };
}

// ---------------------------------------------------------------------------------- routing

function route() {
  leavePage();
  leavePage = () => {};
  const m = /^#\/t\/([a-z0-9]+)$/.exec(location.hash);
  const rules = /^#\/rules\/(xiangqi|sanguo|banqi)$/.exec(location.hash);
  if (m) tablePage(m[1]);
  else if (rules) {
    const page = rulesPage(/** @type {'xiangqi' | 'sanguo' | 'banqi'} */ (rules[1]), show);
    page.draw();
    window.scrollTo(0, 0);
    redraw = page.draw;
    leavePage = page.leave;
  } else lobbyPage();
}

async function start() {
  initLang();
  document.documentElement.lang = lang();
  try {
    setPieceSet(pieceSetNamed(localStorage.getItem('chuhe.pieces')));
    const saved = localStorage.getItem('chuhe.notation');
    if (saved === 'wxf' || saved === 'chinese') notation = saved;
  } catch { /* storage disabled */ }
  try {
    me = await api('GET', '/api/me');
  } catch {
    me = null;
  }
  window.addEventListener('hashchange', route);
  route();
}

// iccsSquare is re-exported for tests that map clicks to squares
export { iccsSquare };

start();
