# terraform test against the gkesim emulator: every run applies for real (clusters, nodes,
# upgrades), on the emulator's clock. Start the emulator and point the provider at it with
# GKESIM_ENDPOINT; ./test.sh does both.

provider "gkesim" {
  project       = "pipeline-test"
  location      = "us-central1"
  poll_interval = "100ms"
}

# Earlier runs' outputs (run.NAME.OUTPUT) go into a run's variables, and its assertions compare
# with var.*; a run takes outputs from the last run before it that applied the module. That way
# OpenTofu runs this file too (tofu test): it resolves run.NAME in variables but not in
# assertions, and keeps only the last run's outputs per module.

# The versions the emulator offers now.
run "versions" {
  module {
    source = "./tests/versions"
  }
}

run "create" {
  variables {
    node_version = run.versions.previous
  }

  assert {
    condition     = length(output.zones) == 3 && length(output.nodes) == 6
    error_message = "a regional cluster with two pools of one node per zone has 6 nodes in 3 zones, got ${length(output.nodes)} in ${jsonencode(output.zones)}"
  }
  assert {
    condition     = alltrue([for n in output.nodes : n.state == "Ready" && n.version == var.node_version])
    error_message = "every node Ready at ${var.node_version}: ${jsonencode(output.nodes)}"
  }
  assert {
    condition     = output.upgrades["general"].strategy == "SURGE" && output.upgrades["batch"].strategy == "BLUE_GREEN"
    error_message = "strategies: ${jsonencode(output.upgrades)}"
  }
  assert {
    condition     = !output.upgrades["general"].in_progress && !output.upgrades["batch"].in_progress
    error_message = "no upgrade runs after create: ${jsonencode(output.upgrades)}"
  }
  # Without exclusions, the next open windows are the daily window's four hours (the first may
  # have begun already; the second is whole).
  assert {
    condition     = length(output.maintenance.windows) == 3 && timeadd(output.maintenance.windows[1].start_time, "4h") == output.maintenance.windows[1].end_time
    error_message = "three windows, the second from 03:00 for 4h: ${jsonencode(output.maintenance.windows)}"
  }
  assert {
    condition     = endswith(output.maintenance.windows[1].start_time, "T03:00:00Z")
    error_message = "the daily window starts at 03:00 UTC: ${output.maintenance.windows[1].start_time}"
  }
}

# A two-week change freeze from now: no automatic upgrade of any kind may run until it ends.
run "freeze" {
  variables {
    node_version = run.versions.previous
    freeze = {
      start = run.create.maintenance.now
      end   = timeadd(run.create.maintenance.now, "336h")
    }
  }

  assert {
    condition     = alltrue([for kind, u in output.maintenance.upgrades : !u.allowed_now && contains(u.blocked_by, "freeze")])
    error_message = "every kind of upgrade blocked by the freeze: ${jsonencode(output.maintenance.upgrades)}"
  }
  assert {
    condition     = timecmp(output.maintenance.windows[0].start_time, var.freeze.end) >= 0
    error_message = "the next open window is after the freeze: ${jsonencode(output.maintenance.windows)}"
  }
}

# Upgrading the nodes is the module caller's own change: it runs during the freeze (exclusions
# hold back automatic upgrades only), surge for one pool and blue-green for the other, and the
# apply waits until every node runs the new version.
run "upgrade" {
  variables {
    node_version = run.versions.latest
    freeze       = run.freeze.freeze
  }

  assert {
    condition     = output.upgrades["general"].nodes_by_version == tomap({ (var.node_version) = 3 })
    error_message = "general: 3 nodes at ${var.node_version}, got ${jsonencode(output.upgrades["general"].nodes_by_version)}"
  }
  assert {
    condition     = output.upgrades["batch"].nodes_by_version == tomap({ (var.node_version) = 3 })
    error_message = "batch: 3 nodes at ${var.node_version}, got ${jsonencode(output.upgrades["batch"].nodes_by_version)}"
  }
  assert {
    condition     = !output.upgrades["general"].in_progress && !output.upgrades["batch"].in_progress
    error_message = "the apply returned when the upgrades were done: ${jsonencode(output.upgrades)}"
  }
  assert {
    condition     = length(output.nodes) == 6 && alltrue([for n in output.nodes : n.state == "Ready" && n.version == var.node_version])
    error_message = "6 Ready nodes at ${var.node_version}, none of the old ones left: ${jsonencode(output.nodes)}"
  }
}
