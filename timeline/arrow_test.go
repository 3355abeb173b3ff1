package timeline_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/stampede/stampede/timeline"
)

// storage is one on-disk encoding under test.
type storage struct {
	name  string
	ext   string
	write func(io.Writer, *timeline.Timeline) error
	read  func(io.ReaderAt, int64) (*timeline.Timeline, error)
}

var storages = []storage{
	{"ipc", ".arrow", timeline.WriteIPC, timeline.ReadIPC},
	{"parquet", ".parquet", timeline.WriteParquet, timeline.ReadParquet},
}

var t0 = time.Date(2026, 3, 14, 9, 26, 53, 589793238, time.UTC).UnixNano()

func fullEvent() timeline.Event {
	return timeline.Event{
		Start: t0, End: t0 + int64(1500*time.Millisecond),
		Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeThrottled, Class: timeline.ClassBatch,
		Status: 429, Attempt: 2, MaxAttempts: 3, QueueAttempt: 4, Attempts: 3,
		RetryAfter: 84_000,
		ErrorCode:  timeline.Intern("ThrottlingException"), Route: timeline.Intern("/model/invoke"), Client: timeline.Intern("Boto3/1.34.0 botocore/1.34.0"),
		TaskID: timeline.Intern("task-1"), CallID: timeline.Intern("call-1"), RequestID: timeline.Intern("req-1"),
		Source: 1, Line: 42,
	}
}

// manyEvents spans several record batches and exercises every enum value,
// shared and distinct strings, nulls and both retry-after states.
func manyEvents(n int) []timeline.Event {
	evs := make([]timeline.Event, n)
	for i := range evs {
		e := &evs[i]
		e.Start = t0 + int64(i)*int64(time.Millisecond)
		if i%3 != 0 {
			e.End = e.Start + int64(i%1000)*int64(time.Microsecond) + 1
		}
		e.Layer = timeline.Layer(i % 4)
		e.Outcome = timeline.Outcome(i % 5)
		e.Class = timeline.Class(i % 3)
		e.Status = timeline.Small([]int{0, 200, 429, 500, 400}[i%5])
		e.Attempt = timeline.Small(i % 4)
		e.MaxAttempts = timeline.Small(i % 2 * 3)
		e.QueueAttempt = timeline.Small(i % 7)
		e.Attempts = timeline.Small(i % 5)
		e.RetryAfter = timeline.NoRetryAfter
		if i%4 == 1 {
			e.RetryAfter = timeline.Millis(i%90) * 1000
		}
		if i%5 == 2 {
			e.ErrorCode = timeline.Intern("ThrottlingException")
		}
		e.Route = timeline.Intern(fmt.Sprintf("/route/%d", i%13))
		if i%11 == 0 {
			e.Route = timeline.NoSym
		}
		e.Client = timeline.Intern([]string{"", "boto3", "aws-sdk-go-v2"}[i%3])
		e.TaskID = timeline.Intern(fmt.Sprintf("task-%d", i/6))
		e.CallID = timeline.Intern(fmt.Sprintf("call-%d", i/3))
		if i%2 == 0 {
			e.RequestID = timeline.Intern(fmt.Sprintf("req-%08x", i))
		}
		e.Source = int32(i % 2)
		e.Line = int64(i + 1)
	}
	return evs
}

func twoSources() []timeline.Source {
	return []timeline.Source{
		{Path: "logs/access.log", Format: "nginx", Lines: 10, Parsed: 8, Skipped: 2, Events: 8,
			Samples: []timeline.Skip{{Line: 3, Reason: "bad timestamp"}, {Line: 9, Reason: "truncated line"}}},
		{Path: "logs/calls.jsonl", Format: "jsonl", Lines: 5, Parsed: 5, Events: 5},
	}
}

