// Browser-side code checked in Node (`node --test unit.mjs`): the protocol fixtures of
// tests/data/protocol parse with the client's readers, the board readers and drawing coordinates
// give the spec's figures, the message catalogue is complete in es, en and zh, choosing a move
// works as the table and the rules diagrams use it, and the table page's parts reckon their lines
// (seats, clocks, moves, chat, offers) as the page shows them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyUpdate, unpackMoves, generalSquares, moveEnds, pgnMoves, readBanqiView, readPool, readSanguoPosition, readServerMessage, readXiangqiFen,
  sanguoCoords,
} from '../../web/js/protocol.js';
import { LANGS, chooseLang, keys, setLang, t } from '../../web/js/i18n.js';
import { RULES_CATALOGUE } from '../../web/js/i18n-rules.js';
import { KINGDOM_COLORS, SYMBOLS, kindOf } from '../../web/js/boards.js';
import { Selection } from '../../web/js/select.js';
import { resultLine, serverErrorText } from '../../web/js/format.js';
import { banqiMoveText, chanceLabels, evalText, fenErrorText, judgeMove, judgementAt, percent, pieceName, redShare, sanguoCellText, winningChances } from '../../web/js/analysis.js';
import { EMPTY_FEN, START_FEN, applyTool, fenOf, gridOf } from '../../web/js/editor.js';
import { NO_DECLINES, followDeclines, newComputerForm, newGameForm } from '../../web/js/table-parts/actions.js';
import { blackBelow, bottomKingdom, lastMovesBySeat } from '../../web/js/table-parts/board.js';
import { chatRoom } from '../../web/js/table-parts/chat.js';
import { isLowTime } from '../../web/js/table-parts/clocks.js';
import { defeatText, moveRows } from '../../web/js/table-parts/moves.js';
import { ratingLine, seatColors, seatOrder } from '../../web/js/table-parts/seats.js';
import { invites } from '../../web/js/table-parts/invite.js';
import { countdownText, tourClockText } from '../../web/js/tournament.js';
import { PUZZLE_THEMES, diffText, themeName } from '../../web/js/puzzle.js';
import { blackToMove } from '../../web/js/protocol.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, 'tests/data/protocol');
/** @param {string} name a file of tests/data/protocol, parsed as JSON */
const read = (name) => JSON.parse(readFileSync(join(fixtures, name), 'utf8'));
/** A server fixture read as the client reads a message (an update made whole). */
const readMsg = (/** @type {string} */ name) => /** @type {any} */ (readServerMessage(readFileSync(join(fixtures, name), 'utf8')));
const bqText = () => read('server.state.banqi.json').board.view;
/** Every server fixture, by file name in order, read with the client's reader. */
const serverFixtures = readdirSync(fixtures).filter((n) => n.startsWith('server.')).sort()
  .map((name) => ({ name, msg: readServerMessage(readFileSync(join(fixtures, name), 'utf8')) }));

// 1. the wire: every server fixture parses with the client's readers

test('protocol: every server fixture parses as the message its file names', () => {
  assert.ok(serverFixtures.length > 0);
  for (const { name, msg } of serverFixtures) assert.equal(msg.type, name.split('.')[1], name);
});

test('protocol: every move of the fixtures (events, updates, states) has two ends', () => {
  for (const { msg } of serverFixtures) {
    if (msg.type === 'event' && msg.event.kind === 'moved') moveEnds(msg.event.move);
    if (msg.type === 'update') {
      for (const m of [...msg.legal_moves, ...msg.events.flatMap((e) => e.event.kind === 'moved' ? [e.event.move] : [])]) moveEnds(m);
    }
    if (msg.type === 'state') for (const m of [...msg.legal_moves, ...msg.board.moves]) moveEnds(m);
  }
});

test('protocol: the capture moves of updates and states are among their legal moves', () => {
  for (const { name, msg } of serverFixtures) {
    if (msg.type === 'update' || msg.type === 'state') {
      for (const m of msg.capture_moves) assert.ok(msg.legal_moves.includes(m), `${name}: ${m} is a legal move`);
    }
  }
});

test('protocol: an update carries a board with a takeback or a defeat and only then (2026-12-04)', () => {
  for (const { name, msg } of serverFixtures) {
    if (msg.type === 'update') {
      assert.equal(!!msg.board, msg.events.some((e) => e.event.kind === 'taken_back' || e.event.kind === 'defeated'), `${name}: board`);
    }
  }
});

// the facts the client reads instead of keeping copies: which moves capture (above), whether the
// variant has draw offers, and the seat count (the length of the table's seats)
test('protocol: a state says whether its variant has draw offers and has one connection entry per seat', () => {
  for (const { name, msg } of serverFixtures) {
    if (msg.type !== 'state') continue;
    assert.equal(msg.draw_offers, msg.table.options.variant !== 'sanguo', `${name}: draw_offers`);
    assert.equal(msg.connected.length, msg.table.seats.length, `${name}: one entry per seat`);
  }
});

// an update applies to the state it follows (events copied, the move appended, the fields
// replaced), and one that does not follow gives null (the client then asks `sync`)
test('protocol: an update applies to the state it follows and leaves that state unchanged', () => {
  const before = read('server.state.json');
  const update = readMsg('server.update.json');
  const after = applyUpdate(before, update);
  assert.ok(after);
  assert.equal(after.version, 8);
  assert.equal(after.table.version, 8);
  assert.deepEqual(after.board.moves, ['h2e2', 'h9g7']);
  // the client played h9g7 on the FEN itself: Black's Horse on g7, Red to move, the counters on
  assert.equal(after.board.fen, 'rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2');
  assert.equal(after.to_move, 0);
  assert.deepEqual(after.legal_moves, []);
  assert.deepEqual(after.check, []);
  assert.equal(after.draw_offer, null);
  // the clocks left out after a move are the move's, Red's running (Red to move)
  assert.deepEqual(after.clocks, [{ remaining_ms: 601200, running: true }, { remaining_ms: 597100, running: false }]);
  assert.deepEqual(before.board.moves, ['h2e2'], 'the state it came from is unchanged');
});

test('protocol: an update that does not follow the state (the same one twice, a version gap) gives null', () => {
  const before = read('server.state.json');
  const update = readMsg('server.update.json');
  const after = applyUpdate(before, update);
  assert.ok(after);
  assert.equal(applyUpdate(after, update), null, 'the same update twice is a gap');
  assert.equal(applyUpdate(before, { ...update, version: 9, events: [{ ...update.events[0], version: 9 }] }), null);
});

