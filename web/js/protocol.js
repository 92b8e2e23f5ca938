// The wire types of docs/protocol.md as JSDoc typedefs, and the readers of the three board texts
// (xiangqi FEN, banqi view, sanguo position), and `playMove`, which plays a move the server
// announced on those texts (no legality check: the server has checked it). The legal moves always
// come from the server.

/** @typedef {'xiangqi' | 'sanguo' | 'banqi'} Variant */
/** @typedef {{initial_ms: number, increment_ms: number}} TimeControl */
/**
 * @typedef {{variant: Variant, time: TimeControl | null, rated: boolean,
 *   no_capture_limit: number | null, flag_bearers: boolean | null, start_when_full?: boolean,
 *   fen?: string | null, tournament?: string, berserkable?: boolean}} TableOptions
 */
/**
 * @typedef {{kind: 'person', id: string, name: string, account: boolean, bot?: boolean}
 *   | {kind: 'computer', level: number}} SeatEntry
 */
/**
 * @typedef {{id: string, options: TableOptions, phase: 'open' | 'running' | 'ended',
 *   seats: (SeatEntry | null)[], version: number}} TableSummary
 */
/** @typedef {{id: string, name: string, account: boolean}} PlayerInfo */
/** @typedef {{remaining_ms: number, running: boolean}} ClockState */
/** @typedef {{winners: string[], reason: string}} Outcome */
/**
 * @typedef {{variant: 'xiangqi', fen: string, moves: string[]}
 *   | {variant: 'banqi', view: string, moves: string[], colors: (string | null)[], captured: string}
 *   | {variant: 'sanguo', position: string, moves: string[]}} BoardView
 */
/**
 * A defeated sanguo kingdom (spec/sanguo.md §6.1): its seat, why (`general-captured`,
 * `no-legal-move`), the seat that took over its army, and the moves played when it happened.
 * @typedef {{seat: number, reason: string, heir: number, ply: number}} Defeat
 */
/**
 * A table's state. The table has as many seats as `table.seats` holds; `capture_moves` are the
 * moves of `legal_moves` that capture; `draw_offers` says whether the variant has draw offers;
 * `abandon_ms` per seat the milliseconds left before an absent seat loses (or, at an open table,
 * is freed); `defeats` sanguo's defeated kingdoms in order.
 * @typedef {{type: 'state', version: number, table: TableSummary, you: number | null,
 *   board: BoardView, to_move: number | null, check: number[], legal_moves: string[],
 *   capture_moves: string[], clocks: ClockState[] | null, draw_offers: boolean,
 *   draw_offer: number | null, takeback_offer?: number | null, connected: boolean[],
 *   abandon_ms?: (number | null)[], outcome: Outcome | null, winner_seats?: number[], defeats?: Defeat[],
 *   rematch_offers?: number[], rematch?: string | null, berserks?: number[]}} StateMessage
 */
/**
 * @typedef {{kind: 'created', options: TableOptions}
 *   | {kind: 'sat', seat: number, player: SeatEntry}
 *   | {kind: 'stood', seat: number}
 *   | {kind: 'started'}
 *   | {kind: 'moved', seat: number, move: string, ply: number, clocks_ms: number[] | null}
 *   | {kind: 'draw_offered', seat: number}
 *   | {kind: 'draw_declined', seat: number}
 *   | {kind: 'defeated', seat: number, reason: string, heir: number, ply: number}
 *   | {kind: 'takeback_offered', seat: number}
 *   | {kind: 'takeback_declined', seat: number}
 *   | {kind: 'taken_back', plies: number}
 *   | {kind: 'rematch_offered', seat: number}
 *   | {kind: 'rematch_declined', seat: number}
 *   | {kind: 'rematched', table: string}
 *   | {kind: 'berserked', seat: number}
 *   | {kind: 'ended', outcome: Outcome, result: string | null, winner_seats?: number[]}} TableEvent
 */
/**
 * The board after a takeback or a sanguo defeat without its move list (an update's `board`).
 * @typedef {{variant: 'xiangqi', fen: string}
 *   | {variant: 'banqi', view: string, colors: (string | null)[], captured: string}
 *   | {variant: 'sanguo', position: string}} BoardPosition
 */
