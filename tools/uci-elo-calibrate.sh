#!/usr/bin/env bash
# Calibrates UCI_Elo: at each setting, Shears with UCI_LimitStrength plays Stockfish with
# UCI_LimitStrength at the same UCI_Elo (Debian's `stockfish`, 15.1 there). A setting is
# calibrated when Shears scores about 50% there.
#
# usage: tools/uci-elo-calibrate.sh ENGINE BOOK OUTDIR [TC] [GAMES] [CONCURRENCY] ELO...
# e.g.   tools/uci-elo-calibrate.sh target/release/shears ../shared/books/8moves_v3.pgn \
#            /tmp/cal 10+0.1 60 2 1600 2000 2400
# Needs fastchess and stockfish on the PATH (or FASTCHESS / STOCKFISH set). Writes
# OUTDIR/elo-<N>.log and .pgn and prints each setting's result line.
set -euo pipefail
engine=${1:?engine binary}
book=${2:?book (PGN or EPD)}
out=${3:?output folder}
tc=${4:-10+0.1}
games=${5:-60}
conc=${6:-2}
shift $(( $# < 6 ? $# : 6 ))
fastchess=${FASTCHESS:-fastchess}
stockfish=${STOCKFISH:-stockfish}
format=epd
case "$book" in *.pgn) format=pgn ;; esac
mkdir -p "$out"
for elo in "$@"; do
    "$fastchess" \
        -engine cmd="$engine" name="shears-$elo" option.UCI_LimitStrength=true option.UCI_Elo="$elo" \
        -engine cmd="$stockfish" name="stockfish-$elo" option.UCI_LimitStrength=true option.UCI_Elo="$elo" \
        -each tc="$tc" option.Hash=16 option.Threads=1 \
        -openings file="$book" format="$format" order=random \
        -games 2 -rounds $((games / 2)) -repeat -concurrency "$conc" \
        -recover -pgnout file="$out/elo-$elo.pgn" -config outname="$out/elo-$elo.config.json" \
        > "$out/elo-$elo.log" 2>&1 || true
    echo "== UCI_Elo $elo"
    grep -E "Elo:|Games:|Ptnml" "$out/elo-$elo.log" | tail -3
done
