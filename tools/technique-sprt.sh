#!/usr/bin/env bash
# Measures each search technique: fastchess SPRT (or at most GAMES games) of the engine
# against the same engine with the technique switched off through setoption (the settings
# come from `params::TECHNIQUES`, printed by `shears techniques`).
#
# usage: tools/technique-sprt.sh ENGINE BOOK OUTDIR [TC] [GAMES] [CONCURRENCY] [TECHNIQUE...]
# Needs fastchess on the PATH. Writes OUTDIR/<technique>.log and .pgn.
set -euo pipefail
engine=${1:?engine binary}
book=${2:?book (EPD)}
out=${3:?output folder}
tc=${4:-2+0.02}
games=${5:-300}
conc=${6:-2}
shift $(( $# < 6 ? $# : 6 ))
mkdir -p "$out"
"$engine" techniques | while IFS='|' read -r name settings; do
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
    file=$(printf '%s' "$name" | tr ' ' '_')
    opts=()
    for kv in $settings; do opts+=("option.${kv}"); done
    echo "== $name: off = $settings"
    fastchess \
        -engine cmd="$engine" name=default \
        -engine cmd="$engine" name=off "${opts[@]}" \
        -each tc="$tc" option.Hash=16 option.Threads=1 \
        -openings file="$book" format=epd order=random \
        -games 2 -rounds $((games / 2)) -repeat -concurrency "$conc" \
        -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 \
        -recover -pgnout file="$out/$file.pgn" \
        -log file="$out/$file.fclog" level=warn -config outname="$out/$file.config.json" \
        > "$out/$file.log" 2>&1 || true
    grep -E "Elo:|LLR|Games:" "$out/$file.log" | tail -3
done
