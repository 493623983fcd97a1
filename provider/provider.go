// Package provider is the gkesim Terraform provider: GKE clusters, node pools (upgrade
// strategies, autoscaling), maintenance policies, and the workloads, PodDisruptionBudgets and
// LoadBalancer Services in them, on a gkesim emulator. It talks to the emulator only over HTTP.
package provider

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

// Defaults of the provider configuration.
const (
	DefaultEndpoint       = "http://127.0.0.1:8790"
	defaultRequestTimeout = 30 * time.Second
	defaultMaxRetries     = 20
	defaultPollInterval   = 250 * time.Millisecond
)

var _ provider.Provider = &GkesimProvider{}

// GkesimProvider is the provider.
type GkesimProvider struct {
	version string
}

// New returns the provider factory for a build version.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &GkesimProvider{version: version} }
}

type providerModel struct {
	Endpoint       types.String `tfsdk:"endpoint"`
	AuthToken      types.String `tfsdk:"auth_token"`
	Project        types.String `tfsdk:"project"`
	Location       types.String `tfsdk:"location"`
	RequestTimeout types.String `tfsdk:"request_timeout"`
	MaxRetries     types.Int64  `tfsdk:"max_retries"`
	PollInterval   types.String `tfsdk:"poll_interval"`
}

// providerData is what Configure hands to resources and data sources.
type providerData struct {
	client   *client.Client
	project  string
	location string
}

func (p *GkesimProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "gkesim"
	resp.Version = p.version
}

func (p *GkesimProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The gkesim provider manages GKE clusters and node pools, and workloads and PodDisruptionBudgets in them, on a [gkesim](https://github.com/gkesim/terraform-provider-gkesim) emulator: " +
			"the GKE v1 API with GKE's behaviour (operations, node creation, upgrades, scheduling, drains) simulated on a virtual clock, offline and in seconds.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Base URL of the emulator. Defaults to the `GKESIM_ENDPOINT` environment variable, then `" + DefaultEndpoint + "`.",
				Validators:          []validator.String{urlValidator{}},
			},
			"auth_token": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "The emulator's auth token, for an emulator started with `--auth-token`: sent as `Authorization: Bearer` on every request. " +
					"Defaults to the `GKESIM_AUTH_TOKEN` environment variable; unset, requests carry no credentials.",
			},
			"project": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default project of resources that do not set one. Defaults to the `GKESIM_PROJECT` environment variable.",
				Validators:          []validator.String{projectIDValidator{}},
			},
			"location": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default location (region or zone) of resources that do not set one. Defaults to the `GKESIM_LOCATION` environment variable.",
			},
			"request_timeout": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Timeout of one HTTP request, as a Go duration (e.g. `30s`). Defaults to `30s`.",
				Validators:          []validator.String{durationValidator{}},
			},
			"max_retries": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("How many times a request is retried on HTTP 429, 5xx, connection errors and GKE's "+
					"\"Please wait and try again once it is done\" conflicts (with backoff up to 5s). Defaults to %d.", defaultMaxRetries),
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"poll_interval": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "How often long-running operations are polled, as a Go duration. Defaults to `250ms`.",
				Validators:          []validator.String{durationValidator{}},
			},
		},
	}
}

func stringOr(v types.String, env, def string) string {
	if !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" {
		return v.ValueString()
	}
	if env != "" {
		if e := os.Getenv(env); e != "" {
			return e
		}
	}
	return def
}

func (p *GkesimProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.Endpoint.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("endpoint"), "Unknown endpoint",
			"The provider's endpoint depends on a value not known until apply. Set it to a literal URL or use the GKESIM_ENDPOINT environment variable.")
		return
	}
	ccfg := client.Config{
		Endpoint:       stringOr(cfg.Endpoint, "GKESIM_ENDPOINT", DefaultEndpoint),
		AuthToken:      stringOr(cfg.AuthToken, "GKESIM_AUTH_TOKEN", ""),
		RequestTimeout: defaultRequestTimeout,
		MaxRetries:     defaultMaxRetries,
		PollInterval:   defaultPollInterval,
		UserAgent:      "terraform-provider-gkesim/" + p.version,
	}
	// The validators have checked these parse.
	if d, err := time.ParseDuration(cfg.RequestTimeout.ValueString()); err == nil {
		ccfg.RequestTimeout = d
	}
	if d, err := time.ParseDuration(cfg.PollInterval.ValueString()); err == nil {
		ccfg.PollInterval = d
	}
	if !cfg.MaxRetries.IsNull() && !cfg.MaxRetries.IsUnknown() {
		ccfg.MaxRetries = int(cfg.MaxRetries.ValueInt64())
	}
	c, err := client.New(ctx, ccfg)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("endpoint"), "Invalid endpoint", err.Error())
		return
	}
	data := &providerData{
		client:   c,
		project:  stringOr(cfg.Project, "GKESIM_PROJECT", ""),
		location: stringOr(cfg.Location, "GKESIM_LOCATION", ""),
	}
	resp.ResourceData = data
	resp.DataSourceData = data
}

func (p *GkesimProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{NewClusterResource, NewNodePoolResource, NewWorkloadResource, NewPodDisruptionBudgetResource,
		NewMaintenancePolicyResource, NewLoadBalancerServiceResource}
}

func (p *GkesimProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{NewClusterDataSource, NewNodePoolDataSource, NewServerConfigDataSource, NewNodesDataSource,
		NewMaintenanceScheduleDataSource, NewNodePoolUpgradeStatusDataSource, NewNodePoolUpgradeForecastDataSource}
}
