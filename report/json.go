package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/stampede/stampede/analyze"
)

// renderJSON writes r as indented JSON. Lists are always arrays, never
// null, and the schema version is always set, so consumers can rely on the
// shape that docs/result.schema.json describes. encoding/json escapes
// control characters and <, >, & itself.
func renderJSON(w io.Writer, r *analyze.Result) error {
	out := normalized(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&out); err != nil {
		return err
	}
	_, err := w.Write(escapeInvisible(buf.Bytes()))
	return err
}

// escapeInvisible rewrites the characters encoding/json leaves raw but a
// terminal would act on (DEL, C1 controls such as CSI, bidirectional
// overrides) as \u escapes. The decoded strings are unchanged; only
// `jq -r`-style printing of the raw bytes is made harmless. Outside strings
// encoded JSON is ASCII, so every such rune is inside a string.
func escapeInvisible(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidiControl(r) {
			out = fmt.Appendf(out, "\\u%04x", r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// normalized returns a copy of r with nil slices replaced by empty ones and
// the schema version filled in; r itself is left untouched.
func normalized(r *analyze.Result) analyze.Result {
	out := *r
	if out.SchemaVersion == "" {
		out.SchemaVersion = analyze.SchemaVersion
	}
	out.Inputs = nonNil(out.Inputs)
	if len(out.Inputs) > 0 {
		inputs := make([]analyze.Input, len(out.Inputs))
		copy(inputs, out.Inputs)
		for i := range inputs {
			inputs[i].SkippedBy = nonNil(inputs[i].SkippedBy)
		}
		out.Inputs = inputs
	}
	out.Findings = nonNil(out.Findings)
	out.Warnings = nonNil(out.Warnings)
	out.Clocks = nonNil(out.Clocks)
	out.Clients = nonNil(out.Clients)

	rc := &out.Reconcile
	rc.ByClass = nonNil(rc.ByClass)
	rc.Explanation = nonNil(rc.Explanation)

	amp := &out.Amplification
	amp.Layers = nonNil(amp.Layers)
	if len(amp.Layers) > 0 {
		layers := make([]analyze.LayerStats, len(amp.Layers))
		copy(layers, amp.Layers)
		for i := range layers {
			layers[i].Histogram = nonNil(layers[i].Histogram)
		}
		amp.Layers = layers
	}

	wv := &out.Waves
	wv.Waves = nonNil(wv.Waves)
	wv.Delays = nonNil(wv.Delays)
	wv.Suspects = nonNil(wv.Suspects)
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
