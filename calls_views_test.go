package stampede

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stampede/stampede/timeline"
)

func TestDropRedundantCalls(t *testing.T) {
	call := func(src int32, req, task string) timeline.Event {
		e := timeline.Event{Layer: timeline.LayerCall, Source: src, RequestID: timeline.Intern(req), Attempts: 1}
		if task != "" {
			e.TaskID = timeline.Intern(task)
		}
		return e
	}
	tests := []struct {
		name     string
		events   []timeline.Event
		wantKept int
		wantDups []int64
	}{
		// The application's call log names tasks; the SDK's logger does
		// not: the SDK's record of the same request goes.
		{name: "one call in two logs", events: []timeline.Event{call(0, "r1", "t1"), call(1, "r1", ""), call(0, "r2", "t2"), call(1, "r2", "")},
			wantKept: 2, wantDups: []int64{0, 2}},
		{name: "different requests stay", events: []timeline.Event{call(0, "r1", "t1"), call(1, "r3", "")},
			wantKept: 2, wantDups: []int64{0, 0}},
		// A retried call logs one request id per try in its own file: never
		// merged within one input.
		{name: "one input repeating an id", events: []timeline.Event{call(0, "r1", "t1"), call(0, "r1", "t1")},
			wantKept: 2, wantDups: []int64{0, 0}},
		{name: "no request ids", events: []timeline.Event{call(0, "", "t1"), call(1, "", "")},
			wantKept: 2, wantDups: []int64{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{Events: tt.events, Sources: []timeline.Source{{Path: "calls.jsonl", Events: 2}, {Path: "sdk.log", Events: 2}}}
			dropRedundantCalls(tl)
			if len(tl.Events) != tt.wantKept {
				t.Errorf("kept %d events, want %d", len(tl.Events), tt.wantKept)
			}
			for i, want := range tt.wantDups {
				if tl.Sources[i].Duplicates != want {
					t.Errorf("source %d: %d duplicates, want %d", i, tl.Sources[i].Duplicates, want)
				}
			}
		})
	}
}

func TestExpandInputsDirectoryEntries(t *testing.T) {
	tests := []struct {
		name string
		// setup adds one entry to dir beside a plain a.log.
		setup   func(t *testing.T, dir string)
		want    []string
		wantErr string
	}{
		{name: "a link to a log is read", setup: func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "real.txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("real.txt", filepath.Join(dir, "b.log")); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"a.log", "b.log"}},
		{name: "a FIFO is read", setup: func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "b.log"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"a.log", "b.log"}},
		{name: "a dangling link stops the run", setup: func(t *testing.T, dir string) {
			if err := os.Symlink("gone.log", filepath.Join(dir, "b.log")); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "broken or looping link"},
		{name: "a looping link stops the run", setup: func(t *testing.T, dir string) {
			if err := os.Symlink("b.log", filepath.Join(dir, "b.log")); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "broken or looping link"},
		{name: "other names are not logs", setup: func(t *testing.T, dir string) {
			if err := os.Symlink("gone", filepath.Join(dir, "notes.txt")); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"a.log"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.log"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, dir)
			got, err := ExpandInputs([]string{dir})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ExpandInputs = %v, %v; want an error saying %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range got {
				names = append(names, filepath.Base(p))
			}
			if strings.Join(names, " ") != strings.Join(tt.want, " ") {
				t.Errorf("ExpandInputs = %v, want %v", names, tt.want)
			}
		})
	}
}
