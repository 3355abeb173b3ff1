package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stampede/stampede/ingest"
)

func newFormatsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "formats",
		Short: "List the input formats, how each is detected and the fields it fills",
		Long: `Lists every input format stampede reads. Unless --input-format names one
(NAME for every file, FILE=NAME for one), each file's first lines decide.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeFormats(cmd.OutOrStdout(), ingest.Formats())
		},
	}
}

func writeFormats(w io.Writer, formats []ingest.FormatInfo) error {
	for _, f := range formats {
		name := f.Name
		if len(f.Aliases) > 0 {
			name += " (" + strings.Join(f.Aliases, ", ") + ")"
		}
		if _, err := fmt.Fprintf(w, "%s\n  detected when: %s\n  fills: %s\n", name, f.Detect, strings.Join(f.Fields, ", ")); err != nil {
			return err
		}
	}
	return nil
}
