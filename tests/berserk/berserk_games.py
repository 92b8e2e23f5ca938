#!/usr/bin/env python3
"""Plays xiangqi on a running `chuhe serve` through `berserk`, the lichess API client from PyPI
(docs/bots.md), with nothing changed but its base URL: what a lichess bot author would run.

Usage: berserk_games.py --server http://127.0.0.1:PORT --chuhe path/to/chuhe
                        --bot TOKEN --bot2 TOKEN --person TOKEN

The tokens: two bot accounts (`chuhe token create --bot`) and one person
(`chuhe token create`, board:play). Three games, each to its end:

1. the first bot against chuhe's computer (level 1, 5+0 clock, as Red):
   `client.challenges.create_ai`, `client.bots.stream_incoming_events`,
   `client.bots.stream_game_state`, `client.bots.post_message`, `client.bots.make_move`;
2. the two bots against each other (untimed): `client.challenges.create` by one,
   `client.bots.accept_challenge` by the other when its event stream says `challenge`;
3. the person through the Board API against the computer: `client.board.stream_game_state`,
   `client.board.make_move` for two moves, then `client.board.resign_game` (two, not six: in
   CI `chuhe uci` once mated the level-1 computer with its sixth move, which ended the game
   before the resignation).

Moves come from `chuhe uci` (go movetime 20). The server refuses an illegal move (berserk
raises ResponseError): any refusal, stream error or game that does not end fails the script
(exit status 1, the reason on standard error). It prints one line per game:
`game ID: STATUS, winner COLOR, N moves`.
"""
import argparse
import queue
import subprocess
import sys
import threading

import berserk

ENDED = {"mate", "resign", "stalemate", "timeout", "draw", "outoftime", "variantEnd", "aborted"}


class Engine:
    """`chuhe uci`, asked for one move at a time."""

    def __init__(self, chuhe):
        self.p = subprocess.Popen(
            [chuhe, "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("uci")
        self.wait("uciok")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, first_word):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("chuhe uci exited")
            if line.split()[:1] == [first_word]:
                return line.split()

    def best(self, moves):
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send("go movetime 20")
        return self.wait("bestmove")[1]

    def quit(self):
        self.send("quit")
        self.p.wait(timeout=5)


def events_of(client):
    """The account's event stream, read by a thread into a queue."""
    q = queue.Queue()

    def read():
        try:
            for event in client.bots.stream_incoming_events():
                q.put(event)
        except Exception as e:  # the stream's end is reported to the reader
            q.put({"type": "error", "error": repr(e)})

    threading.Thread(target=read, daemon=True).start()
    return q


def wait_for(q, kind, predicate=lambda e: True, timeout=30):
    while True:
        event = q.get(timeout=timeout)
        if event.get("type") == "error":
            raise RuntimeError(f"event stream: {event['error']}")
        if event.get("type") == kind and predicate(event):
            return event


def play(api, game_id, my_id, engine, chat=None, stop_after=None, resign=None):
    """Plays game_id to its end through api (client.bots or client.board): the last state and
    the number of moves. With stop_after, resigns through `resign` after that many own moves."""
    stream = api.stream_game_state(game_id)
    full = next(stream)
    assert full["type"] == "gameFull", full
    white = full["white"].get("id") == my_id
    assert white or full["black"].get("id") == my_id, full
    if chat:
        api.post_message(game_id, chat)
    state = full["state"]
    answered = set()
    mine = 0
    while True:
        if state.get("type") == "gameState":
            moves = state["moves"].split()
            if state["status"] in ENDED:
                return state, len(moves)
            # "created": a game between two players starts once both streams are open
            assert state["status"] in ("created", "started"), state
            my_turn = state["status"] == "started" and (len(moves) % 2 == 0) == white
            if my_turn and len(moves) not in answered:
                answered.add(len(moves))
                if stop_after is not None and mine >= stop_after:
                    resign(game_id)
                else:
                    api.make_move(game_id, engine.best(moves))
                    mine += 1
            if len(moves) > 1000:
                raise RuntimeError(f"game {game_id} does not end")
        state = next(stream)


def report(game_id, state, n):
    winner = f"winner {state['winner']}" if state.get("winner") else "no winner"
    print(f"game {game_id}: {state['status']}, {winner}, {n} moves", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--chuhe", required=True)
    ap.add_argument("--bot", required=True)
    ap.add_argument("--bot2", required=True)
    ap.add_argument("--person", required=True)
    a = ap.parse_args()

    def client(token):
        return berserk.Client(session=berserk.TokenSession(token), base_url=a.server)

    bot, bot2, person = client(a.bot), client(a.bot2), client(a.person)
    me = bot.account.get()
    assert me.get("title") == "BOT", me
    me2 = bot2.account.get()
    someone = person.account.get()
    assert "title" not in someone or someone["title"] != "BOT", someone
    engine = Engine(a.chuhe)

    # 1. A bot against the computer, on a clock.
    events = events_of(bot)
    game = bot.challenges.create_ai(level=1, clock_limit=300, clock_increment=0, color="white",
                                    variant="xiangqi")
    game_id = game["id"]
    start = wait_for(events, "gameStart", lambda e: e["game"]["gameId"] == game_id)
    assert start["game"]["color"] == "white", start
    state, n = play(bot.bots, game_id, me["id"], engine, chat="good luck")
    report(game_id, state, n)
    wait_for(events, "gameFinish", lambda e: e["game"]["gameId"] == game_id)

    # 2. Two bots: one challenges, the other accepts from its event stream.
    events2 = events_of(bot2)
    challenge = bot.challenges.create(me2["username"], rated=False, color="white",
                                      variant="xiangqi")
    incoming = wait_for(events2, "challenge", lambda e: e["challenge"]["id"] == challenge["id"])
    assert incoming["challenge"]["challenger"]["name"] == me["username"], incoming
    bot2.bots.accept_challenge(challenge["id"])
    started = wait_for(events2, "gameStart")
    game_id = started["game"]["gameId"]
    wait_for(events, "gameStart", lambda e: e["game"]["gameId"] == game_id)
    engine2 = Engine(a.chuhe)
    result = {}

    def second():
        try:
            result["black"] = play(bot2.bots, game_id, me2["id"], engine2)
        except Exception as e:
            result["error"] = repr(e)

    t = threading.Thread(target=second)
    t.start()
    state, n = play(bot.bots, game_id, me["id"], engine)
    t.join(timeout=120)
    if "error" in result:
        raise RuntimeError(f"the second bot: {result['error']}")
    assert result["black"][1] == n, (result, n)
    report(game_id, state, n)
    engine2.quit()

    # 3. A person through the Board API: two moves, then resigns (five moves in the game).
    game = person.challenges.create_ai(level=1, color="black", variant="xiangqi")
    game_id = game["id"]
    state, n = play(person.board, game_id, someone["id"], engine, stop_after=2,
                    resign=person.board.resign_game)
    assert state["status"] == "resign" and state["winner"] == "white", state
    report(game_id, state, n)
    engine.quit()


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        print(f"berserk_games: {e!r}", file=sys.stderr)
        sys.exit(1)
