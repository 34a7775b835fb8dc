#!/usr/bin/env bash
# Builds the release binary and prints the bench line (`<N> nodes <M> nps`).
# `bench.sh --check` fails when the node count differs from the newest `Bench:` trailer in
# `git log`, the signature that every search-changing commit carries.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --quiet
line=$(./target/release/shears bench | tail -n 1)
echo "$line"
if [ "${1:-}" = "--check" ]; then
    nodes=$(printf '%s\n' "$line" | grep -oE '^[0-9]+')
    want=$(git log --format=%B | grep -oiE '^bench: *[0-9,]+' | head -n 1 | grep -oE '[0-9,]+' | tr -d ,)
    if [ -z "$want" ]; then
        echo "no 'Bench:' trailer in git log" >&2
        exit 1
    fi
    if [ "$nodes" != "$want" ]; then
        echo "bench nodes $nodes differ from the latest 'Bench: $want' trailer" >&2
        exit 1
    fi
    echo "bench matches the latest trailer ($want)"
fi
