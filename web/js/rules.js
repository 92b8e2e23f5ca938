// The rules pages (#/rules/xiangqi, #/rules/sanguo, #/rules/banqi): the rules in our own words,
// every text from the catalogue (i18n-rules.js through i18n.js), with small boards drawn by
// boards.js. A diagram implements no rule: its position, the legal moves and the outcome come
// from the server (POST /api/analysis, docs/protocol.md); a click picks among those moves.

import { t } from './i18n.js';
import { api } from './net.js';
import { moveEnds } from './protocol.js';
import { h } from './dom.js';
import { errorText, resultLine } from './format.js';
import { Selection } from './select.js';
import { banqiBoard, currentPieceSet, kindOf, sanguoBoard, symbolIcon, xiangqiBoard } from './boards.js';

/** @typedef {'xiangqi' | 'sanguo' | 'banqi'} Variant */
/** @typedef {import('./protocol.js').Analysis} Analysis */

/**
 * One position a diagram can show: its text, the piece selected when it is shown, and the
 * catalogue key of the button that switches to the next position.
 * @typedef {{position: string, focus: string, next?: string}} DiagramPosition
 */
/**
 * A diagram: its variant, the catalogue key of its caption, its positions, and optionally the part
 * of the board to show, `[centre x, centre y, width, height]` as fractions of the full drawing's
 * width, measured from its centre (sanguo's centre, where the river arms meet).
 * @typedef {{variant: Variant, caption: string, positions: DiagramPosition[],
 *   zoom?: [number, number, number, number]}} DiagramDef
 */

/** The diagrams of the three pages, by id (the positions are tested in analysis.rs). */
export const DIAGRAMS = /** @type {Record<string, DiagramDef>} */ ({
  horse: {
    variant: 'xiangqi',
    caption: 'rules.xq.diagram.horse',
    positions: [
      { position: '5k3/9/9/9/4p4/4N4/9/9/9/3K5 w', focus: 'e4', next: 'rules.action.remove_soldier' },
      { position: '5k3/9/9/9/9/4N4/9/9/9/3K5 w', focus: 'e4', next: 'rules.action.put_soldier' },
    ],
  },
  elephant: {
    variant: 'xiangqi',
    caption: 'rules.xq.diagram.elephant',
    positions: [
      { position: '5k3/9/9/9/9/2B6/3p5/9/9/3K5 w', focus: 'c4', next: 'rules.action.remove_soldier' },
      { position: '5k3/9/9/9/9/2B6/9/9/9/3K5 w', focus: 'c4', next: 'rules.action.put_soldier' },
    ],
  },
  cannon: {
    variant: 'xiangqi',
    caption: 'rules.xq.diagram.cannon',
    positions: [
      { position: '5k3/9/4r4/9/4P4/9/9/4C4/9/3K5 w', focus: 'e2', next: 'rules.action.screen_aside' },
      { position: '5k3/9/4r4/9/3P5/9/9/4C4/9/3K5 w', focus: 'e2', next: 'rules.action.two_screens' },
      { position: '5k3/9/4r4/4P4/4P4/9/9/4C4/9/3K5 w', focus: 'e2', next: 'rules.action.one_screen' },
    ],
  },
  facing: {
    variant: 'xiangqi',
    caption: 'rules.xq.diagram.facing',
    positions: [
      { position: '4k4/9/9/9/9/9/9/9/9/3K5 w', focus: 'd0', next: 'rules.action.put_between' },
      { position: '4k4/9/9/9/9/4n4/9/9/9/3K5 w', focus: 'd0', next: 'rules.action.remove_between' },
    ],
  },
  tip: {
    variant: 'sanguo',
    caption: 'rules.sg.diagram.tip',
    positions: [
      { position: '4rR4/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0', focus: 'Re5', next: 'rules.action.soldier_on_tip' },
      { position: '4rP4/9/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0', focus: 'Re5', next: 'rules.action.chariot_on_tip' },
    ],
  },
  crossing: {
    variant: 'sanguo',
    caption: 'rules.sg.diagram.horse',
    zoom: [0, 0.12, 0.67, 0.61],
    positions: [
      { position: '9/3rH5/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0', focus: 'Rd4', next: 'rules.action.put_soldier' },
      { position: '3bP5/3rH5/9/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - - 0', focus: 'Rd4', next: 'rules.action.remove_soldier' },
    ],
  },
  flag: {
    variant: 'sanguo',
    caption: 'rules.sg.diagram.flag',
    zoom: [0, 0.12, 0.67, 0.61],
    positions: [
      { position: '9/9/3rF5/9/3rK5,9/9/9/9/3gK5,9/9/9/9/3bK5 R - - F 0', focus: 'Rd3' },
    ],
  },
  captures: {
    variant: 'banqi',
    caption: 'rules.bq.diagram.captures',
    positions: [
      { position: '8/1Pkp4/3Ka3/C1?2r2 r e 0', focus: 'b3', next: 'rules.action.black_moves' },
      { position: '8/1Pkp4/3Ka3/C1?2r2 b e 0', focus: 'd3', next: 'rules.action.red_moves' },
    ],
  },
});

