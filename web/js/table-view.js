// The table page (#/t/ID): it draws what the table's state (table.js) holds and hands the clicks
// back to it. The page puts together its parts (table-parts/*.js), each drawn from the table's
// state with the callbacks it needs:
//
// table-parts/board.js    the board, the step-through controls, banqi's lost pieces
// table-parts/seats.js    the seats (names, ratings, absent countdowns, seat buttons), the guest form
// table-parts/clocks.js   the seats' clocks and their countdown
// table-parts/actions.js  the action buttons and the lines of the offers
// table-parts/moves.js    the move list (and the words of a sanguo defeat)
// table-parts/chat.js     the chat
//
// The page itself keeps what they share (the flip of the board, sanguo's zoom), the title, the
// status and result lines, the sounds of the server's updates and the keys of the step-through.

import { t } from './i18n.js';
import { KINGDOM_COLORS } from './boards.js';
import { h } from './dom.js';
import { errorText, serverErrorText, ratedBadge, resultLine, seatLabel, timeText } from './format.js';
import { Table } from './table.js';
import { play } from './sound.js';
import { NO_DECLINES, actionsNode, followDeclines, offerNodes } from './table-parts/actions.js';
import { inviteNode } from './table-parts/invite.js';
import { boardNode, capturedNode, replayNode } from './table-parts/board.js';
import { chatPart } from './table-parts/chat.js';
import { clockTicker } from './table-parts/clocks.js';
import { defeatText, movesNode, scrollMoves } from './table-parts/moves.js';
import { seatsPart } from './table-parts/seats.js';

/** @typedef {import('./protocol.js').StateMessage} StateMessage */

/**
 * The table page of table `id`: `draw` draws it again (after a language switch), `leave` stops
 * its socket, its clock timer and its keys; `leaving` is the question to ask before leaving a
 * game that the receiver is still playing (else `null`).
 * @param {import('./app.js').Shell} shell
 * @param {string} id
 * @returns {{draw: () => void, leave: () => void, leaving: () => string | null}}
 */
