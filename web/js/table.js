// A table's state and actions (#/t/ID), without the page: the table's socket and the last state
// it brought (a full state with every update since applied), the selection of a move among the
// state's legal moves, the seat actions, the step-through of an ended game and the move list in
// the chosen notation. The page (table-view.js) draws what this holds and calls `onChange` for
// every change.

import { ApiError, TableSocket, api } from './net.js';
import { applyUpdate, moveEnds, pgnMoves, readBanqiView, readXiangqiFen } from './protocol.js';
import { Selection } from './select.js';
import { expose } from './testing.js';

/** @typedef {import('./protocol.js').StateMessage} StateMessage */

/**
 * Stepping through an ended game: the server's positions (one per ply and the start) and the ply
 * shown.
 * @typedef {{positions: import('./protocol.js').Positions, ply: number}} Review
 */

const SETUP_KEY = 'chuhe.setup';
/** How many chat lines the page keeps. */
const CHAT_KEEP = 50;

/**
 * Asks for a game against the computer at table `id` (just created): the table page, once open,
 * takes `seat` and fills every other seat with the computer at `level`, then starts.
 * @param {string} id
 * @param {number} seat
 * @param {number} level
 */
export function requestSetup(id, seat, level) {
  try {
    sessionStorage.setItem(SETUP_KEY, JSON.stringify({ id, seat, level }));
  } catch {
    // storage disabled: the player sits and adds the computer by hand
  }
}

/**
 * Whether the players were sent to table `id` as their agreed rematch (the mark is taken).
 * @param {string} id
 * @returns {boolean}
 */
function takeRematch(id) {
  try {
    const key = `chuhe.rematch.${id}`;
    const marked = sessionStorage.getItem(key) === '1';
    sessionStorage.removeItem(key);
    return marked;
  } catch {
    return false;
  }
}

/**
 * The setup asked for table `id`, taken (it runs once).
 * @param {string} id
 * @returns {{seat: number, level: number} | null}
 */
function takeSetup(id) {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SETUP_KEY) ?? 'null');
    if (saved && saved.id === id && Number.isInteger(saved.seat) && Number.isInteger(saved.level)) {
      sessionStorage.removeItem(SETUP_KEY);
      return { seat: saved.seat, level: saved.level };
    }
  } catch {
    // nothing saved
  }
  return null;
}

