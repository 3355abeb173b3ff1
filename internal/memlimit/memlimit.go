// Package memlimit tells how much more memory the process can take before
// something stops it: the machine's available memory, the limit of the
// memory cgroup it runs in (a container's), and the Go runtime's own soft
// limit (GOMEMLIMIT). The smallest is the one that matters.
package memlimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
)

// Room is how much more memory the process can take, and what sets it.
type Room struct {
	Bytes int64
	// By names the limit for messages: "MemAvailable in /proc/meminfo",
	// "/sys/fs/cgroup/memory.max less its usage" or "GOMEMLIMIT less the
	// Go runtime's memory".
	By string
}

// Host is where the limits are read from: the files of a Linux host, seen
// through a root directory, and the Go runtime's limit.
type Host struct {
	// Root prefixes /proc and /sys; "" is the real file system. Tests
	// point it at a fake tree.
	Root string
	// GoLimit is the Go runtime's soft memory limit and GoUsed the memory
	// the runtime holds now; a GoLimit of 0 or math.MaxInt64 is none.
	GoLimit, GoUsed int64
}

// Self is the running process's host, with its runtime's limit as it is
// now (GOMEMLIMIT, unless the program has changed it).
func Self() Host {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(sample)
	var used int64
	if sample[0].Value.Kind() == metrics.KindUint64 && sample[1].Value.Kind() == metrics.KindUint64 {
		used = int64(sample[0].Value.Uint64() - sample[1].Value.Uint64())
	}
	return Host{GoLimit: debug.SetMemoryLimit(-1), GoUsed: used}
}

// Available is the smallest room of MemAvailable (/proc/meminfo), the
// memory cgroup's limit less its usage, on every level of the hierarchy
// from the process's cgroup up (v2 memory.max and memory.high, v1
// memory.limit_in_bytes), and GOMEMLIMIT less what the runtime holds. ok
// is false when none of them is known.
func (h Host) Available() (room Room, ok bool) {
	take := func(bytes int64, by string) {
		if !ok || bytes < room.Bytes {
			room, ok = Room{Bytes: max(bytes, 0), By: by}, true
		}
	}
	if kb, err := h.meminfo("MemAvailable"); err == nil {
		take(kb<<10, "MemAvailable in /proc/meminfo")
	}
	for _, l := range h.cgroupLimits() {
		take(l.limit-l.used, l.file+" less its usage")
	}
	if h.GoLimit > 0 && h.GoLimit < math.MaxInt64 {
		take(h.GoLimit-h.GoUsed, "GOMEMLIMIT less the Go runtime's memory")
	}
	return room, ok
}

func (h Host) file(name string) string { return path.Join("/", h.Root, name) }

// meminfo reads one field of /proc/meminfo, in kB.
func (h Host) meminfo(field string) (int64, error) {
	b, err := os.ReadFile(h.file("/proc/meminfo"))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/meminfo", field)
}

// cgroupLimit is one limit of a cgroup level and that level's usage.
type cgroupLimit struct {
	file        string // as read, under Root
	limit, used int64
}

// hierarchy is one cgroup hierarchy that has the memory controller: the
// file names its version uses, where it is mounted and the process's
// cgroup in it.
type hierarchy struct {
	limits      []string // memory.max, memory.high or memory.limit_in_bytes
	usage       string
	inactive    string // memory.stat's field of reclaimable file cache
	mount, root string // mount point, and the cgroup mounted there
	cgroup      string // the process's cgroup, from /proc/self/cgroup
}

// cgroupLimits lists the limits set on the process's memory cgroups, v2
// and v1 alike (a hybrid host has both), from its own cgroup up to the
// hierarchy's root as mounted: a limit on a parent bounds its children.
func (h Host) cgroupLimits() []cgroupLimit {
	var out []cgroupLimit
	for _, hy := range h.hierarchies() {
		rel, ok := strings.CutPrefix(hy.cgroup, strings.TrimSuffix(hy.root, "/"))
		if !ok || (rel != "" && rel[0] != '/') {
			// A cgroup outside the mounted part (a namespace shows the
			// process at its own root): the mount's top is its cgroup.
			rel = ""
		}
		for dir := path.Join(hy.mount, rel); ; dir = path.Dir(dir) {
			// A limit whose usage cannot be read still bounds the room.
			used := h.usage(dir, hy)
			for _, name := range hy.limits {
				if limit, err := h.number(path.Join(dir, name)); err == nil && limit < unlimited {
					out = append(out, cgroupLimit{file: path.Join(dir, name), limit: limit, used: used})
				}
			}
			if dir == hy.mount || len(dir) < len(hy.mount) {
				break
			}
		}
	}
	return out
}

