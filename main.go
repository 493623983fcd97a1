// Command terraform-provider-gkesim is the gkesim Terraform provider.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/gkesim/terraform-provider-gkesim/provider"
)

// Set by the release build (goreleaser).
var version = "dev"

// Run "go generate" to format example Terraform files and generate the docs for the registry.
//go:generate terraform fmt -recursive ./examples/
//go:generate go tool tfplugindocs generate --provider-name gkesim

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "start the provider with support for debuggers like delve")
	flag.Parse()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/gkesim/gkesim",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