/**
 * What one change of the table changed, sent after every change instead of a full state: the
 * events with their versions and the fields of the state they change (`board` only with a
 * takeback or a sanguo defeat: the client plays any other move itself, see `playMove`;
 * `connected` only with `sat`/`stood`); the legal moves only to the seat to move.
 * On the wire the usual values are left out and the legal moves are packed (`moves`,
 * `captures`: see `unpackMoves`); `readServerMessage` gives the update back whole, in this shape.
 * @typedef {{type: 'update', version: number, events: {version: number, event: TableEvent}[],
 *   you: number | null, phase: 'open' | 'running' | 'ended', to_move: number | null,
 *   check: number[], clocks: ClockState[] | null, draw_offer: number | null,
 *   takeback_offer?: number | null, rematch_offers?: number[], board?: BoardPosition, connected?: boolean[], legal_moves: string[],
 *   capture_moves: string[]}} UpdateMessage
 */
/**
 * @typedef {StateMessage
 *   | UpdateMessage
 *   | {type: 'event', version: number, event: TableEvent}
 *   | {type: 'presence', seat: number, connected: boolean, abandon_ms?: number | null}
 *   | {type: 'spectators', count: number}
 *   | {type: 'chat', room: 'players' | 'spectators', name: string, seat: number | null, account?: boolean, text: string}
 *   | {type: 'error', code: string, message: string}
 *   | {type: 'pong'}} ServerMessage
 */
/**
 * A finished game of the lobby's list (`GET /api/games`).
 * @typedef {{id: string, options: TableOptions, seats: (SeatEntry | null)[], outcome: Outcome,
 *   result: string | null, winner_seats: number[], plies: number, created_ms: number,
 *   ended_ms: number}} FinishedGame
 */
/** @typedef {{games: FinishedGame[], next: string | null}} FinishedPage */
/**
 * One position of a game (`GET /api/tables/{id}/positions`): the position text of the board
 * view, the seats in check, and banqi's captured pieces.
 * @typedef {{position: string, check: number[], captured?: string}} Snapshot
 */
/** @typedef {{variant: Variant, moves: string[], positions: Snapshot[]}} Positions */
/**
 * @typedef {{variant: string, rating: number, deviation: number, volatility: number,
 *   games: number}} RatingInfo
 */
/**
 * @typedef {{type: 'sync', since: number | null}
 *   | {type: 'sit', seat: number}
 *   | {type: 'sit_computer', seat: number, level: number}
 *   | {type: 'stand'} | {type: 'start'} | {type: 'resign'} | {type: 'offer_draw'}
 *   | {type: 'accept_draw'} | {type: 'decline_draw'} | {type: 'abort'} | {type: 'ping'}
 *   | {type: 'takeback'} | {type: 'accept_takeback'} | {type: 'decline_takeback'}
 *   | {type: 'offer_rematch'} | {type: 'accept_rematch'} | {type: 'decline_rematch'}
 *   | {type: 'berserk'}
 *   | {type: 'chat', text: string}
 *   | {type: 'move', version: number, move: string}} ClientMessage
 */

/**
 * The answer of `POST /api/analysis` (docs/protocol.md, "Analysis").
 * @typedef {{board: BoardView, to_move: number | null, side: string | null, legal_moves: string[],
 *   capture_moves: string[], in_check: boolean, check: string[], outcome: Outcome | null}} Analysis
 */

/**
 * Reads a server message, checking the fields the client relies on.
 * @param {string} text
 * @returns {ServerMessage}
 */
export function readServerMessage(text) {
  const msg = JSON.parse(text);
  if (typeof msg !== 'object' || msg === null || typeof msg.type !== 'string') {
    throw new Error('a server message is an object with a type');
  }
  if (msg.type === 'state') {
    if (typeof msg.version !== 'number' || !Array.isArray(msg.legal_moves) || !msg.board) {
      throw new Error('a state has version, board and legal_moves');
    }
    readBoard(msg.board);
  } else if (msg.type === 'event') {
    if (typeof msg.version !== 'number' || typeof msg.event?.kind !== 'string') {
      throw new Error('an event has version and event.kind');
    }
  } else if (msg.type === 'update') {
    if (typeof msg.version !== 'number' || !Array.isArray(msg.events)) {
      throw new Error('an update has version and events');
    }
    if (msg.board) readBoard(msg.board);
    return wholeUpdate(msg);
  } else if (!['presence', 'spectators', 'chat', 'error', 'pong'].includes(msg.type)) {
    throw new Error(`unknown server message type ${msg.type}`);
  }
  return msg;
}

