// The one helper that builds the pages' HTML elements (boards.js draws SVG with its own namespace),
// and `patch`, which brings a page already shown up to date with a new drawing of it in place.

/** The `on...` handlers `h` set on each element, so that `patch` can move them over. */
const HANDLERS = new WeakMap();
/** The `value` `h` set on an input, so that `patch` can carry it over. */
const VALUES = new WeakMap();

/**
 * Builds an element: `h('button', {class: 'x', onclick: f}, 'text', child)`. An attribute that is
 * `undefined`, `null` or `false` is left out, `true` is written empty, `on...` sets the handler
 * property (one per event) and `value` sets the input's value; children that are `null`, `false`
 * or `''` are skipped.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node | string | null | false | undefined)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  /** @type {Record<string, any>} */
  const handlers = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) {
      /** @type {any} */ (node)[k] = v;
      handlers[k] = v;
    } else if (k === 'value') {
      /** @type {HTMLInputElement} */ (node).value = v;
      VALUES.set(node, v);
    } else node.setAttribute(k, v === true ? '' : String(v));
  }
  HANDLERS.set(node, handlers);
  for (const c of children) if (c) node.append(c);
  return node;
}

/**
 * Makes the shown node `from` look like the new drawing `to` while keeping the nodes that stay:
 * the element with the focus keeps it (and what was typed), an open select stays open, a
 * scrolled list keeps its scroll. Children with an `id` are matched by it, the others by their
 * order among the siblings without one; a different tag replaces the node, and so does every SVG
 * drawing (the boards carry their own listeners). Returns the node now shown.
 * @param {Node} from
 * @param {Node} to
 * @returns {Node}
 */
export function patch(from, to) {
  if (from.nodeType !== to.nodeType || from.nodeName !== to.nodeName) {
    /** @type {ChildNode} */ (from).replaceWith(to);
    return to;
  }
  if (from.nodeType === Node.TEXT_NODE) {
    if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
    return from;
  }
  if (!(from instanceof HTMLElement) || !(to instanceof HTMLElement) || from.id !== to.id) {
    /** @type {ChildNode} */ (from).replaceWith(to);
    return to;
  }
  const focused = document.activeElement === from;
  for (const a of [...from.attributes]) if (!to.hasAttribute(a.name)) from.removeAttribute(a.name);
  for (const a of [...to.attributes]) if (from.getAttribute(a.name) !== a.value) from.setAttribute(a.name, a.value);
  const oldHandlers = HANDLERS.get(from) ?? {};
  const newHandlers = HANDLERS.get(to) ?? {};
  for (const k of Object.keys(oldHandlers)) if (!(k in newHandlers)) /** @type {any} */ (from)[k] = null;
  for (const [k, v] of Object.entries(newHandlers)) /** @type {any} */ (from)[k] = v;
  HANDLERS.set(from, newHandlers);
  if (from instanceof HTMLInputElement && to instanceof HTMLInputElement) {
    if (from.type === 'checkbox') from.checked = to.checked;
    else if (!focused && VALUES.has(to)) from.value = String(VALUES.get(to));
    if (VALUES.has(to)) VALUES.set(from, VALUES.get(to));
    return from;
  }
  // an open (focused) select keeps its options as they are
  if (from instanceof HTMLSelectElement && focused) return from;
  const a = [...from.childNodes];
  const b = [...to.childNodes];
  // children with an `id` are matched by it, the others by their order among the others: a
  // list's row stays the same element when a row before it comes or goes
  /** @type {Map<string, ChildNode>} */
  const oldById = new Map();
  /** @type {ChildNode[]} */
  const oldPlain = [];
  for (const n of a) {
    if (n instanceof HTMLElement && n.id && !oldById.has(n.id)) oldById.set(n.id, n);
    else oldPlain.push(n);
  }
  /** @type {Set<ChildNode>} */
  const used = new Set();
  let plain = 0;
  /** @type {Node[]} */
  const result = [];
  for (const n of b) {
    const old = n instanceof HTMLElement && n.id ? oldById.get(n.id) : oldPlain[plain++];
    if (old && !used.has(old)) {
      used.add(old);
      result.push(patch(old, n));
    } else result.push(n);
  }
  for (const n of a) if (!used.has(n)) n.remove();
  result.forEach((n, i) => {
    const here = from.childNodes[i] ?? null;
    if (here !== n) from.insertBefore(n, here);
  });
  while (from.childNodes.length > result.length) from.lastChild?.remove();
  if (from instanceof HTMLSelectElement && to instanceof HTMLSelectElement) from.value = to.value;
  return from;
}
