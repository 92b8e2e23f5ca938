// HTTP calls and the table WebSocket with reconnection (docs/protocol.md).

import { readServerMessage } from './protocol.js';

/** An HTTP error with the server's code and message. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {number | null} [retryAfterS] the `Retry-After` header of a 429 or a 503, in seconds
   */
  constructor(status, code, message, retryAfterS = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfterS = retryAfterS;
  }
}

/**
 * Calls a JSON route.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  /** @type {any} */
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (a proxy's error page, say): the status decides below
    if (res.ok) throw new ApiError(res.status, 'internal', 'the server sent something that is not JSON');
  }
  if (!res.ok) {
    const retry = Number(res.headers.get('retry-after'));
    throw new ApiError(res.status, data?.error ?? 'internal', data?.message ?? res.statusText,
      Number.isFinite(retry) && retry > 0 ? retry : null);
  }
  return data;
}

/**
 * One table's WebSocket that reconnects after a drop and asks for what it missed (`?since=`).
 * `onMessage` sees every server message; `onStatus` sees 'open', 'lost' or 'closed'.
 */
export class TableSocket {
  /**
   * @param {string} tableId
   * @param {(msg: import('./protocol.js').ServerMessage) => void} onMessage
   * @param {(status: 'open' | 'lost' | 'closed') => void} onStatus
   */
  constructor(tableId, onMessage, onStatus) {
    this.tableId = tableId;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    /** @type {number | null} the last version seen */
    this.version = null;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.closed = false;
    /** whether the current connection has had its first state */
    this.synced = false;
    this.retryMs = 250;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    this.connect();
  }

  connect() {
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const since = this.version === null ? '' : `?since=${this.version}`;
    const ws = new WebSocket(`${proto}://${location.host}/api/tables/${this.tableId}/ws${since}`);
    this.ws = ws;
    this.synced = false;
    ws.onopen = () => {
      this.retryMs = 250;
      this.onStatus('open');
    };
    ws.onmessage = (e) => {
      const msg = readServerMessage(String(e.data));
      // a `since` the server does not know (a reset database): start again from the state
      if (msg.type === 'error' && msg.code === 'bad_message' && !this.synced) this.version = null;
      if (msg.type === 'state') this.synced = true;
      if (msg.type === 'state' || msg.type === 'event' || msg.type === 'update') this.version = msg.version;
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.onStatus('lost');
      this.timer = setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 5000);
    };
  }

  /** @param {import('./protocol.js').ClientMessage} msg */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  /** Drops the connection as a network failure would (the socket reconnects). */
  drop() {
    this.ws?.close();
  }

  close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close();
    this.onStatus('closed');
  }
}
