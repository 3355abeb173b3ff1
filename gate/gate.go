// Package gate decides whether an incident result passes the rules a CI job
// sets for it. A rule names a condition that fails the job when it holds:
// "amplification > 4" fails when retries multiplied each task into more than
// four requests, "periodic" fails when retries arrived in waves.
//
// Grammar, one rule per expression:
//
//	rule   = metric                 (a yes/no metric: fails when yes)
//	       | "!" metric             (fails when no)
//	       | metric op number       (a numeric metric)
//	op     = ">" | ">=" | "<" | "<=" | "==" | "!="
//	metric = name | class "." name  (class: a traffic class, e.g. batch)
//
// Percentages are written as fractions (0.05, not 5%) or with a trailing
// "%" (5%), which is read as 0.05.
package gate

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/agnivade/levenshtein"

	"github.com/stampede/stampede/analyze"
)

// Op is a comparison; the empty Op marks a yes/no rule.
type Op string

const (
	OpNone Op = ""
	OpGT   Op = ">"
	OpGE   Op = ">="
	OpLT   Op = "<"
	OpLE   Op = "<="
	OpEQ   Op = "=="
	OpNE   Op = "!="
)

// Rule is one parsed --fail-on expression.
type Rule struct {
	// Expr is the expression as written.
	Expr string
	// Class restricts the metric to one traffic class; "" is all traffic.
	Class  string
	Metric string
	Op     Op
	// Threshold is the number compared against, for numeric rules.
	Threshold float64
	// Negated is true for "!metric": the rule fails when the metric is no.
	Negated bool
}

