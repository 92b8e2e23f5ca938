// Browser-side code checked in Node: the protocol fixtures of tests/data/protocol parse with the
// client's readers, the board readers and drawing coordinates give the spec's figures, and the
// message catalogue is complete in es, en and zh.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyUpdate, generalSquares, moveEnds, pgnMoves, readBanqiView, readPool, readSanguoPosition, readServerMessage, readXiangqiFen,
  sanguoCoords,
} from '../../web/js/protocol.js';
import { LANGS, chooseLang, keys, t } from '../../web/js/i18n.js';
import { RULES_CATALOGUE } from '../../web/js/i18n-rules.js';
import { SYMBOLS, kindOf } from '../../web/js/boards.js';
import { Selection } from '../../web/js/select.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const bqText = () => JSON.parse(readFileSync(join(root, 'tests/data/protocol/server.state.banqi.json'), 'utf8')).board.view;
let checks = 0;

// 1. every server fixture parses; every moved event's move has two ends
const fixtures = join(root, 'tests/data/protocol');
for (const name of readdirSync(fixtures).filter((n) => n.startsWith('server.')).sort()) {
  const msg = readServerMessage(readFileSync(join(fixtures, name), 'utf8'));
  assert.equal(msg.type, name.split('.')[1], name);
  if (msg.type === 'event' && msg.event.kind === 'moved') moveEnds(msg.event.move);
  if (msg.type === 'update') {
    for (const m of [...msg.legal_moves, ...msg.events.flatMap((e) => e.event.kind === 'moved' ? [e.event.move] : [])]) moveEnds(m);
    for (const m of msg.capture_moves) assert.ok(msg.legal_moves.includes(m), `${name}: ${m} is a legal move`);
    // a board comes with a move and only then
    assert.equal(!!msg.board, msg.events.some((e) => e.event.kind === 'moved'), `${name}: board with a move`);
  }
  if (msg.type === 'state') {
    for (const m of [...msg.legal_moves, ...msg.board.moves]) moveEnds(m);
    // the facts the client reads instead of keeping copies: which moves capture, whether the
    // variant has draw offers, and the seat count (the length of the table's seats)
    for (const m of msg.capture_moves) assert.ok(msg.legal_moves.includes(m), `${name}: ${m} is a legal move`);
    assert.equal(msg.draw_offers, msg.table.options.variant !== 'sanguo', `${name}: draw_offers`);
    assert.equal(msg.connected.length, msg.table.seats.length, `${name}: one entry per seat`);
  }
  checks++;
}

// 1b. an update applies to the state it follows (events copied, the move appended, the fields
// replaced), and one that does not follow gives null (the client then asks `sync`)
{
  const read = (/** @type {string} */ n) => JSON.parse(readFileSync(join(fixtures, n), 'utf8'));
  const before = read('server.state.json');
  const update = read('server.update.json');
  const after = applyUpdate(before, update);
  assert.ok(after);
  assert.equal(after.version, 8);
  assert.equal(after.table.version, 8);
  assert.deepEqual(after.board.moves, ['h2e2', 'h9g7']);
  assert.equal(after.board.fen, update.board.fen);
  assert.equal(after.to_move, 0);
  assert.deepEqual(after.legal_moves, []);
  assert.deepEqual(after.clocks, update.clocks);
  assert.deepEqual(before.board.moves, ['h2e2'], 'the state it came from is unchanged');
  assert.equal(applyUpdate(after, update), null, 'the same update twice is a gap');
  assert.equal(applyUpdate(before, { ...update, version: 9, events: [{ ...update.events[0], version: 9 }] }), null);
  const banqi = applyUpdate(read('server.state.banqi.json'), read('server.update.banqi.json'));
  assert.ok(banqi);
  assert.deepEqual(banqi.board.moves, ['c2=R', 'd3=c']);
  assert.equal(banqi.board.view, read('server.update.banqi.json').board.view);
  assert.deepEqual(banqi.legal_moves, read('server.update.banqi.json').legal_moves);
  assert.equal(applyUpdate(read('server.state.banqi.json'), read('server.update.json')), null, 'a board of another variant');
  checks++;
}
const state = JSON.parse(readFileSync(join(fixtures, 'server.state.json'), 'utf8'));
const xq = readXiangqiFen(state.board.fen);
assert.deepEqual(xq.board[2][4], { color: 'r', kind: 'c' }, 'h2e2 put the Red cannon on e2');
assert.equal(xq.board[2][7], null);
assert.deepEqual(xq.board[9][4], { color: 'b', kind: 'k' });
assert.equal(xq.turn, 'b');
const bq = readBanqiView(JSON.parse(readFileSync(join(fixtures, 'server.state.banqi.json'), 'utf8')).board.view);
assert.deepEqual(bq.board[1][2], { down: false, kind: 'R' }, 'c2 shows the flipped chariot');
assert.equal(bq.board.flat().filter((s) => s?.down).length, 31);
const sg = readSanguoPosition(JSON.parse(readFileSync(join(fixtures, 'server.state.sanguo.json'), 'utf8')).board.position);
assert.equal(sg.pieces.size, 3 * 18);
assert.deepEqual(sg.pieces.get('Re1'), { owner: 0, kind: 'K', origin: 0 });
assert.deepEqual(sg.pieces.get('Gd3'), { owner: 1, kind: 'F', origin: 1 });
assert.equal(sg.toMove, 1);
assert.deepEqual(readSanguoPosition('9/9/9/9/4rK~g4,9/9/9/9/9,9/9/9/9/9 R - GB 0 0').pieces.get('Re1'), { owner: 0, kind: 'K', origin: 1 });
assert.deepEqual(pgnMoves('[Game "Chinese Chess"]\n[Format "WXF"]\n\n1. C2.5 H8+7\n2. H2+3 R9.8 {a comment}\n3. R1.2+\n*\n'),
  ['C2.5', 'H8+7', 'H2+3', 'R9.8', 'R1.2']);
