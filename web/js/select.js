// Choosing a move on a board, shared by the table and the rules diagrams: a pick on a piece
// selects it and lights the targets of its legal moves, a pick (or a drop, at the end of a drag)
// on a target chooses that move, a pick on a face-down banqi disc chooses its flip. No rule lives
// here: the moves and which of them capture are the server's texts; this only matches their ends.

import { moveEnds } from './protocol.js';

/** The selected piece and the legal moves it chooses among. */
export class Selection {
  /**
   * @param {{selected?: string | null, toggle?: boolean}} [options] `selected`: the square picked
   *   at first; `toggle`: whether picking the selected piece again lets it go (the table) or keeps
   *   it (the rules diagrams)
   */
  constructor({ selected = null, toggle = false } = {}) {
    /** @type {string | null} */
    this.selected = selected;
    this.toggle = toggle;
    /** @type {{text: string, from: string, to: string, flip: boolean}[]} */
    this.moves = [];
    /** @type {Set<string>} the moves of `moves` that capture */
    this.captures = new Set();
  }

  /**
   * Sets the moves to choose among, as the server sent them, and which of them capture; the
   * selection is dropped when no move starts on it any more.
   * @param {string[]} legal
   * @param {string[]} [captures]
   */
  setMoves(legal, captures = []) {
    this.moves = legal.map((m) => ({ text: m, ...moveEnds(m) }));
    this.captures = new Set(captures);
    if (this.selected && !this.moves.some((m) => m.from === this.selected)) this.selected = null;
  }

  /**
   * Selects `sq` as it is, or nothing (a diagram's caption piece before its moves arrive; the
   * next `setMoves` lets it go when nothing moves from there).
   * @param {string | null} sq
   */
  select(sq) {
    this.selected = sq;
  }

  /**
   * The pointer went down on `sq`: returns the move that chooses (a flip of that disc, or the
   * selected piece's move to `sq`), else selects the piece on `sq` when it has moves.
   * @param {string} sq
   * @returns {string | null}
   */
  pick(sq) {
    const flip = this.moves.find((m) => m.flip && m.from === sq);
    if (flip) {
      this.selected = null;
      return flip.text;
    }
    const chosen = this.moveTo(sq);
    if (chosen) return chosen;
    const again = this.toggle && this.selected === sq;
    this.selected = !again && this.moves.some((m) => !m.flip && m.from === sq) ? sq : null;
    return null;
  }

  /**
   * The pointer was released over `sq` (the end of a drag): the selected piece's move there, if
   * there is one; nothing changes otherwise.
   * @param {string} sq
   * @returns {string | null}
   */
  drop(sq) {
    return sq === this.selected ? null : this.moveTo(sq);
  }

  /**
   * The selected piece's move to `sq`, which then lets the selection go.
   * @param {string} sq
   * @returns {string | null}
   */
  moveTo(sq) {
    if (!this.selected) return null;
    const mv = this.moves.find((m) => !m.flip && m.from === this.selected && m.to === sq);
    if (!mv) return null;
    this.selected = null;
    return mv.text;
  }

  /**
   * The targets of the selected piece: square -> whether the move there captures.
   * @returns {Map<string, boolean>}
   */
  targets() {
    /** @type {Map<string, boolean>} */
    const out = new Map();
    for (const m of this.moves) {
      if (!m.flip && m.from === this.selected) out.set(m.to, this.captures.has(m.text));
    }
    return out;
  }
}