// Parse reads one rule. Errors quote the expression and say what was
// expected, so a typo in a CI file is found without reading the source.
func Parse(expr string) (Rule, error) {
	rule := Rule{Expr: expr}
	s := strings.TrimSpace(expr)
	if s == "" {
		return rule, fmt.Errorf("empty --fail-on rule: write e.g. 'amplification > 4' or 'periodic'")
	}
	if strings.HasPrefix(s, "!") && !strings.HasPrefix(s, "!=") {
		rule.Negated = true
		s = strings.TrimSpace(s[1:])
	}
	end := strings.IndexFunc(s, func(r rune) bool { return !isNameRune(r) })
	if end < 0 {
		end = len(s)
	}
	name, rest := s[:end], strings.TrimSpace(s[end:])
	if name == "" {
		return rule, fmt.Errorf("rule %q: expected a metric name at the start, one of: %s", expr, strings.Join(Names(), ", "))
	}
	if class, metric, ok := strings.Cut(name, "."); ok {
		if class == "" || metric == "" || strings.Contains(metric, ".") {
			return rule, fmt.Errorf("rule %q: %q is not CLASS.METRIC", expr, name)
		}
		rule.Class, name = class, metric
	}
	m, ok := lookup(name)
	if !ok {
		return rule, fmt.Errorf("rule %q: unknown metric %q%s; known metrics: %s", expr, name, suggest(name), strings.Join(Names(), ", "))
	}
	rule.Metric = m.Name
	if rule.Class != "" && m.class == nil {
		return rule, fmt.Errorf("rule %q: %s is not measured per traffic class (per-class metrics: %s)", expr, m.Name, strings.Join(classNames(), ", "))
	}
	if rest == "" {
		if !m.YesNo {
			return rule, fmt.Errorf("rule %q: %s is a number (%s); compare it, e.g. '%s > %s'", expr, m.Name, m.Unit, m.Name, m.Example)
		}
		return rule, nil
	}
	if rule.Negated {
		return rule, fmt.Errorf("rule %q: '!' applies only to a yes/no metric standing alone, e.g. '!periodic'", expr)
	}
	op, rest := cutOp(rest)
	if op == OpNone && strings.HasPrefix(rest, "=") {
		return rule, fmt.Errorf("rule %q: '=' is not a comparison; write '==' to fail on equality", expr)
	}
	if op == OpNone {
		return rule, fmt.Errorf("rule %q: expected a comparison (>, >=, <, <=, ==, !=) after %s, found %q", expr, m.Name, rest)
	}
	if m.YesNo {
		return rule, fmt.Errorf("rule %q: %s is yes/no; write '%s' to fail when it holds or '!%s' to fail when it does not", expr, m.Name, m.Name, m.Name)
	}
	rule.Op = op
	num := strings.TrimSpace(rest)
	scale := 1.0
	if strings.HasSuffix(num, "%") {
		num, scale = strings.TrimSpace(strings.TrimSuffix(num, "%")), 0.01
		if !m.Fraction {
			return rule, fmt.Errorf("rule %q: %s is %s, not a percentage; drop the %%", expr, m.Name, m.Unit)
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || !plainNumber.MatchString(num) {
		return rule, fmt.Errorf("rule %q: expected a number after %s (decimal, as 4 or 0.05), found %q", expr, op, strings.TrimSpace(rest))
	}
	if v == 0 && strings.Trim(strings.SplitN(strings.ToLower(num), "e", 2)[0], "+-0.") != "" {
		return rule, fmt.Errorf("rule %q: %s is too small to tell from 0", expr, num)
	}
	rule.Threshold = v * scale
	if m.Fraction && (rule.Threshold < 0 || rule.Threshold > 1) {
		// A rate lies in [0, 1]: past either end the rule always or never
		// holds, whatever the incident.
		return rule, fmt.Errorf("rule %q: %s is a fraction from 0 to 1 (0%% to 100%%), so this rule would hold for every incident or none", expr, m.Name)
	}
	return rule, nil
}

// plainNumber is a decimal number as a user writes one: no digit
// separators, no hex, no Inf.
var plainNumber = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// ParseAll parses every expression, reporting the first bad one.
func ParseAll(exprs []string) ([]Rule, error) {
	rules := make([]Rule, 0, len(exprs))
	for _, e := range exprs {
		r, err := Parse(e)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// String renders the rule canonically: "batch.http_throttle_rate > 0.05".
func (r Rule) String() string {
	name := r.Metric
	if r.Class != "" {
		name = r.Class + "." + name
	}
	switch {
	case r.Op != OpNone:
		return fmt.Sprintf("%s %s %s", name, r.Op, strconv.FormatFloat(r.Threshold, 'g', -1, 64))
	case r.Negated:
		return "!" + name
	}
	return name
}

func isNameRune(r rune) bool {
	return r == '_' || r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func cutOp(s string) (Op, string) {
	// Two-character operators first, so ">=" is not read as ">" then "=".
	for _, op := range []Op{OpGE, OpLE, OpEQ, OpNE, OpGT, OpLT} {
		if strings.HasPrefix(s, string(op)) {
			return op, s[len(op):]
		}
	}
	return OpNone, s
}

// suggest names the closest known metric when the typo is small.
func suggest(name string) string {
	best, bestDist := "", 4
	for _, m := range metrics {
		if d := levenshtein.ComputeDistance(strings.ToLower(name), m.Name); d < bestDist {
			best, bestDist = m.Name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// Names lists the metric names, sorted, for help and error messages.
func Names() []string {
	names := make([]string, len(metrics))
	for i, m := range metrics {
		names[i] = m.Name
	}
	sort.Strings(names)
	return names
}

func classNames() []string {
	var names []string
	for _, m := range metrics {
		if m.class != nil {
			names = append(names, m.Name)
		}
	}
	sort.Strings(names)
	return names
}

// Unmeasurable is what a rule does to the verdict when the input cannot
// give its metric (amplification without task ids, an error rate without
// calls, a traffic class that does not occur). The user chooses; the
// default fails, because a gate that cannot see must not wave a build
// through unasked.
type Unmeasurable string

const (
	UnmeasurableFail Unmeasurable = "fail"
	// UnmeasurableWarn passes the check but marks the rule "warn" in every
	// output (a skipped test case in JUnit).
	UnmeasurableWarn Unmeasurable = "warn"
	// UnmeasurablePass passes the rule; its line still says it was not
	// measurable.
	UnmeasurablePass Unmeasurable = "pass"
)

// ParseUnmeasurable reads fail, warn or pass.
func ParseUnmeasurable(s string) (Unmeasurable, error) {
	switch u := Unmeasurable(strings.ToLower(strings.TrimSpace(s))); u {
	case UnmeasurableFail, UnmeasurableWarn, UnmeasurablePass:
		return u, nil
	}
	return "", fmt.Errorf("unmeasurable rules: %q is not fail, warn or pass", s)
}

// Outcome is one rule evaluated against one result.
type Outcome struct {
	Rule Rule
	// Value is the metric's value (1 or 0 for yes/no metrics).
	Value float64
	// Measured is false when the input cannot give the metric (no calls,
	// no such traffic class); such a rule fails unless the evaluation was
	// told otherwise (Unmeasurable).
	Measured bool
	Failed   bool
	// Warned is true for an unmeasurable rule let through with a warning.
	Warned bool
	// Detail says what the value rests on, or why it is missing.
	Detail string
}

// Verdict is the word an outcome is shown with: FAIL, warn or pass.
func (o Outcome) Verdict() string {
	switch {
	case o.Failed:
		return "FAIL"
	case o.Warned:
		return "warn"
	}
	return "pass"
}

// Evaluate checks every rule against r; a rule that cannot be measured
// fails.
func Evaluate(r *analyze.Result, rules []Rule) []Outcome {
	return EvaluateWith(r, rules, UnmeasurableFail)
}

// EvaluateWith checks every rule against r; u says what a rule that cannot
// be measured does.
func EvaluateWith(r *analyze.Result, rules []Rule, u Unmeasurable) []Outcome {
	out := make([]Outcome, len(rules))
	for i, rule := range rules {
		out[i] = evaluate(r, rule, u)
	}
	return out
}

func evaluate(r *analyze.Result, rule Rule, u Unmeasurable) Outcome {
	o := Outcome{Rule: rule}
	m, ok := lookup(rule.Metric)
	if !ok {
		// A rule stampede does not know is a mistake, not a blind spot of
		// the input: it fails whatever u says.
		o.Failed, o.Detail = true, "unknown metric"
		return o
	}
	unmeasurable := func(why string) Outcome {
		o.Value, o.Detail = 0, why
		switch u {
		case UnmeasurableWarn, UnmeasurablePass:
			o.Warned = u == UnmeasurableWarn
			o.Detail += " (unmeasurable rules " + string(u) + ")"
		default:
			o.Failed = true
		}
		return o
	}
	var v value
	if rule.Class != "" {
		c := findClass(r, rule.Class)
		if c == nil {
			return unmeasurable(fmt.Sprintf("no traffic class %q in this input (classes: %s)", rule.Class, strings.Join(classesOf(r), ", ")))
		}
		v = m.class(c)
	} else {
		v = m.value(r)
	}
	o.Value, o.Detail = v.v, v.detail
	if v.missing != "" || math.IsNaN(v.v) {
		return unmeasurable("not measurable: " + v.missing)
	}
	if v.upper > v.v && rule.fails(v.upper) != rule.fails(v.v) {
		// The value is a range that the threshold cuts: the input cannot
		// say which side the true value is on.
		return unmeasurable(fmt.Sprintf("not measurable: between %s and %s (%s)",
			strconv.FormatFloat(v.v, 'g', 4, 64), strconv.FormatFloat(v.upper, 'g', 4, 64), v.detail))
	}
	o.Measured, o.Failed = true, rule.fails(v.v)
	return o
}

// fails reports whether the rule fails on value v.
func (rule Rule) fails(v float64) bool {
	switch rule.Op {
	case OpNone:
		return (v != 0) != rule.Negated
	case OpGT:
		return v > rule.Threshold
	case OpGE:
		return v >= rule.Threshold
	case OpLT:
		return v < rule.Threshold
	case OpLE:
		return v <= rule.Threshold
	case OpEQ:
		return v == rule.Threshold
	case OpNE:
		return v != rule.Threshold
	}
	return false
}

// Failed reports whether any outcome failed.
func Failed(outcomes []Outcome) bool {
	for _, o := range outcomes {
		if o.Failed {
			return true
		}
	}
	return false
}

// FormatValue renders an outcome's value for people: yes/no, a percentage
// for fractions, otherwise a number with up to four significant digits.
func FormatValue(o Outcome) string {
	if !o.Measured {
		return "n/a"
	}
	m, _ := lookup(o.Rule.Metric)
	switch {
	case m.YesNo:
		if o.Value != 0 {
			return "yes"
		}
		return "no"
	case m.Fraction:
		return strconv.FormatFloat(o.Value, 'g', 4, 64) + " (" + strconv.FormatFloat(o.Value*100, 'f', 1, 64) + "%)"
	}
	return strconv.FormatFloat(o.Value, 'g', 4, 64)
}

func findClass(r *analyze.Result, class string) *analyze.ClassReconciliation {
	for i := range r.Reconcile.ByClass {
		if strings.EqualFold(r.Reconcile.ByClass[i].Class, class) {
			return &r.Reconcile.ByClass[i]
		}
	}
	return nil
}

func classesOf(r *analyze.Result) []string {
	var names []string
	for _, c := range r.Reconcile.ByClass {
		names = append(names, c.Class)
	}
	if len(names) == 0 {
		return []string{"none"}
	}
	return names
}
