// Browser checks of the personal API tokens on one's own player page (web/js/tokens.js,
// docs/bots.md): an account makes a token (its secret shown once), the token works over the API,
// the list shows its scopes, creation and last use, it is revoked from the page and stops working;
// a guest's page has no tokens. Screenshots in es, en and zh. Called by browser.mjs.
import assert from 'node:assert/strict';
import { join } from 'node:path';

const DESKTOP = { width: 1280, height: 900 };

/**
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function tokenChecks(b, base, shots) {
  const ctx = await b.newContext({ locale: 'en-GB', viewport: DESKTOP });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error: ${e.message}`); });
  await page.goto(`${base}/`);
  // the sign-in limit of the run's one address: again after its wait, as enter.mjs does
  for (let tries = 1; ; tries += 1) {
    await page.fill('#register-name', 'Token Keeper');
    await page.fill('#register-password', 'a long password');
    await page.click('#register');
    try {
      await page.waitForSelector('#me', { timeout: 7000 });
      break;
    } catch (e) {
      if (tries >= 8) throw e;
      await page.waitForTimeout(6500);
    }
  }
  const me = await page.evaluate(async () => (await fetch('/api/me')).json());
  await page.goto(`${base}/#/p/${me.id}`);
  await page.waitForSelector('#tokens #no-tokens');
  assert.equal(await page.textContent('#tokens h2'), 'API tokens');
  // the Board API's scopes are ticked at first
  const ticked = await page.$$eval('#token-form input[data-scope]', (xs) => xs.map((x) => `${x.getAttribute('data-scope')}=${/** @type {HTMLInputElement} */ (x).checked}`));
  assert.deepEqual(ticked, ['challenge:read=true', 'challenge:write=true', 'bot:play=false', 'board:play=true', 'tournament:write=false']);

  // make one: the secret once, the row in the list
  await page.fill('#token-description', 'my board app');
  await page.click('#token-create');
  await page.waitForSelector('#new-token-secret');
  const secret = (await page.textContent('#new-token-secret')) ?? '';
  assert.match(secret, /^lip_[A-Za-z0-9]{24}$/);
  await page.waitForSelector('#token-list tbody tr');
  const row = await page.$$eval('#token-list tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
  assert.equal(row.length, 1);
  assert.equal(row[0][0], 'my board app');
  assert.equal(row[0][1], 'challenge:read, challenge:write, board:play');
  assert.equal(row[0][3], 'never');
  assert.equal(await page.inputValue('#token-description'), '');

  // the token works over the API (from outside the browser, as another app would)
  const account = await fetch(`${base}/api/account`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(account.status, 200);
  assert.equal((await account.json()).username, 'Token Keeper');

  // drawn again: the secret is gone, the last use is a date (recorded as the request came)
  let lastUsed = 'never';
  for (let i = 0; i < 50 && lastUsed === 'never'; i += 1) {
    await page.reload();
    await page.waitForSelector('#token-list tbody tr');
    lastUsed = (await page.textContent('#token-list tbody tr td:nth-child(4)')) ?? '';
    if (lastUsed === 'never') await page.waitForTimeout(100);
  }
  assert.notEqual(lastUsed, 'never');
  assert.equal(await page.$('#new-token-secret'), null);

  // a second token, then the screenshots in the three languages (the new secret shown)
  await page.fill('#token-description', 'robot');
  await page.click('#token-form input[data-scope="bot:play"]');
  await page.click('#token-form input[data-scope="board:play"]');
  await page.click('#token-create');
  await page.waitForSelector('#new-token-secret');
  await page.waitForFunction(() => document.querySelectorAll('#token-list tbody tr').length === 2);
  const scopes = await page.textContent('#token-list tbody tr:first-child td:nth-child(2)');
  assert.equal(scopes, 'challenge:read, challenge:write, bot:play');
  const titles = { es: 'Tokens de la API', en: 'API tokens', zh: 'API 令牌' };
  for (const lang of /** @type {const} */ (['es', 'en', 'zh'])) {
    await page.selectOption('#lang', lang);
    await page.waitForFunction((t) => document.querySelector('#tokens h2')?.textContent === t, titles[lang]);
    await page.locator('#tokens').screenshot({ path: join(shots, `tokens-${lang}.png`) });
  }
  await page.selectOption('#lang', 'en');

  // revoke the first: asked first, then gone from the list, and refused by the API
  page.once('dialog', (d) => d.accept());
  await page.click('#token-list tbody tr:last-child button[data-revoke]');
  await page.waitForFunction(() => document.querySelectorAll('#token-list tbody tr').length === 1);
  assert.equal(await page.textContent('#token-list tbody tr td:first-child'), 'robot');
  const refused = await fetch(`${base}/api/account`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(refused.status, 401);
  assert.deepEqual(await refused.json(), { error: 'No such token' });
  await ctx.close();

  // a guest's own page has no tokens
  const gctx = await b.newContext({ locale: 'en-GB', viewport: DESKTOP });
  const guest = await gctx.newPage();
  await guest.goto(`${base}/`);
  for (let tries = 1; ; tries += 1) {
    await guest.fill('#name', 'Passer-by');
    await guest.click('#enter');
    try {
      await guest.waitForSelector('#me', { timeout: 7000 });
      break;
    } catch (e) {
      if (tries >= 8) throw e;
      await guest.waitForTimeout(6500);
    }
  }
  const gme = await guest.evaluate(async () => (await fetch('/api/me')).json());
  await guest.goto(`${base}/#/p/${gme.id}`);
  await guest.waitForSelector('#player-name');
  assert.equal(await guest.$('#tokens'), null);
  await gctx.close();
  console.log('ok tokens: made (shown once), used, listed, revoked; es, en, zh screenshots');
}
