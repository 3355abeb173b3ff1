package spill

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// watchInterval is how often the resident set is measured against the
// budget: often enough that a pass over gigabytes of events cannot fault
// in much past it between two looks.
const watchInterval = 2 * time.Millisecond

const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
)

const (
	fallocPunchHole = 0x02 // FALLOC_FL_PUNCH_HOLE
	fallocKeepSize  = 0x01 // FALLOC_FL_KEEP_SIZE
)

type region struct {
	mem    []byte
	offset int64
	freed  bool
}

type arena struct {
	dir      string
	budget   int64
	minBytes int64

	// heapAbove and onFirst are Options.HeapAbove and OnFirst. opening
	// makes the file once; opened says it was made, and ready is closed
	// then, which starts the watchdog.
	heapAbove int64
	onFirst   func(error)
	opening   sync.Once
	opened    atomic.Bool
	ready     chan struct{}

	mu      sync.Mutex
	file    *os.File
	size    int64
	regions []region
	freed   int64
	// fallbacks and releases are counted under mu.
	fallbacks, releases int64

	stop chan struct{}
	done chan struct{}
}

// Start turns the spill on: from now on Make places large slices in a
// temporary file in opt.Dir, and the spill's pages are dropped from the
// resident set whenever the process's resident set passes opt.Budget. The
// file is unlinked at once; stop turns the spill off and closes it. Slices
// already made stay valid until the process exits. One spill runs at a
// time. With opt.HeapAbove, the file is made, and its errors reported to
// opt.OnFirst, only once the heap grows past it.
func Start(opt Options) (stop func(), err error) {
	dir := opt.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	a := &arena{dir: dir, budget: opt.Budget, minBytes: cmp.Or(opt.MinBytes, DefaultMinBytes),
		heapAbove: opt.HeapAbove, onFirst: opt.OnFirst,
		ready: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	if opt.HeapAbove <= 0 {
		if err := a.openOnce(); err != nil {
			return nil, err
		}
	}
	if !active.CompareAndSwap(nil, a) {
		a.closeFile()
		return nil, fmt.Errorf("spill: already started")
	}
	go a.watch()
	var once sync.Once
	return func() {
		once.Do(func() {
			active.CompareAndSwap(a, nil)
			close(a.stop)
			<-a.done
			// The mappings outlive the descriptor.
			a.closeFile()
		})
	}, nil
}

// openOnce makes the spill file, the first time it is called; only that
// call returns its error.
func (a *arena) openOnce() (err error) {
	a.opening.Do(func() {
		err = a.open()
		if err == nil {
			a.opened.Store(true)
			close(a.ready)
		}
		if a.heapAbove > 0 && a.onFirst != nil {
			a.onFirst(err)
		}
	})
	return err
}

func (a *arena) open() error {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(a.dir, &fs); err == nil && (uint32(fs.Type) == tmpfsMagic || uint32(fs.Type) == ramfsMagic) {
		// Its pages are memory that no disk can take back: the resident set
		// would drop while the machine's memory did not.
		return fmt.Errorf("spill: %s is a file system in memory (tmpfs); give a directory on a disk", a.dir)
	}
	f, err := os.CreateTemp(a.dir, "stampede-spill-*")
	if err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	// Unlinked while open: the space comes back when the process ends,
	// however it ends.
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return fmt.Errorf("spill: %w", err)
	}
	a.mu.Lock()
	a.file = f
	a.mu.Unlock()
	return nil
}

func (a *arena) closeFile() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file != nil {
		a.file.Close()
	}
}

// take reports whether a slice of size bytes goes to the file: always,
// once the file is made, and in standby once the heap would pass
// heapAbove with it.
func (a *arena) take(size int64) bool {
	if a.opened.Load() {
		return true
	}
	if a.heapAbove <= 0 || liveHeap()+size < a.heapAbove {
		return false
	}
	a.openOnce()
	return a.opened.Load()
}

// inUse reports that the file is made: a spill in standby is not in use.
func (a *arena) inUse() bool { return a.opened.Load() }