export function tablePage(shell, id) {
  const table = new Table(id, () => draw());
  const seats = seatsPart(table, shell, () => draw());
  const chat = chatPart(table, shell);
  /** the seats that declined the last draw, takeback and rematch offers */
  let declines = NO_DECLINES;
  // the sounds of a change: the end, else a check, else a capture, else a move; the start
  // a seated person's opponent whose connection drops during the game is heard once
  table.onPresence = (seat, connected, before) => {
    if (!connected && before.connected[seat] && before.you !== null && seat !== before.you
      && before.table.phase === 'running' && before.table.seats[seat]?.kind === 'person') play('gone');
  };
  table.onUpdate = (msg, before) => {
    const kinds = msg.events.map((e) => e.event.kind);
    if (kinds.includes('ended') && before.table.options.rated) seats.refreshRatings(before);
    declines = followDeclines(declines, msg.events.map((e) => e.event));
    for (const { event } of msg.events) {
      // the rematch agreed: its players go to the new table (already seated there), where
      // the new first seat starts the game once everyone has arrived; spectators follow
      if (event.kind === 'rematched') {
        if (before.you !== null) {
          try { sessionStorage.setItem(`chuhe.rematch.${event.table}`, '1'); } catch { /* storage disabled */ }
        }
        location.hash = `#/t/${event.table}`;
      }
    }
    // an offer made to the receiver (by another seat) asks for an answer: it is heard
    const offered = msg.events.some(({ event }) => (event.kind === 'draw_offered' || event.kind === 'takeback_offered'
      || event.kind === 'rematch_offered') && before.you !== null && event.seat !== before.you);
    if (offered && !kinds.includes('ended')) play('offer');
    if (kinds.includes('started')) play('start');
    if (kinds.includes('ended')) play('end');
    else if (kinds.includes('moved')) {
      const moved = msg.events.find((e) => e.event.kind === 'moved')?.event;
      const text = moved && moved.kind === 'moved' ? moved.move : '';
      let capture = text.includes('x');
      if (before.board.variant === 'xiangqi' && msg.board?.variant === 'xiangqi') {
        /** @param {string} fen */
        const count = (fen) => (fen.split(' ')[0].match(/[a-zA-Z]/g) ?? []).length;
        capture = count(msg.board.fen) < count(before.board.fen);
      }
      play(msg.check.length ? 'check' : capture ? 'capture' : 'move');
    }
  };
  /** whether the player turned the board (xiangqi and banqi half a turn; sanguo: the next kingdom at the bottom) */
  let flip = false;
  /** sanguo on a phone: the board drawn larger than the screen, scrolled to the receiver's half */
  let zoom = false;
  let scrollZoom = false;

  /** Whether the receiver plays in the running game (seated, and not a defeated kingdom). */
  const playing = () => {
    const s = table.state;
    if (!s || s.you === null || s.table.phase !== 'running') return false;
    return !(s.defeats ?? []).some((d) => d.seat === s.you);
  };
  /** The question before leaving a game the receiver still plays. */
  const leaving = () => (playing() ? t('table.confirm_leave') : null);

  /** The refusal or failure the page shows, in the page's language. */
  const noticeText = () => {
    const p = table.problem;
    if (!p) return '';
    if (p.type === 'failed') return errorText(p.error);
    return serverErrorText(p.code, p.message);
  };

  /** The connection line: connecting, reconnecting, or nothing once connected. */
  const connectionText = () => table.connection === 'connecting' ? t('app.connecting')
    : table.connection === 'lost' ? t('app.reconnecting') : '';

  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    const review = table.review;
    const s = table.state;
    if (!s || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = /** @type {HTMLElement | null} */ (e.target);
    if (target && ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName)) return;
    const step = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[e.key];
    if (step === undefined) return;
    // a running game: the keys browse its earlier moves (the last one is the live board)
    const live = s.board.moves.length;
    if (!review && (s.table.phase !== 'running' || step > 0)) return;
    e.preventDefault();
    const ply = review ? review.ply : live;
    const last = review && s.table.phase === 'ended' ? review.positions.moves.length : live;
    table.browse(Number.isFinite(step) ? ply + step : step < 0 ? 0 : last);
  };
  window.addEventListener('keydown', onKey);

  const resultText = () => {
    const s = /** @type {StateMessage} */ (table.state);
    return s.outcome ? resultLine(s.table.options.variant, s.outcome, s.winner_seats) : '';
  };

  const statusText = () => {
    if (!table.state) return t('app.connecting');
    const s = table.state;
    const variant = s.table.options.variant;
    const colors = s.board.variant === 'banqi' ? s.board.colors : undefined;
    if (s.table.phase === 'open') return s.table.seats.every((x) => x !== null) ? t('table.ready') : t('table.waiting');
    if (s.to_move === null) return '';
    if (s.to_move === s.you) return t('table.your_turn');
    const line = t('table.to_move', { seat: seatLabel(variant, s.to_move, colors) });
    return s.you === null ? `${t('table.spectator')} · ${line}` : line;
  };

  const draw = () => {
    if (table.missing) {
      shell.show(h('main', { class: 'table-page missing' }, h('section', { class: 'card', id: 'not-found' },
        h('p', { class: 'lead' }, t('table.not_found')),
        h('a', { class: 'button', id: 'back-to-lobby', href: '#/' }, t('table.back_to_lobby')))));
      return;
    }
    const s = table.state;
    const variant = s?.table.options.variant;
    const title = s ? `${t(`variant.${variant}`)} · ${timeText(s.table.options.time)}` : t('app.connecting');
    const toMoveColor = s && s.to_move !== null
      ? (variant === 'sanguo' ? KINGDOM_COLORS[s.to_move] : '') : '';
    const lastDefeat = table.lastDefeat && s?.table.phase !== 'ended' ? table.lastDefeat : null;
    // the tab says whose turn it is (or the result), so a player in another tab sees it
    const tabTitle = s?.outcome ? `${resultText()} · chuhe`
      : s && s.to_move !== null && s.to_move === s.you ? `● ${t('table.your_turn')} · chuhe`
        : statusText() ? `${statusText()} · chuhe` : undefined;
    const view = { flip, coords: /** @type {'iccs' | 'wxf' | 'chinese'} */ (shell.session.notation) };
    shell.show(h('main', { class: 'table-page', 'data-variant': variant ?? '', 'data-page': `table:${id}` },
      h('div', { class: `board-col${table.review ? ' reviewing' : ''}` },
        connectionText() ? h('p', { class: 'connection', role: 'status' }, connectionText()) : null,
        variant === 'sanguo' ? h('button', {
          class: 'zoom-toggle small', id: 'zoom', 'aria-pressed': zoom ? 'true' : 'false',
          onclick: () => { zoom = !zoom; scrollZoom = zoom; draw(); },
        }, t(zoom ? 'table.zoom_out' : 'table.zoom_in')) : null,
        h('div', { class: `board-wrap${zoom ? ' zoomed' : ''}${table.premove ? ' premove' : ''}`, id: 'board-wrap' }, boardNode(table, view)),
        replayNode(table),
        capturedNode(table)),
      h('aside', { class: 'side-col' },
        h('h2', {}, title, s?.table.options.rated ? ' ' : null, ratedBadge(!!s?.table.options.rated),
          s && table.spectators ? h('span', { class: 'spectators', id: 'spectators', title: t('table.spectators', { n: table.spectators }) },
            ` · ${t('table.spectators', { n: table.spectators })}`) : null),
        s?.outcome ? h('div', { class: 'banner', id: 'result', role: 'status' }, resultText()) : null,
        statusText() ? h('p', { class: `status${s && s.to_move !== null && s.to_move === s.you ? ' yours' : ''}`, id: 'status', style: toMoveColor ? `border-color:${toMoveColor}` : undefined }, statusText()) : null,
        seats.node(),
        inviteNode(s, draw),
        ...offerNodes(s, declines),
        lastDefeat ? h('p', { class: 'defeat-notice', id: 'defeat-notice', role: 'status' }, defeatText(lastDefeat)) : null,
        noticeText() ? h('p', { class: 'error', role: 'alert' }, noticeText()) : null,
        actionsNode(table, { flip, onFlip: () => { flip = !flip; draw(); }, draw }),
        movesNode(table, shell.session.notation),
        chat.node())), tabTitle);
    const wrap = document.getElementById('board-wrap');
    if (wrap && scrollZoom) {
      // the receiver's kingdom is at the bottom: the board's middle in the frame, and the page
      // scrolled so that the frame's bottom (the receiver's palace) meets the screen's
      scrollZoom = false;
      wrap.scrollLeft = (wrap.scrollWidth - wrap.clientWidth) / 2;
      wrap.scrollIntoView({ block: 'end' });
    }
    chat.scroll();
    scrollMoves(!!table.review);
  };

  const tick = setInterval(clockTicker(table), 100);
  // the countdowns of absent seats
  const absentTick = setInterval(seats.tick, 250);

  draw();
  return {
    draw, leaving,
    leave: () => {
      clearInterval(tick); clearInterval(absentTick);
      // leaving an open table withdraws the seek at once (as lichess's): the seat is freed, and
      // with nobody left seated the lobby stops listing the table
      const s = table.state;
      if (s && s.table.phase === 'open' && s.you !== null) table.send({ type: 'stand' });
      table.close(); window.removeEventListener('keydown', onKey);
    },
  };
}
