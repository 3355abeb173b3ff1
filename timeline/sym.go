package timeline

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/stampede/stampede/spill"
)

// Sym is an interned string: a route, user agent, error code, task, call or
// request id. Events hold these as 4-byte numbers rather than 16-byte string
// headers, which makes an Event pointer-free: millions of them are never
// scanned by the garbage collector, and they take about half the memory.
//
// Equal strings always get the same Sym, so Syms compare and key maps as the
// strings would. Their numeric order is the order in which the strings were
// first seen, which parallel parsing makes vary from run to run: anything
// ordered for output must be ordered by String, never by the number.
//
// The table lives as long as the process and only grows. A command reads
// one incident, so that is what it should; a long-running program that
// analyses many unrelated logs keeps every distinct string it has seen.
// The table holds no pointers the garbage collector must follow, and its
// large parts are made by spill.Make: a log of millions of task ids keeps
// them in the spill file when one is on.
type Sym uint32

// NoSym is the empty string: a field the log did not fill.
const NoSym Sym = 0

// SymCount is one more than the largest Sym handed out so far: the size of
// a slice that any Sym seen until now can index.
func SymCount() int { return int(symbols.next.Load()) + 1 }

// String returns the interned string. It shares the table's memory, which
// is never changed or freed.
func (s Sym) String() string {
	if s == NoSym {
		return ""
	}
	e := symbols.entries[s>>symChunkBits].Load()
	en := (*symEntry)(unsafe.Add(unsafe.Pointer(e), uintptr(s&symChunkMask)*unsafe.Sizeof(symEntry{})))
	if en.len == 0 {
		return ""
	}
	base := symbols.texts[en.text].Load()
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(base), en.off)), en.len)
}

