// Browser checks of tables as seeks (issue 31, items 1-3), Spanish first: creating a table seats
// its creator at the side chosen and shows the invite link with "Copiar enlace" (and, on a phone,
// "Compartir"); the friend opening the link takes the free seat and the game starts by itself;
// nobody moves, and after the 30 s first-move limit the game is aborted without a result; a
// creator who leaves an open table withdraws it from the lobby at once. Screenshots at 1366x768
// and 390x844 in Spanish, English and Chinese. Called by browser.mjs (and alone by one.mjs).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enter } from './enter.mjs';

const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

/**
 * A page of a new context as the guest `name`: on a phone with touch and a recording
 * `navigator.share` (headless Chromium has none), on a desktop with the clipboard allowed.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} name
 * @param {boolean} phone
 */
async function guest(b, base, name, phone) {
  const ctx = await b.newContext({
    locale: 'es-ES', viewport: phone ? PHONE : DESKTOP, hasTouch: phone, isMobile: phone,
  });
  if (phone) {
    await ctx.addInitScript(() => {
      /** @type {any} */ (navigator).share = async (/** @type {ShareData} */ data) => { /** @type {any} */ (window).shared = data; };
    });
  } else {
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  }
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (${name}): ${e.message}`); });
  await page.goto(`${base}/`);
  await enter(page, name);
  return page;
}

/**
 * Screenshots of `page` in Spanish, English and Chinese (back to Spanish after).
 * @param {import('playwright-core').Page} page
 * @param {string} shots
 * @param {string} name
 */
async function threeLanguages(page, shots, name) {
  for (const lang of ['es', 'en', 'zh']) {
    await page.selectOption('#lang', lang);
    await page.screenshot({ path: join(shots, `${name}-${lang}.png`), fullPage: true });
  }
  await page.selectOption('#lang', 'es');
}

/**
 * The ids of the tables the lobby lists now.
 * @param {string} base
 * @returns {Promise<string[]>}
 */
async function listed(base) {
  const list = await (await fetch(`${base}/api/tables`)).json();
  return list.map((/** @type {{id: string}} */ t) => t.id);
}

/**
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function seekChecks(b, base, shots) {
  // 1. Ana creates a 1+0 table as Black: she sits there at once, the invite shows its link
  const ana = await guest(b, base, 'Ana', false);
  await ana.selectOption('#variant', 'xiangqi');
  await ana.fill('#minutes', '1');
  await ana.fill('#increment', '0');
  assert.deepEqual(await ana.$$eval('#seat option', (os) => os.map((o) => o.textContent)), ['Al azar', 'Rojo', 'Negro']);
  await ana.selectOption('#seat', '1');
  await ana.click('#create');
  await ana.waitForURL(/#\/t\/[a-z0-9]+$/);
  const id = /** @type {string} */ (ana.url().split('/').pop());
  await ana.waitForSelector('#invite');
  await ana.waitForSelector('[data-seat="1"] .stand');
  assert.match(await ana.textContent('[data-seat="1"] .occupant') ?? '', /^Ana \(tú\)/);
  assert.equal(await ana.locator('[data-computer="0"]').count(), 1, 'Red is free (for a friend or the computer)');
  assert.equal(await ana.inputValue('#invite-link'), `${base}/#/t/${id}`);
  assert.equal(await ana.textContent('#invite label'), 'Invita a un amigo con este enlace: la partida empieza cuando se ocupen los asientos');
  assert.equal(await ana.locator('#start').count(), 0, 'no "Empezar" at a seek');
  assert.equal(await ana.locator('#share-invite').count(), 0, 'no share sheet on a desktop');
  assert.equal(await ana.textContent('#copy-invite'), 'Copiar enlace');
  await ana.click('#copy-invite');
  await ana.waitForFunction(() => document.getElementById('copy-invite')?.textContent === 'Enlace copiado');
  assert.equal(await ana.evaluate(() => navigator.clipboard.readText()), `${base}/#/t/${id}`);
  await threeLanguages(ana, shots, 'seek-invite-desktop');
  assert.ok((await listed(base)).includes(id), 'the seek is listed');
  console.log('ok a new table seats its creator as chosen and shows its link with a copy button');

  // 2. Beto, on a phone, opens the link and takes Red: the game starts by itself
  const beto = await guest(b, base, 'Beto', true);
  await beto.goto(`${base}/#/t/${id}`);
  await beto.waitForSelector('[data-sit="0"]');
  assert.equal(await beto.locator('#invite').count(), 0, 'no invite for who is not seated');
  const started = Date.now();
  await beto.tap('[data-sit="0"]');
  await beto.waitForSelector('.clock.running');
  await ana.waitForSelector('.clock.running');
  await ana.waitForSelector('#invite', { state: 'detached' });
  assert.equal(await beto.textContent('#status'), 'Te toca');
  assert.equal(await ana.locator('#start').count(), 0);
  await beto.screenshot({ path: join(shots, 'seek-started-phone-es.png'), fullPage: true });
  console.log('ok the friend from the link takes the free seat and the game starts');

  // 3. nobody moves: the first-move limit (30 s) aborts the game without a result
  await ana.waitForSelector('#result', { timeout: 45000 });
  const waited = Date.now() - started;
  assert.ok(waited >= 29000 && waited < 40000, `aborted after ${waited} ms`);
  assert.equal(await ana.textContent('#result'), 'Partida anulada');
  await beto.waitForSelector('#result');
  assert.equal(await beto.textContent('#result'), 'Partida anulada');
  const events = await (await fetch(`${base}/api/tables/${id}/events`)).json();
  const last = events[events.length - 1].event;
  assert.deepEqual([last.kind, last.outcome.reason, last.result], ['ended', 'aborted', null]);
  await ana.screenshot({ path: join(shots, 'seek-aborted-desktop-es.png') });
  console.log(`ok nobody made the first move: the game was aborted after ${waited} ms`);

  // 4. Beto's own seek on the phone: the share sheet; leaving the table withdraws it at once
  await beto.goto(`${base}/#/`);
  await beto.waitForSelector('#seat');
  await beto.selectOption('#seat', 'random');
  await beto.click('#create');
  await beto.waitForURL(/#\/t\/[a-z0-9]+$/);
  const seek = /** @type {string} */ (beto.url().split('/').pop());
  await beto.waitForSelector('#share-invite');
  await beto.tap('#share-invite');
  assert.equal(await beto.evaluate(() => /** @type {any} */ (window).shared?.url), `${base}/#/t/${seek}`);
  await threeLanguages(beto, shots, 'seek-invite-phone');
  await ana.goto(`${base}/#/`);
  await ana.waitForSelector(`tr[data-table="${seek}"]`);
  await ana.screenshot({ path: join(shots, 'seek-lobby-desktop-es.png') });
  // the lobby refreshes its lists every 2.5 s by patching them: the row under a finger stays
  // the same element, so a tap that spans a refresh still lands (issue 31)
  await ana.evaluate((id) => { /** @type {any} */ (window).seekRow = document.querySelector(`tr[data-table="${id}"]`); }, seek);
  await ana.waitForResponse((r) => r.url().endsWith('/api/tables') && r.request().method() === 'GET');
  await ana.waitForTimeout(200);
  assert.equal(await ana.evaluate((id) => /** @type {any} */ (window).seekRow === document.querySelector(`tr[data-table="${id}"]`)
    && /** @type {any} */ (window).seekRow.isConnected, seek), true, 'the row is patched in place, not drawn anew');
  console.log('ok the lobby patches its rows in place');
  await beto.click('#nav-lobby');
  await beto.waitForSelector('#create');
  // the stand goes out as the page is left: the lobby drops the table as soon as it arrives
  for (let i = 0; i < 20 && (await listed(base)).includes(seek); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(!(await listed(base)).includes(seek), 'the seek is withdrawn within 2 s');
  await ana.waitForSelector(`tr[data-table="${seek}"]`, { state: 'detached', timeout: 4000 });
  console.log('ok a seek whose creator leaves is withdrawn from the lobby at once');

  await ana.context().close();
  await beto.context().close();
}
