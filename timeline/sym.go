package timeline

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
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
type Sym uint32

// NoSym is the empty string: a field the log did not fill.
const NoSym Sym = 0

// String returns the interned string.
func (s Sym) String() string {
	if s == NoSym {
		return ""
	}
	return symbols.chunks[s>>symChunkBits].Load()[s&symChunkMask]
}

// Intern returns the Sym of s, adding s to the table when it is new.
func Intern(s string) Sym {
	if s == "" {
		return NoSym
	}
	sh := &symbols.shards[maphash.String(symbols.seed, s)%symShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if id, ok := sh.ids[s]; ok {
		return id
	}
	return sh.add(s)
}

// InternBytes is Intern of string(b); it allocates only for a string not
// seen before.
func InternBytes(b []byte) Sym {
	if len(b) == 0 {
		return NoSym
	}
	sh := &symbols.shards[maphash.Bytes(symbols.seed, b)%symShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if id, ok := sh.ids[string(b)]; ok {
		return id
	}
	return sh.add(string(b))
}

const (
	symShards    = 64
	symChunkBits = 16
	symChunkMask = 1<<symChunkBits - 1
)

// symbols is one table for the process, so that Syms from any parser, file
// or test compare equal without translation. Lookups by string are sharded
// by hash because the parsers of several pieces of a file intern at once;
// lookups by Sym read fixed-size chunks that never move, so String takes no
// lock.
var symbols struct {
	seed   maphash.Seed
	shards [symShards]symShard
	next   atomic.Uint32
	chunks [1 << (32 - symChunkBits)]atomic.Pointer[[1 << symChunkBits]string]
}

func init() { symbols.seed = maphash.MakeSeed() }

type symShard struct {
	mu  sync.Mutex
	ids map[string]Sym
}

// add is called with sh.mu held.
func (sh *symShard) add(s string) Sym {
	id := Sym(symbols.next.Add(1))
	if id == NoSym {
		panic("timeline: more than 4 billion distinct strings interned")
	}
	chunk := symbols.chunks[id>>symChunkBits].Load()
	if chunk == nil {
		fresh := new([1 << symChunkBits]string)
		if !symbols.chunks[id>>symChunkBits].CompareAndSwap(nil, fresh) {
			fresh = symbols.chunks[id>>symChunkBits].Load()
		}
		chunk = fresh
	}
	// The slot is written before the Sym is published through the shard's
	// map under its lock, so whoever learns the Sym can read the slot.
	chunk[id&symChunkMask] = s
	if sh.ids == nil {
		sh.ids = make(map[string]Sym, 256)
	}
	sh.ids[s] = id
	return id
}
