// Browser checks of the symbols piece set (web/js/boards.js `SYMBOLS`), called by browser.mjs and
// rules-pages.mjs: every piece on a board carries the symbol of its kind and no character or
// letter, and a sheet of the eight symbols in every colour at three sizes is saved as a
// screenshot (tests/e2e/screenshots/symbols-sheet.png).
import assert from 'node:assert/strict';
import { join } from 'node:path';

/** The kind each piece letter names (FEN, banqi and sanguo letters), as the rules name them. */
const KIND = {
  k: 'general', a: 'advisor', b: 'elephant', e: 'elephant', n: 'horse', h: 'horse', r: 'chariot',
  c: 'cannon', p: 'soldier', f: 'flag',
};

/**
 * How many pieces of each kind the letters name, in the order `kindCounts` gives them.
 * @param {string[]} letters
 * @returns {Record<string, number>}
 */
export function kindsOf(letters) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (const l of letters) {
    const kind = KIND[/** @type {'k'} */ (l.toLowerCase())];
    assert.ok(kind, `a piece letter: ${l}`);
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return sorted(counts);
}

/**
 * @param {Record<string, number>} counts
 * @returns {Record<string, number>}
 */
function sorted(counts) {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Asserts that the board `board` (a CSS selector of its svg) draws every face-up piece with a
 * symbol and without text, and that the symbols' kinds count `kinds`.
 * @param {import('playwright-core').Page} page
 * @param {string} board
 * @param {Record<string, number>} kinds
 */
export async function symbolsDrawn(page, board, kinds) {
  const n = Object.values(kinds).reduce((a, b) => a + b, 0);
  await page.waitForFunction(([sel, k]) => document.querySelectorAll(`${sel} .piece.sym`).length === k, /** @type {[string, number]} */ ([board, n]));
  assert.equal(await page.locator(`${board} .piece:not(.down)`).count(), n, `${board}: face-up pieces`);
  assert.equal(await page.locator(`${board} .piece .symbol`).count(), n, `${board}: one symbol per piece`);
  assert.equal(await page.locator(`${board} .piece text`).count(), 0, `${board}: no character or letter`);
  const shown = await page.$$eval(`${board} .piece .symbol`, (gs) => {
    /** @type {Record<string, number>} */
    const counts = {};
    for (const g of gs) {
      const k = g.getAttribute('data-symbol') ?? '?';
      counts[k] = (counts[k] ?? 0) + 1;
    }
    return counts;
  });
  assert.deepEqual(sorted(shown), kinds, `${board}: the kinds of the symbols`);
  // a symbol is drawn: it has shapes painted in its disc's colour
  const painted = await page.$$eval(`${board} .piece .symbol`, (gs) => gs.every((g) => {
    const ring = g.parentElement?.querySelectorAll('circle')[1]?.getAttribute('stroke');
    return g.querySelectorAll(`[fill="${ring}"], [stroke="${ring}"]`).length > 0;
  }));
  assert.ok(painted, `${board}: every symbol is painted in its side's colour`);
}

/**
 * Draws the eight symbols in Red and Black, large, then in the four colours (Red, Black and the
 * kingdoms' green and blue) at a phone board's and at sanguo's phone size, with the characters
 * beside them, and saves the sheet as symbols-sheet.png. Each symbol's shapes stay inside the
 * disc's inner ring and are centred on it.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function symbolSheet(b, base, shots) {
  const ctx = await b.newContext({ locale: 'en-US', viewport: { width: 1000, height: 700 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (symbols sheet): ${e.message}`); });
  await page.goto(`${base}/#/rules/xiangqi`);
  await page.waitForSelector('#rules-title');
  const boxes = await page.evaluate(async () => {
    const B = await import('/js/boards.js');
    const kinds = /** @type {import('../../web/js/boards.js').PieceKind[]} */ (Object.keys(B.SYMBOLS));
    const chars = { general: '帥將', advisor: '仕士', elephant: '相象', horse: '傌馬', chariot: '俥車', cannon: '炮砲', soldier: '兵卒', flag: '旗旗' };
    const colors = [B.SIDE_COLORS.red, B.SIDE_COLORS.black, B.KINGDOM_COLORS[1], B.KINGDOM_COLORS[2]];
    const sheet = document.createElement('div');
    sheet.id = 'symbol-sheet';
    sheet.style.cssText = 'display:grid;grid-template-columns:repeat(8,112px);gap:6px 4px;padding:12px;background:#f4efe6;width:max-content;font:13px system-ui';
    for (const k of kinds) {
      const name = document.createElement('div');
      name.textContent = k;
      name.style.textAlign = 'center';
      sheet.append(name);
    }
    /** @param {import('../../web/js/boards.js').PieceSet} set @param {string[]} cs @param {number} size */
    const row = (set, cs, size) => {
      B.setPieceSet(set);
      for (const k of kinds) {
        const cell = document.createElement('div');
        cell.style.cssText = 'display:flex;flex-wrap:wrap;justify-content:center;align-items:center;gap:2px';
        cs.forEach((c, i) => cell.append(B.pieceIcon(k, chars[k][i % 2], c, size)));
        sheet.append(cell);
      }
    };
    row('symbols', colors.slice(0, 1), 100);
    row('symbols', colors.slice(1, 2), 100);
    row('symbols', colors, 26);
    row('symbols', colors, 19);
    row('chinese', colors.slice(0, 2), 40);
    document.body.replaceChildren(sheet);
    B.setPieceSet('chinese');
    // each symbol's shapes, in the disc's units (radius 100, inner ring 80) before SYMBOL_SCALE
    return kinds.map((k) => {
      const g = /** @type {SVGGElement} */ (sheet.querySelector(`.symbol[data-symbol="${k}"]`));
      const { x, y, width, height } = g.getBBox();
      return { kind: k, x, y, width, height };
    });
  });
  assert.deepEqual(boxes.map((bx) => bx.kind), ['general', 'advisor', 'elephant', 'horse', 'chariot', 'cannon', 'soldier', 'flag']);
  for (const bx of boxes) {
    const ends = [bx.x, bx.y, bx.x + bx.width, bx.y + bx.height].map(Math.abs);
    assert.ok(Math.max(...ends) <= 70, `${bx.kind} stays inside the inner ring: ${JSON.stringify(bx)}`);
    assert.ok(Math.max(bx.width, bx.height) >= 100 && Math.min(bx.width, bx.height) >= 80, `${bx.kind} fills the disc: ${JSON.stringify(bx)}`);
    assert.ok(Math.abs(bx.x + bx.width / 2) <= 8 && Math.abs(bx.y + bx.height / 2) <= 8, `${bx.kind} is centred: ${JSON.stringify(bx)}`);
  }
  assert.equal(await page.locator('#symbol-sheet .piece .symbol').count(), 8 * (1 + 1 + 4 + 4));
  await page.locator('#symbol-sheet').screenshot({ path: join(shots, 'symbols-sheet.png') });
  await ctx.close();
  console.log('ok symbols sheet: eight symbols inside their discs, in four colours and three sizes');
}
