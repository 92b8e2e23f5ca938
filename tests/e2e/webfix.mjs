// Browser tests of what guests see at rated tables, the create form's own validation, a link to
// a table that does not exist, and 24-character names on a phone. Called by browser.mjs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enter as enterAsGuest } from './enter.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const LONG = 'W'.repeat(24);

/**
 * A page of a new context: a guest named `name`, or an account when `password` is given.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} locale
 * @param {string} name
 * @param {string} [password]
 */
async function enter(b, base, locale, name, password) {
  const ctx = await b.newContext({ locale, viewport: DESKTOP });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (${name}): ${e.message}`); });
  await page.goto(`${base}/`);
  if (!password) {
    await enterAsGuest(page, name);
    return page;
  }
  // the sign-in limit of the run's one address: again after its wait, as enter.mjs does
  for (let tries = 1; ; tries += 1) {
    await page.fill('#register-name', name);
    await page.fill('#register-password', password);
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
 * Whether the guest badge inside `selector` is drawn whole inside it (a long name is cut before
 * the badge, never the badge).
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 */
function badgeShown(page, selector) {
  return page.evaluate((sel) => {
    const box = document.querySelector(sel);
    const badge = box?.querySelector('.guest-badge');
    if (!box || !badge) return false;
    const b = badge.getBoundingClientRect();
    const o = box.getBoundingClientRect();
    return b.width > 0 && b.left >= o.left - 0.5 && b.right <= o.right + 0.5;
  }, selector);
}

/** @param {import('playwright-core').Page} page */
function pageWidth(page) {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

/**
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function webfixChecks(b, base, shots) {
  // 1. a guest: Rated disabled with the reason; an account holder's rated table shows a badge,
  // and the guest is told why there is no Sit
  const guest = await enter(b, base, 'es-ES', LONG);
  assert.equal(await guest.isDisabled('#rated'), true, 'a guest cannot ask for a rated table');
  assert.equal(await guest.textContent('#rated-hint'), 'Las partidas puntuables requieren una cuenta.');
  await guest.selectOption('#lang', 'zh');
  assert.equal(await guest.textContent('#rated-hint'), '计分对局需要注册账号。');
  await guest.selectOption('#lang', 'es');

  const holder = await enter(b, base, 'en-US', 'Sun Quan', 'red cliffs 208');
  assert.equal(await holder.isDisabled('#rated'), false);
  assert.equal(await holder.locator('#rated-hint').count(), 0);
  await holder.check('#rated');
  await holder.selectOption('#seat', '1');
  await holder.click('#create');
  await holder.waitForURL(/#\/t\/[a-z0-9]+$/);
  const rated = holder.url().split('/').pop();
  await holder.waitForSelector('.side-col h2 .rated-badge');
  assert.equal(await holder.textContent('.side-col h2 .rated-badge'), 'rated');
  // the creator is seated at the side chosen; an account holder's seat has no guest badge
  await holder.waitForSelector('[data-seat="1"] .stand');
  assert.equal(await holder.locator('[data-seat="1"] .guest-badge').count(), 0);

  await guest.goto(`${base}/#/`);
  await guest.waitForSelector(`tr[data-table="${rated}"] .rated-badge`);
  assert.equal(await guest.textContent(`tr[data-table="${rated}"] .rated-badge`), 'puntuable');
  await guest.goto(`${base}/#/t/${rated}`);
  await guest.waitForSelector('[data-no-sit]');
  assert.equal(await guest.locator('[data-sit]').count(), 0, 'no Sit for a guest at a rated table');
  assert.equal(await guest.textContent('[data-no-sit="0"]'), 'Mesa puntuable: para sentarte necesitas una cuenta.');
  assert.equal(await guest.locator('.error').count(), 0, 'no server error shown');
  await guest.screenshot({ path: join(shots, 'rated-guest.png') });
  console.log('ok rated tables: a guest has Rated disabled with a hint, sees the badge and no Sit');

  // 2. the create form: an empty Minutes field is stopped by the browser, never sent
  await guest.goto(`${base}/#/`);
  await guest.waitForSelector('#minutes');
  await guest.fill('#minutes', '');
  let posted = 0;
  guest.on('request', (r) => { if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/tables') posted++; });
  await guest.click('#create');
  assert.equal(await guest.evaluate(() => /** @type {HTMLInputElement} */ (document.getElementById('minutes')).validity.valueMissing), true);
  await guest.fill('#minutes', '999');
  await guest.click('#create');
  assert.equal(await guest.evaluate(() => /** @type {HTMLInputElement} */ (document.getElementById('minutes')).validity.rangeOverflow), true);
  assert.equal(posted, 0, 'the form sends nothing out of range');
  assert.equal(await guest.locator('#lobby-message .error').count(), 0);
  await guest.fill('#minutes', '10');
  console.log('ok create form: an empty or too large Minutes field is not sent');

  // 3. a link to a table that does not exist: said once, with a way back, and no more retries
  const lost = await guest.context().newPage();
  lost.on('pageerror', (e) => { throw new Error(`page error (no such table): ${e.message}`); });
  let sockets = 0;
  lost.on('websocket', () => { sockets++; });
  await lost.goto(`${base}/#/t/nosuchtable`);
  await lost.waitForSelector('#not-found');
  assert.equal(await lost.textContent('#not-found .lead'), 'Esta mesa no existe.');
  assert.equal(await lost.locator('.connection').count(), 0);
  const tried = sockets;
  await lost.waitForTimeout(1500);
  assert.equal(sockets, tried, 'no reconnection after the 404');
  await lost.selectOption('#lang', 'en');
  assert.equal(await lost.textContent('#not-found .lead'), 'This table does not exist.');
  await lost.screenshot({ path: join(shots, 'table-not-found.png') });
  await lost.click('#back-to-lobby');
  await lost.waitForSelector('#create-form');
  await lost.close();
  console.log('ok unknown table: "this table does not exist", a link to the lobby, no retries');

  // 5. a 24-character name on a phone: the page stays 390 px wide (lobby, table, header)
  const phoneHolder = holder;
  await phoneHolder.goto(`${base}/#/`);
  await phoneHolder.uncheck('#rated');
  // untimed: no first-move timer ends the game while the pages are looked at
  await phoneHolder.check('#untimed');
  await phoneHolder.selectOption('#seat', '0');
  await phoneHolder.click('#create');
  await phoneHolder.waitForURL(/#\/t\/[a-z0-9]+$/);
  const friendly = phoneHolder.url().split('/').pop();
  await phoneHolder.waitForSelector('[data-seat="0"] .stand');
  await guest.goto(`${base}/#/t/${friendly}`);
  await guest.click('[data-sit="1"]');
  // the last seat taken starts the game
  await guest.waitForSelector('#resign');
  await guest.setViewportSize(PHONE);
  await guest.waitForTimeout(200);
  assert.ok(await pageWidth(guest) <= 390, `table page ${await pageWidth(guest)} px wide`);
  assert.equal(await guest.getAttribute('[data-seat="1"] .occupant', 'title'), LONG);
  // the guest is marked at the table and in the lobby, the account holder is not
  assert.equal(await guest.textContent('[data-seat="1"] .occupant .guest-badge'), 'invitado');
  assert.ok(await badgeShown(guest, '[data-seat="1"] .occupant'), 'the badge of a long name is shown whole at the table');
  assert.equal(await guest.getAttribute('#me', 'title'), LONG);
  await guest.screenshot({ path: join(shots, 'long-name-phone-table.png'), fullPage: true });
  // leaving the game asks first
  guest.once('dialog', (d) => d.accept());
  await guest.goto(`${base}/#/`);
  await guest.waitForSelector(`tr[data-table="${friendly}"] .seat-chip`);
  assert.ok(await pageWidth(guest) <= 390, `lobby ${await pageWidth(guest)} px wide`);
  assert.equal(await guest.getAttribute(`tr[data-table="${friendly}"] .seat-chip:nth-child(2)`, 'title'), LONG);
  assert.equal(await guest.textContent(`tr[data-table="${friendly}"] .seat-chip:nth-child(2) .guest-badge`), 'invitado');
  assert.ok(await badgeShown(guest, `tr[data-table="${friendly}"] .seat-chip:nth-child(2)`), 'the badge of a long name is shown whole in the lobby');
  await guest.screenshot({ path: join(shots, 'long-name-phone-lobby.png'), fullPage: true });
  console.log('ok long names: a 24-character name keeps the phone page 390 px wide');

  // board themes (issue 31): wood, light and dark boards, chosen in the header and kept by the
  // browser; with the piece sets, the phone page stays 390 px wide
  await guest.goto(`${base}/#/rules/xiangqi`);
  await guest.waitForSelector('svg.xiangqi .wood');
  const woodFill = () => guest.$eval('svg.xiangqi .wood', (e) => getComputedStyle(e).fill);
  assert.equal(await woodFill(), 'rgb(232, 197, 141)');
  await guest.selectOption('#board-theme', 'dark');
  assert.equal(await woodFill(), 'rgb(52, 66, 76)');
  await guest.selectOption('#pieces', 'western');
  await guest.reload();
  await guest.waitForSelector('svg.xiangqi .wood');
  assert.equal(await guest.getAttribute('html', 'data-board'), 'dark');
  assert.equal(await woodFill(), 'rgb(52, 66, 76)', 'the dark board is kept after a reload');
  assert.equal(await guest.inputValue('#board-theme'), 'dark');
  assert.equal(await guest.inputValue('#pieces'), 'western');
  assert.ok(await pageWidth(guest) <= 390, `rules page ${await pageWidth(guest)} px wide`);
  await guest.locator('svg.xiangqi').first().screenshot({ path: join(shots, 'board-dark-letters-phone.png') });
  await guest.selectOption('#board-theme', 'light');
  assert.equal(await woodFill(), 'rgb(247, 241, 230)');
  await guest.setViewportSize(DESKTOP);
  await guest.locator('svg.xiangqi').first().screenshot({ path: join(shots, 'board-light-letters.png') });
  await guest.selectOption('#board-theme', 'wood');
  await guest.selectOption('#pieces', 'chinese');
  console.log('ok board themes (wood, light, dark) and piece sets are kept by the browser');

  await guest.context().close();
  await holder.context().close();
}
