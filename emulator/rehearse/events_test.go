package rehearse

import (
	"slices"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// twoTokens reads the pod lines as their patterns do: the same submatches for the messages
// the simulation writes, and an error for every message a pattern refuses.
func TestTwoTokensAgreeWithThePatterns(t *testing.T) {
	evicted := []string{
		"evicted pod default/web-1 from gke-c-p-1 (grace 30s)",
		"evicted pod default/web-1 from gke-c-p-1 (grace 1h0m0s): its 168h0m0s extended duration is over",
		"evicted pod default/web-1 from gke-c-p-1 (grace",
		"evicted pod  from gke-c-p-1 (grace 30s)",
		"evicted pod default/web-1 from  (grace 30s)",
		"evicted pod default/web-1\tfrom gke-c-p-1 (grace 30s)",
		"evicted pod default/web-1 from gke-c-p-1\t(grace 30s)",
		"evicted pod default/web-1 from gke-c-p-1",
		"evicted pods default/web-1 from gke-c-p-1 (grace 30s)",
		"evicted pod default/web-1",
		"",
	}
	scheduled := []string{
		"pod default/web-1 scheduled to gke-c-p-1",
		"pod default/web-1 scheduled to gke-c-p-1 ",
		"pod default/web-1 scheduled to ",
		"pod  scheduled to gke-c-p-1",
		"pod default/web-1 scheduled to gke-c-p-1\n",
		"pod default/web-1  scheduled to gke-c-p-1",
		"pod default/web-1",
		"pods default/web-1 scheduled to gke-c-p-1",
	}
	read := 0
	for _, c := range []struct {
		msgs              []string
		prefix, mid, rest string
		end               bool
		want              func(string) []string
	}{
		{evicted, "evicted pod ", " from ", " (grace ", false, rePodEvicted.FindStringSubmatch},
		{scheduled, "pod ", " scheduled to ", "", true, reScheduled.FindStringSubmatch},
	} {
		for _, msg := range c.msgs {
			want := c.want(msg)
			got, err := twoTokens(event{Event: &api.Event{Message: msg}}, c.prefix, c.mid, c.rest, c.end)
			if (err == nil) != (want != nil) || !slices.Equal(got, want) {
				t.Errorf("%q: read %q (error %v), the pattern %q", msg, got, err, want)
			}
			if want != nil {
				read++
			}
		}
	}
	if read != 3 {
		t.Fatalf("%d messages read, want 3: the table does not test what it says", read)
	}
}
