package ingest

import (
	"strings"
	"time"
)

// jsonPaths pulls the values at a fixed set of dotted paths
// ("data.tags.status", "request.headers.User-Agent") out of one JSON object
// per line. Access logs and load-test results nest the fields stampede needs
// (tags, request headers), which the top-level JSONL scanner skips. The walk
// descends only into objects on a wanted path and skips everything else
// without recursion, so its depth is bounded by the longest path, whatever
// the input.
type jsonPaths struct {
	root  *pathNode
	paths []string
	vals  []jsonValue
	gen   uint32
	// dec supplies the JSONL scanner's value reader and string decoder;
	// only its scratch buffer is used.
	dec jsonlParser
}

// pathNode is one key of the wanted paths. A node may be both a leaf and an
// inner node ("error" as a string, "error.responseType" in an object).
type pathNode struct {
	children map[string]*pathNode
	slot     int
}

// newJSONPaths compiles paths; the value of paths[i] is slot i.
func newJSONPaths(paths ...string) *jsonPaths {
	jp := &jsonPaths{root: &pathNode{slot: -1}, paths: paths, vals: make([]jsonValue, len(paths))}
	for i, p := range paths {
		n := jp.root
		for _, k := range strings.Split(p, ".") {
			if n.children == nil {
				n.children = map[string]*pathNode{}
			}
			c, ok := n.children[k]
			if !ok {
				c = &pathNode{slot: -1}
				n.children[k] = c
			}
			n = c
		}
		n.slot = i
	}
	return jp
}

// scan walks line and records the wanted values. It returns "" or why the
// line is not a JSON object.
func (jp *jsonPaths) scan(line []byte) string {
	jp.gen++
	jp.dec.scratch = jp.dec.scratch[:0]
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return "not a JSON object"
	}
	j, reason := jp.object(line, i, jp.root)
	if reason != "" {
		return reason
	}
	return jp.dec.trailing(line, j)
}

// object walks the object at b[i] == '{' and returns the offset after it,
// recording the values of the wanted paths below n.
func (jp *jsonPaths) object(b []byte, i int, n *pathNode) (int, string) {
	return jp.dec.members(b, i, func(key []byte, i int) (int, string) {
		c := n.children[string(key)]
		switch {
		case c == nil:
			return 0, ""
		case i < len(b) && b[i] == '{' && c.children != nil:
			return jp.object(b, i, c)
		case i < len(b) && b[i] == '[' && c.slot >= 0:
			return jp.firstOfArray(b, i, c.slot)
		case c.slot >= 0:
			v, j, reason := jp.dec.readValue(b, i)
			v.gen = jp.gen
			jp.vals[c.slot] = v
			return j, reason
		}
		return 0, ""
	})
}

// firstOfArray records the first element of the array at b[i] == '[':
// header maps (Go's http.Header, as Caddy and Vegeta log it) hold a list of
// values per name, and the first is the one a client acts on.
func (jp *jsonPaths) firstOfArray(b []byte, i, slot int) (int, string) {
	end, reason := skipValue(b, i)
	if reason != "" {
		return 0, reason
	}
	k := skipSpace(b, i+1)
	if k < end && b[k] != ']' {
		v, _, reason := jp.dec.readValue(b, k)
		if reason != "" {
			return 0, reason
		}
		v.gen = jp.gen
		jp.vals[slot] = v
	}
	return end, ""
}

// get returns the value of a slot in the current line, or nil when it is
// absent or null.
func (jp *jsonPaths) get(slot int) *jsonValue {
	v := &jp.vals[slot]
	if v.gen != jp.gen || v.kind == jsonNull {
		return nil
	}
	return v
}

// text returns a string or number slot's bytes; nil when absent, empty or
// "-" (the placeholder access logs write for a missing value).
func (jp *jsonPaths) text(slot int) []byte {
	v := jp.get(slot)
	if v == nil || (v.kind != jsonString && v.kind != jsonNumber) || len(v.b) == 0 || (len(v.b) == 1 && v.b[0] == '-') {
		return nil
	}
	return v.b
}

// bad formats the reason for a slot whose value has the wrong type.
func (jp *jsonPaths) bad(slot int, want string) string {
	return badJSON(jp.paths[slot], &jp.vals[slot], want)
}

// status reads an HTTP status given as a number or a numeric string; absent
// or "-" is 0.
func (jp *jsonPaths) status(slot int) (int16, string) {
	b := jp.text(slot)
	if b == nil {
		return 0, ""
	}
	n, ok := digits(b)
	if !ok || n > 999 {
		return 0, jp.bad(slot, "an HTTP status")
	}
	return int16(n), ""
}

// count reads a whole number (number or numeric string); absent is -1.
func (jp *jsonPaths) count(slot int, max int64) (int64, string) {
	b := jp.text(slot)
	if b == nil {
		return -1, ""
	}
	n, ok := digits(b)
	if !ok || n > max {
		return 0, jp.bad(slot, "a whole number")
	}
	return n, ""
}

// duration reads a non-negative decimal in unit (a number or numeric
// string); absent is -1.
func (jp *jsonPaths) duration(slot int, unit time.Duration) (time.Duration, string) {
	b := jp.text(slot)
	if b == nil {
		return -1, ""
	}
	w, f, _, ok := parseDecimal(b)
	if !ok || w > int64(maxRequestDuration/unit) {
		return 0, jp.bad(slot, "a duration")
	}
	return time.Duration(w)*unit + time.Duration(f*int64(unit)/1e9), ""
}

// maxRequestDuration bounds the durations read: longer is no HTTP request,
// and the bound keeps Start + duration from overflowing.
const maxRequestDuration = 7 * 24 * time.Hour

// time reads a required timestamp: an RFC 3339 string or an epoch number
// whose unit follows from its magnitude. Times at or before the Unix epoch
// are refused, since a zero Start means "unknown" in a timeline.
func (jp *jsonPaths) time(slot int) (int64, string) {
	v := jp.get(slot)
	if v == nil {
		return 0, "no " + jp.paths[slot]
	}
	ns, ok := jsonTime(v)
	if !ok || ns <= 0 {
		return 0, jp.bad(slot, "a time")
	}
	return ns, ""
}
