// Browser tests of the rules pages (web/js/rules.js), run by browser.mjs against its server:
// each page in Spanish, the diagrams' highlighted targets before and after their blocker or
// screen moves (the numbers are the legal moves POST /api/analysis answers), a move played on a
// diagram and reset, the language switch, and screenshots at desktop and phone widths.
import assert from 'node:assert/strict';
import { join } from 'node:path';

/**
 * Waits for the diagram's answer, clicks `square` and returns how many targets are highlighted.
 * @param {import('playwright-core').Page} page
 * @param {string} id
 * @param {string} square
 */
async function targetsOf(page, id, square) {
  const fig = `[data-diagram="${id}"]`;
  await page.waitForSelector(`${fig}:not([aria-busy]) svg`);
  await page.click(`${fig} [data-square="${square}"]`);
  await page.waitForSelector(`${fig} .mark-selected`);
  return page.locator(`${fig} .mark-target, ${fig} .mark-target-capture`).count();
}

/**
 * @param {import('playwright-core').Page} page
 * @param {string} id
 */
async function captureTargets(page, id) {
  return page.locator(`[data-diagram="${id}"] .mark-target-capture`).count();
}

/**
 * Presses a diagram's button (`next` or `reset`) and waits for the server's answer.
 * @param {import('playwright-core').Page} page
 * @param {string} id
 * @param {string} action
 */
async function press(page, id, action) {
  const fig = `[data-diagram="${id}"]`;
  await page.waitForSelector(`${fig}:not([aria-busy]) svg`);
  await page.click(`${fig} [data-action="${action}"]`);
  await page.waitForSelector(`${fig}:not([aria-busy]) svg`);
}

/**
 * Full-page screenshots at desktop and phone width; on the phone every diagram's board fits.
 * @param {import('playwright-core').Page} page
 * @param {string} shots
 * @param {string} name
 */
async function screenshots(page, shots, name) {
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  for (const box of await page.locator('.diagram-board svg').evaluateAll((nodes) => nodes.map((n) => n.getBoundingClientRect().right))) {
    assert.ok(box <= 390, `a diagram ends at ${box} px on a 390 px phone`);
  }
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `${name}: the page is ${width} px wide on a 390 px phone`);
  await page.screenshot({ path: join(shots, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1200, height: 900 });
}

