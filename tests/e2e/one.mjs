// Runs one browser check file against its own `chuhe serve` (a free port, a temporary SQLite
// file), for working on one part of the client without the whole of browser.mjs.
// Usage: node one.mjs path/to/chuhe CHECKS   (CHECKS: table-around, rematch, analysis, analysis-variants, webfix, seeks, tournament, swiss, puzzle, tokens; more can be listed below)
// With WEB_FROM_DISK=1 the pages' files come from web/ on disk instead of the ones embedded in
// the binary (no rebuild while working on the client). Screenshots go to tests/e2e/screenshots/.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { analysisChecks } from './analysis.mjs';
import { analysisVariantChecks } from './analysis-variants.mjs';
import { puzzleChecks } from './puzzle.mjs';
import { rematchChecks } from './rematch.mjs';
import { seekChecks } from './seeks.mjs';
import { tableChecks } from './table-around.mjs';
import { webfixChecks } from './webfix.mjs';
import { tournamentChecks } from './tournament.mjs';
import { swissChecks } from './swiss.mjs';
import { tokenChecks } from './tokens.mjs';

/** The check files this runner knows, by name. */
const CHECKS = { 'table-around': tableChecks, rematch: rematchChecks, analysis: analysisChecks, 'analysis-variants': analysisVariantChecks, webfix: webfixChecks, seeks: seekChecks, tournament: tournamentChecks, swiss: swissChecks, puzzle: puzzleChecks, tokens: tokenChecks };

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
mkdirSync(shots, { recursive: true });
const [chuhe, name] = process.argv.slice(2);
const checks = CHECKS[/** @type {keyof typeof CHECKS} */ (name)];
if (!chuhe || !checks) throw new Error(`usage: node one.mjs path/to/chuhe ${Object.keys(CHECKS).join('|')}`);

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

const dir = mkdtempSync(join(tmpdir(), 'chuhe-e2e-one-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let log = '';
const server = spawn(chuhe, ['serve', '--bind', `127.0.0.1:${port}`, '--database', `sqlite://${dir}/chuhe.db`], {
  stdio: ['ignore', 'pipe', 'pipe'],
  // an arena's minute lasts 2 s (tournament.mjs: ten minutes in 20 s)
  env: { ...process.env, CHUHE_TEST_TOURNAMENT_MINUTE_MS: '2000' },
});
server.stdout?.on('data', (d) => { log += d; });
server.stderr?.on('data', (d) => { log += d; });
let failed = false;
let browser;
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch { /* not up yet */ }
    if (i > 300) throw new Error('chuhe serve did not answer /api/health within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  if (process.env.WEB_FROM_DISK === '1') {
    const web = join(here, '..', '..', 'web');
    const types = { js: 'text/javascript', css: 'text/css', html: 'text/html', svg: 'image/svg+xml' };
    const newContext = browser.newContext.bind(browser);
    browser.newContext = async (/** @type {any} */ options) => {
      const ctx = await newContext(options);
      // the page itself stays the server's (a fulfilled document would count as another
      // network, and Chromium would refuse its socket to 127.0.0.1)
      await ctx.route((url) => url.origin === base && /\.(js|css|svg)$/.test(url.pathname), async (route) => {
        const path = new URL(route.request().url()).pathname;
        const file = join(web, path);
        const ext = /** @type {keyof typeof types} */ (file.split('.').pop());
        if (!existsSync(file) || !types[ext]) return route.continue();
        await route.fulfill({ status: 200, contentType: types[ext], body: readFileSync(file) });
      });
      return ctx;
    };
  }
  await checks(browser, base, shots);
} catch (e) {
  failed = true;
  console.error(e);
  console.error(log.split('\n').slice(-30).join('\n'));
} finally {
  await browser?.close();
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
