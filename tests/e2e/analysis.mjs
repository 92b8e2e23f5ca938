// Browser checks of the analysis board (issue 17), in Spanish: after a short xiangqi game
// between two people, "Analizar la partida" opens the engine's evaluation of every position (the
// move list with an evaluation per move, the number, the bar, the best line; a click on a move
// shows its position); from the header's link, a FEN with a mate in one gives "#1" and the
// mating move first in the line, in the page's notation. Screenshots at desktop and phone width.
// Called by browser.mjs (and alone by one.mjs).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enter } from './enter.mjs';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/**
 * A page of a new Spanish context with the test hooks, as the guest `name`.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} name
 * @param {{width: number, height: number}} viewport
 */
async function guest(b, base, name, viewport) {
  const ctx = await b.newContext({ locale: 'es-ES', viewport });
  await ctx.addInitScript(() => { /** @type {any} */ (window).chuheTest = {}; });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (${name}): ${e.message}`); });
  await page.goto(`${base}/`);
  await enter(page, name);
  return page;
}

/** @param {import('playwright-core').Page} page */
async function analysed(page) {
  await page.waitForFunction(() => {
    const a = /** @type {any} */ (window).chuheTest.analysis;
    return a && !a.loading && a.evals.every((/** @type {any} */ e) => e !== null);
  }, null, { timeout: 60000 });
  return page.evaluate(() => /** @type {any} */ (window).chuheTest.analysis.evals);
}

/**
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function analysisChecks(b, base, shots) {
  const ana = await guest(b, base, 'Ana', DESKTOP);
  const beto = await guest(b, base, 'Beto', DESKTOP);
  await ana.selectOption('#variant', 'xiangqi');
  await ana.check('#untimed');
  await ana.selectOption('#seat', '0');
  await ana.click('#create');
  await ana.waitForURL(/#\/t\/[a-z0-9]+$/);
  const id = ana.url().split('/').pop();
  await beto.goto(`${base}/#/t/${id}`);
  await beto.click('[data-sit="1"]');
  for (const [p, from, to] of /** @type {const} */ ([[ana, 'h2', 'e2'], [beto, 'h9', 'g7'], [ana, 'b0', 'c2'], [beto, 'b9', 'c7']])) {
    await p.waitForSelector('#status.yours');
    await p.click(`[data-square="${from}"]`);
    await p.click(`[data-square="${to}"]`);
  }
  await ana.waitForSelector('#moves .mv[data-ply="4"]');
  ana.once('dialog', (d) => d.accept());
  await ana.click('#resign');
  await ana.waitForSelector('#result');
  // a second game, where Red's Cannon takes a Soldier and is lost to the Horse: a blunder
  await ana.goto(`${base}/#/`);
  await ana.reload();
  await ana.waitForSelector('#create');
  await ana.selectOption('#variant', 'xiangqi');
  await ana.check('#untimed');
  await ana.selectOption('#seat', '0');
  await ana.click('#create');
  await ana.waitForURL(/#\/t\/[a-z0-9]+$/);
  const blunderId = /** @type {string} */ (ana.url().split('/').pop());
  await beto.goto(`${base}/#/t/${blunderId}`);
  await beto.click('[data-sit="1"]');
  for (const [p, from, to] of /** @type {const} */ ([[ana, 'h2', 'e2'], [beto, 'h9', 'g7'], [ana, 'e2', 'e6'], [beto, 'g7', 'e6']])) {
    await p.waitForSelector('#status.yours');
    await p.click(`[data-square="${from}"]`);
    await p.click(`[data-square="${to}"]`);
  }
  await ana.waitForSelector('#moves .mv[data-ply="4"]');
  ana.once('dialog', (d) => d.accept());
  await ana.click('#resign');
  await ana.waitForSelector('#result');
  await beto.context().close();
  await ana.goto(`${base}/#/t/${id}`);
  await ana.waitForSelector('#result');

  // after the game: its five positions, each with an evaluation
  assert.equal(await ana.textContent('#analyse'), 'Analizar la partida');
  await ana.click('#analyse');
  await ana.waitForURL(`${base}/#/analysis/t/${id}`);
  const evals = await analysed(ana);
  assert.equal(evals.length, 5);
  assert.deepEqual(evals.map((/** @type {any} */ e) => e.played), [null, 'h2e2', 'h9g7', 'b0c2', 'b9c7']);
  for (const e of evals) {
    assert.ok(Number.isInteger(e.eval.cp), JSON.stringify(e));
    assert.ok(Math.abs(e.eval.cp) < 150, `about level: ${e.eval.cp}`);
    assert.ok(e.line.length >= 2, JSON.stringify(e));
  }
  assert.equal(await ana.textContent('#analysis-source'), `La partida de la mesa ${id}`);
  assert.equal(await ana.locator('#analysis-moves .amv').count(), 4);
  // the last position is shown first: its number, its line
  assert.equal(await ana.textContent('#a-ply'), 'Jugada 4 de 4');
  const last = evals[4];
  const shown = (last.eval.cp / 100).toFixed(2);
  assert.equal(await ana.textContent('#eval'), last.eval.cp > 0 ? `+${shown}` : last.eval.cp === 0 ? '0.00' : shown);
  assert.equal(await ana.textContent('#best-line'), last.line.join(' '));
  const width = await ana.evaluate(() => /** @type {HTMLElement} */ (document.querySelector('.eval-red')).style.width);
  assert.match(width, /^\d+(\.\d)?%$/);
  // a click on Red's first move shows the position after it, with the answer the engine prefers
  await ana.click('#analysis-moves .amv[data-ply="1"]');
  assert.equal(await ana.textContent('#a-ply'), 'Jugada 1 de 4');
  assert.equal(await ana.textContent('#best-line'), evals[1].line.join(' '));
  assert.equal(await ana.locator('.analysis-moves .amv.current[data-ply="1"]').count(), 1);
  await ana.screenshot({ path: join(shots, 'analysis-game.png') });
  // the arrow keys step through the game, Home and End go to its ends (issue 31 item 7)
  await ana.keyboard.press('Home');
  assert.equal(await ana.textContent('#a-ply'), 'Posición inicial');
  await ana.keyboard.press('ArrowRight');
  await ana.keyboard.press('ArrowRight');
  assert.equal(await ana.textContent('#a-ply'), 'Jugada 2 de 4');
  assert.equal(await ana.textContent('#best-line'), evals[2].line.join(' '));
  await ana.keyboard.press('ArrowLeft');
  assert.equal(await ana.textContent('#a-ply'), 'Jugada 1 de 4');
  await ana.keyboard.press('End');
  assert.equal(await ana.textContent('#a-ply'), 'Jugada 4 de 4');
  await ana.keyboard.press('ArrowRight');
  assert.equal(await ana.textContent('#a-ply'), 'Jugada 4 de 4');
  // the graph over the game: a point per ply, the shown ply marked, a click goes to a ply
  assert.equal(await ana.getAttribute('#graph-ply', 'data-ply'), '4');
  const graph = await ana.locator('#eval-graph').boundingBox();
  assert.ok(graph && graph.width > 200, JSON.stringify(graph));
  await ana.locator('#eval-graph').click({ position: { x: 2, y: graph.height / 2 } });
  assert.equal(await ana.textContent('#a-ply'), 'Posición inicial');
  await ana.locator('#eval-graph').click({ position: { x: graph.width / 2, y: graph.height / 2 } });
  assert.equal(await ana.textContent('#a-ply'), 'Jugada 2 de 4');
  assert.equal(await ana.getAttribute('#graph-ply', 'data-ply'), '2');
  // in WXF the move list and the line follow the page's notation
  await ana.selectOption('#notation', 'wxf');
  const wxf = await analysed(ana);
  assert.deepEqual(wxf.map((/** @type {any} */ e) => e.played), [null, 'C2.5', 'H8+7', 'H8+7', 'H2+3']);
  assert.equal(await ana.textContent('#analysis-moves .amv[data-ply="1"] .amv-text'), 'C2.5');
  await ana.selectOption('#notation', 'iccs');
  await analysed(ana);
  // the blunder is marked on the move list and the graph, with the engine's better move
  await ana.evaluate(() => { delete /** @type {any} */ (window).chuheTest.analysis; });
  await ana.goto(`${base}/#/analysis/t/${blunderId}`);
  const judged = await analysed(ana);
  assert.ok(judged[3].eval.cp < -300, `the Cannon is lost: ${JSON.stringify(judged.map((/** @type {any} */ e) => [e.played, e.eval]))}`);
  assert.equal(await ana.getAttribute('#analysis-moves .amv[data-ply="3"]', 'data-judgement'), 'blunder');
  assert.equal(await ana.textContent('#analysis-moves .amv[data-ply="3"] .amv-glyph'), '??');
  assert.equal(await ana.locator('#eval-graph .graph-blunder').count(), 1);
  await ana.click('#analysis-moves .amv[data-ply="3"]');
  assert.equal(await ana.textContent('#advice'), `Error grave: mejor era ${judged[2].line_text[0]}`);
  await ana.context().close();
  await screenshots(b, base, shots, blunderId);
  console.log('ok after a game, the analysis board evaluates its five positions and shows each; the arrow keys and the graph step through it');

  // from the header's link, a FEN: a mate in one
  const lu = await guest(b, base, 'Lu', PHONE);
  await lu.click('#nav-analysis');
  await lu.waitForURL(`${base}/#/analysis`);
  await analysed(lu);
  await lu.fill('#fen-input', '3k5/1R7/9/9/9/9/9/9/9/4K2R1 w');
  await lu.click('#fen-go');
  await lu.waitForFunction(() => document.querySelector('#eval')?.textContent === '#1');
  assert.equal((await lu.textContent('#best-line'))?.split(' ')[0], 'h0h9');
  assert.equal(await lu.textContent('#analysis-source'), 'La posición introducida');
  assert.equal(await lu.evaluate(() => /** @type {HTMLElement} */ (document.querySelector('.eval-red')).style.width), '100%');
  const wide = await lu.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `the page is ${wide} px wide at 390`);
  await lu.screenshot({ path: join(shots, 'analysis-fen-phone.png'), fullPage: true });
  // a FEN that does not read: the old analysis goes, the page says why in its language
  await lu.fill('#fen-input', '3k5/1R7/9/9/9/4K2R1 w');
  await lu.click('#fen-go');
  await lu.waitForSelector('#analysis-error');
  assert.equal(await lu.textContent('#analysis-error'), 'El FEN no se puede leer: el tablero debe tener 10 filas separadas por /');
  assert.equal(await lu.textContent('#eval'), '–');
  assert.equal(await lu.textContent('#best-line'), '–');
  assert.equal(await lu.locator('#board-wrap .piece').count(), 0);
  // a position the rules refuse: each rule it breaks
  await lu.fill('#fen-input', '3k5/9/9/9/9/9/9/9/9/3KK4 w');
  await lu.click('#fen-go');
  await lu.waitForFunction(() => document.querySelector('#analysis-error')?.textContent?.startsWith('Posición no permitida'));
  assert.equal(await lu.textContent('#analysis-error'), 'Posición no permitida: cada bando debe tener exactamente un General; los Generales no pueden verse en una columna abierta');
  await lu.fill('#fen-input', '4k4/9/9/9/9/9/9/9/4P4/3K5 w');
  await lu.click('#fen-go');
  await lu.waitForFunction(() => document.querySelector('#analysis-error')?.textContent?.includes('Soldado'));
  await lu.fill('#fen-input', '4k4/4R4/9/9/9/9/9/9/9/3K5 w');
  await lu.click('#fen-go');
  await lu.waitForFunction(() => document.querySelector('#analysis-error')?.textContent === 'Posición no permitida: el bando que no mueve está en jaque');
  assert.equal(await lu.locator('#board-wrap .piece').count(), 0);
  await lu.screenshot({ path: join(shots, 'analysis-refused-es-phone.png'), fullPage: true });
  await lu.context().close();
  console.log('ok a FEN with a mate in one: #1 and the mating move first, at phone width; a bad FEN clears it and says why');
  await editorChecks(b, base);
  await playFromEditor(b, base, shots);
}

