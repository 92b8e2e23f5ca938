// The one helper that builds the pages' HTML elements (boards.js draws SVG with its own namespace).

/**
 * Builds an element: `h('button', {class: 'x', onclick: f}, 'text', child)`. An attribute that is
 * `undefined`, `null` or `false` is left out, `true` is written empty, `on...` adds a listener and
 * `value` sets the input's value; children that are `null`, `false` or `''` are skipped.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node | string | null | false | undefined)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'value') /** @type {HTMLInputElement} */ (node).value = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c) node.append(c);
  return node;
}
