package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede/stampede/internal/racedetect"
)

func TestWhatIfCommand(t *testing.T) {
	racedetect.SkipResultsTest(t)
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	scenario := filepath.Join("..", "..", "testdata", "scenarios", "requeue90-500tasks.json")
	tests := []struct {
		name    string
		args    []string
		wantErr string
		want    []string
	}{
		{
			name: "from a scenario, json",
			args: []string{"whatif", "--scenario", scenario, "--whatif-seeds", "1", "--format", "json"},
			want: []string{`"policy": "as measured"`, `"policy": "adaptive concurrency (AIMD)"`, `"source": "scenario requeue90-500tasks"`},
		},
		{
			name: "analyze --whatif adds the section",
			args: []string{"analyze", incident, "--whatif", "--whatif-seeds", "1", "--task-tokens", "28000", "--interactive-tokens", "1200", "--format", "markdown"},
			want: []string{"## What if", "jitter + cap + concurrency limit", "tasks/min", "HTTP requests in the trace"},
		},
		{name: "logs and a scenario", args: []string{"whatif", incident, "--scenario", scenario}, wantErr: "either logs to measure or --scenario FILE"},
		{name: "neither", args: []string{"whatif"}, wantErr: "either logs to measure or --scenario FILE"},
		{name: "bad seeds", args: []string{"whatif", "--scenario", scenario, "--whatif-seeds", "0"}, wantErr: "--whatif-seeds 0: want 1 to 100"},
		{name: "bad reject charge", args: []string{"analyze", incident, "--whatif", "--reject-charge", "3"}, wantErr: "--reject-charge 3: want a share from 0 to 1"},
		{name: "missing scenario", args: []string{"whatif", "--scenario", "nope.json"}, wantErr: "nope.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _, err := run(t, tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			if strings.Contains(tt.args[len(tt.args)-1], "json") && !json.Valid([]byte(stdout)) {
				t.Error("json output does not parse")
			}
		})
	}
}
