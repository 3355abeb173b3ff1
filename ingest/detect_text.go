package ingest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/stampede/stampede/timeline"
)

// Text access logs of nginx, Apache, Envoy, Traefik and API Gateway share a
// shape (CLF and its extensions), so a line often parses under several
// formats. Detection does not take the first that parses: every candidate
// reads the sample, and the one that explains most of it wins. A line
// explains fully when it parses and every value sits where the format
// wants it; text after the end of the format, or a space inside a value
// that is one word (an extra field swallowed by $remote_addr), counts
// against it. Doubts travel with the parser as notes, which the report
// shows as warnings naming the option that settles them.

// textCandidate is one format detection weighs.
type textCandidate struct {
	family string // "nginx", "apache", "envoy" or the format's own name
	name   string // a named format of the family; "" for the others
	// open builds the parser; strs may be a throwaway interner.
	open func(strs *interner) lineParser
}

func (c *textCandidate) label() string {
	if c.name == "" {
		return c.family
	}
	return c.family + ":" + c.name
}

// textCandidates are all candidates in order of preference on a tie: most
// fields first, nginx before Apache, whose combined lines read the same
// (the events are the same too: without a duration a line's one time is
// both its start and its end).
var textCandidates = func() []textCandidate {
	var out []textCandidate
	logFormats := func(family string, names []string, compile func(string) (*logFormat, error)) {
		for _, name := range names {
			f, err := compile(name)
			if err != nil {
				panic("named format " + name + ": " + err.Error())
			}
			alts := altFormats(family, f, compile)
			out = append(out, textCandidate{family: family, name: name, open: func(strs *interner) lineParser {
				p := newNginxParser(f, strs).withAlts(alts)
				p.tails = true
				return p
			}})
		}
	}
	logFormats("nginx", nginxCandidates, compileNamedOrCustom)
	out = append(out,
		textCandidate{family: "traefik-clf", open: func(strs *interner) lineParser { return newTraefikCLFParser(strs) }},
		textCandidate{family: "apigateway-clf", open: func(strs *interner) lineParser { return newAPIGatewayCLFParser(strs) }})
	logFormats("apache", apacheCandidates, compileApacheNamedOrCustom)
	logFormats("envoy", envoyCandidates, compileEnvoyNamedOrCustom)
	return out
}()

// altFormats returns the named formats of f's family that f extends (whose
// definition f's begins with), longest first: a log whose format gained
// fields at its end still has lines written before, and a log that mixes
// main and combined lines is common.
func altFormats(family string, f *logFormat, compile func(string) (*logFormat, error)) []*logFormat {
	if family == "envoy" {
		return nil // Envoy's named formats do not extend one another
	}
	named := namedFormats
	if family == "apache" {
		named = apacheNamedFormats
	}
	var alts []*logFormat
	for name := range named {
		g, err := compile(name)
		if err != nil || g.def == f.def || !strings.HasPrefix(f.def, g.def) {
			continue
		}
		alts = append(alts, g)
	}
	slices.SortFunc(alts, func(a, b *logFormat) int {
		return cmp.Or(cmp.Compare(len(b.def), len(a.def)), strings.Compare(a.def, b.def))
	})
	return alts
}

// reading is how well one candidate explains the sample.
type reading struct {
	c      *textCandidate
	loose  bool
	parsed int
	// score sums, over parsed lines, the share of the line's bytes the
	// format explains.
	score float64
	// partial counts parsed lines the format does not fully explain;
	// partialAt is the first of them and what it leaves.
	partial   int
	partialAt string
	firstBad  string
	ok        []bool
	events    []timeline.Event
}

// readSample weighs c on the sample; loose lets a line hold more than the
// format.
func readSample(c *textCandidate, sample []sampledLine, loose bool) *reading {
	r := &reading{c: c, loose: loose, ok: make([]bool, len(sample)), events: make([]timeline.Event, len(sample))}
	p := c.open(newInterner())
	np, _ := p.(*nginxParser)
	if np != nil {
		np.scoring, np.loose = true, loose
	} else if loose {
		return r
	}
	for i, l := range sample {
		e := &r.events[i]
		if reason := p.parse(l.text, e); reason != "" {
			*e = timeline.Event{}
			if r.firstBad == "" {
				r.firstBad = fmt.Sprintf("line %d: %s", l.n, reason)
			}
			continue
		}
		r.ok[i] = true
		r.parsed++
		misfit, at := 0, 0
		if np != nil {
			misfit, at = min(np.misfit, len(l.text)), max(np.misfitAt, 0)
		}
		share := 1 - float64(misfit)/float64(max(len(l.text), 1))
		if misfit > 0 {
			// However long the line, text left unread weighs more than
			// reading a line by a format this one extends (below).
			share = min(share, 0.99)
		}
		if np != nil && np.viaAlt {
			// A line the shorter format reads is better credited to it:
			// a combined log is not a stampede log without its fields.
			share *= 0.999
		}
		r.score += share
		if misfit > 0 {
			r.partial++
			if r.partialAt == "" {
				r.partialAt = fmt.Sprintf("line %d, column %d: %s", l.n, at+1, clip(l.text[at:]))
			}
		}
	}
	return r
}

