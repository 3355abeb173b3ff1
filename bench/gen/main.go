// Command gen writes a large incident log for benchmarks: the seed incident
// simulated at a larger scale, repeated back to back until the wanted number
// of lines is reached. Each repetition starts after the previous one ends
// and gets task ids of its own, so every copy reads as one more incident of
// the same shape rather than as retries of the first.
//
//	go run ./bench/gen -lines 5000000 -format nginx -o /tmp/access.log
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/stampede/stampede/simulate"
)

func main() {
	var (
		lines    = flag.Int("lines", 500_000, "lines to write")
		format   = flag.String("format", "nginx", "nginx (the stampede log_format), combined (nginx's combined) or envoy-json (JSON lines of the same attempts)")
		scale    = flag.Int("scale", 64, "how many times the seed incident's tasks, bucket and interactive rate are multiplied")
		scenario = flag.String("scenario", "testdata/scenarios/seed-incident.json", "scenario to scale")
		out      = flag.String("o", "", "output file (default standard output)")
		gz       = flag.Bool("gzip", false, "gzip the output")
	)
	flag.Parse()
	if err := run(*scenario, *format, *out, *lines, *scale, *gz); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(scenario, format, out string, lines, scale int, gz bool) error {
	sc, err := simulate.LoadScenario(scenario)
	if err != nil {
		return err
	}
	sc.Scale(scale)
	o, err := simulate.Run(sc)
	if err != nil {
		return err
	}
	var write func(*simulate.Output, io.Writer) error
	switch format {
	case "nginx", "combined":
		write = (*simulate.Output).WriteAccessLog
	case "envoy-json":
		write = (*simulate.Output).WriteEnvoyJSON
	default:
		return fmt.Errorf("unknown format %q: want nginx, combined or envoy-json", format)
	}
	var once bytes.Buffer
	if err := write(o, &once); err != nil {
		return err
	}
	// One repetition lasts from the scenario's start to its last response,
	// rounded up to the minute so that wall-clock seconds stay aligned.
	var span time.Duration
	for i := range o.Attempts {
		span = max(span, o.Attempts[i].Logged)
	}
	span = (span/time.Minute + 2) * time.Minute

	var w io.Writer = os.Stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	dst := io.Writer(bw)
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(bw)
		dst = zw
	}
	written := 0
	for rep := 0; written < lines; rep++ {
		data := once.Bytes()
		if rep > 0 {
			// Later copies: shifted in time and with task ids of their own.
			var buf bytes.Buffer
			o.Scenario.Start = sc.Start.Add(time.Duration(rep) * span)
			if err := write(o, &buf); err != nil {
				return err
			}
			data = bytes.ReplaceAll(buf.Bytes(), []byte("task-"), []byte("task-r"+strconv.Itoa(rep)+"-"))
		}
		for len(data) > 0 && written < lines {
			k := bytes.IndexByte(data, '\n')
			line := data[:k+1]
			data = data[k+1:]
			if format == "combined" {
				line = toCombined(line)
			}
			if _, err := dst.Write(line); err != nil {
				return err
			}
			written++
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// toCombined cuts a stampede-format line after the user agent, which is
// where nginx's combined format ends.
func toCombined(line []byte) []byte {
	// combined ends with "$http_referer" "$http_user_agent": the fourth and
	// fifth quoted fields. Count quotes up to the end of the fifth.
	q := 0
	for i, c := range line {
		if c == '"' {
			q++
			if q == 6 {
				line[i+1] = '\n'
				return line[:i+2]
			}
		}
	}
	return line
}