func TestRoundTrip(t *testing.T) {
	absent := timeline.Event{Start: t0, RetryAfter: timeline.NoRetryAfter}
	zeroRetry := absent
	zeroRetry.RetryAfter = 0
	unicode := fullEvent()
	unicode.Route = timeline.Intern("/модель/调用/🚀")
	unicode.Client = timeline.Intern("клиент \"quoted\"\ttab")
	unicode.ErrorCode = timeline.Intern("Ошибка")
	unicode.TaskID = timeline.Intern("задача-１")
	negative := absent
	negative.Start = -int64(time.Hour)

	tests := []struct {
		name string
		tl   timeline.Timeline
	}{
		{"empty", timeline.Timeline{}},
		{"sources without events", timeline.Timeline{Sources: twoSources()}},
		{"full event", timeline.Timeline{Events: []timeline.Event{fullEvent()}, Sources: twoSources()}},
		{"absent values", timeline.Timeline{Events: []timeline.Event{absent}, Sources: twoSources()}},
		{"zero retry-after differs from none", timeline.Timeline{Events: []timeline.Event{absent, zeroRetry}, Sources: twoSources()}},
		{"unicode strings", timeline.Timeline{Events: []timeline.Event{unicode}, Sources: []timeline.Source{
			{Path: "журнал/ログ.log", Format: "nginx"}, {Path: "b.log"}}}},
		{"no sources", timeline.Timeline{Events: []timeline.Event{absent}}},
		{"before epoch", timeline.Timeline{Events: []timeline.Event{negative}, Sources: twoSources()}},
		{"several batches", timeline.Timeline{Events: manyEvents(64*1024*2 + 17), Sources: twoSources()}},
	}
	for _, st := range storages {
		for _, tt := range tests {
			t.Run(st.name+"/"+tt.name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := st.write(&buf, &tt.tl); err != nil {
					t.Fatalf("write: %v", err)
				}
				got, err := st.read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				assertSameTimeline(t, got, &tt.tl)
			})
		}
	}
}

func assertSameTimeline(t *testing.T, got, want *timeline.Timeline) {
	t.Helper()
	if len(got.Events) != len(want.Events) {
		t.Fatalf("got %d events, want %d", len(got.Events), len(want.Events))
	}
	for i := range want.Events {
		if got.Events[i] != want.Events[i] {
			t.Fatalf("event %d:\n got %+v\nwant %+v", i, got.Events[i], want.Events[i])
		}
	}
	if len(got.Sources) != len(want.Sources) || (len(want.Sources) > 0 && !reflect.DeepEqual(got.Sources, want.Sources)) {
		t.Fatalf("sources:\n got %+v\nwant %+v", got.Sources, want.Sources)
	}
}

func TestUnrepresentableValuesReadAsUnknown(t *testing.T) {
	e := fullEvent()
	e.Layer = 200
	e.Source = 7 // no such source
	in := timeline.Timeline{Events: []timeline.Event{e}, Sources: twoSources()}
	for _, st := range storages {
		t.Run(st.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := st.write(&buf, &in); err != nil {
				t.Fatal(err)
			}
			got, err := st.read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			g := got.Events[0]
			if g.Layer != timeline.LayerUnknown {
				t.Errorf("layer = %v, want unknown", g.Layer)
			}
			if int(g.Source) != len(in.Sources) {
				t.Errorf("source = %d, want %d (out of range)", g.Source, len(in.Sources))
			}
			if pos := got.Position(&g); pos != "?:42" {
				t.Errorf("position = %q, want ?:42", pos)
			}
		})
	}
}

