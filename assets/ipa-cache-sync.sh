#!/bin/bash
# IPA image cache: make version IPA_CACHE_KEY of IPA_ARCH, as this downloader fetches it, the one
# served, downloading it at most once. Runs as an init container of the cache pod, in the
# ironic-ipa-downloader image, whose own get-resource.sh does the download (its inputs
# IPA_BASEURI, IPA_BRANCH, IPA_FLAVOR, IPA_FILENAME, IPA_ARCH, proxies and CURL_* pass through
# unchanged).
#
# A version is the plan's key (the image reference and the settings that select the tarball) and
# the downloader as it runs here: the sha256 of its program (get-resource.sh, the one file the
# image adds to its base) and the selecting variables as the container sees them (pod or image
# ENV). The plan cannot see what a mutable tag (`:latest`) holds; this script can, so a new
# downloader under the same name downloads once more and an unchanged one downloads nothing.
#
# Layout on the cache volume (IPA_CACHE_DIR):
#   versions/<arch>/<key>-<downloader>/   a complete version: ironic-python-agent.{kernel,initramfs},
#                            SHA256SUMS, source.headers, downloader (what <downloader> is the
#                            sha256 of) and the marker "complete" (written last)
#   current/<arch>           symlink to ../versions/<arch>/<version>: what the server serves
#   work/<arch>.<random>/    a download in progress (never served; removed on the next run)
# A version directory appears by one rename of a finished directory, and current/<arch> changes
# by one rename of a new symlink over it: a reader sees the old version or the new one, never a
# part. An interrupted or failed download leaves current/<arch> as it was.
set -euo pipefail

arch=${IPA_ARCH:?IPA_ARCH (the architecture) is required}
key=${IPA_CACHE_KEY:?IPA_CACHE_KEY (the version key) is required}
root=${IPA_CACHE_DIR:-/cache}
downloader=${IPA_DOWNLOADER:-/usr/local/bin/get-resource.sh}

log() { printf 'ipa-cache-sync [%s]: %s\n' "$arch" "$*"; }

# What decides the download besides the plan's key, as this container runs it.
if [ ! -r "$downloader" ]; then
    log "the image has no downloader at $downloader" >&2
    exit 1
fi
identity="program $(sha256sum < "$downloader" | cut -d' ' -f1) $downloader"
for v in IPA_BASEURI IPA_BRANCH IPA_FLAVOR IPA_FILENAME; do
    identity+=$'\n'"$v=${!v-}"
done
downloader_id=$(printf '%s\n' "$identity" | sha256sum | cut -d' ' -f1)
version="$key-$downloader_id"
final="$root/versions/$arch/$version"
link="$root/current/$arch"
target="../versions/$arch/$version"

switch_current() {
    local tmp="$root/current/.$arch.new"
    ln -sfn "$target" "$tmp"
    mv -T "$tmp" "$link"
    # Older versions of this architecture are no longer served (a reader that opened a file keeps it).
    local d
    for d in "$root/versions/$arch"/*; do
        [ "$d" = "$final" ] || rm -rf -- "$d"
    done
}

mkdir -p "$root/versions/$arch" "$root/current" "$root/work"
if [ -f "$final/complete" ]; then
    if [ "$(readlink "$link" 2>/dev/null || true)" = "$target" ]; then
        log "version $key of downloader $downloader_id is current: nothing to download"
    else
        log "version $key of downloader $downloader_id is on the volume: serving it again, nothing to download"
        switch_current
    fi
    exit 0
fi

# Leftovers of interrupted runs of this architecture are never served: remove them.
rm -rf -- "$root/work/$arch".*
work=$(mktemp -d "$root/work/$arch.XXXXXX")
served=$(readlink "$link" 2>/dev/null || true)
case $served in
    "../versions/$arch/$key-"*) log "the downloader changed (image content under the same reference: now $downloader_id, was ${served##*-}): downloading again" ;;
esac
log "downloading version $key of downloader $downloader_id into $work"
SHARED_DIR="$work/shared" "$downloader"

images="$work/shared/html/images"
stage="$work/version"
mkdir "$stage"

# imageCache.ipa[].sha256: the tarball the downloader fetched (kept beside its headers) must be
# exactly the expected one, or nothing of this download is served.
if [ -n "${IPA_CACHE_SHA256:-}" ]; then
    headers=$(readlink -f "$images/ironic-python-agent_$arch.headers" || true)
    tarball=${headers%.headers}
    if [ -z "$headers" ] || [ ! -s "$tarball" ]; then
        log "the downloader left no tarball beside ironic-python-agent_$arch.headers: cannot check its sha256, not serving this download" >&2
        exit 1
    fi
    got=$(sha256sum < "$tarball" | cut -d' ' -f1)
    if [ "$got" != "$IPA_CACHE_SHA256" ]; then
        log "$(basename "$tarball") has sha256 $got, not the expected $IPA_CACHE_SHA256 (imageCache.ipa[].sha256): not serving it" >&2
        exit 1
    fi
    log "$(basename "$tarball") has the expected sha256 $got"
fi
for kind in kernel initramfs headers; do
    src=$(readlink -f "$images/ironic-python-agent_$arch.$kind" || true)
    if [ -z "$src" ] || [ ! -s "$src" ]; then
        log "the downloader left no ironic-python-agent_$arch.$kind in $images: not serving this download" >&2
        exit 1
    fi
    case $kind in
        headers) mv "$src" "$stage/source.headers" ;;
        *) mv "$src" "$stage/ironic-python-agent.$kind" ;;
    esac
done

if [ -n "${IPA_CACHE_MIN_MTIME:-}" ]; then
    modified=$(sed -n 's/^[Ll]ast-[Mm]odified:[[:space:]]*//p' "$stage/source.headers" | tr -d '\r' | tail -n 1)
    if [ -z "$modified" ]; then
        log "the server sent no Last-Modified: cannot show the IPA is newer than $IPA_CACHE_MIN_MTIME" >&2
        exit 1
    fi
    if [ "$(date -u -d "$modified" +%s)" -lt "$(date -u -d "$IPA_CACHE_MIN_MTIME" +%s)" ]; then
        log "the IPA was built $modified, before imageCache.minimumModificationTime $IPA_CACHE_MIN_MTIME: not serving it" >&2
        exit 1
    fi
fi

(cd "$stage" && sha256sum ironic-python-agent.kernel ironic-python-agent.initramfs > SHA256SUMS)
printf '%s\n' "$identity" > "$stage/downloader"
chmod -R a+rX "$stage"
sync -f "$stage/ironic-python-agent.initramfs" 2>/dev/null || true
printf '%s\n' "$version" > "$stage/complete"
mv -T "$stage" "$final"
switch_current
rm -rf -- "$work"
log "version $key of downloader $downloader_id downloaded and now served"
