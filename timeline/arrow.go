package timeline

// Columnar storage of a Timeline as Arrow IPC or Parquet, so that a parsed
// incident can be kept, re-analysed without re-reading gigabytes of logs, and
// opened in other tools (DuckDB, pandas, polars). Arrow types stay inside this
// file: callers see only Timeline, io and paths.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"

	"github.com/stampede/stampede/internal/safefile"
)

// FileVersion is written to the "stampede.timeline_version" schema metadata
// key. Readers accept files whose major version matches.
const FileVersion = "1.0"

const (
	metaVersionKey = "stampede.timeline_version"
	metaSourcesKey = "stampede.sources"
	// metaEventsKey records the row count so readers allocate once.
	metaEventsKey = "stampede.events"
	// batchRows bounds the rows converted per record batch (and per Parquet
	// row group), so memory stays flat whatever the timeline's size.
	batchRows = 64 * 1024
)

// ErrCorrupt reports a timeline file whose structure cannot be decoded.
var ErrCorrupt = errors.New("corrupt timeline file")

// Column indexes, in schema order. Zero values of Event ("the log did not
// say") are written as nulls so other tools read them as missing.
const (
	colStart = iota
	colEnd
	colLayer
	colOutcome
	colClass
	colStatus
	colAttempt
	colMaxAttempts
	colQueueAttempt
	colAttempts
	colRetryAfter
	colErrorCode
	colRoute
	colClient
	colTaskID
	colCallID
	colRequestID
	colSource
	colLine
	numColumns
)

var (
	timestampNS = &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	// Enumerations are dictionaries over their fixed name lists, so the index
	// is the Go value and the file still reads as text elsewhere.
	enumType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	// Low-cardinality log strings share one dictionary across all batches:
	// the IPC file format allows only one dictionary per field.
	dictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
)

