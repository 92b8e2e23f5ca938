// The table page's clocks: one per seat, beside the seat's name, counted down between the
// server's states (from the last state's `remaining_ms` and the time since it came), marked low
// near the end, with one warning sound for the receiver's own clock.

import { h } from '../dom.js';
import { formatClock } from '../format.js';
import { play } from '../sound.js';

/** @typedef {import('../protocol.js').StateMessage} StateMessage */

/**
 * Whether `ms` left on a clock is low: under ten seconds, or under a tenth of a long game's time
 * (at most a minute).
 * @param {number} ms the time left
 * @param {number} initialMs the game's time control (0 for an untimed table)
 * @returns {boolean}
 */
export function isLowTime(ms, initialMs) {
  return ms < Math.max(10000, Math.min(60000, initialMs / 10));
}

/**
 * Whether `ms` is low in the game of state `s` (see {@link isLowTime}).
 * @param {StateMessage | null} s
 * @param {number} ms
 */
function lowIn(s, ms) {
  return isLowTime(ms, s?.table.options.time?.initial_ms ?? 0);
}

/**
 * The clock of `seat` as the state `s` gives it (`data-clock` names the seat, for the ticks), or
 * `null` at an untimed table.
 * @param {StateMessage | null} s
 * @param {number} seat
 * @returns {HTMLElement | null}
 */
export function clockNode(s, seat) {
  const c = s?.clocks?.[seat];
  if (!c) return null;
  return h('span', { class: `clock${c.running ? ' running' : ''}${lowIn(s, c.remaining_ms) ? ' low' : ''}`, 'data-clock': seat }, formatClock(c.remaining_ms));
}

/**
 * The clocks' countdown: the returned function, called every tenth of a second, writes the time
 * left into the page's clocks and sounds the low-time warning once per page when the receiver's
 * own running clock gets low.
 * @param {import('../table.js').Table} table
 * @returns {() => void}
 */
export function clockTicker(table) {
  /** whether the low-time warning has sounded in this game */
  let warned = false;
  return () => {
    if (!table.state?.clocks) return;
    const elapsed = performance.now() - table.receivedAt;
    const s = table.state;
    s.clocks?.forEach((c, i) => {
      const node = document.querySelector(`[data-clock="${i}"]`);
      const left = c.running ? c.remaining_ms - elapsed : c.remaining_ms;
      if (node) {
        node.textContent = formatClock(left);
        node.classList.toggle('low', lowIn(s, left));
      }
      if (c.running && i === s.you && s.table.phase === 'running' && lowIn(s, left) && !warned) {
        warned = true;
        play('lowtime');
      }
    });
  };
}
