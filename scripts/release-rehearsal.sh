#!/usr/bin/env bash
# make release-rehearsal: build the provider's release as the real one is built, serve it through
# the provider registry protocol, and install and use it with Terraform and OpenTofu as users do.
#
#  1. A throwaway GPG key for the run (and a second one, for the wrong-key case), in a GNUPGHOME
#     of the run's own.
#  2. goreleaser check, then goreleaser release --snapshot with .goreleaser.yml, for this machine's platform only
#     (REHEARSAL_ALL_PLATFORMS=1: every platform it promises), signing the checksums with that key.
#  3. Every platform the release promises is named in its checksums: a dry run of the whole
#     release (all platforms, each `go build` replaced by an empty file, so it takes seconds),
#     checked by rehearsal-registry check-platforms. With REHEARSAL_ALL_PLATFORMS=1 the real
#     build is checked instead.
#  4. rehearsal-registry serve: the registry protocol over HTTPS on a loopback port, with a CA
#     made for the run that only this run's Terraform and OpenTofu trust (SSL_CERT_FILE). It
#     serves the release as localhost:PORT/gkesim/gkesim, the same release with its zip
#     tampered with as localhost:PORT/tampered/gkesim, and with its checksums signed by the
#     other key as localhost:PORT/wrongkey/gkesim.
#  5. For each of terraform and tofu (REHEARSAL_TOOLS), from empty directories, an empty plugin
#     cache and a CLI configuration of the run's own (no dev_overrides):
#     - init of the tampered and of the wrongly signed release must fail, with the tool's own
#       message about the checksum and about the signature;
#     - init of the release must download it, check its hash and verify its signature (the lock
#       file records the zip's hash from the signed checksums); the quickstart
#       (examples/scenarios/quickstart) then applies against the release's own gkesim emulator,
#       a second plan is empty, and destroy removes it;
#     - examples/terraform-test's test.sh (`terraform test` / `tofu test`), its module as written
#       (source = "gkesim/gkesim"): the CLI configuration's `host` block points the tool's
#       default registry (registry.terraform.io, registry.opentofu.org) at the rehearsal's.
#
# Everything goes to a temporary directory, removed at the end with the processes started here.
#   GORELEASER, REHEARSAL_TOOLS (default "terraform tofu"), REHEARSAL_ALL_PLATFORMS, KEEP=1 (keep
#   the temporary directory and say where it is)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
goreleaser=${GORELEASER:-goreleaser}
read -r -a tools <<<"${REHEARSAL_TOOLS:-terraform tofu}"
work=$(mktemp -d)
pids=()

