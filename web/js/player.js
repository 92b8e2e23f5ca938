// The player page (#/p/ID): a player's ratings per variant and finished games, filtered by
// variant (GET /api/players/{id}/ratings, GET /api/games?player=ID&variant=V), and on one's own
// page, signed in with an account, the personal API tokens (tokens.js); and the lobby's
// small rating cache, for the ratings written beside account holders' names.

import { t } from './i18n.js';
import { api } from './net.js';
import { h } from './dom.js';
import { errorText, formatDate, botBadge, guestBadge, occupant, resultLine, seatLabel } from './format.js';
import { tokenPanel } from './tokens.js';

/** @typedef {import('./protocol.js').RatingInfo} RatingInfo */
/** @typedef {import('./protocol.js').SeatEntry} SeatEntry */

/** The rating lists fetched in this page load, by player id (`null` while asked or failed). */
/** @type {Map<string, RatingInfo[] | null>} */
const ratingCache = new Map();

/**
 * A player's rating in `variant`, rounded, from the cache; the first call asks the server and
 * calls `redraw` when the answer is there. `''` for guests, the computer, unknown or unrated.
 * @param {SeatEntry | null} entry
 * @param {string} variant
 * @param {() => void} redraw
 * @returns {string}
 */
export function cachedRating(entry, variant, redraw) {
  if (!entry || entry.kind !== 'person' || !entry.account) return '';
  if (!ratingCache.has(entry.id)) {
    ratingCache.set(entry.id, null);
    api('GET', `/api/players/${encodeURIComponent(entry.id)}/ratings`)
      .then((/** @type {RatingInfo[]} */ list) => { ratingCache.set(entry.id, list); redraw(); })
      .catch(() => { /* no rating shown */ });
    return '';
  }
  const r = ratingCache.get(entry.id)?.find((x) => x.variant === variant);
  return r ? String(Math.round(r.rating)) : '';
}

/**
 * A seat's occupant as the lists write it: a person's name links to the player page, a guest
 * marked as such, an account holder's rating in `variant` beside it.
 * @param {SeatEntry | null} entry
 * @param {string} variant
 * @param {() => void} redraw
 */
export function occupantNode(entry, variant, redraw) {
  if (!entry || entry.kind !== 'person') return occupant(entry);
  const rating = cachedRating(entry, variant, redraw);
  return h('span', { class: 'who' },
    h('a', { class: 'player-link', href: `#/p/${entry.id}`, onclick: (/** @type {Event} */ e) => e.stopPropagation() }, entry.name),
    entry.account ? null : ' ', guestBadge(entry.account), entry.bot ? ' ' : null, botBadge(entry.bot),
    rating ? h('span', { class: 'list-rating', 'data-player-rating': entry.id }, ` ${rating}`) : null);
}

/**
 * The table of finished games (lobby and player page): date, variant, players, result, moves.
 * @param {import('./protocol.js').FinishedGame[]} games
 * @param {() => void} redraw
 */
export function finishedTable(games, redraw) {
  const rows = games.map((g) => {
    const variant = g.options.variant;
    return h('tr', { 'data-game': g.id, id: `game-row-${g.id}`, class: 'game-row', onclick: () => { location.hash = `#/t/${g.id}`; } },
      h('td', { class: 'date' }, formatDate(g.ended_ms)),
      h('td', {}, t(`variant.${variant}`)),
      h('td', { class: 'seats' }, ...g.seats.map((s, i) => h('span', { class: `seat-chip${g.winner_seats.includes(i) ? ' won' : ''}`, title: occupant(s) },
        `${seatLabel(variant, i)}: `, occupantNode(s, variant, redraw)))),
      h('td', { class: 'result' }, resultLine(variant, g.outcome, g.winner_seats)),
      h('td', { class: 'plies', 'data-label': t('lobby.moves') }, String(g.plies)),
      h('td', {}, h('a', { class: 'button', href: `#/t/${g.id}` }, t('lobby.review'))));
  });
  return h('div', { class: 'scroll-x' }, h('table', { class: 'tables finished', id: 'finished' },
    h('thead', {}, h('tr', {}, h('th', {}, t('lobby.date')), h('th', {}, t('lobby.variant')),
      h('th', {}, t('lobby.players')), h('th', {}, t('lobby.result')), h('th', {}, t('lobby.moves')), h('th', {}))),
    h('tbody', {}, ...rows)));
}

