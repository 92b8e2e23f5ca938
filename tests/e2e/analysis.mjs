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
  await beto.context().close();

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
  // in WXF the move list and the line follow the page's notation
  await ana.selectOption('#notation', 'wxf');
  const wxf = await analysed(ana);
  assert.deepEqual(wxf.map((/** @type {any} */ e) => e.played), [null, 'C2.5', 'H8+7', 'H8+7', 'H2+3']);
  assert.equal(await ana.textContent('#analysis-moves .amv[data-ply="1"] .amv-text'), 'C2.5');
  await ana.selectOption('#notation', 'iccs');
  await analysed(ana);
  await ana.context().close();
  console.log('ok after a game, the analysis board evaluates its five positions and shows each');

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
  await lu.context().close();
  console.log('ok a FEN with a mate in one: #1 and the mating move first, at phone width');
}
