#!/usr/bin/env python3
"""Cross-check chuhe's WXF reader against Fairy-Stockfish's WXF writer (pyffish).

For positions along a fixed sample of games.tsv plus the tandem positions of spec/notation.md
section 7, every legal move is spelled by pyffish (`get_san` with NOTATION_XIANGQI_WXF), written
as a one-move PGN game, and read back by `chuhe records convert --to tsv`: each must give the
same move. Prints one line `wxf-cross-check: N passed, M failed`; exits 1 on any difference.

Usage: scripts/wxf-cross-check.py path/to/chuhe path/to/games.tsv
"""
import random
import re
import subprocess
import sys
import tempfile

import pyffish as sf

TANDEMS = [
    "3k5/9/9/7R1/9/9/7R1/9/9/4K4 w", "3k5/9/9/9/9/9/2N6/9/2N6/4K4 w",
    "4k4/9/1c7/9/1c7/9/9/9/9/3K5 b", "3k5/9/2P6/2P6/2P6/9/9/9/9/4K4 w",
    "3k5/2P6/2P6/2P6/2P6/9/9/9/9/4K4 w", "2P1k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w",
    "3k5/9/2P3P2/2P3P2/2P6/9/9/9/9/4K4 w", "3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w",
    "3k5/9/2P3P2/2P3P2/9/9/9/9/9/4K4 w", "4k4/9/9/9/9/6p2/6p2/6p2/9/3K5 b",
    "4k4/9/9/9/9/2p3p2/2p3p2/9/9/3K5 b",
    "3kna3/4a2C1/P3b4/1R2Pr3/4n1p1p/2pr4P/2P3P2/6N1B/R8/1NBAKA3 b",
]


def ranks_plus_one(move):
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


def ranks_minus_one(move):
    f1, r1, f2, r2 = re.fullmatch(r"([a-i])(\d+)([a-i])(\d+)", move).groups()
    return f"{f1}{int(r1) - 1}{f2}{int(r2) - 1}"


def main():
    chuhe, games_tsv = sys.argv[1], sys.argv[2]
    with open(games_tsv, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    rng = random.Random(20260314)
    fens = [fen + " - - 0 1" for fen in TANDEMS]
    for row in rng.sample(rows, 40):
        start, moves = row[6], row[7].split()
        for ply in range(0, len(moves) + 1, 13):
            fens.append(sf.get_fen("xiangqi", start, [ranks_plus_one(m) for m in moves[:ply]]))
    games, want = [], []
    for fen in fens:
        number = "1." if fen.split()[1] == "w" else "1..."
        for move in sf.legal_moves("xiangqi", fen, []):
            text = sf.get_san("xiangqi", fen, move, False, sf.NOTATION_XIANGQI_WXF)
            games.append(f'[FEN "{fen}"]\n\n{number} {text} *\n')
            want.append((ranks_minus_one(move), text, fen))
    with tempfile.NamedTemporaryFile("w", suffix=".pgn", encoding="utf-8") as pgn:
        pgn.write("\n".join(games))
        pgn.flush()
        run = subprocess.run([chuhe, "records", "convert", "--to", "tsv", pgn.name],
                             capture_output=True, text=True)
    got = [line.split("\t")[7] for line in run.stdout.splitlines()[1:]]
    failed = [(w, g) for w, g in zip(want, got) if w[0] != g]
    failed += [(w, None) for w in want[len(got):]]
    for (move, text, fen), g in failed[:10]:
        print(f"FAIL {fen}: pyffish {text} = {move}, chuhe read {g}")
    if run.returncode != 0:
        print(f"FAIL chuhe exited {run.returncode}: {run.stderr[:500]}")
    print(f"wxf-cross-check ({len(fens)} positions): {len(want) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed or run.returncode != 0 else 0)


if __name__ == "__main__":
    main()