/**
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function rulesPages(b, base, shots) {
  const ctx = await b.newContext({ locale: 'es-ES', viewport: { width: 1200, height: 900 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (rules): ${e.message}`); });

  // the lobby links to the three pages; the header to the first
  await page.goto(`${base}/`);
  assert.equal(await page.textContent('#nav-rules'), 'Reglas');
  assert.equal(await page.textContent('#rules-sanguo'), 'Xiangqi de los Tres Reinos');
  await page.click('#rules-xiangqi');
  await page.waitForURL(/#\/rules\/xiangqi$/);

  // xiangqi, in Spanish
  assert.equal(await page.textContent('#rules-title'), 'Reglas del xiangqi');
  assert.equal(await targetsOf(page, 'horse', 'e4'), 6, 'the horse with its leg blocked');
  await press(page, 'horse', 'next');
  assert.equal(await targetsOf(page, 'horse', 'e4'), 8, 'the horse with its leg free');
  assert.equal(await page.textContent('[data-diagram="horse"] [data-action="next"]'), 'Poner un Soldado');
  // play a target, then start again
  await page.click('[data-diagram="horse"] [data-square="d6"]');
  await page.waitForFunction(() => document.querySelector('[data-diagram="horse"] .diagram-status')?.textContent === 'Juega Negro');
  assert.equal(await page.locator('[data-diagram="horse"] .mark-last').count(), 2, 'the move played is marked');
  await press(page, 'horse', 'reset');
  assert.equal(await page.textContent('[data-diagram="horse"] .diagram-status'), 'Juega Rojo');
  assert.equal(await targetsOf(page, 'horse', 'e4'), 6, 'reset puts the soldier back');

  assert.equal(await targetsOf(page, 'elephant', 'c4'), 1, 'the elephant with its eye blocked');
  await press(page, 'elephant', 'next');
  assert.equal(await targetsOf(page, 'elephant', 'c4'), 2, 'the elephant with its eye free');

  assert.equal(await targetsOf(page, 'cannon', 'e2'), 13, 'the cannon with one screen');
  assert.equal(await captureTargets(page, 'cannon'), 1, 'the cannon takes the chariot over one screen');
  await press(page, 'cannon', 'next');
  assert.equal(await targetsOf(page, 'cannon', 'e2'), 14, 'the cannon without a screen');
  assert.equal(await captureTargets(page, 'cannon'), 0);
  await press(page, 'cannon', 'next');
  assert.equal(await targetsOf(page, 'cannon', 'e2'), 12, 'the cannon with two screens');
  assert.equal(await captureTargets(page, 'cannon'), 0);
  // the cannon captures: the chariot is gone and Black is to move
  await press(page, 'cannon', 'next');
  await targetsOf(page, 'cannon', 'e2');
  await page.click('[data-diagram="cannon"] [data-square="e7"]');
  await page.waitForFunction(() => document.querySelector('[data-diagram="cannon"] .diagram-status')?.textContent === 'Juega Negro');

  // the piece list: each piece's characters, and beside them its symbol in Red and Black
  const legend = await page.$$eval('ul.pieces li', (items) => items.map((li) => ({
    chars: [...li.querySelectorAll('.chip:not(.sym)')].map((c) => c.textContent).join(''),
    symbols: [...li.querySelectorAll('.legend .chip.sym svg')].map((s) => `${s.getAttribute('data-symbol')}:${s.closest('.chip')?.classList.contains('red') ? 'red' : 'black'}`),
  })));
  assert.deepEqual(legend, [
    ['帥將', 'general'], ['仕士', 'advisor'], ['相象', 'elephant'], ['傌馬', 'horse'], ['俥車', 'chariot'], ['炮砲', 'cannon'], ['兵卒', 'soldier'],
  ].map(([chars, kind]) => ({ chars, symbols: [`${kind}:red`, `${kind}:black`] })));
  assert.equal(await page.locator('ul.pieces .legend .symbol path, ul.pieces .legend .symbol circle').count() > 14, true, 'the legend draws shapes');
  await page.locator('ul.pieces').screenshot({ path: join(shots, 'rules-legend.png') });
  // with the symbols set the diagrams draw symbols; the list keeps the characters beside them
  await page.selectOption('#pieces', 'symbols');
  await page.waitForSelector('[data-diagram="horse"]:not([aria-busy]) svg .piece.sym');
  assert.equal(await page.locator('.diagram .piece text').count(), 0, 'no characters on the diagrams');
  assert.equal(await page.locator('ul.pieces .chip:not(.sym)').first().textContent(), '帥');
  await page.locator('ul.pieces').screenshot({ path: join(shots, 'rules-legend-symbols.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('ul.pieces').screenshot({ path: join(shots, 'rules-legend-phone.png') });
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.selectOption('#pieces', 'chinese');

  assert.equal(await targetsOf(page, 'facing', 'd0'), 1, 'the general may not face the other');
  await press(page, 'facing', 'next');
  assert.equal(await targetsOf(page, 'facing', 'd0'), 2, 'a piece between the generals');
  await screenshots(page, shots, 'rules-xiangqi');

  // the language switch redraws the page, diagrams included
  await page.selectOption('#lang', 'zh');
  assert.equal(await page.textContent('#rules-title'), '象棋规则');
  assert.equal(await page.textContent('[data-diagram="horse"] [data-action="reset"]'), '重来');
  await page.screenshot({ path: join(shots, 'rules-xiangqi-zh.png'), fullPage: true });
  await page.selectOption('#lang', 'en');
  assert.equal(await page.textContent('#rules-title'), 'Xiangqi rules');
  assert.equal(await page.textContent('#nav-rules'), 'Rules');
  await page.selectOption('#lang', 'es');
  console.log('ok rules page: xiangqi (horse leg, elephant eye, cannon screen, facing generals)');

  // sanguo
  await page.click('.rules-tabs a[data-variant="sanguo"]');
  await page.waitForSelector('[data-diagram="tip"]:not([aria-busy]) svg');
  assert.equal(await page.textContent('#rules-title'), 'Reglas del xiangqi de los Tres Reinos');
  assert.equal(await targetsOf(page, 'tip', 'Re5'), 22, 'a chariot on the tip: along the bank, home and into both neighbours');
  await press(page, 'tip', 'next');
  assert.equal(await targetsOf(page, 'tip', 'Re5'), 2, 'a soldier on its tip goes to either other tip');
  assert.equal(await targetsOf(page, 'crossing', 'Rd4'), 8, 'the horse crosses the river over its leg');
  await press(page, 'crossing', 'next');
  assert.equal(await targetsOf(page, 'crossing', 'Rd4'), 6, 'a soldier on the leg closes both crossings');
  assert.equal(await targetsOf(page, 'flag', 'Rd3'), 6, 'the flag bearer');
  // Shu plays; Wu is to move
  await page.click('[data-diagram="flag"] [data-square="Be5"]');
  await page.waitForFunction(() => document.querySelector('[data-diagram="flag"] .diagram-status')?.textContent === 'Juega Wu');
  await screenshots(page, shots, 'rules-sanguo');
  await page.selectOption('#lang', 'en');
  assert.equal(await page.textContent('#rules-title'), 'Three Kingdoms xiangqi rules');
  await page.selectOption('#lang', 'es');
  console.log('ok rules page: sanguo (river joins, the horse across the river, flag bearer)');

  // banqi
  await page.click('.rules-tabs a[data-variant="banqi"]');
  await page.waitForSelector('[data-diagram="captures"]:not([aria-busy]) svg');
  assert.equal(await page.textContent('#rules-title'), 'Reglas del banqi');
  assert.equal(await targetsOf(page, 'captures', 'b3'), 4, 'the soldier: three steps and the general');
  assert.equal(await captureTargets(page, 'captures'), 1, 'the soldier takes the general');
  assert.equal(await targetsOf(page, 'captures', 'd2'), 3, 'the general: two steps and the advisor, not the soldier');
  assert.equal(await captureTargets(page, 'captures'), 1);
  assert.equal(await targetsOf(page, 'captures', 'a1'), 3, 'the cannon: two steps and a jump');
  assert.equal(await captureTargets(page, 'captures'), 1, 'the cannon jumps the face-down screen');
  await press(page, 'captures', 'next');
  assert.equal(await targetsOf(page, 'captures', 'c3'), 2, 'the black general cannot take the soldier');
  assert.equal(await captureTargets(page, 'captures'), 0);
  assert.equal(await targetsOf(page, 'captures', 'd3'), 3, 'the black soldier');
  assert.equal(await captureTargets(page, 'captures'), 1, 'the black soldier takes the red general');
  assert.equal(await page.locator('#banqi-captures td.yes').count(), 33, 'the table of captures');
  // the table's faces follow the piece set
  await page.selectOption('#pieces', 'symbols');
  assert.deepEqual(await page.$$eval('#banqi-captures thead .chip.sym svg', (s) => s.map((n) => n.getAttribute('data-symbol'))),
    ['general', 'advisor', 'elephant', 'chariot', 'horse', 'cannon', 'soldier']);
  assert.equal(await page.locator('#banqi-captures tbody .chip.red.sym').count(), 7);
  await page.locator('#banqi-captures').screenshot({ path: join(shots, 'rules-banqi-captures-symbols.png') });
  await page.selectOption('#pieces', 'chinese');
  assert.equal(await page.locator('#banqi-captures .chip.sym').count(), 0);
  await screenshots(page, shots, 'rules-banqi');
  await page.selectOption('#lang', 'zh');
  assert.equal(await page.textContent('#rules-title'), '暗棋规则');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(shots, 'rules-banqi-zh-phone.png'), fullPage: true });
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.selectOption('#lang', 'en');
  assert.equal(await page.textContent('#rules-title'), 'Banqi rules');
  console.log('ok rules page: banqi (soldier takes general, the cannon jumps)');
  await ctx.close();
}
