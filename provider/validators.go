package provider

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Validators for rules that are local to the configuration, so that plan catches them.

// gkeNameValidator is GKE's rule for cluster and node pool names.
func gkeNameValidator() validator.String {
	return stringvalidator.RegexMatches(regexp.MustCompile(`^[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?$`),
		"must be 1-40 characters of lowercase letters, digits and '-', starting with a letter and ending with a letter or digit (GKE's naming rule)")
}

type urlValidator struct{}

func (urlValidator) Description(context.Context) string { return "must be an http:// or https:// URL" }
func (v urlValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (urlValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	u, err := url.Parse(req.ConfigValue.ValueString())
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid endpoint",
			fmt.Sprintf("%q is not an http:// or https:// URL; give the emulator's address, e.g. http://127.0.0.1:8790.", req.ConfigValue.ValueString()))
	}
}

type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return "must be a Go duration such as 30s, 2m or 250ms"
}
func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil || d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%q is not a positive Go duration; write it like 30s, 2m or 250ms.", req.ConfigValue.ValueString()))
	}
}

var projectIDRE = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]$`)

type projectIDValidator struct{}

func (projectIDValidator) Description(context.Context) string {
	return "must be a Google Cloud project ID: 6-30 lowercase letters, digits or hyphens, starting with a letter"
}
func (v projectIDValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v projectIDValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if !projectIDRE.MatchString(req.ConfigValue.ValueString()) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid project ID",
			fmt.Sprintf("%q %s.", req.ConfigValue.ValueString(), v.Description(ctx)))
	}
}
