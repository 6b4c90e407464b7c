#!/bin/bash
# Stand-in for ironic-ipa-downloader's get-resource.sh that really downloads, for tests that give
# it a reachable IPA_BASEURI (a loopback server): the documented behaviour
# (ironic-image-contract.md §16, metal3-io/ironic-ipa-downloader), written for the tests:
#  - HTTP_PROXY/HTTPS_PROXY/NO_PROXY are copied to the lower-case names when those are unset
#    (curl reads http_proxy only in lower case), then everything is fetched with curl, so curl's
#    own proxy, no-proxy and CA-bundle (CURL_CA_BUNDLE) rules apply;
#  - GET <IPA_BASEURI>/<FILENAME> with its response headers kept; with a previous download's
#    headers, a conditional GET (If-None-Match) that keeps the old files on 304;
#  - the tarball unpacked into <images>/<FILENAME>-<ETag>/ and the ironic-python-agent[_<arch>]
#    links switched to it.
set -euo pipefail
export http_proxy="${http_proxy:-${HTTP_PROXY:-}}"
export https_proxy="${https_proxy:-${HTTPS_PROXY:-}}"
export no_proxy="${no_proxy:-${NO_PROXY:-}}"

SHARED_DIR=${SHARED_DIR:-/shared}
IPA_BASEURI=${IPA_BASEURI:-https://tarballs.opendev.org/openstack/ironic-python-agent/dib}
branch=${IPA_BRANCH:-master}
FILENAME=${IPA_FILENAME:-ipa-${IPA_FLAVOR:-centos9}-${branch//\//-}.tar.gz}
base=${FILENAME%.tar.gz}
dest_name="ironic-python-agent${IPA_ARCH:+_${IPA_ARCH}}"
images="$SHARED_DIR/html/images"
mkdir -p "$images" "$SHARED_DIR/tmp"
tmp=$(mktemp -d -p "$SHARED_DIR/tmp")
cd "$tmp"

conditional=()
if [[ -r "$images/$dest_name.headers" ]]; then
    old_etag=$(awk '/^[Ee][Tt]ag:/ {print $2}' "$images/$dest_name.headers" | tr -d '\r')
    conditional=(--header "If-None-Match: $old_etag")
fi
curl ${CURL_VERBOSE:+--verbose} -g --dump-header "$FILENAME.headers" -O "$IPA_BASEURI/$FILENAME" "${conditional[@]}"

if [[ ! -s "$FILENAME" ]]; then
    echo "nothing new at $IPA_BASEURI/$FILENAME: keeping what is there"
    cd /; rm -rf "$tmp"; exit 0
fi
tar -xaf "$FILENAME"
etag=$(awk '/^[Ee][Tt]ag:/ {print $2}' "$FILENAME.headers" | tr -d '"\r')
cd "$images"
chmod 755 "$tmp"
mv "$tmp" "$FILENAME-$etag"
ln -sfn "$FILENAME-$etag/$FILENAME.headers" "$dest_name.headers"
ln -sfn "$FILENAME-$etag/$base.initramfs" "$dest_name.initramfs"
ln -sfn "$FILENAME-$etag/$base.kernel" "$dest_name.kernel"
ls -l "$images"