/**
 * The moves of a packed list (an update's `moves` and `captures`): groups joined by `;`, each a
 * head, `:`, then the last two characters of each move with that head (`h2:e2h9;b0:c2` is
 * `h2e2 h2h9 b0c2`; banqi `flip :a1a2` is `flip a1 flip a2`).
 * @param {string} packed
 * @returns {string[]}
 */
export function unpackMoves(packed) {
  if (packed === '') return [];
  return packed.split(';').flatMap((group) => {
    const cut = group.indexOf(':');
    const tails = cut < 0 ? [] : [...group.slice(cut + 1)];
    if (cut < 0 || tails.length === 0 || tails.length % 2 !== 0) throw new Error(`packed moves: bad group ${group}`);
    const head = group.slice(0, cut);
    /** @type {string[]} */
    const moves = [];
    for (let i = 0; i < tails.length; i += 2) moves.push(head + tails[i] + tails[i + 1]);
    return moves;
  });
}

/**
 * An update as the server sends it, made whole: the fields left out get their usual values
 * (`check` [], `draw_offer` null, no legal moves), the packed `moves` and `captures` become
 * `legal_moves` and `capture_moves`, and left-out `clocks` are the last move's `clocks_ms` (the
 * seat to move's clock running while the game runs), or null (untimed).
 * @param {any} msg
 * @returns {UpdateMessage}
 */
function wholeUpdate(msg) {
  const { moves, captures, ...rest } = msg;
  const last = msg.events.length > 0 ? msg.events[msg.events.length - 1].event : null;
  let clocks = msg.clocks;
  if (clocks === undefined) {
    clocks = last?.kind === 'moved' && Array.isArray(last.clocks_ms)
      ? last.clocks_ms.map((/** @type {number} */ ms, /** @type {number} */ i) => ({
        remaining_ms: ms, running: msg.phase === 'running' && msg.to_move === i,
      }))
      : null;
  }
  return {
    ...rest,
    check: msg.check ?? [],
    draw_offer: msg.draw_offer ?? null,
    clocks,
    legal_moves: typeof moves === 'string' ? unpackMoves(moves) : (msg.legal_moves ?? []),
    capture_moves: typeof captures === 'string' ? unpackMoves(captures) : (msg.capture_moves ?? []),
  };
}

/**
 * The state that `update` leads to from `state` (neither is changed), or `null` when the update
 * does not follow the state (its first event is not the state's version + 1) or does not fit it:
 * the client then asks `sync` for a full state. The events' seats and ending are copied; a move
 * is played on the board (`playMove`) and appended to the move list, unless the update carries the
 * board after the change (a takeback, a sanguo defeat), which then replaces the position; the
 * update's fields replace the state's.
 * @param {StateMessage} state
 * @param {UpdateMessage} update
 * @returns {StateMessage | null}
 */