var columnFields = [numColumns]arrow.Field{
	colStart:        {Name: "start", Type: timestampNS},
	colEnd:          {Name: "end", Type: timestampNS, Nullable: true},
	colLayer:        {Name: "layer", Type: enumType},
	colOutcome:      {Name: "outcome", Type: enumType},
	colClass:        {Name: "class", Type: enumType},
	colStatus:       {Name: "status", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	colAttempt:      {Name: "attempt", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	colMaxAttempts:  {Name: "max_attempts", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	colQueueAttempt: {Name: "queue_attempt", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	colAttempts:     {Name: "attempts", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	// Int64 nanoseconds rather than duration[ns]: Parquet has no duration
	// type, and one schema for both formats keeps queries portable.
	colRetryAfter: {Name: "retry_after_ns", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	colErrorCode:  {Name: "error_code", Type: dictType, Nullable: true},
	colRoute:      {Name: "route", Type: dictType, Nullable: true},
	colClient:     {Name: "client", Type: dictType, Nullable: true},
	colTaskID:     {Name: "task_id", Type: arrow.BinaryTypes.String, Nullable: true},
	colCallID:     {Name: "call_id", Type: arrow.BinaryTypes.String, Nullable: true},
	colRequestID:  {Name: "request_id", Type: arrow.BinaryTypes.String, Nullable: true},
	colSource:     {Name: "source", Type: dictType, Nullable: true},
	colLine:       {Name: "line", Type: arrow.PrimitiveTypes.Int64},
}

// WriteIPC writes t as an Arrow IPC file (random access, also readable as
// Feather v2).
func WriteIPC(w io.Writer, t *Timeline) error {
	return writeIPC(context.Background(), w, t)
}

func writeIPC(ctx context.Context, w io.Writer, t *Timeline) (err error) {
	sink := &sinkWriter{w: w}
	defer sink.check("write arrow timeline", &err)
	w = sink
	enc, err := newEncoder(ctx, t)
	if err != nil {
		return err
	}
	defer enc.release()
	fw, err := ipc.NewFileWriter(&positionWriter{w: w}, ipc.WithSchema(enc.schema), ipc.WithAllocator(enc.mem))
	if err != nil {
		return fmt.Errorf("write arrow timeline: %w", err)
	}
	err = enc.eachBatch(ctx, fw.Write)
	if cerr := fw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write arrow timeline: %w", err)
	}
	return nil
}

// sinkWriter keeps the first error of the writer the Arrow libraries write
// to, which is what went wrong when they fail: when it fails in the middle
// of a row group (a full disk, a stopped run) the Parquet writer can panic
// on the page it was flushing, and when it fails in the footer the Parquet
// writer returns no error at all.
type sinkWriter struct {
	w   io.Writer
	err error
}

func (s *sinkWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// check, deferred, makes a failed sink the write's error, a panic after
// the failure included; any other panic is a bug and goes on.
func (s *sinkWriter) check(op string, err *error) {
	if s.err == nil {
		return
	}
	if r := recover(); r != nil || *err == nil {
		*err = fmt.Errorf("%s: %w", op, s.err)
	}
}

// positionWriter lets the IPC writer, which only ever asks for its current
// offset, write to any io.Writer (a pipe, stdout, a network stream).
type positionWriter struct {
	w   io.Writer
	pos int64
}

func (p *positionWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.pos += int64(n)
	return n, err
}

func (p *positionWriter) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekCurrent {
		return p.pos, errors.New("timeline: output is not seekable")
	}
	return p.pos, nil
}

// WriteParquet writes t as a Parquet file, one row group per batch, with the
// Arrow schema stored so that dictionary and timestamp types round-trip.
func WriteParquet(w io.Writer, t *Timeline) error {
	return writeParquet(context.Background(), w, t)
}

func writeParquet(ctx context.Context, w io.Writer, t *Timeline) (err error) {
	sink := &sinkWriter{w: w}
	defer sink.check("write parquet timeline", &err)
	w = sink
	enc, err := newEncoder(ctx, t)
	if err != nil {
		return err
	}
	defer enc.release()
	props := parquet.NewWriterProperties(
		parquet.WithAllocator(enc.mem),
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(batchRows),
		parquet.WithCreatedBy("stampede"),
	)
	arrowProps := pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(enc.mem))
	// The Parquet writer closes its sink if it can; hiding Close leaves
	// that to the caller, who owns w.
	fw, err := pqarrow.NewFileWriter(enc.schema, struct{ io.Writer }{w}, props, arrowProps)
	if err != nil {
		return fmt.Errorf("write parquet timeline: %w", err)
	}
	err = enc.eachBatch(ctx, fw.Write)
	if cerr := fw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write parquet timeline: %w", err)
	}
	return nil
}

// ReadIPC reads an Arrow IPC file of the given size written by WriteIPC.
func ReadIPC(r io.ReaderAt, size int64) (t *Timeline, err error) {
	defer wrapReadErr("read arrow timeline", &err)
	mem := boundedAllocator{limit: allocLimit(size)}
	// Arrow's IPC reader trusts offsets and lengths in the file and panics on
	// inconsistent ones (index out of range, "buffer index out of bound")
	// instead of returning errors; a truncated or foreign file must give an
	// error, so those panics become ErrCorrupt here.
	defer recoverCorrupt(&err)
	if err := checkIPCFooter(r, size); err != nil {
		return nil, err
	}
	fr, err := ipc.NewFileReader(io.NewSectionReader(r, 0, size), ipc.WithAllocator(mem))
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	dec, err := newDecoder(fr.Schema(), size)
	if err != nil {
		return nil, err
	}
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.Record(i)
		if err != nil {
			return nil, err
		}
		if err := dec.add(rec); err != nil {
			return nil, err
		}
	}
	return dec.timeline(), nil
}

// ReadParquet reads a Parquet file of the given size written by WriteParquet.
func ReadParquet(r io.ReaderAt, size int64) (t *Timeline, err error) {
	defer wrapReadErr("read parquet timeline", &err)
	mem := boundedAllocator{limit: allocLimit(size)}
	// As in ReadIPC: the Parquet decoder panics on some inconsistent
	// metadata rather than returning an error.
	defer recoverCorrupt(&err)
	props := parquet.NewReaderProperties(mem)
	// Streaming column chunks through a fixed buffer, instead of reading
	// each whole chunk into a slice sized from the file's metadata, keeps a
	// corrupt chunk length from allocating gigabytes.
	props.BufferedStreamEnabled = true
	props.BufferSize = 1 << 20
	pf, err := file.NewParquetReader(io.NewSectionReader(r, 0, size), file.WithReadProps(props))
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	if kv := pf.MetaData().KeyValueMetadata(); kv != nil {
		if stored := kv.FindValue("ARROW:schema"); stored != nil {
			if err := checkStoredArrowSchema(*stored); err != nil {
				return nil, err
			}
		}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batchRows}, mem)
	if err != nil {
		return nil, err
	}
	schema, err := fr.Schema()
	if err != nil {
		return nil, err
	}
	dec, err := newDecoder(schema, size)
	if err != nil {
		return nil, err
	}
	// Columns are read one by one through ColumnReader rather than with
	// GetRecordReader, whose column setup runs on other goroutines: a panic
	// there on a corrupt file could not be recovered and would end the
	// process.
	var readers [numColumns]*pqarrow.ColumnReader
	for c := range readers {
		if readers[c], err = fr.GetColumn(context.Background(), dec.cols[c]); err != nil {
			return nil, fmt.Errorf("column %q: %w", columnFields[c].Name, err)
		}
	}
	for {
		var cols [numColumns][]arrow.Array
		var chunked [numColumns]*arrow.Chunked
		rows := -1
		for c := range readers {
			ch, err := readers[c].NextBatch(batchRows)
			if err != nil {
				releaseChunked(chunked[:c])
				return nil, fmt.Errorf("column %q: %w", columnFields[c].Name, err)
			}
			chunked[c], cols[c] = ch, ch.Chunks()
			if rows < 0 {
				rows = ch.Len()
			} else if ch.Len() != rows {
				releaseChunked(chunked[:c+1])
				return nil, fmt.Errorf("%w: column %q has %d rows where %q has %d", ErrCorrupt, columnFields[c].Name, ch.Len(), columnFields[0].Name, rows)
			}
		}
		if rows == 0 {
			releaseChunked(chunked[:])
			break
		}
		err := dec.addColumns(&cols, rows)
		releaseChunked(chunked[:])
		if err != nil {
			return nil, err
		}
	}
	return dec.timeline(), nil
}

func releaseChunked(cs []*arrow.Chunked) {
	for _, c := range cs {
		if c != nil {
			c.Release()
		}
	}
}

// storageFormat is how a timeline file is encoded.
type storageFormat int

const (
	formatNone storageFormat = iota
	formatIPC
	formatParquet
)

var (
	ipcMagic     = []byte("ARROW1")
	parquetMagic = []byte("PAR1")
)

func formatByExtension(path string) storageFormat {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".arrow", ".ipc", ".feather":
		return formatIPC
	case ".parquet", ".pq":
		return formatParquet
	}
	return formatNone
}

