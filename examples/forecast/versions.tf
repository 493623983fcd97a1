terraform {
  required_version = ">= 1.7" # terraform test with helper modules and run outputs as variables

  required_providers {
    gkesim = {
      source = "gkesim/gkesim"
    }
  }
}