/**
 * A block of a page: a heading, a paragraph, the list of pieces ([name key, text key, red and
 * black glyphs, WXF letter]; each shows its characters, or its letters, and beside them its
 * symbol), a diagram, or banqi's table of captures.
 * @typedef {['h2', string] | ['p', string] | ['pieces', [string, string, string, string][]]
 *   | ['diagram', string] | ['captures']} Block
 */

/** @type {Record<Variant, Block[]>} */
const PAGES = {
  xiangqi: [
    ['p', 'rules.xq.intro'],
    ['h2', 'rules.xq.board.h'],
    ['p', 'rules.xq.board.p1'],
    ['p', 'rules.xq.board.p2'],
    ['h2', 'rules.xq.pieces.h'],
    ['p', 'rules.xq.pieces.p1'],
    ['p', 'rules.xq.pieces.legend'],
    ['pieces', [
      ['rules.piece.general', 'rules.xq.move.general', '帥將', 'K'],
      ['rules.piece.advisor', 'rules.xq.move.advisor', '仕士', 'A'],
      ['rules.piece.elephant', 'rules.xq.move.elephant', '相象', 'E'],
      ['rules.piece.horse', 'rules.xq.move.horse', '傌馬', 'H'],
      ['rules.piece.chariot', 'rules.xq.move.chariot', '俥車', 'R'],
      ['rules.piece.cannon', 'rules.xq.move.cannon', '炮砲', 'C'],
      ['rules.piece.soldier', 'rules.xq.move.soldier', '兵卒', 'P'],
    ]],
    ['diagram', 'horse'],
    ['diagram', 'elephant'],
    ['diagram', 'cannon'],
    ['h2', 'rules.xq.check.h'],
    ['p', 'rules.xq.check.p1'],
    ['p', 'rules.xq.check.p2'],
    ['diagram', 'facing'],
    ['p', 'rules.xq.check.p3'],
    ['h2', 'rules.xq.draws.h'],
    ['p', 'rules.xq.draws.p1'],
    ['p', 'rules.xq.draws.p2'],
    ['p', 'rules.xq.draws.p3'],
    ['h2', 'rules.time.h'],
    ['p', 'rules.time.p1'],
  ],
  sanguo: [
    ['p', 'rules.sg.intro'],
    ['h2', 'rules.sg.board.h'],
    ['p', 'rules.sg.board.p1'],
    ['h2', 'rules.sg.river.h'],
    ['p', 'rules.sg.river.p1'],
    ['diagram', 'tip'],
    ['diagram', 'crossing'],
    ['h2', 'rules.sg.pieces.h'],
    ['p', 'rules.sg.pieces.p1'],
    ['h2', 'rules.sg.flags.h'],
    ['p', 'rules.sg.flags.p1'],
    ['diagram', 'flag'],
    ['h2', 'rules.sg.check.h'],
    ['p', 'rules.sg.check.p1'],
    ['h2', 'rules.sg.defeat.h'],
    ['p', 'rules.sg.defeat.p1'],
    ['p', 'rules.sg.defeat.p2'],
    ['h2', 'rules.sg.end.h'],
    ['p', 'rules.sg.end.p1'],
    ['p', 'rules.sg.end.p2'],
    ['p', 'rules.sg.end.p3'],
  ],
  banqi: [
    ['p', 'rules.bq.intro'],
    ['h2', 'rules.bq.turns.h'],
    ['p', 'rules.bq.turns.p1'],
    ['p', 'rules.bq.turns.p2'],
    ['h2', 'rules.bq.ranks.h'],
    ['p', 'rules.bq.ranks.p1'],
    ['p', 'rules.bq.ranks.p2'],
    ['captures'],
    ['diagram', 'captures'],
    ['h2', 'rules.bq.end.h'],
    ['p', 'rules.bq.end.p1'],
    ['p', 'rules.bq.end.p2'],
  ],
};