export function applyUpdate(state, update) {
  const events = update.events;
  if (events.length === 0 || events[0].version !== state.version + 1) return null;
  if (events.some((e, i) => e.version !== state.version + 1 + i)) return null;
  if (update.version !== state.version + events.length) return null;
  const seats = [...state.table.seats];
  /** @type {BoardView} */
  let board = state.board;
  let { outcome, winner_seats: winners } = state;
  const defeats = [...(state.defeats ?? [])];
  let rematch = state.rematch ?? null;
  const berserks = [...(state.berserks ?? [])];
  for (const { event } of events) {
    if (event.kind === 'sat' || event.kind === 'stood') {
      if (event.seat >= seats.length) return null;
      seats[event.seat] = event.kind === 'sat' ? event.player : null;
    } else if (event.kind === 'moved') {
      // the update's board, when it has one, is put in place below; else the move is played here
      const next = update.board ? { ...board, moves: [...board.moves, event.move] } : playMove(board, event.seat, event.move);
      if (!next) return null;
      board = next;
    } else if (event.kind === 'ended') {
      outcome = event.outcome;
      winners = event.winner_seats ?? [];
    } else if (event.kind === 'taken_back') {
      // the board before the last moves comes with the update; the list loses them
      if (!update.board || event.plies > board.moves.length) return null;
      board = /** @type {BoardView} */ ({ ...board, moves: board.moves.slice(0, board.moves.length - event.plies) });
    } else if (event.kind === 'defeated') {
      defeats.push({ seat: event.seat, reason: event.reason, heir: event.heir, ply: event.ply });
    } else if (event.kind === 'rematched') {
      rematch = event.table;
    } else if (event.kind === 'berserked') {
      if (!berserks.includes(event.seat)) berserks.push(event.seat);
      berserks.sort((a, b) => a - b);
    }
  }
  if (update.board) {
    if (update.board.variant !== board.variant) return null;
    board = /** @type {BoardView} */ ({ ...board, ...update.board, moves: board.moves });
  }
  return {
    ...state,
    version: update.version,
    table: { ...state.table, seats, phase: update.phase, version: update.version },
    you: update.you,
    board,
    to_move: update.to_move,
    check: update.check,
    legal_moves: update.legal_moves,
    capture_moves: update.capture_moves,
    clocks: update.clocks,
    draw_offer: update.draw_offer,
    takeback_offer: update.takeback_offer ?? null,
    connected: update.connected ?? state.connected,
    outcome,
    winner_seats: winners,
    defeats,
    rematch_offers: update.rematch_offers ?? [],
    rematch,
    berserks,
  };
}

/** @typedef {{color: 'r' | 'b', kind: string}} XiangqiPiece */

/**
 * The board after `move`, which `seat` played (a `moved` event that came without the board), or
 * `null` when the move does not fit the board (the client then asks `sync`). The texts change as
 * the server's rules change them (docs/protocol.md, "Updates without the board, 2026-12-04"):
 * - xiangqi: the piece moves, the side to move passes, the halfmove count is 0 after a capture
 *   and one more otherwise, the move number grows after Black's move;
 * - sanguo: the piece moves, the last mover is the mover, the turn passes to the next kingdom not
 *   defeated, the quiet count is 0 after a capture and one more otherwise (at most 180); a defeat
 *   always comes with the board, so it is not played here;
 * - banqi: a flip (`c2=R`) turns the square face up and takes the piece from the pool; the first
 *   flip gives the mover's seat that piece's colour and the other seat the other; the turn passes
 *   and the quiet count is 0 after a flip or a capture, one more after a move (at most 180); a
 *   capture adds the taken piece to `captured`.
 * @param {BoardView} board
 * @param {number} seat
 * @param {string} move the event's move text (banqi: the record, `c2=R` for a flip)
 * @returns {BoardView | null}
 */
export function playMove(board, seat, move) {
  try {
    const moves = [...board.moves, move];
    if (board.variant === 'xiangqi') return { ...board, fen: playXiangqi(board.fen, move), moves };
    if (board.variant === 'sanguo') return { ...board, position: playSanguo(board.position, move), moves };
    if (board.variant === 'banqi') return { ...board, ...playBanqi(board, seat, move), moves };
  } catch {
    return null;
  }
  return null;
}

/**
 * The rows of a board text (`/`-separated) as arrays of one token per point, empty points `''`.
 * @param {string} placement
 * @param {RegExp} token a piece token (global), tried after a digit
 * @returns {string[][]}
 */
function expandRows(placement, token) {
  return placement.split('/').map((row) => {
    /** @type {string[]} */
    const cells = [];
    let at = 0;
    for (const m of row.matchAll(token)) {
      if (m.index !== at) throw new Error(`bad row ${row}`);
      at += m[0].length;
      if (/^[1-9]$/.test(m[0])) cells.push(...Array(Number(m[0])).fill(''));
      else cells.push(m[0]);
    }
    if (at !== row.length) throw new Error(`bad row ${row}`);
    return cells;
  });
}

/**
 * The text of rows made by `expandRows`: runs of empty points as their count.
 * @param {string[][]} rows
 */
function packRows(rows) {
  return rows.map((cells) => {
    let out = '';
    let empty = 0;
    for (const c of cells) {
      if (c === '') {
        empty += 1;
      } else {
        if (empty > 0) out += String(empty);
        empty = 0;
        out += c;
      }
    }
    return empty > 0 ? out + String(empty) : out;
  }).join('/');
}

