package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stampede/stampede/report"
)

// widthFlag adds --width, the table format's width in columns.
func widthFlag(cmd *cobra.Command, width *int) {
	cmd.Flags().IntVar(width, "width", 0, fmt.Sprintf("columns the table format fits in (default: the terminal's, or %d when not a terminal; at least %d)", report.DefaultWidth, report.MinWidth))
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if *width < 0 || (*width > 0 && *width < report.MinWidth) {
			return fmt.Errorf("--width %d: want at least %d columns (or 0 for the terminal's)", *width, report.MinWidth)
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// tableWidth is the width asked for, else the terminal's when out is one.
func tableWidth(asked int, out io.Writer) int {
	if asked > 0 {
		return asked
	}
	if out == nil {
		return report.DefaultWidth
	}
	return report.TerminalWidth(out)
}

// terminalOf is out when the output goes to it, nil when to a file.
func terminalOf(output string, out io.Writer) io.Writer {
	if output != "" {
		return nil
	}
	return out
}

// useColour applies --color to output w: auto colours a terminal only, and
// only when NO_COLOR is unset (see report.UseColour); always and never are
// the user's word over both.
func useColour(cmd *cobra.Command, w io.Writer) bool {
	mode := "auto"
	if f := cmd.Flag("color"); f != nil {
		mode = f.Value.String()
	}
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return report.UseColour(w)
}
