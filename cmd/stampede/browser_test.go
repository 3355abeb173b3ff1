package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// payload is planted in a User-Agent. Run, it would mark the page; it is
// free of double quotes because the access log quotes the User-Agent.
const payload = `<script>document.body.setAttribute('data-owned','1')</script><img src=x onerror=document.body.setAttribute('data-owned','2')>`

// chromium finds Debian's headless browser. CI (.ci/run) installs it and
// sets STAMPEDE_REQUIRE_BROWSER so that a missing browser fails there
// instead of skipping.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("STAMPEDE_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium on PATH, and STAMPEDE_REQUIRE_BROWSER is set")
	}
	t.Skip("no chromium on PATH; install it (apt-get install chromium) to run the browser test")
	return ""
}

// load opens page in headless chromium and returns the DOM after scripts
// (if any) ran, and every console message the page produced, including
// the browser's own reports of blocked content.
func load(t *testing.T, browser, page string) (dom string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--dump-dom", "file://"+page)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return stdout.String(), console
}

func TestHTMLReportInBrowser(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()

	// The harness must see a console error when there is one, or its
	// silence below proves nothing.
	control := filepath.Join(dir, "control.html")
	if err := os.WriteFile(control, []byte(`<!DOCTYPE html><html><body><script>console.error("control")</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, console := load(t, browser, control); len(console) == 0 {
		t.Fatal("the browser harness does not report console errors")
	}

	// Plant the payload in the seed incident's first User-Agent.
	incident := filepath.Join(dir, "incident")
	if err := os.Mkdir(incident, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "testdata", "seed-incident")
	for _, name := range []string{"access.log", "calls.jsonl"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "access.log" {
			data = bytes.Replace(data, []byte(`"OpenAI/Python 1.52.0"`), []byte(`"OpenAI/Python 1.52.0 `+payload+`"`), 1)
		}
		if err := os.WriteFile(filepath.Join(incident, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := filepath.Join(dir, "report.html")
	if _, _, err := run(t, "analyze", incident, "--format", "html", "-o", page); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte("&lt;script&gt;document.body.setAttribute")) {
		t.Fatal("the planted payload is not in the report as escaped text; the test would prove nothing")
	}

	dom, console := load(t, browser, page)
	for _, c := range console {
		t.Errorf("console: %s", c)
	}
	if !strings.Contains(dom, "<h1>stampede report</h1>") || !strings.Contains(dom, "Findings") {
		t.Errorf("the report did not render:\n%.2000s", dom)
	}
	if n := strings.Count(dom, "<svg"); n < 1 {
		t.Errorf("%d inline SVG charts in the rendered page, want at least 1", n)
	}
	if !strings.Contains(dom, "Retry wave sizes") {
		t.Error("the wave chart's title is not in the rendered page")
	}
	// The payload's text mentions data-owned; only the attribute on
	// <body> means it ran.
	if regexp.MustCompile(`<body[^>]*data-owned`).MatchString(dom) {
		t.Error("the planted payload ran")
	}
	if regexp.MustCompile(`(?i)<script|<img`).MatchString(dom) {
		t.Error("the rendered page has a script or img element: the payload became markup")
	}
	if !strings.Contains(dom, "&lt;script&gt;document.body.setAttribute") {
		t.Error("the payload is not shown as text")
	}
}
