// Browser checks of a rematch between two people (issue 17), in Spanish, two browser contexts:
// a short game ended by resignation, Ana offers the rematch, Beto sees the offer and accepts,
// both land on the new table with the colours swapped and the game started by the new Red.
// Then sanguo with two people and the computer (issue 31): both people accept, both are seated
// at the new table with the computer, and a spectator is taken there too.
// Called by browser.mjs (and alone by one.mjs).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enter } from './enter.mjs';

const DESKTOP = { width: 1280, height: 800 };

/**
 * A page of a new Spanish context with the test hooks, as the guest `name`.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} name
 */
async function guest(b, base, name) {
  const ctx = await b.newContext({ locale: 'es-ES', viewport: DESKTOP });
  await ctx.addInitScript(() => { /** @type {any} */ (window).chuheTest = {}; });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (${name}): ${e.message}`); });
  await page.goto(`${base}/`);
  await enter(page, name);
  return page;
}

/**
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
export async function rematchChecks(b, base, shots) {
  const ana = await guest(b, base, 'Ana');
  const beto = await guest(b, base, 'Beto');
  await ana.selectOption('#variant', 'xiangqi');
  await ana.check('#untimed');
  await ana.selectOption('#seat', '0');
  await ana.click('#create');
  await ana.waitForURL(/#\/t\/[a-z0-9]+$/);
  const first = ana.url().split('/').pop();
  await beto.goto(`${base}/#/t/${first}`);
  // the last seat taken starts the game
  await beto.click('[data-sit="1"]');
  await ana.waitForSelector('#status.yours');
  await ana.click('[data-square="h2"]');
  await ana.click('[data-square="e2"]');
  await beto.waitForSelector('#status.yours');
  beto.once('dialog', (d) => d.accept());
  await beto.click('#resign');
  for (const p of [ana, beto]) await p.waitForSelector('#result');
  assert.equal(await ana.textContent('#rematch'), 'Revancha');

  // Ana offers; Beto sees the offer with its two answers
  await ana.click('#rematch');
  await ana.waitForSelector('#rematch[disabled]');
  assert.equal(await ana.textContent('#rematch'), 'Revancha propuesta');
  await beto.waitForSelector('#rematch-offered');
  // an offer is heard by the one it asks (issue 31), not by the one who made it
  assert.ok((await beto.evaluate(() => /** @type {any} */ (window).chuheTest.sounds ?? [])).includes('offer'));
  assert.ok(!(await ana.evaluate(() => /** @type {any} */ (window).chuheTest.sounds ?? [])).includes('offer'));
  assert.equal(await beto.textContent('#rematch-offered'), 'Rojo propone la revancha');
  assert.equal(await beto.textContent('#accept-rematch'), 'Aceptar la revancha');
  assert.equal(await beto.textContent('#decline-rematch'), 'Rechazar la revancha');
  await beto.screenshot({ path: join(shots, 'table-rematch-offered.png') });

  // Beto declines: Ana reads it and may offer again; then Beto accepts
  await beto.click('#decline-rematch');
  await ana.waitForSelector('#rematch-declined');
  assert.equal(await ana.textContent('#rematch-declined'), 'Negro no quiere la revancha');
  await ana.click('#rematch:not([disabled])');
  await beto.click('#accept-rematch');

  // both go to the new table: Beto is Red there and the game has started
  for (const p of [ana, beto]) {
    await p.waitForURL((u) => /#\/t\/[a-z0-9]+$/.test(u.hash) && !u.hash.endsWith(`/${first}`));
  }
  const second = ana.url().split('/').pop();
  assert.equal(beto.url().split('/').pop(), second);
  assert.notEqual(second, first);
  await beto.waitForSelector('#status.yours');
  assert.match(await beto.textContent('[data-seat="0"] .occupant') ?? '', /^Beto \(tú\)/);
  assert.match(await ana.textContent('[data-seat="1"] .occupant') ?? '', /^Ana \(tú\)/);
  const state = await ana.evaluate(() => /** @type {any} */ (window).chuheTest.state);
  assert.equal(state.table.phase, 'running');
  // the same options as the first table, which started when full (its creator seated)
  assert.deepEqual(state.table.options, { variant: 'xiangqi', time: null, rated: false, no_capture_limit: 120, flag_bearers: null, start_when_full: true });
  await beto.screenshot({ path: join(shots, 'table-rematch-new.png') });
  // the old table links to the rematch (Ana confirms leaving her running game to look)
  ana.once('dialog', (d) => d.accept());
  await ana.goto(`${base}/#/t/${first}`);
  await ana.waitForSelector('#go-rematch');
  assert.equal(await ana.getAttribute('#go-rematch', 'href'), `#/t/${second}`);
  await ana.context().close();
  await beto.context().close();
  console.log('ok a rematch between two people: offered, declined, offered again, accepted, both on the new table with the colours swapped');
  await sanguoRematch(b, base, shots);
}

/**
 * Sanguo with two people and the computer: Ana resigns, Wu and Wei share the win; the
 * rematch is offered and accepted by the people (the computer always agrees): each person sits
 * one kingdom on at the new table with the computer, and the spectator follows.
 * @param {import('playwright-core').Browser} b
 * @param {string} base
 * @param {string} shots
 */
async function sanguoRematch(b, base, shots) {
  const ana = await guest(b, base, 'Ana');
  const beto = await guest(b, base, 'Beto');
  const cai = await guest(b, base, 'Cai');
  await ana.selectOption('#variant', 'sanguo');
  await ana.check('#untimed');
  await ana.selectOption('#seat', '0');
  await ana.click('#create');
  await ana.waitForURL(/#\/t\/[a-z0-9]+$/);
  const first = /** @type {string} */ (ana.url().split('/').pop());
  await beto.goto(`${base}/#/t/${first}`);
  await beto.click('[data-sit="1"]');
  await ana.waitForSelector('[data-computer="2"]');
  await ana.click('[data-computer="2"]');
  await ana.waitForSelector('#status.yours');
  await cai.goto(`${base}/#/t/${first}`);
  await cai.waitForSelector('.seats-panel');
  // a resignation ends a sanguo game: the two other kingdoms share the win
  ana.once('dialog', (d) => d.accept());
  await ana.click('#resign');
  for (const p of [ana, beto, cai]) await p.waitForSelector('#result');
  // the people's rematch (not a new game against two computers)
  await ana.click('#rematch');
  await beto.waitForSelector('#accept-rematch');
  await beto.click('#accept-rematch');
  for (const p of [ana, beto, cai]) {
    await p.waitForURL((u) => /#\/t\/[a-z0-9]+$/.test(u.hash) && !u.hash.endsWith(`/${first}`));
  }
  const second = ana.url().split('/').pop();
  assert.equal(beto.url().split('/').pop(), second);
  assert.equal(cai.url().split('/').pop(), second, 'the spectator follows the rematch');
  // each moved one kingdom on: the computer is Shu and starts, Ana Wu, Beto Wei
  await cai.waitForSelector('[data-seat="2"] .occupant');
  assert.equal(await cai.textContent('[data-seat="0"] .occupant'), 'Ordenador (nivel 3)');
  assert.match(await ana.textContent('[data-seat="1"] .occupant') ?? '', /^Ana \(tú\)/);
  assert.match(await beto.textContent('[data-seat="2"] .occupant') ?? '', /^Beto \(tú\)/);
  await ana.waitForFunction(() => /** @type {any} */ (window).chuheTest.state?.table.phase === 'running');
  await cai.screenshot({ path: join(shots, 'sanguo-rematch-spectator.png') });
  for (const p of [ana, beto, cai]) await p.context().close();
  console.log('ok a sanguo rematch with two people and the computer: both seated, the spectator follows');
}
