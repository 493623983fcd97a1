resource "gkesim_cluster" "primary" {
  name = "primary"
}

resource "gkesim_maintenance_policy" "primary" {
  cluster = gkesim_cluster.primary.name
  daily_maintenance_window {
    start_time = "03:00"
  }
}

# When may each kind of upgrade run on the cluster, and what blocks it now?
data "gkesim_maintenance_schedule" "primary" {
  cluster      = gkesim_maintenance_policy.primary.id
  window_count = 3
}

output "next_windows" {
  value = [for w in data.gkesim_maintenance_schedule.primary.windows : "${w.start_time} - ${w.end_time}"]
}

output "upgrades" {
  value = {
    for u in data.gkesim_maintenance_schedule.primary.upgrades :
    u.kind => u.allowed_now ? "may run now" : "next at ${u.next_allowed_time}: ${u.reason}"
  }
}
