#!/usr/bin/env bash
# A refactor's proof with the real Pulumi CLI: every example stack deployed on the local cluster
# by BASE's program, then previewed by this checkout's program on the same state; each preview
# must be empty (`pulumi preview --expect-no-changes`). test/e2e/preview-across.ts says how.
#
#   bash tools/preview-across.sh BASE [GREP]   BASE: a commit; GREP: mocha --grep (e.g. ": ha ")
#
# Needs the toolchain (npm run toolchain, or a run of .ci/run) and this checkout's node_modules.
# BASE is checked out into a temporary worktree (removed at exit), with this checkout's copy of
# test/e2e/preview-across.ts (older commits do not have it; it only uses their examples and harness).
set -euo pipefail
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: tools/preview-across.sh BASE [GREP]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=$(git -C "$here" rev-parse --verify "$1^{commit}")
tree=$(mktemp -d "${TMPDIR:-/tmp}/m3i-across.XXXXXX")
cleanup() { git -C "$here" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"; }
trap cleanup EXIT
git -C "$here" worktree add -q --detach "$tree" "$base"
ln -s "$here/node_modules" "$tree/node_modules"
cp "$here/test/e2e/preview-across.ts" "$tree/test/e2e/preview-across.ts"
echo "preview-across: deployed by ${base:0:12} ($tree), previewed by the working tree of $here (HEAD $(git -C "$here" rev-parse --short=12 HEAD))" >&2
cd "$tree"
PREVIEW_ACROSS_NEW=$here CI=true npx mocha -r ts-node/register/transpile-only --timeout 3000000 test/e2e/preview-across.ts --grep "preview across commits${2:+.*$2}"
