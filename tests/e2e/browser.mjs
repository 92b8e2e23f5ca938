// Browser tests of the web client: playwright-core drives Debian's chromium against a
// `chuhe serve` started here on a free port with a temporary SQLite file.
// Usage: node browser.mjs path/to/chuhe
// Screenshots of every board go to tests/e2e/screenshots/.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { rulesPages } from './rules-pages.mjs';
import { kindsOf, symbolSheet, symbolsDrawn } from './symbols.mjs';
import { webfixChecks } from './webfix.mjs';
import { analysisChecks } from './analysis.mjs';
import { analysisVariantChecks } from './analysis-variants.mjs';
import { puzzleChecks } from './puzzle.mjs';
import { rematchChecks } from './rematch.mjs';
import { seekChecks } from './seeks.mjs';
import { tournamentChecks } from './tournament.mjs';
import { swissChecks } from './swiss.mjs';
import { tableChecks } from './table-around.mjs';
import { tokenChecks } from './tokens.mjs';
import { enter } from './enter.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
mkdirSync(shots, { recursive: true });
const chuhe = process.argv[2];
if (!chuhe) throw new Error('usage: node browser.mjs path/to/chuhe');

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'chuhe-e2e-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let serverLog = '';
/** @type {import('node:child_process').ChildProcess} */
let server;
/** Starts `chuhe serve` on the port and database of this run and waits for /api/health. */
async function startServer() {
  server = spawn(chuhe, ['serve', '--bind', `127.0.0.1:${port}`, '--database', `sqlite://${dir}/chuhe.db`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // an arena's minute lasts 2 s (tournament.mjs: ten minutes in 20 s)
    env: { ...process.env, CHUHE_TEST_TOURNAMENT_MINUTE_MS: '2000' },
  });
  server.stdout?.on('data', (d) => { serverLog += d; });
  server.stderr?.on('data', (d) => { serverLog += d; });
  server.on('exit', (code, signal) => { serverLog += `\nchuhe serve exited: status ${code}, signal ${signal}\n`; });
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.ok) break;
    } catch { /* not up yet */ }
    if (i > 300) throw new Error('chuhe serve did not answer /api/health within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}
/** Stops the server as SIGTERM does and waits until it has exited. */
async function stopServer() {
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
}

let browser;
let failed = false;
try {
  await startServer();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  await run(browser);
} catch (e) {
  failed = true;
  console.error(e);
  console.error(serverLog.split('\n').slice(-30).join('\n'));
} finally {
  await browser?.close();
  if (server && server.exitCode === null && server.signalCode === null) {
    // wait for the server to close its database before the folder goes
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/**
 * A page with a guest session named `name`.
 * @param {import('playwright-core').Browser} b
 * @param {string} locale
 * @param {string} name
 */
async function player(b, locale, name) {
  const ctx = await b.newContext({ locale, viewport: DESKTOP });
  // the one test flag: the client hands its hooks (the last state, the socket) to this object
  await ctx.addInitScript(() => { /** @type {any} */ (window).chuheTest = {}; });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => { throw new Error(`page error (${name}): ${e.message}`); });
  page.on('dialog', (d) => d.accept());
  await page.goto(`${base}/`);
  await enter(page, name);
  return page;
}

/**
 * Creates a table from the lobby form and returns its id.
 * @param {import('playwright-core').Page} page
 * @param {string} variant
 * @param {{untimed?: boolean}} [opts]
 */
async function createTable(page, variant, opts = {}) {
  await page.selectOption('#variant', variant);
  if (opts.untimed) await page.check('#untimed');
  // the creator sits first (the game starts when the last seat is taken)
  await page.selectOption('#seat', '0');
  await page.click('#create');
  await page.waitForURL(/#\/t\/[a-z0-9]+$/);
  await page.waitForSelector('.seats-panel');
  return page.url().split('/').pop();
}

/** @param {import('playwright-core').Page} page */
function movesShown(page) {
  return page.locator('#moves .mv').count();
}

/**
 * @param {import('playwright-core').Page} page
 * @param {number} n
 */
async function waitMoves(page, n) {
  await page.waitForFunction((k) => document.querySelectorAll('#moves .mv').length >= k, n, { timeout: 15000 });
}

/**
 * Plays `move` (from, to) by two clicks, after checking the client highlights the target.
 * @param {import('playwright-core').Page} page
 * @param {string} from
 * @param {string} to
 */
async function clickMove(page, from, to) {
  await page.waitForSelector('#status.yours', { timeout: 15000 });
  const before = await movesShown(page);
  await page.click(`[data-square="${from}"]`);
  await page.waitForSelector('.mark-selected');
  const targets = await page.locator('.mark-target, .mark-target-capture').count();
  assert.ok(targets > 0, `targets highlighted for ${from}`);
  await page.click(`[data-square="${to}"]`);
  await waitMoves(page, before + 1);
}

/** @param {import('playwright-core').Browser} b */
async function run(b) {
  // 1. the language switch changes the texts; the browser's language chooses the first one
  const es = await player(b, 'es-ES', 'Liu Bei');
  assert.equal(await es.textContent('#nav-lobby'), 'Sala');
  assert.equal(await es.textContent('#create'), 'Crear');
  await es.selectOption('#lang', 'en');
  assert.equal(await es.textContent('#nav-lobby'), 'Lobby');
  assert.equal(await es.textContent('#create'), 'Create');
  await es.selectOption('#lang', 'zh');
  assert.equal(await es.textContent('#nav-lobby'), '大厅');
  assert.equal(await es.textContent('#create'), '创建');
  await es.selectOption('#lang', 'es');
  assert.equal(await es.textContent('#create'), 'Crear');
  console.log('ok language switch');

  // 2. two browser contexts play a xiangqi game to checkmate through clicks
  const id = await createTable(es, 'xiangqi');
  await es.waitForSelector('[data-seat="0"] .stand');
  const en = await player(b, 'en-US', 'Cao Cao');
  assert.equal(await en.textContent('#nav-lobby'), 'Lobby');
  await en.waitForSelector(`tr[data-table="${id}"] a.button`);
  await en.screenshot({ path: join(shots, 'lobby.png') });
  await en.click(`tr[data-table="${id}"] a.button`);
  await en.click('[data-sit="1"]');
  await es.waitForSelector('.clock.running');
  // a spectator without a session, its language chosen from the browser (Chinese)
  const zhCtx = await b.newContext({ locale: 'zh-CN', viewport: DESKTOP });
  const watcher = await zhCtx.newPage();
  await watcher.goto(`${base}/#/t/${id}`);
  await watcher.waitForSelector('svg.xiangqi');
  assert.equal(await watcher.textContent('#nav-lobby'), '大厅');
  assert.equal(await watcher.locator('.sit').count(), 0, 'no seat buttons without a session');
  // a real game (CCPD, games.tsv) that Black wins by checkmate in 24 plies
  const line = 'c3c4 g6g5 b0c2 h9g7 c2d4 h7h3 h0g2 b9c7 i3i4 c9e7 a0a1 d9e8 b2c2 a9d9 d4c6 g7f5 f0e1 f5e3 g2e3 h3e3 g0e2 b7b0 a1b1 d9d0'.split(' ');
  for (let i = 0; i < line.length; i++) {
    const page = i % 2 === 0 ? es : en;
    if (i === 10) {
      // a dropped connection: the client reconnects by itself and asks for what it missed
      await en.evaluate(() => /** @type {any} */ (window).chuheTest.socket.drop());
    }
    if (i === 12) {
      await es.click('[data-square="a1"]');
      await es.waitForSelector('.mark-selected');
      await es.screenshot({ path: join(shots, 'xiangqi-red.png') });
      await es.setViewportSize(PHONE);
      await es.screenshot({ path: join(shots, 'xiangqi-live-phone.png'), fullPage: true });
      await es.setViewportSize(DESKTOP);
      await es.click('[data-square="a1"]');
    }
    if (i === 1) {
      // drag and drop: press on the piece, release over its target
      await page.waitForSelector('#status.yours', { timeout: 15000 });
      await page.dragAndDrop('[data-square="g6"]', '[data-square="g5"]');
      await waitMoves(page, 2);
      continue;
    }
    await clickMove(page, line[i].slice(0, 2), line[i].slice(2));
    if (i === 19) {
      // h3e3 checks Red through the screen on e1: both players see the mark on Red's General
      for (const p of [es, en]) await p.waitForSelector('.mark-check[data-check="e0"]', { timeout: 15000 });
      assert.equal(await es.locator('.mark-check').count(), 1);
      await es.screenshot({ path: join(shots, 'xiangqi-check.png') });
    }
    if (i === 20) {
      // g0e2 blocks: no check any more
      await es.waitForFunction(() => /** @type {any} */ (window).chuheTest.state?.board.moves.length === 21);
      assert.equal(await es.locator('.mark-check').count(), 0);
    }
  }
  await es.waitForSelector('#result');
  await en.waitForSelector('#result');
  // the mated General is in check
  await es.waitForSelector('.mark-check[data-check="e0"]');
  assert.equal(await es.textContent('#result'), 'Gana Negro · por jaque mate');
  assert.equal(await en.textContent('#result'), 'Black wins · by checkmate');
  await waitMoves(es, 24);
  await watcher.waitForSelector('#result');
  assert.equal(await watcher.textContent('#result'), '黑方胜 · 将死');
  assert.equal(await movesShown(watcher), 24);
  const pgn = await (await fetch(`${base}/api/tables/${id}/pgn?notation=wxf`)).text();
  assert.equal(await es.getAttribute('#pgn', 'href'), `/api/tables/${id}/pgn?notation=wxf`);
  assert.ok(pgn.includes('[Result "0-1"]'), pgn);
  await zhCtx.close();
  // the move list in Chinese notation, as the server's PGN export writes it
  await es.selectOption('#notation', 'chinese');
  await es.waitForFunction(() => document.querySelector('#moves .mv')?.textContent === '兵七进一');
  assert.equal(await es.locator('#moves .mv').count(), 24);
  await es.screenshot({ path: join(shots, 'xiangqi-chinese-notation.png') });
  await es.selectOption('#notation', 'iccs');
  assert.equal(await es.textContent('#moves .mv'), 'c3c4');
  assert.equal(await movesShown(en), 24);
  await en.screenshot({ path: join(shots, 'xiangqi-black-mate.png') });
  await en.selectOption('#lang', 'zh');
  assert.equal(await en.textContent('#result'), '黑方胜 · 将死');
  // a phone: the board fits the width
  await en.setViewportSize(PHONE);
  const box = await en.locator('svg.board').boundingBox();
  assert.ok(box && box.width <= 390 && box.width > 300, `board width ${box?.width} on a phone`);
  await en.screenshot({ path: join(shots, 'xiangqi-phone.png'), fullPage: true });
  console.log('ok xiangqi game to checkmate through clicks, with a dropped connection');

  // a draw offered by one and accepted by the other
  await es.goto(`${base}/#/`);
  const drawId = await createTable(es, 'xiangqi', { untimed: true });
  await en.setViewportSize(DESKTOP);
  await en.goto(`${base}/#/t/${drawId}`);
  await en.click('[data-sit="1"]');
  await clickMove(es, 'h2', 'e2');
  await es.click('#offer-draw');
  await en.waitForSelector('#accept-draw');
  assert.equal(await en.textContent('.offer'), '红方提和');
  await en.click('#accept-draw');
  await es.waitForSelector('#result');
  assert.equal(await es.textContent('#result'), 'Tablas · de mutuo acuerdo');
  assert.equal(await en.textContent('#result'), '和棋 · 双方议和');
  console.log('ok a draw offered and accepted');

  // 3. banqi: flips and captures by clicks against the computer
  await es.goto(`${base}/#/`);
  await createTable(es, 'banqi');
  await es.waitForSelector('[data-computer="1"]');
  await es.screenshot({ path: join(shots, 'banqi-open-table.png') });
  // the computer's seat is the last: the game starts with it, no "Empezar"
  await es.click('[data-computer="1"]');
  await es.waitForSelector('.clock.running');
  assert.equal(await es.locator('#start').count(), 0);
  let captured = false;
  for (let turn = 0; turn < 60 && !captured; turn++) {
    await es.waitForFunction(() => {
      const s = /** @type {any} */ (window).chuheTest.state;
      return s && (s.to_move === s.you || s.outcome);
    }, null, { timeout: 15000 });
    /** @type {any} */
    const s = await es.evaluate(() => /** @type {any} */ (window).chuheTest.state);
    if (s.outcome) break;
    if (s.board.moves.some((/** @type {string} */ m) => m.includes('x'))) captured = true;
    const capture = s.legal_moves.find((/** @type {string} */ m) => m.includes('x'));
    const before = s.board.moves.length;
    if (capture) {
      await es.click(`[data-square="${capture.slice(0, 2)}"]`);
      await es.click(`[data-square="${capture.slice(3, 5)}"]`);
      captured = true;
    } else {
      const flip = s.legal_moves.find((/** @type {string} */ m) => m.startsWith('flip '));
      const mv = flip ?? s.legal_moves[0];
      if (flip) await es.click(`[data-square="${flip.slice(5)}"]`);
      else {
        await es.click(`[data-square="${mv.slice(0, 2)}"]`);
        await es.click(`[data-square="${mv.slice(3, 5)}"]`);
      }
    }
    await waitMoves(es, before + 1);
  }
  assert.ok(captured, 'a capture happened in the banqi game');
  // the computer answers first: once it is this seat's turn again nothing changes until it moves,
  // so the counts below cannot race a capture of the computer's
  await es.waitForFunction(() => {
    const s = /** @type {any} */ (window).chuheTest.state;
    return s && (s.to_move === s.you || s.outcome);
  }, null, { timeout: 15000 });
  // the lost pieces beside the board are the server's count, in its (rank) order
  await es.waitForFunction(() => /** @type {any} */ (window).chuheTest.state.board.captured !== '-');
  const lost = await es.evaluate(() => /** @type {any} */ (window).chuheTest.state.board.captured);
  await es.waitForFunction((n) => document.querySelectorAll('#captured .piece-icon').length === n, lost.length);
  const shown = await es.$$eval('#captured .piece-icon', (icons) => icons.map((i) => i.getAttribute('data-piece')).join(''));
  assert.equal(shown, lost);
  const redLost = [...lost].filter((c) => c === c.toUpperCase()).length;
  assert.equal(await es.locator('#captured [data-color="red"] .piece-icon').count(), redLost);
  const banqiMoves = await es.evaluate(() => /** @type {any} */ (window).chuheTest.state.board.moves);
  assert.ok(banqiMoves.some((/** @type {string} */ m) => /=/.test(m)), 'flips are recorded with the revealed piece');
  assert.ok(await es.locator('.piece.down').count() > 0, 'face-down discs are drawn');
  await es.screenshot({ path: join(shots, 'banqi.png') });
  await es.setViewportSize(PHONE);
  await es.screenshot({ path: join(shots, 'banqi-phone.png'), fullPage: true });
  await es.setViewportSize(DESKTOP);
  await es.selectOption('#pieces', 'western');
  assert.ok(await es.locator('svg.banqi text.letter').count() > 0, 'western letters on the discs');
  await es.screenshot({ path: join(shots, 'banqi-western.png') });
  // the symbols: every face-up piece of the server's view, and the lost pieces beside the board
  await es.selectOption('#pieces', 'symbols');
  const bqView = await es.evaluate(() => /** @type {any} */ (window).chuheTest.state.board.view);
  await symbolsDrawn(es, 'svg.banqi', kindsOf([...bqView.split(' ')[0]].filter((c) => /[A-Za-z]/.test(c))));
  await symbolsDrawn(es, '#captured', kindsOf([...lost]));
  assert.equal(await es.$$eval('#captured .piece-icon', (icons) => icons.map((i) => i.getAttribute('data-piece')).join('')), lost);
  await es.screenshot({ path: join(shots, 'banqi-symbols.png') });
  await es.setViewportSize(PHONE);
  await es.screenshot({ path: join(shots, 'banqi-symbols-phone.png'), fullPage: true });
  await es.setViewportSize(DESKTOP);
  await es.selectOption('#pieces', 'chinese');
  assert.equal(await es.locator('svg.banqi .piece .symbol').count(), 0, 'characters again');
  console.log(`ok banqi: ${banqiMoves.length} turns with flips and a capture`);

  // 4. sanguo: a person and two computer players play several turns
  await es.goto(`${base}/#/`);
  await createTable(es, 'sanguo', { untimed: true });
  await es.waitForSelector('[data-computer="1"]');
  await es.click('[data-computer="1"]');
  await es.waitForSelector('[data-computer="2"]');
  await es.click('[data-computer="2"]');
  await es.waitForSelector('#abort');
  assert.equal(await es.locator('svg.sanguo .hit').count(), 135, 'sanguo has 135 points');
  for (let round = 0; round < 3; round++) {
    await es.waitForFunction(() => {
      const s = /** @type {any} */ (window).chuheTest.state;
      return s && s.to_move === s.you && s.legal_moves.length > 0;
    }, null, { timeout: 15000 });
    /** @type {any} */
    const s = await es.evaluate(() => /** @type {any} */ (window).chuheTest.state);
    const mv = s.legal_moves.find((/** @type {string} */ m) => m.startsWith('Rh3')) ?? s.legal_moves[0];
    await clickMove(es, mv.slice(0, 3), mv.slice(4, 7));
    await waitMoves(es, 3 * round + 3);
  }
  await es.click('[data-square="Rb3"]');
  await es.screenshot({ path: join(shots, 'sanguo.png') });
  await es.setViewportSize(PHONE);
  await es.screenshot({ path: join(shots, 'sanguo-phone.png'), fullPage: true });
  await es.setViewportSize(DESKTOP);
  // the symbols, in the kingdoms' colours: one per piece of the server's position
  await es.selectOption('#pieces', 'symbols');
  const sgPosition = await es.evaluate(() => /** @type {any} */ (window).chuheTest.state.board.position);
  const sgPieces = [...sgPosition.split(' ')[0].matchAll(/[rgb]([KAEHRCPF])/g)].map((m) => m[1]);
  assert.ok(sgPieces.length > 40, `${sgPieces.length} pieces on the sanguo board`);
  await symbolsDrawn(es, 'svg.sanguo', kindsOf(sgPieces));
  assert.equal(await es.locator('svg.sanguo .piece .symbol[data-symbol="flag"]').count(), sgPieces.filter((k) => k === 'F').length);
  await es.screenshot({ path: join(shots, 'sanguo-symbols.png') });
  await es.setViewportSize(PHONE);
  await es.screenshot({ path: join(shots, 'sanguo-symbols-phone.png'), fullPage: true });
  await es.setViewportSize(DESKTOP);
  await es.selectOption('#pieces', 'chinese');
  console.log('ok sanguo: three rounds with two computer players');

  // 5. accounts: register, log out, a wrong password, log in
  const acctCtx = await b.newContext({ locale: 'en-US', viewport: DESKTOP });
  const acct = await acctCtx.newPage();
  acct.on('pageerror', (e) => { throw new Error(`page error (account): ${e.message}`); });
  await acct.goto(`${base}/`);
  await acct.fill('#register-name', 'Zhuge Liang');
  await acct.fill('#register-password', 'eight formations');
  await acct.screenshot({ path: join(shots, 'lobby-session-forms.png') });
  await acct.click('#register');
  await acct.waitForSelector('#me');
  assert.equal(await acct.textContent('#me'), 'Hello, Zhuge Liang');
  await acct.waitForSelector('#no-ratings');
  assert.equal(await acct.textContent('#no-ratings'), 'No rated games yet.');
  await acct.click('#logout');
  await acct.waitForSelector('#login-form');
  assert.equal(await acct.locator('#me').count(), 0);
  assert.equal((await (await acctCtx.request.get(`${base}/api/me`)).status()), 401, 'the session is gone');
  // the same name again, then a wrong password: the server's codes, in the page's language
  await acct.fill('#register-name', 'Zhuge Liang');
  await acct.fill('#register-password', 'another password');
  await acct.click('#register');
  await acct.waitForSelector('#session-error');
  assert.equal(await acct.textContent('#session-error'), 'That account name is taken');
  await acct.fill('#login-name', 'Zhuge Liang');
  await acct.fill('#login-password', 'seven formations');
  await acct.click('#login');
  await acct.waitForFunction(() => document.querySelector('#session-error')?.textContent === 'Wrong name or password');
  await acct.selectOption('#lang', 'es');
  await acct.fill('#login-password', 'seven formations');
  await acct.click('#login');
  await acct.waitForFunction(() => document.querySelector('#session-error')?.textContent === 'Nombre o contraseña incorrectos');
  await acct.screenshot({ path: join(shots, 'lobby-wrong-password.png') });
  await acct.fill('#login-password', 'eight formations');
  await acct.click('#login');
  await acct.waitForSelector('#me');
  assert.equal(await acct.textContent('#me'), 'Hola, Zhuge Liang');
  assert.equal(await acct.locator('#session-error').count(), 0);
  await acct.waitForSelector('#ratings');
  await acctCtx.close();
  console.log('ok accounts: register, log out, wrong password, log in');

  // 6. a restart, then the finished games from the lobby: the mate opens and steps back
  await stopServer();
  await startServer();
  await es.goto(`${base}/#/`);
  await es.waitForSelector(`tr[data-game="${id}"]`);
  const finishedIds = await es.$$eval('#finished tr[data-game]', (rows) => rows.map((r) => r.getAttribute('data-game')));
  assert.deepEqual(finishedIds, [drawId, id], 'newest first');
  const row = es.locator(`tr[data-game="${id}"]`);
  assert.equal(await row.locator('.result').textContent(), 'Gana Negro · por jaque mate');
  assert.equal(await row.locator('.plies').textContent(), '24');
  assert.equal(await row.locator('.seats').textContent(), 'Rojo: Liu Bei invitadoNegro: Cao Cao invitado', 'guests are marked in the finished list');
  await es.screenshot({ path: join(shots, 'lobby-finished.png'), fullPage: true });
  await row.locator('td.result').click();
  await es.waitForURL(new RegExp(`#/t/${id}$`));
  await es.waitForSelector('#replay');
  assert.equal(await es.textContent('#ply'), 'Jugada 24 de 24');
  assert.equal(await es.textContent('#result'), 'Gana Negro · por jaque mate');
  assert.equal(await es.locator('#moves .mv').count(), 24);
  assert.equal(await es.getAttribute('#pgn', 'href'), `/api/tables/${id}/pgn?notation=wxf`);
  await es.waitForSelector('.mark-check[data-check="e0"]');
  await es.keyboard.press('ArrowLeft');
  assert.equal(await es.textContent('#ply'), 'Jugada 23 de 24');
  assert.equal(await es.locator('.mark-check').count(), 0);
  assert.equal(await es.textContent('#moves .mv.current'), 'a1b1');
  // the last move marked: b7b0's squares... here a1b1, the 23rd
  assert.equal(await es.locator('.mark-last').count(), 2);
  await es.click('#prev');
  await es.click('#prev');
  await es.click('#prev');
  assert.equal(await es.textContent('#ply'), 'Jugada 20 de 24');
  await es.waitForSelector('.mark-check[data-check="e0"]');
  await es.screenshot({ path: join(shots, 'review.png') });
  await es.click('#first');
  assert.equal(await es.textContent('#ply'), 'Posición inicial');
  assert.equal(await es.locator('svg.xiangqi .piece').count(), 32);
  assert.equal(await es.locator('.mark-last').count(), 0);
  await es.keyboard.press('End');
  assert.equal(await es.textContent('#ply'), 'Jugada 24 de 24');
  await es.click('#moves .mv[data-ply="2"]');
  assert.equal(await es.textContent('#ply'), 'Jugada 2 de 24');
  await es.setViewportSize(PHONE);
  await es.screenshot({ path: join(shots, 'review-phone.png'), fullPage: true });
  // the symbols on the xiangqi board (ply 2: all 32 pieces), kept across a reload
  await es.setViewportSize(DESKTOP);
  await es.selectOption('#pieces', 'symbols');
  await symbolsDrawn(es, 'svg.xiangqi', { general: 2, advisor: 4, elephant: 4, horse: 4, chariot: 4, cannon: 4, soldier: 10 });
  await es.screenshot({ path: join(shots, 'xiangqi-symbols.png') });
  await es.setViewportSize(PHONE);
  await es.screenshot({ path: join(shots, 'xiangqi-symbols-phone.png'), fullPage: true });
  await es.setViewportSize(DESKTOP);
  await es.reload();
  await es.waitForSelector('#replay');
  assert.equal(await es.inputValue('#pieces'), 'symbols', 'the choice is kept');
  const finalFen = await es.evaluate(() => /** @type {any} */ (window).chuheTest.state.board.fen);
  await symbolsDrawn(es, 'svg.xiangqi', kindsOf([...finalFen.split(' ')[0]].filter((c) => /[a-zA-Z]/.test(c))));
  await es.selectOption('#pieces', 'chinese');
  assert.equal(await es.locator('svg.xiangqi .piece text').count(), await es.locator('svg.xiangqi .piece').count());
  await es.setViewportSize(PHONE);
  await es.goto(`${base}/#/`);
  await es.waitForSelector(`tr[data-game="${id}"]`);
  await es.screenshot({ path: join(shots, 'lobby-phone.png'), fullPage: true });
  await es.setViewportSize(DESKTOP);
  console.log('ok finished games listed after a restart; the mate opens and steps back');

  // 7. the rules pages and their diagrams (rules-pages.mjs); the sheet of the symbols
  await rulesPages(b, base, shots);
  await symbolSheet(b, base, shots);
  await webfixChecks(b, base, shots);
  await tableChecks(b, base, shots);
  await rematchChecks(b, base, shots);
  await seekChecks(b, base, shots);
  await analysisChecks(b, base, shots);
  await analysisVariantChecks(b, base, shots);
  await tournamentChecks(b, base, shots);
  await swissChecks(b, base, shots);
  await puzzleChecks(b, base, shots);
  await tokenChecks(b, base, shots);

  // 8. last, since it empties this address's bucket for logins and guest sessions: wrong logins
  // in a row until the server's rate limit answers 429, shown in the page's language
  const rlCtx = await b.newContext({ locale: 'es-ES', viewport: DESKTOP });
  const rl = await rlCtx.newPage();
  rl.on('pageerror', (e) => { throw new Error(`page error (rate limit): ${e.message}`); });
  await rl.goto(`${base}/`);
  await rl.waitForSelector('#login-form');
  await rl.fill('#login-name', 'Zhuge Liang');
  let limited = '';
  for (let i = 0; i < 20 && !limited; i++) {
    await rl.fill('#login-password', 'nine formations'); // a refused login empties the field
    const [resp] = await Promise.all([
      rl.waitForResponse((r) => r.url().endsWith('/api/login')),
      rl.click('#login'),
    ]);
    if (resp.status() === 429) {
      await rl.waitForFunction(() => (document.querySelector('#session-error')?.textContent ?? '').startsWith('Demasiadas'));
      limited = (await rl.textContent('#session-error')) ?? '';
    } else {
      assert.equal(resp.status(), 401);
    }
  }
  assert.match(limited, /^Demasiadas peticiones seguidas; prueba de nuevo en [1-6] s$/);
  await rl.screenshot({ path: join(shots, 'lobby-rate-limited.png') });
  await rlCtx.close();
  console.log('ok rate limit: the 429 of repeated logins is shown in Spanish');
}