func formatByMagic(prefix []byte) storageFormat {
	switch {
	case bytes.HasPrefix(prefix, ipcMagic):
		return formatIPC
	case bytes.HasPrefix(prefix, parquetMagic):
		return formatParquet
	}
	return formatNone
}

// WriteFile writes t to path, as Arrow IPC for .arrow, .ipc and .feather
// and as Parquet for .parquet and .pq. It writes a temporary file in the same
// directory and renames it, so path never holds partial output. Once ctx is
// done it stops within a batch, removes the temporary file and returns
// ctx's cause.
func WriteFile(ctx context.Context, path string, t *Timeline) (err error) {
	var write func(context.Context, io.Writer, *Timeline) error
	switch formatByExtension(path) {
	case formatIPC:
		write = writeIPC
	case formatParquet:
		write = writeParquet
	default:
		return fmt.Errorf("write %s: unknown timeline extension %q (want .arrow, .ipc, .feather or .parquet)", path, filepath.Ext(path))
	}
	if err := safefile.Write(ctx, path, 0o666, func(w io.Writer) error { return write(ctx, w, t) }); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadFile reads a timeline written by WriteFile. The content's magic bytes
// decide the format; the extension is only a fallback.
func ReadFile(path string) (*Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	prefix := make([]byte, len(ipcMagic))
	n, _ := io.ReadFull(f, prefix)
	format := formatByMagic(prefix[:n])
	if format == formatNone {
		format = formatByExtension(path)
	}
	var t *Timeline
	switch format {
	case formatIPC:
		t, err = ReadIPC(f, st.Size())
	case formatParquet:
		t, err = ReadParquet(f, st.Size())
	default:
		return nil, fmt.Errorf("read %s: not an Arrow IPC or Parquet timeline", path)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return t, nil
}

// IsTimelineFile reports whether path names a stored timeline rather than a
// log: by extension, else by the file's magic bytes.
func IsTimelineFile(path string) bool {
	if formatByExtension(path) != formatNone {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	prefix := make([]byte, len(ipcMagic))
	n, _ := io.ReadFull(f, prefix)
	return formatByMagic(prefix[:n]) != formatNone
}

// encoder turns Events into record batches. The dictionaries are built once
// over the whole timeline and shared by every batch.
type encoder struct {
	t      *Timeline
	mem    memory.Allocator
	schema *arrow.Schema

	layerDict, outcomeDict, classDict arrow.Array
	codes, routes, clients            symMemo
	paths                             stringMemo
}

// symMemo assigns dictionary indexes to distinct Syms other than NoSym, in
// order of first appearance, as stringMemo does to strings; keying by Sym
// spares hashing every row's string.
type symMemo struct {
	index map[Sym]int32
	dict  arrow.Array
}

func (m *symMemo) add(values []string, s Sym) []string {
	if s == NoSym {
		return values
	}
	if _, ok := m.index[s]; !ok {
		m.index[s] = int32(len(values))
		values = append(values, s.String())
	}
	return values
}

// stringMemo assigns dictionary indexes to distinct non-empty strings.
type stringMemo struct {
	index map[string]int32
	dict  arrow.Array
}

// checkEvery is how many events the encoder converts between two looks at
// its context: a few milliseconds' work.
const checkEvery = 1 << 16

func newEncoder(ctx context.Context, t *Timeline) (*encoder, error) {
	sources, err := json.Marshal(t.Sources)
	if err != nil {
		return nil, fmt.Errorf("encode sources: %w", err)
	}
	md := arrow.NewMetadata(
		[]string{metaVersionKey, metaSourcesKey, metaEventsKey},
		[]string{FileVersion, string(sources), strconv.Itoa(len(t.Events))},
	)
	mem := memory.DefaultAllocator
	e := &encoder{
		t:           t,
		mem:         mem,
		schema:      arrow.NewSchema(columnFields[:], &md),
		layerDict:   stringArray(mem, layerNames[:]),
		outcomeDict: stringArray(mem, outcomeNames[:]),
		classDict:   stringArray(mem, classNames[:]),
	}
	var codes, routes, clients, paths []string
	e.codes.index = map[Sym]int32{}
	e.routes.index = map[Sym]int32{}
	e.clients.index = map[Sym]int32{}
	e.paths.index = map[string]int32{}
	for i := range t.Events {
		if i%checkEvery == 0 && ctx.Err() != nil {
			e.release()
			return nil, context.Cause(ctx)
		}
		ev := &t.Events[i]
		codes = e.codes.add(codes, ev.ErrorCode)
		routes = e.routes.add(routes, ev.Route)
		clients = e.clients.add(clients, ev.Client)
	}
	for i := range t.Sources {
		paths = e.paths.add(paths, t.Sources[i].Path)
	}
	e.codes.dict = stringArray(mem, codes)
	e.routes.dict = stringArray(mem, routes)
	e.clients.dict = stringArray(mem, clients)
	e.paths.dict = stringArray(mem, paths)
	return e, nil
}

func (m *stringMemo) add(values []string, s string) []string {
	if s == "" {
		return values
	}
	if _, ok := m.index[s]; !ok {
		m.index[s] = int32(len(values))
		values = append(values, s)
	}
	return values
}

func (e *encoder) release() {
	for _, a := range []arrow.Array{e.layerDict, e.outcomeDict, e.classDict, e.codes.dict, e.routes.dict, e.clients.dict, e.paths.dict} {
		// An encoder stopped while it was being built has only some.
		if a != nil {
			a.Release()
		}
	}
}

func stringArray(mem memory.Allocator, values []string) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(values, nil)
	return b.NewArray()
}

// eachBatch converts the timeline batchRows events at a time and hands each
// record to write; the record is released after write returns. It stops
// with ctx's cause between two batches.
func (e *encoder) eachBatch(ctx context.Context, write func(arrow.Record) error) error {
	mem := e.mem
	var (
		starts  = array.NewTimestampBuilder(mem, timestampNS)
		ends    = array.NewTimestampBuilder(mem, timestampNS)
		enums   [3]*array.Int8Builder
		ints    [5]*array.Int32Builder
		retry   = array.NewInt64Builder(mem)
		dicts   [4]*array.Int32Builder
		ids     [3]*array.StringBuilder
		lines   = array.NewInt64Builder(mem)
		release = []interface{ Release() }{starts, ends, retry, lines}
	)
	for i := range enums {
		enums[i] = array.NewInt8Builder(mem)
		release = append(release, enums[i])
	}
	for i := range ints {
		ints[i] = array.NewInt32Builder(mem)
		release = append(release, ints[i])
	}
	for i := range dicts {
		dicts[i] = array.NewInt32Builder(mem)
		release = append(release, dicts[i])
	}
	for i := range ids {
		ids[i] = array.NewStringBuilder(mem)
		release = append(release, ids[i])
	}
	defer func() {
		for _, b := range release {
			b.Release()
		}
	}()

	appendInt := func(b *array.Int32Builder, v int32) {
		if v == 0 {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	appendEnum := func(b *array.Int8Builder, v uint8, n int) {
		if int(v) >= n {
			v = 0 // "unknown", as String() renders it
		}
		b.Append(int8(v))
	}
	appendSym := func(b *array.Int32Builder, m *symMemo, s Sym) {
		if s == NoSym {
			b.AppendNull()
		} else {
			b.Append(m.index[s])
		}
	}
	appendID := func(b *array.StringBuilder, s string) {
		if s == "" {
			b.AppendNull()
		} else {
			b.Append(s)
		}
	}

	events := e.t.Events
	for lo := 0; lo < len(events); lo += batchRows {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		hi := min(lo+batchRows, len(events))
		for _, b := range release {
			// Sizing once per batch avoids regrowing every buffer by doubling.
			b.(interface{ Reserve(int) }).Reserve(hi - lo)
		}
		for i := lo; i < hi; i++ {
			ev := &events[i]
			starts.Append(arrow.Timestamp(ev.Start))
			if ev.End == 0 {
				ends.AppendNull()
			} else {
				ends.Append(arrow.Timestamp(ev.End))
			}
			appendEnum(enums[0], uint8(ev.Layer), len(layerNames))
			appendEnum(enums[1], uint8(ev.Outcome), len(outcomeNames))
			appendEnum(enums[2], uint8(ev.Class), len(classNames))
			appendInt(ints[0], int32(ev.Status))
			appendInt(ints[1], int32(ev.Attempt))
			appendInt(ints[2], int32(ev.MaxAttempts))
			appendInt(ints[3], int32(ev.QueueAttempt))
			appendInt(ints[4], int32(ev.Attempts))
			if ev.RetryAfter == NoRetryAfter {
				retry.AppendNull()
			} else {
				retry.Append(int64(ev.RetryAfter.Duration()))
			}
			appendSym(dicts[0], &e.codes, ev.ErrorCode)
			appendSym(dicts[1], &e.routes, ev.Route)
			appendSym(dicts[2], &e.clients, ev.Client)
			appendID(ids[0], ev.TaskID.String())
			appendID(ids[1], ev.CallID.String())
			appendID(ids[2], ev.RequestID.String())
			// An event whose Source is outside Sources is written without a
			// path; it reads back as "no source" (Source == len(Sources)).
			if ev.Source >= 0 && int(ev.Source) < len(e.t.Sources) {
				dicts[3].Append(e.paths.index[e.t.Sources[ev.Source].Path])
			} else {
				dicts[3].AppendNull()
			}
			lines.Append(ev.Line)
		}

		cols := make([]arrow.Array, numColumns)
		cols[colStart] = starts.NewArray()
		cols[colEnd] = ends.NewArray()
		cols[colLayer] = newDict(enumType, enums[0], e.layerDict)
		cols[colOutcome] = newDict(enumType, enums[1], e.outcomeDict)
		cols[colClass] = newDict(enumType, enums[2], e.classDict)
		cols[colStatus] = ints[0].NewArray()
		cols[colAttempt] = ints[1].NewArray()
		cols[colMaxAttempts] = ints[2].NewArray()
		cols[colQueueAttempt] = ints[3].NewArray()
		cols[colAttempts] = ints[4].NewArray()
		cols[colRetryAfter] = retry.NewArray()
		cols[colErrorCode] = newDict(dictType, dicts[0], e.codes.dict)
		cols[colRoute] = newDict(dictType, dicts[1], e.routes.dict)
		cols[colClient] = newDict(dictType, dicts[2], e.clients.dict)
		cols[colTaskID] = ids[0].NewArray()
		cols[colCallID] = ids[1].NewArray()
		cols[colRequestID] = ids[2].NewArray()
		cols[colSource] = newDict(dictType, dicts[3], e.paths.dict)
		cols[colLine] = lines.NewArray()
		rec := array.NewRecord(e.schema, cols, int64(hi-lo))
		for _, c := range cols {
			c.Release()
		}
		err := write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func newDict(typ *arrow.DictionaryType, indices interface{ NewArray() arrow.Array }, dict arrow.Array) arrow.Array {
	idx := indices.NewArray()
	defer idx.Release()
	return array.NewDictionaryArray(typ, idx, dict)
}

// decoder appends record batches to a Timeline. It finds columns by name
// and accepts the type variations other tools introduce when they rewrite a
// file (plain strings for dictionaries, other integer widths, other
// timestamp units).
type decoder struct {
	cols      [numColumns]int
	sources   []Source
	pathIndex map[string]int32
	events    []Event

	// Scratch columns, reused across batches.
	ints [numColumns][]int64
	strs [numColumns][]string
	// dicts keeps each column's last decoded dictionary: IPC batches share
	// one, and decoding it again per batch would cost O(batches x values).
	dicts [numColumns]decodedDict
}

type decodedDict struct {
	data   arrow.ArrayData
	values []string
}

func newDecoder(schema *arrow.Schema, fileSize int64) (*decoder, error) {
	md := schema.Metadata()
	version, ok := md.GetValue(metaVersionKey)
	if !ok {
		return nil, fmt.Errorf("not a stampede timeline: no %q metadata", metaVersionKey)
	}
	if major(version) != major(FileVersion) {
		return nil, fmt.Errorf("timeline version %q is not supported (this build reads %s)", version, FileVersion)
	}
	d := &decoder{pathIndex: map[string]int32{}}
	// The count is only a capacity hint: a corrupt file may claim any
	// number, so it is bounded by the file's size (an uncompressed row
	// takes at least its 8-byte start).
	if v, ok := md.GetValue(metaEventsKey); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			d.events = make([]Event, 0, min(n, fileSize/8+1))
		}
	}
	if js, ok := md.GetValue(metaSourcesKey); ok {
		if err := json.Unmarshal([]byte(js), &d.sources); err != nil {
			return nil, fmt.Errorf("metadata %q: %w", metaSourcesKey, err)
		}
	}
	for i := range d.sources {
		if _, dup := d.pathIndex[d.sources[i].Path]; !dup {
			d.pathIndex[d.sources[i].Path] = int32(i)
		}
	}
	for c := range d.cols {
		idx := schema.FieldIndices(columnFields[c].Name)
		if len(idx) == 0 {
			return nil, fmt.Errorf("missing column %q", columnFields[c].Name)
		}
		d.cols[c] = idx[0]
		if typ := schema.Field(idx[0]).Type; !decodable(c, typ) {
			return nil, fmt.Errorf("column %q: unsupported type %s", columnFields[c].Name, typ)
		}
	}
	return d, nil
}

func major(version string) string {
	m, _, _ := strings.Cut(version, ".")
	return m
}

func (d *decoder) add(rec arrow.Record) error {
	var cols [numColumns][]arrow.Array
	for c := range cols {
		cols[c] = []arrow.Array{rec.Column(d.cols[c])}
	}
	return d.addColumns(&cols, int(rec.NumRows()))
}

// addColumns appends n events whose columns may each be split into
// several chunks.
func (d *decoder) addColumns(cols *[numColumns][]arrow.Array, n int) error {
	for c := range cols {
		l := 0
		for _, chunk := range cols[c] {
			l += chunk.Len()
			if c == colStart && chunk.NullN() > 0 {
				return fmt.Errorf("%w: column \"start\" has nulls", ErrCorrupt)
			}
		}
		if l != n {
			return fmt.Errorf("%w: column %q has %d rows, batch has %d", ErrCorrupt, columnFields[c].Name, l, n)
		}
	}
	for c := range cols {
		var err error
		switch c {
		case colLayer, colOutcome, colClass, colErrorCode, colRoute, colClient, colTaskID, colCallID, colRequestID, colSource:
			d.strs[c] = d.strs[c][:0]
			for _, chunk := range cols[c] {
				if d.strs[c], err = stringColumn(d.strs[c], chunk, &d.dicts[c]); err != nil {
					break
				}
			}
		default:
			null := int64(0)
			if c == colRetryAfter {
				null = int64(NoRetryAfter)
			}
			d.ints[c] = d.ints[c][:0]
			for _, chunk := range cols[c] {
				if d.ints[c], err = intColumn(d.ints[c], chunk, null); err != nil {
					break
				}
			}
		}
		if err != nil {
			return fmt.Errorf("column %q: %w", columnFields[c].Name, err)
		}
	}
	// Parsing once per distinct name keeps ParseLayer's lower-casing out of
	// the per-row loop.
	var enums [numColumns]map[string]uint8
	enum := func(c int, i int, parse func(string) uint8) uint8 {
		s := d.strs[c][i]
		v, ok := enums[c][s]
		if !ok {
			if enums[c] == nil {
				enums[c] = map[string]uint8{}
			}
			v = parse(s)
			enums[c][s] = v
		}
		return v
	}
	parseLayer := func(s string) uint8 { return uint8(ParseLayer(s)) }
	parseOutcome := func(s string) uint8 { return uint8(ParseOutcome(s)) }
	parseClass := func(s string) uint8 { return uint8(ParseClass(s)) }

	// Rows repeat the row before's strings (one route, one client, a
	// call's id on each of its attempts), so each column remembers its last
	// Sym and interns only on a change.
	var lastStr [numColumns]string
	var lastSym [numColumns]Sym
	sym := func(c int, i int) Sym {
		s := d.strs[c][i]
		if s != lastStr[c] {
			lastStr[c], lastSym[c] = s, Intern(s)
		}
		return lastSym[c]
	}

	start := len(d.events)
	d.events = slices.Grow(d.events, n)[:start+n]
	batch := d.events[start:]
	for i := range batch {
		ev := &batch[i]
		ev.Start = d.ints[colStart][i]
		ev.End = d.ints[colEnd][i]
		ev.Layer = Layer(enum(colLayer, i, parseLayer))
		ev.Outcome = Outcome(enum(colOutcome, i, parseOutcome))
		ev.Class = Class(enum(colClass, i, parseClass))
		ev.Status = Small(d.ints[colStatus][i])
		ev.Attempt = Small(d.ints[colAttempt][i])
		ev.MaxAttempts = Small(d.ints[colMaxAttempts][i])
		ev.QueueAttempt = Small(d.ints[colQueueAttempt][i])
		ev.Attempts = Small(d.ints[colAttempts][i])
		ev.RetryAfter = MillisOf(time.Duration(d.ints[colRetryAfter][i]))
		ev.ErrorCode = sym(colErrorCode, i)
		ev.Route = sym(colRoute, i)
		ev.Client = sym(colClient, i)
		ev.TaskID = sym(colTaskID, i)
		ev.CallID = sym(colCallID, i)
		ev.RequestID = sym(colRequestID, i)
		ev.Source = d.sourceIndex(d.strs[colSource][i])
		ev.Line = d.ints[colLine][i]
	}
	return nil
}

// sourceIndex maps a path back to its index in Sources. A path the metadata
// does not list (the file was edited by another tool) is added as a source of
// unknown format so positions still name it.
func (d *decoder) sourceIndex(path string) int32 {
	if path == "" {
		return int32(len(d.sources))
	}
	if i, ok := d.pathIndex[path]; ok {
		return i
	}
	i := int32(len(d.sources))
	d.sources = append(d.sources, Source{Path: path, Format: "unknown"})
	d.pathIndex[path] = i
	return i
}

func (d *decoder) timeline() *Timeline {
	return &Timeline{Events: d.events, Sources: d.sources}
}

// decodable reports whether column c of type typ can be read by intColumn
// or stringColumn.
func decodable(c int, typ arrow.DataType) bool {
	switch c {
	case colLayer, colOutcome, colClass, colErrorCode, colRoute, colClient, colTaskID, colCallID, colRequestID, colSource:
		if dict, ok := typ.(*arrow.DictionaryType); ok {
			typ = dict.ValueType
		}
		return typ.ID() == arrow.STRING || typ.ID() == arrow.LARGE_STRING
	}
	switch typ.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		return true
	}
	return false
}

// intColumn appends arr's values as int64 to dst, nulls as null.
// Timestamps and durations are converted to nanoseconds.
func intColumn(dst []int64, arr arrow.Array, null int64) ([]int64, error) {
	n := arr.Len()
	switch a := arr.(type) {
	case *array.Int8:
		for i := 0; i < n; i++ {
			dst = append(dst, pick(a.IsNull(i), null, int64(a.Value(i))))
		}
	case *array.Int16:
		for i := 0; i < n; i++ {
			dst = append(dst, pick(a.IsNull(i), null, int64(a.Value(i))))
		}
	case *array.Int32:
		for i := 0; i < n; i++ {
			dst = append(dst, pick(a.IsNull(i), null, int64(a.Value(i))))
		}
	case *array.Int64:
		for i := 0; i < n; i++ {
			dst = append(dst, pick(a.IsNull(i), null, a.Value(i)))
		}
	case *array.Timestamp:
		mult := int64(a.DataType().(*arrow.TimestampType).Unit.Multiplier())
		for i := 0; i < n; i++ {
			dst = append(dst, pick(a.IsNull(i), null, int64(a.Value(i))*mult))
		}
	case *array.Duration:
		mult := int64(a.DataType().(*arrow.DurationType).Unit.Multiplier())
		for i := 0; i < n; i++ {
			dst = append(dst, pick(a.IsNull(i), null, int64(a.Value(i))*mult))
		}
	default:
		return dst, fmt.Errorf("unsupported type %s", arr.DataType())
	}
	return dst, nil
}

func pick(isNull bool, null, v int64) int64 {
	if isNull {
		return null
	}
	return v
}

// stringColumn appends arr's values to dst, nulls as "". Strings are copied
// out of Arrow buffers so the Timeline does not pin or outlive them.
func stringColumn(dst []string, arr arrow.Array, cache *decodedDict) ([]string, error) {
	n := arr.Len()
	switch a := arr.(type) {
	case *array.String:
		for i := 0; i < n; i++ {
			dst = append(dst, pickString(a.IsNull(i), a.Value, i))
		}
	case *array.LargeString:
		for i := 0; i < n; i++ {
			dst = append(dst, pickString(a.IsNull(i), a.Value, i))
		}
	case *array.Dictionary:
		if dict := a.Dictionary().Data(); cache.data != dict {
			values, err := stringColumn(nil, a.Dictionary(), nil)
			if err != nil {
				return dst, fmt.Errorf("dictionary: %w", err)
			}
			*cache = decodedDict{data: dict, values: values}
		}
		values := cache.values
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				dst = append(dst, "")
				continue
			}
			k := a.GetValueIndex(i)
			if k < 0 || k >= len(values) {
				return dst, fmt.Errorf("%w: row %d: dictionary index %d out of range [0,%d)", ErrCorrupt, i, k, len(values))
			}
			dst = append(dst, values[k])
		}
	default:
		return dst, fmt.Errorf("unsupported type %s", arr.DataType())
	}
	return dst, nil
}

func pickString(isNull bool, value func(int) string, i int) string {
	if isNull {
		return ""
	}
	return strings.Clone(value(i))
}

// boundedAllocator refuses any single allocation above limit. A corrupt
// file can declare buffers of any size; without a bound, reading 100 bytes
// of garbage could allocate gigabytes before the inconsistency shows.
type boundedAllocator struct{ limit int }

type allocTooLarge int

func (a boundedAllocator) Allocate(size int) []byte {
	if size < 0 || size > a.limit {
		panic(allocTooLarge(size))
	}
	return memory.DefaultAllocator.Allocate(size)
}

func (a boundedAllocator) Reallocate(size int, b []byte) []byte {
	if size < 0 || size > a.limit {
		panic(allocTooLarge(size))
	}
	return memory.DefaultAllocator.Reallocate(size, b)
}

func (a boundedAllocator) Free(b []byte) { memory.DefaultAllocator.Free(b) }

// allocLimit allows for compressed buffers expanding well beyond the file
// size while still bounding what garbage can ask for.
func allocLimit(fileSize int64) int {
	const floor, ratio, ceiling = 1 << 20, 64, 1 << 46
	limit := int64(ceiling)
	if fileSize <= 1<<40 {
		limit = max(fileSize*ratio, floor)
	}
	// Where int is 32 bits, nothing larger can be asked for anyway.
	return int(min(limit, math.MaxInt))
}

func recoverCorrupt(err *error) {
	switch r := recover().(type) {
	case nil:
	case allocTooLarge:
		*err = fmt.Errorf("%w: declares a %d-byte buffer", ErrCorrupt, int(r))
	case error:
		*err = fmt.Errorf("%w: %w", ErrCorrupt, r)
	default:
		*err = fmt.Errorf("%w: %v", ErrCorrupt, r)
	}
}

func wrapReadErr(op string, err *error) {
	if *err != nil {
		*err = fmt.Errorf("%s: %w", op, *err)
	}
}

// checkIPCFooter walks the flatbuffer footer of an Arrow IPC file before
// Arrow decodes it. Arrow sizes Go slices from vector lengths stored in the
// footer without checking them against the footer's size, so a few corrupt
// bytes can demand terabytes and kill the process (out of memory is fatal
// and cannot be recovered). This check rejects such footers, and column
// types stampede cannot hold (nested, view, union), before that happens.
func checkIPCFooter(r io.ReaderAt, size int64) error {
	const trailer = 4 + 6 // int32 footer length + "ARROW1"
	if size < int64(len(ipcMagic))+trailer {
		return fmt.Errorf("%w: %d bytes is too small for an Arrow file", ErrCorrupt, size)
	}
	tail := make([]byte, trailer)
	if _, err := r.ReadAt(tail, size-trailer); err != nil {
		return err
	}
	if !bytes.Equal(tail[4:], ipcMagic) {
		return fmt.Errorf("%w: no Arrow file trailer", ErrCorrupt)
	}
	footerLen := int64(binary.LittleEndian.Uint32(tail))
	if footerLen <= 0 || footerLen > size-trailer-int64(len(ipcMagic)) {
		return fmt.Errorf("%w: footer length %d does not fit a %d-byte file", ErrCorrupt, footerLen, size)
	}
	buf := make([]byte, footerLen)
	if _, err := r.ReadAt(buf, size-trailer-footerLen); err != nil {
		return err
	}
	fb := flatReader{buf: buf}
	footer := fb.root()
	schema := fb.table(footer, 1)
	fb.vector(footer, 2, 24) // dictionary blocks
	fb.vector(footer, 3, 24) // record batch blocks
	fb.keyValues(footer, 4)
	fb.checkSchema(schema)
	if fb.err != nil {
		return fmt.Errorf("%w: footer: %s", ErrCorrupt, fb.err)
	}
	return nil
}

// checkSchema checks a flatbuffer Schema table: every vector Arrow will
// size a slice from, and that columns are flat.
func (f *flatReader) checkSchema(schema int) {
	if schema < 0 {
		return
	}
	f.keyValues(schema, 2)
	f.vector(schema, 3, 8) // features
	start, n := f.vector(schema, 1, 4)
	for i := 0; i < n && f.err == nil; i++ {
		field := f.element(start, i)
		f.str(field, 0)
		f.keyValues(field, 6)
		if _, children := f.vector(field, 5, 4); children > 0 {
			f.fail("nested column types are not supported")
		}
		if t := f.u8(field, 2); !flatTypeSupported[t] {
			f.fail(fmt.Sprintf("column type %d is not supported", t))
		}
	}
}

// checkStoredArrowSchema applies checkSchema to the Arrow schema that
// Parquet files keep base64-encoded under "ARROW:schema", which the Parquet
// reader decodes with the same unchecked Arrow code.
func checkStoredArrowSchema(serialized string) error {
	var decoded []byte
	var err error
	if len(serialized)%4 == 0 {
		decoded, err = base64.StdEncoding.DecodeString(serialized)
	}
	if len(decoded) == 0 || err != nil {
		decoded, err = base64.RawStdEncoding.DecodeString(serialized)
	}
	if err != nil {
		return fmt.Errorf("%w: stored Arrow schema: %w", ErrCorrupt, err)
	}
	// An IPC message: optional 0xFFFFFFFF continuation, int32 length, then
	// the flatbuffer Message whose header is the Schema.
	prefix := 4
	if len(decoded) >= 8 && binary.LittleEndian.Uint32(decoded) == 0xFFFFFFFF {
		prefix = 8
	}
	if len(decoded) < prefix {
		return fmt.Errorf("%w: stored Arrow schema is truncated", ErrCorrupt)
	}
	msgLen := int64(int32(binary.LittleEndian.Uint32(decoded[prefix-4:])))
	if msgLen <= 0 || msgLen > int64(len(decoded)-prefix) {
		return fmt.Errorf("%w: stored Arrow schema claims %d bytes", ErrCorrupt, msgLen)
	}
	fb := flatReader{buf: decoded[prefix : int64(prefix)+msgLen]}
	message := fb.root()
	fb.keyValues(message, 4)
	fb.checkSchema(fb.table(message, 2))
	if fb.err != nil {
		return fmt.Errorf("%w: stored Arrow schema: %s", ErrCorrupt, fb.err)
	}
	return nil
}

// flatTypeSupported lists the Arrow flatbuffer Type union tags whose
// arrays are flat buffers of values: Null, Int, FloatingPoint, Binary, Utf8,
// Bool, Date, Time, Timestamp, Duration, LargeBinary, LargeUtf8.
var flatTypeSupported = map[uint8]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 8: true, 9: true, 10: true, 18: true, 19: true, 20: true}

