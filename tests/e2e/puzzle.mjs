// Browser checks of the puzzle page (issue 30), in Spanish: a guest solves a mate in three by
// clicking (the opponent's last move is played first, the replies come by themselves) and sees
// the rating change; a wrong move says so, "try again" gives the turn back, a hint lights the
// piece to move, and "view the solution" plays the rest; the lobby's daily puzzle card opens the
// daily puzzle; the theme filter asks for puzzles of its theme. Screenshots of the page in
// Spanish, English and Chinese at desktop and phone width. Called by browser.mjs (and alone by
// one.mjs).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enter } from './enter.mjs';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 768 };

/**
 * A page of a new context in `locale` with the test hooks, entered as the guest `name`.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} name
 * @param {string} locale
 * @param {{width: number, height: number}} viewport
 */
async function guest(b, base, name, locale, viewport) {
  const ctx = await b.newContext({ locale, viewport });
  await ctx.addInitScript(() => { /** @type {any} */ (window).chuheTest = {}; });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (${name}): ${e.message}`); });
  await page.goto(`${base}/`);
  await enter(page, name);
  return page;
}

/**
 * Waits until the puzzle page is in `phase` (and at `step`, when given).
 * @param {import('playwright-core').Page} page
 * @param {string} phase
 * @param {number} [step]
 */
async function phase(page, phase, step) {
  await page.waitForFunction(([ph, st]) => {
    const p = /** @type {any} */ (window).chuheTest.puzzle;
    return p && p.phase === ph && (st === null || p.step === st);
  }, [phase, step ?? null], { timeout: 15000 });
  return page.evaluate(() => /** @type {any} */ (window).chuheTest.puzzle);
}

/**
 * Clicks the move `mv` (ICCS) on the board.
 * @param {import('playwright-core').Page} page
 * @param {string} mv
 */
async function play(page, mv) {
  await page.click(`#board-wrap [data-square="${mv.slice(0, 2)}"]`);
  await page.click(`#board-wrap [data-square="${mv.slice(2, 4)}"]`);
}

/**
 * Plays a move of the piece of `right` (ICCS) to another of its targets than `right`'s.
 * @param {import('playwright-core').Page} page
 * @param {string} right
 */
async function wrongMove(page, right) {
  await page.click(`#board-wrap [data-square="${right.slice(0, 2)}"]`);
  const other = await page.evaluate((to) => {
    const hits = [...document.querySelectorAll('#board-wrap circle.hit')];
    for (const t of document.querySelectorAll('#board-wrap .mark-target, #board-wrap .mark-target-capture')) {
      const hit = hits.find((h) => h.getAttribute('cx') === t.getAttribute('cx') && h.getAttribute('cy') === t.getAttribute('cy'));
      const sq = hit?.getAttribute('data-square');
      if (sq && sq !== to) return sq;
    }
    return null;
  }, right.slice(2, 4));
  assert.ok(other, `the piece on ${right.slice(0, 2)} has another move`);
  await page.click(`#board-wrap [data-square="${other}"]`);
}

