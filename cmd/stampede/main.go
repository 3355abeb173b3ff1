// Command stampede explains throttling incidents from their logs.
//
// The commands are thin: flags fill a stampede.Config, the library does the
// work, and package report renders the result.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stampede/stampede"
	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/internal/interrupt"
	"github.com/stampede/stampede/internal/safefile"
	"github.com/stampede/stampede/report"
	"github.com/stampede/stampede/simulate"
	"github.com/stampede/stampede/timeline"
)

// gcPercent is the collector's target when GOGC is not set. A large log's
// events hold no pointers, so a collection costs little, and collecting
// sooner keeps the peak near the live heap: on 5M and 20M log lines, 9 to
// 11% less peak memory than Go's default of 100, for no more CPU.
const gcPercent = 25

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	// The signals have been caught since package interrupt initialised:
	// one sent while the process was starting is an interruption like any
	// other, before any work.
	ctx, stop := interrupt.Context(context.Background())
	var err error
	if ctx.Err() != nil {
		err = errInterrupted
	} else {
		err = newRootCmd().ExecuteContext(ctx)
	}
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode maps a command's error to the documented exit status, printing
// it: 1 when a --fail-on gate failed (the gates have said which), 2 for any
// usage or input error.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitPass
	}
	// Messages quote log lines and file names: no terminal controls.
	fmt.Fprintln(stderr, "stampede:", report.PlainText(err.Error()))
	var gf *gateFailure
	if errors.As(err, &gf) {
		return exitGateFailed
	}
	return exitUsage
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "stampede",
		Short: "Explain a throttling incident from its logs",
		Long: `stampede reads the access log in front of a rate-limited endpoint and the
application's log of its SDK calls, and explains the incident: how many requests
the retry layers multiplied out of the real work, why the HTTP 429 rate and the
application's error rate disagree, and which fixed delay made retries arrive in
waves.`,
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	colour := root.PersistentFlags().String("color", "auto", "colour the terminal output: auto (when it is a terminal and NO_COLOR is unset), always or never")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		switch *colour {
		case "auto", "always", "never":
			return nil
		}
		return fmt.Errorf("--color %q: want auto, always or never", *colour)
	}
	root.AddCommand(newAnalyzeCmd(), newCheckCmd(), newIngestCmd(), newSimulateCmd(), newWhatIfCmd(), newFormatsCmd(), newManCmd())
	return root
}

// inputFlags are shared by every command that reads logs.
type inputFlags struct {
	formats    []string
	logFormat  string
	captures   []string
	layers     []string
	fields     []string
	classRules []string
	// limits are here because every command that reads logs takes them.
	limits limitFlags
}

func (f *inputFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.formats, "input-format", nil, "input format NAME for every file, or FILE=NAME for one file (repeatable; see 'stampede formats'); default: detected")
	fl.StringVar(&f.logFormat, "log-format", "", "log format definition, verbatim (nginx log_format, Apache LogFormat, Envoy format string or HAProxy log-format), or a built-in name (nginx: combined, main, main_timing, retry, stampede, upstreaminfo; Apache: common, combined, vhost_combined, ssl_request_log; Envoy: default, istio, istio_mixer; HAProxy: httplog, clf); default: detected")
	fl.StringSliceVar(&f.captures, "haproxy-captures", nil, "HAProxy's captured headers in {…|…}, in the order of the capture lines, e.g. x-task-id,x-stainless-retry-count (res:NAME for a captured response header); default: not read")
	fl.StringArrayVar(&f.layers, "layer", nil, "layer of JSON-lines records that do not name theirs: attempt or call for every file, or FILE=attempt|call for one (repeatable); default: attempt for an access log in JSON, else call")
	fl.StringArrayVar(&f.fields, "field", nil, "JSON-lines field mapping FIELD=KEY, e.g. start=start_time (repeatable)")
	fl.StringArrayVar(&f.classRules, "class", nil, "traffic class rule CLASS=FIELD:SUBSTRING, e.g. batch=route:/batch/ (repeatable; first match wins)")
	completeInputFormat(cmd)
	f.limits.register(cmd)
}

// config fills a Config; "FILE=NAME" formats apply to one file, a bare
// NAME to all.
func (f *inputFlags) config(args []string) stampede.Config {
	cfg := stampede.Config{
		Inputs:     args,
		LogFormat:  f.logFormat,
		Fields:     f.fields,
		ClassRules: f.classRules,
	}
	cfg.HAProxyCaptures = f.captures
	for _, spec := range f.formats {
		if file, name, ok := strings.Cut(spec, "="); ok {
			if cfg.FileFormats == nil {
				cfg.FileFormats = map[string]string{}
			}
			cfg.FileFormats[file] = name
		} else {
			cfg.Format = spec
		}
	}
	for _, spec := range f.layers {
		if file, layer, ok := strings.Cut(spec, "="); ok {
			if cfg.FileLayers == nil {
				cfg.FileLayers = map[string]string{}
			}
			cfg.FileLayers[file] = layer
		} else {
			cfg.Layer = spec
		}
	}
	return cfg
}

