#!/usr/bin/env bash
# Installs Claude Code (npm `@anthropic-ai/claude-code`, pinned) into a
# cached prefix for the comparison benchmarks (bench/*.sh and examples that
# run "the same thing through Claude Code"). Prints the path of the `claude`
# executable. Not needed by the test suite.
#   bench/install-claude-code.sh            # → ~/.cache/orbit-bench/npm/node_modules/.bin/claude
set -euo pipefail
VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
PREFIX="${ORBIT_BENCH_NPM:-$HOME/.cache/orbit-bench/npm}"
BIN="$PREFIX/node_modules/.bin/claude"
if ! [ -x "$BIN" ] || ! grep -q "\"version\": \"$VERSION\"" "$PREFIX/node_modules/@anthropic-ai/claude-code/package.json" 2>/dev/null; then
  mkdir -p "$PREFIX"
  npm install --silent --no-audit --no-fund --prefix "$PREFIX" "@anthropic-ai/claude-code@$VERSION" >&2
fi
[ -x "$BIN" ] || { echo "install-claude-code: $BIN missing after npm install" >&2; exit 1; }
echo "$BIN"
