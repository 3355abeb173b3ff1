package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

const (
	mib = 1 << 20
	gib = 1 << 30
)

// meminfo is a /proc/meminfo with 8 GiB available.
const meminfo = "MemTotal:       16384000 kB\nMemFree:         1000000 kB\nMemAvailable:    8388608 kB\n"

const (
	mountV2 = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"
	// A v1 host whose memory controller is mounted with the container's
	// cgroup as its root, as Docker does without a cgroup namespace.
	mountV1Docker = "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	mountV1       = "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	mountHybrid   = mountV1 + "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
)

// TestAvailable reads fake /proc and /sys trees: each case is a host as a
// container or CI runner shows it, and the room it leaves.
func TestAvailable(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		goLimit int64
		goUsed  int64
		want    int64
		wantBy  string
		none    bool
	}{
		{
			name:   "no cgroup limit",
			files:  map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n", "proc/self/mountinfo": mountV2, "sys/fs/cgroup/memory.max": "max\n"},
			want:   8 * gib,
			wantBy: "MemAvailable in /proc/meminfo",
		},
		{
			name: "v2 container, cgroup namespace",
			files: map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n", "proc/self/mountinfo": mountV2,
				"sys/fs/cgroup/memory.max": "536870912\n", "sys/fs/cgroup/memory.current": "104857600\n",
				"sys/fs/cgroup/memory.stat": "anon 50000000\nfile 60000000\ninactive_file 52428800\nactive_file 1\n"},
			want:   512*mib - (100*mib - 50*mib),
			wantBy: "/sys/fs/cgroup/memory.max less its usage",
		},
		{
			name: "v2, a parent's limit is tighter",
			files: map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/ci.slice/job.scope\n", "proc/self/mountinfo": mountV2,
				"sys/fs/cgroup/ci.slice/job.scope/memory.max": "4294967296", "sys/fs/cgroup/ci.slice/job.scope/memory.current": "1073741824",
				"sys/fs/cgroup/ci.slice/memory.max": "2147483648", "sys/fs/cgroup/ci.slice/memory.current": "1610612736"},
			want:   512 * mib,
			wantBy: "/sys/fs/cgroup/ci.slice/memory.max less its usage",
		},
		{
			name: "v2 memory.high under memory.max",
			files: map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n", "proc/self/mountinfo": mountV2,
				"sys/fs/cgroup/memory.max": "2147483648", "sys/fs/cgroup/memory.high": "1073741824", "sys/fs/cgroup/memory.current": "0"},
			want:   gib,
			wantBy: "/sys/fs/cgroup/memory.high less its usage",
		},
		{
			name: "v1 container without namespace",
			files: map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "9:pids:/docker/abc\n4:memory:/docker/abc\n", "proc/self/mountinfo": mountV1Docker,
				"sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456\n", "sys/fs/cgroup/memory/memory.usage_in_bytes": "67108864\n",
				"sys/fs/cgroup/memory/memory.stat": "cache 1\ninactive_file 99\ntotal_inactive_file 8388608\n"},
			want:   256*mib - 56*mib,
			wantBy: "/sys/fs/cgroup/memory/memory.limit_in_bytes less its usage",
		},
		{
			name: "v1, cgroup outside the mounted part: the mount's top",
			files: map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "4:memory:/\n", "proc/self/mountinfo": mountV1Docker,
				"sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456\n", "sys/fs/cgroup/memory/memory.usage_in_bytes": "0\n"},
			want:   256 * mib,
			wantBy: "/sys/fs/cgroup/memory/memory.limit_in_bytes less its usage",
		},
		{
			name: "v1 nested, no limit set",
			files: map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "4:memory:/process_api/dc0b\n", "proc/self/mountinfo": mountV1,
				"sys/fs/cgroup/memory/process_api/dc0b/memory.limit_in_bytes": "9223372036854771712", "sys/fs/cgroup/memory/process_api/dc0b/memory.usage_in_bytes": "3502080",
				"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712", "sys/fs/cgroup/memory/memory.usage_in_bytes": "2694197248"},
			want:   8 * gib,
			wantBy: "MemAvailable in /proc/meminfo",
		},
		{
			name: "hybrid host: v1 memory controller, v2 without it",
			files: map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "4:memory:/job\n0::/\n", "proc/self/mountinfo": mountHybrid,
				"sys/fs/cgroup/memory/job/memory.limit_in_bytes": "1073741824", "sys/fs/cgroup/memory/job/memory.usage_in_bytes": "0"},
			want:   gib,
			wantBy: "/sys/fs/cgroup/memory/job/memory.limit_in_bytes less its usage",
		},
		{
			name: "no mountinfo: the usual mount point",
			files: map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
				"sys/fs/cgroup/memory.max": "1073741824", "sys/fs/cgroup/memory.current": "536870912"},
			want:   512 * mib,
			wantBy: "/sys/fs/cgroup/memory.max less its usage",
		},
		{
			name: "usage over the limit leaves nothing",
			files: map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n", "proc/self/mountinfo": mountV2,
				"sys/fs/cgroup/memory.max": "1073741824", "sys/fs/cgroup/memory.current": "2147483648"},
			want:   0,
			wantBy: "/sys/fs/cgroup/memory.max less its usage",
		},
		{
			name:    "GOMEMLIMIT is the tightest",
			files:   map[string]string{"proc/meminfo": meminfo},
			goLimit: gib, goUsed: 100 * mib,
			want:   gib - 100*mib,
			wantBy: "GOMEMLIMIT less the Go runtime's memory",
		},
		{
			name:    "GOMEMLIMIT unset",
			files:   map[string]string{"proc/meminfo": meminfo},
			goLimit: math.MaxInt64,
			want:    8 * gib,
			wantBy:  "MemAvailable in /proc/meminfo",
		},
		{
			name: "damaged files are passed over",
			files: map[string]string{"proc/meminfo": "MemAvailable: lots\n", "proc/self/cgroup": "garbage\n::\n0::/\n", "proc/self/mountinfo": "1 2 3\n- - -\n" + mountV2,
				"sys/fs/cgroup/memory.max": "12ab", "sys/fs/cgroup/memory.high": "536870912", "sys/fs/cgroup/memory.stat": "inactive_file x\n"},
			want:   512 * mib,
			wantBy: "/sys/fs/cgroup/memory.high less its usage",
		},
		{
			name:  "nothing known",
			files: map[string]string{},
			none:  true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			room, ok := Host{Root: root, GoLimit: tt.goLimit, GoUsed: tt.goUsed}.Available()
			if tt.none {
				if ok {
					t.Fatalf("Available = %+v, want none", room)
				}
				return
			}
			if !ok || room.Bytes != tt.want || room.By != tt.wantBy {
				t.Fatalf("Available = %+v, %v; want %d by %q", room, ok, tt.want, tt.wantBy)
			}
		})
	}
}

// TestSelf reads the real host: it must not fail where there is a
// /proc/meminfo, whatever cgroups the test runs in.
func TestSelf(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	room, ok := Self().Available()
	if !ok || room.Bytes <= 0 || room.By == "" {
		t.Fatalf("Available = %+v, %v", room, ok)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/plain`: "/plain", `/end\04`: `/end\04`, `\134x`: `\x`} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}
