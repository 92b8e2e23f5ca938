// The table page's seats: one row per seat with its colour, who sits there (a link to the player,
// the guest badge, the rating), the turn and defeat badges, the clock, the countdown of an absent
// person and the seat buttons (sit, computer, stand); under them, at a table opened without a
// session, the guest name form that enters and takes the first free seat.

import { t } from '../i18n.js';
import { KINGDOM_COLORS } from '../boards.js';
import { h } from '../dom.js';
import { errorText, formatClock, botBadge, guestBadge, occupant, seatLabel } from '../format.js';
import { api } from '../net.js';
import { clockNode } from './clocks.js';

/** @typedef {import('../protocol.js').SeatEntry} SeatEntry */

/** A new player's rating (rating.rs). */
const NEW_RATING = 1500;

/**
 * An account holder's rating in this table's game: the one when first seen and the latest
 * (fetched again when a rated game ends); `null` while unknown.
 * @typedef {{first: number | null, now: number | null, loading: boolean, provisional?: boolean}} Rating
 */

/**
 * The rating text beside a seated account holder: "1500", "1500?" while provisional, after a
 * rated game "1512 (+12)"; '' while unknown.
 * @param {Rating} known
 * @returns {string}
 */
export function ratingLine(known) {
  if (known.now === null) return '';
  const diff = known.first !== null && known.now !== known.first ? known.now - known.first : 0;
  const shown = `${known.now}${known.provisional ? '?' : ''}`;
  return diff ? `${shown} (${diff > 0 ? '+' : ''}${diff})` : shown;
}

/**
 * The order in which the seats are listed: the receiver's seat last (nearest to its side of the
 * board), except in sanguo, whose seats keep the order of play.
 * @param {number} count the number of seats
 * @param {string} variant
 * @param {number | null} you the receiver's seat
 * @returns {number[]}
 */
export function seatOrder(count, variant, you) {
  const order = Array.from({ length: count }, (_, i) => i);
  if (variant !== 'sanguo' && you !== null) order.sort((a, b) => (a === you ? 1 : 0) - (b === you ? 1 : 0));
  return order;
}

/**
 * The colours of seat `i`: its dot and, when it is to move, its border and badge.
 * @param {string} variant
 * @param {number} i
 * @param {(string | null)[]} [colors] banqi's colours by seat (`null` before the first flip)
 * @returns {{color: string, turnColor: string}}
 */
export function seatColors(variant, i, colors) {
  const side = variant === 'xiangqi' ? ['red', 'black'][i] : colors?.[i];
  // banqi before the first flip: no colours yet
  const color = variant === 'sanguo' ? KINGDOM_COLORS[i] : side === 'red' ? '#b3261e' : side === 'black' ? '#1d1d1d' : '#b9ab95';
  // the seat to move: its border and a badge in its own colour (banqi before the first flip: blue)
  const turnColor = variant === 'banqi' && !side ? '#1565c0' : color;
  return { color, turnColor };
}

/**
 * The seats of `table`'s page. `node` draws the panel, `absentText` words an absent seat's
 * countdown, `tick` brings the shown countdowns up to date (every quarter of a second),
 * `refreshRatings` asks for the account holders' ratings again, once (a rated game just ended).
 * @param {import('../table.js').Table} table
 * @param {import('../app.js').Shell} shell
 * @param {() => void} draw draws the page again
 */
