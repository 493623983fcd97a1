terraform {
  required_providers {
    gkesim = {
      source = "gkesim/gkesim"
    }
  }
}

# Start the emulator first: `gkesim serve` (or `make demo`).
provider "gkesim" {
  endpoint = "http://127.0.0.1:8790" # or GKESIM_ENDPOINT
  project  = "demo-project"          # or GKESIM_PROJECT
  location = "us-central1"           # or GKESIM_LOCATION
}