test('protocol: a banqi update applies its view and legal moves', () => {
  const banqi = applyUpdate(read('server.state.banqi.json'), readMsg('server.update.banqi.json'));
  assert.ok(banqi);
  assert.deepEqual(banqi.board.moves, ['c2=R', 'd3=c']);
  // the flip d3=c played by the client: the square face up, the piece out of the pool
  assert.equal(banqi.board.view, '????????/???c????/??R?????/???????? r KAAEERHHCCPPPPPkaaeerrhhcppppp 0');
  assert.deepEqual(banqi.board.colors, ['red', 'black']);
  assert.equal(banqi.board.captured, '-');
  assert.deepEqual(banqi.legal_moves, ['c2-b2', 'c2-c1', 'c2-d2', 'flip a1', 'flip a2']);
  assert.deepEqual(banqi.capture_moves, []);
});

test('protocol: an update with a move that does not fit the board gives null', () => {
  assert.equal(applyUpdate(read('server.state.banqi.json'), readMsg('server.update.json')), null, 'a xiangqi move on a banqi board');
});

// recorded games of the three variants (tests/data/wire-replays, written by the Rust test
// `updates_build_the_states_of_sync_in_every_variant` of crates/chuhe-server/tests/wire.rs with
// CHUHE_WRITE_WIRE_REPLAYS=1): a spectator's messages, the moves played on the board by the
// client (2026-12-04), the states of `sync` between them
/**
 * A state with the fields the server leaves out when they have their usual value filled in.
 * @param {any} s
 */
const withUsual = (s) => ({
  ...s, takeback_offer: s.takeback_offer ?? null, rematch_offers: s.rematch_offers ?? [], rematch: s.rematch ?? null,
  berserks: s.berserks ?? [], defeats: s.defeats ?? [], abandon_ms: s.abandon_ms ?? [],
});

for (const variant of ['xiangqi', 'sanguo', 'banqi']) {
  test(`protocol: the updates of a recorded ${variant} game build the states the server sent`, () => {
    const lines = readFileSync(join(root, `tests/data/wire-replays/${variant}.jsonl`), 'utf8').split('\n').filter((l) => l !== '');
    /** @type {any} */
    let current = null;
    let compared = 0;
    let moves = 0;
    for (const line of lines) {
      const msg = /** @type {any} */ (readServerMessage(line));
      if (msg.type === 'state') {
        if (current && current.version === msg.version) {
          assert.deepEqual(withUsual(current), withUsual(msg), `${variant}: the state at version ${msg.version}`);
          compared += 1;
        }
        current = msg;
      } else if (msg.type === 'update') {
        const next = applyUpdate(current, msg);
        assert.ok(next, `${variant}: the update of version ${msg.version} applies`);
        moves += msg.events.filter((/** @type {any} */ e) => e.event.kind === 'moved').length;
        current = next;
      }
    }
    assert.ok(compared >= 3, `${variant}: ${compared} states compared`);
    assert.ok(moves >= 40, `${variant}: ${moves} moves played`);
  });
}

test('protocol: packed moves unpack in their order, and a bad group is refused', () => {
  assert.deepEqual(unpackMoves('h2:e2h9;b0:c2'), ['h2e2', 'h2h9', 'b0c2']);
  assert.deepEqual(unpackMoves('Ga1-G:a2a3;flip :a1'), ['Ga1-Ga2', 'Ga1-Ga3', 'flip a1']);
  assert.deepEqual(unpackMoves(''), []);
  assert.throws(() => unpackMoves('h2e2'), /packed moves: bad group h2e2/);
  assert.throws(() => unpackMoves('h2:e'), /packed moves: bad group h2:e/);
});

test('protocol: an untimed update without clocks, and a seat change with its clocks, read whole', () => {
  const ended = readMsg('server.update.ended.json');
  assert.equal(ended.clocks, null, 'untimed: the move has no clocks_ms');
  assert.deepEqual(ended.check, [0]);
  const sat = readMsg('server.update.sat.json');
  assert.deepEqual(sat.clocks, [{ remaining_ms: 600000, running: false }, { remaining_ms: 600000, running: false }]);
  assert.deepEqual(sat.legal_moves, []);
});

// the board readers

test('boards: a xiangqi FEN reads into pieces by rank and file and the side to move', () => {
  const state = read('server.state.json');
  const xq = readXiangqiFen(state.board.fen);
  assert.deepEqual(xq.board[2][4], { color: 'r', kind: 'c' }, 'h2e2 put the Red cannon on e2');
  assert.equal(xq.board[2][7], null);
  assert.deepEqual(xq.board[9][4], { color: 'b', kind: 'k' });
  assert.equal(xq.turn, 'b');
});

test('boards: a broken xiangqi FEN throws', () => {
  assert.throws(() => readXiangqiFen('rnbakabnr/9 w'));
});

test('boards: a banqi view reads its flipped and face-down discs', () => {
  const bq = readBanqiView(read('server.state.banqi.json').board.view);
  assert.deepEqual(bq.board[1][2], { down: false, kind: 'R' }, 'c2 shows the flipped chariot');
  assert.equal(bq.board.flat().filter((s) => s?.down).length, 31);
});

test('boards: a sanguo position reads its pieces with owner and origin, and the kingdom to move', () => {
  const sg = readSanguoPosition(read('server.state.sanguo.json').board.position);
  assert.equal(sg.pieces.size, 3 * 18);
  assert.deepEqual(sg.pieces.get('Re1'), { owner: 0, kind: 'K', origin: 0 });
  assert.deepEqual(sg.pieces.get('Gd3'), { owner: 1, kind: 'F', origin: 1 });
  assert.equal(sg.toMove, 1);
  assert.deepEqual(readSanguoPosition('9/9/9/9/4rK~g4,9/9/9/9/9,9/9/9/9/9 R - GB 0 0').pieces.get('Re1'), { owner: 0, kind: 'K', origin: 1 });
});

test('protocol: the moves of a PGN (WXF and Chinese), without numbers, comments or the result', () => {
  assert.deepEqual(pgnMoves('[Game "Chinese Chess"]\n[Format "WXF"]\n\n1. C2.5 H8+7\n2. H2+3 R9.8 {a comment}\n3. R1.2+\n*\n'),
    ['C2.5', 'H8+7', 'H2+3', 'R9.8', 'R1.2']);
  assert.deepEqual(pgnMoves('[Red "?"]\n\n1. 炮二平五 马8进7\n2. 马二进三\n1-0\n'), ['炮二平五', '马8进7', '马二进三']);
});

test('protocol: the two ends of a move of each game, a flip on one point', () => {
  assert.deepEqual(moveEnds('flip c2'), { from: 'c2', to: 'c2', flip: true });
  assert.deepEqual(moveEnds('c2=R'), { from: 'c2', to: 'c2', flip: true });
  assert.deepEqual(moveEnds('Ra1xRd1'), { from: 'Ra1', to: 'Rd1', flip: false });
  assert.deepEqual(moveEnds('h2e2'), { from: 'h2', to: 'e2', flip: false });
  assert.throws(() => moveEnds('h2-e2x'));
});

