package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/analyze"
)

const (
	schemaPath    = "../docs/result.schema.json"
	schemaDocPath = "../docs/result-schema.md"
)

// schemaChecker validates a decoded JSON document against the subset of
// JSON Schema 2020-12 that docs/result.schema.json uses: $ref into $defs,
// type, required, properties, additionalProperties: false, items, minimum,
// pattern and format: date-time.
type schemaChecker struct {
	root     map[string]any
	problems []string
}

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	return s
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func (c *schemaChecker) resolve(node map[string]any) map[string]any {
	ref, ok := node["$ref"].(string)
	if !ok {
		return node
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	defs, _ := c.root["$defs"].(map[string]any)
	target, found := defs[name].(map[string]any)
	if !ok || !found {
		c.fail("$ref", "unresolvable reference %q", ref)
		return map[string]any{}
	}
	return c.resolve(target)
}

func (c *schemaChecker) fail(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func (c *schemaChecker) check(node map[string]any, v any, path string) {
	node = c.resolve(node)
	if typ, ok := node["type"]; ok {
		var allowed []string
		switch tt := typ.(type) {
		case string:
			allowed = []string{tt}
		case []any:
			for _, a := range tt {
				allowed = append(allowed, a.(string))
			}
		}
		got := jsonType(v)
		match := false
		for _, a := range allowed {
			if a == got || (a == "number" && got == "integer") {
				match = true
			}
		}
		if !match {
			c.fail(path, "type %s, want %v", got, allowed)
			return
		}
	}
	if minimum, ok := node["minimum"].(float64); ok {
		if n, isNum := v.(json.Number); isNum {
			if f, _ := n.Float64(); f < minimum {
				c.fail(path, "%v is below minimum %v", f, minimum)
			}
		}
	}
	if s, ok := v.(string); ok {
		if p, ok := node["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(s) {
			c.fail(path, "%q does not match %s", s, p)
		}
		if node["format"] == "date-time" {
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				c.fail(path, "not a date-time: %v", err)
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := node["properties"].(map[string]any)
		if req, ok := node["required"].([]any); ok {
			for _, k := range req {
				if _, present := x[k.(string)]; !present {
					c.fail(path, "missing required key %q", k)
				}
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub, known := props[k].(map[string]any)
			if !known {
				if node["additionalProperties"] == false {
					c.fail(path, "key %q is not in the schema", k)
				}
				continue
			}
			c.check(sub, x[k], path+"."+k)
		}
	case []any:
		if items, ok := node["items"].(map[string]any); ok {
			for i, e := range x {
				c.check(items, e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
}

func validate(t *testing.T, schema map[string]any, doc []byte) []string {
	c := &schemaChecker{root: schema}
	c.check(schema, decodeJSON(t, doc), "$")
	return c.problems
}

func TestGoldenJSONMatchesSchema(t *testing.T) {
	schema := loadSchema(t)
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden JSON files (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range validate(t, schema, b) {
			t.Errorf("%s: %s", filepath.Base(f), p)
		}
	}
	var buf bytes.Buffer
	if err := Render(&buf, hostileResult(), FormatJSON); err != nil {
		t.Fatal(err)
	}
	for _, p := range validate(t, schema, buf.Bytes()) {
		t.Errorf("hostile result: %s", p)
	}
}

// The checker must reject what it claims to check, or the test above
// proves nothing.
func TestSchemaCheckerRejects(t *testing.T) {
	schema := loadSchema(t)
	var buf bytes.Buffer
	if err := Render(&buf, incidentResult(), FormatJSON); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	tests := []struct {
		name, from, to, want string
	}{
		{"missing key", `"schema_version": "` + analyze.SchemaVersion + `",`, ``, `missing required key "schema_version"`},
		{"wrong type", `"lines": 48213`, `"lines": "48213"`, "$.inputs[0].lines: type string, want [integer]"},
		{"float for integer", `"tasks": 10747`, `"tasks": 10747.5`, "$.amplification.tasks: type number"},
		{"nested missing", `"width_s": 14.32,`, ``, `$.waves.waves[0]: missing required key "width_s"`},
		{"unknown key", `"periodic": true,`, `"periodic": true, "colour": "red",`, `key "colour" is not in the schema`},
		{"null array", `"warnings": [`, `"warnings": null, "x": [`, "$.warnings: type null"},
		{"bad time", `"start": "2026-03-14T09:20:00Z"`, `"start": "yesterday"`, "not a date-time"},
		{"below minimum", `"attempts": 46288`, `"attempts": -1`, "below minimum"},
	}
	for _, tt := range tests {
		bad := strings.Replace(good, tt.from, tt.to, 1)
		if bad == good {
			t.Fatalf("%s: %q not found in rendered JSON", tt.name, tt.from)
		}
		var dec any
		if err := json.Unmarshal([]byte(bad), &dec); err != nil {
			t.Fatalf("%s: mutated JSON invalid: %v", tt.name, err)
		}
		problems := strings.Join(validate(t, schema, []byte(bad)), "\n")
		if !strings.Contains(problems, tt.want) {
			t.Errorf("%s: problems %q do not include %q", tt.name, problems, tt.want)
		}
	}
}

// Every field of the Go result model must be in the schema and in the
// prose reference, including fields the fixtures leave empty.
func TestSchemaCoversResultModel(t *testing.T) {
	schema := loadSchema(t)
	doc, err := os.ReadFile(schemaDocPath)
	if err != nil {
		t.Fatal(err)
	}
	c := &schemaChecker{root: schema}
	var walk func(typ reflect.Type, node map[string]any, path string)
	walk = func(typ reflect.Type, node map[string]any, path string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
			if items, ok := c.resolve(node)["items"].(map[string]any); ok {
				node = items
			}
		}
		if typ.Kind() != reflect.Struct || typ == reflect.TypeOf(time.Time{}) {
			return
		}
		props, _ := c.resolve(node)["properties"].(map[string]any)
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			sub, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s.%s (%s.%s) is not in %s", path, name, typ.Name(), f.Name, schemaPath)
				continue
			}
			if !bytes.Contains(doc, []byte("`"+name+"`")) {
				t.Errorf("%s.%s is not described in %s", path, name, schemaDocPath)
			}
			walk(f.Type, sub, path+"."+name)
		}
	}
	walk(reflect.TypeOf(analyze.Result{}), schema, "$")
	if !bytes.Contains(doc, []byte(analyze.SchemaVersion)) {
		t.Errorf("%s does not mention schema version %s", schemaDocPath, analyze.SchemaVersion)
	}
	if !regexp.MustCompile(schema["properties"].(map[string]any)["schema_version"].(map[string]any)["pattern"].(string)).MatchString(analyze.SchemaVersion) {
		t.Errorf("schema_version pattern does not accept %s", analyze.SchemaVersion)
	}
}