assert.deepEqual(pgnMoves('[Red "?"]\n\n1. 炮二平五 马8进7\n2. 马二进三\n1-0\n'), ['炮二平五', '马8进7', '马二进三']);
assert.deepEqual(moveEnds('flip c2'), { from: 'c2', to: 'c2', flip: true });
assert.deepEqual(moveEnds('c2=R'), { from: 'c2', to: 'c2', flip: true });
assert.deepEqual(moveEnds('Ra1xRd1'), { from: 'Ra1', to: 'Rd1', flip: false });
assert.deepEqual(moveEnds('h2e2'), { from: 'h2', to: 'e2', flip: false });
assert.throws(() => moveEnds('h2-e2x'));
// the check mark: the server names the seats, the client finds their Generals on the board
const checkState = JSON.parse(readFileSync(join(fixtures, 'server.state.check.json'), 'utf8'));
assert.deepEqual(checkState.check, [0]);
assert.deepEqual(generalSquares('xiangqi', checkState.board.fen, checkState.check), ['e0']);
assert.deepEqual(generalSquares('xiangqi', checkState.board.fen, [0, 1]), ['e0', 'e9']);
assert.deepEqual(generalSquares('xiangqi', state.board.fen, state.check), []);
const sanguoText = '9/4rP4/9/9/4rK4,9/4gP4/4rR4/9/4gK4,9/4bP4/4rR4/9/4bK4 G R - - 0';
assert.deepEqual(generalSquares('sanguo', sanguoText, [1, 2]), ['Be1', 'Ge1']);
assert.deepEqual(generalSquares('banqi', bqText(), [0]), []);
// banqi's captured pieces, by colour in the server's (rank) order
assert.deepEqual(readPool('-'), { red: [], black: [] });
assert.deepEqual(readPool('RPPc'), { red: ['R', 'P', 'P'], black: ['c'] });
assert.throws(() => readPool('RX'));
assert.equal(JSON.parse(readFileSync(join(fixtures, 'server.state.banqi.json'), 'utf8')).board.captured, '-');
// the positions of a game and the finished-games page
const positions = JSON.parse(readFileSync(join(fixtures, 'http.positions.json'), 'utf8'));
assert.equal(positions.positions.length, positions.moves.length + 1);
for (const p of positions.positions) readBanqiView(p.position);
assert.deepEqual(positions.positions.map((/** @type {any} */ p) => p.captured), ['-', '-', '-', 'p']);
assert.deepEqual(readPool(positions.positions[3].captured).black, ['p']);
const page = JSON.parse(readFileSync(join(fixtures, 'http.finished_page.json'), 'utf8'));
assert.equal(page.next, page.games[page.games.length - 1].id);
for (const g of page.games) assert.equal(g.seats.length, g.options.variant === 'sanguo' ? 3 : 2);
assert.throws(() => readXiangqiFen('rnbakabnr/9 w'));
checks++;

