package stampede_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/internal/racedetect"
	"github.com/stampede/stampede/report"
)

// A finding that compares two numbers must say what the numbers say: an
// ACF "below" a threshold it exceeds is a report that contradicts itself.
// Every stated comparison in the terminal report is parsed back and checked,
// on every recorded incident under every input mix.

// statedComparison is a pattern of the report's and the check of the numbers
// it captures.
type statedComparison struct {
	name  string
	re    *regexp.Regexp
	check func(m []string) error
	// rare: no recording says it (the analyze package's TestWaveFindings
	// renders it), so it may go unseen here.
	rare bool
}

func number(s string) float64 {
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

var statedComparisons = []statedComparison{
	{name: "ACF above threshold", re: regexp.MustCompile(`ACF ([0-9.]+), above the shuffled-data threshold of ([0-9.]+)`),
		check: func(m []string) error { return want(number(m[1]) > number(m[2]), "%s is not above %s", m[1], m[2]) }},
	{name: "ACF not above threshold", re: regexp.MustCompile(`ACF ([0-9.]+), not above the shuffled-data threshold of ([0-9.]+)`),
		check: func(m []string) error { return want(number(m[1]) <= number(m[2]), "%s is above %s", m[1], m[2]) }},
	{name: "autocorrelation against percentile", re: regexp.MustCompile(`autocorrelation ([0-9.]+), (above|not above) the shuffled 99th percentile ([0-9.]+)`),
		check: func(m []string) error {
			above := number(m[1]) > number(m[3])
			return want(above == (m[2] == "above"), "%s is said %q %s", m[1], m[2], m[3])
		}},
	{name: "significance of a period", re: regexp.MustCompile(`\(ACF ([0-9.]+), ([0-9.]+) x the shuffled-data threshold\)`),
		check: func(m []string) error { return want(number(m[2]) > 1, "a period at %s x its threshold", m[2]) }},
	{name: "a grid period's ACF under its threshold", re: regexp.MustCompile(`the ACF, ([0-9.]+), is under the shuffled-data threshold of ([0-9.]+)`),
		check: func(m []string) error { return want(number(m[1]) < number(m[2]), "%s is not under %s", m[1], m[2]) }, rare: true},
	{name: "random bursts lining up", re: regexp.MustCompile(`line up as well in ([0-9.]+)% of tries \(at most ([0-9.]+)% allowed\)`),
		check: func(m []string) error { return want(number(m[1]) > number(m[2]), "%s%% is within %s%%", m[1], m[2]) }, rare: true},
	{name: "the middle of three bursts off halfway", re: regexp.MustCompile(`sits ([0-9.]+) s from halfway between the others, ([0-9.]+) times the ([0-9.]+) s its waves' spread explains`),
		check: func(m []string) error {
			offset, times, stdErr := number(m[1]), number(m[2]), number(m[3])
			if err := want(math.Abs(offset/stdErr-times) <= 0.01*times+0.05, "%s s is not %s times %s s", m[1], m[2], m[3]); err != nil {
				return err
			}
			return want(times > 6, "%s times its error is within the 6 allowed", m[2])
		}, rare: true},
	{name: "the middle of three bursts near halfway", re: regexp.MustCompile(`as close to halfway between the others as only ([0-9.]+)% of places`),
		check: func(m []string) error { return want(number(m[1]) <= 1, "%s%% is over the 1%% allowed", m[1]) }, rare: true},
	{name: "three bursts and the next wave", re: regexp.MustCompile(`as close to halfway between the others as ([0-9.]+)% of places between them would put bursts at random times, and (\d+) arrivals where the grid puts the next wave against ([0-9.]+) from background, as many as background alone brings in ([0-9.]+)% of tries \(both together: ([0-9.]+)%\)`),
		check: func(m []string) error {
			middle, arrivals, expected, next, both := number(m[1]), number(m[2]), number(m[3]), number(m[4]), number(m[5])
			if err := want(arrivals > expected, "%s arrivals are no more than the %s expected", m[2], m[3]); err != nil {
				return err
			}
			if err := want(next <= 5, "%s%% from background alone is no wave", m[4]); err != nil {
				return err
			}
			// Two chances multiplying to c come about together in
			// c(1 − ln c) of tries; each share is printed to a tenth of a
			// per cent.
			together := func(a, b float64) float64 {
				c := math.Max(0, a) * math.Max(0, b) / 1e4
				if c <= 0 {
					return 0
				}
				return 100 * math.Min(1, c*(1-math.Log(c)))
			}
			lo, hi := together(middle-0.05, next-0.05), together(middle+0.05, next+0.05)
			if err := want(both >= lo-0.05 && both <= hi+0.05, "%s%% is not how often %s%% and %s%% come together", m[5], m[1], m[4]); err != nil {
				return err
			}
			return want(both <= 5, "%s%% is over the 5%% allowed", m[5])
		}, rare: true},
	{name: "both chances within the bar", re: regexp.MustCompile(`both by chance: ([0-9.]+)% \(at most ([0-9.]+)% allowed\)`),
		check: func(m []string) error { return want(number(m[1]) <= number(m[2]), "%s%% is over %s%%", m[1], m[2]) }, rare: true},
	{name: "bursts on the grid", re: regexp.MustCompile(`(\d+) of (\d+) bursts (?:sit )?on its grid`),
		check: func(m []string) error { return want(number(m[1]) <= number(m[2]), "%s of %s", m[1], m[2]) }},
	{name: "rates side by side", re: regexp.MustCompile(`([0-9.]+)% of ([0-9,]+) HTTP attempts? (?:was|were) throttled \(([0-9,]+)\), (but only|while|and) ([0-9.]+)% of ([0-9,]+) calls?.*? failed \(([0-9,]+)\)`),
		check: func(m []string) error {
			h, hn, ht := number(m[1]), number(m[2]), number(m[3])
			a, an, af := number(m[5]), number(m[6]), number(m[7])
			if err := want(math.Abs(100*ht/hn-h) < 0.06, "%s%% is not %s of %s", m[1], m[3], m[2]); err != nil {
				return err
			}
			if err := want(math.Abs(100*af/an-a) < 0.06, "%s%% is not %s of %s", m[5], m[7], m[6]); err != nil {
				return err
			}
			switch m[4] {
			case "but only":
				return want(a < h, "%s%% is said to be lower than %s%%", m[5], m[1])
			case "while":
				return want(a > h, "%s%% is said to be higher than %s%%", m[5], m[1])
			}
			return want(m[5] == m[1], "%s%% and %s%% joined by \"and\"", m[5], m[1])
		}},
	{name: "bursts at changing spacings", re: regexp.MustCompile(`kept no one spacing \(they began ([^)]*) apart\)`),
		check: func(m []string) error {
			var gaps []float64
			for _, g := range regexp.MustCompile(`([0-9.]+) s`).FindAllStringSubmatch(m[1], -1) {
				gaps = append(gaps, number(g[1]))
			}
			if len(gaps) < 2 {
				return fmt.Errorf("%q lists fewer than two gaps", m[1])
			}
			lo, hi := gaps[0], gaps[0]
			for _, g := range gaps {
				lo, hi = math.Min(lo, g), math.Max(hi, g)
			}
			return want(hi-lo > 0.1*hi, "gaps %s agree to within a tenth", m[1])
		}},
	{name: "period split into delays", re: regexp.MustCompile(`period ([0-9.]+) s (=|≈) (requeue delay [^;]*)`),
		check: func(m []string) error {
			period := number(m[1])
			// The split ends with its sentence, or where the next group's
			// begins.
			split := m[3]
			for _, end := range []string{" and ", ".\n", "\n"} {
				if k := strings.Index(split, end); k >= 0 {
					split = split[:k]
				}
			}
			terms := regexp.MustCompile(`(?:^|\+ )(?:(\d+) x )?[a-zA-Z -]*?([0-9.]+) s`).FindAllStringSubmatch(split, -1)
			// Each number printed is rounded to its last digit: the sum
			// may miss the period by half of each one's last digit.
			rounding := halfDigit(m[1])
			var sum float64
			for _, t := range terms {
				k := 1.0
				if t[1] != "" {
					k = number(t[1])
				}
				sum += k * number(t[2])
				rounding += k * halfDigit(t[2])
			}
			tol := 0.005
			if m[2] == "≈" {
				tol = 0.03
			}
			return want(math.Abs(sum-period) <= tol*period+rounding, "the terms add up to %.3f s, not %s s", sum, m[1])
		}},
}

// halfDigit is half the last digit of a printed number: "84.0" may be
// anything from 83.95 to 84.05.
func halfDigit(s string) float64 {
	_, frac, ok := strings.Cut(s, ".")
	if !ok {
		return 0.5
	}
	return 0.5 * math.Pow(10, -float64(len(frac)))
}

func want(ok bool, format string, a ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, a...)
}

