#!/usr/bin/env bash
# make image: build the emulator's container image with goreleaser's kos section (ko, no Docker
# daemon) into dist/image (an OCI image layout), then run the test that unpacks it and checks
# its entrypoint (TestImage in emulator/cmd/gkesim).
#
# A release pushes the image to its registry. Here ko pushes to a registry that crane serves on
# a loopback port for the length of the build, and the image is then copied out of it. Nothing
# is downloaded but Go modules: the base image (the one file tree ko adds the binary to) is
# built here too, an empty image with /etc/passwd for user 65532 and a /tmp, in place of the
# release's cgr.dev/chainguard/static (the same, plus CA certificates and time zones, which
# gkesim does not use).
#
# Why not `goreleaser release --snapshot`: in a snapshot, goreleaser hands ko's images to a
# Docker daemon. This runs the release pipeline instead, with the GitHub release, the provider's
# builds and signing switched off (GKESIM_LOCAL_IMAGE, --skip) and the version 0.0.0-local.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
goreleaser=${GORELEASER:-goreleaser}
crane=${CRANE:-crane}
version=0.0.0-local
work=$(mktemp -d)
registry_pid=""

cleanup() {
	code=$?
	if [ "$code" -ne 0 ]; then
		for log in "$work"/*.log; do
			[ -s "$log" ] && { echo "--- $log" >&2; tail -n 30 "$log" >&2; }
		done
	fi
	if [ -n "$registry_pid" ]; then
		kill "$registry_pid" 2>/dev/null || true
		wait "$registry_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
	exit "$code"
}
trap cleanup EXIT

echo "==> a registry on a loopback port (crane registry serve)"
mkdir "$work/blobs"
"$crane" registry serve --address 127.0.0.1:0 --disk "$work/blobs" >"$work/registry.log" 2>&1 &
registry_pid=$!
port=""
for _ in $(seq 1 100); do
	port=$(sed -n 's/.*serving on port \([0-9][0-9]*\).*/\1/p' "$work/registry.log")
	[ -n "$port" ] && break
	kill -0 "$registry_pid" 2>/dev/null || { cat "$work/registry.log" >&2; exit 1; }
	sleep 0.1
done
[ -n "$port" ] || { cat "$work/registry.log" >&2; echo "the registry did not start" >&2; exit 1; }
registry=127.0.0.1:$port

echo "==> the base image, for linux/amd64 and linux/arm64"
mkdir -p "$work/base/etc" "$work/base/tmp"
chmod 1777 "$work/base/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$work/base/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$work/base/etc/group"
tar --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name -cf "$work/base.tar" -C "$work/base" .
for arch in amd64 arm64; do
	"$crane" append --oci-empty-base -f "$work/base.tar" -t "$registry/base:$arch" 2>>"$work/crane.log"
	"$crane" mutate "$registry/base:$arch" --set-platform "linux/$arch" -t "$registry/base:$arch" 2>>"$work/crane.log" >/dev/null
done
"$crane" index append -m "$registry/base:amd64" -m "$registry/base:arm64" -t "$registry/base:latest" 2>>"$work/crane.log" >/dev/null

echo "==> goreleaser: the kos section of .goreleaser.yml, pushing to $registry"
sed "s|^\(    base_image:\).*|\1 $registry/base:latest|" .goreleaser.yml >"$work/goreleaser.yml"
# goreleaser reads the repository's remote; a clone without one gets the project's.
if [ -z "$(git remote)" ]; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/gkesim/terraform-provider-gkesim.git
fi
GKESIM_LOCAL_IMAGE=1 GORELEASER_CURRENT_TAG=v$version KO_DOCKER_REPO=$registry/gkesim \
	"$goreleaser" release --config "$work/goreleaser.yml" --clean --skip=validate,sign,archive,announce >"$work/goreleaser.log" 2>&1 ||
	{ cat "$work/goreleaser.log" >&2; exit 1; }
grep -E 'Publish|Tagging|took' "$work/goreleaser.log" | grep -v SBOM || true

echo "==> dist/image: the image as an OCI layout"
rm -rf dist/image
"$crane" pull --format=oci "$registry/gkesim:$version" dist/image 2>>"$work/crane.log"
du -sh dist/image | awk '{print "dist/image: " $1 " (both platforms)"}'

echo "==> the test that unpacks it and runs its entrypoint"
GKESIM_IMAGE=$root/dist/image go test -count=1 -run 'TestImage' -v ./emulator/cmd/gkesim | grep -E '^(---|ok|FAIL|PASS)|image_test'
