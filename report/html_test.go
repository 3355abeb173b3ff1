package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestHTMLContents: the table of contents links every h2 of the report
// by an id that heading carries, in order, and no two headings share one.
func TestHTMLContents(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderWith(&buf, incidentResult(), FormatHTML, Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	nav := regexp.MustCompile(`(?s)<nav class="toc">.*?</nav>`).FindString(page)
	if nav == "" {
		t.Fatal("no table of contents")
	}
	var links, ids []string
	for _, m := range regexp.MustCompile(`<a href="#([^"]+)">`).FindAllStringSubmatch(nav, -1) {
		links = append(links, m[1])
	}
	for _, m := range regexp.MustCompile(`<h2 id="([^"]+)">`).FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	if len(links) < 3 || strings.Join(links, " ") != strings.Join(ids, " ") {
		t.Errorf("contents link %q, headings have ids %q", links, ids)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(id) {
			t.Errorf("id %q repeated or not a plain slug", id)
		}
		seen[id] = true
	}
}

func TestAnchor(t *testing.T) {
	used := map[string]bool{"findings": true}
	for _, tt := range []struct{ title, want string }{
		{"Reconciliation", "reconciliation"},
		{"Retry layers & caps", "retry-layers-caps"},
		{"Findings", "findings-2"},
		{`"><script>x</script>`, "script-x-script"},
		{"——", "section"},
		{"Reconciliation", "reconciliation-2"},
	} {
		if got := anchor(tt.title, used); got != tt.want {
			t.Errorf("anchor(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

// TestHTMLCellFolds: a long cell folds under its opening words, on a
// word boundary, and a short one stays as it is.
func TestHTMLCellFolds(t *testing.T) {
	long := strings.Repeat("g1=0.26 (294/1144), ", 12)
	tests := []struct {
		name, text string
		folded     bool
	}{
		{"short", "capped at 3", false},
		{"at the limit", strings.Repeat("x", foldAt), false},
		{"long evidence", long, true},
		{"long, one word", strings.Repeat("é", foldAt+1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newHTMLCell(tt.text)
			if (c.Summary != "") != tt.folded || c.Text != tt.text {
				t.Fatalf("cell %+v, want folded %v", c, tt.folded)
			}
			if tt.folded && (!strings.HasPrefix(tt.text, strings.TrimSuffix(c.Summary, " …")) || len([]rune(c.Summary)) > summaryLen+2) {
				t.Errorf("summary %q is not an opening of the text", c.Summary)
			}
		})
	}
	// In the report: a long cell (here a file path) folds, and its
	// markup stays escaped inside the fold.
	r := incidentResult()
	r.Inputs[0].Path = long + `<b onclick="x">bold</b>`
	var buf bytes.Buffer
	if err := RenderWith(&buf, r, FormatHTML, Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !regexp.MustCompile(`<td><details><summary>[^<]+</summary>[^<]+</details></td>`).MatchString(page) {
		t.Error("no long cell folded into <details>")
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "<b onclick") || !strings.Contains(page, "&lt;b onclick=") {
		t.Error("the long cell's markup is not escaped inside its fold")
	}
}
