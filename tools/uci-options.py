#!/usr/bin/env python3
"""Configures every option a UCI engine declares at its bounds through python-chess, the way a
GUI or a tuner would, and checks that the engine still answers with a legal move.

For each option: a spin at its minimum, its maximum and its default; a check at true and
false; a combo at each of its values; a string at an empty value and at a path that does not
exist; a button pressed. After each setting the engine must answer `isready` and play a legal
move from a middlegame position within a node limit, and whatever it printed as `info string`
python-chess logs (as "Unexpected engine output"). The engine is restarted only when it
died, and a death is a failure.

usage: tools/uci-options.py ENGINE [NODES]
e.g.   tools/uci-options.py target/release/shears 2000

Needs python-chess (`pip install chess`). Exits 1 if any setting failed.
"""

import sys

import chess
import chess.engine

FEN = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"


def values(opt):
    if opt.type == "spin":
        return [opt.min, opt.max, opt.default]
    if opt.type == "check":
        return [True, False, opt.default]
    if opt.type == "combo":
        return list(opt.var) + [opt.default]
    if opt.type == "string":
        return ["", "/nonexistent/shears-option-test", opt.default or ""]
    if opt.type == "button":
        return [None]
    return []


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = sys.argv[1]
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    engine = chess.engine.SimpleEngine.popen_uci(path)
    options = dict(engine.options)
    board = chess.Board(FEN)
    failures, settings = [], 0
    for name, opt in options.items():
        if opt.is_managed():
            # python-chess sets these itself (UCI_Chess960, Ponder; MultiPV below).
            continue
        for value in values(opt):
            settings += 1
            try:
                if opt.type == "button":
                    engine.protocol.send_line(f"setoption name {name}")
                else:
                    engine.configure({name: value})
                engine.ping()
                result = engine.play(board, chess.engine.Limit(nodes=nodes))
                if result.move is None or result.move not in board.legal_moves:
                    failures.append(f"{name}={value!r}: bestmove {result.move}")
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as e:
                failures.append(f"{name}={value!r}: {type(e).__name__}: {e}")
                try:
                    engine.quit()
                except Exception:
                    pass
                engine = chess.engine.SimpleEngine.popen_uci(path)
        # Back to the default before the next option.
        if opt.type != "button":
            try:
                engine.configure({name: opt.default if opt.type != "string" else (opt.default or "")})
            except chess.engine.EngineError:
                pass
    # MultiPV through the analysis path python-chess uses for it, at its bounds: as many
    # lines as there are legal moves when more are asked for.
    mpv = options.get("MultiPV")
    for k in ([mpv.min, 3, mpv.max] if mpv else []):
        settings += 1
        info = engine.analyse(board, chess.engine.Limit(nodes=nodes), multipv=k)
        want = min(k, board.legal_moves.count())
        if len(info) != want or any(i["pv"][0] not in board.legal_moves for i in info):
            failures.append(f"analyse multipv={k} gave {len(info)} lines, want {want}")
    engine.quit()
    print(f"{len(options)} options, {settings} settings, {len(failures)} failures")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
