package timeline

import (
	"strings"
	"testing"
)

func TestResolveClasses(t *testing.T) {
	ev := func(route, task string) Event {
		e := Event{Layer: LayerHTTP, Route: Intern(route)}
		if task != "" {
			e.TaskID = Intern(task)
		}
		return e
	}
	tests := []struct {
		name   string
		events []Event
		want   []Class
		// warning is a substring of the source's warning, "" for none.
		warning string
	}{
		{name: "task ids tell batch, the rest is interactive",
			events:  []Event{ev("/v1/chat", "t1"), ev("/v1/chat", "")},
			want:    []Class{ClassBatch, ClassInteractive},
			warning: "1 events taken as interactive"},
		{name: "an interactive route tells the other routes are batch",
			events:  []Event{ev("/v1/chat", ""), ev("/interactive/v1/chat", "")},
			want:    []Class{ClassBatch, ClassInteractive},
			warning: "1 events taken as batch"},
		{name: "no evidence leaves the class unknown",
			events:  []Event{ev("/v1/chat", ""), ev("/v1/embeddings", "")},
			want:    []Class{ClassUnknown, ClassUnknown},
			warning: "class unknown for 2 events"},
		{name: "every event matched: nothing inferred",
			events: []Event{ev("/batch/run", ""), ev("/interactive/q", "")},
			want:   []Class{ClassBatch, ClassInteractive}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &Timeline{Events: tt.events, Sources: []Source{{Path: "a.log"}}}
			ApplyClassRules(tl, DefaultClassRules, false)
			ResolveClasses(tl)
			for i, e := range tl.Events {
				if e.Class != tt.want[i] {
					t.Errorf("event %d: class %v, want %v", i, e.Class, tt.want[i])
				}
			}
			got := strings.Join(tl.Sources[0].Warnings, "; ")
			if tt.warning == "" && got != "" || !strings.Contains(got, tt.warning) {
				t.Errorf("warnings %q, want one containing %q", got, tt.warning)
			}
		})
	}
}