const VARIANTS = ['xiangqi', 'sanguo', 'banqi'];

/**
 * The player page.
 * @param {import('./app.js').Shell} shell
 * @param {string} id the player's id
 * @returns {{draw: () => void, leave: () => void}}
 */
export function playerPage(shell, id) {
  let stopped = false;
  /** @type {RatingInfo[] | null} */
  let ratings = null;
  /** @type {import('./protocol.js').FinishedPage | null} */
  let games = null;
  /** '' for every variant */
  let variant = '';
  /** the `before` of each page shown so far (null: the newest) */
  /** @type {(string | null)[]} */
  let cursors = [null];
  let message = '';
  /** the player's name, from a listed game (or the session, on one's own page) */
  let name = shell.session.me?.id === id ? shell.session.me.name : '';
  // one's own page, signed in with an account: the personal API tokens too
  const tokens = shell.session.me?.id === id && shell.session.me.account ? tokenPanel(() => draw()) : null;

  const draw = () => {
    if (stopped) return;
    const page = cursors.length;
    const ratingList = ratings === null ? h('p', { class: 'muted' }, t('app.connecting'))
      : ratings.length === 0 ? h('p', { class: 'muted', id: 'no-ratings' }, t('player.no_ratings'))
        : h('ul', { id: 'player-ratings' }, ...ratings.map((r) => h('li', { 'data-variant': r.variant },
          h('strong', {}, t(`variant.${r.variant}`)), ' ',
          h('span', { class: 'rating' }, `${Math.round(r.rating)} ± ${Math.round(r.deviation)}`), ' · ',
          t('ratings.games', { n: r.games }))));
    const filter = h('nav', { class: 'rules-tabs variant-filter', id: 'variant-filter', 'aria-label': t('player.filter') },
      ...['', ...VARIANTS].map((v) => h('button', {
        type: 'button', 'data-variant': v || 'all', 'aria-pressed': String(v === variant),
        class: v === variant ? 'primary' : '',
        onclick: () => { variant = v; cursors = [null]; load(); },
      }, v ? t(`variant.${v}`) : t('player.all'))));
    const list = games === null ? h('p', { class: 'muted' }, t('app.connecting'))
      : games.games.length === 0 ? h('p', { class: 'muted', id: 'no-games' }, t('player.no_games'))
        : finishedTable(games.games, draw);
    const pager = games && (page > 1 || games.next) ? h('div', { class: 'pager' },
      h('button', { id: 'finished-newer', disabled: page === 1, onclick: () => { cursors.pop(); load(); } }, t('lobby.newer')),
      h('span', { class: 'muted' }, t('lobby.page', { n: page })),
      h('button', { id: 'finished-older', disabled: !games.next, onclick: () => { cursors.push(games?.next ?? null); load(); } }, t('lobby.older')))
      : null;
    shell.show(h('main', { class: 'player-page', 'data-page': `player-${id}` },
      h('section', { class: 'card' },
        h('h1', { id: 'player-name' }, name || t('player.unknown')),
        h('h2', {}, t('player.ratings')), ratingList),
      h('section', { class: 'card' }, h('h2', {}, t('player.games')), filter,
        message ? h('p', { class: 'error', role: 'alert' }, message) : null, list, pager),
      tokens ? tokens.node() : null,
      h('p', {}, h('a', { class: 'button', href: '#/', id: 'to-lobby' }, t('player.to_lobby')))));
  };

  const load = async () => {
    const before = cursors[cursors.length - 1];
    const asked = variant;
    const query = `player=${encodeURIComponent(id)}&limit=10${asked ? `&variant=${asked}` : ''}${before ? `&before=${encodeURIComponent(before)}` : ''}`;
    try {
      /** @type {import('./protocol.js').FinishedPage} */
      const page = await api('GET', `/api/games?${query}`);
      if (asked !== variant || cursors[cursors.length - 1] !== before) return;
      games = page;
      message = '';
      for (const g of page.games) {
        for (const s of g.seats) if (!name && s?.kind === 'person' && s.id === id) name = s.name;
      }
    } catch (err) {
      message = errorText(err);
    }
    draw();
  };

  (async () => {
    try {
      ratings = await api('GET', `/api/players/${encodeURIComponent(id)}/ratings`);
    } catch (err) {
      ratings = [];
      message = errorText(err);
    }
    draw();
  })();
  draw();
  load();
  tokens?.load();
  return { draw, leave: () => { stopped = true; } };
}
