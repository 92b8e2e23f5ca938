"""Random xiangqi games written by pyffish in its SAN (get_san_moves), as PGN."""
import random, sys
import pyffish as sf

def game(rng, max_plies):
    fen = sf.start_fen('xiangqi')
    moves = []
    while len(moves) < max_plies:
        legal = sf.legal_moves('xiangqi', fen, moves)
        if not legal:
            break
        # prefer captures a little so that games reach endgames
        moves.append(rng.choice(legal))
    return fen, moves

def main():
    seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    with open(out, 'w') as f:
        for g in range(n):
            fen, moves = game(rng, rng.randint(40, 160))
            san = sf.get_san_moves('xiangqi', fen, moves)
            legal = sf.legal_moves('xiangqi', fen, moves)
            if not legal:
                result = '0-1' if len(moves) % 2 == 0 else '1-0'
            else:
                result = '*'
            f.write('[Event "pyffish random game %d"]\n' % (g + 1))
            f.write('[Variant "xiangqi"]\n[Result "%s"]\n' % result)
            f.write('[PlyCount "%d"]\n[EndFEN "%s"]\n\n' % (len(moves), sf.get_fen('xiangqi', fen, moves)))
            body = []
            for i, m in enumerate(san):
                if i % 2 == 0:
                    body.append('%d.' % (i // 2 + 1))
                body.append(m)
            body.append(result)
            line, text = '', ''
            for t in body:
                if len(line) + len(t) + 1 > 79:
                    text += line + '\n'
                    line = t
                else:
                    line = (line + ' ' + t) if line else t
            text += line + '\n'
            f.write(text + '\n')
main()
