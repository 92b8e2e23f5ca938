// The tournaments (docs/tournaments.md, docs/protocol.md "Tournaments" and "Swiss"): the list
// #/tournaments (arenas, sanguo arenas and Swiss events) with the form that creates an arena or a
// Swiss event, the arena page #/tournament/ID (countdown,
// join / withdraw / pause, live standings with each player's results, the games in play, the
// rules of the event, the podium), and the lobby's small card of the coming and running ones.
// The page follows the server's NDJSON stream GET /api/tournament/{id}/stream (read with fetch);
// when the signed-in player is paired, it takes them to their table. A sanguo arena's games have
// three players; the Swiss event's page is swiss.js (#/swiss/ID).

import { t } from './i18n.js';
import { api } from './net.js';
import { h } from './dom.js';
import { errorText, ratedBadge } from './format.js';

/**
 * A tournament as `GET /api/tournament` lists it (lichess's shape; chuhe's own fields below).
 * @typedef {{id: string, fullName: string, minutes: number, clock: {limit: number, increment: number},
 *   rated: boolean, berserkable: boolean, variant: any, nbPlayers: number, startsAt: number,
 *   finishesAt: number, status: number, createdBy?: string, winner?: {id: string, name: string},
 *   system?: 'arena' | 'swiss', round?: number, nbRounds?: number}} TourSummary
 */
/**
 * A game's result in a player's line: o the opponent's name, r win/draw/loss, p its points,
 * f on fire, b a berserk point; in a sanguo arena o names both opponents, k is the kingdom and pl
 * the placing.
 * @typedef {{o: string, r: 'win' | 'draw' | 'loss', p: number, f: boolean, b: boolean, k?: string, pl?: string}} TourResult
 */
/**
 * @typedef {{id: string, name: string, rank: number, rating: number, score: number,
 *   sheet: {scores: string, fire: boolean}, withdraw?: boolean, results?: TourResult[],
 *   playing?: string}} TourPlayer
 */
/**
 * @typedef {{n: string, r: number, k: number}} DuelSide
 * @typedef {{name: string, rank: number, rating: number, score: number,
 *   nb: {game: number, berserk: number, win: number}, performance: number | null}} PodiumLine
 * @typedef {TourSummary & {variant: string, isStarted: boolean, isFinished: boolean, sanguo?: boolean,
 *   secondsToStart?: number, secondsToFinish?: number, standing: {page: number, players: TourPlayer[]},
 *   duels: {id: string, p: DuelSide[]}[], podium?: PodiumLine[]}} TourView
 */

/**
 * `m:ss`, or `h:mm:ss` from an hour, of `ms` (never below zero).
 * @param {number} ms
 */
export function countdownText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/**
 * The clock of a tournament as `3+2` (minutes, or seconds under a minute, then the increment).
 * @param {{limit: number, increment: number}} clock
 */
export function tourClockText(clock) {
  const base = clock.limit < 60 ? `${clock.limit}s` : String(Math.round(clock.limit / 60 * 100) / 100);
  return `${base}+${clock.increment}`;
}

/**
 * The variant key of a listed tournament (`variant` is an object in the list, a string in the view).
 * @param {TourSummary} x
 * @returns {string}
 */
function variantOf(x) {
  return typeof x.variant === 'string' ? x.variant : x.variant?.key ?? 'xiangqi';
}

/**
 * The text of a failed tournament request: lichess's routes answer `{"error": "..."}`.
 * @param {unknown} e
 */
function tourError(e) {
  return errorText(e);
}

/**
 * The countdown elements of a page (`data-until`: a time in `performance.now()` milliseconds)
 * written again: the returned function is called every second.
 * @returns {() => void}
 */
export function countdownTicker() {
  return () => {
    for (const node of document.querySelectorAll('[data-until]')) {
      const until = Number(node.getAttribute('data-until'));
      node.textContent = countdownText(until - performance.now());
    }
  };
}

/**
 * A countdown element: the time left until `ms` from now, kept up by {@link countdownTicker}.
 * @param {number} ms the time left when drawn
 * @param {number} receivedAt `performance.now()` when `ms` was measured
 * @param {string} id
 */
