package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/gate"
	"github.com/stampede/stampede/internal/safefile"
	"github.com/stampede/stampede/report"
)

// Exit codes, as documented in check's help and the README.
const (
	exitPass       = 0
	exitGateFailed = 1
	exitUsage      = 2
)

// gateFailure is returned when the input was read and analysed but a rule
// held; main exits 1 for it rather than 2, so CI can tell a failing
// incident from a broken invocation.
type gateFailure struct{ failed, total int }

func (e *gateFailure) Error() string {
	return fmt.Sprintf("%d of %d --fail-on gates failed", e.failed, e.total)
}

// gateFlags are shared by check and analyze.
type gateFlags struct {
	failOn       []string
	junit        string
	summary      string
	unmeasurable string
}

func (g *gateFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&g.failOn, "fail-on", nil, "fail (exit 1) when this rule holds, e.g. 'amplification > 4', periodic, uncapped, 'http_throttle_rate > 5%' (repeatable; see 'stampede check --help')")
	completeFailOn(cmd)
	fl.StringVar(&g.junit, "junit", "", "also write the gate results as JUnit XML to FILE")
	fl.StringVar(&g.summary, "summary", "", "also append the gate results as a Markdown table to FILE, e.g. $GITHUB_STEP_SUMMARY")
	fl.StringVar(&g.unmeasurable, "unmeasurable", string(gate.UnmeasurableFail), "what a rule does when the input cannot give its metric (e.g. amplification without task ids): fail, warn (passes, marked warn; skipped in JUnit) or pass")
}

// rules parses the rules before any log is read, so a typo costs nothing.
func (g *gateFlags) rules() ([]gate.Rule, error) {
	if len(g.failOn) == 0 && (g.junit != "" || g.summary != "") {
		return nil, fmt.Errorf("--junit and --summary need at least one --fail-on rule")
	}
	if _, err := gate.ParseUnmeasurable(g.unmeasurable); err != nil {
		return nil, fmt.Errorf("--unmeasurable %q: want fail, warn or pass", g.unmeasurable)
	}
	return gate.ParseAll(g.failOn)
}

// checkOutputs fails before any log is read when --junit or --summary
// cannot be written or names an input.
func (g *gateFlags) checkOutputs(inputs []string) error {
	for _, out := range []string{g.junit, g.summary} {
		if err := checkOutput(out, inputs); err != nil {
			return err
		}
	}
	return nil
}

// apply evaluates the rules, prints one line per rule to w (verdicts
// coloured when colour), writes the optional JUnit and summary files, and
// returns a *gateFailure when a rule held. Once ctx is done it writes nothing more, unless --junit is written
// already: its summary then follows.
func (g *gateFlags) apply(ctx context.Context, w io.Writer, colour bool, rules []gate.Rule, res *analyze.Result, inputs []string) error {
	if len(rules) == 0 {
		return nil
	}
	// rules has parsed it already.
	unmeasurable, _ := gate.ParseUnmeasurable(g.unmeasurable)
	outcomes := gate.EvaluateWith(res, rules, unmeasurable)
	paint := func(verdict string, failed bool) string {
		if verdict == "warn" {
			return report.Warning(verdict, colour)
		}
		return report.Verdict(verdict, failed, colour)
	}
	if err := gate.WriteText(safefile.Writer(ctx, w), outcomes, paint); err != nil {
		return err
	}
	title := strings.Join(inputs, " ")
	if g.junit != "" {
		if err := writeOutput(ctx, g.junit, nil, func(w io.Writer) error { return gate.WriteJUnit(w, title, outcomes) }); err != nil {
			return fmt.Errorf("write --junit %s: %w", g.junit, err)
		}
		// In place: the summary follows whatever comes now, so that a
		// stopped run leaves neither.
		ctx = context.WithoutCancel(ctx)
	}
	if g.summary != "" {
		if err := appendSummary(ctx, g.summary, title, outcomes); err != nil {
			return fmt.Errorf("write --summary %s: %w", g.summary, err)
		}
	}
	failed := 0
	for _, o := range outcomes {
		if o.Failed {
			failed++
		}
	}
	if failed > 0 {
		return &gateFailure{failed: failed, total: len(outcomes)}
	}
	return nil
}

// appendSummary appends the gate table to path, because CI step-summary
// files collect every step's output. The table is rendered first and
// appended in one write, unless ctx is done by then: a stopped run adds
// nothing, and a finished one never half a table.
func appendSummary(ctx context.Context, path, title string, outcomes []gate.Outcome) error {
	var buf bytes.Buffer
	if err := gate.WriteSummary(&buf, title, outcomes); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(buf.Bytes())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

type checkOptions struct {
	inputs inputFlags
	gates  gateFlags
	analysisFlags
}

func newCheckCmd() *cobra.Command {
	var o checkOptions
	var help strings.Builder
	for _, m := range gate.Metrics() {
		fmt.Fprintf(&help, "  %-22s %s (%s)\n", m.Name, m.Help, m.Unit)
	}
	cmd := &cobra.Command{
		Use:   "check FILE|DIR|TIMELINE... --fail-on RULE...",
		Short: "Gate a CI job on an incident or load-test result",
		Long: `check analyses the logs like analyze, then tests each --fail-on rule against
the result and prints one line per rule: pass or FAIL, the value, and what it
rests on. A rule fails the check when it holds.

Rules:
  METRIC                a yes/no metric: fails when yes (e.g. periodic)
  !METRIC               fails when no
  METRIC OP NUMBER      OP is >, >=, <, <=, == or !=; rates take 0.05 or 5%
  CLASS.METRIC OP N     the same, for one traffic class (see --class)

Metrics:
` + help.String() + `
A metric the input cannot give (amplification without task ids, a call error
rate without calls, an unknown traffic class) fails its rule, since a gate
that cannot see does not pass, unless --unmeasurable says otherwise: warn
passes it marked "warn" (a skipped case in JUnit), pass passes it.

Exit status:
  0  every rule passed
  1  at least one rule failed
  2  usage or input error (bad rule, unreadable log); nothing was judged`,
		Example: `  stampede check testdata/seed-incident --fail-on periodic --fail-on 'amplification > 4'
  stampede check access.log --fail-on 'http_throttle_rate > 5%' --fail-on uncapped \
      --junit stampede.xml --summary "$GITHUB_STEP_SUMMARY"
  stampede check access.log --class interactive=route:/chat --fail-on 'interactive.http_throttle_rate > 0.01'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			defer o.inputs.limits.close()
			if len(o.gates.failOn) == 0 {
				return fmt.Errorf("check needs at least one --fail-on rule, e.g. --fail-on periodic")
			}
			rules, err := o.gates.rules()
			if err != nil {
				return err
			}
			if err := o.gates.checkOutputs(args); err != nil {
				return err
			}
			cfg := o.inputs.config(args)
			if err := o.analysisFlags.validate(); err != nil {
				return err
			}
			o.analysisFlags.apply(&cfg)
			defer attachProgress(&cfg, cmd.ErrOrStderr())()
			var res *analyze.Result
			analyse := func(ctx context.Context) (err error) {
				res, err = stampede.Analyze(ctx, cfg)
				return err
			}
			write := func(ctx context.Context) error {
				if err := noEvents(res.Inputs); err != nil {
					return err
				}
				return o.gates.apply(ctx, cmd.OutOrStdout(), useColour(cmd, cmd.OutOrStdout()), rules, res, args)
			}
			return o.inputs.limits.run(cmd, args, analyse, write)
		},
	}
	o.inputs.register(cmd)
	o.gates.register(cmd)
	o.analysisFlags.register(cmd)
	return cmd
}