/**
 * Who captures whom in banqi (spec/banqi.md §2.2), rows = attacker, columns = target, both in
 * the order General, Advisor, Elephant, Chariot, Horse, Cannon, Soldier. This is prose for the
 * reader, as the paragraphs are: the diagram's moves come from the server.
 */
const BANQI_CAPTURES = [
  ['rules.piece.general', '帥', 'K', 'yyyyyyn'],
  ['rules.piece.advisor', '仕', 'A', 'nyyyyyy'],
  ['rules.piece.elephant', '相', 'E', 'nnyyyyy'],
  ['rules.piece.chariot', '俥', 'R', 'nnnyyyy'],
  ['rules.piece.horse', '傌', 'H', 'nnnnyyy'],
  ['rules.piece.cannon', '炮', 'C', 'yyyyyyy'],
  ['rules.piece.soldier', '兵', 'P', 'ynnnnny'],
];

/**
 * A round piece face in the text, in the set the header chose: the traditional character, the WXF
 * letter, or the symbol.
 * @param {string} glyph
 * @param {string} letter
 * @param {'red' | 'black'} color
 */
function chip(glyph, letter, color) {
  return currentPieceSet() === 'symbols' ? symbolChip(letter, color) : textChip(glyph, letter, color);
}

/**
 * A round face with the character, or the WXF letter when the header chose letters.
 * @param {string} glyph
 * @param {string} letter
 * @param {'red' | 'black'} color
 */
function textChip(glyph, letter, color) {
  return h('span', { class: `chip ${color}`, 'aria-hidden': 'true' }, currentPieceSet() === 'western' ? letter : glyph);
}

/**
 * A round face with the symbol of the piece `letter` names (boards.js draws it).
 * @param {string} letter
 * @param {'red' | 'black'} color
 */
function symbolChip(letter, color) {
  return h('span', { class: `chip sym ${color}`, 'aria-hidden': 'true' }, symbolIcon(kindOf(letter), color));
}

/** One interactive board: a few positions, the moves the reader played, the server's answer. */
class Diagram {
  /**
   * @param {string} id
   * @param {DiagramDef} def
   */
  constructor(id, def) {
    this.id = id;
    this.def = def;
    this.index = 0;
    /** @type {string[]} */
    this.moves = [];
    /** @type {Analysis | null} */
    this.analysis = null;
    /** the piece picked: the caption's piece at first, kept when picked again */
    this.selection = new Selection({ selected: def.positions[0].focus });
    this.error = '';
    /** the number of the last request: older answers are dropped */
    this.asked = 0;
    this.node = h('figure', { class: `diagram ${def.variant}`, 'data-diagram': id });
    this.render();
    this.load();
  }