export function countdownNode(ms, receivedAt, id) {
  const until = Math.round(receivedAt + ms);
  return h('span', { class: 'countdown', id, 'data-until': until }, countdownText(until - performance.now()));
}

/**
 * One line of a tournament list: name, variant, clock, players, and its countdown or podium.
 * @param {TourSummary} x
 * @param {'created' | 'started' | 'finished'} phase
 * @param {number} skew the server's clock minus this one's, milliseconds
 */
function listRow(x, phase, skew) {
  const now = performance.now();
  const variant = variantOf(x);
  const swiss = x.system === 'swiss';
  const href = swiss ? `#/swiss/${x.id}` : `#/tournament/${x.id}`;
  const when = phase === 'created'
    ? h('span', {}, t('tour.starts_in'), ' ', countdownNode(x.startsAt - (Date.now() + skew), now, `tour-start-${x.id}`))
    : phase === 'started' && swiss
      ? h('span', {}, t('swiss.round_of', { n: x.round ?? 0, of: x.nbRounds ?? 0 }))
    : phase === 'started'
      ? h('span', {}, t('tour.ends_in'), ' ', countdownNode(x.finishesAt - (Date.now() + skew), now, `tour-end-${x.id}`))
      : x.winner ? h('span', { class: 'winner' }, h('span', { class: 'medal medal-1 small-medal' }, '1'), ' ', x.winner.name)
        : h('span', { class: 'muted' }, t('tour.finished'));
  return h('tr', { id: `tour-row-${x.id}`, 'data-tournament': x.id, 'data-system': swiss ? 'swiss' : 'arena', class: 'tour-row', onclick: () => { location.hash = href; } },
    h('td', {}, h('a', { href, class: 'tour-name' }, x.fullName), swiss ? h('span', { class: 'system-badge' }, ` ${t('swiss.badge')}`) : null,
      x.rated ? ' ' : null, ratedBadge(x.rated),
      x.berserkable ? h('span', { class: 'berserk-mark', title: t('tour.berserkable') }, ' ⚡') : null),
    h('td', {}, t(`variant.${variant}`)),
    h('td', { 'data-label': t('lobby.time') }, tourClockText(x.clock)),
    h('td', { 'data-label': t('tour.players') }, String(x.nbPlayers)),
    h('td', { class: 'when' }, when));
}

/**
 * The tables of a tournament list, by phase.
 * @param {{created: TourSummary[], started: TourSummary[], finished: TourSummary[]}} list
 * @param {('created' | 'started' | 'finished')[]} phases
 * @param {number} skew
 */
function listTable(list, phases, skew) {
  const rows = phases.flatMap((phase) => (list[phase] ?? []).map((x) => listRow(x, phase, skew)));
  return h('div', { class: 'scroll-x' }, h('table', { class: 'tables tournaments' },
    h('thead', {}, h('tr', {}, h('th', {}, t('tour.name')), h('th', {}, t('lobby.variant')), h('th', {}, t('lobby.time')),
      h('th', {}, t('tour.players')), h('th', {}))),
    h('tbody', {}, ...rows)));
}

/**
 * The server's clock minus this one's, from a response's `Date` header (whole seconds), so that
 * the countdowns of the list do not follow a wrong clock here; 0 without one.
 * @param {Response} res
 */
function skewOf(res) {
  const date = Date.parse(res.headers.get('date') ?? '');
  if (!Number.isFinite(date)) return 0;
  const skew = date - Date.now();
  // a header has whole seconds: under two seconds apart counts as the same clock
  return Math.abs(skew) < 2000 ? 0 : skew;
}

/**
 * Reads `GET /api/tournament` with the server's clock skew.
 * @returns {Promise<{list: {created: TourSummary[], started: TourSummary[], finished: TourSummary[]}, skew: number}>}
 */
