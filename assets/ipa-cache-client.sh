#!/bin/bash
# Init container of the Ironic pods (ironic image): prepare what the conductor needs from the IPA
# image cache. It only reads from the cache, never from the IPA's upstream.
#
# 1. IPA_CACHE_TRUST_FILE: the CA bundle Ironic verifies deploy-image URLs with
#    ([DEFAULT]webserver_verify_ca): the bundle requests uses by default (Ironic's other https
#    downloads keep working) plus the cache's CA (IPA_CACHE_CA_FILE). Only with a CA file.
# 2. With IPA_CACHE_URL: for each of IPA_CACHE_ARCHES, the kernel and initramfs from the cache into
#    IPA_CACHE_IMAGES_DIR (/shared/html/images) as ironic-python-agent_<arch>.{kernel,initramfs},
#    and those of IPA_CACHE_DEFAULT_ARCH also as ironic-python-agent.{kernel,initramfs}: the files
#    runhttpd writes inspector.ipxe against (hosts booting the iPXE fallback fetch them from this
#    conductor's httpd) and the httpd readiness probe asks for. Each pair is checked against the
#    version's SHA256SUMS; the cache is retried until it serves (it may still be downloading).
set -euo pipefail

images=${IPA_CACHE_IMAGES_DIR:-/shared/html/images}
ca=${IPA_CACHE_CA_FILE:-}
trust=${IPA_CACHE_TRUST_FILE:-}
attempts=${IPA_CACHE_ATTEMPTS:-120}

log() { printf 'ipa-cache-client: %s\n' "$*"; }

if [ -n "$ca" ] && [ -n "$trust" ]; then
    default_bundle=$(python3.12 -c 'import requests.certs; print(requests.certs.where())')
    cat "$default_bundle" "$ca" > "$trust.tmp"
    mv -f "$trust.tmp" "$trust"
    log "CA bundle $trust: $default_bundle + $ca"
fi

[ -n "${IPA_CACHE_URL:-}" ] || exit 0
curl_args=(--fail --silent --show-error --location --max-time 1800)
[ -z "$ca" ] || curl_args+=(--cacert "$ca")

mkdir -p "$images"
tmp=$(mktemp -d -p "$images" .ipa-cache.XXXXXX)
trap 'rm -rf -- "$tmp"' EXIT

fetch_arch() {
    local arch=$1 base="$IPA_CACHE_URL/images/ironic-python-agent_$1"
    curl "${curl_args[@]}" -o "$tmp/SHA256SUMS" "$base.sha256" || return 1
    curl "${curl_args[@]}" -o "$tmp/ironic-python-agent.kernel" "$base.kernel" || return 1
    curl "${curl_args[@]}" -o "$tmp/ironic-python-agent.initramfs" "$base.initramfs" || return 1
    # A version replaced between the requests gives a mismatch: fetch again.
    (cd "$tmp" && sha256sum --quiet -c SHA256SUMS) || return 1
}

for arch in ${IPA_CACHE_ARCHES:?}; do
    n=1
    until fetch_arch "$arch"; do
        if [ "$n" -ge "$attempts" ]; then
            log "the cache at $IPA_CACHE_URL served no complete $arch IPA after $n attempts" >&2
            exit 1
        fi
        log "$arch: the cache is not serving yet (attempt $n of $attempts), retrying in 5 s"
        n=$((n + 1))
        sleep 5
    done
    for kind in kernel initramfs; do
        chmod 0644 "$tmp/ironic-python-agent.$kind"
        if [ "$arch" = "${IPA_CACHE_DEFAULT_ARCH:-}" ]; then
            ln -f "$tmp/ironic-python-agent.$kind" "$tmp/default.$kind"
            mv -f "$tmp/default.$kind" "$images/ironic-python-agent.$kind"
        fi
        mv -f "$tmp/ironic-python-agent.$kind" "$images/ironic-python-agent_$arch.$kind"
    done
    log "$arch: kernel and initramfs from $IPA_CACHE_URL in $images"
done
