// The invite of an open table: while the receiver sits at it and a seat is still free, the
// table's link to send to a friend, a button that copies it and, on a phone (a coarse pointer
// with the system share sheet), one that shares it.

import { t } from '../i18n.js';
import { h } from '../dom.js';

/** The table whose link was copied last (its button says so until the page is drawn anew). */
let copiedFor = '';

/**
 * The link that opens table `id` (the page's own address, with the table's route).
 * @param {string} id
 * @returns {string}
 */
export function inviteLink(id) {
  return `${location.origin}${location.pathname}#/t/${encodeURIComponent(id)}`;
}

/**
 * Whether the invite shows for state `s`: an open table, the receiver seated, a seat free.
 * @param {import('../protocol.js').StateMessage | null} s
 * @returns {boolean}
 */
export function invites(s) {
  return !!s && s.table.phase === 'open' && s.you !== null && s.table.seats.some((x) => x === null);
}

/**
 * Copies `text`: the clipboard API, else the selected text of `input` and the copy command.
 * @param {string} text
 * @param {HTMLInputElement | null} input
 * @returns {Promise<boolean>} whether it was copied
 */
async function copy(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!input) return false;
    input.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

/**
 * The invite box of state `s` (or `null` when it does not show: {@link invites}).
 * @param {import('../protocol.js').StateMessage | null} s
 * @param {() => void} draw draws the page again (the copy button then says "copied")
 * @returns {HTMLElement | null}
 */
export function inviteNode(s, draw) {
  if (!s || !invites(s)) return null;
  const id = s.table.id;
  const link = inviteLink(id);
  const phone = typeof navigator.share === 'function' && matchMedia('(pointer: coarse)').matches;
  return h('section', { class: 'invite', id: 'invite' },
    h('label', { for: 'invite-link' }, t('table.invite')),
    h('div', { class: 'invite-row' },
      h('input', {
        id: 'invite-link', type: 'text', readonly: true, value: link,
        onfocus: (/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.target).select(),
      }),
      h('button', {
        id: 'copy-invite', type: 'button',
        onclick: async () => {
          const input = /** @type {HTMLInputElement | null} */ (document.getElementById('invite-link'));
          if (await copy(link, input)) {
            copiedFor = id;
            draw();
          }
        },
      }, copiedFor === id ? t('table.invite_copied') : t('table.invite_copy')),
      phone ? h('button', {
        id: 'share-invite', type: 'button',
        onclick: () => { navigator.share({ title: t('table.invite_title'), url: link }).catch(() => {}); },
      }, t('table.invite_share')) : null));
}
