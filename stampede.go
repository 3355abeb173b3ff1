// Package stampede explains a throttling incident from its logs: how many
// requests the retry layers multiplied out of the real work, why the HTTP
// throttle rate and the application's error rate disagree, and which fixed
// delay synchronised the retries into waves.
//
// The pipeline is ingest → timeline → analyze → report. This package wires the
// first three together behind a Config; rendering is package report's job.
//
//	res, err := stampede.Analyze(ctx, stampede.Config{Inputs: []string{"incident/"}})
package stampede

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/ingest"
	"github.com/stampede/stampede/timeline"
	"github.com/stampede/stampede/whatif"
)

// Config is everything a run needs; the CLI's flags only fill it in.
type Config struct {
	// Inputs are files, directories (their log files, not recursively) or
	// glob patterns. Arrow (.arrow) and Parquet (.parquet) timelines written
	// by Ingest are read back as they are.
	Inputs []string
	// Format forces one input format for every text file ("auto" sniffs).
	Format string
	// FileFormats forces the format of single files, by path as given in
	// Inputs (or as found in a directory); it wins over Format.
	FileFormats map[string]string
	// Layer is the layer of JSON-lines records that do not name theirs,
	// "attempt" or "call", for every file; FileLayers sets it for single
	// files, by path as in FileFormats, and wins over Layer. Unset, an
	// access log in JSON is read as attempts and anything else as calls.
	Layer      string
	FileLayers map[string]string
	// LogFormat is a log format definition (nginx log_format, Apache
	// LogFormat or Envoy format string) or the name of a built-in one.
	LogFormat string
	// HAProxyCaptures names HAProxy's captured headers in the order of
	// the capture lines ("x-task-id", "res:retry-after" for a response
	// header); see ingest.Options.
	HAProxyCaptures []string
	// Fields maps timeline fields to JSON keys for JSON-lines logs, as
	// "field=key" (e.g. "start=start_time").
	Fields []string
	// ClassRules assign traffic classes, as "class=field:substring"
	// (e.g. "batch=route:/batch/"). Empty means timeline.DefaultClassRules.
	ClassRules []string
	// BinWidth overrides the automatic bin width of the wave analysis.
	BinWidth time.Duration
	// Seed drives the surrogate significance test; a fixed seed keeps
	// reports byte-identical across runs.
	Seed uint64
	// Align corrects the estimated clock offset of each log against the
	// access log before analysing.
	Align bool
	// Progress, when set, is told how far Ingest has got: about once per
	// MiB of input per file, and once as each file finishes. It may be
	// called from several goroutines at once, so it must be safe for
	// concurrent use, and quick; snapshots from parallel files may arrive
	// slightly out of order.
	Progress func(Progress)
	// WhatIf replays the incident in the simulator under the measured retry
	// policy and alternatives, and puts the comparison in Result.WhatIf.
	WhatIf bool
	// WhatIfGiven are the figures the logs cannot show (token sizes, the
	// quota); zero fields are measured or assumed.
	WhatIfGiven whatif.Given
	// WhatIfSeeds is how many seeds each what-if row runs (0: 5).
	WhatIfSeeds int
}

// Progress is a snapshot of an Ingest in flight.
type Progress struct {
	// Bytes of input read so far, as stored: compressed files count their
	// compressed bytes, so Bytes reaches TotalBytes.
	Bytes int64
	// TotalBytes is the size of every input, from the file system before
	// reading starts; 0 when unknown (standard input).
	TotalBytes int64
	// Lines read so far; it lags Bytes by the read buffer.
	Lines int64
	// FilesDone of Files have been read; FilesDone == Files means the
	// reading is over.
	FilesDone, Files int
	// Phase is what the run is doing: PhaseReading (the zero value) while
	// Ingest reads, then, from Analyze, PhaseAnalysing, PhaseReplaying
	// (the what-if) and PhaseDone just before it returns. Events is then
	// how many events the analyses work on.
	Phase  string
	Events int
}

// The phases a Progress reports.
const (
	PhaseReading   = ""
	PhaseAnalysing = "analysing"
	PhaseReplaying = "replaying"
	PhaseDone      = "done"
)

// progressCounter adds up the progress of files read in parallel.
type progressCounter struct {
	report       func(Progress)
	bytes, lines atomic.Int64
	filesDone    atomic.Int64
	// sizes are the files' sizes when the Ingest started.
	sizes      []int64
	totalBytes int64
	files      int
}