/**
 * A xiangqi FEN after an ICCS move.
 * @param {string} fen
 * @param {string} move
 */
function playXiangqi(fen, move) {
  const m = /^([a-i])([0-9])([a-i])([0-9])$/.exec(move);
  const [placement, side, castle, ep, half, full] = fen.split(' ');
  if (!m || full === undefined) throw new Error(`bad move ${move} on ${fen}`);
  const rows = expandRows(placement, /[1-9]|[KAEBRHNCPkaebrhncp]/g);
  const at = (/** @type {string} */ f, /** @type {string} */ r) => [9 - Number(r), 'abcdefghi'.indexOf(f)];
  const [fr, ff] = at(m[1], m[2]);
  const [tr, tf] = at(m[3], m[4]);
  const piece = rows[fr][ff];
  if (!piece) throw new Error(`no piece on ${m[1]}${m[2]}`);
  const captured = rows[tr][tf] !== '';
  rows[tr][tf] = piece;
  rows[fr][ff] = '';
  const black = side === 'b';
  return [packRows(rows), black ? 'w' : 'b', castle, ep, captured ? 0 : Number(half) + 1,
    black ? Number(full) + 1 : Number(full)].join(' ');
}

/**
 * A sanguo position text after a move that defeats nobody (`Rh3-Rh4`, `Rh3xGb1`).
 * @param {string} text
 * @param {string} move
 */
function playSanguo(text, move) {
  const m = /^([RGB])([a-i])([1-5])[-x]([RGB])([a-i])([1-5])$/.exec(move);
  const [boardText, , , defeated, flags, quiet] = text.split(' ');
  if (!m || quiet === undefined) throw new Error(`bad move ${move} on ${text}`);
  const halves = boardText.split(',').map((half) => expandRows(half, /[1-9]|[rgb][KAEHRCPF](?:~[rgb])?/g));
  const at = (/** @type {string} */ k, /** @type {string} */ f, /** @type {string} */ r) =>
    [halves['RGB'.indexOf(k)], 5 - Number(r), 'abcdefghi'.indexOf(f)];
  const [fh, fr, ff] = /** @type {[string[][], number, number]} */ (at(m[1], m[2], m[3]));
  const [th, tr, tf] = /** @type {[string[][], number, number]} */ (at(m[4], m[5], m[6]));
  const piece = fh[fr][ff];
  if (!piece) throw new Error(`no piece on ${m[1]}${m[2]}${m[3]}`);
  const captured = th[tr][tf] !== '';
  th[tr][tf] = piece;
  fh[fr][ff] = '';
  const mover = 'rgb'.indexOf(piece[0]);
  let next = (mover + 1) % 3;
  while (defeated.includes('RGB'[next]) && next !== mover) next = (next + 1) % 3;
  return [halves.map(packRows).join(','), 'RGB'[next], 'RGB'[mover], defeated, flags,
    captured ? 0 : Math.min(Number(quiet) + 1, 180)].join(' ');
}

/** The banqi pieces in the order pool texts list them (`spec/banqi.md`). */
const BANQI_ORDER = 'KAERHCPkaerhcp';

/**
 * A banqi pool text with one more (`add`) or one fewer `piece`.
 * @param {string} pool
 * @param {string} piece
 * @param {boolean} add
 */
function changePool(pool, piece, add) {
  const letters = pool === '-' ? [] : [...pool];
  if (add) {
    letters.push(piece);
  } else {
    const i = letters.indexOf(piece);
    if (i < 0) throw new Error(`${piece} is not in the pool ${pool}`);
    letters.splice(i, 1);
  }
  letters.sort((a, b) => BANQI_ORDER.indexOf(a) - BANQI_ORDER.indexOf(b));
  return letters.length === 0 ? '-' : letters.join('');
}

/**
 * A banqi board's `view`, `colors` and `captured` after a recorded turn (`c2=R`, `c2-c3`,
 * `c2xc3`) of `seat`.
 * @param {{view: string, colors: (string | null)[], captured: string}} board
 * @param {number} seat
 * @param {string} move
 */