// flatReader reads flatbuffer tables with every offset and length checked
// against the buffer. Positions are -1 when absent; the first problem is
// kept in err and turns later reads into no-ops.
type flatReader struct {
	buf []byte
	err error
}

func (f *flatReader) fail(msg string) {
	if f.err == nil {
		f.err = errors.New(msg)
	}
}

func (f *flatReader) u32(at int) int {
	if f.err != nil || at < 0 || at+4 > len(f.buf) {
		f.fail("offset out of range")
		return -1
	}
	return int(binary.LittleEndian.Uint32(f.buf[at:]))
}

func (f *flatReader) u16(at int) int {
	if f.err != nil || at < 0 || at+2 > len(f.buf) {
		f.fail("offset out of range")
		return -1
	}
	return int(binary.LittleEndian.Uint16(f.buf[at:]))
}

func (f *flatReader) root() int { return f.u32(0) }

// field returns the absolute position of a table's field, or -1 when the
// table does not have it.
func (f *flatReader) field(table, slot int) int {
	if f.err != nil || table < 0 {
		return -1
	}
	vtable := table - int(int32(f.u32(table)))
	vtableLen := f.u16(vtable)
	entry := 4 + 2*slot
	// Same test as the flatbuffers runtime, which reads an entry whenever
	// it starts inside the vtable, even an odd-length one.
	if f.err != nil || entry >= vtableLen {
		return -1
	}
	off := f.u16(vtable + entry)
	if off <= 0 {
		return -1
	}
	return table + off
}

