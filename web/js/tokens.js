// The personal API tokens of the signed-in account, on its own player page (docs/bots.md):
// the live tokens (description, scopes, created, last used) with a revoke button each
// (GET /api/tokens, DELETE /api/tokens/{id}), and a form that makes one (POST /api/tokens),
// whose secret is shown once, right after.

import { t } from './i18n.js';
import { api } from './net.js';
import { h } from './dom.js';
import { errorText, formatDate } from './format.js';

/** The scopes a token may have, lichess's names, in the order offered. */
const SCOPES = ['challenge:read', 'challenge:write', 'bot:play', 'board:play', 'tournament:write'];
/** The scopes ticked at first: what a program playing through the Board API needs. */
const DEFAULT_SCOPES = ['challenge:read', 'challenge:write', 'board:play'];

/**
 * @typedef {{id: string, description: string, scopes: string[], created_ms: number,
 *   last_used_ms: number | null, token?: string}} TokenInfo
 */

/**
 * The tokens section: its state lives here, `redraw` draws the page again after a change.
 * @param {() => void} redraw
 * @returns {{node: () => HTMLElement, load: () => Promise<void>}}
 */
export function tokenPanel(redraw) {
  /** @type {TokenInfo[] | null} */
  let tokens = null;
  /** the secret of the token just made (shown once) */
  let fresh = /** @type {TokenInfo | null} */ (null);
  let message = '';
  let description = '';
  const chosen = new Set(DEFAULT_SCOPES);

  const load = async () => {
    try {
      tokens = await api('GET', '/api/tokens');
      message = '';
    } catch (err) {
      tokens = tokens ?? [];
      message = errorText(err);
    }
    redraw();
  };

  const create = async (/** @type {Event} */ e) => {
    e.preventDefault();
    try {
      fresh = await api('POST', '/api/tokens', { description: description.trim(), scopes: SCOPES.filter((s) => chosen.has(s)) });
      description = '';
      message = '';
    } catch (err) {
      message = errorText(err);
    }
    await load();
  };

  const revoke = async (/** @type {string} */ id) => {
    try {
      await api('DELETE', `/api/tokens/${encodeURIComponent(id)}`);
      if (fresh?.id === id) fresh = null;
      message = '';
    } catch (err) {
      message = errorText(err);
    }
    await load();
  };

  const node = () => {
    const list = tokens === null ? h('p', { class: 'muted' }, t('app.connecting'))
      : tokens.length === 0 ? h('p', { class: 'muted', id: 'no-tokens' }, t('tokens.none'))
        : h('div', { class: 'scroll-x' }, h('table', { class: 'tables', id: 'token-list' },
          h('thead', {}, h('tr', {}, h('th', {}, t('tokens.description')), h('th', {}, t('tokens.scopes')),
            h('th', {}, t('tokens.created')), h('th', {}, t('tokens.last_used')), h('th', {}))),
          h('tbody', {}, ...tokens.map((k) => h('tr', { 'data-token': k.id },
            h('td', { class: 'token-description' }, k.description),
            h('td', { class: 'token-scopes' }, k.scopes.join(', ')),
            h('td', { class: 'date' }, formatDate(k.created_ms)),
            h('td', { class: 'date' }, k.last_used_ms === null ? t('tokens.never') : formatDate(k.last_used_ms)),
            h('td', {}, h('button', {
              class: 'small', type: 'button', 'data-revoke': k.id,
              onclick: () => { if (confirm(t('tokens.revoke_confirm', { name: k.description }))) revoke(k.id); },
            }, t('tokens.revoke'))))))));
    const shown = fresh?.token ? h('div', { class: 'notice', id: 'new-token', role: 'status' },
      h('p', {}, t('tokens.shown_once')),
      h('code', { class: 'token-secret', id: 'new-token-secret' }, fresh.token)) : null;
    const form = h('form', { id: 'token-form', class: 'token-form', onsubmit: create },
      h('label', {}, h('span', { class: 'label-text' }, t('tokens.description')), ' ',
        h('input', {
          id: 'token-description', maxlength: 100, required: true, value: description,
          oninput: (/** @type {Event} */ e) => { description = /** @type {HTMLInputElement} */ (e.target).value; },
        })),
      h('fieldset', { class: 'token-scopes' }, h('legend', {}, t('tokens.scopes')),
        ...SCOPES.map((s) => h('label', { class: 'scope' },
          h('input', {
            type: 'checkbox', 'data-scope': s, checked: chosen.has(s),
            onchange: (/** @type {Event} */ e) => {
              if (/** @type {HTMLInputElement} */ (e.target).checked) chosen.add(s); else chosen.delete(s);
            },
          }), ` ${s} `, h('span', { class: 'muted' }, t(`tokens.scope.${s}`))))),
      h('button', { type: 'submit', class: 'primary', id: 'token-create' }, t('tokens.create')));
    return h('section', { class: 'card', id: 'tokens' },
      h('h2', {}, t('tokens.title')),
      h('p', { class: 'muted' }, t('tokens.intro')),
      message ? h('p', { class: 'error', role: 'alert' }, message) : null,
      shown, list, h('h3', {}, t('tokens.new')), form);
  };

  return { node, load };
}