func TestFindingsAgreeWithNumbers(t *testing.T) {
	racedetect.SkipResultsTest(t)
	truths, sampled := recordedTruths(t)
	seen := map[string]int{}
	for _, tp := range truths {
		dir := filepath.Dir(tp)
		for _, mix := range inputMixes {
			var files []string
			for _, f := range mix.files {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					files = append(files, filepath.Join(dir, f))
				}
			}
			if len(files) != len(mix.files) {
				continue
			}
			t.Run(filepath.Base(dir)+"/"+mix.name, func(t *testing.T) {
				res, err := stampede.Analyze(context.Background(), stampede.Config{Inputs: files, Seed: 1, LogFormat: mix.logFormat})
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				// Wide enough that no sentence wraps: the wrapping has
				// tests of its own. Verbose, so that the evidence's
				// comparisons are checked too.
				if err := report.RenderWith(&b, res, report.FormatTable, report.Options{Width: 1 << 20, Verbose: true}); err != nil {
					t.Fatal(err)
				}
				// The sentences are checked as the findings hold them, the
				// facts as rendered.
				text := strings.Join(res.Findings, "\n") + "\n" + strings.Join(res.Reconcile.Explanation, "\n") + "\n" + b.String()
				for _, c := range statedComparisons {
					for _, m := range c.re.FindAllStringSubmatch(text, -1) {
						seen[c.name]++
						if err := c.check(m); err != nil {
							t.Errorf("%s: %q: %v", c.name, m[0], err)
						}
					}
				}
			})
		}
	}
	// A pattern that never matches checks nothing: the report's wording
	// moved away from it. A sample of the recordings need not say all.
	for _, c := range statedComparisons {
		if seen[c.name] == 0 && !c.rare && !sampled {
			t.Errorf("no report states %q: the pattern no longer matches the wording", c.name)
		}
	}
}

