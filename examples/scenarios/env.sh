# Source this from the repository root (`. examples/scenarios/env.sh`) after `make build`:
# it points Terraform and OpenTofu at the provider in bin/ (a CLI configuration with
# dev_overrides for each one's registry host: no registry, no terraform init) and the provider and bin/gkesim at the emulator.
#   GKESIM_ENDPOINT   the emulator (default http://127.0.0.1:8790, where bin/gkesim serve listens)
#   GKESIM_PROJECT    the project the scenarios use (demo-project)
cat >"${TMPDIR:-/tmp}/gkesim.tfrc" <<CFG
provider_installation {
  dev_overrides {
    "registry.terraform.io/gkesim/gkesim" = "$PWD/bin"
    "registry.opentofu.org/gkesim/gkesim" = "$PWD/bin"
  }
  direct {}
}
CFG
export TF_CLI_CONFIG_FILE="${TMPDIR:-/tmp}/gkesim.tfrc"
export GKESIM_ENDPOINT="${GKESIM_ENDPOINT:-http://127.0.0.1:8790}" GKESIM_PROJECT=demo-project
[ -x bin/gkesim ] || echo "bin/gkesim is missing: run make build (from the repository root)" >&2