func TestWriteFileReadFile(t *testing.T) {
	dir := t.TempDir()
	in := &timeline.Timeline{Events: manyEvents(100), Sources: twoSources()}
	for _, name := range []string{"t.arrow", "t.ipc", "t.feather", "t.parquet", "T.PARQUET"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := timeline.WriteFile(context.Background(), path, in); err != nil {
				t.Fatal(err)
			}
			if !timeline.IsTimelineFile(path) {
				t.Errorf("IsTimelineFile(%s) = false", name)
			}
			got, err := timeline.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			assertSameTimeline(t, got, in)

			// Content, not the name, decides the format.
			renamed := filepath.Join(dir, name+".bin")
			if err := os.Rename(path, renamed); err != nil {
				t.Fatal(err)
			}
			if !timeline.IsTimelineFile(renamed) {
				t.Errorf("IsTimelineFile(%s) = false after rename", renamed)
			}
			got, err = timeline.ReadFile(renamed)
			if err != nil {
				t.Fatal(err)
			}
			assertSameTimeline(t, got, in)
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWriteFileErrorsLeaveNothing(t *testing.T) {
	dir := t.TempDir()
	in := &timeline.Timeline{Events: manyEvents(10)}
	tests := []struct {
		path    string
		wantErr string
	}{
		{filepath.Join(dir, "t.csv"), "unknown timeline extension"},
		{filepath.Join(dir, "missing", "t.arrow"), "no such file or directory"},
	}
	for _, tt := range tests {
		err := timeline.WriteFile(context.Background(), tt.path, in)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("WriteFile(%s) = %v, want error containing %q", tt.path, err, tt.wantErr)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("directory not empty after failed writes: %v", entries)
	}
}

func TestIsTimelineFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		path string
		want bool
	}{
		{write("access.log", `10.0.0.1 - - [14/Mar/2026:09:26:53 +0000] "POST / HTTP/1.1" 429`), false},
		{write("short", "PA"), false},
		{write("empty", ""), false},
		{write("magic-ipc", "ARROW1\x00\x00rest"), true},
		{write("magic-parquet", "PAR1rest"), true},
		{filepath.Join(dir, "absent.parquet"), true},
		{filepath.Join(dir, "absent.log"), false},
	}
	for _, tt := range tests {
		if got := timeline.IsTimelineFile(tt.path); got != tt.want {
			t.Errorf("IsTimelineFile(%s) = %v, want %v", filepath.Base(tt.path), got, tt.want)
		}
	}
}

// foreignIPC is a valid Arrow file that is not a timeline.
func foreignIPC(t testing.TB, md map[string]string) []byte {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, func() *arrow.Metadata {
		m := arrow.MetadataFrom(md)
		return &m
	}())
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	rec := array.NewRecord(schema, []arrow.Array{col}, 3)
	var buf seekBuffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.b
}

type seekBuffer struct{ b []byte }

func (s *seekBuffer) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }
func (s *seekBuffer) Seek(int64, int) (int64, error) {
	return int64(len(s.b)), nil
}

func encoded(t testing.TB, st storage, tl *timeline.Timeline) []byte {
	var buf bytes.Buffer
	if err := st.write(&buf, tl); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCorruptFiles(t *testing.T) {
	tl := &timeline.Timeline{Events: manyEvents(500), Sources: twoSources()}
	for _, st := range storages {
		valid := encoded(t, st, tl)
		flipped := bytes.Clone(valid)
		for i := len(flipped) / 4; i < len(flipped)*3/4; i += 7 {
			flipped[i] ^= 0xA5
		}
		tests := []struct {
			name    string
			data    []byte
			wantErr string
		}{
			{"empty", nil, ""},
			{"magic only", valid[:6], ""},
			{"truncated", valid[:len(valid)/2], ""},
			{"tail cut", valid[:len(valid)-3], ""},
			{"bytes flipped", flipped, ""},
			{"text", []byte(strings.Repeat("not a timeline\n", 20)), ""},
		}
		if st.name == "ipc" {
			tests = append(tests,
				struct {
					name    string
					data    []byte
					wantErr string
				}{"foreign arrow file", foreignIPC(t, nil), "not a stampede timeline"},
				struct {
					name    string
					data    []byte
					wantErr string
				}{"future version", foreignIPC(t, map[string]string{"stampede.timeline_version": "9.0"}), `version "9.0" is not supported`},
				struct {
					name    string
					data    []byte
					wantErr string
				}{"missing columns", foreignIPC(t, map[string]string{"stampede.timeline_version": "1.0"}), `missing column "start"`},
			)
		}
		for _, tt := range tests {
			t.Run(st.name+"/"+tt.name, func(t *testing.T) {
				got, err := st.read(bytes.NewReader(tt.data), int64(len(tt.data)))
				if err == nil {
					// Flipped bytes may land only in values; then the read
					// must still be structurally sound.
					if tt.name == "bytes flipped" && got != nil {
						return
					}
					t.Fatalf("read succeeded on %s", tt.name)
				}
				if !strings.Contains(err.Error(), "timeline") {
					t.Errorf("error %q does not say what was being read", err)
				}
				if tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q, want it to contain %q", err, tt.wantErr)
				}
			})
		}
	}
}