// analysisFlags tune the analyses; shared by analyze and check.
type analysisFlags struct {
	bin   time.Duration
	seed  uint64
	align bool
}

func (a *analysisFlags) register(cmd *cobra.Command) {
	cmd.Flags().DurationVar(&a.bin, "bin", 0, "bin width of the wave analysis, e.g. 1s or 100ms (default: automatic)")
	cmd.Flags().Uint64Var(&a.seed, "seed", 1, "seed of the significance test's surrogates")
	cmd.Flags().BoolVar(&a.align, "align", false, "shift each log by its estimated clock offset from the access log before analysing")
}

func (a *analysisFlags) validate() error {
	switch {
	case a.bin < 0:
		return fmt.Errorf("--bin %s: a bin width must be positive (0, the default, is automatic)", a.bin)
	case a.bin > 0 && a.bin < time.Millisecond:
		return fmt.Errorf("--bin %s: finer than the millisecond no log stamps", a.bin)
	}
	return nil
}

func (a *analysisFlags) apply(cfg *stampede.Config) {
	cfg.BinWidth = a.bin
	cfg.Seed = a.seed
	cfg.Align = a.align
}

type analyzeOptions struct {
	inputs inputFlags
	gates  gateFlags
	analysisFlags
	format string
	output string
	width  int
	// verbose is report.Options.Verbose: the evidence in the table format.
	verbose bool
	// whatIf adds the what-if comparison to the report.
	whatIf      bool
	whatIfFlags whatIfFlags
}

