// The lobby (#/): the session forms (guest, login, registration), the account's ratings, the open
// and running tables, the form that creates a table, the daily puzzle, the finished games, the
// rules links.

import { t } from './i18n.js';
import { api } from './net.js';
import { h, patch } from './dom.js';
import { accountErrorText, errorText, levelHint, occupant, ratedBadge, seatLabel, timeText } from './format.js';
import { requestSetup } from './table.js';
import { rulesLinks } from './rules.js';
import { finishedTable, occupantNode } from './player.js';
import { xiangqiBoard } from './boards.js';
import { blackToMove, readXiangqiFen } from './protocol.js';
import { countdownTicker, tournamentsCard } from './tournament.js';
import { dailyCard } from './puzzle.js';

/** @typedef {import('./protocol.js').TableSummary} TableSummary */

/**
 * The side to move of a xiangqi FEN (`w` Red, `b` Black), or null when it does not read.
 * @param {string} fen
 * @returns {'w' | 'b' | null}
 */
function fenSide(fen) {
  try {
    readXiangqiFen(fen);
    return blackToMove(fen) ? 'b' : 'w';
  } catch {
    return null;
  }
}

/**
 * The set-up position a form starts from: a small board, its side to move, and a button that
 * goes back to the usual start.
 * @param {string} id
 * @param {string} fen
 * @param {boolean} computer whether it is the computer's card (the player takes the side to move)
 * @param {() => void} clear
 */
function positionPreview(id, fen, computer, clear) {
  const marks = { selected: null, targets: new Map(), last: [], check: [], onPick: () => {}, onDrop: () => {} };
  return h('div', { class: 'from-position', id },
    h('div', { class: 'mini-board', 'aria-hidden': 'true' }, xiangqiBoard(fen, false, /** @type {any} */ (marks))),
    h('p', {}, t(fenSide(fen) === 'b' ? 'lobby.from_position_black' : 'lobby.from_position_red')),
    h('p', { class: 'muted hint' }, t(computer ? 'lobby.from_position_casual_computer' : 'lobby.from_position_casual')),
    h('button', { type: 'button', id: `${id}-clear`, onclick: clear }, t('lobby.from_position_clear')));
}

/**
 * The lobby page: `draw` draws it again (after a language switch), `leave` stops its polling.
 * @param {import('./app.js').Shell} shell
 * @returns {{draw: () => void, leave: () => void}}
 */
