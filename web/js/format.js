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
  if (e instanceof ApiError && e.code === 'rate_limited') {
    // 503: the analysis engine's slots are all taken; 429: this client asked too often
    const key = e.status === 503 ? 'error.engine_busy' : 'error.rate_limited';
    return t(key, { seconds: String(e.retryAfterS ?? 1) });
  }
  if (e instanceof ApiError && e.code === 'database_unavailable') {
    return t('error.database_unavailable', { seconds: String(e.retryAfterS ?? 2) });
  }
  if (e instanceof ApiError) return serverErrorText(e.code, e.message);
  // a request that did not reach the server
  return t('error.network');
}

/**
 * A refusal of the server in the page's language: a known message has its own words, else the
 * code's (the server's English words are never shown; they stay in the console).
 * @param {string} code
 * @param {string} message
 */
export function serverErrorText(code, message) {
  // lichess's routes (tournaments) answer `{"error": "<the words>"}`: the code is the message
  const known = SERVER_MESSAGES[message] ?? SERVER_MESSAGES[code];
  if (known) return t(known);
  const key = `error.${code}`;
  if (t(key) !== key) return t(key);
  console.warn(`chuhe: ${code}: ${message}`);
  return t('error.unknown');
}

/** The server's messages (docs/protocol.md) that have words of their own. */
/** @type {Record<string, string>} */
const SERVER_MESSAGES = {
  'the game has ended': 'error.game_ended',
  'the game has not started': 'error.not_started',
  'the game has already started': 'error.already_started',
  'seats change only before the start': 'error.seats_fixed',
  'every seat must be taken to start': 'error.seats_empty',
  'you already sit at this table': 'error.already_seated',
  'you already offered a draw': 'error.already_offered',
  'there is no draw offer to answer': 'error.no_offer',
  'a game can be aborted only before its first move': 'error.abort_late',
  'rated tables are for account holders': 'table.rated_guest',
  'the computer does not play rated games': 'error.computer_rated',
  'this game has no draw offers': 'error.no_draws',
  'your side is already out of the game': 'error.out_of_game',
  'there is no move of yours to take back': 'error.no_takeback',
  'berserk is for arena tournament games': 'error.berserk_not_arena',
  'this tournament does not allow berserk': 'error.berserk_not_allowed',
  'you have already gone berserk': 'error.berserk_twice',
  'berserk is only before your first move': 'error.berserk_late',
  'the tournament is over': 'error.tournament_over',
  'you have not joined this tournament': 'error.not_joined',
  'more than half the rounds have started': 'error.swiss_late',
  'tournaments are for account holders': 'error.tournament_account',
};

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

/** The sides of each game in seat order (banqi's colours are not seats). */
const SIDES = { xiangqi: ['red', 'black'], banqi: ['red', 'black'], sanguo: ['shu', 'wu', 'wei'] };

/**
 * The reasons that are the loser's doing or misfortune: the line names the loser ("Red gave
 * perpetual check", never only "by perpetual check" after the winner's name).
 */
const LOSER_REASONS = new Set(['stalemate', 'no-legal-move', 'general-captured', 'all-captured', 'perpetual-check',
  'perpetual-chase', 'resignation', 'timeout', 'abandonment']);

/**
 * The result line of an ended game: who won, and by which rule; when the rule is something the
 * loser did or suffered (perpetual check, resignation, time, leaving...), the loser is named.
 * @param {string} variant
 * @param {import('./protocol.js').Outcome} o
 * @param {number[]} [winnerSeats]
 */
export function resultLine(variant, o, winnerSeats) {
  if (o.reason === 'aborted') return t('result.aborted');
  let names = o.winners.map((w) => t(`winner.${w}`));
  /** @type {string[]} */
  let losers = [];
  const sides = SIDES[/** @type {'xiangqi'} */ (variant)] ?? [];
  if (o.winners.length) losers = sides.filter((s) => !o.winners.includes(s)).map((s) => t(`winner.${s}`));
  if (names.length === 0 && winnerSeats?.length) {
    // banqi before the first flip: seats, no colours
    names = winnerSeats.map((i) => seatLabel(variant, i));
    losers = sides.map((_, i) => i).filter((i) => !winnerSeats.includes(i)).map((i) => seatLabel(variant, i));
  }
  if (names.length === 0) return `${t('result.draw')} · ${t(`reason.${o.reason}`)}`;
  const who = names.join(t('result.and'));
  const reason = LOSER_REASONS.has(o.reason) && losers.length
    ? t(`${losers.length > 1 ? 'losses' : 'loss'}.${o.reason}`, { loser: losers.join(t('result.and')) }) : t(`reason.${o.reason}`);
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

/**
 * The small "guest" badge beside a guest's name, so that a guest and an account holder of one
 * name are told apart (a guest keeps a name an account took after it); nothing for an account
 * holder.
 * @param {boolean} account whether the person has an account
 */
export function guestBadge(account) {
  return account ? null : h('span', { class: 'badge guest-badge', title: t('session.guest_hint') }, t('session.guest'));
}

/**
 * The BOT badge of a bot account (lichess's title; `docs/bots.md`), or `null`.
 * @param {boolean | undefined} bot
 */
export function botBadge(bot) {
  return bot ? h('span', { class: 'badge bot-badge', title: t('session.bot_hint') }, 'BOT') : null;
}

/**
 * The longest a computer move takes at levels 1–8, milliseconds (`LEVELS` of
 * crates/chuhe-engine/src/levels.rs, the same in every game).
 */
export const LEVEL_TIME_MS = [300, 400, 500, 700, 900, 1200, 1800, 2500];

/**
 * A level's name, what kind of player it is and its longest time per move (the same scale in
 * every game, docs/players.md).
 * @param {number} level 1–8
 */
export function levelHint(level) {
  const n = Math.min(8, Math.max(1, level || 1));
  const locale = { es: 'es-ES', en: 'en-GB', zh: 'zh-CN' }[lang()];
  const s = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(LEVEL_TIME_MS[n - 1] / 1000);
  return t('level.hint', { name: t(`level.${n}`), what: t(`level.what.${n}`), s });
}

/** @param {import('./protocol.js').SeatEntry | null} entry */
export function occupant(entry) {
  if (!entry) return t('lobby.empty_seat');
  if (entry.kind === 'computer') return t('table.computer_name', { level: entry.level });
  return entry.name;
}
