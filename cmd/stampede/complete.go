package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/stampede/stampede/gate"
	"github.com/stampede/stampede/ingest"
)

// Shell completion offers the values a flag takes, so that a user finds the
// report formats, the input formats and the gate's metric names at the
// prompt rather than in the help.

var reportFormats = []cobra.Completion{
	cobra.CompletionWithDesc("table", "terminal tables"),
	cobra.CompletionWithDesc("markdown", "for an incident doc; with -o, PNG charts beside it"),
	cobra.CompletionWithDesc("json", "for scripts; schema in docs/result-schema.md"),
	cobra.CompletionWithDesc("html", "one self-contained file with inline SVG charts"),
}

// completeReportFormat completes --format.
func completeReportFormat(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(reportFormats, cobra.ShellCompDirectiveNoFileComp))
}

// completeInputFormat completes --input-format: a format name, or after
// FILE= the format for that file.
func completeInputFormat(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("input-format", func(_ *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
		prefix := ""
		if i := strings.LastIndex(typed, "="); i >= 0 {
			prefix = typed[:i+1]
		}
		var out []cobra.Completion
		for _, f := range ingest.Formats() {
			out = append(out, cobra.CompletionWithDesc(prefix+f.Name, f.Detect))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}

// completeFailOn completes --fail-on with the metric names; the operator
// and threshold are the user's.
func completeFailOn(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("fail-on", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, m := range gate.Metrics() {
			out = append(out, cobra.CompletionWithDesc(m.Name, m.Help))
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}
