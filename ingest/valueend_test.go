package ingest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stampede/stampede/timeline"
)

// referenceValueEnd is indexValueEnd as its doc comment defines it, on
// bytes.Index: the first occurrence of lit that is neither a list
// separator nor an escaped quote.
func referenceValueEnd(b, lit []byte, list bool) int {
	off := 0
	for {
		n := bytes.Index(b[off:], lit)
		if n < 0 {
			return -1
		}
		n += off
		if list && lit[0] == ' ' && isListSeparator(b, n) || lit[0] == '"' && escapedAt(b, n) {
			off = n + 1
			continue
		}
		return n
	}
}

var valueEndCases = []struct {
	b, lit string
	list   bool
	want   int
}{
	{`429 97 "-"`, ` `, false, 3},
	{`127.0.0.1 - - [30/Nov`, ` - `, false, 9},
	{`30/Nov/2026:02:00:00 +0000] "POST`, `] "`, false, 26},
	{`OpenAI/Python 1.52.0" 0.133`, `" `, false, 20},
	{`-" "-" "task-1"`, `" "`, false, 1},
	{`a\"b" "c`, `" "`, false, 4},                                            // an escaped quote is inside the value
	{`a\\" "c`, `" "`, false, 3},                                             // an escaped backslash is not
	{`ab"c" "d`, `" "`, false, 4},                                            // a quote not followed by the rest
	{`0.002, 0.001 "x`, ` `, true, 12},                                       // ", " inside a list
	{`502 : 429 "x`, ` `, true, 9},                                           // " : " inside a list
	{`0.002, 0.001 "x`, ` `, false, 6},                                       // not a list: the first space
	{`abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ" "z`, `" "`, false, 46}, // past the short scan
	{`abc`, `" "`, false, -1},
	{`abc"`, `" "`, false, -1},
	{`abc" `, `" "`, false, -1},
	{``, ` `, false, -1},
	{`1234567 `, ` `, false, 7},
	{`12345678 `, ` `, false, 8},
	{`1234567"`, `" `, false, -1}, // the literal does not fit
}

func TestIndexValueEnd(t *testing.T) {
	for _, tt := range valueEndCases {
		if got := indexValueEnd([]byte(tt.b), []byte(tt.lit), tt.list); got != tt.want {
			t.Errorf("indexValueEnd(%q, %q, %v) = %d, want %d", tt.b, tt.lit, tt.list, got, tt.want)
		}
		if got := referenceValueEnd([]byte(tt.b), []byte(tt.lit), tt.list); got != tt.want {
			t.Errorf("reference(%q, %q, %v) = %d, want %d", tt.b, tt.lit, tt.list, got, tt.want)
		}
		if got := firstValueEnd([]byte(tt.b), []byte(tt.lit), tt.list); got >= 0 && got != tt.want {
			t.Errorf("firstValueEnd(%q, %q, %v) = %d, want %d or -1", tt.b, tt.lit, tt.list, got, tt.want)
		}
	}
}

// FuzzIndexValueEnd checks the value-end search, and its short fast path,
// against the definition.
func FuzzIndexValueEnd(f *testing.F) {
	for _, tt := range valueEndCases {
		f.Add([]byte(tt.b), []byte(tt.lit), tt.list)
	}
	f.Fuzz(func(t *testing.T, b, lit []byte, list bool) {
		if len(lit) == 0 || len(lit) > 8 {
			return
		}
		want := referenceValueEnd(b, lit, list)
		if got := indexValueEnd(b, lit, list); got != want {
			t.Fatalf("indexValueEnd(%q, %q, %v) = %d, want %d", b, lit, list, got, want)
		}
		if got := firstValueEnd(b, lit, list); got >= 0 && got != want {
			t.Fatalf("firstValueEnd(%q, %q, %v) = %d, want %d or -1", b, lit, list, got, want)
		}
		for c := 0; c < 256; c += 37 {
			k, want := indexByteShort(b, byte(c)), bytes.IndexByte(b, byte(c))
			if k != want {
				t.Fatalf("indexByteShort(%q, %q) = %d, want %d", b, byte(c), k, want)
			}
		}
	})
}

// TestInternerTable checks that the interner's table of short values gives
// each value the process-wide Sym through its growth and emptying, and
// that longer values take the map.
func TestInternerTable(t *testing.T) {
	in := newInterner()
	n := maxSymSlots + maxSymSlots/4 // past the point where the table is emptied
	for round := 0; round < 2; round++ {
		for i := 0; i < n; i += 1 + round*7 {
			v := fmt.Sprintf("task-r%d-%06d", i%3, i)
			if got, want := in.sym([]byte(v)), timeline.Intern(v); got != want || got.String() != v {
				t.Fatalf("round %d: sym(%q) = %d (%q), want %d", round, v, got, got.String(), want)
			}
		}
	}
	if len(in.slots) != maxSymSlots || 2*in.used > len(in.slots) {
		t.Errorf("table has %d slots, %d used; want %d slots at most half used", len(in.slots), in.used, maxSymSlots)
	}
	long := bytes.Repeat([]byte("x"), symKeyBytes+1)
	if got, want := in.sym(long), timeline.Intern(string(long)); got != want {
		t.Errorf("sym of %d bytes = %d, want %d", len(long), got, want)
	}
	if got := in.sym(nil); got != timeline.NoSym {
		t.Errorf("sym(nil) = %d, want NoSym", got)
	}
	// The boundary: the longest value the slots hold.
	edge := bytes.Repeat([]byte("y"), symKeyBytes)
	if got, want := in.sym(edge), timeline.Intern(string(edge)); got != want || in.sym(edge) != want {
		t.Errorf("sym of %d bytes = %d, want %d", len(edge), got, want)
	}
}
