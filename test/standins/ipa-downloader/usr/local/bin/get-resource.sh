#!/bin/bash
# Stand-in for ironic-ipa-downloader's get-resource.sh, written for these tests from its contract
# (core/contract.ts IPA_DOWNLOADER; metal3-io/ironic-ipa-downloader 854d640): the same inputs, the
# same requests to the server and the same output layout, with this machine's curl and tar.
#  - GET <IPA_BASEURI>/<IPA_FILENAME> (default ipa-<IPA_FLAVOR>-<IPA_BRANCH, / → ->.tar.gz) into a
#    mktemp dir under <SHARED_DIR>/tmp, headers dumped to <IPA_FILENAME>.headers, no --fail;
#  - when ironic-python-agent[_<IPA_ARCH>].headers exists: If-None-Match with its ETag, and
#    nothing received keeps the links;
#  - extract (tar -xaf), rename the dir to <SHARED_DIR>/html/images/<IPA_FILENAME>-<ETag>, point
#    ironic-python-agent[_<IPA_ARCH>].{kernel,initramfs,headers} into it;
#  - an interrupted transfer (curl non-zero) or an archive that does not extract exits non-zero
#    before any link changes (set -e).
# Not stood in: CACHEURL (the local-mirror lookup).
set -euo pipefail

export http_proxy="${http_proxy:-${HTTP_PROXY:-}}"
export https_proxy="${https_proxy:-${HTTPS_PROXY:-}}"
export no_proxy="${no_proxy:-${NO_PROXY:-}}"

shared=${SHARED_DIR:-/shared}
base_uri=${IPA_BASEURI:-https://tarballs.opendev.org/openstack/ironic-python-agent/dib}
branch=${IPA_BRANCH:-master}
branch=${branch//\//-}
flavor=${IPA_FLAVOR:-centos9}
file=${IPA_FILENAME:-ipa-${flavor}-${branch}.tar.gz}
stem=${file%.tar.gz}
dest=ironic-python-agent${IPA_ARCH:+_${IPA_ARCH}}

curl_flags=(-g)
[ "${CURL_VERBOSE:-}" != true ] || curl_flags+=(--verbose)
[ "${CURL_INSECURE:-}" != true ] || curl_flags+=(--insecure)

images="$shared/html/images"
mkdir -p "$images" "$shared/tmp"
tmp=$(mktemp -d -p "$shared/tmp")

etag_of() { awk '/ETag:/ {print $2}' "$1" | tr -d '"\r'; }

cd "$tmp"
if [ -r "$images/$dest.headers" ]; then
    known=$(awk '/ETag:/ {print $2}' "$images/$dest.headers" | tr -d '\r')
    curl "${curl_flags[@]}" --dump-header "$file.headers" -O "$base_uri/$file" --header "If-None-Match: $known"
else
    curl "${curl_flags[@]}" --dump-header "$file.headers" -O "$base_uri/$file"
fi

if [ -s "$file" ]; then
    tar -xaf "$file"
    etag=$(etag_of "$file.headers")
    cd "$images"
    chmod 755 "$tmp"
    mv "$tmp" "$file-$etag"
    ln -sf "$file-$etag/$file.headers" "$dest.headers"
    ln -sf "$file-$etag/$stem.initramfs" "$dest.initramfs"
    ln -sf "$file-$etag/$stem.kernel" "$dest.kernel"
else
    rm -rf "$tmp"
fi