func newProgressCounter(report func(Progress), files []string) *progressCounter {
	pc := &progressCounter{report: report, files: len(files), sizes: make([]int64, len(files))}
	for i, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			pc.sizes[i] = st.Size()
			pc.totalBytes += st.Size()
		}
	}
	return pc
}

func (pc *progressCounter) add(bytes, lines int64, fileDone bool) {
	done := pc.filesDone.Load()
	if fileDone {
		done = pc.filesDone.Add(1)
	}
	pc.report(Progress{
		Bytes:      pc.bytes.Add(bytes),
		TotalBytes: pc.totalBytes,
		Lines:      pc.lines.Add(lines),
		FilesDone:  int(done),
		Files:      pc.files,
	})
}

// logExtensions are what a directory input contributes; JSON files are left
// out on purpose, because incident folders keep configs and truth files there.
var logExtensions = []string{".log", ".jsonl", ".ndjson", ".arrow", ".parquet", ".gz"}

// ExpandInputs resolves directories and globs to a sorted, de-duplicated file
// list, and fails when an input names nothing.
func ExpandInputs(inputs []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, in := range inputs {
		if in == "-" {
			add(in)
			continue
		}
		st, err := os.Stat(in)
		switch {
		case err == nil && st.IsDir():
			entries, err := os.ReadDir(in)
			if err != nil {
				return nil, err
			}
			var found []string
			for _, e := range entries {
				if !isLogName(e.Name()) {
					continue
				}
				p := filepath.Join(in, e.Name())
				if e.Type().IsRegular() {
					found = append(found, p)
					continue
				}
				// A log-named entry that is not a plain file is read if it
				// leads to something readable (a link to a log, a FIFO a
				// collector writes to), and otherwise stops the run: it is
				// never dropped unseen.
				st, err := os.Stat(p)
				switch {
				case err != nil:
					return nil, fmt.Errorf("%s: %w (a broken or looping link in the input directory; remove it or name the files to read)", p, err)
				case st.IsDir():
					continue
				case st.Mode().IsRegular() || st.Mode()&fs.ModeNamedPipe != 0:
					found = append(found, p)
				default:
					return nil, fmt.Errorf("%s: not a file stampede can read (%v); remove it or name the files to read", p, st.Mode().Type())
				}
			}
			if len(found) == 0 {
				return nil, fmt.Errorf("%s: no log files in directory (looked for %s)", in, strings.Join(logExtensions, ", "))
			}
			for _, f := range found {
				add(f)
			}
		case err == nil:
			add(in)
		case errors.Is(err, fs.ErrNotExist) && strings.ContainsAny(in, "*?["):
			matches, gerr := filepath.Glob(in)
			if gerr != nil {
				return nil, fmt.Errorf("%s: %w", in, gerr)
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("%s: pattern matches no files", in)
			}
			sort.Strings(matches)
			for _, m := range matches {
				add(m)
			}
		default:
			return nil, err
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no input files given")
	}
	return files, nil
}

// isLogName accepts log-like names, including rotated ones (access.log.1).
func isLogName(name string) bool {
	lower := strings.ToLower(name)
	for _, ext := range logExtensions {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return strings.Contains(lower, ".log.")
}

// Ingest reads every input into one sorted timeline. Files are parsed in
// parallel and merged in input order, so the result does not depend on
// scheduling.
func Ingest(ctx context.Context, cfg Config) (*timeline.Timeline, error) {
	files, err := ExpandInputs(cfg.Inputs)
	if err != nil {
		return nil, err
	}
	for path := range cfg.FileFormats {
		if !slices.Contains(files, path) {
			return nil, fmt.Errorf("format given for %s, which is not among the inputs", path)
		}
	}
	for path := range cfg.FileLayers {
		if !slices.Contains(files, path) {
			return nil, fmt.Errorf("layer given for %s, which is not among the inputs", path)
		}
	}
	opt, err := ingestOptions(cfg)
	if err != nil {
		return nil, err
	}
	labels := timeline.NewLabels()
	opt.Labels = labels
	rules, override, err := classRules(cfg.ClassRules)
	if err != nil {
		return nil, err
	}

	var progress *progressCounter
	if cfg.Progress != nil {
		progress = newProgressCounter(cfg.Progress, files)
	}
	// Each file gives its sources and its events as parts: a large file
	// is parsed in pieces at once, which are merged in file order.
	type fileResult struct {
		sources []timeline.Source
		parts   []timeline.Part
	}
	results := make([]fileResult, len(files))
	errs := make([]error, len(files))
	workers := runtime.GOMAXPROCS(0)
	readFile := func(i int) {
		f := files[i]
		if ctx.Err() != nil {
			// Reported once, below, rather than once per file left.
			return
		}
		fileOpt := opt
		if name, ok := cfg.FileFormats[f]; ok {
			fileOpt.Format = name
		}
		if layer, ok := cfg.FileLayers[f]; ok {
			fileOpt.Layer = layer
		}
		var r fileResult
		if progress == nil {
			r.sources, r.parts, errs[i] = readOne(f, fileOpt, workers)
		} else {
			// Pieces of one large file report from their own goroutines.
			var readBytes atomic.Int64
			fileOpt.Progress = func(bytes, lines int64) {
				readBytes.Add(bytes)
				progress.add(bytes, lines, false)
			}
			r.sources, r.parts, errs[i] = readOne(f, fileOpt, workers)
			// Timelines and failed reads report nothing on the way; the
			// file still counts as read, so the total is reached.
			progress.add(max(progress.sizes[i]-readBytes.Load(), 0), 0, true)
		}
		if errs[i] != nil {
			return
		}
		results[i] = r
	}
	// A fixed pool takes the files in order: a goroutine per file, most of
	// them waiting, would be stacks for every collection to scan, which on
	// a directory of thousands of rotated logs costs more than the reading.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(files)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				readFile(i)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// A file cut short by cancellation reads as a damaged one; the run
	// must still fail.
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	var sources []timeline.Source
	var parts []timeline.Part
	for _, r := range results {
		base := int32(len(sources))
		sources = append(sources, r.sources...)
		for _, p := range r.parts {
			p.SourceBase += base
			parts = append(parts, p)
		}
	}
	settleAndClass(sources, parts, labels, rules, override, workers)
	// Merge gives each part's memory back once it is copied, which it can
	// only do if nothing else still holds the part.
	clear(results)
	tl := timeline.Merge(sources, parts)
	// Both need the merged, sorted events; both keep every line accounted.
	dropFarEvents(tl)
	dropDuplicates(tl)
	dropRedundantViews(tl)
	dropRedundantCalls(tl)
	// Whether an unmatched event is batch or interactive depends on what the
	// other files show, so it is decided once they are all merged.
	timeline.ResolveClasses(tl)
	return tl, nil
}

// settleAndClass puts right the labels that the bound on distinct labels
// changed after the events holding them were read (timeline.Labels),
// counting them in their sources, and then sets the events' classes: both
// depend on each event alone, so they run in parallel stretches before
// the merge, and classes see the labels as the analyses will.
func settleAndClass(sources []timeline.Source, parts []timeline.Part, labels *timeline.Labels, rules []timeline.ClassRule, override bool, workers int) {
	settle, needed := labels.Settle()
	// One stretch per task and a fixed pool over them: a directory of
	// thousands of small logs is thousands of parts, not of goroutines.
	type stretch struct {
		events []timeline.Event
		base   int32
	}
	var stretches []stretch
	for k := range parts {
		events := parts[k].Events
		step := max(len(events)/workers+1, 1<<16)
		for lo := 0; lo < len(events); lo += step {
			stretches = append(stretches, stretch{events[lo:min(lo+step, len(events))], parts[k].SourceBase})
		}
	}
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(stretches)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(stretches); i = int(next.Add(1) - 1) {
				stretch, base := stretches[i].events, stretches[i].base
				if needed {
					counts := map[int32]*timeline.ShortenedLabels{}
					settle(stretch, func(src int32, kind timeline.LabelKind) {
						c := counts[src]
						if c == nil {
							c = &timeline.ShortenedLabels{}
							counts[src] = c
						}
						*c.Of(kind)++
					})
					mu.Lock()
					for src, c := range counts {
						if i := int(base + src); i < len(sources) {
							for _, kind := range timeline.LabelKinds {
								*sources[i].Shortened.Of(kind) += *c.Of(kind)
							}
						}
					}
					mu.Unlock()
				}
				timeline.ApplyClassRules(&timeline.Timeline{Events: stretch}, rules, override)
			}
		})
	}
	wg.Wait()
}