// 2. sanguo drawing coordinates: the samples of spec/sanguo.md §9
const samples = [
  [0, 4, 1, 0, -6.6], [0, 0, 1, -4, -6.6], [0, 8, 1, 4, -6.6], [0, 0, 5, -3.464, -2.577],
  [0, 4, 5, 0, -0.577], [1, 4, 5, 0.5, 0.289], [2, 4, 5, -0.5, 0.289], [1, 0, 1, 7.716, -0.164],
  [1, 8, 1, 3.716, 6.764], [2, 8, 1, -7.716, -0.164],
];
for (const [k, f, r, x, y] of samples) {
  const [cx, cy] = sanguoCoords(k, f, r);
  assert.ok(Math.abs(cx - x) < 0.001 && Math.abs(cy - y) < 0.001, `${k} ${f} ${r}: ${cx} ${cy}`);
}
// every rung has length 1 (spec §9)
for (let k = 0; k < 3; k++) {
  for (let f = 4; f <= 8; f++) {
    const [ax, ay] = sanguoCoords(k, f, 5);
    const [bx, by] = sanguoCoords((k + 1) % 3, 8 - f, 5);
    assert.ok(Math.abs(Math.hypot(ax - bx, ay - by) - 1) < 1e-9, `rung ${k} ${f}`);
  }
}
checks++;