export class Table {
  /**
   * Connects to table `id`.
   * @param {string} id
   * @param {() => void} onChange called after every change of what the page shows
   */
  constructor(id, onChange) {
    this.id = id;
    this.onChange = onChange;
    /** @type {StateMessage | null} the last state the server sent */
    this.state = null;
    /** `performance.now()` when the last state came (the clocks count down from it) */
    this.receivedAt = 0;
    this.selection = new Selection({ toggle: true });
    /**
     * The last refusal or failure to show: the server's error message or a failed request.
     * @type {{type: 'error', code: string, message: string} | {type: 'failed', error: unknown} | null}
     */
    this.problem = null;
    /** @type {'connecting' | 'open' | 'lost'} */
    this.connection = 'connecting';
    /** the level of the computer players the seated person adds */
    this.level = 3;
    /** @type {Review | null} `null` while the game runs or until the positions arrive */
    this.review = null;
    this.reviewLoading = false;
    /** whether the server answered 404 for this table: the page says so and stops retrying */
    this.missing = false;
    /** @type {{key: string, moves: string[]}} the server's PGN moves of the last state, by notation */
    this.written = { key: '', moves: [] };
    /** whether a `sync` was asked for after an update that did not follow the state */
    this.resyncing = false;
    /**
     * Per seat: when (`performance.now()` ms) the absent person there loses by abandonment (or,
     * at an open table, the seat), as the server counts it; `null` while present.
     * @type {(number | null)[]}
     */
    this.absentUntil = [];
    /** @type {number | null} the seat to take once the socket has reconnected with a new session */
    this.sitAfterSync = null;
    /** @type {import('./protocol.js').Defeat | null} the last defeat that happened while watching */
    this.lastDefeat = null;
    /** @type {((msg: import('./protocol.js').UpdateMessage, before: StateMessage) => void) | null} */
    this.onUpdate = null;
    /**
     * Called with a seat's connection news before the state takes it (`before`: the state then).
     * @type {((seat: number, connected: boolean, before: StateMessage) => void) | null}
     */
    this.onPresence = null;
    /**
     * A game against the computer set up from the lobby or a rematch: the seat to take, the
     * computer's level for every other seat, then the start (one step per answer of the server).
     * @type {{seat: number, level: number} | null}
     */
    this.setup = takeSetup(id);
    /** whether this table is a rematch its players were sent to: the first seat starts it */
    this.rematchStart = takeRematch(id);
    /** the version at which the last setup step was sent (one step per version) */
    this.setupSent = -1;
    /**
     * A move chosen while the opponent thinks (xiangqi and banqi moves, never flips): played
     * as soon as the turn comes if it is legal then, else dropped.
     * @type {{from: string, to: string | null} | null}
     */
    this.premove = null;
    /**
     * The chat lines received while on the page, the last {@link CHAT_KEEP} (the server keeps
     * none).
     * `account`: whether the speaker has an account (else a guest, marked beside the name).
     * @type {{room: 'players' | 'spectators', name: string, seat: number | null, account: boolean, text: string}[]}
     */
    this.chat = [];
    /** how many connections watch without a seat (the server's `spectators` messages) */
    this.spectators = 0;
    this.socket = new TableSocket(id, (msg) => {
      if (msg.type === 'state') {
        this.resyncing = false;
        const now = performance.now();
        this.absentUntil = (msg.abandon_ms ?? []).map((ms) => (ms === null || ms === undefined ? null : now + ms));
        this.setState(msg);
        if (this.sitAfterSync !== null) {
          const seat = this.sitAfterSync;
          this.sitAfterSync = null;
          if (msg.you === null && msg.table.phase === 'open' && msg.table.seats[seat] === null) this.send({ type: 'sit', seat });
        }
      } else if (msg.type === 'update') {
        const before = this.state;
        const next = before && applyUpdate(before, msg);
        if (next && before) {
          for (const { event } of msg.events) {
            if (event.kind === 'defeated') this.lastDefeat = { seat: event.seat, reason: event.reason, heir: event.heir, ply: event.ply };
            // a seat freed or taken has nobody to wait for
            if (event.kind === 'sat' || event.kind === 'stood') this.absentUntil[event.seat] = null;
          }
          if (next.table.phase === 'ended') this.absentUntil = [];
          this.onUpdate?.(msg, before);
          this.setState(next);
        } else if (!this.resyncing) {
          // a version was missed: ask for the state (the updates until it arrives are dropped)
          this.resyncing = true;
          this.send({ type: 'sync', since: null });
        }
      } else if (msg.type === 'presence' && this.state) {
        this.onPresence?.(msg.seat, msg.connected, this.state);
        const connected = [...this.state.connected];
        connected[msg.seat] = msg.connected;
        const ms = msg.connected ? null : msg.abandon_ms ?? null;
        this.absentUntil[msg.seat] = ms === null ? null : performance.now() + ms;
        this.state = { ...this.state, connected };
        expose('state', this.state);
        this.startRematch();
        this.onChange();
      } else if (msg.type === 'chat') {
        this.chat = [...this.chat, { room: msg.room, name: msg.name, seat: msg.seat, account: msg.account === true, text: msg.text }].slice(-CHAT_KEEP);
        this.onChange();
      } else if (msg.type === 'spectators') {
        this.spectators = msg.count;
        this.onChange();
      } else if (msg.type === 'error') {
        this.problem = msg;
        // the action may have been stored: ask for the table as it is (the server settles the
        // write from its database first) instead of trying again
        if (msg.code === 'in_doubt' && !this.resyncing) {
          this.resyncing = true;
          this.send({ type: 'sync', since: null });
        }
        this.onChange();
      }
    }, (status) => {
      if (this.missing) return;
      this.connection = status === 'lost' ? 'lost' : 'open';
      if (status !== 'closed') this.onChange();
      // no state yet and the socket failed: a table the server does not know stops the retries
      if (status === 'lost' && !this.state) this.checkExists();
    });
    expose('socket', this.socket);
  }

  /**
   * Takes `state` as the table's state: a full state, or the last one with an update applied.
   * @param {StateMessage} state
   */
  setState(state) {
    this.state = state;
    expose('state', state);
    this.receivedAt = performance.now();
    this.selection.setMoves(state.legal_moves, state.capture_moves);
    this.problem = null;
    if (state.table.phase === 'ended') this.loadPositions();
    this.stepSetup();
    this.startRematch();
    this.playPremove();
    this.onChange();
  }