export function lobbyPage(shell) {
  const session = shell.session;
  /** @type {TableSummary[]} */
  let tables = [];
  let message = '';
  let accountMessage = '';
  let stopped = false;
  /** @type {{variant: string, minutes: number, increment: number, timed: boolean, rated: boolean, limit: number, flags: boolean, seat: string, fen: string | null}} */
  const form = { variant: 'xiangqi', minutes: 10, increment: 5, timed: true, rated: false, limit: 120, flags: true, seat: 'random', fen: null };
  /** the game against the computer: variant, level, time (minutes+increment, or none), and a
   * xiangqi position to start from (the board editor's; null: the usual start) */
  /** @type {{variant: string, level: number, time: string, fen: string | null}} */
  const vs = { variant: 'xiangqi', level: 3, time: '10+5', fen: null };
  const VS_TIMES = ['none', '3+2', '5+3', '10+5', '15+10', '30+20'];
  /** "new game" after a game against the computer: its card is shown (once) */
  let showComputerCard = false;
  // "new game" from an ended table: its options fill the form (or the computer's card)
  try {
    const again = JSON.parse(sessionStorage.getItem('chuhe.form') ?? 'null');
    sessionStorage.removeItem('chuhe.form');
    if (again && typeof again === 'object' && again.computer && typeof again.computer === 'object') {
      Object.assign(vs, again.computer);
      if (!VS_TIMES.includes(vs.time)) VS_TIMES.push(vs.time);
      showComputerCard = true;
    } else if (again && typeof again === 'object') Object.assign(form, again);
  } catch { /* nothing kept */ }
  // a set-up position is a xiangqi one that reads, and its game is casual
  if (vs.fen !== null && !fenSide(vs.fen)) vs.fen = null;
  if (vs.fen !== null) vs.variant = 'xiangqi';
  if (form.fen !== null && !fenSide(form.fen)) form.fen = null;
  if (form.fen !== null) Object.assign(form, { variant: 'xiangqi', rated: false });
  /** a game for people from a set-up position: its form is shown (once) */
  let showCreateForm = form.fen !== null;
  /** @type {import('./protocol.js').FinishedPage} */
  let finished = { games: [], next: null };
  /** the `before` of each page shown so far: the current page's is the last (null: the newest) */
  /** @type {(string | null)[]} */
  const cursors = [null];
  /** @type {import('./protocol.js').RatingInfo[] | null} */
  let ratings = null;
  /** @type {import('./puzzle.js').PuzzleAndGame | null} the daily puzzle, once it came */
  let daily = null;
  /** what was typed in the session forms, kept across redraws (passwords are not kept) */
  /** @type {Record<string, string>} */
  const typed = { name: '', 'login-name': '', 'register-name': '' };
  /** @param {string} id */
  const keep = (id) => ({
    id, value: typed[id],
    oninput: (/** @type {Event} */ e) => { typed[id] = /** @type {HTMLInputElement} */ (e.target).value; },
  });

  /** @param {TableSummary} tb whether the signed-in player sits at `tb` */
  const mine = (tb) => !!session.me && tb.seats.some((s) => s?.kind === 'person' && s.id === session.me?.id);

  /** The player's running game (or open table), with the way back to it. */
  const yourGameNode = () => {
    const tb = tables.find((x) => x.phase === 'running' && mine(x));
    if (!tb) return null;
    return h('section', { class: 'card your-game', id: 'your-game', role: 'status' },
      h('p', { class: 'lead' }, t('lobby.your_game', { variant: t(`variant.${tb.options.variant}`) })),
      h('a', { class: 'button primary', id: 'back-to-game', href: `#/t/${tb.id}` }, t('lobby.back_to_game')));
  };

  const listNode = () => {
    const rows = tables.map((tb) => {
      const free = tb.phase === 'open' && tb.seats.some((s) => s === null);
      // the id keeps a row's element while its table stays listed (see `fill`)
      return h('tr', { 'data-table': tb.id, id: `table-row-${tb.id}` },
        h('td', {}, t(`variant.${tb.options.variant}`), ratedBadge(tb.options.rated) ? ' ' : null, ratedBadge(tb.options.rated)),
        h('td', { 'data-label': t('lobby.time') }, timeText(tb.options.time)),
        h('td', { class: 'seats' }, ...tb.seats.map((s, i) => h('span', { class: `seat-chip${s ? '' : ' free'}`, title: occupant(s) },
          `${seatLabel(tb.options.variant, i)}: `, occupantNode(s, tb.options.variant, drawList)))),
        h('td', { 'data-label': t('lobby.phase') }, t(`phase.${tb.phase}`)),
        h('td', {}, h('a', { class: `button${mine(tb) ? ' primary' : ''}`, href: `#/t/${tb.id}` },
          mine(tb) ? t('lobby.resume') : free ? t('lobby.open_table') : t('lobby.watch'))));
    });
    return h('section', { class: 'card' }, h('h2', {}, t('lobby.tables')),
      tables.length === 0 ? h('p', { class: 'muted' }, t('lobby.none'))
        : h('table', { class: 'tables', id: 'tables' },
          h('thead', {}, h('tr', {}, h('th', {}, t('lobby.variant')), h('th', {}, t('lobby.time')),
            h('th', {}, t('lobby.seats')), h('th', {}, t('lobby.phase')), h('th', {}))),
          h('tbody', {}, ...rows)));
  };

  const finishedNode = () => {
    const page = cursors.length;
    return h('section', { class: 'card' }, h('h2', {}, t('lobby.finished')),
      finished.games.length === 0 ? h('p', { class: 'muted' }, t('lobby.no_finished'))
        : finishedTable(finished.games, drawList),
      page > 1 || finished.next ? h('div', { class: 'pager' },
        h('button', { id: 'finished-newer', disabled: page === 1, onclick: () => { cursors.pop(); loadFinished(); } }, t('lobby.newer')),
        h('span', { class: 'muted' }, t('lobby.page', { n: page })),
        h('button', { id: 'finished-older', disabled: !finished.next, onclick: () => { cursors.push(finished.next); loadFinished(); } }, t('lobby.older')))
        : null);
  };

  const ratingsNode = () => {
    if (!session.me?.account) return null;
    const list = ratings ?? [];
    return h('section', { class: 'card ratings', id: 'ratings' }, h('h2', {}, t('ratings.title')),
      ratings === null ? h('p', { class: 'muted' }, t('app.connecting'))
        : list.length === 0 ? h('p', { class: 'muted', id: 'no-ratings' }, t('ratings.none'))
          : h('ul', {}, ...list.map((r) => h('li', { 'data-variant': r.variant },
            h('strong', {}, t(`variant.${r.variant}`)), ' ',
            h('span', { class: 'rating' }, `${Math.round(r.rating)} ± ${Math.round(r.deviation)}`), ' · ',
            t('ratings.games', { n: r.games })))),
      h('p', {}, h('a', { href: `#/p/${session.me.id}`, id: 'my-page' }, t('player.my_page'))));
  };

  const listBox = h('div', { id: 'tables-box' });
  const finishedBox = h('div', { id: 'finished-box' });
  const ratingsBox = h('div', { id: 'ratings-box' });
  const messageBox = h('div', { id: 'lobby-message' });
  const yourGameBox = h('div', { id: 'your-game-box' });
  const tournamentsBox = h('div', { id: 'tournaments-box' });
  const dailyBox = h('div', { id: 'daily-box' });
  const tournaments = tournamentsCard(() => { if (!stopped) fill(tournamentsBox, tournaments.node()); });
  /**
   * Shows `node` in `box`, patching what is there in place: a row being tapped while the lists
   * refresh stays the same element, so the tap is not lost.
   * @param {HTMLElement} box
   * @param {Node | null} node
   */
  const fill = (box, node) => { patch(box, h('div', { id: box.id }, node)); };
  const drawList = () => {
    fill(yourGameBox, yourGameNode());
    fill(tournamentsBox, tournaments.node());
    fill(dailyBox, dailyCard(daily));
    fill(listBox, listNode());
    fill(finishedBox, finishedNode());
    fill(ratingsBox, ratingsNode());
    fill(messageBox, message ? h('p', { class: 'error', role: 'alert' }, message) : null);
  };

  /**
   * Signs in through `path` with the inputs of a form and redraws the lobby.
   * @param {string} path
   * @param {unknown} body
   */
  const signIn = async (path, body) => {
    try {
      session.me = await api('POST', path, body);
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
    const sessionCard = session.me ? null : h('section', { class: 'card session-card', id: 'session-card' },
      h('p', { class: 'lead' }, t('session.needed')),
      h('div', { class: 'session-forms' },
        h('form', {
          class: 'session', id: 'session-form',
          onsubmit: async (/** @type {Event} */ e) => {
            e.preventDefault();
            try {
              session.me = await api('POST', '/api/session', { name: value('name') });
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
    const guest = !!session.me && !session.me.account;
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
          rated: form.rated && !!session.me?.account,
          no_capture_limit: form.variant === 'xiangqi' ? form.limit : null,
          flag_bearers: form.variant === 'sanguo' ? form.flags : null,
        };
        if (form.fen !== null) Object.assign(options, { fen: form.fen, rated: false });
        try {
          // the creator sits at the side chosen (or one at random); the game starts when full
          const seats = form.variant === 'sanguo' ? 3 : 2;
          const seat = form.seat !== 'random' && Number(form.seat) < seats ? form.seat : 'random';
          const summary = await api('POST', `/api/tables?seat=${seat}`, options);
          location.hash = `#/t/${summary.id}`;
        } catch (err) {
          message = errorText(err);
          drawList();
        }
      },
    }, h('h2', {}, t('lobby.create')),
    form.fen !== null ? positionPreview('create-from', form.fen, false, () => { form.fen = null; draw(); }) : null,
    field('lobby.variant', h('select', { id: 'variant', disabled: form.fen !== null, onchange: (/** @type {Event} */ e) => { form.variant = /** @type {HTMLSelectElement} */ (e.target).value; draw(); } },
      ...['xiangqi', 'sanguo', 'banqi'].map((v) => h('option', { value: v, selected: v === form.variant }, t(`variant.${v}`))))),
    field('lobby.untimed', h('input', { type: 'checkbox', id: 'untimed', checked: !form.timed, onchange: (/** @type {Event} */ e) => { form.timed = !(/** @type {HTMLInputElement} */ (e.target).checked); draw(); } })),
    field('lobby.your_seat', h('select', { id: 'seat', onchange: (/** @type {Event} */ e) => { form.seat = /** @type {HTMLSelectElement} */ (e.target).value; } },
      h('option', { value: 'random', selected: form.seat === 'random' }, t('lobby.seat_random')),
      ...Array.from({ length: form.variant === 'sanguo' ? 3 : 2 }, (_, i) => h('option', { value: String(i), selected: form.seat === String(i) }, t(`seat.${form.variant}.${i}`))))),
    form.timed ? field('lobby.minutes', h('input', { type: 'number', id: 'minutes', required: true, min: 1, max: 180, step: 1, value: form.minutes, onchange: (/** @type {Event} */ e) => { form.minutes = Number(/** @type {HTMLInputElement} */ (e.target).value); } })) : null,
    form.timed ? field('lobby.increment', h('input', { type: 'number', id: 'increment', required: true, min: 0, max: 600, step: 1, value: form.increment, onchange: (/** @type {Event} */ e) => { form.increment = Number(/** @type {HTMLInputElement} */ (e.target).value); } })) : null,
    form.variant === 'xiangqi' ? field('lobby.no_capture_limit', h('input', { type: 'number', id: 'limit', required: true, min: 0, max: 1000, step: 1, value: form.limit, onchange: (/** @type {Event} */ e) => { form.limit = Number(/** @type {HTMLInputElement} */ (e.target).value); } })) : null,
    form.variant === 'sanguo' ? field('lobby.flag_bearers', h('input', { type: 'checkbox', id: 'flags', checked: form.flags, onchange: (/** @type {Event} */ e) => { form.flags = /** @type {HTMLInputElement} */ (e.target).checked; } })) : null,
    field('lobby.rated', h('input', {
      type: 'checkbox', id: 'rated', checked: guest || form.fen !== null ? false : form.rated, disabled: guest || form.fen !== null,
      'aria-describedby': guest ? 'rated-hint' : undefined,
      onchange: (/** @type {Event} */ e) => { form.rated = /** @type {HTMLInputElement} */ (e.target).checked; },
    })),
    guest ? h('p', { class: 'muted hint', id: 'rated-hint' }, t('lobby.rated_needs_account')) : null,
    h('button', { type: 'submit', id: 'create', disabled: !session.me }, t('lobby.create_button')));

    /** @param {string} key @param {Node} input */
    const vsField = (key, input) => h('label', { class: 'field' }, h('span', {}, t(key)), input);
    const computer = h('form', {
      class: 'card create vs-computer', id: 'vs-form',
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        const [m, inc] = vs.time.split('+').map(Number);
        /** @type {import('./protocol.js').TableOptions} */
        const options = {
          variant: /** @type {any} */ (vs.variant),
          time: vs.time === 'none' ? null : { initial_ms: m * 60000, increment_ms: inc * 1000 },
          rated: false, no_capture_limit: null, flag_bearers: null,
        };
        // from a set-up position the player takes the side to move
        const seat = vs.fen !== null && fenSide(vs.fen) === 'b' ? 1 : 0;
        if (vs.fen !== null) options.fen = vs.fen;
        try {
          // seated at once: the computer takes the other seats, and the game starts as the
          // last one is taken
          const summary = await api('POST', `/api/tables?seat=${seat}`, options);
          requestSetup(summary.id, seat, vs.level);
          location.hash = `#/t/${summary.id}`;
        } catch (err) {
          message = errorText(err);
          drawList();
        }
      },
    }, h('h2', {}, t('lobby.vs_title')),
    vs.fen !== null ? positionPreview('vs-from', vs.fen, true, () => { vs.fen = null; draw(); }) : null,
    vsField('lobby.variant', h('select', { id: 'vs-variant', disabled: vs.fen !== null, onchange: (/** @type {Event} */ e) => { vs.variant = /** @type {HTMLSelectElement} */ (e.target).value; draw(); } },
      ...['xiangqi', 'sanguo', 'banqi'].map((v) => h('option', { value: v, selected: v === vs.variant }, t(`variant.${v}`))))),
    vsField('table.level', h('select', { id: 'vs-level', onchange: (/** @type {Event} */ e) => { vs.level = Number(/** @type {HTMLSelectElement} */ (e.target).value); draw(); } },
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((l) => h('option', { value: l, selected: l === vs.level }, `${l} · ${t(`level.${l}`)}`)))),
    vsField('lobby.time', h('select', { id: 'vs-time', onchange: (/** @type {Event} */ e) => { vs.time = /** @type {HTMLSelectElement} */ (e.target).value; } },
      ...VS_TIMES.map((x) => h('option', { value: x, selected: x === vs.time }, x === 'none' ? t('lobby.untimed') : x)))),
    h('button', { type: 'submit', id: 'vs-play', class: 'primary', disabled: !session.me }, t('lobby.vs_play')),
    h('p', { class: 'muted hint level-hint', id: 'vs-level-hint' }, levelHint(vs.level)),
    session.me ? null : h('p', { class: 'muted hint' }, t('lobby.vs_needs_session')));

    shell.show(h('main', { class: 'lobby' }, yourGameBox, sessionCard, computer, dailyBox, ratingsBox, messageBox, tournamentsBox, listBox, create, finishedBox, rulesLinks()));
    drawList();
    if (showComputerCard) {
      showComputerCard = false;
      computer.scrollIntoView({ block: 'start' });
      document.getElementById('vs-play')?.focus({ preventScroll: true });
    } else if (showCreateForm) {
      showCreateForm = false;
      create.scrollIntoView({ block: 'start' });
      document.getElementById('create')?.focus({ preventScroll: true });
    }
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
    if (!session.me?.account) return;
    try {
      ratings = await api('GET', `/api/players/${encodeURIComponent(session.me.id)}/ratings`);
    } catch (err) {
      message = errorText(err);
    }
    if (!stopped) drawList();
  };

  const loadDaily = async () => {
    try {
      daily = await api('GET', '/api/puzzle/daily');
    } catch {
      daily = null; // no puzzles: no card
    }
    // in its own box, patched in place: a whole redraw would take the focus (and a tap) away
    if (!stopped && daily) fill(dailyBox, dailyCard(daily));
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
    tournaments.load();
  };
  draw();
  refresh();
  loadRatings();
  loadDaily();
  const timer = setInterval(refresh, 2500);
  const tourTick = setInterval(countdownTicker(), 1000);
  return { draw, leave: () => { stopped = true; clearInterval(timer); clearInterval(tourTick); } };
}