async function fetchList() {
  const res = await fetch('/api/tournament', { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`GET /api/tournament: ${res.status}`);
  return { list: await res.json(), skew: skewOf(res) };
}

/**
 * The lobby's card of the coming and running tournaments (nothing when there are none), with
 * a link to the list. `load` fetches; `node` draws the last answer.
 * @param {() => void} redraw
 */
export function tournamentsCard(redraw) {
  /** @type {{created: TourSummary[], started: TourSummary[], finished: TourSummary[]} | null} */
  let list = null;
  let skew = 0;
  const load = async () => {
    try {
      ({ list, skew } = await fetchList());
    } catch {
      // the lobby goes on without its tournaments
    }
    redraw();
  };
  const node = () => {
    const live = list ? list.created.length + list.started.length : 0;
    return h('section', { class: 'card tournaments-card', id: 'tournaments-card' },
      h('h2', {}, t('tour.title')),
      list && live > 0 ? listTable(list, ['started', 'created'], skew)
        : h('p', { class: 'muted' }, t('tour.none_coming')),
      h('p', {}, h('a', { class: 'button', id: 'all-tournaments', href: '#/tournaments' }, t('tour.all'))));
  };
  return { load, node };
}

/**
 * The tournaments page (#/tournaments): the running, coming and last finished ones, and the
 * form that creates one (account holders).
 * @param {import('./app.js').Shell} shell
 * @returns {{draw: () => void, leave: () => void}}
 */
export function tournamentsPage(shell) {
  let stopped = false;
  /** @type {{created: TourSummary[], started: TourSummary[], finished: TourSummary[]} | null} */
  let list = null;
  let skew = 0;
  let message = '';
  const form = { system: 'arena', name: '', variant: 'xiangqi', clock: 3, increment: 2, minutes: 30, startIn: 5, rated: true, berserkable: true, rounds: 7, interval: 60 };
  /** @param {string} key @param {Node} input */
  const field = (key, input) => h('label', { class: 'field' }, h('span', {}, t(key)), input);
  /**
   * An input of the form bound to `form[key]`.
   * @param {keyof typeof form} key
   * @param {Record<string, any>} attrs
   */
  const input = (key, attrs) => {
    const take = (/** @type {Event} */ e) => {
      const el = /** @type {HTMLInputElement} */ (e.target);
      /** @type {any} */ (form)[key] = attrs.type === 'checkbox' ? el.checked : attrs.type === 'number' ? Number(el.value) : el.value;
    };
    return h('input', {
      id: `tour-${key}`, value: attrs.type === 'checkbox' ? undefined : form[key], checked: attrs.type === 'checkbox' ? !!form[key] : undefined,
      ...attrs, onchange: take, oninput: attrs.type === 'checkbox' ? undefined : take,
    });
  };

  const draw = () => {
    if (stopped) return;
    const account = !!shell.session.me?.account;
    const create = account ? h('form', {
      class: 'card create', id: 'tour-form',
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        const swiss = form.system === 'swiss';
        const name = form.name.trim() || t(swiss ? 'swiss.default_name' : 'tour.default_name');
        const startsAt = Date.now() + skew + Math.round(form.startIn * 60000);
        try {
          if (swiss) {
            const made = await api('POST', '/api/swiss/new', {
              name, variant: form.variant, clock: { limit: Math.round(form.clock * 60), increment: form.increment },
              nbRounds: form.rounds, startsAt, roundInterval: form.interval, rated: form.rated,
            });
            location.hash = `#/swiss/${made.id}`;
            return;
          }
          const made = await api('POST', '/api/tournament', {
            name, variant: form.variant, clockTime: form.clock, clockIncrement: form.increment,
            minutes: form.minutes, startDate: startsAt,
            rated: form.rated, berserkable: form.berserkable,
          });
          location.hash = `#/tournament/${made.id}`;
        } catch (err) {
          message = tourError(err);
          draw();
        }
      },
    }, h('h2', {}, t('tour.create')),
    field('swiss.system', h('select', { id: 'tour-system', onchange: (/** @type {Event} */ e) => {
      form.system = /** @type {HTMLSelectElement} */ (e.target).value;
      // a Swiss event is of two-player games
      if (form.system === 'swiss' && form.variant === 'sanguo') form.variant = 'xiangqi';
      draw();
    } },
    ...['arena', 'swiss'].map((v) => h('option', { value: v, selected: v === form.system }, t(`swiss.system_${v}`))))),
    field('tour.name', input('name', { type: 'text', maxlength: 30, placeholder: t(form.system === 'swiss' ? 'swiss.default_name' : 'tour.default_name') })),
    field('lobby.variant', h('select', { id: 'tour-variant', onchange: (/** @type {Event} */ e) => { form.variant = /** @type {HTMLSelectElement} */ (e.target).value; draw(); } },
      ...(form.system === 'swiss' ? ['xiangqi', 'banqi'] : ['xiangqi', 'banqi', 'sanguo']).map((v) => h('option', { value: v, selected: v === form.variant }, t(`variant.${v}`))))),
    field('tour.clock', input('clock', { type: 'number', min: 0.25, max: 60, step: 0.25, required: true })),
    field('lobby.increment', input('increment', { type: 'number', min: 0, max: 60, step: 1, required: true })),
    form.system === 'swiss' ? field('swiss.rounds', input('rounds', { type: 'number', min: 3, max: 100, step: 1, required: true }))
      : field('tour.duration', input('minutes', { type: 'number', min: 10, max: 180, step: 5, required: true })),
    form.system === 'swiss' ? field('swiss.interval', input('interval', { type: 'number', min: 0, max: 604800, step: 1, required: true })) : null,
    field('tour.start_in', input('startIn', { type: 'number', min: 0, max: 1440, step: 'any', required: true })),
    field('lobby.rated', input('rated', { type: 'checkbox' })),
    form.system === 'arena' && form.variant !== 'sanguo' ? field('tour.berserkable', input('berserkable', { type: 'checkbox' })) : null,
    h('button', { type: 'submit', id: 'tour-create', class: 'primary' }, t('tour.create_button')))
      : h('section', { class: 'card' }, h('p', { class: 'muted', id: 'tour-needs-account' }, t('tour.needs_account')));
    const lists = list === null ? h('p', { class: 'muted' }, t('app.connecting'))
      : h('div', {},
        h('h3', {}, t('tour.live')),
        list.started.length + list.created.length === 0 ? h('p', { class: 'muted', id: 'tour-none' }, t('tour.none_coming'))
          : listTable(list, ['started', 'created'], skew),
        list.finished.length > 0 ? h('h3', {}, t('tour.recent')) : null,
        list.finished.length > 0 ? listTable(list, ['finished'], skew) : null);
    shell.show(h('main', { class: 'tournaments-page', 'data-page': 'tournaments' },
      h('section', { class: 'card' }, h('h1', {}, t('tour.title')),
        message ? h('p', { class: 'error', role: 'alert', id: 'tour-message' }, message) : null, lists),
      create), `${t('tour.title')} · chuhe`);
  };

  const refresh = async () => {
    try {
      ({ list, skew } = await fetchList());
    } catch (err) {
      message = tourError(err);
    }
    draw();
  };
  draw();
  refresh();
  const timer = setInterval(refresh, 5000);
  const tick = setInterval(countdownTicker(), 1000);
  return { draw, leave: () => { stopped = true; clearInterval(timer); clearInterval(tick); } };
}