/**
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function puzzleChecks(b, base, shots) {
  const ana = await guest(b, base, 'Ana', 'es-ES', DESKTOP);

  // 1. a mate in three (ccpd-000073-106): Black's Elephant g9-e7 is played, then Red mates
  await ana.goto(`${base}/#/puzzle/ccpd-000073-106`);
  let p = await phase(ana, 'play', 0);
  assert.deepEqual(p.solution, ['d5c7', 'd9d8', 'c7b9', 'd8d7', 'c6b8']);
  assert.equal(await ana.textContent('#puzzle-status'), 'Juegan las rojas: encuentra la mejor jugada');
  // the opponent's last move is marked
  assert.equal(await ana.locator('#board-wrap .mark-last').count(), 2);
  assert.match(await ana.textContent('#puzzle-info') ?? '', /Mate en 3/);
  await play(ana, 'd5c7');
  // the reply d9d8 comes by itself
  p = await phase(ana, 'play', 2);
  assert.equal(await ana.textContent('#puzzle-status'), '¡Bien! Sigue');
  await play(ana, 'c7b9');
  p = await phase(ana, 'play', 4);
  await play(ana, 'c6b8');
  p = await phase(ana, 'solved');
  assert.equal(await ana.textContent('#puzzle-status'), '¡Resuelto!');
  await ana.waitForSelector('#rating-change');
  const change = (await ana.textContent('#rating-change')) ?? '';
  assert.match(change, /^Tu puntuación: \d+ \(\+\d+\)$/, change);
  assert.ok(p.outcome === null || p.outcome.diff > 0);
  await ana.screenshot({ path: join(shots, 'puzzle-solved-es.png') });
  console.log(`ok puzzle: a mate in three solved by clicking (${change})`);

  // 2. a wrong move, then try again, a hint, and the solution (ccpd-000093-66)
  await ana.goto(`${base}/#/puzzle/ccpd-000093-66`);
  p = await phase(ana, 'play', 0);
  await wrongMove(ana, p.solution[0]);
  await phase(ana, 'wrong');
  assert.equal(await ana.textContent('#puzzle-status'), 'Esa no es la jugada. Inténtalo de nuevo o mira la solución.');
  await ana.screenshot({ path: join(shots, 'puzzle-wrong-es.png') });
  await ana.click('#puzzle-retry');
  await phase(ana, 'play', 0);
  await ana.click('#puzzle-hint');
  await ana.waitForSelector('#board-wrap .mark-selected');
  await ana.click('#puzzle-solution');
  p = await phase(ana, 'failed');
  assert.equal(p.step, p.solution.length);
  assert.equal(await ana.textContent('#puzzle-status'), 'Esta es la solución.');
  // the wrong move was a loss: the rating went down
  await ana.waitForSelector('#rating-change.down');
  console.log('ok puzzle: a wrong move is told, tried again, hinted, and the solution shown');

  // 3. the next puzzle, by theme: a mate in one
  await ana.selectOption('#puzzle-theme', 'mateIn1');
  p = await phase(ana, 'play', 0);
  const shown = await ana.evaluate(() => location.hash);
  assert.equal(shown, `#/puzzle/${p.id}`);
  assert.match(await ana.textContent('#puzzle-info') ?? '', /Mate en 1/);
  console.log(`ok puzzle: the theme filter gives ${p.id}`);

  // 4. the lobby's daily puzzle, and the link in the header
  await ana.goto(`${base}/#/`);
  await ana.waitForSelector('#daily-puzzle');
  await ana.click('#daily-link');
  await ana.waitForURL(/#\/puzzle\/daily$/);
  await phase(ana, 'play', 0);
  assert.equal(await ana.textContent('.puzzle-page h2'), 'Problema del día');
  assert.equal(await ana.textContent('#nav-puzzle'), 'Problemas');
  await ana.context().close();
  console.log('ok puzzle: the daily puzzle from the lobby');

  // 5. screenshots: es, en, zh at desktop and phone width
  for (const [lang, locale] of [['es', 'es-ES'], ['en', 'en-US'], ['zh', 'zh-CN']]) {
    for (const [size, viewport] of /** @type {const} */ ([['desktop', DESKTOP], ['phone', PHONE]])) {
      const page = await guest(b, base, `Shot${lang}${size.slice(0, 1)}`, locale, viewport);
      await page.screenshot({ path: join(shots, `lobby-daily-${lang}-${size}.png`), fullPage: size === 'phone' });
      await page.goto(`${base}/#/puzzle/ccpd-000073-106`);
      await phase(page, 'play', 0);
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(shots, `puzzle-${lang}-${size}.png`), fullPage: size === 'phone' });
      await play(page, 'd5c7');
      await phase(page, 'play', 2);
      await wrongMove(page, 'c7b9');
      await phase(page, 'wrong');
      await page.screenshot({ path: join(shots, `puzzle-wrong-${lang}-${size}.png`), fullPage: size === 'phone' });
      await page.click('#puzzle-solution');
      await phase(page, 'failed');
      await page.waitForSelector('#rating-change');
      await page.screenshot({ path: join(shots, `puzzle-failed-${lang}-${size}.png`), fullPage: size === 'phone' });
      await page.context().close();
    }
  }
  console.log('ok puzzle: screenshots in es, en, zh at both sizes');
}