// readOne reads one input as its sources and the parts holding their
// events (several for a large log parsed in pieces).
func readOne(path string, opt ingest.Options, workers int) ([]timeline.Source, []timeline.Part, error) {
	if path == "-" {
		t, err := ingest.Read(os.Stdin, "stdin", opt)
		if err != nil {
			return nil, nil, err
		}
		return t.Sources, []timeline.Part{{Events: t.Events}}, nil
	}
	if timeline.IsTimelineFile(path) {
		t, err := timeline.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		return t.Sources, []timeline.Part{{Events: t.Events}}, nil
	}
	src, parts, err := ingest.ReadFileParts(path, opt, workers)
	if err != nil {
		return nil, nil, err
	}
	return []timeline.Source{src}, parts, nil
}

// SourceWarnings are the doubts of reading each file (a format guessed
// from lines it does not fully explain, events far from the rest), each
// prefixed with its file. A doubt many files share is said once, naming
// the first and counting the others, and past maxSourceWarnings doubts
// the rest are counted in one last line: a directory of thousands of logs
// would otherwise give thousands of lines.
func SourceWarnings(tl *timeline.Timeline) []string {
	type shared struct {
		first string
		n     int
	}
	var order []string
	by := map[string]*shared{}
	for _, s := range tl.Sources {
		for _, w := range s.Warnings {
			if g := by[w]; g != nil {
				g.n++
				continue
			}
			by[w] = &shared{s.Path, 1}
			order = append(order, w)
		}
	}
	var out []string
	for i, w := range order {
		if i == maxSourceWarnings-1 && len(order) > maxSourceWarnings {
			out = append(out, fmt.Sprintf("%d more doubts about how the inputs were read; analyse fewer files at once to see them", len(order)-i))
			break
		}
		g := by[w]
		switch g.n {
		case 1:
			out = append(out, g.first+": "+w)
		case 2:
			out = append(out, g.first+" and 1 other input: "+w)
		default:
			out = append(out, fmt.Sprintf("%s and %d other inputs: %s", g.first, g.n-1, w))
		}
	}
	return out
}