/**
 * The tables the player was sent to from a tournament page, so that coming back to the page
 * after the game does not send them there again (kept for the tab's life).
 * @type {Set<string>}
 */
export const sentTo = new Set();

/**
 * The flame of a player on fire (an SVG drawing: no emoji font is needed), with its words as
 * title and label.
 * @param {string} words
 */
export function flame(words) {
  const node = h('span', { class: 'fire-mark', title: words, role: 'img', 'aria-label': words });
  node.innerHTML = '<svg viewBox="0 0 12 16" width="12" height="16" aria-hidden="true"><path d="M6 0C7 4 11 6 11 10.5A5 5 0 0 1 1 10.5C1 8 2.5 6.5 3.5 5.5C3.5 7.5 4.5 8.5 5.5 8.5C4.5 5.5 5 2.5 6 0Z" fill="#f97316"/><path d="M6 8C7 10 8.5 10.5 8.5 12.5A2.5 2.5 0 0 1 3.5 12.5C3.5 11 5 10 6 8Z" fill="#fde047"/></svg>';
  return node;
}

/**
 * The marks of a player's recent results: each game's points, the fire games marked, a berserk
 * point with a bolt; the latest last (at most 12).
 * @param {TourResult[]} results
 */
function sheetNode(results) {
  const last = results.slice(-12);
  return h('span', { class: 'sheet' }, ...last.map((g) => h('span', {
    class: `res ${g.r}${g.f ? ' fire' : ''}`, title: `${t(`tour.${g.r}`)} · ${g.o}`,
  }, `${g.p}`, g.b ? h('sup', { class: 'berserk-mark' }, '⚡') : null)));
}