// Intern returns the Sym of s, adding s to the table when it is new.
func Intern(s string) Sym {
	if s == "" {
		return NoSym
	}
	h := maphash.String(symbols.seed, s)
	sh := &symbols.shards[h%symShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.intern(s, h)
}

// InternBytes is Intern of string(b); it copies b only when it is new.
func InternBytes(b []byte) Sym {
	if len(b) == 0 {
		return NoSym
	}
	// Not retained: intern copies a new string into the table.
	s := unsafe.String(unsafe.SliceData(b), len(b))
	h := maphash.String(symbols.seed, s)
	sh := &symbols.shards[h%symShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.intern(s, h)
}

const (
	symShards = 64
	// Entries come in chunks of 2^19 (6 MiB): large enough for the spill
	// to take them.
	symChunkBits = 19
	symChunkMask = 1<<symChunkBits - 1
	// A shard's text chunks double from minTextChunk to maxTextChunk, so
	// that a small run takes little memory and a large one few chunks.
	minTextChunk = 64 << 10
	maxTextChunk = 8 << 20
	maxTexts     = 1 << 20
)

// symEntry locates a Sym's bytes: in text chunk text, at off, len long.
type symEntry struct {
	text, off uint32
	len       int32
}

// symbols is one table for the process, so that Syms from any parser, file
// or test compare equal without translation. Lookups by string are sharded
// by hash because the parsers of several pieces of a file intern at once;
// lookups by Sym read chunks that never move, so String takes no lock.
var symbols struct {
	seed   maphash.Seed
	shards [symShards]symShard
	next   atomic.Uint32
	// entries[c] is the first of chunk c's 2^symChunkBits entries.
	entries [1 << (32 - symChunkBits)]atomic.Pointer[symEntry]
	// texts[t] is the start of text chunk t; nextText hands out t.
	texts    [maxTexts]atomic.Pointer[byte]
	nextText atomic.Uint32
	// chunks keeps every chunk made on the heap reachable.
	chunksMu sync.Mutex
	chunks   [][]byte
}

func init() { symbols.seed = maphash.MakeSeed() }

// symShard is an open-addressing table of Syms, probed linearly and kept
// at most three quarters full, and the shard's own text chunk. The tags
// in the slots keep the longer probes of that load cheap: a probe reads
// a few adjacent slots, not their strings, and the table takes no more
// memory than a half-full table of bare Syms.
type symShard struct {
	mu    sync.Mutex
	slots []symSlot
	count int
	// text is the current chunk: its number, its bytes, and how much is
	// used.
	text     uint32
	textMem  []byte
	textUsed int
}

// intern is called with sh.mu held; h is s's hash.
func (sh *symShard) intern(s string, h uint64) Sym {
	if sh.slots == nil {
		sh.slots = make([]symSlot, 256)
	}
	tag := uint32(h >> 32)
	mask := uint64(len(sh.slots) - 1)
	for i := uint64(tag) & mask; ; i = (i + 1) & mask {
		slot := sh.slots[i]
		if slot == 0 {
			id := sh.add(s)
			sh.slots[i] = symSlot(tag)<<32 | symSlot(id)
			sh.count++
			if 4*sh.count > 3*len(sh.slots) {
				sh.grow()
			}
			return id
		}
		// The tag spares reading the text of every other string on the
		// probe: each is a cache miss in a table of millions.
		if uint32(slot>>32) == tag {
			if id := Sym(slot); id.String() == s {
				return id
			}
		}
	}
}

// symSlot holds a Sym in its low half and the high half of its string's
// hash, the tag, in its high half; 0 is empty. The tag both places the
// Sym in the table and lets a probe pass over other strings, and a table
// that doubles places its Syms again without hashing their strings.
type symSlot uint64

// grow doubles the slots and places every Sym again.
func (sh *symShard) grow() {
	old := sh.slots
	sh.slots = spill.Make[symSlot](2*len(old), 2*len(old))
	mask := uint64(len(sh.slots) - 1)
	for _, slot := range old {
		if slot == 0 {
			continue
		}
		i := uint64(slot>>32) & mask
		for sh.slots[i] != 0 {
			i = (i + 1) & mask
		}
		sh.slots[i] = slot
	}
	spill.Free(old)
}

// add copies s into the shard's text and gives it the next Sym.
func (sh *symShard) add(s string) Sym {
	id := Sym(symbols.next.Add(1))
	if id == NoSym {
		panic("timeline: more than 4 billion distinct strings interned")
	}
	if len(s) > len(sh.textMem)-sh.textUsed {
		sh.newText(len(s))
	}
	off := sh.textUsed
	copy(sh.textMem[off:], s)
	sh.textUsed += len(s)

	chunk := symbols.entries[id>>symChunkBits].Load()
	if chunk == nil {
		fresh := unsafe.SliceData(makeChunk[symEntry](1 << symChunkBits))
		if !symbols.entries[id>>symChunkBits].CompareAndSwap(nil, fresh) {
			fresh = symbols.entries[id>>symChunkBits].Load()
		}
		chunk = fresh
	}
	// The entry is written before the Sym is published through the
	// shard's slots under its lock, so whoever learns the Sym can read it.
	en := (*symEntry)(unsafe.Add(unsafe.Pointer(chunk), uintptr(id&symChunkMask)*unsafe.Sizeof(symEntry{})))
	*en = symEntry{text: sh.text, off: uint32(off), len: int32(len(s))}
	return id
}

// newText starts a text chunk with room for at least n bytes.
func (sh *symShard) newText(n int) {
	size := min(max(2*len(sh.textMem), minTextChunk), maxTextChunk)
	size = max(size, n)
	t := symbols.nextText.Add(1)
	if t >= maxTexts {
		panic("timeline: interned text past its table")
	}
	mem := makeChunk[byte](size)
	symbols.texts[t].Store(unsafe.SliceData(mem))
	sh.text, sh.textMem, sh.textUsed = t, mem, 0
}

// makeChunk makes table memory that is never freed, keeping it reachable
// when it is on the heap.
func makeChunk[T any](n int) []T {
	mem := spill.Make[T](n, n)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(mem))), uintptr(n)*unsafe.Sizeof(*new(T)))
	symbols.chunksMu.Lock()
	symbols.chunks = append(symbols.chunks, b)
	symbols.chunksMu.Unlock()
	return mem
}
