// Browser checks of the analysis board for sanguo and banqi (issue 31, item 7), in Spanish: a
// sanguo game against two computers, still being played, opens on the analysis board with the
// three kingdoms' evaluations (each in its colour) and the best line; a banqi game against the
// computer, once resigned, opens from the table's "Analizar la partida" with the evaluation and
// the best turn, and the chances toggle shows the most likely piece on every face-down square
// and the table of all of them (a tap on a face-down square names it). The requests carry the
// public view only. Screenshots in es, en and zh at desktop and phone width.
// Called by browser.mjs (and alone by one.mjs).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enter } from './enter.mjs';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 768 };
const LOCALES = /** @type {const} */ ([['es', 'es-ES'], ['en', 'en-GB'], ['zh', 'zh-CN']]);

/**
 * A page of a new context in `locale` with the test hooks; entered as the guest `name` when
 * given.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} locale
 * @param {string | null} name
 */
async function open(b, base, locale, name) {
  const ctx = await b.newContext({ locale, viewport: DESKTOP });
  await ctx.addInitScript(() => { /** @type {any} */ (window).chuheTest = {}; });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (${locale}): ${e.message}`); });
  await page.goto(`${base}/`);
  if (name) await enter(page, name);
  return page;
}

/**
 * Waits until every position of the page's game is analysed; its evaluations.
 * @param {import('playwright-core').Page} page
 */
async function analysed(page) {
  try {
    await page.waitForFunction(() => {
      const a = /** @type {any} */ (window).chuheTest.analysis;
      return a && !a.loading && a.evals.length > 1 && a.evals.every((/** @type {any} */ e) => e !== null);
    }, null, { timeout: 90000 });
  } catch (e) {
    const seen = await page.evaluate(() => ({
      error: document.querySelector('#analysis-error')?.textContent ?? null,
      analysis: JSON.stringify(/** @type {any} */ (window).chuheTest.analysis ?? null).slice(0, 400),
    }));
    throw new Error(`not analysed: ${JSON.stringify(seen)} (${e})`);
  }
  return page.evaluate(() => /** @type {any} */ (window).chuheTest.analysis);
}

/**
 * Waits until it is this seat's turn (or the game is over); the table's state.
 * @param {import('playwright-core').Page} page
 */
async function myTurn(page) {
  await page.waitForFunction(() => {
    const s = /** @type {any} */ (window).chuheTest.state;
    return s && ((s.to_move === s.you && s.legal_moves.length > 0) || s.outcome);
  }, null, { timeout: 20000 });
  return page.evaluate(() => /** @type {any} */ (window).chuheTest.state);
}

/**
 * The page's width fits the viewport at both sizes; screenshots named `name-LANG-SIZE.png`.
 * @param {import('playwright-core').Page} page
 * @param {string} shots
 * @param {string} name
 */
async function shoot(page, shots, name) {
  for (const [size, viewport] of /** @type {const} */ ([['desktop', DESKTOP], ['phone', PHONE]])) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= viewport.width, `${name}: the page is ${wide} px wide at ${viewport.width}`);
    await page.screenshot({ path: join(shots, `${name}-${size}.png`), fullPage: size === 'phone' });
  }
  await page.setViewportSize(DESKTOP);
}

/**
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function analysisVariantChecks(b, base, shots) {
  let ana = await open(b, base, 'es-ES', 'Ana');
  /** @type {any[]} */
  const sent = [];
  ana.on('request', (r) => {
    if (r.url().endsWith('/api/analysis/eval') && r.method() === 'POST') sent.push(JSON.parse(r.postData() ?? '{}'));
  });

  // 1. sanguo: Shu against two computers, two rounds, then the analysis of the live game
  await ana.selectOption('#variant', 'sanguo');
  await ana.check('#untimed');
  await ana.selectOption('#seat', '0');
  await ana.click('#create');
  await ana.waitForURL(/#\/t\/[a-z0-9]+$/);
  const sanguoId = ana.url().split('/').pop();
  await ana.waitForSelector('[data-computer="1"]');
  await ana.click('[data-computer="1"]');
  await ana.waitForSelector('[data-computer="2"]');
  await ana.click('[data-computer="2"]');
  for (let round = 0; round < 2; round++) {
    const s = await myTurn(ana);
    const mv = s.legal_moves.find((/** @type {string} */ m) => m.startsWith('Rh3')) ?? s.legal_moves[0];
    await ana.click(`[data-square="${mv.slice(0, 3)}"]`);
    await ana.click(`[data-square="${mv.slice(4, 7)}"]`);
    await ana.waitForFunction((n) => /** @type {any} */ (window).chuheTest.state.board.moves.length >= n, 3 * round + 1);
  }
  await myTurn(ana);
  // the live game stays open; its analysis in another tab of the same browser
  const view = await ana.context().newPage();
  view.on('pageerror', (e) => { throw new Error(`page error (analysis): ${e.message}`); });
  view.on('request', (r) => {
    if (r.url().endsWith('/api/analysis/eval') && r.method() === 'POST') sent.push(JSON.parse(r.postData() ?? '{}'));
  });
  await view.goto(`${base}/#/analysis/t/${sanguoId}`);
  const sg = await analysed(view);
  assert.equal(sg.variant, 'sanguo');
  assert.ok(sg.evals.length >= 7, `${sg.evals.length} sanguo positions`);
  for (const e of sg.evals) {
    assert.equal(e.kingdoms.length, 3);
    assert.deepEqual(e.kingdoms.map((/** @type {any} */ k) => k.kingdom), ['shu', 'wu', 'wei']);
  }
  assert.equal(await view.locator('svg.sanguo').count(), 1);
  assert.equal(await view.locator('#kingdom-evals .kingdom-eval').count(), 3);
  const names = await view.$$eval('#kingdom-evals .kingdom-name', (els) => els.map((e) => e.textContent));
  assert.deepEqual(names, ['Shu', 'Wu', 'Wei']);
  const values = await view.$$eval('#kingdom-evals .kingdom-value', (els) => els.map((e) => e.textContent ?? ''));
  for (const v of values) assert.match(v, /^([+-]?\d+\.\d\d|#-?\d+)$/);
  // each kingdom's number in its colour (Shu red, Wu green, Wei blue)
  const colours = await view.$$eval('#kingdom-evals .kingdom-value', (els) => els.map((e) => getComputedStyle(e).color));
  assert.deepEqual(colours, ['rgb(179, 38, 30)', 'rgb(30, 122, 60)', 'rgb(31, 78, 156)']);
  const line = (await view.textContent('#best-line')) ?? '';
  assert.match(line, /^[RGB][a-i][1-5][-x][RGB][a-i][1-5]( |$)/);
  assert.equal(await view.locator('#fen-form').count(), 0, 'no xiangqi FEN form for sanguo');
  // the list: three moves a row, each with the mover's own evaluation
  assert.equal(await view.locator('#analysis-moves.per-3').count(), 1);
  await view.click('#analysis-moves .amv[data-ply="1"]');
  await view.waitForFunction(() => /** @type {any} */ (window).chuheTest.analysis.ply === 1);
  assert.ok(sent.some((r) => r.variant === 'sanguo' && typeof r.fen === 'string' && r.fen.includes(',')));
  await view.close();
  console.log(`ok sanguo analysis: ${sg.evals.length} positions, kingdoms ${values.join(' ')}, line ${line}`);

  // 2. banqi: against the computer, a few turns, resigned, then "Analizar la partida" (in a
  // new tab: the live sanguo table asks before it is left)
  const ctx = ana.context();
  await ana.close({ runBeforeUnload: false });
  ana = await ctx.newPage();
  ana.on('pageerror', (e) => { throw new Error(`page error (banqi): ${e.message}`); });
  ana.on('request', (r) => {
    if (r.url().endsWith('/api/analysis/eval') && r.method() === 'POST') sent.push(JSON.parse(r.postData() ?? '{}'));
  });
  await ana.goto(`${base}/#/`);
  await ana.waitForSelector('#create');
  await ana.selectOption('#variant', 'banqi');
  await ana.check('#untimed');
  await ana.selectOption('#seat', '0');
  await ana.click('#create');
  await ana.waitForURL(/#\/t\/[a-z0-9]+$/);
  const banqiId = ana.url().split('/').pop();
  await ana.waitForSelector('[data-computer="1"]');
  await ana.click('[data-computer="1"]');
  for (let turn = 0; turn < 4; turn++) {
    const s = await myTurn(ana);
    if (s.outcome) break;
    const before = s.board.moves.length;
    const flip = s.legal_moves.find((/** @type {string} */ m) => m.startsWith('flip '));
    if (flip) await ana.click(`[data-square="${flip.slice(5)}"]`);
    else {
      const mv = s.legal_moves[0];
      await ana.click(`[data-square="${mv.slice(0, 2)}"]`);
      await ana.click(`[data-square="${mv.slice(3, 5)}"]`);
    }
    await ana.waitForFunction((n) => /** @type {any} */ (window).chuheTest.state.board.moves.length > n, before);
  }
  await myTurn(ana);
  ana.once('dialog', (d) => d.accept());
  await ana.click('#resign');
  await ana.waitForSelector('#result');
  await ana.click('#analyse');
  await ana.waitForURL(new RegExp(`#/analysis/t/${banqiId}$`));
  const bq = await analysed(ana);
  assert.equal(bq.variant, 'banqi');
  assert.equal(await ana.locator('svg.banqi').count(), 1);
  // the last position: the evaluation from Red's view, the best turn in words
  assert.match((await ana.textContent('#eval')) ?? '', /^([+-]?\d+\.\d\d|#-?\d+|fin)$/);
  await ana.click('#analysis-moves .amv[data-ply="1"]');
  await ana.waitForFunction(() => /** @type {any} */ (window).chuheTest.analysis.ply === 1);
  assert.match((await ana.textContent('#eval')) ?? '', /^([+-]?\d+\.\d\d|#-?\d+)$/);
  assert.match((await ana.textContent('#best-line')) ?? '', /^(voltear [a-h][1-4]|[a-h][1-4][-x][a-h][1-4])$/);
  // the chances: hidden at first, then the most likely piece on each face-down square
  const here = bq.evals[1];
  const down = here.face_down;
  assert.equal(down.squares.length, 31);
  const sum = down.pieces.reduce((/** @type {number} */ a, /** @type {any} */ c) => a + c.probability, 0);
  assert.ok(Math.abs(sum - 1) < 1e-9, `chances add up to ${sum}`);
  assert.equal(await ana.locator('svg.banqi .chance').count(), 0);
  assert.equal(await ana.textContent('#a-chances'), 'Mostrar probabilidades');
  await ana.click('#a-chances');
  assert.equal(await ana.locator('svg.banqi .chance').count(), 31);
  assert.equal(await ana.locator('#chances-table tr').count(), down.pieces.length);
  assert.equal(await ana.textContent('#chances-table caption'), 'Cada una de las 31 piezas boca abajo es:');
  const top = down.pieces[0];
  assert.equal(await ana.textContent(`#chances-table tr[data-piece="${top.piece}"] .chance-p`), `${Math.round(top.probability * 100)}%`);
  const square = down.squares[0];
  await ana.click(`[data-square="${square}"]`);
  assert.equal(await ana.textContent('#chances-table caption'), `La pieza boca abajo en ${square} es:`);
  // every request of the banqi analysis carried the public view (face-down squares as `?`)
  const banqiAsked = sent.filter((r) => r.variant === 'banqi');
  assert.ok(banqiAsked.length >= 1);
  for (const r of banqiAsked) assert.match(r.fen, /^[?1-8KAERHCPkaerhcp/]+ [-rb] \S+ \d+$/);
  console.log(`ok banqi analysis: ${bq.evals.length} positions, ${down.pieces.length} kinds face down, most likely ${top.piece} ${top.probability}`);
  await ana.context().close();

  // 3. the two boards in Spanish, English and Chinese, desktop and phone
  for (const [lang, locale] of LOCALES) {
    const page = await open(b, base, locale, null);
    await page.goto(`${base}/#/analysis/t/${sanguoId}`);
    await analysed(page);
    await page.click('#analysis-moves .amv[data-ply="3"]');
    await shoot(page, shots, `analysis-sanguo-${lang}`);
    await page.goto(`${base}/#/analysis/t/${banqiId}`);
    await analysed(page);
    await page.click('#analysis-moves .amv[data-ply="2"]');
    await page.click('#a-chances');
    await page.waitForSelector('#chances-table');
    await shoot(page, shots, `analysis-banqi-${lang}`);
    await page.context().close();
  }
  console.log('ok analysis screenshots of sanguo and banqi in es, en and zh');
}
