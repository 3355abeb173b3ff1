package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stampede/stampede/internal/racedetect"
)

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			out, _, err := run(t, "completion", shell)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, "stampede") || len(out) < 500 {
				t.Errorf("%s completion script looks empty:\n%.300s", shell, out)
			}
		})
	}
}

func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := run(t, "man", dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"stampede.1", "stampede-analyze.1", "stampede-check.1"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), ".nh") && !strings.Contains(string(data), ".TH ") {
			t.Errorf("%s is not a man page:\n%.200s", name, data)
		}
	}
	check, _ := os.ReadFile(filepath.Join(dir, "stampede-check.1"))
	for _, want := range []string{"--fail-on", "Exit status"} {
		if !strings.Contains(string(check), want) {
			t.Errorf("stampede-check.1 lacks %q", want)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, err := run(t, "--version")
	if err != nil || !strings.HasPrefix(out, "stampede version ") {
		t.Errorf("--version printed %q, %v", out, err)
	}
}

func TestMarkdownReportBringsItsCharts(t *testing.T) {
	racedetect.SkipResultsTest(t)
	incident := filepath.Join("..", "..", "testdata", "seed-incident")
	dir := t.TempDir()
	if _, _, err := run(t, "analyze", incident, "--format", "markdown", "-o", filepath.Join(dir, "incident.md")); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "incident.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, chart := range []string{"rate", "rate-batch", "rate-interactive", "waves"} {
		link := regexp.MustCompile(`<img src="(incident-` + chart + `-[0-9a-f]{8}\.png)"`).FindSubmatch(md)
		if link == nil {
			t.Errorf("report does not link its %s chart", chart)
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, string(link[1]))); err != nil || st.Size() == 0 {
			t.Errorf("%s not written beside the report: %v", link[1], err)
		}
	}
}