// the check mark: the server names the seats, the client finds their Generals on the board
test('protocol: the Generals of the seats in check are found on the board', () => {
  const checkState = read('server.state.check.json');
  const state = read('server.state.json');
  assert.deepEqual(checkState.check, [0]);
  assert.deepEqual(generalSquares('xiangqi', checkState.board.fen, checkState.check), ['e0']);
  assert.deepEqual(generalSquares('xiangqi', checkState.board.fen, [0, 1]), ['e0', 'e9']);
  assert.deepEqual(generalSquares('xiangqi', state.board.fen, state.check), []);
  const sanguoText = '9/4rP4/9/9/4rK4,9/4gP4/4rR4/9/4gK4,9/4bP4/4rR4/9/4bK4 G R - - 0';
  assert.deepEqual(generalSquares('sanguo', sanguoText, [1, 2]), ['Be1', 'Ge1']);
  assert.deepEqual(generalSquares('banqi', bqText(), [0]), []);
});

test("protocol: banqi's captured pieces read by colour in the server's (rank) order", () => {
  assert.deepEqual(readPool('-'), { red: [], black: [] });
  assert.deepEqual(readPool('RPPc'), { red: ['R', 'P', 'P'], black: ['c'] });
  assert.throws(() => readPool('RX'));
  assert.equal(read('server.state.banqi.json').board.captured, '-');
});

test('protocol: the positions of a game, one per ply and the start, with their captured pieces', () => {
  const positions = read('http.positions.json');
  assert.equal(positions.positions.length, positions.moves.length + 1);
  for (const p of positions.positions) readBanqiView(p.position);
  assert.deepEqual(positions.positions.map((/** @type {any} */ p) => p.captured), ['-', '-', '-', 'p']);
  assert.deepEqual(readPool(positions.positions[3].captured).black, ['p']);
});

test('protocol: a finished-games page names its next page and each game its seats', () => {
  const page = read('http.finished_page.json');
  assert.equal(page.next, page.games[page.games.length - 1].id);
  for (const g of page.games) assert.equal(g.seats.length, g.options.variant === 'sanguo' ? 3 : 2);
});

// 2. sanguo drawing coordinates

test('boards: the sanguo drawing coordinates give the samples of spec/sanguo.md §9', () => {
  const samples = [
    [0, 4, 1, 0, -6.6], [0, 0, 1, -4, -6.6], [0, 8, 1, 4, -6.6], [0, 0, 5, -3.464, -2.577],
    [0, 4, 5, 0, -0.577], [1, 4, 5, 0.5, 0.289], [2, 4, 5, -0.5, 0.289], [1, 0, 1, 7.716, -0.164],
    [1, 8, 1, 3.716, 6.764], [2, 8, 1, -7.716, -0.164],
  ];
  for (const [k, f, r, x, y] of samples) {
    const [cx, cy] = sanguoCoords(k, f, r);
    assert.ok(Math.abs(cx - x) < 0.001 && Math.abs(cy - y) < 0.001, `${k} ${f} ${r}: ${cx} ${cy}`);
  }
});

test('boards: every sanguo rung has length 1 (spec/sanguo.md §9)', () => {
  for (let k = 0; k < 3; k++) {
    for (let f = 4; f <= 8; f++) {
      const [ax, ay] = sanguoCoords(k, f, 5);
      const [bx, by] = sanguoCoords((k + 1) % 3, 8 - f, 5);
      assert.ok(Math.abs(Math.hypot(ax - bx, ay - by) - 1) < 1e-9, `rung ${k} ${f}`);
    }
  }
});

// 3. the catalogue

test('catalogue: every key has its own text in every language', () => {
  for (const key of keys()) {
    for (const l of LANGS) assert.ok(t(key, {}, l).length > 0 && t(key, {}, l) !== key, `${key} ${l}`);
  }
});

test('catalogue: every end reason of chuhe-rules has its words', () => {
  const outcome = readFileSync(join(root, 'crates/chuhe-rules/src/outcome.rs'), 'utf8');
  const reasons = [...outcome.matchAll(/EndReason::\w+ => "([a-z-]+)"/g)].map((m) => m[1]);
  assert.ok(reasons.length >= 15, 'the end reasons of outcome.rs were found');
  for (const r of reasons) assert.ok(keys().includes(`reason.${r}`), `reason.${r} is in the catalogue`);
});

/** The pages, each with its files: the table page with its parts (web/js/table-parts/). */
const PAGES = [
  ['app.js'], ['lobby.js'],
  ['table-view.js', ...readdirSync(join(root, 'web/js/table-parts')).filter((f) => f.endsWith('.js')).sort().map((f) => `table-parts/${f}`)],
  ['format.js'], ['player.js'], ['tokens.js'], ['analysis.js'], ['editor.js'], ['tournament.js'], ['puzzle.js'],
];

