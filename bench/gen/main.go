// Command gen writes a large incident log for benchmarks: the seed incident
// simulated at a larger scale, repeated back to back until the wanted number
// of lines is reached. Each repetition starts after the previous one ends
// and gets task ids of its own, so every copy reads as one more incident of
// the same shape rather than as retries of the first.
//
//	go run ./bench/gen -lines 5000000 -format nginx -o /tmp/access.log
//
// -distinct makes chosen fields take a new value on every line, the shape
// of a hostile or badly instrumented log, for the cardinality benchmark:
//
//	go run ./bench/gen -lines 10000000 -distinct ua,route,task -o /tmp/distinct.log
//	go run ./bench/gen -lines 1000000 -distinct sdk-version -o /tmp/versions.log
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
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
		distinct = flag.String("distinct", "", "comma-separated fields given a new value on every line: ua (a User-Agent of its own product), route, task, sdk-version (OpenAI/Python 1.N.0); nginx and combined only")
	)
	flag.Parse()
	fields, err := parseDistinct(*distinct, *format)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
	if err := run(*scenario, *format, *out, *lines, *scale, *gz, fields); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(scenario, format, out string, lines, scale int, gz bool, fields distinctFields) error {
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
			if fields != (distinctFields{}) {
				line = fields.rewrite(line, written)
			}
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

// distinctFields are the fields -distinct gives a new value on every line.
type distinctFields struct{ ua, route, task, sdkVersion bool }

func parseDistinct(list, format string) (distinctFields, error) {
	var f distinctFields
	if list == "" {
		return f, nil
	}
	if format != "nginx" && format != "combined" {
		return f, fmt.Errorf("-distinct needs -format nginx or combined, not %q", format)
	}
	for _, name := range strings.Split(list, ",") {
		switch strings.TrimSpace(name) {
		case "ua":
			f.ua = true
		case "route":
			f.route = true
		case "task":
			f.task = true
		case "sdk-version":
			f.sdkVersion = true
		default:
			return f, fmt.Errorf("-distinct: unknown field %q: want ua, route, task or sdk-version", name)
		}
	}
	if f.ua && f.sdkVersion {
		return f, fmt.Errorf("-distinct: ua and sdk-version both set the User-Agent; choose one")
	}
	return f, nil
}

// rewrite gives line n its own values of the chosen fields. A stampede
// format line quotes, in order: the request, the referer, the User-Agent,
// three retry headers, the task id and the retry-after.
func (f distinctFields) rewrite(line []byte, n int) []byte {
	var quoted [][2]int // start and end of each quoted field's content
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		j := bytes.IndexByte(line[i+1:], '"')
		if j < 0 {
			break
		}
		quoted = append(quoted, [2]int{i + 1, i + 1 + j})
		i += j + 1
	}
	if len(quoted) < 3 {
		return line
	}
	id := strconv.Itoa(n)
	// Replacements from the end, so that earlier offsets stay valid.
	type edit struct {
		from, to int
		with     string
	}
	var edits []edit
	if f.task && len(quoted) >= 7 {
		edits = append(edits, edit{quoted[6][0], quoted[6][1], "task-u" + id})
	}
	switch {
	case f.ua:
		// A product of its own: a tool that is no SDK is keyed by product.
		edits = append(edits, edit{quoted[2][0], quoted[2][1], "probe-" + id + "/1.0"})
	case f.sdkVersion:
		edits = append(edits, edit{quoted[2][0], quoted[2][1], "OpenAI/Python 1." + id + ".0"})
	}
	if f.route {
		// The request is "METHOD ROUTE PROTO": the route ends at the last space.
		req := line[quoted[0][0]:quoted[0][1]]
		if k := bytes.LastIndexByte(req, ' '); k > 0 {
			at := quoted[0][0] + k
			edits = append(edits, edit{at, at, "/" + id})
		}
	}
	out := make([]byte, 0, len(line)+64)
	prev := 0
	slices.SortFunc(edits, func(a, b edit) int { return a.from - b.from })
	for _, e := range edits {
		out = append(out, line[prev:e.from]...)
		out = append(out, e.with...)
		prev = e.to
	}
	return append(out, line[prev:]...)
}
