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
(NAME for every file, FILE=NAME for one), each file's first lines decide.

Text access logs (nginx, Apache, Envoy, Traefik and API Gateway CLF) are
ranked by how much of the first lines each format explains: text after the
end of a format, or a second word where it wants one, counts against it. A
format that reads at least half of the lines can win, so a short snippet with
one damaged line is read; a close runner-up, lines only partly explained or
a low share read become warnings naming the --input-format or --log-format
that settles them. Lines behind a docker compose ("web-1  | "), kubectl
--timestamps or syslog prefix are read past it.

HAProxy's captured headers ({x-task-id|x-stainless-retry-count}) are read
once --haproxy-captures names them in the order of the capture lines; a
HAProxy log-format, or a CloudFront real-time field list, is given with
--log-format. A 429 a proxy or CDN made itself gets a code of its own
(haproxy:PR--, cloudflare:ratelimit, gclb:..., kong, elb, cloudfront:...),
and the reconciliation reports it as the proxy's own limit.`,
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
