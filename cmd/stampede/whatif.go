package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/report"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/whatif"
)

// whatIfFlags carry what the logs cannot show to the replay; shared by
// whatif and analyze --whatif.
type whatIfFlags struct {
	seeds             int
	tokensPerMinute   float64
	bucketTokens      float64
	taskTokens        float64
	interactiveTokens float64
	rejectCharge      float64
	debtTokens        float64
}

func (w *whatIfFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&w.seeds, "whatif-seeds", whatif.DefaultSeeds, fmt.Sprintf("seeds each what-if policy is replayed with; the table shows the median and range. From %d on, the as-measured row's waves are counted over at least %d", whatif.DefaultSeeds, whatif.WaveSeeds))
	fl.Float64Var(&w.tokensPerMinute, "tokens-per-minute", 0, "the input-token quota's refill (default: measured from admissions, in tasks)")
	fl.Float64Var(&w.bucketTokens, "bucket-tokens", 0, "the token bucket's size (default: measured from a wave's first admissions)")
	fl.Float64Var(&w.taskTokens, "task-tokens", 0, "input tokens per batch task (default: assumed 1,000)")
	fl.Float64Var(&w.interactiveTokens, "interactive-tokens", 0, "input tokens per interactive call (default: assumed a twentieth of a task)")
	fl.Float64Var(&w.rejectCharge, "reject-charge", 0, "share of a rejected request's tokens the limiter charges anyway, 0 to 1")
	fl.Float64Var(&w.debtTokens, "debt-tokens", 0, "how far rejection charges may take the bucket below zero (a limiter that keeps a debt)")
}

func (w *whatIfFlags) given() whatif.Given {
	return whatif.Given{
		TokensPerMinute: w.tokensPerMinute, BucketTokens: w.bucketTokens,
		TaskTokens: w.taskTokens, InteractiveTokens: w.interactiveTokens,
		RejectCharge: w.rejectCharge, DebtTokens: w.debtTokens,
	}
}

func (w *whatIfFlags) validate() error {
	if w.seeds < 1 || w.seeds > 100 {
		return fmt.Errorf("--whatif-seeds %d: want 1 to 100", w.seeds)
	}
	for name, v := range map[string]float64{"--tokens-per-minute": w.tokensPerMinute, "--bucket-tokens": w.bucketTokens,
		"--task-tokens": w.taskTokens, "--interactive-tokens": w.interactiveTokens, "--debt-tokens": w.debtTokens} {
		if !(v >= 0 && v <= 1e12) {
			return fmt.Errorf("%s %v: want a number of tokens from 0 (measure or assume) to 1e12", name, v)
		}
	}
	if !(w.rejectCharge >= 0 && w.rejectCharge <= 1) {
		return fmt.Errorf("--reject-charge %v: want a share from 0 to 1", w.rejectCharge)
	}
	return nil
}

func (w *whatIfFlags) apply(cfg *stampede.Config) {
	cfg.WhatIf = true
	cfg.WhatIfGiven = w.given()
	cfg.WhatIfSeeds = w.seeds
}

type whatIfOptions struct {
	inputs   inputFlags
	flags    whatIfFlags
	scenario string
	format   string
	output   string
	width    int
}

func newWhatIfCmd() *cobra.Command {
	var o whatIfOptions
	cmd := &cobra.Command{
		Use:   "whatif [FILE|DIR|TIMELINE...] [--scenario FILE]",
		Short: "Replay an incident under other retry policies and compare",
		Long: `whatif measures an incident's parameters from its logs (backlog, retry-after,
attempts per layer, requeue delay, admitted and interactive rates), or takes them
from a scenario file, and replays it in the simulator under the policy as measured,
full jitter, jitter with an attempt cap, jitter with a cap and a concurrency
limit, and an adaptive (AIMD) limit, each over several seeds. It prints the
comparison and recommendations whose numbers the replays check.

Token sizes are not in access logs: give --task-tokens and --interactive-tokens
(and --tokens-per-minute for the quota) for figures in tokens.`,
		Example: `  stampede whatif testdata/seed-incident --task-tokens 28000 --interactive-tokens 1200
  stampede whatif --scenario testdata/scenarios/seed-incident.json --format markdown
  stampede analyze testdata/seed-incident --whatif`,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer o.inputs.limits.close()
			format, err := report.ParseFormat(o.format)
			if err != nil {
				return err
			}
			if err := o.flags.validate(); err != nil {
				return err
			}
			if (o.scenario == "") == (len(args) == 0) {
				return fmt.Errorf("whatif needs either logs to measure or --scenario FILE, not both")
			}
			if err := checkOutput(o.output, args); err != nil {
				return err
			}
			var wi *analyze.WhatIf
			var replay func(ctx context.Context) error
			if o.scenario != "" {
				sc, err := simulate.LoadScenario(o.scenario)
				if err != nil {
					return err
				}
				// The replays take seconds: under the limits, like a
				// replay measured from logs.
				replay = func(context.Context) (err error) {
					wi, err = whatif.Run(whatif.FromScenario(sc), whatif.Options{Seeds: o.flags.seeds})
					return err
				}
			} else {
				cfg := o.inputs.config(args)
				defer attachProgress(&cfg, cmd.ErrOrStderr())()
				replay = func(ctx context.Context) error {
					tl, res, err := stampede.AnalyzeTimeline(ctx, cfg)
					if err != nil {
						return err
					}
					wi, err = whatif.FromAnalysis(tl, res, o.flags.given(), whatif.Options{Seeds: o.flags.seeds})
					return err
				}
			}
			out := cmd.OutOrStdout()
			write := func(ctx context.Context) error {
				return writeOutput(ctx, o.output, out, func(w io.Writer) error {
					return report.RenderWhatIf(w, wi, format, report.Options{Colour: o.output == "" && useColour(cmd, out), Width: tableWidth(o.width, terminalOf(o.output, out))})
				})
			}
			return o.inputs.limits.run(cmd, args, replay, write)
		},
	}
	o.inputs.register(cmd)
	o.flags.register(cmd)
	cmd.Flags().StringVar(&o.scenario, "scenario", "", "take the parameters from a scenario file (JSON) instead of logs")
	cmd.Flags().StringVar(&o.format, "format", "table", "report format: table, markdown, json or html")
	completeReportFormat(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "write the comparison to FILE instead of standard output")
	widthFlag(cmd, &o.width)
	return cmd
}
