package gate

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML is what CI systems (GitHub, GitLab, Jenkins) show as test
// results; each rule becomes one test case, so a failing gate shows up by
// name with its value.

// JUnitSuites is the root element of a JUnit report.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one run of the rules against one result.
type JUnitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []JUnitCase `xml:"testcase"`
}

// JUnitCase is one rule.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *JUnitFailure `xml:"failure,omitempty"`
	Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitSkipped marks a rule that could not be measured and was let through
// with a warning: CI views show it apart from both passes and failures.
type JUnitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnitFailure says why a rule failed.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes outcomes as a JUnit XML report; suite names what was
// checked, e.g. the input paths.
func WriteJUnit(w io.Writer, suite string, outcomes []Outcome) error {
	s := JUnitSuite{Name: suite, Tests: len(outcomes)}
	for _, o := range outcomes {
		c := JUnitCase{Name: o.Rule.String(), ClassName: "stampede.check", SystemOut: Describe(o)}
		if o.Failed {
			s.Failures++
			c.Failure = &JUnitFailure{Message: Describe(o), Type: "gate"}
			if o.Detail != "" {
				c.Failure.Text = o.Detail
			}
		} else if o.Warned {
			s.Skipped++
			c.Skipped = &JUnitSkipped{Message: Describe(o)}
		}
		s.Cases = append(s.Cases, c)
	}
	doc := JUnitSuites{Name: "stampede check", Tests: s.Tests, Failures: s.Failures, Suites: []JUnitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// Describe is one line about an outcome: which rule, what value, verdict.
func Describe(o Outcome) string { return describe(o, func(v string) string { return v }) }

func describe(o Outcome, paint func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (value %s)", paint(o.Verdict()), o.Rule, FormatValue(o))
	if o.Detail != "" {
		fmt.Fprintf(&b, ": %s", o.Detail)
	}
	return b.String()
}

// WriteText writes one line per outcome for a terminal or CI log. paint,
// when not nil, decorates the verdict word (e.g. with colour); it is given
// whether the rule failed; a warned rule has not.
func WriteText(w io.Writer, outcomes []Outcome, paint func(verdict string, failed bool) string) error {
	for _, o := range outcomes {
		p := func(v string) string { return v }
		if paint != nil {
			p = func(v string) string { return paint(v, o.Failed) }
		}
		if _, err := fmt.Fprintln(w, describe(o, p)); err != nil {
			return err
		}
	}
	return nil
}

// WriteSummary writes a Markdown table of the outcomes, for a CI step
// summary such as $GITHUB_STEP_SUMMARY. Log-derived text is escaped so it
// cannot break the table or inject markup.
func WriteSummary(w io.Writer, title string, outcomes []Outcome) error {
	failed, warned := 0, 0
	for _, o := range outcomes {
		switch {
		case o.Failed:
			failed++
		case o.Warned:
			warned++
		}
	}
	verdict := fmt.Sprintf("all %d gates passed", len(outcomes))
	if failed > 0 {
		verdict = fmt.Sprintf("%d of %d gates failed", failed, len(outcomes))
	}
	if warned > 0 {
		verdict += fmt.Sprintf(", %d not measurable", warned)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### stampede check: %s\n\n", verdict)
	if title != "" {
		fmt.Fprintf(&b, "Input: %s\n\n", mdCell(title))
	}
	b.WriteString("| Result | Rule | Value | Detail |\n|---|---|---|---|\n")
	for _, o := range outcomes {
		mark := "✅ pass"
		switch {
		case o.Failed:
			mark = "❌ fail"
		case o.Warned:
			mark = "⚠️ warn"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", mark, strings.ReplaceAll(o.Rule.String(), "`", "'"), FormatValue(o), mdCell(o.Detail))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell makes text safe inside a Markdown table cell: no line breaks, no
// column breaks, no HTML.
func mdCell(s string) string {
	r := strings.NewReplacer("\n", " ", "\r", " ", "|", `\|`, "<", "&lt;", ">", "&gt;", "`", "'", "\\", `\\`)
	return r.Replace(s)
}
