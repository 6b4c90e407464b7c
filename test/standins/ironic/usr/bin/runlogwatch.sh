#!/bin/bash
# Stand-in for the ironic image's /bin/runlogwatch.sh (ironic-image-contract.md §3): prints every
# ramdisk log bundle that appears under /shared/log/ironic/deploy, then deletes it. Reads no env.
# Bash stays PID 1 and ends on TERM/INT.
set -uo pipefail
dir=/shared/log/ironic/deploy
trap 'exit 0' TERM INT
# The image's script makes the directory if missing (mkdir -p), then watches it (and deletes what it printed).
if ! mkdir -p "$dir" 2>/dev/null || [[ ! -w "$dir" ]]; then echo "FATAL: $dir is not a writable directory" >&2; exit 1; fi
echo "watching $dir for ramdisk logs"
while :; do
  for f in "$dir"/*.tar.gz; do
    [[ -e "$f" ]] || continue
    echo "************ Contents of $f ramdisk log file bundle **************"
    tar -xOzf "$f" | sed -e "s|^|$(basename "$f"): |"
    rm -f "$f"
  done
  sleep 2 &
  wait $!
done
