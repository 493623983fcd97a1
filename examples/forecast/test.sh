#!/usr/bin/env bash
# Run this module's `terraform test` (forecast.tftest.hcl) against a gkesim emulator started for
# the run, as examples/terraform-test/test.sh runs that module's: same variables, same steps.
# `make test` runs this script.
here=$(cd "$(dirname "$0")" && pwd)
GKESIM_TEST_MODULE="$here" GKESIM_EVENTS=${GKESIM_EVENTS:-$here/gkesim-events.log} exec "$here/../terraform-test/test.sh" "$@"
