#!/bin/bash
# Stand-in for ironic-ipa-downloader's get-resource.sh (ironic-image-contract.md §16): the same
# inputs and the same output layout under $SHARED_DIR/html/images, but no download (tests have
# no network): an "ETag" directory with kernel/initramfs/headers and the ironic-python-agent.*
# links the ironic container looks for.
set -euo pipefail
SHARED_DIR=${SHARED_DIR:-/shared}
IPA_BRANCH=${IPA_BRANCH:-master}
IPA_FLAVOR=${IPA_FLAVOR:-centos9}
IPA_BASEURI=${IPA_BASEURI:-https://tarballs.opendev.org/openstack/ironic-python-agent/dib}
FILENAME=${IPA_FILENAME:-ipa-${IPA_FLAVOR}-${IPA_BRANCH//\//-}.tar.gz}
suffix=${IPA_ARCH:+_${IPA_ARCH}}
images="$SHARED_DIR/html/images"
mkdir -p "$images" "$SHARED_DIR/tmp"
tmp=$(mktemp -d -p "$SHARED_DIR/tmp")
echo "would fetch $IPA_BASEURI/$FILENAME (stand-in: no network)"
etag="standin-$(printf '%s' "$FILENAME" | sha256sum | cut -c1-12)"
dest="$images/$FILENAME-$etag"
mkdir -p "$dest"
base=${FILENAME%.tar.gz}
printf 'stand-in IPA kernel (%s)\n' "$FILENAME" > "$tmp/$base.kernel"
printf 'stand-in IPA initramfs (%s)\n' "$FILENAME" > "$tmp/$base.initramfs"
printf 'ETag: "%s"\n' "$etag" > "$tmp/$FILENAME.headers"
mv "$tmp"/* "$dest/"
rmdir "$tmp"
ln -sfn "$FILENAME-$etag/$base.kernel" "$images/ironic-python-agent$suffix.kernel"
ln -sfn "$FILENAME-$etag/$base.initramfs" "$images/ironic-python-agent$suffix.initramfs"
ln -sfn "$FILENAME-$etag/$FILENAME.headers" "$images/ironic-python-agent$suffix.headers"
ls -l "$images"