  /** Whether `sq` holds a face-up piece of the receiver's side (xiangqi and banqi). @param {string} sq */
  ownPiece(sq) {
    const s = this.state;
    if (!s || s.you === null) return false;
    const f = sq.charCodeAt(0) - 97;
    const r = Number(sq.slice(1));
    if (s.board.variant === 'xiangqi') {
      const p = readXiangqiFen(s.board.fen).board[r]?.[f];
      return !!p && p.color === (s.you === 0 ? 'r' : 'b');
    }
    if (s.board.variant === 'banqi') {
      const color = s.board.colors[s.you];
      const p = readBanqiView(s.board.view).board[r - 1]?.[f];
      return !!color && !!p && !p.down && !!p.kind && (p.kind === p.kind.toUpperCase()) === (color === 'red');
    }
    return false;
  }

  /** Whether a premove may be chosen now: the receiver plays, it is not its turn, not sanguo. */
  premoveTime() {
    const s = this.state;
    return !!s && s.you !== null && s.table.phase === 'running' && s.to_move !== s.you && s.board.variant !== 'sanguo'
      && !(s.board.variant === 'banqi' && !s.board.colors[s.you]);
  }

  /** The turn has come: the premove is played when it is one of the legal moves, else dropped. */
  playPremove() {
    const s = this.state;
    const pre = this.premove;
    if (!s || !pre || !pre.to || s.to_move !== s.you || s.legal_moves.length === 0) {
      if (s && s.table.phase !== 'running') this.premove = null;
      return;
    }
    this.premove = null;
    const move = s.legal_moves.find((m) => {
      const ends = moveEnds(m);
      return !ends.flip && ends.from === pre.from && ends.to === pre.to;
    });
    if (move) this.sendMove(move);
  }

  /**
   * A rematch the players were sent to: its first person's seat (the computer's seats do not
   * start games) starts the game once every seat is taken and every person connected (once;
   * the others wait).
   */
  startRematch() {
    const s = this.state;
    if (!s || !this.rematchStart) return;
    if (s.table.phase !== 'open') {
      this.rematchStart = false;
      return;
    }
    const first = s.table.seats.findIndex((x) => x?.kind === 'person');
    const arrived = s.table.seats.every((x, i) => x !== null && (x.kind === 'computer' || s.connected[i]));
    if (s.you === first && arrived) {
      this.rematchStart = false;
      this.send({ type: 'start' });
    }
  }

  /** The next step of a computer game's setup: sit, seat the computer, start. */
  stepSetup() {
    const s = this.state;
    const setup = this.setup;
    if (!s || !setup || this.setupSent === s.version) return;
    if (s.table.phase !== 'open') {
      this.setup = null;
      return;
    }
    this.setupSent = s.version;
    if (s.you === null) {
      if (s.table.seats[setup.seat] === null) this.send({ type: 'sit', seat: setup.seat });
      else this.setup = null;
      return;
    }
    const free = s.table.seats.findIndex((x) => x === null);
    if (free >= 0) this.send({ type: 'sit_computer', seat: free, level: setup.level });
    else {
      this.setup = null;
      this.send({ type: 'start' });
    }
  }

  /**
   * The milliseconds left before the absent person at `seat` loses (or is freed), or `null`.
   * @param {number} seat
   * @returns {number | null}
   */
  absentLeft(seat) {
    const until = this.absentUntil[seat];
    if (until === null || until === undefined || this.state?.table.phase === 'ended') return null;
    return Math.max(0, until - performance.now());
  }

  /**
   * Signs in as a guest named `name` and takes `seat` once the socket has come back with the
   * new session (a table link opened without a session).
   * @param {string} name
   * @param {number} seat
   * @returns {Promise<import('./protocol.js').PlayerInfo>}
   */
  async enterAndSit(name, seat) {
    /** @type {import('./protocol.js').PlayerInfo} */
    const me = await api('POST', '/api/session', { name });
    this.sitAfterSync = seat;
    // the server reads the session when the socket connects: connect again with it
    this.socket.drop();
    return me;
  }

  /** Stops the socket. */
  close() {
    this.socket.close();
  }

  /** @param {import('./protocol.js').ClientMessage} msg */
  send(msg) {
    this.socket.send(msg);
  }

  /**
   * Sends a move of the current state.
   * @param {string} move
   */
  sendMove(move) {
    if (this.state) this.send({ type: 'move', version: this.state.version, move });
  }