// 3. the catalogue: every key in every language, every end reason of chuhe-rules, every key the
// pages name
for (const key of keys()) {
  for (const l of LANGS) assert.ok(t(key, {}, l).length > 0 && t(key, {}, l) !== key, `${key} ${l}`);
}
const outcome = readFileSync(join(root, 'crates/chuhe-rules/src/outcome.rs'), 'utf8');
const reasons = [...outcome.matchAll(/EndReason::\w+ => "([a-z-]+)"/g)].map((m) => m[1]);
assert.ok(reasons.length >= 15, 'the end reasons of outcome.rs were found');
for (const r of reasons) assert.ok(keys().includes(`reason.${r}`), `reason.${r} is in the catalogue`);
for (const file of ['app.js', 'lobby.js', 'table-view.js', 'format.js', 'player.js', 'analysis.js']) {
  const text = readFileSync(join(root, 'web/js', file), 'utf8');
  const named = [...text.matchAll(/\bt\('([a-z_.]+)'/g)].map((m) => m[1]);
  assert.ok(named.length > 5, `${file} names ${named.length} keys`);
  for (const key of named) assert.ok(keys().includes(key), `${key} (${file}) is in the catalogue`);
}
for (const v of ['xiangqi', 'sanguo', 'banqi']) assert.ok(keys().includes(`variant.${v}`));
for (const p of ['chinese', 'western', 'symbols']) assert.ok(keys().includes(`pieces.${p}`));
for (const c of ['red', 'black']) assert.ok(keys().includes(`banqi.lost_${c}`));
assert.equal(t('result.wins', { who: 'Rojo' }, 'es'), 'Gana Rojo');
assert.equal(t('result.wins', { who: '红方' }, 'zh'), '红方胜');
assert.equal(chooseLang(['zh-CN', 'en'], null), 'zh');
assert.equal(chooseLang(['fr-FR', 'en-GB'], null), 'en');
assert.equal(chooseLang(['fr-FR'], null), 'es');
assert.equal(chooseLang(['en-US'], 'es'), 'es');
checks++;

// 4. the rules pages: their texts are in the one catalogue (not shadowed by another entry), and
// every catalogue key rules.js names exists
for (const [key, texts] of Object.entries(RULES_CATALOGUE)) {
  assert.ok(key.startsWith('rules.'), `${key} starts with rules.`);
  LANGS.forEach((l, i) => assert.equal(t(key, {}, l), texts[i], `${key} ${l} comes from i18n-rules.js`));
}
const rules = readFileSync(join(root, 'web/js/rules.js'), 'utf8');
const named = [...rules.matchAll(/'(rules\.[a-z_.]+)'/g)].map((m) => m[1]);
assert.ok(named.length > 60, `rules.js names ${named.length} keys`);
for (const key of named) assert.ok(keys().includes(key), `${key} is in the catalogue`);
for (const m of rules.matchAll(/\bt\('([a-z_.]+)'/g)) assert.ok(keys().includes(m[1]), `${m[1]} is in the catalogue`);
for (const v of ['xiangqi', 'sanguo', 'banqi']) assert.ok(keys().includes(`rules.title.${v}`));
assert.equal(t('rules.to_move', { side: t('winner.black', {}, 'es') }, 'es'), 'Juega Negro');
checks++;

// 4b. the perpetual chase (spec/xiangqi.md §6.4) in every language: a Horse or Cannon chasing a
// protected Chariot counts; General and Soldier threats, Soldiers on their own side and exchange
// offers do not
const chase = {
  es: ['Caballo o un Cañón que persigue a un Carro', 'aunque el Carro esté defendido', 'del General y de los Soldados', 'Soldado que no ha cruzado el río', 'ofrecimiento de cambio'],
  en: ['Horse or Cannon chasing a Chariot', 'even when the Chariot is defended', 'by a General or a Soldier', 'Soldier that has not crossed the river', 'offer to exchange'],
  zh: ['马或炮捉车', '即使车有保护也算捉', '帅（将）和兵（卒）的威胁', '未过河的兵（卒）', '兑子'],
};
for (const l of LANGS) {
  for (const part of chase[l]) assert.ok(t('rules.xq.draws.p1', {}, l).includes(part), `${l} perpetual chase says ${part}`);
}
assert.equal(t('lobby.rated_needs_account', {}, 'en'), 'Rated games need an account.');
checks++;

// 5. the symbols: one per kind of piece, named by every piece letter of the three games, painted
// only with the side's colour (ink) and the disc's (paper), so that the colour says the side only
const kinds = ['general', 'advisor', 'elephant', 'horse', 'chariot', 'cannon', 'soldier', 'flag'];
assert.deepEqual(Object.keys(SYMBOLS), kinds);
assert.deepEqual([...'kabnrcp'].map(kindOf), kinds.slice(0, 7), 'FEN letters');
assert.deepEqual([...'KAEHRCP'].map(kindOf), kinds.slice(0, 7), 'banqi letters');
assert.deepEqual([...'kaehrcp'].map(kindOf), kinds.slice(0, 7), 'banqi letters of Black');
assert.equal(kindOf('F'), 'flag', 'the sanguo flag bearer');
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
checks++;

// 6. choosing a move (select.js), as the table and the rules diagrams do: a pick selects a piece
// that has moves, a pick or a drop on a target chooses that move, a pick on a face-down disc flips
// it; the targets say which moves capture from the server's list
{
  const table = new Selection({ toggle: true });
  table.setMoves(['b2b9', 'h0g2', 'h2e2', 'h2h9'], ['b2b9', 'h2h9']);
  assert.equal(table.pick('e5'), null, 'nothing moves from an empty point');
  assert.equal(table.selected, null);
  assert.equal(table.pick('h2'), null);
  assert.equal(table.selected, 'h2');
  assert.deepEqual([...table.targets()], [['e2', false], ['h9', true]]);
  assert.equal(table.pick('h2'), null);
  assert.equal(table.selected, null, 'the table: a second pick of the piece lets it go');
  table.pick('h2');
  assert.equal(table.pick('h0'), null);
  assert.equal(table.selected, 'h0', 'a pick on another piece selects that one');
  assert.equal(table.pick('g2'), 'h0g2', 'a pick on a target chooses the move');
  assert.equal(table.selected, null);
  assert.deepEqual([...table.targets()], []);
  // drag and drop: released over its own point or a point that is no target, nothing happens
  table.pick('b2');
  assert.equal(table.drop('b2'), null);
  assert.equal(table.drop('c5'), null);
  assert.equal(table.selected, 'b2');
  assert.equal(table.drop('b9'), 'b2b9');
  assert.equal(table.selected, null);
  // a new position lets go of a piece that no longer moves, and keeps one that does
  table.pick('h2');
  table.setMoves(['h2e2', 'a0a1']);
  assert.equal(table.selected, 'h2');
  table.setMoves(['a0a1']);
  assert.equal(table.selected, null);
  // nothing to choose among (a spectator, the other seat's turn): no pick selects anything
  table.setMoves([]);
  assert.equal(table.pick('a0'), null);
  assert.equal(table.selected, null);

  // a rules diagram: the caption's piece starts selected and a second pick keeps it
  const diagram = new Selection({ selected: 'e4' });
  diagram.setMoves(['e4d6', 'e4f6', 'd0d1']);
  assert.deepEqual([...diagram.targets().keys()], ['d6', 'f6']);
  assert.equal(diagram.pick('e4'), null);
  assert.equal(diagram.selected, 'e4');
  diagram.select('d0');
  assert.deepEqual([...diagram.targets().keys()], ['d1']);

  // banqi: a flip is one pick, captures come from the server's list
  const banqi = new Selection({ toggle: true });
  banqi.setMoves(['b3-b4', 'b3xc3', 'flip c1'], ['b3xc3']);
  assert.equal(banqi.pick('c1'), 'flip c1');
  assert.equal(banqi.pick('b3'), null);
  assert.deepEqual([...banqi.targets()], [['b4', false], ['c3', true]]);
  assert.equal(banqi.pick('c3'), 'b3xc3');

  // sanguo: the point names of the three halves
  const sanguo = new Selection({ toggle: true });
  sanguo.setMoves(['Ga1-Ga2', 'Ga1xRa3']);
  sanguo.pick('Ga1');
  assert.deepEqual([...sanguo.targets()], [['Ga2', false], ['Ra3', false]], 'only the server says what captures');
  assert.equal(sanguo.drop('Ra3'), 'Ga1xRa3');
}
checks++;

// 7. the result lines name the loser's fault (issue 17): the side that gave perpetual check,
// resigned, ran out of time or left; the winner's rule stays as it was; server refusals in the
// page's language, never the server's English words
{
  const { resultLine, serverErrorText } = await import('../../web/js/format.js');
  const { setLang } = await import('../../web/js/i18n.js');
  const lines = {
    es: ['Gana Negro · Rojo dio jaque perpetuo', 'Gana Rojo · Negro dejó la partida', 'Gana Negro · por jaque mate',
      'Ganan Shu y Wei · Wu se quedó sin tiempo', 'Gana Segundo asiento · Primer asiento se rindió', 'Tablas · de mutuo acuerdo',
      'Eso no se puede hacer ahora', 'La partida ya ha terminado'],
    en: ['Black wins · Red gave perpetual check', 'Red wins · Black left the game', 'Black wins · by checkmate',
      'Shu and Wei win · Wu ran out of time', 'Second seat wins · First seat resigned', 'Draw · by agreement',
      'That cannot be done now', 'The game has ended'],
    zh: ['黑方胜 · 红方长将', '红方胜 · 黑方离开了对局', '黑方胜 · 将死', '蜀和魏胜 · 吴超时', '后手胜 · 先手认输', '和棋 · 双方议和',
      '现在不能这样做', '对局已结束'],
  };
  for (const l of /** @type {const} */ (['es', 'en', 'zh'])) {
    setLang(l);
    const got = [
      resultLine('xiangqi', { winners: ['black'], reason: 'perpetual-check' }, [1]),
      resultLine('xiangqi', { winners: ['red'], reason: 'abandonment' }, [0]),
      resultLine('xiangqi', { winners: ['black'], reason: 'checkmate' }, [1]),
      resultLine('sanguo', { winners: ['shu', 'wei'], reason: 'timeout' }, [0, 2]),
      resultLine('banqi', { winners: [], reason: 'resignation' }, [1]),
      resultLine('xiangqi', { winners: [], reason: 'agreement' }, []),
      serverErrorText('not_allowed', 'some words the client does not know'),
      serverErrorText('not_allowed', 'the game has ended'),
    ];
    assert.deepEqual(got, lines[l], l);
  }
  setLang('es');
}
checks++;

// the analysis board's evaluation as written (Red's view, in soldiers) and the bar's share
{
  const { evalText, redShare } = await import('../../web/js/analysis.js');
  assert.deepEqual(
    [{ cp: 58 }, { cp: -120 }, { cp: 0 }, { mate: 3 }, { mate: -2 }, null].map(evalText),
    ['+0.58', '-1.20', '0.00', '#3', '#-2', '–'],
  );
  assert.deepEqual([{ mate: 1 }, { mate: -1 }, { cp: 0 }, null].map(redShare), [100, 0, 50, 50]);
  assert.ok(redShare({ cp: 300 }) > 70 && redShare({ cp: 300 }) < 80);
  assert.ok(Math.abs(redShare({ cp: -300 }) + redShare({ cp: 300 }) - 100) < 1e-9);
}
checks++;

console.log(`unit: ${checks} groups of checks passed`);
