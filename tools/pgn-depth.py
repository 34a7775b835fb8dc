#!/usr/bin/env python3
"""Per-engine search depth and time per move in a fastchess PGN.

    tools/pgn-depth.py GAMES.pgn [GAMES.pgn ...]

fastchess writes every move's comment as `{SCORE/DEPTH TIMEs}` (for example
`{+0.82/14 0.272s}`). This prints, for each engine name of the `White` and `Black` tags,
the moves counted, the mean depth and the mean time a move, and the count of move comments
it could not read (book moves, a missing comment). A match between two settings
of one engine that differ in speed or in tree shape shows it here: the same clock buys a
different depth.

Standard library only; exits 1 when a file has no game or no readable move comment.
"""

import re
import sys
from collections import defaultdict

TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
COMMENT = re.compile(r"\{([^}]*)\}")
SCORE_DEPTH_TIME = re.compile(r"\s*[+-]?(?:M?\d+(?:\.\d+)?)/(\d+)\s+(\d+(?:\.\d+)?)s")


def games(text):
    """Yields (tags, movetext) for each game of a PGN text."""
    tags, body, in_body = {}, [], False
    for line in text.splitlines():
        m = TAG.match(line)
        if m:
            if in_body:
                yield tags, "\n".join(body)
                tags, body, in_body = {}, [], False
            tags[m.group(1)] = m.group(2)
        elif line.strip():
            in_body = True
            body.append(line)
    if tags:
        yield tags, "\n".join(body)


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    # engine -> [moves read, depth sum, time sum, comments unread]
    stats = defaultdict(lambda: [0, 0, 0.0, 0])
    n_games = 0
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            print(f"error: {path}: {e}", file=sys.stderr)
            return 1
        for tags, body in games(text):
            white, black = tags.get("White"), tags.get("Black")
            if white is None or black is None:
                continue
            n_games += 1
            # The side to move at the first comment: the FEN's, else White.
            fen = tags.get("FEN", "")
            black_first = len(fen.split()) > 1 and fen.split()[1] == "b"
            for i, comment in enumerate(COMMENT.findall(body)):
                engine = (black if black_first else white) if i % 2 == 0 else (
                    white if black_first else black)
                m = SCORE_DEPTH_TIME.match(comment)
                s = stats[engine]
                if m is None:
                    s[3] += 1
                    continue
                s[0] += 1
                s[1] += int(m.group(1))
                s[2] += float(m.group(2))
    if n_games == 0 or not any(s[0] for s in stats.values()):
        print("error: no game with readable move comments", file=sys.stderr)
        return 1
    print(f"{n_games} games")
    print(f"{'engine':<20} {'moves':>8} {'depth':>8} {'time (s)':>9} {'unread':>7}")
    for engine in sorted(stats):
        moves, depth, time, unread = stats[engine]
        if moves == 0:
            print(f"{engine:<20} {0:>8} {'-':>8} {'-':>9} {unread:>7}")
            continue
        print(f"{engine:<20} {moves:>8} {depth / moves:>8.3f} {time / moves:>9.4f} {unread:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