/**
 * The tournament page (#/tournament/ID).
 * @param {import('./app.js').Shell} shell
 * @param {string} id
 * @returns {{draw: () => void, leave: () => void}}
 */
export function tournamentPage(shell, id) {
  let stopped = false;
  /** @type {TourView | null} */
  let view = null;
  /** `performance.now()` when the view came */
  let receivedAt = 0;
  let message = '';
  let missing = false;
  /** the player whose results are open */
  /** @type {string | null} */
  let opened = null;
  const abort = new AbortController();
  /** @type {ReturnType<typeof setTimeout> | null} */
  let retry = null;

  /** @param {TourView} v */
  const take = (v) => {
    view = v;
    receivedAt = performance.now();
    const me = shell.session.me;
    const line = me ? v.standing.players.find((p) => p.id === me.id) : undefined;
    // paired: to the table, once per game
    if (line?.playing && !sentTo.has(line.playing) && !stopped) {
      sentTo.add(line.playing);
      location.hash = `#/t/${line.playing}`;
      return;
    }
    draw();
  };

  /** Follows the server's stream; reconnects after a drop while the tournament is not over. */
  const follow = async () => {
    try {
      const res = await fetch(`/api/tournament/${encodeURIComponent(id)}/stream`, { credentials: 'same-origin', signal: abort.signal });
      if (res.status === 404) {
        // a Swiss event's table links here too (its options name the event): its own page
        const swiss = await fetch(`/api/swiss/${encodeURIComponent(id)}`, { credentials: 'same-origin', signal: abort.signal });
        if (swiss.ok && !stopped) {
          location.replace(`#/swiss/${id}`);
          return;
        }
        missing = true;
        draw();
        return;
      }
      if (!res.ok || !res.body) throw new Error(`stream: ${res.status}`);
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const text = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (text) take(JSON.parse(text));
        }
      }
    } catch (err) {
      if (stopped) return;
      message = tourError(err);
    }
    if (stopped || view?.isFinished) return;
    retry = setTimeout(follow, 2000);
  };

  /** @param {'join' | 'withdraw'} what */
  const act = async (what) => {
    try {
      await api('POST', `/api/tournament/${encodeURIComponent(id)}/${what}`);
      message = '';
    } catch (err) {
      message = tourError(err);
    }
    draw();
  };

  const draw = () => {
    if (stopped) return;
    if (missing) {
      shell.show(h('main', { class: 'tournament-page', 'data-page': `tournament:${id}` },
        h('section', { class: 'card', id: 'not-found' }, h('p', { class: 'lead' }, t('tour.not_found')),
          h('a', { class: 'button', href: '#/tournaments' }, t('tour.all')))));
      return;
    }
    if (!view) {
      shell.show(h('main', { class: 'tournament-page', 'data-page': `tournament:${id}` },
        h('section', { class: 'card' }, h('p', { class: 'muted' }, t('app.connecting')))));
      return;
    }
    const v = view;
    const me = shell.session.me;
    const mine = me ? v.standing.players.find((p) => p.id === me.id) : undefined;
    const joined = !!mine && !mine.withdraw;
    const status = v.isFinished ? h('p', { class: 'lead', id: 'tour-status' }, t('tour.finished'))
      : v.isStarted ? h('p', { class: 'lead', id: 'tour-status' }, t('tour.ends_in'), ' ', countdownNode((v.secondsToFinish ?? 0) * 1000, receivedAt, 'tour-countdown'))
        : h('p', { class: 'lead', id: 'tour-status' }, t('tour.starts_in'), ' ', countdownNode((v.secondsToStart ?? 0) * 1000, receivedAt, 'tour-countdown'));
    /** @type {(HTMLElement | null)[]} */
    const buttons = [];
    if (!v.isFinished && me?.account) {
      if (!joined) buttons.push(h('button', { id: 'tour-join', class: 'primary', onclick: () => act('join') }, t(mine ? 'tour.rejoin' : 'tour.join')));
      else if (v.isStarted) buttons.push(h('button', { id: 'tour-pause', onclick: () => act('withdraw'), title: t('tour.pause_hint') }, t('tour.pause')));
      else buttons.push(h('button', { id: 'tour-withdraw', onclick: () => act('withdraw') }, t('tour.withdraw')));
      if (mine?.playing) buttons.push(h('a', { class: 'button primary', id: 'tour-my-game', href: `#/t/${mine.playing}` }, t('lobby.back_to_game')));
    } else if (!v.isFinished) {
      buttons.push(h('p', { class: 'muted', id: 'tour-needs-account' }, t('tour.needs_account')));
    }
    const head = h('section', { class: 'card tour-head' },
      h('h1', { id: 'tour-name' }, v.fullName, v.rated ? ' ' : null, ratedBadge(v.rated)),
      h('p', { class: 'tour-facts' }, `${t(`variant.${v.variant}`)} · ${tourClockText(v.clock)} · ${t('tour.minutes', { n: v.minutes })} · ${t('tour.nb_players', { n: v.nbPlayers })}`,
        v.berserkable ? ` · ⚡ ${t('tour.berserkable')}` : ''),
      status,
      joined && !v.isFinished ? h('p', { class: 'muted', id: 'tour-joined' }, t(v.isStarted ? 'tour.joined_started' : 'tour.joined_waiting')) : null,
      mine?.withdraw && !v.isFinished ? h('p', { class: 'muted', id: 'tour-paused' }, t('tour.paused')) : null,
      message ? h('p', { class: 'error', role: 'alert', id: 'tour-message' }, message) : null,
      h('div', { class: 'actions' }, ...buttons));
    const podium = v.isFinished && v.podium && v.podium.length > 0 ? h('section', { class: 'card podium', id: 'podium' },
      h('h2', {}, t('tour.podium')),
      h('ol', { class: 'podium-steps' }, ...v.podium.map((p) => h('li', { class: `step step-${p.rank}`, 'data-rank': p.rank },
        h('span', { class: `medal medal-${p.rank}` }, String(p.rank)),
        h('strong', { class: 'podium-name' }, p.name),
        h('span', { class: 'podium-score' }, t('tour.points', { n: p.score })),
        h('span', { class: 'muted podium-nb' }, t('tour.podium_line', { games: p.nb.game, wins: p.nb.win, berserks: p.nb.berserk }),
          p.performance ? ` · ${t('tour.performance', { n: p.performance })}` : ''))))) : null;
    const rows = v.standing.players.flatMap((p) => {
      const open = opened === p.id;
      const row = h('tr', {
        id: `standing-${p.id}`, 'data-player': p.id, class: `standing-row${me && p.id === me.id ? ' me' : ''}${p.withdraw ? ' paused' : ''}${open ? ' open' : ''}`,
        onclick: () => { opened = open ? null : p.id; draw(); },
      },
      h('td', { class: 'rank' }, String(p.rank)),
      h('td', { class: 'who' }, h('a', { class: 'player-link', href: `#/p/${p.id}`, onclick: (/** @type {Event} */ e) => e.stopPropagation() }, p.name),
        h('span', { class: 'list-rating' }, ` ${p.rating}`), p.withdraw ? h('span', { class: 'muted paused-mark', title: t('tour.paused_mark') }, ` · ${t('tour.paused_short')}`) : null,
        p.playing ? h('span', { class: 'playing-mark', title: t('tour.playing') }, ' ♟\uFE0E') : null),
      h('td', { class: 'sheet-cell' }, sheetNode(p.results ?? []), p.sheet.fire ? flame(t('tour.on_fire')) : null),
      h('td', { class: 'score', 'data-score': p.score }, String(p.score)));
      if (!open) return [row];
      const results = p.results ?? [];
      return [row, h('tr', { class: 'player-results', id: `results-${p.id}` }, h('td', { colspan: 4 },
        results.length === 0 ? h('p', { class: 'muted' }, t('tour.no_results'))
          : h('ol', { class: 'results-list' }, ...results.map((g) => h('li', { class: `res-line ${g.r}` },
            `${g.pl ? `${t(`sanguo_tour.${g.pl}`)} (${t(`winner.${g.k}`)})` : t(`tour.${g.r}`)} · ${t('tour.against', { name: g.o })} · ${t('tour.points', { n: g.p })}`,
            g.f ? ` · ${t('tour.fire_game')}` : '', g.f ? flame(t('tour.fire_game')) : null, g.b ? ` · ⚡ ${t('tour.berserk_point')}` : '')))))];
    });
    const standings = h('section', { class: 'card standings-card' }, h('h2', {}, t('tour.standings')),
      v.standing.players.length === 0 ? h('p', { class: 'muted', id: 'no-players' }, t('tour.no_players'))
        : h('div', { class: 'scroll-x' }, h('table', { class: 'tables standings', id: 'standings' },
          h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, t('tour.player')), h('th', {}, t('tour.results')), h('th', {}, t('tour.score')))),
          h('tbody', {}, ...rows))),
      h('p', { class: 'muted hint' }, t('tour.click_hint')));
    const duels = v.duels.length > 0 ? h('section', { class: 'card duels', id: 'duels' }, h('h2', {}, t('tour.duels')),
      h('ul', {}, ...v.duels.map((d) => h('li', { id: `duel-${d.id}` },
        h('a', { href: `#/t/${d.id}`, class: 'duel-link' },
          d.p.map((side) => `${side.n} (${side.r})`).join(' – ')),
        ' ', h('a', { class: 'button small', href: `#/t/${d.id}` }, t('lobby.watch')))))) : null;
    const rules = h('section', { class: 'card tour-rules', id: 'tour-rules' }, h('h2', {}, t('tour.rules')),
      v.sanguo ? h('ul', {},
        h('li', {}, t('sanguo_tour.rule_tables')),
        h('li', {}, t('sanguo_tour.rule_points')),
        h('li', {}, t('sanguo_tour.rule_fire')),
        h('li', {}, t('sanguo_tour.rule_draws')),
        h('li', {}, t('tour.rule_pause')))
        : h('ul', {},
          h('li', {}, t('tour.rule_points')),
          h('li', {}, t('tour.rule_fire')),
          v.berserkable ? h('li', {}, t('tour.rule_berserk')) : null,
          h('li', {}, t('tour.rule_draws')),
          h('li', {}, t('tour.rule_pairing')),
          h('li', {}, t('tour.rule_pause'))));
    shell.show(h('main', { class: 'tournament-page', 'data-page': `tournament:${id}`, 'data-variant': v.variant },
      head, podium, h('div', { class: 'tour-cols' }, standings, h('div', { class: 'tour-side' }, duels, rules)),
      h('p', {}, h('a', { class: 'button', href: '#/tournaments', id: 'to-tournaments' }, t('tour.all')))), `${v.fullName} · chuhe`);
  };

  draw();
  follow();
  const tick = setInterval(countdownTicker(), 1000);
  return {
    draw,
    leave: () => {
      stopped = true;
      abort.abort();
      if (retry) clearTimeout(retry);
      clearInterval(tick);
    },
  };
}
