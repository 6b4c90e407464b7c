#!/usr/bin/env bash
# Measures CI as a fresh machine runs it (not a test): a clean clone of HEAD in a scratch directory,
# `bash .ci/run` there with CI=true and, unless --warm, an empty toolchain cache (a new directory
# as METAL3_TOOLCHAIN_CACHE, so the toolchain is built from the Go module proxy as on a new
# machine) and an empty IPA ramdisk cache (METAL3_IPA_CACHE), then the breakdown .ci/run printed: each phase, the toolchain, per tier, per lane and
# the slowest files. Debian packages and the PyPI venvs are whatever this machine has.
# Run as root; it takes what CI takes (up to 90 minutes). The last figures are in
# docs/development.md ("Where CI's time goes").
#
#   tools/bench-ci.sh [--warm] [--keep]     --keep leaves the clone, the cache and the logs
set -uo pipefail
# All in one function, read whole before it runs: editing this file during a run cannot change it.
main() {
warm="" keep=""
for a in "$@"; do
  case "$a" in
    --warm) warm=1 ;;
    --keep) keep=1 ;;
    *) echo "usage: tools/bench-ci.sh [--warm] [--keep]" >&2; exit 2 ;;
  esac
done
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || exit 1
work=$(mktemp -d /tmp/m3i-bench-ci.XXXXXX)
git clone -q "$top" "$work/clone" || exit 1
env_args=(CI=true)
if [[ -z "$warm" ]]; then
  mkdir -p "$work/toolchain-cache" "$work/ipa-cache"
  env_args+=("METAL3_TOOLCHAIN_CACHE=$work/toolchain-cache" "METAL3_IPA_CACHE=$work/ipa-cache")
fi
cache_desc="an empty"
[[ -n "$warm" ]] && cache_desc="the warm"
echo "bench-ci: $(git -C "$work/clone" rev-parse --short HEAD), $cache_desc toolchain cache, log $work/ci.log; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
start=$SECONDS
(cd "$work/clone" && env "${env_args[@]}" bash .ci/run </dev/null >"$work/ci.log" 2>&1)
rc=$?
echo "bench-ci: .ci/run exited $rc after $((SECONDS - start)) s; load $(cut -d' ' -f1-3 /proc/loadavg)"
sed -n '/^== breakdown/,$p' "$work/ci.log"
if [[ -z "$keep" ]]; then rm -rf "$work"; else echo "kept: $work" >&2; fi
exit "$rc"
}
main "$@"
