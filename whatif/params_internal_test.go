package whatif

import "testing"

// bucketSize takes out of each burst the refill that arrived over its
// span, to the nearest whole task, and keeps the most a burst found.
func TestBucketSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bursts []burst
		refill float64 // tasks per second
		want   float64
	}{
		{"none", nil, 1.9, 0},
		// Seven admitted within 90 ms: under half a task refilled.
		{"compact", []burst{{7, 0.09}}, 1.9, 7},
		// Nine admitted over a second at 1.9 tasks/s: two came from the
		// refill.
		{"spread over a second", []burst{{9, 0.991}}, 1.9, 7},
		// A wave that found the bucket paying a debt back admits less
		// than one that found it full.
		{"the most a burst found", []burst{{3, 0.05}, {9, 0.991}, {8, 0.979}, {5, 0.07}}, 1.9, 7},
		{"no refill", []burst{{9, 0.991}}, 0, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := bucketSize(tc.bursts, tc.refill); got != tc.want {
				t.Errorf("bucketSize(%v, %g) = %g, want %g", tc.bursts, tc.refill, got, tc.want)
			}
		})
	}
}
