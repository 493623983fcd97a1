# The holiday retailer of GKE's maintenance documentation (docs/guides/maintenance.md#r-ex-3):
# automatic upgrades only on weekday nights, no minor upgrade from the end of September to
# mid-January, and no upgrade at all around Black Friday / Cyber Monday and over the year end.
#
# The shop works in US Eastern time (-05:00). GKE stores every time in UTC and evaluates the
# RRULE in UTC: the nights of Monday to Friday, 22:00-06:00 Eastern, are 03:00-11:00
# UTC on Tuesday to Saturday, so that is what the rule says. The times below keep their -05:00
# offsets; the provider reads GKE's UTC back without a diff.
#
# Run it on an emulator started before the season, then move its clock 150 days, to 29
# January, and watch what GKE would have done: the steps are in README.md next to this file.

terraform {
  required_providers {
    gkesim = {
      source = "gkesim/gkesim"
    }
  }
}

provider "gkesim" {
  project  = "demo-project"
  location = "us-east1-b"
}

# Scoped exclusions need a release channel: without a release_channel block GKE enrolls the
# cluster in REGULAR.
resource "gkesim_cluster" "retail" {
  name                     = "retail"
  remove_default_node_pool = true
}

resource "gkesim_node_pool" "storefront" {
  cluster    = gkesim_cluster.retail.name
  name       = "storefront"
  node_count = 2
  node_config {
    machine_type = "e2-standard-4"
  }
  # Auto-upgrade (and auto-repair) are on, as GKE sets them without a management block: the
  # release channel's upgrades reach the pool only in the window and outside the exclusions.
}

resource "gkesim_maintenance_policy" "retail" {
  cluster = gkesim_cluster.retail.name

  # Weekday nights: 22:00-06:00 Eastern, Monday to Friday.
  recurring_window {
    start_time = "2026-09-01T22:00:00-05:00"
    end_time   = "2026-09-02T06:00:00-05:00"
    recurrence = "FREQ=WEEKLY;BYDAY=TU,WE,TH,FR,SA"
  }

  # Patches only, on the control plane and the nodes, through the season.
  maintenance_exclusion {
    exclusion_name = "holiday-season"
    start_time     = "2026-09-30T00:00:00-05:00"
    end_time       = "2027-01-15T00:00:00-05:00"
    exclusion_options {
      scope = "NO_MINOR_UPGRADES"
    }
  }

  # Nothing at all around Black Friday and Cyber Monday...
  maintenance_exclusion {
    exclusion_name = "black-friday"
    start_time     = "2026-11-19T00:00:00-05:00"
    end_time       = "2026-12-04T00:00:00-05:00"
  }

  # ... and over the year end (at most 3 NO_UPGRADES exclusions, each at most 30 days).
  maintenance_exclusion {
    exclusion_name = "year-end"
    start_time     = "2026-12-15T00:00:00-05:00"
    end_time       = "2027-01-05T00:00:00-05:00"
    exclusion_options {
      scope = "NO_UPGRADES"
    }
  }

  depends_on = [gkesim_node_pool.storefront]
}

data "gkesim_maintenance_schedule" "retail" {
  cluster      = gkesim_maintenance_policy.retail.id
  window_count = 3
}

output "next_windows" {
  value = [for w in data.gkesim_maintenance_schedule.retail.windows : "${w.start_time} - ${w.end_time}"]
}

output "upgrades" {
  description = "Per kind of upgrade: may it run now, and if not, when and why not."
  value = {
    for u in data.gkesim_maintenance_schedule.retail.upgrades :
    u.kind => u.allowed_now ? "may run now" : "next at ${u.next_allowed_time}: ${u.reason}"
  }
}
