#!/bin/sh
# A Python base image made from Debian's packages, for machines without a registry of base
# images (the suite's container test builds the emulator's image on it: --build-arg BASE=...).
# Prints its tag. The tag carries a hash of this file, so the base is made once and made
# again only when this recipe changes (or the image was removed).
#   debootstrap --variant=minbase (apt, dpkg and a shell), Depends only (no Recommends),
#   python3 and its venv module (the image installs the wheels into a virtualenv),
#   ca-certificates (HTTPS deliveries); apt lists, caches, docs, man pages and locales removed.
# Needs root, debootstrap and docker. MIRROR overrides Debian's mirror.
set -eu
SUITE=bookworm
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PACKAGES=python3,python3-venv,ca-certificates
REPO=payments-emulator-base
HASH=$(sha256sum "$0" | cut -c1-12)
TAG="$REPO:$SUITE-$HASH"
if docker image inspect "$TAG" >/dev/null 2>&1; then
    echo "$TAG"
    exit 0
fi
ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOT" "$MIRROR" >&2
rm -rf "$ROOT"/var/cache/apt/* "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/log/* \
    "$ROOT"/usr/share/doc/* "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/* \
    "$ROOT"/usr/share/locale/* "$ROOT"/var/cache/debconf/*-old "$ROOT"/debootstrap
tar -C "$ROOT" -c . | docker import \
    --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' - "$TAG" >&2
# Bases of earlier recipes go (unless an image still uses one).
docker images --format '{{.Repository}}:{{.Tag}}' "$REPO" | grep -v -x "$TAG" |
    xargs -r docker rmi >/dev/null 2>&1 || true
echo "$TAG"