/**
 * The analysis of the blunder game, a refused FEN and the board editor in Spanish, English and
 * Chinese, at desktop (1366x768) and phone (390x844) width, without a session.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 * @param {string} id the blunder game's table
 */
async function screenshots(b, base, shots, id) {
  const words = {
    es: { refused: 'Posición no permitida: cada bando debe tener exactamente un General', blunder: 'Error grave' },
    en: { refused: 'Position not allowed: each side must have exactly one General', blunder: 'Blunder' },
    zh: { refused: '局面不合规则：双方须各有且只有一个帅（将）', blunder: '败着' },
  };
  for (const [lang, locale] of /** @type {const} */ ([['es', 'es-ES'], ['en', 'en-GB'], ['zh', 'zh-CN']])) {
    const ctx = await b.newContext({ locale, viewport: { width: 1366, height: 768 } });
    await ctx.addInitScript(() => { /** @type {any} */ (window).chuheTest = {}; });
    const page = await ctx.newPage();
    page.on('pageerror', (e) => { throw new Error(`page error (${lang}): ${e.message}`); });
    await page.goto(`${base}/#/analysis/t/${id}`);
    await analysed(page);
    await page.click('#analysis-moves .amv[data-ply="3"]');
    assert.ok((await page.textContent('#advice'))?.startsWith(words[lang].blunder));
    for (const [size, viewport] of /** @type {const} */ ([['desktop', { width: 1366, height: 768 }], ['phone', PHONE]])) {
      await page.setViewportSize(viewport);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= viewport.width, `the analysis page is ${wide} px wide at ${viewport.width}`);
      await page.screenshot({ path: join(shots, `analysis-judged-${lang}-${size}.png`), fullPage: size === 'phone' });
    }
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.fill('#fen-input', '3k5/9/9/9/9/9/9/9/9/3KK4 w');
    await page.click('#fen-go');
    await page.waitForFunction((w) => document.querySelector('#analysis-error')?.textContent?.startsWith(w), words[lang].refused);
    await page.screenshot({ path: join(shots, `analysis-refused-${lang}-desktop.png`) });
    // the board editor with a position the rules refuse
    await page.click('#to-editor');
    await page.waitForSelector('#palette-red');
    await page.click('#editor-empty');
    await page.click('[data-tool="K"]');
    await page.click('[data-square="e0"]');
    await page.click('[data-tool="p"]');
    await page.click('[data-square="e8"]');
    await page.waitForFunction((w) => document.querySelector('#editor-status')?.textContent?.startsWith(w), words[lang].refused);
    for (const [size, viewport] of /** @type {const} */ ([['desktop', { width: 1366, height: 768 }], ['phone', PHONE]])) {
      await page.setViewportSize(viewport);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= viewport.width, `the editor is ${wide} px wide at ${viewport.width}`);
      await page.screenshot({ path: join(shots, `editor-${lang}-${size}.png`), fullPage: size === 'phone' });
    }
    await ctx.close();
  }
}

