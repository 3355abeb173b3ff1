package ingest

import (
	"sort"

	"github.com/stampede/stampede/timeline"
)

// An SDK sometimes completes what an earlier line said: openai-node logs a
// response's headers (retry-after among them) on a debug line just after
// the attempt's outcome line, and botocore names the error of a call's last
// attempt only in the application's final ClientError. Such a parser is an
// amender: read gives it the file's events so far, and it reaches back to
// the event a given line emitted.

// amender is a lineParser whose lines may complete an event that an earlier
// line of the same file emitted.
type amender interface {
	// bindEvents hands the parser the slice read appends this file's events
	// to; the parser may change the events in it, never the slice.
	bindEvents(events *[]timeline.Event)
}

// earlier reaches the events an earlier line emitted. The zero value
// reaches none, as when a sniffer parses sample lines.
type earlier struct {
	events *[]timeline.Event
}

func (a *earlier) bindEvents(events *[]timeline.Event) { a.events = events }

// bindAmender binds p to the events of t when p is an amender.
func bindAmender(p lineParser, t *timeline.Timeline) {
	if a, ok := p.(amender); ok {
		a.bindEvents(&t.Events)
	}
}

// at returns the event that line emitted, or nil. Events are appended in
// line order, so the search is binary; the slot of the line being parsed
// sits at the end and has a later line.
func (a *earlier) at(line int64) *timeline.Event {
	if a.events == nil || line <= 0 {
		return nil
	}
	ev := *a.events
	i := sort.Search(len(ev), func(i int) bool { return ev[i].Line >= line })
	if i < len(ev) && ev[i].Line == line {
		return &ev[i]
	}
	return nil
}
