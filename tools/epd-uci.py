#!/usr/bin/env python3
"""Runs any UCI engine on an EPD suite (bm/am operations) at a fixed time per position, the
way `shears epd` runs Shears, so that reference engines can be scored under the same
conditions (one `ucinewgame` per position, `go movetime MS`).

usage: tools/epd-uci.py ENGINE SUITE MS [OPTION=VALUE ...]
e.g.   tools/epd-uci.py /usr/games/toga2 ../shared/suites/wac.epd 500 Hash=16 OwnBook=false

Needs python-chess (`pip install chess`). Prints the solved count and the ids of the misses.
"""

import sys

import chess
import chess.engine


def option_value(text):
    if text.lstrip("-").isdigit():
        return int(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    engine_path, suite, ms = sys.argv[1], sys.argv[2], int(sys.argv[3])
    options = {}
    for arg in sys.argv[4:]:
        name, sep, value = arg.partition("=")
        if not sep:
            print(f"not OPTION=VALUE: {arg}", file=sys.stderr)
            return 2
        options[name] = option_value(value)

    solved, total, misses = 0, 0, []
    with open(suite, encoding="utf-8") as lines:
        cases = [line for line in lines if line.strip()]
    engine = chess.engine.SimpleEngine.popen_uci(engine_path)
    try:
        engine.configure(options)
        for line in cases:
            board, ops = chess.Board.from_epd(line)
            # A fresh game object per position makes python-chess send `ucinewgame`.
            result = engine.play(board, chess.engine.Limit(time=ms / 1000), game=object())
            best, avoid = ops.get("bm", []), ops.get("am", [])
            total += 1
            if (not best or result.move in best) and result.move not in avoid:
                solved += 1
            else:
                misses.append(str(ops.get("id", total)))
    finally:
        engine.quit()
    print(f"solved {solved} of {total}")
    print(" ".join(misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
