// The table page's actions: the buttons of the phase and the receiver's seat (level and start;
// abort, draw, takeback and resign; rematch, new game, analysis), the PGN download, the board's
// flip and the way out; and the lines of the offers between the players (a draw, a takeback, a
// rematch, offered or declined).

import { lang, t } from '../i18n.js';
import { h } from '../dom.js';
import { seatLabel } from '../format.js';
import { api } from '../net.js';
import { requestSetup } from '../table.js';

/** @typedef {import('../protocol.js').StateMessage} StateMessage */

/**
 * The seats that declined the last offers: a draw (until the next move or offer), a takeback
 * (until the next move, request or takeback) and a rematch (declined or withdrawn, until the next
 * offer); `null` where none did.
 * @typedef {{draw: number | null, takeback: number | null, rematch: number | null}} Declines
 */

/** @type {Declines} */
export const NO_DECLINES = { draw: null, takeback: null, rematch: null };

/**
 * The declines after the table's `events`, in order.
 * @param {Declines} declines
 * @param {import('../protocol.js').TableEvent[]} events
 * @returns {Declines}
 */
export function followDeclines(declines, events) {
  let { draw, takeback, rematch } = declines;
  for (const event of events) {
    if (event.kind === 'draw_declined') draw = event.seat;
    if (event.kind === 'moved' || event.kind === 'draw_offered') draw = null;
    if (event.kind === 'takeback_declined') takeback = event.seat;
    if (event.kind === 'moved' || event.kind === 'takeback_offered' || event.kind === 'taken_back') takeback = null;
    if (event.kind === 'rematch_declined') rematch = event.seat;
    if (event.kind === 'rematch_offered') rematch = null;
  }
  return { draw, takeback, rematch };
}

/**
 * The lobby's table form filled with the `options` of a table (its "new game" button), the
 * set-up position it started from included (`fen`, or `null`).
 * @param {import('../protocol.js').TableOptions} o
 */
export function newGameForm(o) {
  return {
    variant: o.variant, timed: !!o.time, minutes: o.time ? o.time.initial_ms / 60000 : 10,
    increment: o.time ? o.time.increment_ms / 1000 : 5, rated: o.rated,
    limit: o.no_capture_limit ?? 120, flags: o.flag_bearers ?? true, fen: o.fen ?? null,
  };
}

/**
 * The lobby's card for a game against the computer filled from a table played against it (its
 * "new game" button): the variant, the computer's level and the time as the card writes it
 * (`minutes+seconds`, or `none`), and the set-up position the game started from (or `null`).
 * @param {import('../protocol.js').TableOptions} o
 * @param {number} level
 * @returns {{variant: string, level: number, time: string, fen: string | null}}
 */
export function newComputerForm(o, level) {
  const time = o.time ? `${o.time.initial_ms / 60000}+${o.time.increment_ms / 1000}` : 'none';
  return { variant: o.variant, level, time, fen: o.fen ?? null };
}

/**
 * The lines of the open offers and the last declines: a draw and a takeback while the game runs,
 * a rematch once it has ended (each `null` when there is nothing to say).
 * @param {StateMessage | null} s
 * @param {Declines} declines
 * @returns {(HTMLElement | null)[]}
 */
export function offerNodes(s, declines) {
  const variant = /** @type {string} */ (s?.table.options.variant);
  const offer = s && s.draw_offer !== null && s.table.phase === 'running'
    ? h('p', { class: 'offer' }, t('table.draw_offered', { seat: seatLabel(variant, s.draw_offer) }))
    : s && declines.draw !== null && s.table.phase === 'running'
      ? h('p', { class: 'offer declined', id: 'draw-declined' }, t('table.draw_declined', { seat: seatLabel(variant, declines.draw) })) : null;
  const takebackOffer = s && (s.takeback_offer ?? null) !== null && s.table.phase === 'running'
    ? h('p', { class: 'offer', id: 'takeback-offered' }, t('table.takeback_offered', { seat: seatLabel(variant, /** @type {number} */ (s.takeback_offer)) }))
    : s && declines.takeback !== null && s.table.phase === 'running'
      ? h('p', { class: 'offer declined', id: 'takeback-declined' }, t('table.takeback_declined', { seat: seatLabel(variant, declines.takeback) })) : null;
  const rematchOffers = (s?.rematch_offers ?? []).filter((x) => x !== s?.you);
  const rematchNote = s && s.table.phase === 'ended' && !s.rematch && rematchOffers.length > 0
    ? h('p', { class: 'offer', id: 'rematch-offered' }, t('table.rematch_offered', { seat: seatLabel(variant, rematchOffers[0]) }))
    : s && s.table.phase === 'ended' && declines.rematch !== null && (s.rematch_offers ?? []).length === 0
      ? h('p', { class: 'offer declined', id: 'rematch-declined' }, t('table.rematch_declined', { seat: seatLabel(variant, declines.rematch) })) : null;
  return [offer, takebackOffer, rematchNote];
}

