#!/usr/bin/env bash
# Shears against another UCI engine (a reference such as Debian's Ethereal 12): fastchess games
# from a book, colours reversed on every opening, 1 thread and 16 MB each, Ponder off, games
# adjudicated as tools/nnue-match.sh does them (ADJUDICATE=0 plays every game out).
#
# usage: tools/vs-engine.sh SHEARS OPPONENT BOOK OUTDIR [TC] [GAMES] [CONCURRENCY] [OPTION=VALUE...]
#   e.g. tools/vs-engine.sh target/release/shears /usr/games/ethereal-chess \
#            ../shared/books/UHO_4060_v2.epd ~/shears-data/vs-ethereal 10+0.1 200
# OPTION=VALUE pairs after the concurrency go to Shears (e.g. "EvalFile=/path/to/net.nnue");
# OPPONENT_OPTIONS="UCI_Variant=chess" (space-separated OPTION=VALUE pairs) go to the opponent,
# as Debian's fairy-stockfish needs.
# Needs fastchess on the PATH. Writes OUTDIR/match.log, .pgn, .fclog, fastchess' config.json and
# host.txt: the CPU, and each engine's bench speed before the games (Shears always; Ethereal and
# the Stockfish family with their own `bench`). Results against another engine depend on the
# host, see docs/nnue.md "The ladder and the host".
set -euo pipefail
engine=${1:?shears binary}
opponent=${2:?opponent binary}
book=${3:?book (EPD or PGN)}
out=${4:?output folder}
tc=${5:-10+0.1}
games=${6:-200}
conc=${7:-2}
shift $(( $# < 7 ? $# : 7 ))
format=epd
case "$book" in *.pgn) format=pgn ;; esac
mkdir -p "$out"
adjudicate=()
if [ "${ADJUDICATE:-1}" != 0 ]; then
    adjudicate=(-resign movecount=3 score=600 twosided=true -draw movenumber=34 movecount=8 score=20)
fi
shears_opts=()
for kv in "$@"; do shears_opts+=("option.$kv"); done
opponent_opts=()
read -r -a opponent_kvs <<< "${OPPONENT_OPTIONS:-}"
for kv in "${opponent_kvs[@]}"; do opponent_opts+=("option.$kv"); done
{
    grep -m1 "model name" /proc/cpuinfo || true
    echo "vcpus: $(nproc)"
    echo "shears bench: $("$engine" bench 2>&1 | tail -1)"
    case "$(basename "$opponent")" in
    ethereal-chess) echo "opponent bench: $("$opponent" bench 2>&1 | tr '\n' ' ' | grep -o 'NPS *: *[0-9]*')" ;;
    *stockfish*) echo "opponent bench: $("$opponent" bench 2>&1 | grep -o 'Nodes/second *: *[0-9]*')" ;;
    esac
} > "$out/host.txt"
fastchess \
    -engine cmd="$engine" name=shears "${shears_opts[@]}" \
    -engine cmd="$opponent" name="$(basename "$opponent")" "${opponent_opts[@]}" \
    -each tc="$tc" option.Hash=16 option.Threads=1 option.Ponder=false \
    -openings file="$book" format="$format" order=random \
    -games 2 -rounds $((games / 2)) -repeat -concurrency "$conc" "${adjudicate[@]}" \
    -recover -pgnout file="$out/match.pgn" \
    -log file="$out/match.fclog" level=warn -config outname="$out/config.json" \
    > "$out/match.log" 2>&1 || true
grep -E "Elo:|Games:|Ptnml" "$out/match.log" | tail -3