// clip quotes the start of b for a message.
func clip(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%q...", b[:37])
	}
	return fmt.Sprintf("%q", b)
}

// fits reports whether r explains enough of the sample to be chosen: at
// least half of its lines. Fewer says the file is not in that format; a
// short snippet with one damaged line of three still is.
func (r *reading) fits(n int) bool { return r.parsed > 0 && r.parsed*2 >= n }

// sameEvents reports whether two readings give the sample the same events,
// so that choosing between them changes nothing.
func sameEvents(a, b *reading) bool {
	return slices.Equal(a.ok, b.ok) && slices.Equal(a.events, b.events)
}

// rankText weighs the candidates of the given families (all when empty)
// and returns the best reading that fits, with the runner-up, or nil and
// why none fits.
func rankText(sample []sampledLine, families []string) (best, second *reading, why string) {
	var strict []*reading
	for i := range textCandidates {
		c := &textCandidates[i]
		if len(families) > 0 && !slices.Contains(families, c.family) {
			continue
		}
		strict = append(strict, readSample(c, sample, false))
	}
	pick := func(rs []*reading) (best, second *reading) {
		for _, r := range rs {
			if !r.fits(len(sample)) {
				continue
			}
			switch {
			case best == nil || r.score > best.score:
				best, second = r, best
			case second == nil || r.score > second.score:
				second = r
			}
		}
		return best, second
	}
	if best, second = pick(strict); best != nil {
		return best, second, ""
	}
	// Nothing reads whole lines: a format extended with fields of its own
	// is still best read by the format it extends, with a warning.
	var loose []*reading
	for _, r := range strict {
		loose = append(loose, readSample(r.c, sample, true))
	}
	if best, second = pick(loose); best != nil {
		return best, second, ""
	}
	var tried []string
	for _, r := range strict {
		tried = append(tried, fmt.Sprintf("%s (%d of %d lines parse; %s)", r.c.label(), r.parsed, len(sample), r.firstBad))
	}
	return nil, nil, strings.Join(tried, "; ")
}

// chooseText returns the parser of the best reading, with detection's
// doubts as its notes.
func chooseText(sample []sampledLine, families []string, strs *interner) (lineParser, string) {
	best, second, why := rankText(sample, families)
	if best == nil {
		return nil, why
	}
	n := len(sample)
	name := best.c.label()
	var notes []string
	switch {
	case best.loose:
		notes = append(notes, fmt.Sprintf("lines hold more fields than the %s format, which is the closest stampede knows (%s); the rest of each line is not read: give the log's format with --log-format to read it", name, best.partialAt))
	case best.partial*10 > n:
		notes = append(notes, fmt.Sprintf("%d of %d sampled lines hold text that %s does not read (%s); if the log's format differs, give it with --log-format", best.partial, n, name, best.partialAt))
	}
	if best.parsed*10 < n*9 {
		notes = append(notes, fmt.Sprintf("only %d of %d sampled lines read as %s (%s); the others are skipped: if the log is in another format, give it with --input-format or --log-format", best.parsed, n, name, best.firstBad))
	}
	if second != nil && second.score >= best.score*0.9 && !sameEvents(best, second) {
		notes = append(notes, fmt.Sprintf("read as %s, but %s reads the sample almost as well (%.1f and %.1f of %d lines); if the log is in that format, pass --input-format %s", name, second.c.label(), best.score, second.score, n, second.c.label()))
	}
	p := best.c.open(strs)
	if np, ok := p.(*nginxParser); ok {
		np.loose, np.notes = best.loose, notes
		return np, ""
	}
	if len(notes) > 0 {
		return &notedParser{lineParser: p, notes: notes}, ""
	}
	return p, ""
}

// noted is a parser that carries detection's doubts about its format.
type noted interface {
	detectionNotes() []string
}

// notedParser adds notes to a parser that keeps no state across lines and
// has no other interface to lose by the wrapping.
type notedParser struct {
	lineParser
	notes []string
}

func (p *notedParser) detectionNotes() []string { return p.notes }

// notesOf returns the notes a chosen parser carries.
func notesOf(p lineParser) []string {
	if n, ok := p.(noted); ok {
		return n.detectionNotes()
	}
	return nil
}

// sniffAccessText is the detection chain's sniffer for every text access
// log format.
func sniffAccessText(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	return chooseText(sample, nil, strs)
}