function playBanqi(board, seat, move) {
  const [placement, turn, pool, quiet] = board.view.split(' ');
  if (quiet === undefined) throw new Error(`bad view ${board.view}`);
  const rows = expandRows(placement, /[1-8]|\?|\([KAERHCPkaerhcp]\)|[KAERHCPkaerhcp]/g);
  const at = (/** @type {string} */ f, /** @type {string} */ r) => [4 - Number(r), 'abcdefgh'.indexOf(f)];
  let colors = board.colors;
  let { captured } = board;
  const flip = /^([a-h])([1-4])=([KAERHCPkaerhcp])$/.exec(move);
  if (flip) {
    const [r, f] = at(flip[1], flip[2]);
    if (rows[r][f] !== '?') throw new Error(`${flip[1]}${flip[2]} is not face down`);
    const piece = flip[3];
    rows[r][f] = piece;
    const red = piece === piece.toUpperCase();
    const mover = turn === '-' ? (red ? 'r' : 'b') : turn;
    if (colors.every((c) => c === null)) {
      colors = colors.map((_, i) => ((i === seat) === red ? 'red' : 'black'));
    }
    return {
      view: [packRows(rows), mover === 'r' ? 'b' : 'r', changePool(pool, piece, false), 0].join(' '),
      colors,
      captured,
    };
  }
  const step = /^([a-h])([1-4])([-x])([a-h])([1-4])$/.exec(move);
  if (!step || turn === '-') throw new Error(`bad move ${move} on ${board.view}`);
  const [fr, ff] = at(step[1], step[2]);
  const [tr, tf] = at(step[4], step[5]);
  const taken = rows[tr][tf];
  if (taken === '?' || (step[3] === 'x') !== (taken !== '')) throw new Error(`bad capture ${move}`);
  if (taken !== '') captured = changePool(captured, taken, true);
  rows[tr][tf] = rows[fr][ff];
  rows[fr][ff] = '';
  return {
    view: [packRows(rows), turn === 'r' ? 'b' : 'r', pool, taken ? 0 : Math.min(Number(quiet) + 1, 180)].join(' '),
    colors,
    captured,
  };
}

/**
 * Reads the board of a xiangqi FEN: `board[rank][file]`, rank 0 = Red's back rank (ICCS rank 0),
 * file 0 = ICCS file `a`.
 * @param {string} fen
 * @returns {{board: (XiangqiPiece | null)[][], turn: 'r' | 'b'}}
 */
export function readXiangqiFen(fen) {
  const [placement, side] = fen.trim().split(/\s+/);
  const rows = placement.split('/');
  if (rows.length !== 10) throw new Error(`a xiangqi board has 10 ranks: ${fen}`);
  /** @type {(XiangqiPiece | null)[][]} */
  const board = [];
  rows.forEach((row, i) => {
    /** @type {(XiangqiPiece | null)[]} */
    const rank = [];
    for (const ch of row) {
      if (/[1-9]/.test(ch)) {
        for (let k = 0; k < Number(ch); k++) rank.push(null);
      } else if (/[kabnrcpKABNRCP]/.test(ch)) {
        rank.push({ color: ch === ch.toUpperCase() ? 'r' : 'b', kind: ch.toLowerCase() });
      } else {
        throw new Error(`bad character ${ch} in ${fen}`);
      }
    }
    if (rank.length !== 9) throw new Error(`a xiangqi rank has 9 files: ${row}`);
    board[9 - i] = rank;
  });
  return { board, turn: side === 'b' ? 'b' : 'r' };
}

/**
 * An ICCS square (`e0`) as [file, rank].
 * @param {string} sq
 * @returns {[number, number]}
 */
export function iccsSquare(sq) {
  return [sq.charCodeAt(0) - 97, Number(sq[1])];
}

/** @typedef {{down: true} | {down: false, kind: string}} BanqiSquare */

/**
 * Reads a banqi view text: `board[rank][file]`, rank 0 = rank `1`, file 0 = `a`; `null` empty.
 * @param {string} view
 * @returns {{board: (BanqiSquare | null)[][], turn: string, pool: string, quiet: number}}
 */