// TestCorruptFooterSweep overwrites each word of the file's tail, where
// both formats keep their metadata, with a huge value: lengths and offsets
// that Arrow and Parquet would otherwise trust to size allocations.
func TestCorruptFooterSweep(t *testing.T) {
	tl := &timeline.Timeline{Events: manyEvents(30), Sources: twoSources()}
	for _, st := range storages {
		valid := encoded(t, st, tl)
		from := max(0, len(valid)-3000)
		failures := 0
		for i := from; i+4 <= len(valid); i += 4 {
			b := bytes.Clone(valid)
			copy(b[i:], []byte{0xf0, 0xff, 0xff, 0x7f})
			if _, err := st.read(bytes.NewReader(b), int64(len(b))); err != nil {
				failures++
			}
		}
		if failures == 0 {
			t.Errorf("%s: no corruption of the last 3000 bytes was detected", st.name)
		}
	}
}

func TestReadFileNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.arrow")
	if err := os.WriteFile(path, []byte("ARROW1\x00\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := timeline.ReadFile(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("ReadFile error %v does not name %s", err, path)
	}
	notTimeline := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(notTimeline, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := timeline.ReadFile(notTimeline); err == nil || !strings.Contains(err.Error(), "not an Arrow IPC or Parquet timeline") {
		t.Fatalf("ReadFile(access.log) = %v", err)
	}
}

func fuzzSeeds(f *testing.F, st storage) {
	small := &timeline.Timeline{Events: manyEvents(20), Sources: twoSources()}
	for _, tl := range []*timeline.Timeline{{}, small} {
		b := encoded(f, st, tl)
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(b[:len(b)-1])
	}
	f.Add([]byte("ARROW1"))
	f.Add([]byte("PAR1PAR1"))
}

func fuzzRead(st storage) func(*testing.T, []byte) {
	return func(t *testing.T, data []byte) {
		tl, err := st.read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		// Whatever decodes must be re-encodable.
		var buf bytes.Buffer
		if err := st.write(&buf, tl); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
	}
}

func FuzzReadIPC(f *testing.F) {
	fuzzSeeds(f, storages[0])
	f.Add(foreignIPC(f, map[string]string{"stampede.timeline_version": "1.0"}))
	f.Fuzz(fuzzRead(storages[0]))
}

func FuzzReadParquet(f *testing.F) {
	fuzzSeeds(f, storages[1])
	f.Fuzz(fuzzRead(storages[1]))
}

// BenchmarkRoundTrip writes and reads one million events, the size of a
// few hundred MB of access logs.
func BenchmarkRoundTrip(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("STAMPEDE_BENCH_EVENTS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	tl := &timeline.Timeline{Events: manyEvents(n), Sources: twoSources()}
	for _, st := range storages {
		b.Run(st.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				var buf bytes.Buffer
				if err := st.write(&buf, tl); err != nil {
					b.Fatal(err)
				}
				size = buf.Len()
				if _, err := st.read(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tl.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(size)/float64(len(tl.Events)), "bytes/event")
		})
	}
}

// TestIPCSchemaForOtherTools pins what DuckDB, pandas or polars see: typed
// timestamps, text enums, and the accounting in the schema metadata.
func TestIPCSchemaForOtherTools(t *testing.T) {
	b := encoded(t, storages[0], &timeline.Timeline{Events: manyEvents(3), Sources: twoSources()})
	r, err := ipc.NewFileReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	schema := r.Schema()
	wantTypes := map[string]string{
		"start":          "timestamp[ns, tz=UTC]",
		"end":            "timestamp[ns, tz=UTC]",
		"layer":          "dictionary<values=utf8, indices=int8, ordered=false>",
		"status":         "int32",
		"retry_after_ns": "int64",
		"route":          "dictionary<values=utf8, indices=int32, ordered=false>",
		"task_id":        "utf8",
		"source":         "dictionary<values=utf8, indices=int32, ordered=false>",
		"line":           "int64",
	}
	for name, want := range wantTypes {
		idx := schema.FieldIndices(name)
		if len(idx) != 1 {
			t.Errorf("no column %q", name)
			continue
		}
		if got := schema.Field(idx[0]).Type.String(); got != want {
			t.Errorf("column %q has type %s, want %s", name, got, want)
		}
	}
	md := schema.Metadata()
	if v, _ := md.GetValue("stampede.timeline_version"); v != timeline.FileVersion {
		t.Errorf("timeline_version = %q", v)
	}
	if v, _ := md.GetValue("stampede.sources"); !strings.Contains(v, `"path":"logs/access.log"`) || !strings.Contains(v, `"reason":"bad timestamp"`) {
		t.Errorf("sources metadata = %s", v)
	}
	rec, err := r.Record(0)
	if err != nil {
		t.Fatal(err)
	}
	layer := rec.Column(schema.FieldIndices("layer")[0]).(*array.Dictionary)
	if got := layer.Dictionary().(*array.String).Value(layer.GetValueIndex(1)); got != "attempt" {
		t.Errorf("layer of row 1 reads %q, want attempt", got)
	}
}

// TestReadRewrittenFile reads a file in the shape another tool leaves after
// rewriting a timeline: plain strings instead of dictionaries, wider
// integers, microsecond timestamps, extra columns.
func TestReadRewrittenFile(t *testing.T) {
	mem := memory.DefaultAllocator
	md := arrow.MetadataFrom(map[string]string{
		"stampede.timeline_version": "1.3",
		"stampede.sources":          `[{"path":"a.log","format":"nginx","lines":2,"parsed":2,"events":2}]`,
	})
	us := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	fields := []arrow.Field{
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "start", Type: us}, {Name: "end", Type: us, Nullable: true},
		{Name: "layer", Type: arrow.BinaryTypes.LargeString}, {Name: "outcome", Type: arrow.BinaryTypes.String},
		{Name: "class", Type: arrow.BinaryTypes.String},
		{Name: "status", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "attempt", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "max_attempts", Type: arrow.PrimitiveTypes.Int8, Nullable: true}, {Name: "queue_attempt", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "attempts", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "retry_after_ns", Type: arrow.FixedWidthTypes.Duration_ms, Nullable: true},
		{Name: "error_code", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "route", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "client", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "task_id", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "call_id", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "request_id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "source", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "line", Type: arrow.PrimitiveTypes.Int64},
	}
	schema := arrow.NewSchema(fields, &md)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"x", "y"}, nil)
	b.Field(1).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1_700_000_000_000_000, 1_700_000_001_000_000}, nil)
	b.Field(2).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1_700_000_000_500_000, 0}, []bool{true, false})
	b.Field(3).(*array.LargeStringBuilder).AppendValues([]string{"attempt", "call"}, nil)
	b.Field(4).(*array.StringBuilder).AppendValues([]string{"throttled", "ok"}, nil)
	b.Field(5).(*array.StringBuilder).AppendValues([]string{"Batch", "bogus"}, nil)
	b.Field(6).(*array.Int64Builder).AppendValues([]int64{429, 0}, []bool{true, false})
	b.Field(7).(*array.Int16Builder).AppendValues([]int16{2, 0}, []bool{true, false})
	b.Field(8).(*array.Int8Builder).AppendValues([]int8{3, 0}, []bool{true, false})
	b.Field(9).(*array.Int32Builder).AppendValues([]int32{0, 0}, []bool{false, false})
	b.Field(10).(*array.Int32Builder).AppendValues([]int32{0, 3}, []bool{false, true})
	b.Field(11).(*array.DurationBuilder).AppendValues([]arrow.Duration{12_000, 0}, []bool{true, false})
	b.Field(12).(*array.StringBuilder).AppendValues([]string{"ThrottlingException", ""}, []bool{true, false})
	b.Field(13).(*array.StringBuilder).AppendValues([]string{"/invoke", "/invoke"}, nil)
	b.Field(14).(*array.StringBuilder).AppendValues([]string{"", ""}, []bool{false, false})
	b.Field(15).(*array.LargeStringBuilder).AppendValues([]string{"t1", "t1"}, nil)
	b.Field(16).(*array.StringBuilder).AppendValues([]string{"c1", "c1"}, nil)
	b.Field(17).(*array.StringBuilder).AppendValues([]string{"r1", ""}, []bool{true, false})
	b.Field(18).(*array.StringBuilder).AppendValues([]string{"a.log", "elsewhere.log"}, nil)
	b.Field(19).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	var buf seekBuffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	got, err := timeline.ReadIPC(bytes.NewReader(buf.b), int64(len(buf.b)))
	if err != nil {
		t.Fatal(err)
	}
	want := []timeline.Event{
		{Start: 1_700_000_000_000_000_000, End: 1_700_000_000_500_000_000, Layer: timeline.LayerHTTP, Outcome: timeline.OutcomeThrottled,
			Class: timeline.ClassBatch, Status: 429, Attempt: 2, MaxAttempts: 3, RetryAfter: timeline.MillisOf(12 * time.Second),
			ErrorCode: timeline.Intern("ThrottlingException"), Route: timeline.Intern("/invoke"), TaskID: timeline.Intern("t1"), CallID: timeline.Intern("c1"), RequestID: timeline.Intern("r1"), Source: 0, Line: 1},
		{Start: 1_700_000_001_000_000_000, Layer: timeline.LayerCall, Outcome: timeline.OutcomeOK, Attempts: 3,
			RetryAfter: timeline.NoRetryAfter, Route: timeline.Intern("/invoke"), TaskID: timeline.Intern("t1"), CallID: timeline.Intern("c1"), Source: 1, Line: 2},
	}
	if !reflect.DeepEqual(got.Events, want) {
		t.Errorf("events:\n got %+v\nwant %+v", got.Events, want)
	}
	// A path the metadata does not list still names its events.
	if len(got.Sources) != 2 || got.Sources[1].Path != "elsewhere.log" {
		t.Errorf("sources = %+v", got.Sources)
	}
}

