#!/usr/bin/env bash
# make demo: start the emulator, apply the quickstart scenario with the locally built provider,
# show what GKE would have created, check the plan is empty, destroy, stop the emulator.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/bin"
work=$(mktemp -d)
log="$work/gkesim.log"
emulator_pid=""

cleanup() {
	if [ -n "$emulator_pid" ] && kill -0 "$emulator_pid" 2>/dev/null; then
		kill "$emulator_pid" && wait "$emulator_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

step "Starting the emulator (gkesim serve on a free loopback port)"
"$bin/gkesim" serve --listen 127.0.0.1:0 >"$log" 2>&1 &
emulator_pid=$!
endpoint=""
for _ in $(seq 1 100); do
	endpoint=$(sed -n 's/^gkesim .* serving on \(http:[^ ]*\).*/\1/p' "$log")
	[ -n "$endpoint" ] && break
	kill -0 "$emulator_pid" 2>/dev/null || { cat "$log"; echo "the emulator did not start" >&2; exit 1; }
	sleep 0.1
done
[ -n "$endpoint" ] || { cat "$log"; echo "the emulator did not report its address" >&2; exit 1; }
cat "$log"
export GKESIM_ENDPOINT="$endpoint" GKESIM_PROJECT=demo-project

step "Pointing Terraform at the local provider build (dev_overrides, no registry needed)"
cat >"$work/terraformrc" <<CFG
provider_installation {
  dev_overrides {
    "registry.terraform.io/gkesim/gkesim" = "$bin"
  }
  direct {}
}
CFG
export TF_CLI_CONFIG_FILE="$work/terraformrc" TF_IN_AUTOMATION=1
echo "TF_CLI_CONFIG_FILE=$TF_CLI_CONFIG_FILE"
cp "$root/examples/scenarios/quickstart/main.tf" "$work/"
cd "$work"

step "terraform apply examples/scenarios/quickstart"
terraform apply -auto-approve -no-color 2>&1 | grep -v -e 'Provider development overrides' -e '^ *- gkesim/gkesim' -e 'The behavior may therefore' -e 'of Terraform, this combination' -e 'dev_overrides' -e '^ *╷\|^ *╵\|^ *│ *$' || exit 1

step "What GKE would have: clusters, node pools, nodes"
"$bin/gkesim" container clusters list
echo
"$bin/gkesim" container node-pools list --cluster demo --location us-central1
echo
curl -fsS "$endpoint/k8s/projects/demo-project/locations/us-central1/clusters/demo/api/v1/nodes" |
	python3 -c 'import json,sys; [print(n["metadata"]["name"], n["metadata"]["labels"]["topology.kubernetes.io/zone"], n["metadata"]["labels"]["node.kubernetes.io/instance-type"], n["status"]["nodeInfo"]["kubeletVersion"]) for n in json.load(sys.stdin)["items"]]' 2>/dev/null ||
	echo "(node list: $endpoint/k8s/projects/demo-project/locations/us-central1/clusters/demo/api/v1/nodes)"

step "The operations it ran, and the last steps of its event log (emulated time)"
"$bin/gkesim" container operations list
echo
"$bin/gkesim" events --cluster demo | tail -n 8

step "terraform plan after apply: expecting no changes"
set +e
terraform plan -detailed-exitcode -no-color >"$work/plan.txt" 2>&1
code=$?
set -e
if [ "$code" -ne 0 ]; then
	cat "$work/plan.txt"
	echo "the plan after apply is not empty (exit code $code)" >&2
	exit 1
fi
grep -m1 'No changes' "$work/plan.txt"

step "terraform destroy"
terraform destroy -auto-approve -no-color 2>&1 | grep -E 'Destroy complete|Error' || exit 1

step "Done. The emulator stops now; run it yourself with: bin/gkesim serve"
