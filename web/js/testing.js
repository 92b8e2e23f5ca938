// The hooks of the browser tests, behind one flag: they exist only when the test harness defined
// `window.chuheTest` (an object) before the page's scripts ran (tests/e2e: `addInitScript`).
// Nothing else in the client looks at it.

/**
 * Hands `value` to the browser tests as `window.chuheTest[name]`; does nothing in a normal page.
 * @param {'state' | 'socket' | 'review' | 'sounds' | 'analysis' | 'editor' | 'puzzle'} name the last table state, the
 *   table's socket (to drop it as a network failure would), the step-through of an ended game, the
 *   sounds asked for so far, the analysis board's evaluations and ply, the board editor's FEN and verdict, the puzzle page's puzzle and phase
 * @param {unknown} value
 */
export function expose(name, value) {
  const hooks = /** @type {any} */ (globalThis).chuheTest;
  if (hooks && typeof hooks === 'object') hooks[name] = value;
}
