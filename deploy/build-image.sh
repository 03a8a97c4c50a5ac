#!/usr/bin/env bash
# Builds the fleet image with podman from Debian's packages only (no
# registry): (1) a minbase Debian root made by mmdebstrap, imported as
# localhost/orbit-base:SUITE (skipped when it exists), (2) the orbit
# release binary copied onto it by deploy/Containerfile.
#
# Needs root, podman (with runc where crun refuses the cgroup layout),
# mmdebstrap and a release build (`cargo build --release -p orbit-cli`).
#
# Environment: SUITE (default bookworm), IMAGE (default localhost/orbit:latest),
# ORBIT_BIN (default target/release/orbit), PODMAN (default `podman`).
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE="${SUITE:-bookworm}"
IMAGE="${IMAGE:-localhost/orbit:latest}"
BASE="localhost/orbit-base:$SUITE"
ORBIT_BIN="${ORBIT_BIN:-target/release/orbit}"
read -r -a PODMAN <<< "${PODMAN:-podman}"

[[ -x "$ORBIT_BIN" ]] || { echo "build-image: $ORBIT_BIN is missing (cargo build --release -p orbit-cli)" >&2; exit 1; }

if ! "${PODMAN[@]}" image exists "$BASE"; then
    started=$SECONDS
    # bash, coreutils, grep, sed … are Essential; git and CA certificates
    # for tasks with a `repo` and HTTPS model APIs.
    mmdebstrap --variant=minbase --include=git,ca-certificates "$SUITE" - \
        | "${PODMAN[@]}" import - "$BASE" >/dev/null
    echo "build-image: base $BASE made in $((SECONDS - started)) s" >&2
fi

ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
cp deploy/Containerfile "$ctx/Containerfile"
cp "$ORBIT_BIN" "$ctx/orbit"
started=$SECONDS
"${PODMAN[@]}" build -q --build-arg "BASE=$BASE" -t "$IMAGE" "$ctx" >/dev/null
echo "build-image: $IMAGE built in $((SECONDS - started)) s ($("${PODMAN[@]}" image inspect "$IMAGE" --format '{{.Size}}') bytes)" >&2
