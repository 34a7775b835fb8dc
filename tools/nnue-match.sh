#!/usr/bin/env bash
# A net against another net: fastchess games of the same binary, one side with `EvalFile=NET`,
# the other with `EvalFile=BASE` (a net file, or `<default>`, the built-in net, by default).
# Colours reversed on every opening; Hash 16, 1 thread. Games are adjudicated
# as OpenBench does: a win when both engines score beyond 600 cp for 3 moves each, a draw after
# move 34 when both stay within 20 cp for 8 moves each (ADJUDICATE=0 plays every game out).
# SPRT="elo0=0 elo1=10" stops early by fastchess' SPRT (alpha = beta = 0.05); GAMES caps it.
#
# usage: tools/nnue-match.sh ENGINE NET BOOK OUTDIR [TC] [GAMES] [BASE] [CONCURRENCY]
# Needs fastchess on the PATH. Writes OUTDIR/match.log, .pgn, .fclog and fastchess' config.json.
set -euo pipefail
engine=${1:?engine binary}
net=${2:?net file}
book=${3:?book (EPD)}
out=${4:?output folder}
tc=${5:-10+0.1}
games=${6:-300}
base=${7:-<default>}
conc=${8:-2}
mkdir -p "$out"
adjudicate=()
if [ "${ADJUDICATE:-1}" != 0 ]; then
    adjudicate=(-resign movecount=3 score=600 twosided=true -draw movenumber=34 movecount=8 score=20)
fi
sprt=()
if [ -n "${SPRT:-}" ]; then
    read -r -a sprt_bounds <<< "$SPRT"
    sprt=(-sprt "${sprt_bounds[@]}" alpha=0.05 beta=0.05)
fi
base_opts=(name=base "option.EvalFile=$base")
fastchess \
    -engine cmd="$engine" name=net "option.EvalFile=$net" \
    -engine cmd="$engine" "${base_opts[@]}" \
    -each tc="$tc" option.Hash=16 option.Threads=1 \
    -openings file="$book" format=epd order=random \
    -games 2 -rounds $((games / 2)) -repeat -concurrency "$conc" "${adjudicate[@]}" "${sprt[@]}" \
    -recover -pgnout file="$out/match.pgn" \
    -log file="$out/match.fclog" level=warn -config outname="$out/config.json" \
    > "$out/match.log" 2>&1 || true
grep -E "Elo:|Games:|Ptnml|LLR" "$out/match.log" | tail -4