// liveHeap is the heap's objects, live or not yet swept.
func liveHeap() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}

func (a *arena) alloc(size int64) ([]byte, bool) {
	page := int64(os.Getpagesize())
	size = (size + page - 1) &^ (page - 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	offset := a.size
	fd := int(a.file.Fd())
	// Reserving the blocks now turns a full disk into a heap allocation
	// here rather than a SIGBUS when a page is first written.
	if err := syscall.Fallocate(fd, 0, offset, size); err != nil {
		a.fallbacks++
		return nil, false
	}
	mem, err := syscall.Mmap(fd, offset, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		_ = syscall.Fallocate(fd, fallocPunchHole|fallocKeepSize, offset, size)
		a.fallbacks++
		return nil, false
	}
	a.size += size
	a.regions = append(a.regions, region{mem: mem, offset: offset})
	return mem, true
}

func (a *arena) free(start uintptr, capBytes int64) bool {
	page := int64(os.Getpagesize())
	capBytes = (capBytes + page - 1) &^ (page - 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range a.regions {
		r := &a.regions[i]
		if r.freed || uintptr(unsafeStart(r.mem)) != start || capBytes != int64(len(r.mem)) {
			continue
		}
		_ = syscall.Madvise(r.mem, syscall.MADV_DONTNEED)
		_ = syscall.Fallocate(int(a.file.Fd()), fallocPunchHole|fallocKeepSize, r.offset, int64(len(r.mem)))
		r.freed = true
		a.freed += int64(len(r.mem))
		return true
	}
	return false
}

func (a *arena) stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return Stats{Dir: a.dir, Bytes: a.size, Freed: a.freed, Releases: a.releases, Fallbacks: a.fallbacks}
}

// watch drops the spill's pages from the resident set whenever the
// resident set passes the budget. The data stays in the page cache (and
// on disk once written back), so dropping is safe at any moment, even
// while other goroutines read and write the slices.
func (a *arena) watch() {
	defer close(a.done)
	select {
	case <-a.ready:
	case <-a.stop:
		return
	}
	if a.budget <= 0 {
		<-a.stop
		return
	}
	// Sleeping in a system call rather than on a Go timer: a timer fires
	// only when a scheduler looks at it, which with every processor busy
	// or parked can be 10 ms or more, long enough for a pass over cached
	// events to map hundreds of megabytes. Back from the call, the
	// goroutine takes any idle processor at once.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pause := syscall.NsecToTimespec(int64(watchInterval))
	for {
		select {
		case <-a.stop:
			return
		default:
		}
		_ = syscall.Nanosleep(&pause, nil)
		if rss, ok := residentBytes(); ok && rss > a.budget {
			a.release()
		}
	}
}

func (a *arena) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range a.regions {
		if r := &a.regions[i]; !r.freed {
			_ = syscall.Madvise(r.mem, syscall.MADV_DONTNEED)
		}
	}
	a.releases++
}

// residentBytes reads the process's resident set from /proc/self/statm.
func residentBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	fields := bytes.Fields(b)
	if len(fields) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// hugePage is the size of a transparent huge page on the machines stampede
// runs on (x86-64 and arm64 with 4 KiB base pages).
const hugePage = 2 << 20

// adviseHuge asks that the whole huge pages inside [p, p+size) be backed by
// transparent huge pages. Ingest writes hundreds of MB of events into
// fresh memory, and with 4 KiB pages every 4 KiB is a page fault: 120,000
// of them on a 5M-line log, a fifth of the run's CPU in the kernel. Most
// distributions set THP to "madvise", and the Go runtime does not advise
// its heap, so without this the events never get huge pages. The advice
// is only a hint: where THP is off or fails, nothing changes.
func adviseHuge(p unsafe.Pointer, size int64) {
	start := (uintptr(p) + hugePage - 1) &^ (hugePage - 1)
	end := (uintptr(p) + uintptr(size)) &^ (hugePage - 1)
	if end <= start {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_HUGEPAGE)
}
