package ingest

import (
	"sort"

	"github.com/stampede/stampede/timeline"
)

// An SDK sometimes completes what an earlier line said: openai-node logs a
// response's headers (retry-after among them) on a debug line just after
// the attempt's outcome line, and botocore names the error of a call's last
// attempt only in the application's final ClientError. Such a parser is an
// amender: read gives it the file's timeline so far, and it reaches back to
// the event a given line emitted, or warns when it had to assume what the
// log does not say.

// amender is a lineParser whose lines may complete an event that an earlier
// line of the same file emitted, or that adds a warning to the file's Source
// while reading.
type amender interface {
	// bindTimeline hands the parser the timeline read appends this file's
	// events to, its Source first; the parser may change the events in
	// it and the Source's Warnings, never the slice.
	bindTimeline(t *timeline.Timeline)
}

// earlier reaches the events an earlier line emitted. The zero value
// reaches none, as when a sniffer parses sample lines.
type earlier struct {
	t *timeline.Timeline
	// warned are the warnings given, each once.
	warned map[string]bool
}

func (a *earlier) bindTimeline(t *timeline.Timeline) { a.t = t }

// bindAmender binds p to t when p is an amender.
func bindAmender(p lineParser, t *timeline.Timeline) {
	if a, ok := p.(amender); ok {
		a.bindTimeline(t)
	}
}

// at returns the event that line emitted, or nil. Events are appended in
// line order, so the search is binary; the slot of the line being parsed
// sits at the end and has a later line.
func (a *earlier) at(line int64) *timeline.Event {
	if a.t == nil || line <= 0 {
		return nil
	}
	ev := a.t.Events
	i := sort.Search(len(ev), func(i int) bool { return ev[i].Line >= line })
	if i < len(ev) && ev[i].Line == line {
		return &ev[i]
	}
	return nil
}

// warn adds w to the file's Source warnings, once.
func (a *earlier) warn(w string) {
	if a.t == nil || len(a.t.Sources) == 0 || a.warned[w] {
		return
	}
	if a.warned == nil {
		a.warned = map[string]bool{}
	}
	a.warned[w] = true
	a.t.Sources[0].Warnings = append(a.t.Sources[0].Warnings, w)
}