export function readBanqiView(view) {
  const [placement, turn, pool, quiet] = view.trim().split(/\s+/);
  const rows = placement.split('/');
  if (rows.length !== 4) throw new Error(`a banqi board has 4 ranks: ${view}`);
  /** @type {(BanqiSquare | null)[][]} */
  const board = [];
  rows.forEach((row, i) => {
    /** @type {(BanqiSquare | null)[]} */
    const rank = [];
    for (let j = 0; j < row.length; j++) {
      const ch = row[j];
      if (/[1-8]/.test(ch)) {
        for (let k = 0; k < Number(ch); k++) rank.push(null);
      } else if (ch === '?') {
        rank.push({ down: true });
      } else if (ch === '(') {
        // a pinned identity never comes from a live server; drawn face down all the same
        rank.push({ down: true });
        j += 2;
      } else if (/[KAERHCPkaerhcp]/.test(ch)) {
        rank.push({ down: false, kind: ch });
      } else {
        throw new Error(`bad character ${ch} in ${view}`);
      }
    }
    if (rank.length !== 8) throw new Error(`a banqi rank has 8 squares: ${row}`);
    board[3 - i] = rank;
  });
  return { board, turn, pool: pool ?? '-', quiet: Number(quiet ?? 0) };
}

/** @typedef {{owner: number, kind: string, origin: number}} SanguoPiece */

const KINGDOM_OF_LETTER = { r: 0, g: 1, b: 2 };

/**
 * Reads a sanguo position text into a map from point name (`Re1`) to piece, and the kingdom to
 * move (0 Shu, 1 Wu, 2 Wei).
 * @param {string} text
 * @returns {{pieces: Map<string, SanguoPiece>, toMove: number, defeated: number[]}}
 */
export function readSanguoPosition(text) {
  const [boardText, toMove, , defeated] = text.trim().split(/\s+/);
  const halves = boardText.split(',');
  if (halves.length !== 3) throw new Error(`a sanguo board has three halves: ${text}`);
  /** @type {Map<string, SanguoPiece>} */
  const pieces = new Map();
  halves.forEach((half, k) => {
    const ranks = half.split('/');
    if (ranks.length !== 5) throw new Error(`a sanguo half has 5 ranks: ${half}`);
    ranks.forEach((rank, i) => {
      const r = 5 - i;
      let f = 0;
      const re = /([1-9])|([rgb])([KAEHRCPF])(?:~([rgb]))?/g;
      let consumed = 0;
      for (const m of rank.matchAll(re)) {
        if (m.index !== consumed) throw new Error(`bad sanguo rank ${rank}`);
        consumed += m[0].length;
        if (m[1]) {
          f += Number(m[1]);
        } else {
          const owner = KINGDOM_OF_LETTER[/** @type {'r'|'g'|'b'} */ (m[2])];
          const origin = m[4] ? KINGDOM_OF_LETTER[/** @type {'r'|'g'|'b'} */ (m[4])] : owner;
          pieces.set(sanguoPoint(k, f, r), { owner, kind: m[3], origin });
          f += 1;
        }
      }
      if (consumed !== rank.length || f !== 9) throw new Error(`a sanguo rank has 9 points: ${rank}`);
    });
  });
  const letters = 'RGB';
  return {
    pieces,
    toMove: Math.max(0, letters.indexOf(toMove)),
    defeated: defeated && defeated !== '-' ? [...defeated].map((c) => letters.indexOf(c)) : [],
  };
}

/**
 * A sanguo point name from kingdom (0..2), file (0..8) and rank (1..5).
 * @param {number} k
 * @param {number} f
 * @param {number} r
 */
export function sanguoPoint(k, f, r) {
  return `${'RGB'[k]}${'abcdefghi'[f]}${r}`;
}

/**
 * The drawing coordinates of spec/sanguo.md §9 (unit = grid spacing, y up) of a point.
 * @param {number} k kingdom
 * @param {number} f file 0..8
 * @param {number} r rank 1..5
 * @returns {[number, number]}
 */
export function sanguoCoords(k, f, r) {
  const t = 1 / Math.sqrt(3);
  const y0 = 6.6;
  const q = r - 1;
  const bx = f - 4;
  const by = -y0;
  const n = Math.abs(f - 4);
  const a = f >= 4 ? (330 * Math.PI) / 180 : (210 * Math.PI) / 180;
  const fx = n * Math.cos(a);
  const fy = -t + n * Math.sin(a);
  const x = bx + (q / 4) * (fx - bx);
  const y = by + (q / 4) * (fy - by);
  const rot = (k * 120 * Math.PI) / 180;
  return [x * Math.cos(rot) - y * Math.sin(rot), x * Math.sin(rot) + y * Math.cos(rot)];
}