  /** Asks the server about the current position and moves, then draws the answer. */
  async load() {
    const asked = ++this.asked;
    this.node.setAttribute('aria-busy', 'true');
    const body = { variant: this.def.variant, position: this.def.positions[this.index].position, moves: this.moves };
    try {
      /** @type {Analysis} */
      const answer = await api('POST', '/api/analysis', body);
      if (asked !== this.asked) return;
      this.analysis = answer;
      this.error = '';
      this.selection.setMoves(answer.legal_moves, answer.capture_moves);
    } catch (e) {
      if (asked !== this.asked) return;
      this.error = errorText(e);
    }
    this.node.removeAttribute('aria-busy');
    this.render();
  }

  /** @param {string} move */
  play(move) {
    this.moves.push(move);
    this.selection.select(null);
    this.load();
  }

  /** @param {string} sq the point the pointer went down on */
  pick(sq) {
    if (!this.analysis) return;
    const move = this.selection.pick(sq);
    if (move) this.play(move);
    else this.render();
  }

  /** @param {string} sq the point the pointer was released over (drag and drop) */
  drop(sq) {
    if (!this.analysis) return;
    const move = this.selection.drop(sq);
    if (move) this.play(move);
  }

  /** Shows the next position (the blocker moved, the screen moved, the other side to move). */
  next() {
    this.index = (this.index + 1) % this.def.positions.length;
    this.moves = [];
    this.selection.select(this.def.positions[this.index].focus);
    this.load();
  }

  reset() {
    this.index = 0;
    this.moves = [];
    this.selection.select(this.def.positions[0].focus);
    this.load();
  }

  boardNode() {
    const a = this.analysis;
    if (!a) return h('div', { class: 'diagram-loading' }, t('rules.loading'));
    const lastText = a.board.moves[a.board.moves.length - 1];
    const last = lastText ? moveEnds(lastText) : null;
    /** @type {import('./boards.js').Marks} */
    const marks = {
      selected: this.selection.selected, targets: this.selection.targets(), last: last ? [last.from, last.to] : [], check: a.check,
      onPick: (sq) => this.pick(sq), onDrop: (sq) => this.drop(sq),
    };
    if (a.board.variant === 'xiangqi') return xiangqiBoard(a.board.fen, false, marks);
    if (a.board.variant === 'banqi') return banqiBoard(a.board.view, marks);
    const svg = sanguoBoard(a.board.position, 0, a.to_move, marks);
    const zoom = this.def.zoom;
    const full = svg.getAttribute('viewBox')?.split(' ').map(Number);
    if (zoom && full?.length === 4) {
      const size = full[2];
      const [cx, cy, width, height] = zoom.map((z) => z * size);
      svg.setAttribute('viewBox', `${full[0] + size / 2 + cx - width / 2} ${full[1] + full[3] / 2 + cy - height / 2} ${width} ${height}`);
    }
    return svg;
  }

  statusText() {
    const a = this.analysis;
    if (!a) return '';
    if (a.outcome) return resultLine(this.def.variant, a.outcome);
    const side = a.side ? t('rules.to_move', { side: t(`winner.${a.side}`) }) : '';
    return a.in_check ? `${t('rules.check')} · ${side}` : side;
  }

  /** Draws the diagram again (after an answer, a click or a language switch). */
  render() {
    const here = this.def.positions[this.index];
    const changed = this.index !== 0 || this.moves.length > 0;
    this.node.replaceChildren(
      h('div', { class: 'diagram-board' }, this.boardNode()),
      h('figcaption', {},
        h('p', { class: 'caption' }, t(this.def.caption)),
        h('p', { class: 'diagram-status', role: 'status' }, this.statusText()),
        this.error ? h('p', { class: 'error', role: 'alert' }, this.error) : null,
        h('div', { class: 'diagram-actions' },
          here.next ? h('button', { type: 'button', 'data-action': 'next', onclick: () => this.next() }, t(here.next)) : null,
          h('button', { type: 'button', 'data-action': 'reset', disabled: !changed, onclick: () => this.reset() }, t('rules.reset')))));
  }
}

