package timeline

import (
	"container/heap"
	"math"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Labels bounds how many distinct routes, User-Agents and error codes one
// ingest keeps as logged. No analysis needs them all: they class traffic,
// name clients and match two logs of the same request. Task, call and
// request ids, which the joins need, are not labels and are kept whole.
// A log with a new route on every line would otherwise hold every one in
// the string table, which is never freed.
//
// The values kept as logged are the MaxVerbatimLabels of each kind with the
// smallest hash of their text: a bottom-k sample, so which ones are kept
// does not depend on the order the parallel parsers meet them in, and the
// report is the same from run to run. Every other value is shortened, its
// words holding digits written as ShortLabel ("/v1/files/file-7f3a2" reads
// "/…/files/file-…"), which keeps what class rules look for; the
// shortened forms are bounded the same way, and past them a value is
// ShortLabel alone.
//
// Parsers call Intern as they read; values kept at first and then pushed
// out by smaller hashes are put right by Settle, once every input is read.
// A Labels serves one ingest and is safe for concurrent use.
type Labels struct {
	kinds [numLabelKinds]struct {
		logged, shapes bottomK
	}
	marker Sym
}

// LabelKind is a field whose values are labels.
type LabelKind uint8

const (
	LabelRoute LabelKind = iota
	LabelClient
	LabelErrorCode
	numLabelKinds
)

// LabelKinds lists the kinds.
var LabelKinds = [...]LabelKind{LabelRoute, LabelClient, LabelErrorCode}

func (k LabelKind) String() string {
	return [...]string{"routes", "User-Agents", "error codes"}[k]
}

const (
	// MaxVerbatimLabels is how many distinct values of each kind an
	// ingest keeps as logged.
	MaxVerbatimLabels = 1 << 16
	// maxLabelShapes is how many distinct shortened values of each kind
	// are kept; past them a value is ShortLabel.
	maxLabelShapes = 1 << 12
	// maxShapeBytes bounds a shortened value: a label can be as long as a
	// line.
	maxShapeBytes = 256
	// ShortLabel marks what shortening took out.
	ShortLabel = "…"
)

// NewLabels returns the label bounds of one ingest.
func NewLabels() *Labels { return newLabels(MaxVerbatimLabels, maxLabelShapes) }

func newLabels(logged, shapes int) *Labels {
	l := &Labels{marker: Intern(ShortLabel)}
	for k := range l.kinds {
		l.kinds[k].logged.init(logged)
		l.kinds[k].shapes.init(shapes)
	}
	return l
}

// Intern returns the Sym of a label as this ingest keeps it: b itself, or
// its shortened form.
func (l *Labels) Intern(kind LabelKind, b []byte) Sym {
	if id, ok := l.Logged(kind, b); ok {
		return id
	}
	return l.Shape(kind, Shorten(b), b)
}

// Logged returns the Sym of b when b is kept as logged. Intern is Logged,
// then Shape of the shortened value: a parser that meets the same shapes
// again and again can cache Shape's answers.
func (l *Labels) Logged(kind LabelKind, b []byte) (Sym, bool) {
	if len(b) == 0 {
		return NoSym, true
	}
	return l.kinds[kind].logged.offer(b, false)
}

// Shape returns the Sym that stands for logged, a label not kept as
// logged, whose shortened form is short.
func (l *Labels) Shape(kind LabelKind, short, logged []byte) Sym {
	if id, ok := l.kinds[kind].shapes.offer(short, string(short) != string(logged)); ok {
		return id
	}
	return l.marker
}

// ShortenedLabels counts the events of one source whose labels an ingest
// shortened, per kind.
type ShortenedLabels struct {
	Routes     int64 `json:"routes,omitempty"`
	Clients    int64 `json:"user_agents,omitempty"`
	ErrorCodes int64 `json:"error_codes,omitempty"`
}

// Of is the count of one kind.
func (s *ShortenedLabels) Of(kind LabelKind) *int64 {
	return [...]*int64{&s.Routes, &s.Clients, &s.ErrorCodes}[kind]
}

// Settle puts right the labels of events read before a value they hold
// was pushed out of the values kept as logged, and counts in each
// source's Shortened the events whose labels are shortened. sourceOf gives
// the index in sources of an event's source. It must be called once, after
// the last Intern; events may be settled in parallel stretches by calling
// the returned function on each, and adding up what it counts.
func (l *Labels) Settle() (settle func(events []Event, count func(src int32, kind LabelKind)), needed bool) {
	var remap [numLabelKinds]map[Sym]Sym
	var short [numLabelKinds]map[Sym]bool
	for kind := range l.kinds {
		k := &l.kinds[kind]
		m := map[Sym]Sym{}
		for _, id := range k.logged.evicted {
			if k.logged.holds(id) {
				continue // pushed out, then offered again and kept
			}
			text := []byte(id.String())
			short := Shorten(text)
			to, ok := k.shapes.offer(short, string(short) != string(text))
			if !ok {
				to = l.marker
			}
			m[id] = to
		}
		// Shapes pushed out, while reading or just now, are the marker.
		for _, id := range k.shapes.evicted {
			if !k.shapes.holds(id) && !k.logged.holds(id) {
				m[id] = l.marker
			}
		}
		for from, to := range m {
			if next, ok := m[to]; ok {
				m[from] = next
			}
		}
		remap[kind] = m
		s := map[Sym]bool{}
		for id := range k.shapes.shortened {
			s[id] = true
		}
		if k.shapes.rejected.Load() || len(m) > 0 {
			s[l.marker] = true
		}
		// A value logged as it is and kept is not shortened, even when it
		// reads like a shortened one.
		for id := range s {
			if k.logged.holds(id) {
				delete(s, id)
			}
		}
		short[kind] = s
	}
	any := false
	for kind := range remap {
		any = any || len(remap[kind]) > 0 || len(short[kind]) > 0
	}
	if !any {
		return func([]Event, func(int32, LabelKind)) {}, false
	}
	return func(events []Event, count func(src int32, kind LabelKind)) {
		for i := range events {
			e := &events[i]
			for kind, f := range [...]*Sym{&e.Route, &e.Client, &e.ErrorCode} {
				if *f == NoSym {
					continue
				}
				if to, ok := remap[kind][*f]; ok {
					*f = to
				}
				if short[kind][*f] {
					count(e.Source, LabelKind(kind))
				}
			}
		}
	}, true
}

// Shorten writes each word of b that holds a digit as ShortLabel, one
// ShortLabel for a run of them that only '.', '-' or ':' join ("1.52.0"),
// and cuts what is left at maxShapeBytes.
func Shorten(b []byte) []byte { return ShortenInto(nil, b) }

// ShortenInto is Shorten written over buf's memory, for a caller that
// shortens value after value.
func ShortenInto(buf, b []byte) []byte {
	out := buf[:0]
	for i := 0; i < len(b); {
		if len(out) >= maxShapeBytes {
			return cutShape(out)
		}
		if !isWordByte(b[i]) {
			out = append(out, b[i])
			i++
			continue
		}
		j, digit := i, false
		for j < len(b) && isWordByte(b[j]) {
			digit = digit || b[j] >= '0' && b[j] <= '9'
			j++
		}
		switch n := len(out); {
		case !digit:
			out = append(out, b[i:j]...)
		case n > len(ShortLabel) && isJoiner(out[n-1]) && string(out[n-1-len(ShortLabel):n-1]) == ShortLabel:
			out = out[:n-1] // "…" "." "1": one "…"
		case n >= len(ShortLabel) && string(out[n-len(ShortLabel):]) == ShortLabel:
		default:
			out = append(out, ShortLabel...)
		}
		i = j
	}
	if len(out) > maxShapeBytes {
		return cutShape(out)
	}
	return out
}

// cutShape cuts a shortened value at maxShapeBytes, not inside a UTF-8
// sequence, and marks the cut.
func cutShape(out []byte) []byte {
	out = out[:maxShapeBytes]
	k := len(out) - 1
	for k > 0 && len(out)-k < utf8.UTFMax && !utf8.RuneStart(out[k]) {
		k--
	}
	if !utf8.FullRune(out[k:]) {
		out = out[:k]
	}
	return append(out, ShortLabel...)
}

func isJoiner(c byte) bool { return c == '.' || c == '-' || c == ':' }

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// bottomK keeps the k values with the smallest hash seen so far.
type bottomK struct {
	mu sync.Mutex
	k  int
	// kept is a max-heap by hash, so its top is the next to go.
	kept labelHeap
	// byHash finds a kept value; equal hashes of different text are told
	// apart by comparing the text.
	byHash map[uint64]Sym
	// evicted are the Syms pushed out of kept, in order.
	evicted []Sym
	// shortened are the kept Syms that Shorten changed.
	shortened map[Sym]bool
	// rejected is set once a value was neither kept nor already held.
	rejected atomic.Bool
	// above is the largest hash kept once k are: a larger one is
	// rejected without taking the lock, as most are in a log of a new
	// value per line.
	above atomic.Uint64
}

type labelSlot struct {
	hash uint64
	id   Sym
}

type labelHeap []labelSlot

func (h labelHeap) Len() int           { return len(h) }
func (h labelHeap) Less(i, j int) bool { return h[i].hash > h[j].hash }
func (h labelHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *labelHeap) Push(x any)        { *h = append(*h, x.(labelSlot)) }
func (h *labelHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (b *bottomK) init(k int) {
	b.k = k
	b.above.Store(math.MaxUint64)
	b.byHash = map[uint64]Sym{}
	b.shortened = map[Sym]bool{}
}

// offer returns the Sym of v when v is, or now becomes, one of the kept
// values; shortened says v is a value Shorten changed.
func (b *bottomK) offer(v []byte, shortened bool) (Sym, bool) {
	h := labelHash(v)
	if h > b.above.Load() {
		b.rejected.Store(true)
		return NoSym, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if id, ok := b.byHash[h]; ok {
		if id.String() == string(v) {
			if shortened {
				b.shortened[id] = true
			}
			return id, true
		}
		// Two texts of one 64-bit hash: the second is not kept.
		b.rejected.Store(true)
		return NoSym, false
	}
	if len(b.kept) >= b.k && h >= b.kept[0].hash {
		b.rejected.Store(true)
		return NoSym, false
	}
	id := InternBytes(v)
	heap.Push(&b.kept, labelSlot{h, id})
	b.byHash[h] = id
	if shortened {
		b.shortened[id] = true
	}
	if len(b.kept) > b.k {
		out := heap.Pop(&b.kept).(labelSlot)
		delete(b.byHash, out.hash)
		b.evicted = append(b.evicted, out.id)
	}
	if len(b.kept) >= b.k {
		b.above.Store(b.kept[0].hash)
	}
	return id, true
}

// holds reports whether id is among the kept values.
func (b *bottomK) holds(id Sym) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	got, ok := b.byHash[labelHash([]byte(id.String()))]
	return ok && got == id
}

// labelHash is FNV-1a with a final mix: fixed, unlike maphash's seed, so
// that the values kept are the same in every run.
func labelHash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