/**
 * The (from, to) of a move text of any variant; a banqi flip gives from = to = the square.
 * @param {string} move `h2e2`, `c2-c3`, `c2xc3`, `flip c2`, `c2=R`, `Ra1-Ra2`, `Ra1xRd1`
 * @returns {{from: string, to: string, flip: boolean}}
 */
export function moveEnds(move) {
  let m = /^flip ([a-h][1-4])$/.exec(move) ?? /^([a-h][1-4])=[KAERHCPkaerhcp]$/.exec(move);
  if (m) return { from: m[1], to: m[1], flip: true };
  m = /^([RGB][a-i][1-5]|[a-h][1-4])[-x]([RGB][a-i][1-5]|[a-h][1-4])$/.exec(move);
  if (m) return { from: m[1], to: m[2], flip: false };
  m = /^([a-i][0-9])([a-i][0-9])$/.exec(move);
  if (m) return { from: m[1], to: m[2], flip: false };
  throw new Error(`unreadable move ${move}`);
}

/**
 * Reads any of the three board views (throws on a bad text).
 * @param {BoardView} board
 */
export function readBoard(board) {
  if (board.variant === 'xiangqi') return readXiangqiFen(board.fen);
  if (board.variant === 'banqi') return readBanqiView(board.view);
  if (board.variant === 'sanguo') return readSanguoPosition(board.position);
  throw new Error('unknown variant');
}

/**
 * The moves of a PGN game's movetext, in the notation the server wrote them (move numbers,
 * comments, check marks and the result dropped). The server writes the PGN (spec/notation.md §8.2);
 * the client only shows its tokens.
 * @param {string} pgn
 * @returns {string[]}
 */
export function pgnMoves(pgn) {
  const body = pgn.split('\n').filter((line) => !line.startsWith('[')).join(' ')
    .replace(/\{[^}]*\}/g, ' ');
  return body.split(/\s+/)
    .map((tok) => tok.replace(/^\d+\.+/, '').replace(/[+#!?]+$/, ''))
    .filter((tok) => tok !== '' && !['1-0', '0-1', '1/2-1/2', '*'].includes(tok));
}

/**
 * The pieces of a pool text (`spec/banqi.md` §3.1: letters in canonical order, `-` for none),
 * split by colour: red (upper case) and black (lower case), each in the order written.
 * @param {string} pool
 * @returns {{red: string[], black: string[]}}
 */
export function readPool(pool) {
  if (pool === '-') return { red: [], black: [] };
  if (!/^[KAERHCPkaerhcp]+$/.test(pool)) throw new Error(`bad pool text ${pool}`);
  const letters = [...pool];
  return {
    red: letters.filter((c) => c === c.toUpperCase()),
    black: letters.filter((c) => c === c.toLowerCase()),
  };
}

/**
 * The squares of the Generals of `seats` on a board text (xiangqi FEN: seat 0 Red, 1 Black;
 * sanguo position: the kingdom's General), for drawing the check mark the server reported. Banqi
 * has no check: always empty.
 * @param {Variant} variant
 * @param {string} text the board's position text
 * @param {number[]} seats
 * @returns {string[]}
 */
export function generalSquares(variant, text, seats) {
  /** @type {string[]} */
  const out = [];
  if (seats.length === 0) return out;
  if (variant === 'xiangqi') {
    const { board } = readXiangqiFen(text);
    board.forEach((rank, r) => rank.forEach((p, f) => {
      if (p && p.kind === 'k' && seats.includes(p.color === 'r' ? 0 : 1)) out.push(`${'abcdefghi'[f]}${r}`);
    }));
  } else if (variant === 'sanguo') {
    for (const [sq, p] of readSanguoPosition(text).pieces) {
      if (p.kind === 'K' && seats.includes(p.owner)) out.push(sq);
    }
  }
  return out.sort();
}

/**
 * Whether a xiangqi FEN has Black to move (its second field is `b`); any other text: `false`.
 * @param {string} fen
 */
export function blackToMove(fen) {
  return fen.split(/\s+/)[1] === 'b';
}
