// The table page (#/t/ID): the board, the seats with their clocks, the actions, the move list,
// the result banner, the step-through of an ended game and banqi's lost pieces. It draws what the
// table's state (table.js) holds and hands the clicks back to it.

import { lang, t } from './i18n.js';
import { generalSquares, moveEnds, readPool, readSanguoPosition } from './protocol.js';
import { KINGDOM_COLORS, banqiBoard, banqiPieceIcon, sanguoBoard, xiangqiBoard } from './boards.js';
import { h } from './dom.js';
import { errorText, formatClock, guestBadge, serverErrorText, occupant, ratedBadge, resultLine, seatLabel, timeText } from './format.js';
import { Table, requestSetup } from './table.js';
import { api } from './net.js';
import { play } from './sound.js';

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
  /** whether the low-time warning has sounded in this game */
  let warned = false;
  // the sounds of a change: the end, else a check, else a capture, else a move; the start
  /** @type {number | null} the seat that declined the last draw offer, until the next move */
  let declined = null;
  /** @type {number | null} the seat that declined the last takeback request, until the next move */
  let takebackDeclined = null;
  /** @type {number | null} the seat that declined (or withdrew) the last rematch offer */
  let rematchDeclined = null;
  table.onUpdate = (msg, before) => {
    const kinds = msg.events.map((e) => e.event.kind);
    if (kinds.includes('ended') && before.table.options.rated && !ratingsAfterEnd) {
      ratingsAfterEnd = true;
      // the new ratings are stored with the ended event: ask again
      for (const entry of before.table.seats) {
        if (entry?.kind === 'person' && entry.account) fetchRating(entry.id, before.table.options.variant);
      }
    }
    for (const { event } of msg.events) {
      if (event.kind === 'draw_declined') declined = event.seat;
      if (event.kind === 'moved' || event.kind === 'draw_offered') declined = null;
      if (event.kind === 'takeback_declined') takebackDeclined = event.seat;
      if (event.kind === 'moved' || event.kind === 'takeback_offered' || event.kind === 'taken_back') takebackDeclined = null;
      if (event.kind === 'rematch_declined') rematchDeclined = event.seat;
      if (event.kind === 'rematch_offered') rematchDeclined = null;
      // the rematch agreed: its players go to the new table (already seated there), where
      // the new first seat starts the game once everyone has arrived
      if (event.kind === 'rematched' && before.you !== null) {
        try { sessionStorage.setItem(`chuhe.rematch.${event.table}`, '1'); } catch { /* storage disabled */ }
        location.hash = `#/t/${event.table}`;
      }
    }
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
  /** The kingdom at the bottom of the sanguo board. */
  const bottom = () => ((table.state?.you ?? 0) + (flip ? 1 : 0)) % 3;
  /** Whether Black is at the bottom of the xiangqi board. */
  const blackBelow = () => (table.state?.you === 1) !== flip;
  /** The xiangqi coordinates: as the move list writes them. */
  const coords = () => /** @type {'iccs' | 'wxf' | 'chinese'} */ (shell.session.notation);
  /** sanguo on a phone: the board drawn larger than the screen, scrolled to the receiver's half */
  let zoom = false;
  let scrollZoom = false;
  /**
   * Account holders' ratings in this table's game, by player id: the one when first seen and
   * the latest (fetched again when a rated game ends); `null` while unknown or unrated.
   * @type {Map<string, {first: number | null, now: number | null, loading: boolean, provisional?: boolean}>}
   */
  const ratings = new Map();
  /** A new player's rating (rating.rs). */
  const NEW_RATING = 1500;
  let ratingsAfterEnd = false;
  /** @param {string} playerId @param {string} variant */
  const fetchRating = async (playerId, variant) => {
    const known = ratings.get(playerId) ?? { first: null, now: null, loading: false };
    if (known.loading) return;
    known.loading = true;
    ratings.set(playerId, known);
    try {
      /** @type {import('./protocol.js').RatingInfo[]} */
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
  /** The rating text beside a seated account holder: "1500", after a rated game "1512 (+12)". @param {import('./protocol.js').SeatEntry | null} entry */
  const ratingText = (entry) => {
    const s = table.state;
    if (!s || !entry || entry.kind !== 'person' || !entry.account) return '';
    const known = ratings.get(entry.id);
    if (!known) {
      fetchRating(entry.id, s.table.options.variant);
      return '';
    }
    if (known.now === null) return '';
    const diff = known.first !== null && known.now !== known.first ? known.now - known.first : 0;
    const shown = `${known.now}${known.provisional ? '?' : ''}`;
    return diff ? `${shown} (${diff > 0 ? '+' : ''}${diff})` : shown;
  };
  /** the chat line being typed */
  let chatText = '';
  /** the guest name typed at a table opened without a session */
  let guestName = '';
  let guestError = '';

  /** Whether the receiver plays in the running game (seated, and not a defeated kingdom). */
  const playing = () => {
    const s = table.state;
    if (!s || s.you === null || s.table.phase !== 'running') return false;
    return !(s.defeats ?? []).some((d) => d.seat === s.you);
  };
  /** The question before leaving a game the receiver still plays. */
  const leaving = () => (playing() ? t('table.confirm_leave') : null);

  /** @param {number} seat */
  const isDefeated = (seat) => (table.state?.defeats ?? []).some((d) => d.seat === seat);

  /** The words of a defeat: who fell, why, who took the army. @param {import('./protocol.js').Defeat} d */
  const defeatText = (d) => t('table.defeat_line', {
    seat: seatLabel('sanguo', d.seat), reason: t(`defeat.${d.reason}`), heir: seatLabel('sanguo', d.heir),
  });

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

  /** The board of the review's current ply: only what the server's positions say. */
  const reviewBoard = () => {
    const s = /** @type {StateMessage} */ (table.state);
    const r = /** @type {NonNullable<typeof table.review>} */ (table.review);
    const snap = r.positions.positions[r.ply];
    const variant = r.positions.variant;
    const lastText = r.ply > 0 ? r.positions.moves[r.ply - 1] : null;
    const last = lastText ? moveEnds(lastText) : null;
    /** @type {import('./boards.js').Marks} */
    const marks = {
      selected: null, targets: new Map(), last: last ? [last.from, last.to] : [],
      check: generalSquares(variant, snap.position, snap.check), onPick: () => {}, onDrop: () => {},
    };
    if (variant === 'xiangqi') return xiangqiBoard(snap.position, blackBelow(), marks, coords());
    if (variant === 'banqi') return banqiBoard(snap.position, marks, flip);
    const toMove = r.ply < r.positions.moves.length ? readSanguoPosition(snap.position).toMove : null;
    return sanguoBoard(snap.position, bottom(), toMove, marks);
  };

  const boardNode = () => {
    const state = table.state;
    if (!state) return h('div');
    if (table.review) return reviewBoard();
    const lastText = state.board.moves[state.board.moves.length - 1];
    const last = lastText ? moveEnds(lastText) : null;
    const text = state.board.variant === 'xiangqi' ? state.board.fen
      : state.board.variant === 'banqi' ? state.board.view : state.board.position;
    const check = generalSquares(state.board.variant, text, state.check ?? []);
    const pre = table.premove;
    /** @type {import('./boards.js').Marks} */
    const marks = {
      selected: pre ? pre.from : table.selection.selected,
      targets: pre ? new Map(pre.to ? [[pre.to, false]] : []) : table.selection.targets(),
      last: last ? [last.from, last.to] : [], check,
      onPick: (sq) => table.pick(sq), onDrop: (sq) => table.drop(sq),
    };
    if (state.board.variant === 'xiangqi') return xiangqiBoard(state.board.fen, blackBelow(), marks, coords());
    if (state.board.variant === 'banqi') return banqiBoard(state.board.view, marks, flip);
    return sanguoBoard(state.board.position, bottom(), state.to_move, marks);
  };

  /** Under ten seconds, or under a tenth of a long game's time (at most a minute): low. @param {number} ms */
  const lowTime = (ms) => {
    const initial = table.state?.table.options.time?.initial_ms ?? 0;
    return ms < Math.max(10000, Math.min(60000, initial / 10));
  };

  const clockNode = (/** @type {number} */ seat) => {
    const c = table.state?.clocks?.[seat];
    if (!c) return null;
    return h('span', { class: `clock${c.running ? ' running' : ''}${lowTime(c.remaining_ms) ? ' low' : ''}`, 'data-clock': seat }, formatClock(c.remaining_ms));
  };

  const seatsNode = () => {
    if (!table.state) return h('div');
    const s = table.state;
    const variant = s.table.options.variant;
    const colors = s.board.variant === 'banqi' ? s.board.colors : undefined;
    const seated = s.you !== null;
    const open = s.table.phase === 'open';
    // a guest is not offered a seat at a rated table: the server would refuse it
    const ratedForGuest = s.table.options.rated && !shell.session.me?.account;
    const order = s.table.seats.map((_, i) => i);
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
          ratingText(entry) ? h('span', { class: 'seat-rating', 'data-rating': i }, ` ${ratingText(entry)}`) : null,
          entry && !s.connected[i] && s.table.phase !== 'ended' ? ` · ${t('table.offline')}` : ''),
        clockNode(i),
        absent ? h('span', { class: 'absent-line', 'data-absent': i, role: 'status' }, absent) : null,
        open && !entry && shell.session.me && !seated && ratedForGuest ? h('span', { class: 'muted sit-refused', 'data-no-sit': i }, t('table.rated_guest')) : null,
        open && !entry && shell.session.me && !seated && !ratedForGuest ? h('button', { class: 'sit', 'data-sit': i, onclick: () => table.send({ type: 'sit', seat: i }) }, t('table.sit')) : null,
        open && !entry && seated ? h('button', { class: 'computer', 'data-computer': i, onclick: () => table.send({ type: 'sit_computer', seat: i, level: table.level }) }, t('table.computer')) : null,
        open && s.you === i ? h('button', { class: 'stand', onclick: () => table.send({ type: 'stand' }) }, t('table.stand')) : null);
    }), guestSitNode());
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

  const resultText = () => {
    const s = /** @type {StateMessage} */ (table.state);
    return s.outcome ? resultLine(s.table.options.variant, s.outcome, s.winner_seats) : '';
  };

  /** Banqi: the pieces each side has lost, from the server's count, in rank order. */
  const capturedNode = () => {
    if (!table.state || table.state.board.variant !== 'banqi') return null;
    const snap = table.review ? table.review.positions.positions[table.review.ply] : null;
    const pool = readPool(snap?.captured ?? table.state.board.captured);
    /** @param {'red' | 'black'} color */
    const row = (color) => h('div', { class: 'lost-row', 'data-color': color },
      h('span', { class: 'lost-label' }, t(`banqi.lost_${color}`)),
      h('span', { class: 'lost-pieces' }, ...(pool[color].length ? pool[color].map((p) => banqiPieceIcon(p, 30))
        : [h('span', { class: 'muted' }, t('banqi.none_lost'))])));
    return h('div', { class: 'card captured', id: 'captured' }, row('red'), row('black'));
  };

  /** The step-through controls of an ended game. */
  const replayNode = () => {
    if (!table.review) return null;
    const r = table.review;
    // a running game: the live board is the last step
    const n = table.state && table.state.table.phase !== 'ended' ? table.state.board.moves.length : r.positions.moves.length;
    /** @param {string} id @param {string} key @param {string} path @param {number} ply @param {boolean} off */
    const button = (id, key, path, ply, off) => {
      const b = h('button', { id, class: 'step', title: t(key), 'aria-label': t(key), disabled: off, onclick: () => table.goTo(ply) });
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

  const movesNode = () => {
    if (!table.state) return h('div');
    const moves = table.movesIn(shell.session.notation);
    // one row per round, one column per seat: a defeated kingdom's column stays empty
    const per = table.state.table.seats.length;
    const current = table.review ? table.review.ply : moves.length;
    const defeats = table.state.defeats ?? [];
    /** @param {number} ply @param {string} m */
    const cell = (ply, m) => h('span', {
      class: `mv${ply === current ? ' current' : ''}`, 'data-ply': ply,
      onclick: () => table.browse(ply),
    }, m);
    /** @type {HTMLElement[]} */
    const rows = [];
    /** @type {(HTMLElement | null)[]} */
    let row = [];
    let round = 0;
    const flush = () => {
      if (row.length === 0) return;
      round += 1;
      rows.push(h('li', { 'data-round': round }, h('span', { class: 'no' }, `${round}.`),
        ...row.map((c) => c ?? h('span', { class: 'mv-empty' }))));
      row = [];
    };
    const out = new Set(/** @type {number[]} */ ([]));
    let seat = 0;
    moves.forEach((m, i) => {
      const ply = i + 1;
      if (seat < row.length) flush();
      while (row.length < seat) row.push(null);
      row.push(cell(ply, m));
      const fell = defeats.filter((d) => d.ply === ply);
      for (const d of fell) out.add(d.seat);
      // the next seat in turn order that still plays
      let next = (seat + 1) % per;
      while (out.has(next) && out.size < per) next = (next + 1) % per;
      if (fell.length) {
        flush();
        for (const d of fell) rows.push(h('li', { class: 'defeat-line', 'data-defeat': d.seat }, defeatText(d)));
      }
      seat = next;
    });
    flush();
    const list = h('ol', { class: `moves per-${per}`, id: 'moves' }, ...rows);
    return h('section', { class: 'card moves-card' }, h('h3', {}, t('table.moves')), list);
  };

  /**
   * The table's chat: the seated players' among themselves, the spectators' among themselves
   * (the server sends each room to its own); lines are text, never markup.
   */
  const chatNode = () => {
    const s = table.state;
    if (!s || !shell.session.me) return null;
    const room = s.you === null ? 'spectators' : 'players';
    return h('section', { class: 'card chat', id: 'chat' },
      h('h3', {}, t(room === 'players' ? 'chat.players' : 'chat.spectators')),
      h('ol', { class: 'chat-lines', id: 'chat-lines' }, ...table.chat.filter((c) => c.room === room).map((c) =>
        h('li', { class: 'chat-line' }, h('strong', { class: 'chat-name', title: c.name }, c.name), c.account ? null : ' ', guestBadge(c.account), ' ', h('span', { class: 'chat-text' }, c.text)))),
      h('form', {
        class: 'chat-form',
        onsubmit: (/** @type {Event} */ e) => {
          e.preventDefault();
          const text = chatText.trim();
          if (!text) return;
          table.send({ type: 'chat', text });
          chatText = '';
          const input = /** @type {HTMLInputElement | null} */ (document.getElementById('chat-input'));
          if (input) input.value = '';
        },
      }, h('input', {
        id: 'chat-input', maxlength: 140, value: chatText, placeholder: t('chat.placeholder'), 'aria-label': t('chat.placeholder'),
        autocomplete: 'off', oninput: (/** @type {Event} */ e) => { chatText = /** @type {HTMLInputElement} */ (e.target).value; },
      }), h('button', { type: 'submit', id: 'chat-send' }, t('chat.send'))));
  };

  const actionsNode = () => {
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
    if (running && seated) {
      if (s.board.moves.length === 0) buttons.push(h('button', { id: 'abort', onclick: () => table.send({ type: 'abort' }) }, t('table.abort')));
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
    if (s.table.phase === 'ended' && seated && s.table.seats.every((x) => x?.kind !== 'computer')) {
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
      if (computer && computer.kind === 'computer') {
        // the same table options, the colours (kingdoms) turned by one seat, the same computer
        buttons.push(h('button', {
          id: 'rematch', class: 'primary',
          onclick: async () => {
            try {
              const next = await api('POST', '/api/tables', s.table.options);
              requestSetup(next.id, ((s.you ?? 0) + 1) % s.table.seats.length, computer.level);
              location.hash = `#/t/${next.id}`;
            } catch (err) {
              table.problem = { type: 'failed', error: err };
              draw();
            }
          },
        }, t('table.rematch')));
      }
      buttons.push(h('button', {
        id: 'new-game',
        onclick: () => {
          const o = s.table.options;
          const form = {
            variant: o.variant, timed: !!o.time, minutes: o.time ? o.time.initial_ms / 60000 : 10,
            increment: o.time ? o.time.increment_ms / 1000 : 5, rated: o.rated,
            limit: o.no_capture_limit ?? 120, flags: o.flag_bearers ?? true,
          };
          try { sessionStorage.setItem('chuhe.form', JSON.stringify(form)); } catch { /* storage disabled */ }
          location.hash = '#/';
        },
      }, t('table.new_game')));
    }
    if (s.table.options.variant === 'xiangqi' && s.table.phase === 'ended' && s.board.moves.length > 0) {
      buttons.push(h('a', { class: 'button', id: 'analyse', href: `#/analysis/t/${s.table.id}` }, t('analysis.open')));
    }
    if (s.table.options.variant === 'xiangqi' && s.board.moves.length > 0) {
      const notation = lang() === 'zh' ? 'chinese' : 'wxf';
      buttons.push(h('a', { class: 'button', id: 'pgn', href: `/api/tables/${s.table.id}/pgn?notation=${notation}`, download: `chuhe-${s.table.id}.pgn` }, t('table.pgn')));
    }
    buttons.push(h('button', {
      id: 'flip', title: t('table.flip'), 'aria-pressed': flip ? 'true' : 'false',
      onclick: () => { flip = !flip; draw(); },
    }, t('table.flip')));
    buttons.push(h('a', {
      class: 'button', id: 'leave', href: '#/',
      // app.js asks the same question for every way out of the page (leaving())
    }, t('table.leave')));
    return h('div', { class: 'actions' }, ...buttons);
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
    const offer = s && s.draw_offer !== null && s.table.phase === 'running'
      ? h('p', { class: 'offer' }, t('table.draw_offered', { seat: seatLabel(/** @type {string} */ (variant), s.draw_offer) }))
      : s && declined !== null && s.table.phase === 'running'
        ? h('p', { class: 'offer declined', id: 'draw-declined' }, t('table.draw_declined', { seat: seatLabel(/** @type {string} */ (variant), declined) })) : null;
    const takebackOffer = s && (s.takeback_offer ?? null) !== null && s.table.phase === 'running'
      ? h('p', { class: 'offer', id: 'takeback-offered' }, t('table.takeback_offered', { seat: seatLabel(/** @type {string} */ (variant), /** @type {number} */ (s.takeback_offer)) }))
      : s && takebackDeclined !== null && s.table.phase === 'running'
        ? h('p', { class: 'offer declined', id: 'takeback-declined' }, t('table.takeback_declined', { seat: seatLabel(/** @type {string} */ (variant), takebackDeclined) })) : null;
    const rematchOffers = (s?.rematch_offers ?? []).filter((x) => x !== s?.you);
    const rematchNote = s && s.table.phase === 'ended' && !s.rematch && rematchOffers.length > 0
      ? h('p', { class: 'offer', id: 'rematch-offered' }, t('table.rematch_offered', { seat: seatLabel(/** @type {string} */ (variant), rematchOffers[0]) }))
      : s && s.table.phase === 'ended' && rematchDeclined !== null && (s.rematch_offers ?? []).length === 0
        ? h('p', { class: 'offer declined', id: 'rematch-declined' }, t('table.rematch_declined', { seat: seatLabel(/** @type {string} */ (variant), rematchDeclined) })) : null;
    const toMoveColor = s && s.to_move !== null
      ? (variant === 'sanguo' ? KINGDOM_COLORS[s.to_move] : '') : '';
    const lastDefeat = table.lastDefeat && s?.table.phase !== 'ended' ? table.lastDefeat : null;
    // the tab says whose turn it is (or the result), so a player in another tab sees it
    const tabTitle = s?.outcome ? `${resultText()} · chuhe`
      : s && s.to_move !== null && s.to_move === s.you ? `● ${t('table.your_turn')} · chuhe`
        : statusText() ? `${statusText()} · chuhe` : undefined;
    shell.show(h('main', { class: 'table-page', 'data-variant': variant ?? '', 'data-page': `table:${id}` },
      h('div', { class: `board-col${table.review ? ' reviewing' : ''}` },
        connectionText() ? h('p', { class: 'connection', role: 'status' }, connectionText()) : null,
        variant === 'sanguo' ? h('button', {
          class: 'zoom-toggle small', id: 'zoom', 'aria-pressed': zoom ? 'true' : 'false',
          onclick: () => { zoom = !zoom; scrollZoom = zoom; draw(); },
        }, t(zoom ? 'table.zoom_out' : 'table.zoom_in')) : null,
        h('div', { class: `board-wrap${zoom ? ' zoomed' : ''}${table.premove ? ' premove' : ''}`, id: 'board-wrap' }, boardNode()),
        replayNode(),
        capturedNode()),
      h('aside', { class: 'side-col' },
        h('h2', {}, title, s?.table.options.rated ? ' ' : null, ratedBadge(!!s?.table.options.rated),
          s && table.spectators ? h('span', { class: 'spectators', id: 'spectators', title: t('table.spectators', { n: table.spectators }) },
            ` · ${t('table.spectators', { n: table.spectators })}`) : null),
        s?.outcome ? h('div', { class: 'banner', id: 'result', role: 'status' }, resultText()) : null,
        statusText() ? h('p', { class: `status${s && s.to_move !== null && s.to_move === s.you ? ' yours' : ''}`, id: 'status', style: toMoveColor ? `border-color:${toMoveColor}` : undefined }, statusText()) : null,
        seatsNode(),
        offer, takebackOffer, rematchNote,
        lastDefeat ? h('p', { class: 'defeat-notice', id: 'defeat-notice', role: 'status' }, defeatText(lastDefeat)) : null,
        noticeText() ? h('p', { class: 'error', role: 'alert' }, noticeText()) : null,
        actionsNode(),
        movesNode(),
        chatNode())), tabTitle);
    const wrap = document.getElementById('board-wrap');
    if (wrap && scrollZoom) {
      // the receiver's kingdom is at the bottom: show the middle of the bottom part
      scrollZoom = false;
      wrap.scrollLeft = (wrap.scrollWidth - wrap.clientWidth) / 2;
      wrap.scrollTop = wrap.scrollHeight - wrap.clientHeight;
    }
    const lines = document.getElementById('chat-lines');
    if (lines) lines.scrollTop = lines.scrollHeight;
    const list = document.getElementById('moves');
    const current = list?.querySelector('.mv.current');
    if (list && current && table.review) {
      const li = /** @type {HTMLElement} */ (current.parentElement);
      list.scrollTop = li.offsetTop - list.clientHeight / 2;
    } else if (list) list.scrollTop = list.scrollHeight;
  };

  const tick = setInterval(() => {
    if (!table.state?.clocks) return;
    const elapsed = performance.now() - table.receivedAt;
    const s = table.state;
    s.clocks?.forEach((c, i) => {
      const node = document.querySelector(`[data-clock="${i}"]`);
      const left = c.running ? c.remaining_ms - elapsed : c.remaining_ms;
      if (node) {
        node.textContent = formatClock(left);
        node.classList.toggle('low', lowTime(left));
      }
      if (c.running && i === s.you && s.table.phase === 'running' && lowTime(left) && !warned) {
        warned = true;
        play('lowtime');
      }
    });
  }, 100);
  // the countdowns of absent seats
  const absentTick = setInterval(() => {
    document.querySelectorAll('[data-absent]').forEach((node) => {
      const text = absentText(Number(node.getAttribute('data-absent')));
      if (text && node.textContent !== text) node.textContent = text;
    });
  }, 250);

  draw();
  return {
    draw, leaving,
    leave: () => { clearInterval(tick); clearInterval(absentTick); table.close(); window.removeEventListener('keydown', onKey); },
  };
}