// TestDefaultReportSaysEachThingOnce: the default terminal report puts the
// findings first and does not say them again. Every clause of 40
// characters and four words or more (a sentence, or its part between "; "
// and ": ") may
// appear in one paragraph of the report only: finding 1 reprinted under
// Reconciliation, the period split repeated as a suspects bullet or the
// SDK's policy as a list item each fail here.
func TestDefaultReportSaysEachThingOnce(t *testing.T) {
	const clauseLen = 40
	splitter := regexp.MustCompile(`[.;:] `)
	marker := regexp.MustCompile(`^\s*(?:\d+\. |- )?`)
	for _, dir := range []string{"testdata/seed-incident", "testdata/recorded/openai-two-runners", "testdata/recorded/boto-standard-fixed10"} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			res, err := stampede.Analyze(context.Background(), stampede.Config{Inputs: []string{dir}, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			// Wide enough that every paragraph is one line.
			if err := report.RenderWith(&b, res, report.FormatTable, report.Options{Width: 1 << 20}); err != nil {
				t.Fatal(err)
			}
			var paragraphs []string
			for _, l := range strings.Split(b.String(), "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.ContainsAny(l[:1], "┌│├└") {
					paragraphs = append(paragraphs, marker.ReplaceAllString(l, ""))
				}
			}
			for i, p := range paragraphs {
				for _, clause := range splitter.Split(p, -1) {
					// A file name is a name, not something said.
					if len(clause) < clauseLen || strings.Count(clause, " ") < 3 {
						continue
					}
					for j, q := range paragraphs {
						if j != i && strings.Contains(q, clause) {
							t.Errorf("said twice: %q\nin %q\nand %q", clause, p, q)
						}
					}
				}
			}
		})
	}
}
