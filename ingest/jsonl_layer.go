package ingest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stampede/stampede/timeline"
)

// A JSON-lines file is read as SDK calls unless its records say otherwise
// ("layer"). Many are not call logs but a proxy's access log in JSON
// (nginx escape=json, a gateway's JSON template): one record per request
// on the wire. Options.Layer sets the layer of a file's records; without
// it, a sample whose records look like an access log is read as attempts,
// with a note saying how to undo the guess.

// Keys that make a record access-log shaped: a status, the request and a
// time. callKeys are what only a call log writes; one of them keeps the
// default.
var (
	accessStatusKeys  = []string{"status", "status_code", "http_status", "http_code", "response_code"}
	accessRequestKeys = []string{"request", "request_uri", "uri", "path", "url", "request_method", "method"}
	accessTimeKeys    = []string{"time_local", "time_iso8601", "msec", "ts_start", "start_time", "start", "timestamp", "ts", "time", "@timestamp", "t_start"}
	callKeys          = []string{"layer", "outcome", "result", "attempts", "http_attempts", "sdk_retry_count", "retries", "queue_attempt"}
)

// accessShaped reports whether at least half of the sample's records are
// access-log shaped.
func accessShaped(sample []sampledLine) bool {
	shaped := 0
	for _, l := range sample {
		var m map[string]json.RawMessage
		if json.Unmarshal(l.text, &m) != nil {
			continue
		}
		has := func(keys []string) bool {
			for _, k := range keys {
				if _, ok := m[k]; ok {
					return true
				}
			}
			return false
		}
		if has(accessStatusKeys) && has(accessRequestKeys) && has(accessTimeKeys) && !has(callKeys) {
			shaped++
		}
	}
	return len(sample) > 0 && shaped*2 >= len(sample)
}

// parseLayerOption reads Options.Layer: "", "attempt" or "call".
func parseLayerOption(s string) (timeline.Layer, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return timeline.LayerUnknown, nil
	case "attempt", "http":
		return timeline.LayerHTTP, nil
	case "call":
		return timeline.LayerCall, nil
	}
	return timeline.LayerUnknown, fmt.Errorf("layer %q: want attempt or call", s)
}

// newJSONLParserFor builds the JSON-lines parser for a file: the layer
// from Options.Layer, else from the sample's shape.
func newJSONLParserFor(sample []sampledLine, opt Options, strs *interner) (*jsonlParser, error) {
	layer, err := parseLayerOption(opt.Layer)
	if err != nil {
		return nil, err
	}
	p, err := newJSONLParser(opt.Fields, strs)
	if err != nil {
		return nil, err
	}
	switch {
	case layer != timeline.LayerUnknown:
		p.layer = layer
	case accessShaped(sample):
		p.layer = timeline.LayerHTTP
		p.notes = []string{"records have a status, the request and a time but no call fields, as an access log in JSON writes them: read as HTTP attempts; if they are SDK calls, pass --layer FILE=call"}
	}
	return p, nil
}

func (p *jsonlParser) detectionNotes() []string { return p.notes }