/**
 * The board editor (issue 31 item 7), in Spanish: pieces put and taken away, the FEN both ways,
 * the rules' reasons, the side to move, then the analysis board on the position.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 */
async function editorChecks(b, base) {
  const ctx = await b.newContext({ locale: 'es-ES', viewport: DESKTOP });
  await ctx.addInitScript(() => { /** @type {any} */ (window).chuheTest = {}; });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (editor): ${e.message}`); });
  const status = async (/** @type {string} */ text) => {
    await page.waitForFunction((w) => {
      const e = /** @type {any} */ (window).chuheTest.editor;
      return e && !e.checking && document.querySelector('#editor-status')?.textContent === w;
    }, text);
  };
  await page.goto(`${base}/#/editor`);
  await status('Posición legal');
  assert.equal(await page.inputValue('#editor-fen'), 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1');
  assert.equal(await page.locator('#board-wrap .piece').count(), 32);
  assert.equal(await page.locator('.palette .tool[data-tool]').count(), 15);
  await page.click('#editor-empty');
  await status('Posición no permitida: cada bando debe tener exactamente un General');
  assert.equal(await page.locator('#editor-analyse[disabled]').count(), 1);
  await page.click('[data-tool="K"]');
  await page.click('[data-square="e0"]');
  await page.click('[data-tool="k"]');
  await page.click('[data-square="d9"]');
  await page.click('[data-tool="R"]');
  await page.click('[data-square="a0"]');
  await status('Posición legal');
  assert.equal(await page.inputValue('#editor-fen'), '3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1');
  // a second click with the same piece takes it away; a right click takes any piece away
  await page.click('[data-square="a0"]');
  assert.equal(await page.inputValue('#editor-fen'), '3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1');
  await page.click('[data-square="e0"]', { button: 'right' });
  await status('Posición no permitida: cada bando debe tener exactamente un General');
  // the field leads the board: a Soldier behind its river
  await page.fill('#editor-fen', '3k5/9/9/9/9/9/9/9/4P4/4K4 w - - 0 1');
  await status('Posición no permitida: un Soldado está donde nunca puede estar (antes de cruzar el río, solo en sus puntos de salida o delante de ellos)');
  assert.equal(await page.locator('#board-wrap .piece').count(), 3);
  await page.click('[data-tool="bin"]');
  await page.click('[data-square="e1"]');
  await status('Posición legal');
  await page.fill('#editor-fen', '3k5/9/9');
  await status('El FEN no se puede leer: el tablero debe tener 10 filas separadas por /');
  // the side to move: Black in check may be to move, not wait
  await page.fill('#editor-fen', '4k4/4R4/9/9/9/9/9/9/9/3K5 w - - 0 1');
  await status('Posición no permitida: el bando que no mueve está en jaque');
  await page.focus('#editor-side');
  await page.selectOption('#editor-side', 'b');
  await status('Posición legal');
  assert.equal(await page.inputValue('#editor-fen'), '4k4/4R4/9/9/9/9/9/9/9/3K5 b - - 0 1');
  await page.fill('#editor-fen', '3k5/1R7/9/9/9/9/9/9/9/4K2R1 w - - 0 1');
  await status('Posición legal');
  assert.equal(await page.inputValue('#editor-side'), 'w');
  await page.click('#editor-analyse');
  await page.waitForURL(/#\/analysis\?fen=/);
  await page.waitForFunction(() => document.querySelector('#eval')?.textContent === '#1');
  assert.equal(await page.textContent('#analysis-source'), 'La posición introducida');
  await ctx.close();
  console.log('ok the board editor puts and takes away pieces, keeps the FEN in step, says why a position is refused and opens its analysis');
}

/**
 * The board editor's "Jugar contra el ordenador" and "Jugar con un amigo" (issue 31 item 7), in
 * Spanish: a position with Black to move opens the computer's card with its small board; the
 * player takes Black, moves first from that position and the computer answers; the people's
 * form gets the same position, not rated.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
async function playFromEditor(b, base, shots) {
  const fen = '4k4/9/2c6/9/9/9/9/9/4A4/R2AK4 b - - 0 1';
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await guest(b, base, viewport === PHONE ? 'Mei' : 'Rui', viewport);
    await page.goto(`${base}/#/editor?fen=${encodeURIComponent(fen)}`);
    await page.waitForFunction(() => {
      const e = /** @type {any} */ (window).chuheTest.editor;
      return e && !e.checking && e.legal;
    });
    await page.click('#editor-computer');
    await page.waitForSelector('#vs-from');
    assert.equal(await page.textContent('#vs-from p'), 'Desde una posición preparada: mueve el Negro.');
    assert.equal(await page.locator('#vs-from .piece').count(), 6);
    assert.equal(await page.locator('#vs-variant[disabled]').count(), 1);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= viewport.width, `the lobby is ${wide} px wide at ${viewport.width}`);
    const size = viewport === PHONE ? 'phone' : 'desktop';
    await page.locator('#vs-form').screenshot({ path: join(shots, `from-position-es-${size}.png`) });
    if (viewport === PHONE) {
      await page.context().close();
      continue;
    }
    await page.selectOption('#vs-level', '1');
    await page.click('#vs-play');
    await page.waitForURL(/#\/t\//);
    await page.waitForFunction(() => /** @type {any} */ (window).chuheTest.state?.table.phase === 'running');
    const state = await page.evaluate(() => /** @type {any} */ (window).chuheTest.state);
    assert.equal(state.board.fen, fen);
    assert.equal(state.you, 1);
    assert.equal(state.to_move, 1);
    await page.click('[data-square="c7"]');
    await page.click('[data-square="c3"]');
    // the computer, Red, answers from there
    await page.waitForFunction(() => /** @type {any} */ (window).chuheTest.state?.board.moves.length === 2, null, { timeout: 30000 });
    const moves = await page.evaluate(() => /** @type {any} */ (window).chuheTest.state.board.moves);
    assert.equal(moves[0], 'c7c3');
    // the move list starts with Black's move: Red's first cell is empty
    assert.equal(await page.locator('#moves li[data-round="1"] .mv-empty').count(), 1);
    assert.equal(await page.textContent('#moves li[data-round="1"] .mv'), 'c7c3');
    await page.screenshot({ path: join(shots, 'from-position-table-es-desktop.png') });

    // a friend (in a new tab of the same session): the people's form with the same position,
    // never rated
    const tab = await page.context().newPage();
    tab.on('pageerror', (e) => { throw new Error(`page error (friend): ${e.message}`); });
    await tab.goto(`${base}/#/editor?fen=${encodeURIComponent(fen)}`);
    await tab.waitForFunction(() => {
      const e = /** @type {any} */ (window).chuheTest.editor;
      return e && !e.checking && e.legal;
    });
    await tab.click('#editor-friend');
    await tab.waitForSelector('#create-from');
    assert.equal(await tab.locator('#rated[disabled]').count(), 1);
    await tab.click('#create');
    await tab.waitForURL(/#\/t\//);
    await tab.waitForFunction(() => /** @type {any} */ (window).chuheTest.state?.table.options.fen !== undefined);
    const table = await tab.evaluate(() => /** @type {any} */ (window).chuheTest.state.table);
    assert.equal(table.options.fen, fen);
    assert.equal(table.options.rated, false);
    await tab.screenshot({ path: join(shots, 'from-position-friend-es-desktop.png') });
    await page.context().close();
  }
  console.log('ok the board editor starts a game against the computer (Black moving first) and a table for people from its position');
}