/**
 * The action buttons of `table`'s page.
 * @param {import('../table.js').Table} table
 * @param {{flip: boolean, onFlip: () => void, draw: () => void}} view whether the board is
 *   turned, what the flip button does, and drawing the page again (after a failed rematch)
 * @returns {HTMLElement}
 */
export function actionsNode(table, view) {
  if (!table.state) return h('div');
  const s = table.state;
  const seated = s.you !== null;
  const running = s.table.phase === 'running';
  const full = s.table.seats.every((x) => x !== null);
  const buttons = [];
  if (s.table.phase === 'open' && seated) {
    buttons.push(h('label', { class: 'field inline' }, t('table.level'), ' ', h('select', {
      id: 'level', onchange: (/** @type {Event} */ e) => { table.level = Number(/** @type {HTMLSelectElement} */ (e.target).value); },
    }, ...[1, 2, 3, 4, 5, 6, 7, 8].map((l) => h('option', { value: l, selected: l === table.level }, `${l} · ${t(`level.${l}`)}`)))));
    if (full) buttons.push(h('button', { id: 'start', class: 'primary', onclick: () => table.send({ type: 'start' }) }, t('table.start')));
  }
  // a defeated sanguo kingdom watches the rest of the game: nothing left to resign or offer
  const defeated = (s.defeats ?? []).some((d) => d.seat === s.you);
  if (running && seated && !defeated) {
    if (s.board.moves.length === 0) buttons.push(h('button', { id: 'abort', onclick: () => table.send({ type: 'abort' }) }, t('table.abort')));
    // an arena game of a berserkable arena: half the clock for a point more, before the first own move
    const o = s.table.options;
    if (o.tournament && o.berserkable && s.you !== null && s.board.moves.length <= s.you && !(s.berserks ?? []).includes(s.you)) {
      buttons.push(h('button', { id: 'berserk', class: 'berserk', title: t('table.berserk_hint'), onclick: () => table.send({ type: 'berserk' }) }, `⚡ ${t('table.berserk')}`));
    }
    if (s.draw_offers && s.draw_offer !== null && s.draw_offer !== s.you) {
      buttons.push(h('button', { id: 'accept-draw', class: 'primary', onclick: () => table.send({ type: 'accept_draw' }) }, t('table.accept_draw')));
      buttons.push(h('button', { id: 'decline-draw', onclick: () => table.send({ type: 'decline_draw' }) }, t('table.decline_draw')));
    } else if (s.draw_offers) {
      buttons.push(h('button', { id: 'offer-draw', disabled: s.draw_offer === s.you, onclick: () => table.send({ type: 'offer_draw' }) }, t('table.offer_draw')));
    }
    // against the computer (xiangqi): take back the last own move (and the answer)
    const vsComputer = s.table.seats.every((x, i) => i === s.you || x?.kind === 'computer');
    if (s.board.variant === 'xiangqi' && vsComputer && s.board.moves.length >= (s.to_move === s.you ? 2 : 1)) {
      buttons.push(h('button', { id: 'takeback', onclick: () => { table.premove = null; table.send({ type: 'takeback' }); } }, t('table.takeback')));
    }
    // between people in an unrated xiangqi game: ask the other, who accepts or declines
    const offer = s.takeback_offer ?? null;
    if (s.board.variant === 'xiangqi' && !vsComputer && !s.table.options.rated) {
      if (offer !== null && offer !== s.you) {
        buttons.push(h('button', { id: 'accept-takeback', class: 'primary', onclick: () => { table.premove = null; table.send({ type: 'accept_takeback' }); } }, t('table.accept_takeback')));
        buttons.push(h('button', { id: 'decline-takeback', onclick: () => table.send({ type: 'decline_takeback' }) }, t('table.decline_takeback')));
      } else if (s.board.moves.length >= (s.to_move === s.you ? 2 : 1)) {
        buttons.push(h('button', { id: 'ask-takeback', disabled: offer === s.you, onclick: () => table.send({ type: 'takeback' }) }, t('table.ask_takeback')));
      }
    }
    buttons.push(h('button', { id: 'resign', onclick: () => { if (confirm(t('table.confirm_resign'))) table.send({ type: 'resign' }); } }, t('table.resign')));
  }
  // people at the table: with two or more, the rematch is theirs to agree (the computer's seats
  // always agree and come along); a person alone with the computer starts the next game at once
  const persons = s.table.seats.filter((x) => x?.kind === 'person').length;
  // an arena game: the way back to its tournament (no rematch: the arena pairs again)
  const arena = s.table.options.tournament;
  if (arena) {
    buttons.unshift(h('a', { class: `button${s.table.phase === 'ended' ? ' primary' : ''}`, id: 'back-to-tournament', href: `#/tournament/${arena}` }, t('table.back_to_tournament')));
  }
  if (s.table.phase === 'ended' && seated && persons >= 2 && !arena) {
    // between people: offer a rematch, or answer the other's; once agreed, a link to it
    const offers = s.rematch_offers ?? [];
    const mine = offers.includes(/** @type {number} */ (s.you));
    if (s.rematch) {
      buttons.push(h('a', { class: 'button primary', id: 'go-rematch', href: `#/t/${s.rematch}` }, t('table.go_rematch')));
    } else if (offers.length > 0 && !mine) {
      buttons.push(h('button', { id: 'accept-rematch', class: 'primary', onclick: () => table.send({ type: 'accept_rematch' }) }, t('table.accept_rematch')));
      buttons.push(h('button', { id: 'decline-rematch', onclick: () => table.send({ type: 'decline_rematch' }) }, t('table.decline_rematch')));
    } else {
      buttons.push(h('button', {
        id: 'rematch', class: 'primary', disabled: mine, onclick: () => table.send({ type: 'offer_rematch' }),
      }, t(mine ? 'table.rematch_sent' : 'table.rematch')));
    }
  }
  if (s.table.phase === 'ended' && seated) {
    const computer = s.table.seats.find((x) => x?.kind === 'computer');
    if (computer && computer.kind === 'computer' && persons === 1) {
      // the same table options, the colours (kingdoms) turned by one seat, the same computer
      buttons.push(h('button', {
        id: 'rematch', class: 'primary',
        onclick: async () => {
          try {
            const seat = ((s.you ?? 0) + 1) % s.table.seats.length;
            const next = await api('POST', `/api/tables?seat=${seat}`, s.table.options);
            requestSetup(next.id, seat, computer.level);
            location.hash = `#/t/${next.id}`;
          } catch (err) {
            table.problem = { type: 'failed', error: err };
            view.draw();
          }
        },
      }, t('table.rematch')));
    }
    buttons.push(h('button', {
      id: 'new-game',
      onclick: () => {
        // after a game against the computer, the computer's card; else the people's form
        const computer = s.table.seats.find((x) => x?.kind === 'computer');
        const form = computer && computer.kind === 'computer' && persons === 1
          ? { computer: newComputerForm(s.table.options, computer.level) } : newGameForm(s.table.options);
        try { sessionStorage.setItem('chuhe.form', JSON.stringify(form)); } catch { /* storage disabled */ }
        location.hash = '#/';
      },
    }, t('table.new_game')));
  }
  // every game's analysis board (banqi's from the public view alone), once the game is over
  if (s.table.phase === 'ended' && s.board.moves.length > 0) {
    buttons.push(h('a', { class: 'button', id: 'analyse', href: `#/analysis/t/${s.table.id}` }, t('analysis.open')));
  }
  if (s.table.options.variant === 'xiangqi' && s.board.moves.length > 0) {
    const notation = lang() === 'zh' ? 'chinese' : 'wxf';
    buttons.push(h('a', { class: 'button', id: 'pgn', href: `/api/tables/${s.table.id}/pgn?notation=${notation}`, download: `chuhe-${s.table.id}.pgn` }, t('table.pgn')));
  }
  buttons.push(h('button', {
    id: 'flip', title: t('table.flip'), 'aria-pressed': view.flip ? 'true' : 'false',
    onclick: view.onFlip,
  }, t('table.flip')));
  buttons.push(h('a', {
    class: 'button', id: 'leave', href: '#/',
    // app.js asks the same question for every way out of the page (leaving())
  }, t('table.leave')));
  return h('div', { class: 'actions' }, ...buttons);
}