// maxSourceWarnings bounds the lines SourceWarnings gives.
const maxSourceWarnings = 50

func ingestOptions(cfg Config) (ingest.Options, error) {
	fields, err := ingest.ParseFieldMapping(cfg.Fields)
	if err != nil {
		return ingest.Options{}, err
	}
	return ingest.Options{Format: cfg.Format, LogFormat: cfg.LogFormat, HAProxyCaptures: cfg.HAProxyCaptures, Fields: fields, Layer: cfg.Layer}, nil
}

// classRules returns the user's rules, which override classes the logs set
// themselves, or the defaults, which only fill in missing classes.
func classRules(specs []string) ([]timeline.ClassRule, bool, error) {
	if len(specs) == 0 {
		return timeline.DefaultClassRules, false, nil
	}
	rules := make([]timeline.ClassRule, 0, len(specs))
	for _, s := range specs {
		r, err := timeline.ParseClassRule(s)
		if err != nil {
			return nil, false, err
		}
		rules = append(rules, r)
	}
	return rules, true, nil
}

// Analyze ingests the inputs and runs every analysis on the timeline.
func Analyze(ctx context.Context, cfg Config) (*analyze.Result, error) {
	_, res, err := AnalyzeTimeline(ctx, cfg)
	return res, err
}

// AnalyzeTimeline is Analyze that also returns the timeline, for callers
// that replay the events themselves (the what-if). A caller that only
// renders needs Analyze: the result holds the charts' series, and the
// timeline can go before the report is written.
func AnalyzeTimeline(ctx context.Context, cfg Config) (*timeline.Timeline, *analyze.Result, error) {
	tl, err := Ingest(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	phase := func(string) {}
	if cfg.Progress != nil {
		// A multi-GB analysis takes seconds after the last line is read;
		// a bar that vanished then would look like a hang.
		phase = func(p string) { cfg.Progress(Progress{Phase: p, Events: len(tl.Events)}) }
		defer phase(PhaseDone)
	}
	phase(PhaseAnalysing)
	res := analyze.Run(tl, analyze.Options{BinWidth: cfg.BinWidth, Seed: cfg.Seed, Align: cfg.Align})
	res.Warnings = append(res.Warnings, SourceWarnings(tl)...)
	if cfg.WhatIf {
		phase(PhaseReplaying)
		// A trace the simulator cannot replay still gets its report.
		if wi, err := whatif.FromAnalysis(tl, res, cfg.WhatIfGiven, whatif.Options{Seeds: cfg.WhatIfSeeds}); err != nil {
			res.Warnings = append(res.Warnings, err.Error())
		} else {
			res.WhatIf = wi
		}
	}
	return tl, res, nil
}
