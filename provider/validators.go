package provider

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
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

// Kubernetes rules, checked at plan time with the API server's own validation functions.

// kubeRule checks a string with one of the API server's own validation functions.
type kubeRule struct {
	summary, description string
	check                func(string) []string
}

func (v kubeRule) Description(context.Context) string { return v.description }
func (v kubeRule) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v kubeRule) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if errs := v.check(s); len(errs) > 0 {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, fmt.Sprintf("%q %s (%s).", s, v.description, strings.Join(errs, "; ")))
	}
}

// Kubernetes names, label keys and label values.
var (
	kubeObjectName = kubeRule{"Invalid Kubernetes name",
		"must be a DNS-1123 subdomain: at most 253 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit",
		k8svalidation.IsDNS1123Subdomain}
	kubeNamespaceName = kubeRule{"Invalid Kubernetes name",
		"must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit",
		k8svalidation.IsDNS1123Label}
	kubeKey = kubeRule{"Invalid key",
		"must be a Kubernetes label or annotation key: [prefix/]name, the name at most 63 letters, digits, '-', '_' or '.'",
		k8svalidation.IsQualifiedName}
	kubeLabelValue = kubeRule{"Invalid label value",
		"must be a Kubernetes label value: empty or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
		k8svalidation.IsValidLabelValue}
)

// quantityValidator checks a Kubernetes resource quantity such as 500m, 0.5, 256Mi or 1G.
type quantityValidator struct{}

func (quantityValidator) Description(context.Context) string {
	return "must be a non-negative Kubernetes quantity such as 500m, 0.5, 2, 256Mi or 1G"
}
func (v quantityValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v quantityValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	q, err := k8sresource.ParseQuantity(req.ConfigValue.ValueString())
	if err != nil || q.Sign() < 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid quantity",
			fmt.Sprintf("%q is not a valid quantity: it %s.", req.ConfigValue.ValueString(), v.Description(ctx)))
	}
}

var intOrPercentRE = regexp.MustCompile(`^(0|[1-9][0-9]*)(%?)$`)

// intOrPercentValidator checks a PodDisruptionBudget count: an integer or a percentage 0%-100%.
type intOrPercentValidator struct{}

func (intOrPercentValidator) Description(context.Context) string {
	return "must be a non-negative integer (\"2\") or a percentage between 0% and 100% (\"50%\")"
}
func (v intOrPercentValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v intOrPercentValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	m := intOrPercentRE.FindStringSubmatch(s)
	ok := m != nil
	if ok && m[2] == "%" {
		n, err := strconv.Atoi(m[1])
		ok = err == nil && n <= 100
	}
	if ok && m[2] == "" {
		_, err := strconv.ParseInt(m[1], 10, 32)
		ok = err == nil
	}
	if !ok {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid count", fmt.Sprintf("%q %s.", s, v.Description(ctx)))
	}
}

// labelMapValidators check a map of Kubernetes labels (node selectors, selectors, labels).
func labelMapValidators() []validator.Map {
	return []validator.Map{
		mapvalidator.KeysAre(kubeKey),
		mapvalidator.ValueStringsAre(kubeLabelValue),
	}
}