  /**
   * The pointer went down on `sq`: selects a piece or sends the move it chooses.
   * @param {string} sq
   */
  pick(sq) {
    if (!this.state) return;
    if (this.premoveTime()) {
      const pre = this.premove;
      if (pre && !pre.to && sq !== pre.from && !this.ownPiece(sq)) pre.to = sq;
      else if (this.ownPiece(sq) && pre?.from !== sq) this.premove = { from: sq, to: null };
      else this.premove = null;
      this.onChange();
      return;
    }
    const move = this.selection.pick(sq);
    if (move) this.sendMove(move);
    this.onChange();
  }

  /**
   * The pointer was released over `sq`: sends the selected piece's move there, if any.
   * @param {string} sq
   */
  drop(sq) {
    if (!this.state) return;
    if (this.premoveTime()) {
      const pre = this.premove;
      if (pre && !pre.to && sq !== pre.from && !this.ownPiece(sq)) {
        pre.to = sq;
        this.onChange();
      }
      return;
    }
    const move = this.selection.drop(sq);
    if (move) {
      this.sendMove(move);
      this.onChange();
    }
  }

  /** Asks the server whether the table exists; a 404 marks it missing and closes the socket. */
  async checkExists() {
    try {
      await api('GET', `/api/tables/${this.id}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && !this.missing) {
        this.missing = true;
        this.socket.close();
        this.onChange();
      }
    }
  }

  /** Fetches the positions of the ended game once (the step-through reads only these). */
  async loadPositions() {
    if (this.reviewLoading || (this.review && this.review.positions.moves.length === this.state?.board.moves.length)) return;
    this.reviewLoading = true;
    try {
      /** @type {import('./protocol.js').Positions} */
      const positions = await api('GET', `/api/tables/${this.id}/positions`);
      this.review = { positions, ply: positions.moves.length };
      expose('review', this.review);
    } catch (err) {
      this.problem = { type: 'failed', error: err };
    } finally {
      this.reviewLoading = false;
    }
    this.onChange();
  }

  /**
   * Shows ply `ply` of the ended game (clamped to the game). In a running game, the last ply
   * goes back to the live board.
   * @param {number} ply
   */
  goTo(ply) {
    if (!this.review) return;
    const s = this.state;
    if (s && s.table.phase !== 'ended' && ply >= s.board.moves.length) {
      this.review = null;
      expose('review', null);
      this.onChange();
      return;
    }
    this.review.ply = Math.max(0, Math.min(this.review.positions.moves.length, ply));
    this.onChange();
  }

  /**
   * During a running game: shows the earlier ply `ply` (the positions fetched once per new
   * move); the game goes on meanwhile and the last ply is the live board again.
   * @param {number} ply
   */
  async browse(ply) {
    const s = this.state;
    if (!s || s.table.phase === 'ended') return this.goTo(ply);
    if (ply >= s.board.moves.length || ply < 0) return this.goTo(ply);
    if (!this.review || this.review.positions.moves.length < s.board.moves.length) {
      try {
        /** @type {import('./protocol.js').Positions} */
        const positions = await api('GET', `/api/tables/${this.id}/positions`);
        this.review = { positions, ply };
        expose('review', this.review);
      } catch (err) {
        this.problem = { type: 'failed', error: err };
      }
    }
    if (this.review) this.review.ply = Math.max(0, Math.min(this.review.positions.moves.length, ply));
    this.onChange();
  }

  /**
   * The moves of the list, in `notation` (xiangqi: WXF or Chinese from the server's PGN export,
   * fetched when the moves or the notation changed; meanwhile, and for the other games, the
   * state's moves).
   * @param {string} notation `iccs`, `wxf` or `chinese`
   * @returns {string[]}
   */
  movesIn(notation) {
    if (!this.state) return [];
    const key = `${notation} ${this.state.board.moves.length}`;
    if (this.written.key === key) return this.written.moves;
    this.fetchWritten(notation, key);
    return this.state.board.moves;
  }

  /**
   * @param {string} notation
   * @param {string} key
   */
  async fetchWritten(notation, key) {
    const s = this.state;
    if (!s || s.board.variant !== 'xiangqi' || notation === 'iccs' || s.board.moves.length === 0) return;
    try {
      const res = await fetch(`/api/tables/${this.id}/pgn?notation=${notation}`);
      if (!res.ok) return;
      const moves = pgnMoves(await res.text());
      if (this.state && moves.length === this.state.board.moves.length && `${notation} ${moves.length}` === key) {
        this.written = { key, moves };
        this.onChange();
      }
    } catch {
      // the list stays in ICCS
    }
  }
}
