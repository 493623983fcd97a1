# Scoped exclusions need a release channel: GKE enrolls the cluster in REGULAR.
resource "gkesim_cluster" "primary" {
  name     = "primary"
  location = "us-central1"
}

# Automatic upgrades on weekday nights, 22:00-06:00 UTC (the RRULE is evaluated in UTC); nothing
# at all over the year end; no new minor version until the end of support of the current one.
# The dates are absolute: once the emulated clock is past them the exclusions block nothing.
# Start the emulator with `gkesim serve --start-time 2026-11-01T00:00:00Z` to see them act.
resource "gkesim_maintenance_policy" "primary" {
  cluster = gkesim_cluster.primary.id

  recurring_window {
    start_time = "2026-01-05T22:00:00Z"
    end_time   = "2026-01-06T06:00:00Z"
    recurrence = "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"
  }

  maintenance_exclusion {
    exclusion_name = "year-end-freeze"
    start_time     = "2026-12-20T00:00:00Z"
    end_time       = "2027-01-04T00:00:00Z"
    exclusion_options {
      scope = "NO_UPGRADES"
    }
  }

  maintenance_exclusion {
    exclusion_name = "stay-on-this-minor"
    start_time     = "2026-11-01T00:00:00Z"
    exclusion_options {
      scope             = "NO_MINOR_UPGRADES"
      end_time_behavior = "UNTIL_END_OF_SUPPORT"
    }
  }
}