// failingSink takes n bytes, then fails every write.
type failingSink struct{ n int }

var errSinkFull = errors.New("sink full")

func (f *failingSink) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errSinkFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriteFailsMidway makes the sink fail at points through the file, in
// the first batch, between batches and in the footer: each write returns
// the sink's error. The Parquet writer panics on some of these inside the
// Arrow library; the panic must not escape as a crash.
func TestWriteFailsMidway(t *testing.T) {
	in := &timeline.Timeline{Events: manyEvents(200_000), Sources: twoSources()}
	for _, st := range storages {
		var full bytes.Buffer
		must(t, st.write(&full, in))
		for _, frac := range []float64{0, 0.001, 0.2, 0.45, 0.7, 0.95, 0.9999} {
			at := int(frac * float64(full.Len()))
			t.Run(fmt.Sprintf("%s/after %d of %d bytes", st.name, at, full.Len()), func(t *testing.T) {
				err := st.write(&failingSink{n: at}, in)
				if !errors.Is(err, errSinkFull) {
					t.Errorf("write = %v, want the sink's error", err)
				}
			})
		}
	}
}

// TestWriteFileStopped stops the context while each format is written, at
// points through the file: WriteFile returns the context's cause and leaves
// neither the file nor its temporary.
func TestWriteFileStopped(t *testing.T) {
	in := &timeline.Timeline{Events: manyEvents(200_000), Sources: twoSources()}
	stop := errors.New("stopped for the test")
	for _, st := range storages {
		for _, after := range []time.Duration{0, time.Millisecond, 20 * time.Millisecond, 80 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/after %v", st.name, after), func(t *testing.T) {
				dir := t.TempDir()
				ctx, cancel := context.WithCancelCause(context.Background())
				stopAt := time.AfterFunc(after, func() { cancel(stop) })
				defer stopAt.Stop()
				err := timeline.WriteFile(ctx, filepath.Join(dir, "t"+st.ext), in)
				if err == nil {
					// Finished before the stop: a whole file is fine too.
					t.Skipf("written before %v", after)
				}
				if !errors.Is(err, stop) {
					t.Errorf("WriteFile = %v, want the context's cause", err)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("left %d files", len(entries))
				}
			})
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
