// The Swiss event's page #/swiss/ID (docs/tournaments.md, docs/protocol.md "Swiss"): the
// countdown to the start or to the next round, join / withdraw, the standings with the points
// and the tie-breaks (Sonneborn-Berger, Buchholz) and each player's rounds, the rounds with
// their pairings and results (the latest first), the rules of the event, the podium. It follows
// the server's NDJSON stream GET /api/swiss/{id}/stream (read with fetch); when the signed-in
// player is paired, it takes them to their table once.

import { t } from './i18n.js';
import { api } from './net.js';
import { h } from './dom.js';
import { errorText, ratedBadge } from './format.js';
import { countdownNode, countdownTicker, sentTo, tourClockText } from './tournament.js';

/**
 * One round of a player's sheet: a game (o the opponent's name, c the player's colour, r the
 * result for the player, null in play, and the table), or a bye, a late round 1, an absence.
 * @typedef {{round: number, kind: 'game' | 'bye' | 'late' | 'absent', o?: string, c?: 'red' | 'black',
 *   r?: 'win' | 'draw' | 'loss' | null, table?: string | null}} SwissEntry
 */
/**
 * @typedef {{rank: number, id: string, name: string, rating: number, points: number, tieBreak: number,
 *   buchholz: number, withdraw?: boolean, playing?: string, sheet: SwissEntry[]}} SwissPlayer
 * @typedef {{id: string, name: string, rating: number}} SwissSide
 * @typedef {{board: number, id: string | null, red: SwissSide, black: SwissSide, result: string | null}} SwissGame
 * @typedef {{round: number, games: SwissGame[], bye: string | null}} SwissRound
 * @typedef {{id: string, name: string, fullName: string, variant: string, clock: {limit: number, increment: number},
 *   rated: boolean, nbPlayers: number, round: number, nbRounds: number, nbOngoing: number, roundInterval: number,
 *   status: 'created' | 'started' | 'finished', isStarted: boolean, isFinished: boolean, secondsToStart?: number,
 *   nextRound?: {at: number, in: number}, endReason?: string, standing: {page: number, players: SwissPlayer[]},
 *   rounds: SwissRound[], podium?: {name: string, rank: number, rating: number, points: number, tieBreak: number}[]}} SwissView
 */

/**
 * Points as the page writes them: `2`, `1½`, `½`.
 * @param {number} x
 */
export function halfText(x) {
  const whole = Math.floor(x);
  const half = x - whole >= 0.5;
  if (!half) return String(whole);
  return whole === 0 ? '½' : `${whole}½`;
}

/**
 * The mark of one round on a player's line: `1`, `½`, `0` for a game (coloured by the result,
 * the colour played as a small disc), `+` for a bye, `–` for an absence, `…` in play.
 * @param {SwissEntry} e
 */
function entryMark(e) {
  if (e.kind === 'game') {
    const text = e.r === 'win' ? '1' : e.r === 'draw' ? '½' : e.r === 'loss' ? '0' : '…';
    const title = `${t('swiss.round_n', { n: e.round })} · ${e.r ? t(`tour.${e.r}`) : t('tour.playing')} · ${t('tour.against', { name: e.o ?? '?' })} · ${t(`seat.xiangqi.${e.c === 'red' ? 0 : 1}`)}`;
    return h('span', { class: `res ${e.r ?? 'playing'} colour-${e.c}`, title }, text);
  }
  const text = e.kind === 'bye' ? '1' : e.kind === 'late' ? '½' : '0';
  return h('span', { class: `res ${e.kind}`, title: `${t('swiss.round_n', { n: e.round })} · ${t(`swiss.${e.kind}`)}` }, text);
}

/**
 * The Swiss event's page (#/swiss/ID).
 * @param {import('./app.js').Shell} shell
 * @param {string} id
 * @returns {{draw: () => void, leave: () => void}}
 */
