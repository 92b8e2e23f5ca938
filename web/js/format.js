// The words and numbers the pages show for what the server sent: errors, dates, clocks, time
// controls, seats, occupants and results, in the page's language (i18n.js).

import { lang, t } from './i18n.js';
import { ApiError } from './net.js';
import { h } from './dom.js';

/**
 * The text of a failed request or of the server's error message.
 * @param {unknown} e
 */
export function errorText(e) {
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
export function accountErrorText(e) {
  if (e instanceof ApiError && e.code === 'conflict') return t('error.name_taken');
  if (e instanceof ApiError && e.code === 'unauthorized') return t('error.wrong_password');
  return errorText(e);
}

/**
 * A date and time in the page's language.
 * @param {number} ms milliseconds since the Unix epoch
 */
export function formatDate(ms) {
  const locale = { es: 'es-ES', en: 'en-GB', zh: 'zh-CN' }[lang()];
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(ms));
}

/**
 * The result line of an ended game: who won and by which rule, in the page's language.
 * @param {string} variant
 * @param {import('./protocol.js').Outcome} o
 * @param {number[]} [winnerSeats]
 */
export function resultLine(variant, o, winnerSeats) {
  if (o.reason === 'aborted') return t('result.aborted');
  const reason = t(`reason.${o.reason}`);
  let names = o.winners.map((w) => t(`winner.${w}`));
  if (names.length === 0 && winnerSeats?.length) names = winnerSeats.map((i) => seatLabel(variant, i));
  if (names.length === 0) return `${t('result.draw')} · ${reason}`;
  const who = names.join(t('result.and'));
  return `${t(names.length > 1 ? 'result.win_both' : 'result.wins', { who })} · ${reason}`;
}

/**
 * A clock's time: `m:ss`, with tenths under ten seconds.
 * @param {number} ms
 */
export function formatClock(ms) {
  const v = Math.max(0, ms);
  const s = Math.floor(v / 1000);
  const mm = Math.floor(s / 60);
  const ss = String(s % 60).padStart(2, '0');
  if (v < 10000) return `${mm}:${ss}.${Math.floor((v % 1000) / 100)}`;
  return `${mm}:${ss}`;
}

/** @param {import('./protocol.js').TimeControl | null} time */
export function timeText(time) {
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
export function seatLabel(variant, seat, colors) {
  if (variant === 'banqi' && colors && colors[seat]) return t(`color.${colors[seat]}`);
  return t(`seat.${variant}.${seat}`);
}

/** The small "rated" badge of a rated table; nothing for a friendly one. @param {boolean} rated */
export function ratedBadge(rated) {
  return rated ? h('span', { class: 'badge rated-badge', title: t('table.rated_hint') }, t('table.rated_badge')) : null;
}

/** @param {import('./protocol.js').SeatEntry | null} entry */
export function occupant(entry) {
  if (!entry) return t('lobby.empty_seat');
  if (entry.kind === 'computer') return t('table.computer_name', { level: entry.level });
  return entry.name;
}