export function seatsPart(table, shell, draw) {
  /**
   * Account holders' ratings in this table's game, by player id.
   * @type {Map<string, Rating>}
   */
  const ratings = new Map();
  /** the guest name typed at a table opened without a session */
  let guestName = '';
  let guestError = '';

  /** @param {string} playerId @param {string} variant */
  const fetchRating = async (playerId, variant) => {
    const known = ratings.get(playerId) ?? { first: null, now: null, loading: false };
    if (known.loading) return;
    known.loading = true;
    ratings.set(playerId, known);
    try {
      /** @type {import('../protocol.js').RatingInfo[]} */
      const list = await api('GET', `/api/players/${encodeURIComponent(playerId)}/ratings`);
      const r = list.find((x) => x.variant === variant);
      // no game of this variant yet: the start rating, provisional (written "1500?")
      known.now = r ? Math.round(r.rating) : NEW_RATING;
      known.provisional = !r;
      if (known.first === null) known.first = known.now;
    } catch {
      // no rating shown
    }
    known.loading = false;
    draw();
  };

  /** The rating text beside a seated person (asked for when first seen). @param {SeatEntry | null} entry */
  const ratingText = (entry) => {
    const s = table.state;
    if (!s || !entry || entry.kind !== 'person' || !entry.account) return '';
    const known = ratings.get(entry.id);
    if (!known) {
      fetchRating(entry.id, s.table.options.variant);
      return '';
    }
    return ratingLine(known);
  };

  /** whether the ratings were asked for again after the end of the game */
  let ratingsAfterEnd = false;
  /**
   * The new ratings are stored with the ended event: asks again (once) for every seated account
   * holder of the state `before` the end.
   * @param {import('../protocol.js').StateMessage} before
   */
  const refreshRatings = (before) => {
    if (ratingsAfterEnd) return;
    ratingsAfterEnd = true;
    for (const entry of before.table.seats) {
      if (entry?.kind === 'person' && entry.account) fetchRating(entry.id, before.table.options.variant);
    }
  };

  /** @param {number} seat */
  const isDefeated = (seat) => (table.state?.defeats ?? []).some((d) => d.seat === seat);

  /**
   * The countdown line of an absent seat, or '' when nobody is awaited there.
   * @param {number} seat
   */
  const absentText = (seat) => {
    const s = table.state;
    const left = table.absentLeft(seat);
    if (!s || left === null || s.connected[seat]) return '';
    const who = occupant(s.table.seats[seat]);
    const time = formatClock(left);
    if (s.table.phase === 'open') return t('table.absent_open', { who, time });
    // a seat that has not made its first move yet aborts the game (no loser)
    return t(s.board.moves.length <= seat ? 'table.absent_abort' : 'table.absent_running', { who, time });
  };

  /** The countdowns of absent seats, written again where they changed. */
  const tick = () => {
    document.querySelectorAll('[data-absent]').forEach((node) => {
      const text = absentText(Number(node.getAttribute('data-absent')));
      if (text && node.textContent !== text) node.textContent = text;
    });
  };

  /**
   * A table link opened without a session: the guest name, right here, then the first free seat
   * (an account holder logs in from the lobby; a rated table needs an account).
   */
  const guestSitNode = () => {
    const s = table.state;
    if (!s || shell.session.me || s.table.phase !== 'open') return null;
    const free = s.table.seats.findIndex((x) => x === null);
    if (free < 0) return null;
    if (s.table.options.rated) return h('p', { class: 'muted', id: 'guest-sit' }, t('table.rated_guest'), ' ', h('a', { href: '#/' }, t('table.or_login')));
    return h('form', {
      class: 'guest-sit', id: 'guest-sit',
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        const seat = table.state?.table.seats.findIndex((x) => x === null) ?? -1;
        if (seat < 0) return;
        try {
          shell.session.me = await table.enterAndSit(guestName.trim(), seat);
          guestError = '';
        } catch (err) {
          guestError = errorText(err);
        }
        draw();
      },
    }, h('label', { for: 'guest-name' }, t('table.guest_sit')),
    h('input', {
      id: 'guest-name', required: true, maxlength: 24, value: guestName, placeholder: t('session.name'),
      oninput: (/** @type {Event} */ e) => { guestName = /** @type {HTMLInputElement} */ (e.target).value; },
    }),
    h('button', { type: 'submit', class: 'primary', id: 'guest-sit-button' }, t('table.enter_and_sit')),
    h('a', { href: '#/', class: 'muted small-link' }, t('table.or_login')),
    guestError ? h('p', { class: 'error', role: 'alert' }, guestError) : null);
  };

  const node = () => {
    if (!table.state) return h('div');
    const s = table.state;
    const variant = s.table.options.variant;
    const colors = s.board.variant === 'banqi' ? s.board.colors : undefined;
    const seated = s.you !== null;
    const open = s.table.phase === 'open';
    // a guest is not offered a seat at a rated table: the server would refuse it
    const ratedForGuest = s.table.options.rated && !shell.session.me?.account;
    return h('div', { class: 'seats-panel' }, ...seatOrder(s.table.seats.length, variant, s.you).map((i) => {
      const entry = s.table.seats[i];
      const toMove = s.to_move === i;
      const { color, turnColor } = seatColors(variant, i, colors);
      const defeated = isDefeated(i);
      const absent = absentText(i);
      return h('div', { class: `seat${toMove ? ' to-move' : ''}${defeated ? ' defeated' : ''}${absent ? ' absent' : ''}`, 'data-seat': i, style: toMove ? `border-color:${turnColor}` : undefined },
        h('span', { class: 'dot', style: `background:${color}` }),
        h('span', { class: 'seat-name' }, seatLabel(variant, i, colors)),
        toMove ? h('span', { class: 'turn-badge', style: `background:${turnColor}` }, t('table.moving')) : null,
        // a computer seat to move: it is thinking (the server answers after a pause of its own)
        toMove && entry?.kind === 'computer' && s.table.phase === 'running' ? h('span', { class: 'thinking', 'data-thinking': i, role: 'status' }, t('table.thinking')) : null,
        defeated ? h('span', { class: 'defeated-badge', 'data-defeated': i }, t('table.defeated')) : null,
        h('span', { class: 'occupant', title: occupant(entry) },
          entry?.kind === 'person' ? h('a', { class: 'player-link', href: `#/p/${entry.id}` }, entry.name) : occupant(entry), s.you === i ? ` (${t('table.you')})` : '',
          entry?.kind === 'person' && !entry.account ? ' ' : null, entry?.kind === 'person' ? guestBadge(entry.account) : null,
          entry?.kind === 'person' && entry.bot ? ' ' : null, entry?.kind === 'person' ? botBadge(entry.bot) : null,
          ratingText(entry) ? h('span', { class: 'seat-rating', 'data-rating': i }, ` ${ratingText(entry)}`) : null,
          entry && !s.connected[i] && s.table.phase !== 'ended' ? ` · ${t('table.offline')}` : ''),
        clockNode(s, i),
        (s.berserks ?? []).includes(i) ? h('span', { class: 'berserk-mark', 'data-berserk': i, title: t('table.berserk_mark'), 'aria-label': t('table.berserk_mark') }, '⚡') : null,
        absent ? h('span', { class: 'absent-line', 'data-absent': i, role: 'status' }, absent) : null,
        open && !entry && shell.session.me && !seated && ratedForGuest ? h('span', { class: 'muted sit-refused', 'data-no-sit': i }, t('table.rated_guest')) : null,
        open && !entry && shell.session.me && !seated && !ratedForGuest ? h('button', { class: 'sit', 'data-sit': i, onclick: () => table.send({ type: 'sit', seat: i }) }, t('table.sit')) : null,
        open && !entry && seated ? h('button', { class: 'computer', 'data-computer': i, onclick: () => table.send({ type: 'sit_computer', seat: i, level: table.level }) }, t('table.computer')) : null,
        open && s.you === i ? h('button', { class: 'stand', onclick: () => table.send({ type: 'stand' }) }, t('table.stand')) : null);
    }), guestSitNode());
  };

  return { node, absentText, tick, refreshRatings };
}