cleanup() {
	code=$?
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	GNUPGHOME=$work/gnupg gpgconf --kill gpg-agent 2>/dev/null || true
	if [ "$code" -ne 0 ]; then
		for log in "$work"/*.log; do
			[ -s "$log" ] && { echo "--- $log" >&2; tail -n 30 "$log" >&2; }
		done
		echo "make release-rehearsal: FAILED" >&2
	fi
	if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
	exit "$code"
}
trap cleanup EXIT

# wait_for FILE PID WHAT: until FILE has content (at most 30 s), while PID runs.
wait_for() {
	for _ in $(seq 1 300); do
		[ -s "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || { echo "$3 exited before it was ready" >&2; return 1; }
		sleep 0.1
	done
	echo "$3 was not ready after 30 s" >&2
	return 1
}

for tool in "${tools[@]}"; do
	command -v "$tool" >/dev/null || { echo "$tool is not on PATH: run make release-rehearsal, which installs it into bin/" >&2; exit 1; }
	echo "using $(command -v "$tool") ($(TF_CLI_CONFIG_FILE=/dev/null "$tool" version | head -1))"
done

echo "==> throwaway GPG keys for the run"
export GNUPGHOME=$work/gnupg
mkdir -m 700 "$GNUPGHOME"
for who in release other; do
	gpg --batch --pinentry-mode loopback --passphrase '' --quick-gen-key \
		"gkesim release rehearsal ($who) <$who@rehearsal.invalid>" rsa3072 sign 1d 2>>"$work/gpg.log"
done
fingerprint() { gpg --batch --with-colons --list-keys "$1@rehearsal.invalid" 2>>"$work/gpg.log" | awk -F: '$1 == "fpr" {print $10; exit}'; }
release_key=$(fingerprint release)
other_key=$(fingerprint other)
echo "release key ${release_key: -16}, other key ${other_key: -16}"

# A clone without a remote gets the project's (goreleaser reads it).
if [ -z "$(git remote)" ]; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/gkesim/terraform-provider-gkesim.git
fi

# config DIST [PLATFORM] [GO]: .goreleaser.yml with its dist directory, the snapshot's
# version (the next patch release) and, when given, the one platform (GOOS/GOARCH) and the go
# command of its builds.
config() {
	local dist=$1 platform=${2:-} gotool=${3:-}
	awk -v platform="$platform" -v gotool="$gotool" '
		/^[a-z]/ { builds = ($0 == "builds:") }
		builds && platform != "" && /^    goos:/ { split(platform, p, "/"); print "    goos: [" p[1] "]"; next }
		builds && platform != "" && /^    goarch:/ { print "    goarch: [" p[2] "]"; next }
		{ print }
		builds && gotool != "" && /^    main:/ { print "    tool: " gotool }
	' .goreleaser.yml
	printf '\ndist: %s\nsnapshot:\n  version_template: "{{ incpatch .Version }}"\n' "$dist"
}

echo "==> goreleaser check"
"$goreleaser" check >"$work/goreleaser-check.log" 2>&1
tail -n 2 "$work/goreleaser-check.log" | head -1 | sed 's/^ *• *//'

host=$(go env GOOS)/$(go env GOARCH)
dist=$work/dist
start=$SECONDS
if [ -n "${REHEARSAL_ALL_PLATFORMS:-}" ]; then
	echo "==> goreleaser release --snapshot, every platform of .goreleaser.yml"
	config "$dist" >"$work/goreleaser.yml"
else
	echo "==> goreleaser release --snapshot, for $host (REHEARSAL_ALL_PLATFORMS=1 for every platform)"
	config "$dist" "$host" >"$work/goreleaser.yml"
fi
GPG_FINGERPRINT=$release_key "$goreleaser" release --snapshot --clean --config "$work/goreleaser.yml" >"$work/goreleaser.log" 2>&1
echo "built in $((SECONDS - start)) s: $(cd "$dist" && echo terraform-provider-gkesim_* gkesim_*.tar.gz)"

go build -o "$work/rehearsal-registry" ./internal/registryrehearsal/cmd/rehearsal-registry
if [ -n "${REHEARSAL_ALL_PLATFORMS:-}" ]; then
	"$work/rehearsal-registry" check-platforms --dist "$dist"
else
	echo "==> the platforms the release promises, named in its checksums (a dry run of the whole release)"
	real_go=$(command -v go)
	printf '#!/usr/bin/env bash\n# goreleaser'"'"'s dry run: go build writes an empty file where the binary goes.\nif [ "$1" = build ]; then while [ $# -gt 0 ]; do [ "$1" = -o ] && : >"$2"; shift; done; exit 0; fi\nexec %q "$@"\n' "$real_go" >"$work/go-dry"
	chmod +x "$work/go-dry"
	config "$work/dry" "" "$work/go-dry" >"$work/goreleaser-dry.yml"
	"$goreleaser" release --snapshot --clean --skip=sign --config "$work/goreleaser-dry.yml" >"$work/goreleaser-dry.log" 2>&1
	"$work/rehearsal-registry" check-platforms --dist "$work/dry"
fi

echo "==> the registry's namespaces: gkesim (the release), tampered (its $host zip changed), wrongkey (its checksums signed by the other key)"
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' "$dist/metadata.json")
[ -n "$version" ] || { echo "no version in goreleaser's $dist/metadata.json: has its format changed? Read the version from it here" >&2; exit 1; }
name=terraform-provider-gkesim_$version
zip=${name}_${host/\//_}.zip
reg=$work/registry
mkdir -p "$reg/gkesim"
cp "$dist/${name}"_*.zip "$dist/${name}_SHA256SUMS" "$dist/${name}_SHA256SUMS.sig" "$reg/gkesim/"
# The release uploads the manifest under this name (.goreleaser.yml's release extra_files).
cp terraform-registry-manifest.json "$reg/gkesim/${name}_manifest.json"
gpg --batch --armor --export "$release_key" >"$reg/gkesim/signing-key.asc"
echo "${release_key: -16}" >"$reg/gkesim/signing-key.id"
cp -r "$reg/gkesim" "$reg/tampered"
printf 'tampered' >>"$reg/tampered/$zip"
cp -r "$reg/gkesim" "$reg/wrongkey"
gpg --batch --yes --local-user "$other_key" --output "$reg/wrongkey/${name}_SHA256SUMS.sig" --detach-sign "$reg/wrongkey/${name}_SHA256SUMS" 2>>"$work/gpg.log"
zip_sha=$(sha256sum "$reg/gkesim/$zip" | cut -d' ' -f1)
grep -q "^$zip_sha  $zip\$" "$reg/gkesim/${name}_SHA256SUMS" || { echo "the checksums do not give $zip's SHA-256 ($zip_sha)" >&2; exit 1; }

"$work/rehearsal-registry" serve --namespace "gkesim=$reg/gkesim" --namespace "tampered=$reg/tampered" \
	--namespace "wrongkey=$reg/wrongkey" --ca-file "$work/ca.pem" --addr-file "$work/registry.addr" \
	--max-lifetime 1h >"$work/registry.log" 2>&1 &
pids+=($!)
wait_for "$work/registry.addr" "${pids[-1]}" "rehearsal-registry serve"
registry=$(cat "$work/registry.addr")
echo "serving https://$registry (its CA trusted by this run only)"
export SSL_CERT_FILE=$work/ca.pem TF_IN_AUTOMATION=1

# The release's own emulator.
gkesim=$(find "$dist" -path '*/gkesim_*' -name gkesim -type f | head -1)
[ -x "$gkesim" ] || { echo "the release has no gkesim binary for $host in $dist" >&2; exit 1; }
GKESIM_START_TIME=2026-11-02T10:00:00Z GKESIM_SEED=1 GKESIM_TIME_SCALE=2000 \
	"$gkesim" serve --listen 127.0.0.1:0 --addr-file "$work/gkesim.addr" >"$work/gkesim.log" 2>&1 &
pids+=($!)
GKESIM_ENDPOINT=$("$gkesim" wait --addr-file "$work/gkesim.addr" --pid "${pids[-1]}" --timeout 30s)
export GKESIM_ENDPOINT

# must_fail TOOL NAMESPACE PATTERN: init of NAMESPACE's release fails, saying PATTERN.
must_fail() {
	local tool=$1 ns=$2 pattern=$3 dir=$work/$1-$2
	mkdir -p "$dir/plugins"
	printf 'terraform {\n  required_providers {\n    gkesim = {\n      source  = "%s/%s/gkesim"\n      version = "%s"\n    }\n  }\n}\n' \
		"$registry" "$ns" "$version" >"$dir/main.tf"
	if TF_PLUGIN_CACHE_DIR=$dir/plugins "$tool" -chdir="$dir" init -input=false -no-color >"$dir/init.out" 2>&1; then
		echo "$tool init installed the $ns release: it must refuse it" >&2
		cat "$dir/init.out" >&2
		exit 1
	fi
	if ! grep -Eq "$pattern" "$dir/init.out"; then
		echo "$tool init refused the $ns release, but without saying /$pattern/:" >&2
		cat "$dir/init.out" >&2
		exit 1
	fi
	echo "ok    $tool init refuses $ns/gkesim:"
	sed -n '/Error/,$p' "$dir/init.out" | sed 's/^/        /'
}

for tool in "${tools[@]}"; do
	echo "==> $tool"
	case "$tool" in
	tofu) default_registry=registry.opentofu.org ;;
	*) default_registry=registry.terraform.io ;;
	esac
	# The run's CLI configuration: no dev_overrides, and the tool's default registry host
	# discovered at the rehearsal's registry.
	export TF_CLI_CONFIG_FILE=$work/$tool.tfrc
	printf 'host "%s" {\n  services = {\n    "providers.v1" = "https://%s/v1/providers/"\n  }\n}\n' \
		"$default_registry" "$registry" >"$TF_CLI_CONFIG_FILE"

	must_fail "$tool" tampered 'checksum'
	must_fail "$tool" wrongkey 'signature|signing key'

	dir=$work/$tool-quickstart
	mkdir -p "$dir/plugins"
	sed "s|^\( *\)source = \"gkesim/gkesim\"|\1source  = \"$registry/gkesim/gkesim\"\n\1version = \"$version\"|" \
		examples/scenarios/quickstart/main.tf >"$dir/main.tf"
	grep -q "$registry/gkesim/gkesim" "$dir/main.tf" || { echo "examples/scenarios/quickstart/main.tf has no source = \"gkesim/gkesim\" to point at the rehearsal's registry" >&2; exit 1; }
	export TF_PLUGIN_CACHE_DIR=$dir/plugins
	"$tool" -chdir="$dir" init -input=false -no-color >"$dir/init.out" 2>&1 || { cat "$dir/init.out" >&2; exit 1; }
	grep -F "${release_key: -16}" "$dir/init.out" | sed 's/^ *- */ok    /' ||
		{ cat "$dir/init.out" >&2; echo "$tool init did not say it checked the signature of key ${release_key: -16}" >&2; exit 1; }
	grep -q "\"zh:$zip_sha\"" "$dir/.terraform.lock.hcl" ||
		{ cat "$dir/.terraform.lock.hcl" >&2; echo "the lock file does not record $zip's hash from the signed checksums (zh:$zip_sha)" >&2; exit 1; }
	echo "ok    the lock file records zh:$zip_sha ($zip)"
	"$tool" -chdir="$dir" apply -auto-approve -input=false -no-color >"$dir/apply.out" 2>&1 || { cat "$dir/apply.out" >&2; exit 1; }
	echo "ok    $tool apply: $(grep -E '^Apply complete' "$dir/apply.out")"
	code=0
	"$tool" -chdir="$dir" plan -detailed-exitcode -input=false -no-color >"$dir/plan.out" 2>&1 || code=$?
	[ "$code" -eq 0 ] || { cat "$dir/plan.out" >&2; echo "the second plan is not empty (exit $code)" >&2; exit 1; }
	echo "ok    $tool plan: $(grep -E '^No changes' "$dir/plan.out")"
	"$tool" -chdir="$dir" destroy -auto-approve -input=false -no-color >"$dir/destroy.out" 2>&1 || { cat "$dir/destroy.out" >&2; exit 1; }
	echo "ok    $tool destroy: $(grep -E '^Destroy complete' "$dir/destroy.out")"

	# examples/terraform-test as written, in a copy (init writes a lock file), with its own
	# emulator and an empty plugin cache.
	cp -r examples/terraform-test "$work/$tool-terraform-test"
	mkdir -p "$work/$tool-terraform-test-plugins"
	TF_PLUGIN_CACHE_DIR=$work/$tool-terraform-test-plugins TERRAFORM=$tool GKESIM=$gkesim \
		GKESIM_EVENTS=$work/$tool-terraform-test-events.log "$work/$tool-terraform-test/test.sh" >"$work/$tool-test.out" 2>&1 ||
		{ cat "$work/$tool-test.out" >&2; exit 1; }
	echo "ok    $tool test of examples/terraform-test: $(grep -E '(passed|failed)' "$work/$tool-test.out" | tail -1)"
	unset TF_PLUGIN_CACHE_DIR
done
echo "release rehearsal of $version ($host): ok in $SECONDS s"
