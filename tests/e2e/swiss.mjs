// Browser checks of a Swiss event (issue 28), in Spanish, three browser contexts with accounts:
// Zhou Yu creates a Swiss event of three rounds that starts in 12 s from the form of
// #/tournaments (the system "Suizo"), the three join (Lu Su through the lobby's card, Huang Gai
// from the list), the start pairs two of them and takes them to their table while the third
// has the bye (1 point); a move each, Red resigns, and both go back to the event through the
// table's "Volver al torneo" (which names the event: the arena page passes them on to the Swiss
// page). Round 2 follows at once (the server runs with CHUHE_TEST_TOURNAMENT_MINUTE_MS=2000, so
// the interval of 10 s lasts a third of a second): the loser of round 1 has the bye, the two on
// one point meet. Then screenshots of the Swiss page and the list in es, en and zh, desktop and
// phone. Last, the three play a sanguo arena: one table of three, Wu resigns, 2, 1 and 2 points.
// Called by browser.mjs (and alone by one.mjs swiss).
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
 * The points shown on `page`'s standings for the player named `name`.
 * @param {import('playwright-core').Page} page
 * @param {string} name
 */
async function pointsOf(page, name) {
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
export async function swissChecks(b, base, shots) {
  const names = ['Zhou Yu', 'Lu Su', 'Huang Gai'];
  const [zhou, lu, huang] = [await account(b, base, names[0]), await account(b, base, names[1]), await account(b, base, names[2])];
  const pages = [zhou, lu, huang];

  // Zhou Yu creates the event from the list's form: Swiss, 1+0, three rounds, 12 s from now
  await zhou.click('#nav-tournaments');
  await zhou.waitForSelector('#tour-form');
  await zhou.selectOption('#tour-system', 'swiss');
  await zhou.waitForSelector('#tour-rounds');
  assert.equal(await zhou.locator('#tour-minutes').count(), 0);
  assert.equal(await zhou.locator('#tour-berserkable').count(), 0);
  assert.deepEqual(await zhou.$$eval('#tour-variant option', (os) => os.map((o) => /** @type {HTMLOptionElement} */ (o).value)), ['xiangqi', 'banqi']);
  await zhou.fill('#tour-name', 'Suizo del Rio');
  await zhou.fill('#tour-clock', '1');
  await zhou.fill('#tour-increment', '0');
  await zhou.fill('#tour-rounds', '3');
  await zhou.fill('#tour-interval', '10');
  await zhou.fill('#tour-startIn', '0.2');
  await zhou.uncheck('#tour-rated');
  await zhou.click('#tour-create');
  await zhou.waitForURL(/#\/swiss\/[A-Za-z0-9]+$/);
  const id = zhou.url().split('/').pop();
  await zhou.waitForSelector('#tour-countdown');
  assert.equal(await zhou.textContent('#tour-name'), 'Suizo del Rio Suizo');
  assert.match(await zhou.textContent('.tour-facts') ?? '', /^Xiangqi · 1\+0 · 3 rondas · 0 jugadores$/);
  assert.match(await zhou.textContent('#tour-status') ?? '', /^Empieza en 0:(0\d|1[0-2])$/);
  await zhou.click('#tour-join');
  await zhou.waitForSelector('#tour-withdraw');

  // Lu Su finds it in the lobby's card, marked Swiss; Huang Gai in the list
  await lu.goto(`${base}/#/`);
  await lu.waitForSelector(`#tour-row-${id}[data-system="swiss"]`);
  assert.match(await lu.textContent(`#tour-row-${id} .when`) ?? '', /^Empieza en 0:(0\d|1[0-2])$/);
  await lu.click(`#tour-row-${id} .tour-name`);
  await lu.waitForURL(new RegExp(`#/swiss/${id}$`));
  await lu.click('#tour-join');
  await lu.waitForSelector('#tour-withdraw');
  await huang.goto(`${base}/#/tournaments`);
  await huang.waitForSelector(`#tour-row-${id}`);
  await huang.click(`#tour-row-${id} .tour-name`);
  await huang.waitForURL(new RegExp(`#/swiss/${id}$`));
  await huang.click('#tour-join');
  await huang.waitForSelector('#tour-withdraw');
  await zhou.waitForFunction(() => document.querySelectorAll('.standing-row').length === 3);
  await zhou.screenshot({ path: join(shots, 'swiss-countdown.png') });

  // the start: round 1 pairs two, who go to their table; the third has the bye
  const atTable = () => pages.filter((p) => /#\/t\/[a-z0-9]+$/.test(p.url()));
  for (let waited = 0; atTable().length < 2; waited += 200) {
    assert.ok(waited < 25000, 'round 1 pairs two players within 25 s');
    await zhou.waitForTimeout(200);
  }
  const [one, two] = atTable();
  const bye = pages.find((p) => p !== one && p !== two);
  assert.ok(bye);
  const byeName = names[pages.indexOf(bye)];
  await bye.waitForSelector('#round-1 .bye');
  assert.equal(await bye.textContent('#round-1 .bye'), `Descansa: ${byeName} (1 punto)`);
  assert.equal(await pointsOf(bye, byeName), '1');
  assert.match(await bye.textContent('#tour-status') ?? '', /^Ronda 1 de 3 · partidas en juego: 1$/);
  await bye.screenshot({ path: join(shots, 'swiss-round-1.png'), fullPage: true });
  const table = one.url().split('/').pop();
  assert.equal(two.url().split('/').pop(), table);
  for (const p of [one, two]) await p.waitForSelector('#back-to-tournament');
  const oneRed = await one.evaluate(() => document.querySelector('#status.yours') !== null);
  const [red, black] = oneRed ? [one, two] : [two, one];
  const [redName, blackName] = [names[pages.indexOf(red)], names[pages.indexOf(black)]];

  // a move each, then Red resigns: Black wins round 1
  await red.click('[data-square="h2"]');
  await red.click('[data-square="e2"]');
  await black.waitForSelector('#status.yours');
  await black.click('[data-square="h9"]');
  await black.click('[data-square="g7"]');
  await red.waitForSelector('#status.yours');
  red.once('dialog', (d) => d.accept());
  await red.click('#resign');
  await red.waitForSelector('#result');

  // Red goes back to the event through the arena's address: the Swiss page. Round 2: the two on
  // one point meet, Red (0) has the bye.
  await red.click('#back-to-tournament');
  await red.waitForURL(new RegExp(`#/swiss/${id}$`));
  await red.waitForSelector('#round-2 .bye');
  assert.equal(await red.textContent('#round-2 .bye'), `Descansa: ${redName} (1 punto)`);
  const round2 = await red.textContent('#round-2 .pairing .duel-link') ?? '';
  assert.ok([`${blackName} – ${byeName}`, `${byeName} – ${blackName}`].includes(round2), round2);
  assert.equal(await red.textContent('#round-1 .pairing .result'), '0-1');
  await red.waitForFunction(() => document.querySelectorAll('.standing-row').length === 3);
  assert.equal(await pointsOf(red, redName), '1');
  // the standings: a line's rounds on click
  await red.click(`.standing-row:has-text("${blackName}") .score`);
  await red.waitForSelector('.player-results');
  assert.match(await red.textContent('.player-results li') ?? '', new RegExp(`^Victoria · contra ${redName} · Negro`));
  await red.screenshot({ path: join(shots, 'swiss-round-2.png'), fullPage: true });
  console.log('ok swiss: created, joined, round 1 with a bye, a result, round 2 with the loser\'s bye');

  await shotsOf(red, base, `#/swiss/${id}`, shots, 'swiss-page', '#round-2');
  await shotsOf(red, base, '#/tournaments', shots, 'swiss-list', `#tour-row-${id}`);
  await sanguoArena(b, base, shots, pages, names);
  for (const p of pages) await p.context().close();
}

/**
 * A sanguo arena with the same three accounts (made and joined through the API with their
 * sessions), watched by a guest-less page: one table of three, Shu, Wu and Wei; the one seated
 * as Wu resigns at the table, the two others share the win (2, 2) and Wu is second out (1).
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 * @param {import('playwright-core').Page[]} pages
 * @param {string[]} names
 */
async function sanguoArena(b, base, shots, pages, names) {
  const made = await pages[0].request.post(`${base}/api/tournament`, {
    form: { name: 'Tres Reinos', variant: 'sanguo', clockTime: '3', clockIncrement: '2', minutes: '60', rated: 'false' },
  });
  assert.equal(made.status(), 200);
  const { id } = await made.json();
  for (const p of pages) {
    const joined = await p.request.post(`${base}/api/tournament/${id}/join`);
    assert.equal(joined.status(), 200);
  }
  const ctx = await b.newContext({ locale: 'es-ES', viewport: DESKTOP });
  const watcher = await ctx.newPage();
  watcher.on('pageerror', (e) => { throw new Error(`page error (watcher): ${e.message}`); });
  await watcher.goto(`${base}/#/tournament/${id}`);
  await watcher.waitForSelector('#duels li', { timeout: 20000 });
  const duel = await watcher.textContent('#duels .duel-link') ?? '';
  const seated = duel.split(' – ').map((x) => x.replace(/ \(\d+\)$/, ''));
  assert.deepEqual([...seated].sort(), [...names].sort());
  await watcher.screenshot({ path: join(shots, 'sanguo-arena-playing.png'), fullPage: true });
  // Wu (the second seat) resigns at the table
  const wu = pages[names.indexOf(seated[1])];
  const table = await watcher.getAttribute('#duels .duel-link', 'href');
  await wu.goto(`${base}/${table}`);
  await wu.waitForSelector('#resign');
  wu.once('dialog', (d) => d.accept());
  await wu.click('#resign');
  await wu.waitForSelector('#result');
  await watcher.waitForFunction((who) => [...document.querySelectorAll('.standing-row')]
    .some((r) => r.querySelector('.player-link')?.textContent === who && r.querySelector('.score')?.textContent === '1'), seated[1]);
  for (const [name, score] of [[seated[0], '2'], [seated[1], '1'], [seated[2], '2']]) {
    assert.equal(await pointsOf(watcher, name), score, name);
  }
  await watcher.click(`.standing-row:has-text("${seated[0]}") .score`);
  await watcher.waitForSelector('.player-results');
  assert.equal(await watcher.textContent('.player-results li'), `Victoria compartida (Shu) · contra ${seated[1]}, ${seated[2]} · 2 puntos`);
  await watcher.screenshot({ path: join(shots, 'sanguo-arena-results.png'), fullPage: true });
  console.log('ok sanguo arena: a table of three, Wu resigns, 2 1 2');
  await ctx.close();
}