export function swissPage(shell, id) {
  let stopped = false;
  /** @type {SwissView | null} */
  let view = null;
  /** `performance.now()` when the view came */
  let receivedAt = 0;
  let message = '';
  let missing = false;
  /** the player whose rounds are open */
  /** @type {string | null} */
  let opened = null;
  const abort = new AbortController();
  /** @type {ReturnType<typeof setTimeout> | null} */
  let retry = null;

  /** @param {SwissView} v */
  const take = (v) => {
    view = v;
    receivedAt = performance.now();
    const me = shell.session.me;
    const line = me ? v.standing.players.find((p) => p.id === me.id) : undefined;
    if (line?.playing && !sentTo.has(line.playing) && !stopped) {
      sentTo.add(line.playing);
      location.hash = `#/t/${line.playing}`;
      return;
    }
    draw();
  };

  const follow = async () => {
    try {
      const res = await fetch(`/api/swiss/${encodeURIComponent(id)}/stream`, { credentials: 'same-origin', signal: abort.signal });
      if (res.status === 404) {
        missing = true;
        draw();
        return;
      }
      if (!res.ok || !res.body) throw new Error(`stream: ${res.status}`);
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const text = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (text) take(JSON.parse(text));
        }
      }
    } catch (err) {
      if (stopped) return;
      message = errorText(err);
    }
    if (stopped || view?.isFinished) return;
    retry = setTimeout(follow, 2000);
  };

  /** @param {'join' | 'withdraw'} what */
  const act = async (what) => {
    try {
      await api('POST', `/api/swiss/${encodeURIComponent(id)}/${what}`);
      message = '';
    } catch (err) {
      message = errorText(err);
    }
    draw();
  };

  const draw = () => {
    if (stopped) return;
    if (missing) {
      shell.show(h('main', { class: 'tournament-page swiss-page', 'data-page': `swiss:${id}` },
        h('section', { class: 'card', id: 'not-found' }, h('p', { class: 'lead' }, t('tour.not_found')),
          h('a', { class: 'button', href: '#/tournaments' }, t('tour.all')))));
      return;
    }
    if (!view) {
      shell.show(h('main', { class: 'tournament-page swiss-page', 'data-page': `swiss:${id}` },
        h('section', { class: 'card' }, h('p', { class: 'muted' }, t('app.connecting')))));
      return;
    }
    const v = view;
    const me = shell.session.me;
    const mine = me ? v.standing.players.find((p) => p.id === me.id) : undefined;
    const joined = !!mine && !mine.withdraw;
    const status = v.isFinished
      ? h('p', { class: 'lead', id: 'tour-status' }, t('tour.finished'), v.endReason ? h('span', { class: 'muted' }, ` · ${t('swiss.ended_early')}`) : null)
      : !v.isStarted
        ? h('p', { class: 'lead', id: 'tour-status' }, t('tour.starts_in'), ' ', countdownNode((v.secondsToStart ?? 0) * 1000, receivedAt, 'tour-countdown'))
        : v.nextRound
          ? h('p', { class: 'lead', id: 'tour-status' }, t('swiss.next_round_in', { n: v.round + 1 }), ' ', countdownNode(v.nextRound.in * 1000, receivedAt, 'tour-countdown'))
          : h('p', { class: 'lead', id: 'tour-status' }, t('swiss.round_of', { n: v.round, of: v.nbRounds }), ' · ', t('swiss.ongoing', { n: v.nbOngoing }));
    /** @type {(HTMLElement | null)[]} */
    const buttons = [];
    const lateJoin = v.round * 2 <= v.nbRounds;
    if (!v.isFinished && me?.account) {
      if (!joined && lateJoin) buttons.push(h('button', { id: 'tour-join', class: 'primary', onclick: () => act('join') }, t(mine ? 'tour.rejoin' : 'tour.join')));
      else if (!joined) buttons.push(h('p', { class: 'muted', id: 'swiss-closed' }, t('swiss.closed')));
      else buttons.push(h('button', { id: 'tour-withdraw', onclick: () => act('withdraw') }, t('tour.withdraw')));
      if (mine?.playing) buttons.push(h('a', { class: 'button primary', id: 'tour-my-game', href: `#/t/${mine.playing}` }, t('lobby.back_to_game')));
    } else if (!v.isFinished) {
      buttons.push(h('p', { class: 'muted', id: 'tour-needs-account' }, t('tour.needs_account')));
    }
    const head = h('section', { class: 'card tour-head' },
      h('h1', { id: 'tour-name' }, v.fullName, ' ', h('span', { class: 'system-badge' }, t('swiss.badge')), v.rated ? ' ' : null, ratedBadge(v.rated)),
      h('p', { class: 'tour-facts' }, `${t(`variant.${v.variant}`)} · ${tourClockText(v.clock)} · ${t('swiss.rounds_n', { n: v.nbRounds })} · ${t('tour.nb_players', { n: v.nbPlayers })}`),
      status,
      joined && !v.isFinished ? h('p', { class: 'muted', id: 'tour-joined' }, t(v.isStarted ? 'swiss.joined_started' : 'tour.joined_waiting')) : null,
      mine?.withdraw && !v.isFinished ? h('p', { class: 'muted', id: 'tour-paused' }, t('swiss.withdrawn')) : null,
      message ? h('p', { class: 'error', role: 'alert', id: 'tour-message' }, message) : null,
      h('div', { class: 'actions' }, ...buttons));
    const podium = v.isFinished && v.podium && v.podium.length > 0 ? h('section', { class: 'card podium', id: 'podium' },
      h('h2', {}, t('tour.podium')),
      h('ol', { class: 'podium-steps' }, ...v.podium.map((p) => h('li', { class: `step step-${p.rank}`, 'data-rank': p.rank },
        h('span', { class: `medal medal-${p.rank}` }, String(p.rank)),
        h('strong', { class: 'podium-name' }, p.name),
        h('span', { class: 'podium-score' }, t('swiss.points', { n: halfText(p.points) })),
        h('span', { class: 'muted podium-nb' }, `${t('swiss.tie_break_short')} ${p.tieBreak}`))))) : null;
    const rows = v.standing.players.flatMap((p) => {
      const open = opened === p.id;
      const row = h('tr', {
        id: `standing-${p.id}`, 'data-player': p.id, class: `standing-row${me && p.id === me.id ? ' me' : ''}${p.withdraw ? ' paused' : ''}${open ? ' open' : ''}`,
        onclick: () => { opened = open ? null : p.id; draw(); },
      },
      h('td', { class: 'rank' }, String(p.rank)),
      h('td', { class: 'who' }, h('a', { class: 'player-link', href: `#/p/${p.id}`, onclick: (/** @type {Event} */ e) => e.stopPropagation() }, p.name),
        h('span', { class: 'list-rating' }, ` ${p.rating}`), p.withdraw ? h('span', { class: 'muted paused-mark', title: t('swiss.withdrawn_mark') }, ` · ${t('swiss.withdrawn_short')}`) : null,
        p.playing ? h('span', { class: 'playing-mark', title: t('tour.playing') }, ' ♟\uFE0E') : null),
      h('td', { class: 'sheet-cell' }, h('span', { class: 'sheet' }, ...p.sheet.map(entryMark))),
      h('td', { class: 'tie', title: t('swiss.tie_break') }, String(p.tieBreak)),
      h('td', { class: 'tie', title: t('swiss.buchholz') }, String(p.buchholz)),
      h('td', { class: 'score', 'data-score': p.points }, halfText(p.points)));
      if (!open) return [row];
      return [row, h('tr', { class: 'player-results', id: `results-${p.id}` }, h('td', { colspan: 6 },
        p.sheet.length === 0 ? h('p', { class: 'muted' }, t('tour.no_results'))
          : h('ol', { class: 'results-list' }, ...p.sheet.map((e) => h('li', { class: `res-line ${e.r ?? e.kind}` },
            e.kind === 'game'
              ? `${e.r ? t(`tour.${e.r}`) : t('tour.playing')} · ${t('tour.against', { name: e.o ?? '?' })} · ${t(`seat.xiangqi.${e.c === 'red' ? 0 : 1}`)}`
              : t(`swiss.${e.kind}`),
            e.kind === 'game' && e.table ? h('a', { class: 'button small', href: `#/t/${e.table}` }, ' ', t('lobby.watch')) : null)))))];
    });
    const standings = h('section', { class: 'card standings-card' }, h('h2', {}, t('tour.standings')),
      v.standing.players.length === 0 ? h('p', { class: 'muted', id: 'no-players' }, t('tour.no_players'))
        : h('div', { class: 'scroll-x' }, h('table', { class: 'tables standings swiss-standings', id: 'standings' },
          h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, t('tour.player')), h('th', {}, t('swiss.rounds')),
            h('th', { title: t('swiss.tie_break') }, t('swiss.tie_break_short')), h('th', { title: t('swiss.buchholz') }, t('swiss.buchholz_short')),
            h('th', {}, t('tour.score')))),
          h('tbody', {}, ...rows))),
      h('p', { class: 'muted hint' }, t('tour.click_hint')));
    const rounds = v.rounds.length > 0 ? h('section', { class: 'card swiss-rounds', id: 'rounds' }, h('h2', {}, t('swiss.pairings')),
      ...v.rounds.slice().reverse().map((r) => h('div', { class: 'swiss-round', id: `round-${r.round}` },
        h('h3', {}, t('swiss.round_n', { n: r.round })),
        h('ol', { class: 'pairings' }, ...r.games.map((g) => h('li', { class: 'pairing', 'data-board': g.board },
          g.id ? h('a', { href: `#/t/${g.id}`, class: 'duel-link' }, `${g.red.name} – ${g.black.name}`) : `${g.red.name} – ${g.black.name}`,
          ' ', h('span', { class: g.result ? 'result' : 'muted result' }, g.result ?? t('tour.playing'))))),
        r.bye ? h('p', { class: 'muted bye' }, t('swiss.bye_of', { name: r.bye })) : null))) : null;
    const rules = h('section', { class: 'card tour-rules', id: 'tour-rules' }, h('h2', {}, t('tour.rules')),
      h('ul', {},
        h('li', {}, t('swiss.rule_rounds', { n: v.nbRounds })),
        h('li', {}, t('swiss.rule_points')),
        h('li', {}, t('swiss.rule_pairing')),
        h('li', {}, t('swiss.rule_late')),
        h('li', {}, t('swiss.rule_ties'))));
    shell.show(h('main', { class: 'tournament-page swiss-page', 'data-page': `swiss:${id}`, 'data-variant': v.variant },
      head, podium, h('div', { class: 'tour-cols' }, standings, h('div', { class: 'tour-side' }, rounds, rules)),
      h('p', {}, h('a', { class: 'button', href: '#/tournaments', id: 'to-tournaments' }, t('tour.all')))), `${v.fullName} · chuhe`);
  };

  draw();
  follow();
  const tick = setInterval(countdownTicker(), 1000);
  return {
    draw,
    leave: () => {
      stopped = true;
      abort.abort();
      if (retry) clearTimeout(retry);
      clearInterval(tick);
    },
  };
}
