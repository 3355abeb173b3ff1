package main

import (
	"runtime/debug"
	"strings"
)

// versionString is what --version prints after "stampede version ": the
// module version, then the commit the binary was built from when the build
// recorded one. go build and go install in a clone record it; go run, go
// test and -buildvcs=false do not, and then it says so rather than guess.
func versionString(info *debug.BuildInfo) string {
	if info == nil {
		return "unknown (no build information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified, when string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		case "vcs.time":
			when = s.Value
		}
	}
	var detail []string
	if rev == "" {
		detail = append(detail, "no commit recorded")
	} else {
		c := "commit " + rev
		if modified == "true" {
			// Built from a tree with uncommitted changes: the commit
			// alone does not reproduce it.
			c += ", dirty"
		}
		if when != "" {
			c += ", " + when
		}
		detail = append(detail, c)
	}
	if info.GoVersion != "" {
		detail = append(detail, info.GoVersion)
	}
	return v + " (" + strings.Join(detail, "; ") + ")"
}

func buildVersion() string {
	info, _ := debug.ReadBuildInfo() // nil when the binary has none
	return versionString(info)
}
