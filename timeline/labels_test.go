package timeline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestShorten(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/v1/chat/completions", "/…/chat/completions"},
		{"/v1/files/file-7f3a2", "/…/files/file-…"},
		{"OpenAI/Python 1.52.0", "OpenAI/Python …"},
		{"probe-1234567/1.0", "probe-…/…"},
		{"curl/8.0 (x86_64-pc-linux-gnu)", "curl/… (…-pc-linux-gnu)"},
		{"ThrottlingException", "ThrottlingException"},
		{"1.", "…."},
		{"", ""},
		{"a" + string(make([]byte, 300)), "a" + string(make([]byte, maxShapeBytes-1)) + ShortLabel},
		// A cut inside a UTF-8 sequence keeps the sequence out.
		{string(slices.Repeat([]byte("é"), 200)), string(slices.Repeat([]byte("é"), maxShapeBytes/2)) + ShortLabel},
		{string(slices.Repeat([]byte("x"), 255)) + "é", string(slices.Repeat([]byte("x"), 255)) + ShortLabel},
	}
	for _, tt := range tests {
		if got := string(Shorten([]byte(tt.in))); got != tt.want {
			t.Errorf("Shorten(%.40q) = %q (%d bytes), want %q", tt.in, tail(got), len(got), tail(tt.want))
		}
	}
}

func tail(s string) string { return s[max(len(s)-12, 0):] }

// TestLabelsBounded offers the same values in different orders: the values
// kept as logged, and every event's label once settled, are the same
// whatever the order, and the kept values never pass the bound.
func TestLabelsBounded(t *testing.T) {
	tests := []struct {
		name            string
		values          []string
		logged, shapes  int
		wantShortened   int
		wantMarkerAtMin int
	}{
		{name: "under the bound nothing changes", values: distinct("/r/", 50), logged: 64, shapes: 8},
		{name: "ids in the path share one shape", values: distinct("/batch/v1/jobs/", 5000), logged: 64, shapes: 8,
			wantShortened: 5000 - 64},
		// Words hold no digit: a kept shape is the value itself.
		{name: "shapes past their bound are the marker", values: distinctWords(3000), logged: 64, shapes: 8,
			wantShortened: 3000 - 64 - 8, wantMarkerAtMin: 3000 - 64 - 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var first []string
			for seed := range uint64(3) {
				order := slices.Clone(tt.values)
				rand.New(rand.NewPCG(seed, 1)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				l := newLabels(tt.logged, tt.shapes)
				events := make([]Event, len(order))
				for i, v := range order {
					events[i].Route = l.Intern(LabelRoute, []byte(v))
				}
				settle, _ := l.Settle()
				shortened := 0
				settle(events, func(int32, LabelKind) { shortened++ })
				got := map[string]string{}
				markers := 0
				for i, v := range order {
					got[v] = events[i].Route.String()
					if got[v] == ShortLabel {
						markers++
					}
				}
				if shortened != tt.wantShortened || markers < tt.wantMarkerAtMin {
					t.Errorf("seed %d: %d shortened, %d markers; want %d, at least %d", seed, shortened, markers, tt.wantShortened, tt.wantMarkerAtMin)
				}
				kept := 0
				var flat []string
				for _, v := range tt.values {
					if got[v] == v {
						kept++
					}
					flat = append(flat, v+"="+got[v])
				}
				if kept > tt.logged+tt.shapes {
					t.Errorf("seed %d: %d values kept as logged, bound %d", seed, kept, tt.logged+tt.shapes)
				}
				if first == nil {
					first = flat
				} else if !slices.Equal(first, flat) {
					t.Errorf("seed %d: the labels depend on the order the values came in", seed)
				}
			}
		})
	}
}

func distinct(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// distinctWords are values without digits, whose shortened forms are all
// different.
func distinctWords(n int) []string {
	out := make([]string, n)
	for i := range out {
		w := []byte{}
		for x := i + 1; x > 0; x /= 26 {
			w = append(w, byte('a'+x%26))
		}
		out[i] = "/w/" + string(w)
	}
	return out
}
