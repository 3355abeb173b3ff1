package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd writes man pages generated from the command tree, so the pages
// cannot drift from the flags. Hidden: packagers run it, users read man.
func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write man pages for stampede and its commands into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // reproducible pages: no generation date
			header := &doc.GenManHeader{Title: "STAMPEDE", Section: "1", Source: "stampede " + root.Version}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("man pages: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote man pages to %s\n", dir)
			return nil
		},
	}
}
