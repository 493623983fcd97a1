#!/usr/bin/env bash
# Run this module's `terraform test` against a gkesim emulator started for the run, and stop it
# afterwards, whatever happens. The CI recipe in docs/guides/testing-in-ci.md runs the same
# steps; `make test` runs this script.
#
#   GKESIM          the gkesim binary (default: gkesim on PATH)
#   TERRAFORM       the command that runs the tests (default: terraform; tofu runs them too)
#   GKESIM_EVENTS   where to write the emulator's event log when the tests fail
#                   (default: gkesim-events.log here)
#   GKESIM_TEST_MODULE  the module to test (default: this one; examples/forecast/test.sh sets it)
#   arguments       passed to `terraform test` (e.g. -filter=tests/cluster.tftest.hcl -verbose)
#
# The emulator starts at a fixed emulated time with a fixed seed, so a failure replays the same
# way; GKESIM_START_TIME, GKESIM_SEED and GKESIM_TIME_SCALE override them (gkesim serve reads them).
set -euo pipefail

here=${GKESIM_TEST_MODULE:-$(cd "$(dirname "$0")" && pwd)}
gkesim=${GKESIM:-gkesim}
terraform=${TERRAFORM:-terraform}
events=${GKESIM_EVENTS:-$here/gkesim-events.log}
work=$(mktemp -d)
pid=""

stop() {
	code=$?
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		if [ "$code" -ne 0 ] && [ -s "$work/addr" ]; then
			"$gkesim" events --endpoint "$(cat "$work/addr")" >"$events" 2>&1 &&
				echo "the tests failed: the emulator's event log is in $events" >&2
		fi
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	fi
	if [ "$code" -ne 0 ] && [ -s "$work/gkesim.log" ]; then
		echo "--- gkesim serve's output:" >&2
		cat "$work/gkesim.log" >&2
	fi
	rm -rf "$work"
	exit "$code"
}
trap stop EXIT

# A free loopback port; the address goes to a file that `gkesim wait` reads.
GKESIM_START_TIME=${GKESIM_START_TIME:-2026-11-02T10:00:00Z} GKESIM_SEED=${GKESIM_SEED:-1} \
	GKESIM_TIME_SCALE=${GKESIM_TIME_SCALE:-2000} \
	"$gkesim" serve --listen 127.0.0.1:0 --addr-file "$work/addr" >"$work/gkesim.log" 2>&1 &
pid=$!
GKESIM_ENDPOINT=$("$gkesim" wait --addr-file "$work/addr" --pid "$pid" --timeout 30s)
export GKESIM_ENDPOINT
echo "gkesim serving on $GKESIM_ENDPOINT"

# Terraform's working files go to the temporary directory too: nothing is left in the module.
export TF_DATA_DIR="$work/.terraform" TF_IN_AUTOMATION=1
cd "$here"
# With a local build of the provider (dev_overrides in the CLI config, as `make test` does),
# Terraform says to skip init, which would look the provider up in the registry: fetch the
# modules only.
if grep -qs dev_overrides "${TF_CLI_CONFIG_FILE:-/dev/null}"; then
	"$terraform" get -no-color >"$work/init.log" || { cat "$work/init.log" >&2; exit 1; }
else
	"$terraform" init -input=false -no-color >"$work/init.log" || { cat "$work/init.log" >&2; exit 1; }
fi
"$terraform" test -no-color "$@"
