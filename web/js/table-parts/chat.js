// The table page's chat: the seated players' among themselves, the spectators' among themselves
// (the server sends each room to its own); lines are text, never markup.

import { t } from '../i18n.js';
import { h } from '../dom.js';
import { guestBadge } from '../format.js';

/**
 * The chat room of a receiver at seat `you` (`null`: a spectator).
 * @param {number | null} you
 * @returns {'players' | 'spectators'}
 */
export function chatRoom(you) {
  return you === null ? 'spectators' : 'players';
}

/**
 * The chat of `table`'s page: `node` draws it (nothing without a session), keeping the line being
 * typed across drawings; `scroll` shows the last line.
 * @param {import('../table.js').Table} table
 * @param {import('../app.js').Shell} shell
 */
export function chatPart(table, shell) {
  /** the chat line being typed */
  let chatText = '';

  const node = () => {
    const s = table.state;
    if (!s || !shell.session.me) return null;
    const room = chatRoom(s.you);
    return h('section', { class: 'card chat', id: 'chat' },
      h('h3', {}, t(room === 'players' ? 'chat.players' : 'chat.spectators')),
      h('ol', { class: 'chat-lines', id: 'chat-lines' }, ...table.chat.filter((c) => c.room === room).map((c) =>
        h('li', { class: 'chat-line' }, h('strong', { class: 'chat-name', title: c.name }, c.name), c.account ? null : ' ', guestBadge(c.account), ' ', h('span', { class: 'chat-text' }, c.text)))),
      h('form', {
        class: 'chat-form',
        onsubmit: (/** @type {Event} */ e) => {
          e.preventDefault();
          const text = chatText.trim();
          if (!text) return;
          table.send({ type: 'chat', text });
          chatText = '';
          const input = /** @type {HTMLInputElement | null} */ (document.getElementById('chat-input'));
          if (input) input.value = '';
        },
      }, h('input', {
        id: 'chat-input', maxlength: 140, value: chatText, placeholder: t('chat.placeholder'), 'aria-label': t('chat.placeholder'),
        autocomplete: 'off', oninput: (/** @type {Event} */ e) => { chatText = /** @type {HTMLInputElement} */ (e.target).value; },
      }), h('button', { type: 'submit', id: 'chat-send' }, t('chat.send'))));
  };

  const scroll = () => {
    const lines = document.getElementById('chat-lines');
    if (lines) lines.scrollTop = lines.scrollHeight;
  };

  return { node, scroll };
}