/** banqi's table of who captures whom */
function capturesTable() {
  const head = h('tr', {}, h('th', { scope: 'col' }, t('rules.bq.captures.corner')),
    ...BANQI_CAPTURES.map(([name, glyph, letter]) => h('th', { scope: 'col', title: t(name) }, chip(glyph, letter, 'black'))));
  const rows = BANQI_CAPTURES.map(([name, glyph, letter, row]) => h('tr', {},
    h('th', { scope: 'row' }, chip(glyph, letter, 'red'), ' ', t(name)),
    ...[...row].map((c) => h('td', { class: c === 'y' ? 'yes' : 'no' }, c === 'y' ? '✓' : '–'))));
  return h('div', { class: 'captures-wrap' }, h('table', { class: 'captures', id: 'banqi-captures' },
    h('caption', {}, t('rules.bq.captures.caption')), h('thead', {}, head), h('tbody', {}, ...rows)));
}

/**
 * The links to the three rules pages, for the lobby.
 * @returns {HTMLElement}
 */
export function rulesLinks() {
  return h('section', { class: 'card rules-links' },
    h('h2', {}, t('rules.learn')),
    h('p', {}, ...['xiangqi', 'sanguo', 'banqi'].map((v) => h('a', { class: 'button', href: `#/rules/${v}`, id: `rules-${v}` }, t(`variant.${v}`)))));
}

/**
 * The rules page of `variant`. `show` puts a page under the header; `draw` draws it again (after a
 * language switch); `leave` stops answers from landing after the page is gone.
 * @param {Variant} variant
 * @param {(page: HTMLElement) => void} show
 * @returns {{draw: () => void, leave: () => void}}
 */
export function rulesPage(variant, show) {
  /** @type {Map<string, Diagram>} */
  const diagrams = new Map();
  for (const block of PAGES[variant]) {
    if (block[0] === 'diagram') diagrams.set(block[1], new Diagram(block[1], DIAGRAMS[block[1]]));
  }
  /** @param {Block} block */
  const blockNode = (block) => {
    switch (block[0]) {
      case 'h2': return h('h2', {}, t(block[1]));
      case 'p': return h('p', {}, t(block[1]));
      case 'pieces':
        return h('ul', { class: 'pieces' }, ...block[1].map(([name, text, glyphs, letter]) => h('li', {},
          h('span', { class: 'chips' }, textChip(glyphs[0], letter, 'red'), textChip(glyphs[1], letter, 'black'),
            h('span', { class: 'legend', 'data-piece': letter }, symbolChip(letter, 'red'), symbolChip(letter, 'black'))),
          h('strong', { class: 'name' }, t(name)),
          h('span', { class: 'text' }, t(text)))));
      case 'diagram': {
        const d = /** @type {Diagram} */ (diagrams.get(block[1]));
        d.render();
        return d.node;
      }
      case 'captures': return capturesTable();
      default: return null;
    }
  };
  const draw = () => {
    const tabs = h('nav', { class: 'rules-tabs', 'aria-label': t('rules.nav') },
      ...['xiangqi', 'sanguo', 'banqi'].map((v) => h('a', { href: `#/rules/${v}`, 'data-variant': v, 'aria-current': v === variant ? 'page' : undefined }, t(`variant.${v}`))));
    show(h('main', { class: 'rules-page', 'data-variant': variant },
      tabs,
      h('article', { class: 'card rules' },
        h('h1', { id: 'rules-title' }, t(`rules.title.${variant}`)),
        h('p', { class: 'muted help' }, t('rules.help')),
        ...PAGES[variant].map(blockNode))));
  };
  return {
    draw,
    leave: () => { for (const d of diagrams.values()) d.asked++; },
  };
}