// unlimited is where a limit stops meaning anything: v1 writes "no limit"
// as the largest page-aligned int64, v2 as "max" (read as MaxInt64).
const unlimited = 1 << 62

// usage is a cgroup's memory in use less the file cache it could drop
// (inactive_file): page cache of logs just copied in counts in the usage
// but is given back under pressure, so it is room.
func (h Host) usage(dir string, hy hierarchy) int64 {
	used, err := h.number(path.Join(dir, hy.usage))
	if err != nil {
		return 0
	}
	if b, err := os.ReadFile(h.file(path.Join(dir, "memory.stat"))); err == nil {
		for line := range bytes.Lines(b) {
			if rest, ok := bytes.CutPrefix(line, []byte(hy.inactive+" ")); ok {
				if n, err := strconv.ParseInt(string(bytes.TrimSpace(rest)), 10, 64); err == nil && n <= used {
					used -= n
				}
				break
			}
		}
	}
	return used
}

// number reads a cgroup file holding one number, or "max".
func (h Host) number(name string) (int64, error) {
	b, err := os.ReadFile(h.file(name))
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return math.MaxInt64, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// hierarchies finds the memory hierarchies from /proc/self/cgroup and
// /proc/self/mountinfo, or, without mountinfo, at their usual mount points
// (/sys/fs/cgroup for v2, /sys/fs/cgroup/memory for v1).
func (h Host) hierarchies() []hierarchy {
	b, err := os.ReadFile(h.file("/proc/self/cgroup"))
	if err != nil {
		return nil
	}
	mounts, mountsErr := h.mounts()
	var out []hierarchy
	for line := range strings.Lines(string(b)) {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		hy := hierarchy{cgroup: parts[2]}
		v2 := parts[0] == "0" && parts[1] == ""
		switch {
		case v2:
			hy.limits, hy.usage, hy.inactive = []string{"memory.max", "memory.high"}, "memory.current", "inactive_file"
			hy.mount, hy.root = "/sys/fs/cgroup", "/"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			hy.limits, hy.usage, hy.inactive = []string{"memory.limit_in_bytes"}, "memory.usage_in_bytes", "total_inactive_file"
			hy.mount, hy.root = "/sys/fs/cgroup/memory", "/"
		default:
			continue
		}
		if mountsErr == nil {
			m, ok := mounts.find(v2)
			if !ok {
				continue
			}
			hy.mount, hy.root = m.point, m.root
		}
		out = append(out, hy)
	}
	return out
}

type mount struct{ point, root string }

type mountTable struct{ v2, v1 []mount }

// find is the mount of the v2 hierarchy, or of v1's memory controller.
func (t mountTable) find(v2 bool) (mount, bool) {
	ms := t.v1
	if v2 {
		ms = t.v2
	}
	if len(ms) == 0 {
		return mount{}, false
	}
	return ms[0], true
}

// mounts reads the cgroup mounts of /proc/self/mountinfo, whose lines are
// "id parent major:minor root mount-point options [optional...] - type
// source super-options".
func (h Host) mounts() (mountTable, error) {
	f, err := os.Open(h.file("/proc/self/mountinfo"))
	if err != nil {
		return mountTable{}, err
	}
	defer f.Close()
	var t mountTable
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 > len(fields) {
			continue
		}
		m := mount{point: unescape(fields[4]), root: unescape(fields[3])}
		switch fstype, super := fields[sep+1], fields[len(fields)-1]; {
		case fstype == "cgroup2":
			t.v2 = append(t.v2, m)
		case fstype == "cgroup" && strings.Contains(","+super+",", ",memory,"):
			t.v1 = append(t.v1, m)
		}
	}
	if err := sc.Err(); err != nil {
		return mountTable{}, err
	}
	if len(t.v1) == 0 && len(t.v2) == 0 {
		return t, errors.New("no cgroup mounts")
	}
	return t, nil
}

// unescape undoes mountinfo's octal escapes of space, tab, newline and
// backslash.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
