// Entering as a guest in the browser tests. Every browser context of the run comes from
// 127.0.0.1, so the server's sign-in limit (10 at once, then one every 6 s: docs/security.md)
// counts all of the run's guests together: when it answers 429 (the page shows the wait), the
// guest tries again after it, as a person would.

/**
 * Types `name` in the lobby's guest form and enters, again after the rate limit's wait.
 * @param {import('playwright-core').Page} page a page on the lobby
 * @param {string} name
 */
export async function enter(page, name) {
  for (let tries = 1; ; tries += 1) {
    await page.fill('#name', name);
    await page.click('#enter');
    try {
      await page.waitForSelector('#me', { timeout: 7000 });
      return;
    } catch (e) {
      if (tries >= 8) throw e;
      await page.waitForTimeout(6500);
    }
  }
}
