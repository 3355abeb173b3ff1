package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionString(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "12314e3a945c12cdf73c1a08d8a2f185172e781b"
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "unknown (no build information)"},
		{"go run: no VCS stamp", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"(devel) (no commit recorded; go1.26.8)"},
		{"empty version", &debug.BuildInfo{GoVersion: "go1.26.8"},
			"(devel) (no commit recorded; go1.26.8)"},
		{"clean clone", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main:     debug.Module{Version: "v0.0.0-20261201155000-12314e3a945c"},
			Settings: settings("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-12-01T15:50:00Z", "vcs.modified", "false")},
			"v0.0.0-20261201155000-12314e3a945c (commit " + rev + ", 2026-12-01T15:50:00Z; go1.26.8)"},
		{"modified clone", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main:     debug.Module{Version: "v0.0.0-20261201155000-12314e3a945c+dirty"},
			Settings: settings("vcs.revision", rev, "vcs.time", "2026-12-01T15:50:00Z", "vcs.modified", "true")},
			"v0.0.0-20261201155000-12314e3a945c+dirty (commit " + rev + ", dirty, 2026-12-01T15:50:00Z; go1.26.8)"},
		{"revision without time", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: settings("vcs.revision", rev)},
			"v1.2.3 (commit " + rev + ")"},
		{"tagged module, no VCS", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			"v1.2.3 (no commit recorded; go1.26.8)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionString(tc.info); got != tc.want {
				t.Errorf("versionString = %q\nwant            %q", got, tc.want)
			}
		})
	}
}
