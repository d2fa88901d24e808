#!/usr/bin/env bash
# Real-editor check: headless Emacs 28 + Eglot 1.9 (Debian's emacs-nox, elpa-eglot) drives sourcemap-ls over stdio,
# in a git repository made of copies of the fixtures (Eglot takes the project root from version control).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"

if ! command -v emacs >/dev/null 2>&1; then
  echo "run.sh: emacs is not installed (try: apt-get install -y emacs-nox elpa-eglot)" >&2
  exit 2
fi

cargo build --quiet --bin sourcemap-ls

ws="$(mktemp -d)"
cache="$(mktemp -d)"
trap 'chmod -R u+w "$cache" 2>/dev/null; rm -rf "$ws" "$cache"' EXIT
mkdir -p "$ws/demo" "$ws/metro" "$ws/broken"
cp -r fixtures/demo/src fixtures/demo/dist "$ws/demo/"
cp -r fixtures/lsp/metro/. "$ws/metro/"
cp -r fixtures/lsp/broken/. "$ws/broken/"
git -C "$ws" init -q

export SOURCEMAP_LS="$repo/target/debug/sourcemap-ls"
export SOURCEMAP_WS="$ws"
export XDG_CACHE_HOME="$cache"

status=0
output="$(cd "$ws" && timeout 120 emacs --batch -l "$repo/tests/emacs/check.el" 2>&1)" || status=$?
printf '%s\n' "$output" | grep -E '^(ok|FAIL|summary)' || printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  [ "$status" -eq 124 ] && echo "run.sh: emacs timed out after 120 s" >&2
  echo "run.sh: emacs check FAILED (exit $status)" >&2
  printf '%s\n' "$output" | tail -20 >&2
  exit 1
fi
echo "run.sh: emacs check passed"
