#!/usr/bin/env bash
# Real-editor check: headless Neovim (0.7.2, Debian's `neovim`) drives sourcemap-ls over stdio.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"

if ! command -v nvim >/dev/null 2>&1; then
  echo "run.sh: nvim is not installed (try: apt-get install -y neovim)" >&2
  exit 2
fi

cargo build --quiet --bin sourcemap-ls

export SOURCEMAP_LS="$repo/target/debug/sourcemap-ls"
export SOURCEMAP_REPO="$repo"

status=0
output="$(timeout 60 nvim --headless --clean -c "luafile $repo/tests/nvim/check.lua" 2>&1)" || status=$?
printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  if [ "$status" -eq 124 ]; then
    echo "run.sh: nvim timed out after 60s" >&2
  fi
  echo "run.sh: nvim check FAILED (exit $status)" >&2
  exit 1
fi
echo "run.sh: nvim check passed"
