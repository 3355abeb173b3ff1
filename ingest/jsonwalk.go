package ingest

// jsonWalk walks documents whose shape is known (OTLP requests, HAR
// archives) member by member, without decoding into maps: the callback of
// each level reads the values it wants and lets the walker skip the rest.
// Depth is bounded by the callers' nesting, and unknown values are skipped
// without recursion, whatever the input.
type jsonWalk struct {
	// dec supplies the JSONL scanner's string and value readers; only its
	// scratch buffer is used.
	dec jsonlParser
}

// reset drops the decoded strings of the previous document.
func (w *jsonWalk) reset() { w.dec.scratch = w.dec.scratch[:0] }

// members walks an object member by member; see jsonlParser.members.
func (w *jsonWalk) members(b []byte, i int, fn func(key []byte, v int) (int, string)) (int, string) {
	return w.dec.members(b, i, fn)
}

// members calls fn for each member of the object at b[i]: the one
// object walk that every nested-JSON reader shares. fn gets the key
// (valid only during the call) and the offset of the value, and returns the
// offset after the value, or 0 to have the walker skip it. members returns
// the offset after the object.
func (d *jsonlParser) members(b []byte, i int, fn func(key []byte, v int) (int, string)) (int, string) {
	if i >= len(b) || b[i] != '{' {
		return 0, jsonErr(i, "expected an object")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, ""
	}
	for {
		if i >= len(b) {
			return 0, jsonErr(i, "unterminated object")
		}
		if b[i] != '"' {
			return 0, jsonErr(i, "expected a key")
		}
		key, j, reason := d.readString(b, i)
		if reason != "" {
			return 0, reason
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return 0, jsonErr(i, "expected ':' after key")
		}
		i = skipSpace(b, i+1)
		j, reason = fn(key, i)
		if reason == "" && j == 0 {
			j, reason = skipValue(b, i)
		}
		if reason != "" {
			return 0, reason
		}
		i = skipSpace(b, j)
		if i >= len(b) {
			return 0, jsonErr(i, "unterminated object")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, ""
		default:
			return 0, jsonErr(i, "expected ',' or '}'")
		}
	}
}

// elements calls fn for each element of the array at b[i], as members does
// for an object's values.
func (w *jsonWalk) elements(b []byte, i int, fn func(v int) (int, string)) (int, string) {
	if i >= len(b) || b[i] != '[' {
		return 0, jsonErr(i, "expected an array")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, ""
	}
	for {
		j, reason := fn(i)
		if reason == "" && j == 0 {
			j, reason = skipValue(b, i)
		}
		if reason != "" {
			return 0, reason
		}
		i = skipSpace(b, j)
		if i >= len(b) {
			return 0, jsonErr(i, "unterminated array")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, ""
		default:
			return 0, jsonErr(i, "expected ',' or ']'")
		}
	}
}

// value reads the scalar at b[i]; a composite value is skipped and has
// kind jsonComposite.
func (w *jsonWalk) value(b []byte, i int) (jsonValue, int, string) {
	return w.dec.readValue(b, i)
}
