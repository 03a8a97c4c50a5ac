#!/bin/sh
# Issue 38: two `orbit -p` runs in a row on the local model, as a person
# types them — a terminal on stdin/stdout/stderr (`script` gives one) —
# starting with no warm server. The first run loads the model and, being
# interactive, leaves it loaded for the keep-alive period
# (ORBIT_LOCAL_KEEP_ALIVE, 300 s by default); the second answers a
# one-Read question from the warm server. Target: second run <= 10 s on
# 2 cores.
#
# Usage: bench/local_second_run.sh [ORBIT_BINARY]   (default target/release/orbit)
# Needs `orbit local setup` done (in $ORBIT_HOME, default ~/.orbit). Stops
# the warm server of that data dir first and at the end. The page cache is
# not dropped (the model file may be cached from earlier runs); run it under
# `nice` on a shared machine and say so.
set -eu
ORBIT=$(realpath "${1:-target/release/orbit}")
dir=$(mktemp -d /tmp/orbit-second-run.XXXXXX)
trap '"$ORBIT" local stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
printf 'NAME=orbit\nPORT=8472\nMODE=test\n' > "$dir/config.txt"
cd "$dir"
"$ORBIT" local stop >/dev/null 2>&1 || true
# Unset provider variables: the local model, as with nothing configured.
unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL ORBIT_PROVIDER CI || true

now() { date +%s.%N; }
run() { # $1 = label, $2 = prompt
    start=$(now)
    script -qec "\"$ORBIT\" -p \"$2\"" /dev/null > "$dir/$1.out" 2>&1
    end=$(now)
    secs=$(echo "$end - $start" | bc)
    printf '%s run: %.1f s\n' "$1" "$secs"
    tr -d '\r' < "$dir/$1.out" | sed 's/^/    /'
}
run first "What is the value of MODE in config.txt?"
run second "What is the value of PORT in config.txt?"