func newAnalyzeCmd() *cobra.Command {
	var o analyzeOptions
	cmd := &cobra.Command{
		Use:   "analyze FILE|DIR|TIMELINE... ",
		Short: "Analyse incident logs and report the findings",
		Example: `  stampede analyze testdata/seed-incident
  stampede analyze access.log calls.jsonl --format markdown -o incident.md
  stampede analyze testdata/seed-incident --format html -o incident.html
  stampede analyze timeline.parquet --format json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			defer o.inputs.limits.close()
			format, err := report.ParseFormat(o.format)
			if err != nil {
				return err
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
			if o.whatIf {
				if err := o.whatIfFlags.validate(); err != nil {
					return err
				}
				o.whatIfFlags.apply(&cfg)
			}
			defer attachProgress(&cfg, cmd.ErrOrStderr())()
			if o.output == "-" {
				o.output = "" // standard output, as for the inputs
			}
			if err := checkOutput(o.output, args); err != nil {
				return err
			}
			var res *analyze.Result
			var opts report.Options
			analyse := func(ctx context.Context) (err error) {
				res, err = stampede.Analyze(ctx, cfg)
				return err
			}
			write := func(ctx context.Context) error {
				if err := noEvents(res.Inputs); err != nil {
					return err
				}
				var err error
				opts.Verbose = o.verbose
				if o.output == "" {
					out := cmd.OutOrStdout()
					opts.Colour = useColour(cmd, out)
					opts.Width = tableWidth(o.width, out)
					err = report.RenderWith(safefile.Writer(ctx, out), res, format, opts)
				} else {
					// A file report may bring files of its own: Markdown's charts.
					opts.Width = tableWidth(o.width, nil)
					err = report.WriteFile(ctx, o.output, res, format, opts)
				}
				if err != nil {
					return err
				}
				// The report is out: the gate results follow it whatever
				// comes now, so that a run stopped with exit 2 never leaves
				// a report. They take milliseconds. Gate lines go to
				// stderr: stdout holds the report.
				return o.gates.apply(context.WithoutCancel(ctx), cmd.ErrOrStderr(), useColour(cmd, cmd.ErrOrStderr()), rules, res, args)
			}
			return o.inputs.limits.run(cmd, args, analyse, write)
		},
	}
	o.inputs.register(cmd)
	cmd.Flags().StringVar(&o.format, "format", "table", "report format: table, markdown (with -o: PNG charts beside it), json or html (self-contained, inline SVG charts)")
	completeReportFormat(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "write the report to FILE instead of standard output")
	widthFlag(cmd, &o.width)
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "table format: add the evidence behind the findings (cap reasoning per layer, distributions, the autocorrelation test, join method, skipped lines); markdown and html always hold it")
	o.analysisFlags.register(cmd)
	o.gates.register(cmd)
	cmd.Flags().BoolVar(&o.whatIf, "whatif", false, "replay the incident under other retry policies and add the comparison to the report (see 'stampede whatif')")
	o.whatIfFlags.register(cmd)
	return cmd
}

type ingestOptions struct {
	inputs inputFlags
	output string
}

func newIngestCmd() *cobra.Command {
	var o ingestOptions
	cmd := &cobra.Command{
		Use:   "ingest FILE|DIR... -o timeline.arrow|timeline.parquet",
		Short: "Parse logs into one columnar timeline (Arrow IPC or Parquet)",
		Example: `  stampede ingest access.log calls.jsonl -o timeline.arrow
  stampede analyze timeline.arrow`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			defer o.inputs.limits.close()
			if o.output == "" {
				return fmt.Errorf("ingest needs -o FILE ending in .arrow or .parquet")
			}
			if err := checkOutput(o.output, args); err != nil {
				return err
			}
			cfg := o.inputs.config(args)
			defer attachProgress(&cfg, cmd.ErrOrStderr())()
			var tl *timeline.Timeline
			read := func(ctx context.Context) (err error) {
				tl, err = stampede.Ingest(ctx, cfg)
				return err
			}
			write := func(ctx context.Context) error {
				if err := noEvents(inputsOf(tl.Sources)); err != nil {
					return err
				}
				if err := timeline.WriteFile(ctx, o.output, tl); err != nil {
					return err
				}
				var lines, skipped, duplicates int64
				for _, s := range tl.Sources {
					lines += s.Lines
					skipped += s.Skipped
					duplicates += s.Duplicates
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d events from %d files (%d lines, %d skipped, %d duplicate events dropped) to %s\n",
					len(tl.Events), len(tl.Sources), lines, skipped, duplicates, report.PlainText(o.output))
				// analyze shows these among its warnings; ingest has no report.
				for _, w := range stampede.SourceWarnings(tl) {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", report.PlainText(w))
				}
				return nil
			}
			return o.inputs.limits.run(cmd, args, read, write)
		},
	}
	o.inputs.register(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "timeline file to write: .arrow (Arrow IPC) or .parquet")
	return cmd
}

type simulateOptions struct {
	scenario string
	output   string
}

func newSimulateCmd() *cobra.Command {
	var o simulateOptions
	cmd := &cobra.Command{
		Use:   "simulate --scenario FILE -o DIR",
		Short: "Write the logs of a simulated incident (nginx access log, SDK call log, truth)",
		Example: `  stampede simulate --scenario testdata/scenarios/seed-incident.json -o /tmp/incident
  stampede analyze /tmp/incident`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.scenario == "" || o.output == "" {
				return fmt.Errorf("simulate needs --scenario FILE and -o DIR")
			}
			sc, err := simulate.LoadScenario(o.scenario)
			if err != nil {
				return err
			}
			out, err := simulate.Run(sc)
			if err != nil {
				return err
			}
			if err := out.WriteDir(o.output); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", o.output)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.scenario, "scenario", "", "scenario file (JSON)")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "directory to write access.log, calls.jsonl and truth.json into")
	return cmd
}

// checkOutput fails before any work is done when the output would clobber an
// input or cannot be written, so a long run does not end in a lost result.
func checkOutput(output string, inputs []string) error {
	if output == "" {
		return nil
	}
	abs, err := filepath.Abs(output)
	if err != nil {
		return err
	}
	// The files a directory or pattern stands for count too, and a link
	// to an input is that input.
	files, err := stampede.ExpandInputs(inputs)
	if err != nil {
		files = inputs
	}
	outInfo, statErr := os.Stat(output)
	for _, in := range append(files, inputs...) {
		a, err := filepath.Abs(in)
		if err != nil {
			continue
		}
		same := a == abs
		if !same && statErr == nil {
			if inInfo, err := os.Stat(in); err == nil {
				same = os.SameFile(inInfo, outInfo)
			}
		}
		if same {
			return fmt.Errorf("output %s is also an input; refusing to overwrite it", output)
		}
	}
	switch {
	case statErr == nil && outInfo.IsDir():
		return fmt.Errorf("output %s is a directory", output)
	case statErr == nil && !outInfo.Mode().IsRegular():
		// A device or FIFO is written through, not replaced: nothing is
		// created beside it.
		return nil
	}
	// A symlink's target is what gets replaced, so its directory is the
	// one that must take a new file.
	if target, err := filepath.EvalSymlinks(output); err == nil {
		abs = target
	}
	dir := filepath.Dir(abs)
	probe, err := os.CreateTemp(dir, ".stampede-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write output %s: %w", output, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// writeOutput renders to stdout, or to the output file only when rendering
// succeeded, so an interrupted run leaves no partial file; a device or FIFO
// given as the output is written through, never replaced. Once ctx is done,
// the next write fails with its cause.
func writeOutput(ctx context.Context, output string, stdout io.Writer, render func(io.Writer) error) error {
	if output == "" {
		return render(safefile.Writer(ctx, stdout))
	}
	return safefile.Write(ctx, output, 0o666, render)
}