func (f *flatReader) u8(table, slot int) uint8 {
	p := f.field(table, slot)
	if p < 0 || p >= len(f.buf) {
		return 0
	}
	return f.buf[p]
}

func (f *flatReader) table(table, slot int) int {
	p := f.field(table, slot)
	if p < 0 {
		return -1
	}
	return f.indirect(p)
}

func (f *flatReader) indirect(p int) int {
	target := p + f.u32(p)
	if f.err == nil && (target < 0 || target >= len(f.buf)) {
		f.fail("table offset out of range")
	}
	return target
}

// vector returns where a vector's elements start and how many there are,
// after checking that they fit in the buffer.
func (f *flatReader) vector(table, slot, elemSize int) (start, n int) {
	p := f.field(table, slot)
	if p < 0 {
		return -1, 0
	}
	v := f.indirect(p)
	n = f.u32(v)
	if f.err != nil {
		return -1, 0
	}
	start = v + 4
	if n < 0 || int64(n)*int64(elemSize) > int64(len(f.buf)-start) {
		f.fail(fmt.Sprintf("vector of %d elements overruns the footer", n))
		return -1, 0
	}
	return start, n
}

func (f *flatReader) element(start, i int) int { return f.indirect(start + 4*i) }

func (f *flatReader) str(table, slot int) { f.vector(table, slot, 1) }

func (f *flatReader) keyValues(table, slot int) {
	start, n := f.vector(table, slot, 4)
	for i := 0; i < n && f.err == nil; i++ {
		kv := f.element(start, i)
		f.str(kv, 0)
		f.str(kv, 1)
	}
}