test('catalogue: every key the pages name is in it', () => {
  for (const files of PAGES) {
    let count = 0;
    for (const file of files) {
      const text = readFileSync(join(root, 'web/js', file), 'utf8');
      const named = [...text.matchAll(/\bt\('([a-z_.]+)'/g)].map((m) => m[1]);
      count += named.length;
      for (const key of named) assert.ok(keys().includes(key), `${key} (${file}) is in the catalogue`);
    }
    assert.ok(count > 5, `${files.join(', ')} name ${count} keys`);
  }
});

test('catalogue: the variants, the piece sets and the rows of banqi lost pieces have their words', () => {
  for (const v of ['xiangqi', 'sanguo', 'banqi']) assert.ok(keys().includes(`variant.${v}`));
  for (const p of ['chinese', 'western', 'symbols']) assert.ok(keys().includes(`pieces.${p}`));
  for (const c of ['red', 'black']) assert.ok(keys().includes(`banqi.lost_${c}`));
  // the scopes the tokens form offers (tokens.js): the server's five (accounts/tokens.rs)
  const scopes = readFileSync(join(root, 'crates/chuhe-server/src/accounts/tokens.rs'), 'utf8');
  const keysOfRust = [...scopes.matchAll(/Scope::\w+ => "([a-z]+:[a-z]+)"/g)].map((m) => m[1]);
  assert.equal(new Set(keysOfRust).size, 5, 'the five scopes of tokens.rs were found');
  for (const s of keysOfRust) assert.ok(keys().includes(`tokens.scope.${s}`), `tokens.scope.${s} is in the catalogue`);
});

test('catalogue: a text fills in its parameters in the language asked', () => {
  assert.equal(t('result.wins', { who: 'Rojo' }, 'es'), 'Gana Rojo');
  assert.equal(t('result.wins', { who: '红方' }, 'zh'), '红方胜');
});

test("catalogue: the browser's languages choose the page's, a stored choice wins", () => {
  assert.equal(chooseLang(['zh-CN', 'en'], null), 'zh');
  assert.equal(chooseLang(['fr-FR', 'en-GB'], null), 'en');
  assert.equal(chooseLang(['fr-FR'], null), 'es');
  assert.equal(chooseLang(['en-US'], 'es'), 'es');
});

// 4. the rules pages: their texts are in the one catalogue (not shadowed by another entry), and
// every catalogue key rules.js names exists

test('rules: the texts of the rules pages come from i18n-rules.js in every language', () => {
  for (const [key, texts] of Object.entries(RULES_CATALOGUE)) {
    assert.ok(key.startsWith('rules.'), `${key} starts with rules.`);
    LANGS.forEach((l, i) => assert.equal(t(key, {}, l), texts[i], `${key} ${l} comes from i18n-rules.js`));
  }
});

test('rules: every key rules.js names is in the catalogue', () => {
  const rules = readFileSync(join(root, 'web/js/rules.js'), 'utf8');
  const named = [...rules.matchAll(/'(rules\.[a-z_.]+)'/g)].map((m) => m[1]);
  assert.ok(named.length > 60, `rules.js names ${named.length} keys`);
  for (const key of named) assert.ok(keys().includes(key), `${key} is in the catalogue`);
  for (const m of rules.matchAll(/\bt\('([a-z_.]+)'/g)) assert.ok(keys().includes(m[1]), `${m[1]} is in the catalogue`);
  for (const v of ['xiangqi', 'sanguo', 'banqi']) assert.ok(keys().includes(`rules.title.${v}`));
});

test('rules: a rules text fills in a word of the catalogue', () => {
  assert.equal(t('rules.to_move', { side: t('winner.black', {}, 'es') }, 'es'), 'Juega Negro');
});

// the perpetual chase (spec/xiangqi.md §6.4) in every language: a Horse or Cannon chasing a
// protected Chariot counts; General and Soldier threats, Soldiers on their own side and exchange
// offers do not
test('rules: the perpetual chase is told the same in every language', () => {
  const chase = {
    es: ['Caballo o un Cañón que persigue a un Carro', 'aunque el Carro esté defendido', 'del General y de los Soldados', 'Soldado que no ha cruzado el río', 'ofrecimiento de cambio'],
    en: ['Horse or Cannon chasing a Chariot', 'even when the Chariot is defended', 'by a General or a Soldier', 'Soldier that has not crossed the river', 'offer to exchange'],
    zh: ['马或炮捉车', '即使车有保护也算捉', '帅（将）和兵（卒）的威胁', '未过河的兵（卒）', '兑子'],
  };
  for (const l of LANGS) {
    for (const part of chase[l]) assert.ok(t('rules.xq.draws.p1', {}, l).includes(part), `${l} perpetual chase says ${part}`);
  }
});

test('catalogue: the lobby says rated games need an account', () => {
  assert.equal(t('lobby.rated_needs_account', {}, 'en'), 'Rated games need an account.');
});

// 5. the symbols: one per kind of piece, named by every piece letter of the three games, painted
// only with the side's colour (ink) and the disc's (paper), so that the colour says the side only
const kinds = ['general', 'advisor', 'elephant', 'horse', 'chariot', 'cannon', 'soldier', 'flag'];

test('symbols: one symbol per kind of piece', () => {
  assert.deepEqual(Object.keys(SYMBOLS), kinds);
});

test('symbols: every piece letter of the three games names its kind', () => {
  assert.deepEqual([...'kabnrcp'].map(kindOf), kinds.slice(0, 7), 'FEN letters');
  assert.deepEqual([...'KAEHRCP'].map(kindOf), kinds.slice(0, 7), 'banqi letters');
  assert.deepEqual([...'kaehrcp'].map(kindOf), kinds.slice(0, 7), 'banqi letters of Black');
  assert.equal(kindOf('F'), 'flag', 'the sanguo flag bearer');
});

test("symbols: each is painted only with the side's colour and the disc's", () => {
  /**
   * @param {import('../../web/js/boards.js').Shape[]} shapes
   * @returns {(string | number)[]}
   */
  const paints = (shapes) => shapes.flatMap(([, attrs, inner]) => [attrs.fill, attrs.stroke, ...(inner ? paints(inner) : [])])
    .filter((p) => p !== undefined);
  for (const kind of kinds) {
    const used = paints(SYMBOLS[/** @type {'general'} */ (kind)]);
    assert.ok(used.every((p) => p === 'ink' || p === 'paper' || p === 'none'), `${kind} paints only ink and paper: ${used}`);
    assert.ok(used.includes('ink'), `${kind} is drawn in the side's colour`);
  }
});

// 6. choosing a move (select.js), as the table and the rules diagrams do: a pick selects a piece
// that has moves, a pick or a drop on a target chooses that move, a pick on a face-down disc flips
// it; the targets say which moves capture from the server's list

/** The table's selection among four xiangqi moves, two of them captures. */
const tableSelection = () => {
  const table = new Selection({ toggle: true });
  table.setMoves(['b2b9', 'h0g2', 'h2e2', 'h2h9'], ['b2b9', 'h2h9']);
  return table;
};

test('select: nothing moves from an empty point', () => {
  const table = tableSelection();
  assert.equal(table.pick('e5'), null, 'nothing moves from an empty point');
  assert.equal(table.selected, null);
});

test("select: a pick selects a piece that has moves; its targets say which capture from the server's list", () => {
  const table = tableSelection();
  assert.equal(table.pick('h2'), null);
  assert.equal(table.selected, 'h2');
  assert.deepEqual([...table.targets()], [['e2', false], ['h9', true]]);
});

test('select: at the table a second pick of the piece lets it go', () => {
  const table = tableSelection();
  table.pick('h2');
  assert.equal(table.pick('h2'), null);
  assert.equal(table.selected, null, 'the table: a second pick of the piece lets it go');
});

test('select: a pick on another piece selects that one, a pick on a target chooses the move', () => {
  const table = tableSelection();
  table.pick('h2');
  assert.equal(table.pick('h0'), null);
  assert.equal(table.selected, 'h0', 'a pick on another piece selects that one');
  assert.equal(table.pick('g2'), 'h0g2', 'a pick on a target chooses the move');
  assert.equal(table.selected, null);
  assert.deepEqual([...table.targets()], []);
});

test('select: a drag released over its own point or no target does nothing, over a target it chooses the move', () => {
  const table = tableSelection();
  table.pick('b2');
  assert.equal(table.drop('b2'), null);
  assert.equal(table.drop('c5'), null);
  assert.equal(table.selected, 'b2');
  assert.equal(table.drop('b9'), 'b2b9');
  assert.equal(table.selected, null);
});

test('select: a new position lets go of a piece that no longer moves, and keeps one that does', () => {
  const table = tableSelection();
  table.pick('h2');
  table.setMoves(['h2e2', 'a0a1']);
  assert.equal(table.selected, 'h2');
  table.setMoves(['a0a1']);
  assert.equal(table.selected, null);
});

test('select: with nothing to choose among (a spectator, the other seat to move) no pick selects anything', () => {
  const table = tableSelection();
  table.setMoves([]);
  assert.equal(table.pick('a0'), null);
  assert.equal(table.selected, null);
});

test("select: a rules diagram starts with the caption's piece selected and a second pick keeps it", () => {
  const diagram = new Selection({ selected: 'e4' });
  diagram.setMoves(['e4d6', 'e4f6', 'd0d1']);
  assert.deepEqual([...diagram.targets().keys()], ['d6', 'f6']);
  assert.equal(diagram.pick('e4'), null);
  assert.equal(diagram.selected, 'e4');
  diagram.select('d0');
  assert.deepEqual([...diagram.targets().keys()], ['d1']);
});

test("select: banqi: a flip is one pick, captures come from the server's list", () => {
  const banqi = new Selection({ toggle: true });
  banqi.setMoves(['b3-b4', 'b3xc3', 'flip c1'], ['b3xc3']);
  assert.equal(banqi.pick('c1'), 'flip c1');
  assert.equal(banqi.pick('b3'), null);
  assert.deepEqual([...banqi.targets()], [['b4', false], ['c3', true]]);
  assert.equal(banqi.pick('c3'), 'b3xc3');
});

test('select: sanguo: the point names of the three halves; only the server says what captures', () => {
  const sanguo = new Selection({ toggle: true });
  sanguo.setMoves(['Ga1-Ga2', 'Ga1xRa3']);
  sanguo.pick('Ga1');
  assert.deepEqual([...sanguo.targets()], [['Ga2', false], ['Ra3', false]], 'only the server says what captures');
  assert.equal(sanguo.drop('Ra3'), 'Ga1xRa3');
});

// 7. the result lines name the loser's fault (issue 17): the side that gave perpetual check,
// resigned, ran out of time or left (with two losers, the verb agrees); the winner's rule stays as it was; server refusals in the
// page's language, never the server's English words
const resultLines = {
  es: ['Gana Negro · Rojo dio jaque perpetuo', 'Gana Rojo · Negro dejó la partida', 'Gana Negro · por jaque mate',
    'Ganan Shu y Wei · Wu se quedó sin tiempo', 'Gana Segundo asiento · Primer asiento se rindió', 'Tablas · de mutuo acuerdo',
    'Gana Wei · Shu y Wu se quedaron sin tiempo', 'Gana Shu · Wu y Wei se rindieron', 'Eso no se puede hacer ahora', 'La partida ya ha terminado'],
  en: ['Black wins · Red gave perpetual check', 'Red wins · Black left the game', 'Black wins · by checkmate',
    'Shu and Wei win · Wu ran out of time', 'Second seat wins · First seat resigned', 'Draw · by agreement',
    'Wei wins · Shu and Wu ran out of time', 'Shu wins · Wu and Wei resigned', 'That cannot be done now', 'The game has ended'],
  zh: ['黑方胜 · 红方长将', '红方胜 · 黑方离开了对局', '黑方胜 · 将死', '蜀和魏胜 · 吴超时', '后手胜 · 先手认输', '和棋 · 双方议和',
    '魏胜 · 蜀和吴超时', '蜀胜 · 吴和魏认输', '现在不能这样做', '对局已结束'],
};
for (const l of /** @type {const} */ (['es', 'en', 'zh'])) {
  test(`format: the result lines name the loser's fault and refusals are in the page's language (${l})`, () => {
    setLang(l);
    try {
      const got = [
        resultLine('xiangqi', { winners: ['black'], reason: 'perpetual-check' }, [1]),
        resultLine('xiangqi', { winners: ['red'], reason: 'abandonment' }, [0]),
        resultLine('xiangqi', { winners: ['black'], reason: 'checkmate' }, [1]),
        resultLine('sanguo', { winners: ['shu', 'wei'], reason: 'timeout' }, [0, 2]),
        resultLine('banqi', { winners: [], reason: 'resignation' }, [1]),
        resultLine('xiangqi', { winners: [], reason: 'agreement' }, []),
        // two losers: the verb agrees with both (issue 31)
        resultLine('sanguo', { winners: ['wei'], reason: 'timeout' }, [2]),
        resultLine('sanguo', { winners: ['shu'], reason: 'resignation' }, [0]),
        serverErrorText('not_allowed', 'some words the client does not know'),
        serverErrorText('not_allowed', 'the game has ended'),
      ];
      assert.deepEqual(got, resultLines[l], l);
    } finally {
      setLang('es');
    }
  });
}

// 8. the analysis board's evaluation as written (Red's view, in soldiers) and the bar's share

test("analysis: the evaluation is written from Red's view, in soldiers or moves to mate", () => {
  assert.deepEqual(
    [{ cp: 58 }, { cp: -120 }, { cp: 0 }, { mate: 3 }, { mate: -2 }, null].map(evalText),
    ['+0.58', '-1.20', '0.00', '#3', '#-2', '–'],
  );
});

test("analysis: the bar's share of Red is whole at a mate, half when even, and symmetric", () => {
  assert.deepEqual([{ mate: 1 }, { mate: -1 }, { cp: 0 }, null].map(redShare), [100, 0, 50, 50]);
  assert.ok(redShare({ cp: 300 }) > 70 && redShare({ cp: 300 }) < 80);
  assert.ok(Math.abs(redShare({ cp: -300 }) + redShare({ cp: 300 }) - 100) < 1e-9);
});

test("analysis: winning chances follow lichess's formula, clamped at 1000 centipawns, mates as 2100 - 100 per move", () => {
  const near = (/** @type {number} */ a, /** @type {number} */ b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} is not ${b}`);
  near(winningChances({ cp: 0 }), 0);
  near(winningChances({ cp: 100 }), 0.18205179438322583);
  near(winningChances({ cp: -300 }), -0.5022510018766968);
  near(winningChances({ cp: 1000 }), 0.9508948726828645);
  near(winningChances({ cp: 5000 }), 0.9508948726828645);
  near(winningChances({ mate: 1 }), 0.9987336875391553);
  near(winningChances({ mate: -3 }), -0.9973572073252577);
  near(winningChances({ mate: 12 }), 0.9657616265617219);
});

test('analysis: a move is an inaccuracy, a mistake or a blunder by the drop of its mover\'s chances (0.1, 0.2, 0.3)', () => {
  // the drops of 0.1, 0.2 and 0.3 from equality are at 54.5, 110.1 and 168.1 centipawns
  const red = (/** @type {number} */ cp) => judgeMove({ cp: 0 }, { cp }, true);
  assert.deepEqual([-54, -55, -110, -111, -168, -169, 300].map(red), [null, 'inaccuracy', 'inaccuracy', 'mistake', 'mistake', 'blunder', null]);
  // Black's drop is Red's gain
  assert.deepEqual([54, 55, 111, 169, -500].map((cp) => judgeMove({ cp: 0 }, { cp }, false)), [null, 'inaccuracy', 'mistake', 'blunder', null]);
  // a winning side that throws away a mate, a lost side that makes it worse
  assert.equal(judgeMove({ mate: 2 }, { cp: 200 }, true), 'blunder');
  assert.equal(judgeMove({ cp: -1000 }, { mate: -5 }, true), null);
  // from the analysed positions: the side to move is the FEN's
  const at = (/** @type {string} */ fen, /** @type {any} */ e) => ({ ply: 0, fen, played: null, eval: e, line: [], line_text: [], depth: 1, nodes: 1, outcome: null });
  const evals = [at(`${START_FEN}`, { cp: 0 }), at('x b', { cp: 20 }), at('x w', { cp: 300 }), at('x b', { cp: 250 })];
  assert.deepEqual([1, 2, 3].map((p) => judgementAt(evals, p)), [null, 'blunder', null]);
  assert.equal(judgementAt([evals[0], null], 1), null);
});

test("analysis: a refused FEN is told in the page's language, every rule it breaks", () => {
  setLang('es');
  assert.equal(fenErrorText('bad message: fen: bad FEN: bad-rank-count: the board has 9 ranks, not 10'),
    'El FEN no se puede leer: el tablero debe tener 10 filas separadas por /');
  assert.equal(fenErrorText('fen: invalid position: general-count (each side must have exactly one general); also opponent-in-check'),
    'Posición no permitida: cada bando debe tener exactamente un General; el bando que no mueve está en jaque');
  assert.equal(fenErrorText('position: invalid position: soldier-square: red soldier on e2'),
    'Posición no permitida: un Soldado está donde nunca puede estar (antes de cruzar el río, solo en sus puntos de salida o delante de ellos)');
  assert.equal(fenErrorText('at most 300 moves, got 301'), null);
  setLang('en');
  try {
    assert.equal(fenErrorText('fen: invalid position: generals-facing (the generals must not face each other)'),
      'Position not allowed: the Generals must not face each other on an open file');
  } finally {
    setLang('es');
  }
});

test('catalogue: every FEN syntax error and every refused position of chuhe-rules has its words', () => {
  const setup = readFileSync(join(root, 'crates/chuhe-rules/src/xiangqi/setup.rs'), 'utf8');
  const position = readFileSync(join(root, 'crates/chuhe-rules/src/xiangqi/position.rs'), 'utf8');
  const kinds = [...setup.matchAll(/FenErrorKind::\w+ => "([a-z-]+)"/g), ...position.matchAll(/ValidationKind::\w+ => "([a-z-]+)"/g)].map((m) => m[1]);
  assert.equal(kinds.length, 14, 'the 6 syntax kinds and the 8 rules were found');
  for (const k of kinds) assert.ok(keys().includes(`fen.${k}`), `fen.${k} is in the catalogue`);
});

test('editor: the board and its FEN follow each other; a click puts, a second click or the bin takes away', () => {
  assert.equal(fenOf(gridOf(START_FEN).grid, 'w'), START_FEN);
  assert.equal(fenOf(gridOf(EMPTY_FEN).grid, 'b'), '9/9/9/9/9/9/9/9/9/9 b - - 0 1');
  let g = gridOf(EMPTY_FEN).grid;
  g = applyTool(g, 'e0', 'K');
  g = applyTool(g, 'd9', 'k');
  g = applyTool(g, 'a0', 'R');
  assert.equal(fenOf(g, 'w'), '3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1');
  assert.equal(fenOf(applyTool(g, 'a0', 'R'), 'w'), '3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1');
  assert.equal(fenOf(applyTool(g, 'a0', 'C'), 'w'), '3k5/9/9/9/9/9/9/9/9/C3K4 w - - 0 1');
  assert.equal(fenOf(applyTool(g, 'e0', 'bin'), 'w'), '3k5/9/9/9/9/9/9/9/9/R8 w - - 0 1');
  assert.equal(applyTool(g, 'z9', 'K'), g);
  assert.equal(gridOf('3k5/9/9/9/9/9/9/9/9/R3K4 b').side, 'b');
});

// 9. the table page's parts (web/js/table-parts/): what they reckon before they draw

test('table seats: the receiver is listed last, except in sanguo, a spectator sees the seats in order', () => {
  assert.deepEqual(seatOrder(2, 'xiangqi', 0), [1, 0]);
  assert.deepEqual(seatOrder(2, 'xiangqi', 1), [0, 1]);
  assert.deepEqual(seatOrder(2, 'banqi', 0), [1, 0]);
  assert.deepEqual(seatOrder(2, 'xiangqi', null), [0, 1]);
  assert.deepEqual(seatOrder(3, 'sanguo', 1), [0, 1, 2]);
});

test("table seats: a seat's colour is its side's or kingdom's; banqi before the first flip grey, its turn blue", () => {
  assert.deepEqual(seatColors('xiangqi', 0), { color: '#b3261e', turnColor: '#b3261e' });
  assert.deepEqual(seatColors('xiangqi', 1), { color: '#1d1d1d', turnColor: '#1d1d1d' });
  assert.deepEqual(seatColors('sanguo', 2), { color: KINGDOM_COLORS[2], turnColor: KINGDOM_COLORS[2] });
  assert.deepEqual(seatColors('banqi', 0, [null, null]), { color: '#b9ab95', turnColor: '#1565c0' });
  assert.deepEqual(seatColors('banqi', 0, ['black', 'red']), { color: '#1d1d1d', turnColor: '#1d1d1d' });
  assert.deepEqual(seatColors('banqi', 1, ['black', 'red']), { color: '#b3261e', turnColor: '#b3261e' });
});

test('table seats: a rating is written as it is, provisional with "?", after a rated game with its change', () => {
  assert.equal(ratingLine({ first: null, now: null, loading: true }), '');
  assert.equal(ratingLine({ first: 1500, now: 1500, loading: false, provisional: true }), '1500?');
  assert.equal(ratingLine({ first: 1500, now: 1512, loading: false }), '1512 (+12)');
  assert.equal(ratingLine({ first: 1600, now: 1588, loading: false, provisional: false }), '1588 (-12)');
  assert.equal(ratingLine({ first: 1500, now: 1512, loading: false, provisional: true }), '1512? (+12)');
});

test("table clocks: low under ten seconds, or under a tenth of a long game's time, at most a minute", () => {
  assert.equal(isLowTime(9999, 0), true, 'untimed or short: ten seconds');
  assert.equal(isLowTime(10000, 0), false);
  assert.equal(isLowTime(9999, 60000), true);
  assert.equal(isLowTime(10000, 60000), false);
  assert.equal(isLowTime(29999, 300000), true, 'five minutes: thirty seconds');
  assert.equal(isLowTime(30000, 300000), false);
  assert.equal(isLowTime(59999, 3600000), true, 'an hour: a minute');
  assert.equal(isLowTime(60000, 3600000), false);
});

test('table moves: two seats make rounds of two moves, the last round may be half', () => {
  assert.deepEqual(moveRows(0, 2, []), []);
  assert.deepEqual(moveRows(3, 2, []), [{ round: 1, plies: [1, 2] }, { round: 2, plies: [3] }]);
  // Black moves first (a set-up position): the first round's Red cell is empty
  assert.deepEqual(moveRows(3, 2, [], 1), [{ round: 1, plies: [null, 1] }, { round: 2, plies: [2, 3] }]);
});

test("table moves: a defeated sanguo kingdom ends the round, its defeat follows, its column stays empty", () => {
  // Wu (seat 1) falls at ply 4, Shu's second move: the round ends there, the defeat follows,
  // and the rounds go on with Wei and Shu, Wu's column empty
  const defeat = { seat: 1, reason: 'general-captured', heir: 0, ply: 4 };
  assert.deepEqual(moveRows(7, 3, [defeat]), [
    { round: 1, plies: [1, 2, 3] },
    { round: 2, plies: [4] },
    { defeat },
    { round: 3, plies: [null, null, 5] },
    { round: 4, plies: [6, null, 7] },
  ]);
});

test('table moves: the words of a sanguo defeat name who fell, why and who took the army', () => {
  setLang('es');
  assert.equal(defeatText({ seat: 1, reason: 'general-captured', heir: 0, ply: 4 }),
    'Wu cae (general capturado): su ejército pasa a Shu');
});

test('table chat: the seated talk among themselves, the spectators among themselves', () => {
  assert.equal(chatRoom(0), 'players');
  assert.equal(chatRoom(2), 'players');
  assert.equal(chatRoom(null), 'spectators');
});

test("table offers: a decline is kept until the next move or offer of its kind", () => {
  /** @type {any[]} */
  const events = [{ kind: 'draw_declined', seat: 1 }, { kind: 'takeback_declined', seat: 0 }, { kind: 'rematch_declined', seat: 1 }];
  const declined = followDeclines(NO_DECLINES, events);
  assert.deepEqual(declined, { draw: 1, takeback: 0, rematch: 1 });
  assert.deepEqual(NO_DECLINES, { draw: null, takeback: null, rematch: null }, 'the start is unchanged');
  assert.deepEqual(followDeclines(declined, [/** @type {any} */ ({ kind: 'moved', seat: 0, move: 'h2e2' })]), { draw: null, takeback: null, rematch: 1 });
  assert.deepEqual(followDeclines(declined, [/** @type {any} */ ({ kind: 'draw_offered', seat: 0 })]), { draw: null, takeback: 0, rematch: 1 });
  assert.deepEqual(followDeclines(declined, [/** @type {any} */ ({ kind: 'takeback_offered', seat: 1 })]), { draw: 1, takeback: null, rematch: 1 });
  assert.deepEqual(followDeclines(declined, [/** @type {any} */ ({ kind: 'taken_back' })]), { draw: 1, takeback: null, rematch: 1 });
  assert.deepEqual(followDeclines(declined, [/** @type {any} */ ({ kind: 'rematch_offered', seat: 0 })]), { draw: 1, takeback: 0, rematch: null });
  assert.deepEqual(followDeclines(NO_DECLINES, [{ kind: 'draw_declined', seat: 0 }, { kind: 'moved', seat: 0, move: 'h2e2' }, { kind: 'draw_declined', seat: 1 }].map((e) => /** @type {any} */ (e))),
    { draw: 1, takeback: null, rematch: null }, 'in order');
});

test("table actions: a new game fills the lobby's form with the table's options", () => {
  assert.deepEqual(newGameForm({ variant: 'xiangqi', time: { initial_ms: 300000, increment_ms: 3000 }, rated: true, no_capture_limit: 100, flag_bearers: null }),
    { variant: 'xiangqi', timed: true, minutes: 5, increment: 3, rated: true, limit: 100, flags: true, fen: null });
  assert.deepEqual(newGameForm({ variant: 'sanguo', time: null, rated: false, no_capture_limit: null, flag_bearers: false }),
    { variant: 'sanguo', timed: false, minutes: 10, increment: 5, rated: false, limit: 120, flags: false, fen: null });
});

test("table actions: a new game after the computer's fills the computer's card (issue 31)", () => {
  assert.deepEqual(newComputerForm({ variant: 'banqi', time: { initial_ms: 180000, increment_ms: 2000 }, rated: false, no_capture_limit: null, flag_bearers: null }, 8),
    { variant: 'banqi', level: 8, time: '3+2', fen: null });
  assert.deepEqual(newComputerForm({ variant: 'xiangqi', time: null, rated: false, no_capture_limit: null, flag_bearers: null }, 1),
    { variant: 'xiangqi', level: 1, time: 'none', fen: null });
  // a game from a set-up position: the next one starts there too
  const fen = '4k4/9/2c6/9/9/9/9/9/4A4/R2AK4 b - - 0 1';
  assert.deepEqual(newComputerForm({ variant: 'xiangqi', time: null, rated: false, no_capture_limit: 120, flag_bearers: null, fen }, 3),
    { variant: 'xiangqi', level: 3, time: 'none', fen });
});

test('table board: Black below for seat 1 unless turned; sanguo turns to the next kingdom', () => {
  assert.equal(blackBelow(1, false), true);
  assert.equal(blackBelow(0, false), false);
  assert.equal(blackBelow(null, false), false);
  assert.equal(blackBelow(0, true), true);
  assert.equal(blackBelow(1, true), false);
  assert.deepEqual([bottomKingdom(null, false), bottomKingdom(1, false), bottomKingdom(2, false), bottomKingdom(2, true)], [0, 1, 2, 0]);
});

test('invite: an open table shows its link to a seated player while a seat is free, and only then', () => {
  /**
   * @param {'open' | 'running' | 'ended'} phase
   * @param {number | null} you
   * @param {(object | null)[]} seats
   */
  const state = (phase, you, seats) => /** @type {any} */ ({ you, table: { phase, seats } });
  const p = { kind: 'person', id: 'a', name: 'A', account: false };
  assert.equal(invites(state('open', 1, [null, p])), true);
  assert.equal(invites(state('open', null, [null, p])), false, 'a spectator has nobody to invite');
  assert.equal(invites(state('open', 0, [p, p])), false, 'every seat taken');
  assert.equal(invites(state('running', 0, [p, null])), false);
  assert.equal(invites(state('ended', 0, [p, null])), false);
  assert.equal(invites(state('open', 0, [p, null, null])), true, 'sanguo with two seats free');
  assert.equal(invites(null), false);
});

// sanguo marks each kingdom's own last move (issue 31): after two computer replies in a row, the
// first is still marked; a defeated kingdom's old move is not
test('board: sanguo marks the last move of every kingdom still playing, oldest first', () => {
  const moves = ['Ra3-Ra4', 'Ga3-Ga4', 'Ba3-Ba4', 'Rb3-Rb4'];
  assert.deepEqual(lastMovesBySeat(moves, 4, []), [
    { seat: 1, squares: ['Ga3', 'Ga4'] }, { seat: 2, squares: ['Ba3', 'Ba4'] }, { seat: 0, squares: ['Rb3', 'Rb4'] },
  ]);
  assert.deepEqual(lastMovesBySeat(moves, 2, []), [{ seat: 0, squares: ['Ra3', 'Ra4'] }, { seat: 1, squares: ['Ga3', 'Ga4'] }]);
  const defeats = [{ seat: 1, reason: 'general-captured', heir: 2, ply: 3 }];
  assert.deepEqual(lastMovesBySeat(moves, 4, defeats), [{ seat: 2, squares: ['Ba3', 'Ba4'] }, { seat: 0, squares: ['Rb3', 'Rb4'] }]);
  assert.deepEqual(lastMovesBySeat(moves, 0, []), []);
});

test('analysis: banqi chances as board labels, percentages and piece names; sanguo list cells', () => {
  setLang('es');
  const down = { squares: ['a4', 'b4'], pieces: [{ piece: 'P', count: 1, probability: 0.5 }, { piece: 'r', count: 1, probability: 0.5 }] };
  const labels = chanceLabels(down);
  assert.deepEqual([...labels.keys()], ['a4', 'b4']);
  assert.deepEqual(labels.get('a4'), { piece: 'P', text: '50%', title: 'a4: Soldado rojo 50% · Carro negro 50%' });
  assert.equal(chanceLabels(undefined).size, 0);
  assert.equal(percent(5 / 32), '16%');
  assert.equal(percent(0.004), '<1%');
  assert.equal(percent(0), '0%');
  assert.equal(banqiMoveText('flip c2'), 'voltear c2');
  assert.equal(banqiMoveText('c2-c3'), 'c2-c3');
  setLang('en');
  assert.equal(pieceName('K'), 'Red General');
  assert.equal(banqiMoveText('flip c2'), 'flip c2');
  setLang('zh');
  assert.equal(pieceName('c'), '黑炮');
  const cell = { ply: 2, fen: '', played: 'Gh3-Gh4', eval: null, line: [], line_text: [], depth: 3, nodes: 9, outcome: null,
    kingdoms: [{ kingdom: 'shu', eval: { cp: 904 }, depth: 3 }, { kingdom: 'wu', eval: { cp: -450 }, depth: 3 }, { kingdom: 'wei', eval: null, depth: 0 }] };
  assert.equal(sanguoCellText(/** @type {any} */ (cell)), '-4.50');
  assert.equal(sanguoCellText(null), '…');
  // a banqi flip that turned out badly is chance, not a blunder; the same drop by a step is one
  const at = (/** @type {string} */ fen, /** @type {string | null} */ played, /** @type {number} */ cp) => /** @type {any} */ ({ ply: 0, fen, played, eval: { cp }, line: [], line_text: [], depth: 1, nodes: 1, outcome: null });
  assert.equal(judgementAt([at('8/8/8/8 r Pp 0', null, 300), at('8/8/8/8 b Pp 0', 'a3=A', -400)], 1), null);
  assert.equal(judgementAt([at('8/8/8/8 r Pp 0', null, 300), at('8/8/8/8 b Pp 0', 'a3-a2', -400)], 1), 'blunder');
  setLang('es');
});

test('tournaments: countdowns, clocks and the refusals in the page language', () => {
  assert.equal(countdownText(5200), '0:06');
  assert.equal(countdownText(0), '0:00');
  assert.equal(countdownText(-300), '0:00');
  assert.equal(countdownText(61000), '1:01');
  assert.equal(countdownText(3723000), '1:02:03');
  assert.equal(tourClockText({ limit: 180, increment: 2 }), '3+2');
  assert.equal(tourClockText({ limit: 15, increment: 0 }), '15s+0');
  assert.equal(tourClockText({ limit: 90, increment: 1 }), '1.5+1');
  setLang('es');
  // lichess's routes put the words in `error`, which the client reads as the code
  assert.equal(serverErrorText('the tournament is over', 'Bad Request'), 'El torneo ha terminado');
  assert.equal(serverErrorText('not_allowed', 'you have already gone berserk'), 'Ya estás en berserk');
});

test('berserk: a berserked event adds its seat to the state', () => {
  const state = JSON.parse(readFileSync(join(fixtures, 'server.state.json'), 'utf8'));
  const event = read('server.event.berserked.json');
  const update = {
    type: 'update', version: state.version + 1, events: [{ version: state.version + 1, event: event.event }],
    you: state.you, phase: 'running', to_move: state.to_move, check: [], clocks: state.clocks,
    draw_offer: null, legal_moves: state.legal_moves, capture_moves: [],
  };
  const next = applyUpdate(state, /** @type {any} */ (update));
  assert.deepEqual(next?.berserks, [1]);
  assert.deepEqual(state.berserks, undefined);
});

// The puzzle page's words and numbers (puzzle.js)

test('puzzle: every theme of the filter has a name in es, en and zh, and the words are shown', () => {
  for (const l of LANGS) {
    setLang(l);
    for (const k of PUZZLE_THEMES) {
      assert.ok(keys().includes(`puzzle.theme.${k}`), `puzzle.theme.${k}`);
      assert.notEqual(themeName(k), k, `${k} in ${l}`);
    }
  }
  setLang('es');
  assert.equal(themeName('mateIn2'), 'Mate en 2');
  assert.equal(themeName('someNewTheme'), 'someNewTheme');
  setLang('zh');
  assert.equal(themeName('cannonScreen'), '炮架');
  setLang('en');
  assert.equal(t('puzzle.rating_now', { rating: '1512', diff: diffText(12) }), 'Your rating: 1512 (+12)');
  assert.equal(diffText(-7), '−7');
  assert.equal(diffText(0), '±0');
  assert.equal(blackToMove('2b1ka3/3RaR1c1/4b4/p6Cp/2p1N4/7n1/Pr2P1r1P/B1N1B4/1c2A4/3AK4 b - - 4 25'), true);
  assert.equal(blackToMove('2b1ka3/3RaR1c1/4b4/pr5Cp/2p1N4/7n1/P3P1r1P/B1N1B4/1c2A4/3AK4 w - - 5 26'), false);
});
