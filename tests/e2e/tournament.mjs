// Browser checks of an arena tournament (issue 28), in Spanish, two browser contexts with
// accounts: Lu Xun creates a berserkable arena that starts in 12 s from the form of
// #/tournaments, both join from its page (Gan Ning through the lobby's card), the countdown
// runs, the start pairs them and takes both to their table, Black goes berserk (its clock
// halves, the bolt is shown), the game waits past the arena's end (the server runs with
// CHUHE_TEST_TOURNAMENT_MINUTE_MS=2000: ten minutes last 20 s) and Red resigns; both go back
// to the tournament, which is over: the standings read 2 and 0 and the podium is up. Then the
// screenshots of the list, the finished page and the table in es, en and zh, desktop and phone.
// Called by browser.mjs (and alone by one.mjs tournament).
import assert from 'node:assert/strict';
import { join } from 'node:path';

const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

/**
 * A page of a new Spanish context with a new account `name` (registered in the lobby's form,
 * again after the sign-in limit's wait: every context of the run comes from one address).
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} name
 */
async function account(b, base, name) {
  const ctx = await b.newContext({ locale: 'es-ES', viewport: DESKTOP });
  await ctx.addInitScript(() => { /** @type {any} */ (window).chuheTest = {}; });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (${name}): ${e.message}`); });
  await page.goto(`${base}/`);
  for (let tries = 1; ; tries += 1) {
    await page.fill('#register-name', name);
    await page.fill('#register-password', 'river crossing');
    await page.click('#register');
    try {
      await page.waitForSelector('#me', { timeout: 7000 });
      return page;
    } catch (e) {
      if (tries >= 8) throw e;
      await page.waitForTimeout(6500);
    }
  }
}

/**
 * The score shown on `page`'s standings for the player named `name`.
 * @param {import('playwright-core').Page} page
 * @param {string} name
 */
async function scoreOf(page, name) {
  return page.evaluate((who) => {
    const row = [...document.querySelectorAll('.standing-row')].find((r) => r.querySelector('.player-link')?.textContent === who);
    return row?.querySelector('.score')?.textContent ?? null;
  }, name);
}

/**
 * Screenshots of `page` at `hash` in the three languages and both sizes, as `NAME-LANG-SIZE.png`.
 * @param {import('playwright-core').Page} page
 * @param {string} base
 * @param {string} hash
 * @param {string} shots
 * @param {string} name
 * @param {string} ready a selector that is there once the page is drawn
 */
async function shotsOf(page, base, hash, shots, name, ready) {
  for (const lang of ['es', 'en', 'zh']) {
    for (const [size, viewport] of /** @type {const} */ ([['desktop', DESKTOP], ['phone', PHONE]])) {
      await page.setViewportSize(viewport);
      await page.evaluate((l) => localStorage.setItem('chuhe.lang', l), lang);
      await page.goto(`${base}/${hash}`);
      await page.reload();
      await page.waitForSelector(ready);
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(shots, `${name}-${lang}-${size}.png`), fullPage: true });
    }
  }
  await page.setViewportSize(DESKTOP);
  await page.evaluate(() => localStorage.setItem('chuhe.lang', 'es'));
}

/**
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function tournamentChecks(b, base, shots) {
  const lu = await account(b, base, 'Lu Xun');
  const gan = await account(b, base, 'Gan Ning');

  // Lu Xun creates the arena from the list's form: 3+2, ten minutes, in a fifth of a minute
  await lu.click('#nav-tournaments');
  await lu.waitForSelector('#tour-form');
  assert.equal(await lu.textContent('#nav-tournaments'), 'Torneos');
  await lu.fill('#tour-name', 'Copa del Rio');
  await lu.fill('#tour-clock', '3');
  await lu.fill('#tour-increment', '2');
  await lu.fill('#tour-minutes', '10');
  await lu.fill('#tour-startIn', '0.2');
  assert.equal(await lu.isChecked('#tour-berserkable'), true);
  await lu.uncheck('#tour-rated');
  await lu.click('#tour-create');
  await lu.waitForURL(/#\/tournament\/[A-Za-z0-9]+$/);
  const id = lu.url().split('/').pop();
  await lu.waitForSelector('#tour-countdown');
  assert.equal(await lu.textContent('#tour-name'), 'Copa del Rio Arena');
  assert.match(await lu.textContent('#tour-status') ?? '', /^Empieza en 0:(0\d|1[0-2])$/);
  await lu.click('#tour-join');
  await lu.waitForSelector('#tour-withdraw');
  await lu.waitForSelector('#tour-joined');

  // Gan Ning finds it in the lobby's card, with its countdown, and joins
  await gan.goto(`${base}/#/`);
  await gan.waitForSelector(`#tour-row-${id}`);
  assert.match(await gan.textContent(`#tour-row-${id} .when`) ?? '', /^Empieza en 0:(0\d|1[0-2])$/);
  await gan.screenshot({ path: join(shots, 'tournament-lobby-card.png') });
  await gan.click(`#tour-row-${id} .tour-name`);
  await gan.waitForSelector('#tour-join');
  await gan.click('#tour-join');
  await gan.waitForSelector('#tour-withdraw');
  await lu.waitForFunction(() => document.querySelectorAll('.standing-row').length === 2);
  await lu.screenshot({ path: join(shots, 'tournament-countdown.png') });

  // the start pairs them: both pages go to the same table, the arena's
  for (const p of [lu, gan]) await p.waitForURL(/#\/t\/[a-z0-9]+$/, { timeout: 20000 });
  const table = lu.url().split('/').pop();
  assert.equal(gan.url().split('/').pop(), table);
  for (const p of [lu, gan]) await p.waitForSelector('#back-to-tournament');
  assert.equal(await lu.textContent('#back-to-tournament'), 'Volver al torneo');
  const youRed = await lu.evaluate(() => document.querySelector('#status.yours') !== null);
  const [red, black] = youRed ? [lu, gan] : [gan, lu];
  const [redName, blackName] = youRed ? ['Lu Xun', 'Gan Ning'] : ['Gan Ning', 'Lu Xun'];

  // Black goes berserk before its first move: 3:00 becomes 1:30, and both see the bolt
  await black.waitForSelector('#berserk');
  assert.equal(await black.textContent('#berserk'), '⚡ Berserk');
  await black.click('#berserk');
  await black.waitForSelector('[data-berserk="1"]');
  await red.waitForSelector('[data-berserk="1"]');
  assert.equal(await black.locator('#berserk').count(), 0);
  assert.equal(await black.textContent('[data-clock="1"]'), '1:30');
  await black.screenshot({ path: join(shots, 'tournament-berserk.png') });

  // a move each (the first-move timer), then past the arena's end, then Red resigns
  await red.click('[data-square="h2"]');
  await red.click('[data-square="e2"]');
  await black.waitForSelector('#status.yours');
  await black.click('[data-square="h9"]');
  await black.click('[data-square="g7"]');
  await red.waitForSelector('#status.yours');
  const ends = await (await red.request.get(`${base}/api/tournament/${id}`)).json();
  const wait = ends.secondsToFinish * 1000 + 1000;
  assert.ok(wait < 25000, `the arena ends within 25 s (${wait} ms)`);
  await red.waitForTimeout(wait);
  red.once('dialog', (d) => d.accept());
  await red.click('#resign');
  for (const p of [red, black]) await p.waitForSelector('#result');

  // back to the tournament: over, the standings 2 and 0, the podium
  for (const p of [red, black]) {
    await p.click('#back-to-tournament');
    await p.waitForURL(new RegExp(`#/tournament/${id}$`));
    await p.waitForSelector('#podium', { timeout: 20000 });
    await p.waitForFunction(() => document.querySelectorAll('.standing-row').length === 2);
    assert.equal(await scoreOf(p, blackName), '2');
    assert.equal(await scoreOf(p, redName), '0');
    assert.equal(await p.textContent('#tour-status'), 'Terminado');
  }
  assert.equal(await black.textContent('.step-1 .podium-name'), blackName);
  assert.equal(await black.textContent('.step-1 .podium-score'), '2 puntos');
  assert.equal(await black.textContent('.step-2 .podium-name'), redName);
  // a player's results on click
  await black.click(`.standing-row:has-text("${blackName}") .score`);
  await black.waitForSelector('.player-results');
  assert.equal(await black.textContent('.player-results li'), `Victoria · contra ${redName} · 2 puntos`);
  await black.screenshot({ path: join(shots, 'tournament-finished.png'), fullPage: true });
  console.log('ok tournament: created, joined, paired, berserk, 2 and 0 in the standings, podium');

  // the list names the winner of a finished arena
  await black.goto(`${base}/#/tournaments`);
  await black.waitForSelector(`#tour-row-${id} .winner`);
  assert.equal(await black.textContent(`#tour-row-${id} .winner`), `1 ${blackName}`);
  await shotsOf(black, base, `#/tournament/${id}`, shots, 'tournament-page', '#podium');
  await shotsOf(black, base, '#/tournaments', shots, 'tournament-list', '#tour-form');
  await shotsOf(black, base, `#/t/${table}`, shots, 'tournament-table', '#back-to-tournament');
  await lu.context().close();
  await gan.context().close();
}
