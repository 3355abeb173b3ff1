package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stampede/stampede/timeline"
)

func TestIdentifyClient(t *testing.T) {
	tests := []struct {
		ua, sdk, version string
		maxAttempts      int
		synchronising    bool
		// policy is a substring the policy sentence must hold.
		policy string
	}{
		{"OpenAI/Python 1.52.0", "openai-python", "1.52.0", 3, true, "exactly up to 60 s"},
		{"OpenAI/Python 2.52.0", "openai-python", "2.52.0", 3, true, "exactly up to 120 s"},
		{"OpenAI/Python 3.3.1", "openai-python", "3.3.1", 3, true, "up to 120 s"},
		{"OpenAI/JS 4.20.1", "openai-node", "4.20.1", 3, true, "integer retry-after exactly up to 60 s"},
		{"OpenAI/JS 6.49.0", "openai-node", "6.49.0", 3, true, "no cap"},
		{"OpenAI/JS 7.5.0", "openai-node", "7.5.0", 3, true, "exactly up to 60 s"},
		{"Anthropic/Python 0.121.0", "anthropic-python", "0.121.0", 3, true, "up to 60 s"},
		{"Anthropic/JS 0.78.2", "anthropic-typescript", "0.78.2", 3, true, "below 60 s"},
		{"Anthropic/JS 0.120.0", "anthropic-typescript", "0.120.0", 3, true, "no cap"},
		{"Botocore/1.43.67 ua/2.1 os/linux md/arch#x86_64 lang/python#3.12.3 cfg/retry-mode#standard", "botocore standard", "1.43.67", 3, false, "ignores retry-after"},
		{"Boto3/1.40.0 md/Botocore#1.40.0 ua/2.1 cfg/retry-mode#adaptive", "botocore adaptive", "", 3, false, "rate limiter"},
		{"Botocore/1.29.27 Python/3.11.2 Linux/6.18.44-fc-v782", "botocore", "1.29.27", 0, false, "does not name its retry mode"},
		{"Boto3/1.28.79 md/Botocore#1.31.79 ua/2.0 os/macos#23.0.0 cfg/retry-mode#legacy Botocore/1.31.79", "botocore legacy", "1.31.79", 5, false, "uncapped"},
		{"botocore cfg/retry-mode#standard", "botocore standard", "", 3, false, "retry quota"},
		{"aws-sdk-js/3.700.0 ua/2.1 os/linux#6.8", "aws-sdk-js-v3", "3.700.0", 3, false, "before April 2026"},
		{"curl/8.5.0", "", "", 0, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.ua, func(t *testing.T) {
			sdk, ver := identifyClient(tc.ua)
			if sdk != tc.sdk || ver != tc.version {
				t.Fatalf("identifyClient = %q %q, want %q %q", sdk, ver, tc.sdk, tc.version)
			}
			if sdk == "" {
				return
			}
			c := Client{SDK: sdk, Version: ver}
			describeClient(&c)
			if c.MaxAttempts != tc.maxAttempts || c.Synchronising != tc.synchronising || !strings.Contains(c.Policy, tc.policy) {
				t.Errorf("policy %q (max %d, synchronising %v), want max %d, synchronising %v, mentioning %q",
					c.Policy, c.MaxAttempts, c.Synchronising, tc.maxAttempts, tc.synchronising, tc.policy)
			}
		})
	}
}

func TestClientsCountsAttempts(t *testing.T) {
	h := timeline.LayerHTTP
	tl := build(
		withClient(ev(h, 0, thr, bat, "T1", "", 1), "OpenAI/Python 1.52.0"),
		withClient(ev(h, 12, ok, bat, "T1", "", 2), "OpenAI/Python 1.52.0"),
		withClient(ev(h, 1, ok, ia, "", "", 1), "Botocore/1.29.27 Python/3.11.2"),
		withClient(ev(h, 2, ok, ia, "", "", 0), ""),
	)
	got, _ := clients(tl, countEvents(tl).observers(tl))
	if len(got) != 2 || got[0].SDK != "openai-python" || got[0].Attempts != 2 || got[0].Throttled != 1 || got[1].SDK != "botocore" {
		t.Fatalf("clients = %+v", got)
	}
	res := Run(tl, Options{Seed: 1})
	var said bool
	for _, f := range res.Findings {
		said = said || strings.Contains(f, "openai-python 1.52.0") && strings.Contains(f, "synchronised")
	}
	if !said {
		t.Errorf("findings do not name the synchronising client: %q", res.Findings)
	}
}

func withClient(e timeline.Event, ua string) timeline.Event {
	e.Client = timeline.Intern(ua)
	return e
}

// TestClientsBotocoreMode pins where a botocore client's retry mode comes
// from when its User-Agent does not say it, and that an SDK log read beside
// the access log adds no client of its own.
func TestClientsBotocoreMode(t *testing.T) {
	h := timeline.LayerHTTP
	ua := "Botocore/1.29.27 Python/3.11.2"
	withMax := func(e timeline.Event, src, max int32) timeline.Event {
		e.Source, e.MaxAttempts = src, timeline.Small(max)
		return withClient(e, ua)
	}
	tests := []struct {
		name   string
		events []timeline.Event
		sdk    string
		from   string // substring of the policy, "" when no mode is named
	}{
		{"max=3 on the wire", []timeline.Event{withMax(ev(h, 0, thr, bat, "T1", "", 1), 0, 0), withMax(ev(h, 1, ok, bat, "T1", "", 2), 0, 3)},
			"botocore standard", "inferred from max=3"},
		{"max=5 on the wire", []timeline.Event{withMax(ev(h, 1, ok, bat, "T1", "", 2), 0, 5)},
			"botocore legacy", "inferred from max=5"},
		{"max=4 names nothing", []timeline.Event{withMax(ev(h, 1, ok, bat, "T1", "", 2), 0, 4)},
			"botocore", "does not name its retry mode"},
		{"the SDK log's logger", []timeline.Event{
			withMax(ev(h, 0, thr, bat, "T1", "", 1), 0, 0),
			withClient(withMax(ev(h, 0, thr, bat, "T1", "", 1), 1, 0), "botocore cfg/retry-mode#legacy"),
		}, "botocore legacy", "named by the SDK log"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := build(tc.events...)
			tl.Sources = []timeline.Source{{Path: "access.log", Observer: timeline.ObserverProxy}, {Path: "sdk.log", Observer: timeline.ObserverSDK}}
			got, _ := clients(tl, countEvents(tl).observers(tl))
			if len(got) != 1 || got[0].SDK != tc.sdk || !strings.Contains(got[0].Policy, tc.from) || got[0].UserAgent != ua {
				t.Fatalf("clients = %+v, want one %q client whose policy says %q", got, tc.sdk, tc.from)
			}
		})
	}
}

func TestClientsBounded(t *testing.T) {
	http := func(ua string, n int) []timeline.Event {
		var out []timeline.Event
		for i := 0; i < n; i++ {
			out = append(out, timeline.Event{Layer: timeline.LayerHTTP, Client: timeline.Intern(ua), Outcome: timeline.OutcomeOK})
		}
		return out
	}
	manyVersions := func(n int) []timeline.Event {
		var out []timeline.Event
		for i := 0; i < n; i++ {
			out = append(out, http(fmt.Sprintf("OpenAI/Python 1.%d.0", i), 1)...)
		}
		return out
	}
	tests := []struct {
		name string
		ev   []timeline.Event
		// want is the rows' User-Agent (or SDK for the folded row) and
		// attempts, busiest first.
		want      []string
		wantBound TableBound
	}{
		{name: "tools that are not SDKs keep their own rows",
			ev:        append(append(http("curl/8.0", 100), http("Wget/1.21", 50)...), http("python-requests/2.31", 20)...),
			want:      []string{"curl/8.0 100", "Wget/1.21 50", "python-requests/2.31 20"},
			wantBound: TableBound{Rows: 20, Counted: 1024}},
		{name: "a distinct version per line is folded",
			ev:   manyVersions(5000),
			want: append(repeat("OpenAI/Python 1.", 19), "other clients 4981"),
			// 1,024 counted, 19 shown: 1,005 folded; 3,976 User-Agents
			// came after the 1,024th client.
			wantBound: TableBound{Rows: 20, Counted: 1024, Folded: 1005, Uncounted: 3976}},
		{name: "a client after the 1,024th counts in the other row",
			ev:        append(manyVersions(1024), http("curl/8.0", 3)...),
			want:      append(repeat("OpenAI/Python 1.", 19), "other clients 1008"),
			wantBound: TableBound{Rows: 20, Counted: 1024, Folded: 1005, Uncounted: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline.Timeline{Events: tt.ev, Sources: []timeline.Source{{Path: "a.log"}}}
			got, bound := clients(tl, countEvents(tl).observers(tl))
			if bound != tt.wantBound {
				t.Errorf("bound %+v, want %+v", bound, tt.wantBound)
			}
			var attempts int64
			for _, c := range got {
				attempts += c.Attempts
			}
			if attempts != int64(len(tt.ev)) {
				t.Errorf("rows add up to %d attempts, want %d", attempts, len(tt.ev))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d rows, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, c := range got {
				label := c.UserAgent
				if label == "" {
					label = c.SDK
				}
				row := fmt.Sprintf("%s %d", label, c.Attempts)
				if !strings.HasPrefix(row, tt.want[i]) {
					t.Errorf("row %d = %q, want %q", i, row, tt.want[i])
				}
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestClientPolicyStatesTheConfiguredAttempts: where the calls' attempts
// were counted and the client is the only one, a maximum unlike its
// default says how it was configured.
func TestClientPolicyStatesTheConfiguredAttempts(t *testing.T) {
	c := Client{SDK: "openai-node", Version: "6.49.0", MaxAttempts: 3, RetryAfter: "honours retry-after exactly",
		Policy: "openai-node 6.49.0 makes 3 attempts per call by default, honours retry-after exactly"}
	layer := func(max float64, exact bool) []LayerStats {
		return []LayerStats{{Name: layerAttempts, Units: 100, Max: max, Exact: exact}}
	}
	for _, tc := range []struct {
		name    string
		clients []Client
		layers  []LayerStats
		want    string
	}{
		{"the default", []Client{c}, layer(3, true), c.Policy},
		{"no retries", []Client{c}, layer(1, true), "openai-node 6.49.0 makes 3 attempts per call by default and honours retry-after exactly, but no call here made more than one: it was configured not to retry"},
		{"fewer", []Client{c}, layer(2, true), c.Policy + ", but no call here made more than 2 attempts: it was configured to fewer"},
		{"more", []Client{c}, layer(5, true), c.Policy + ", but calls here made up to 5 attempts: it was configured to more"},
		{"attempts estimated, not counted", []Client{c}, layer(1, false), c.Policy},
		{"two clients, whose calls the layer mixes", []Client{c, {SDK: "botocore"}}, layer(1, true), c.Policy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Clients: tc.clients, Amplification: Amplification{Layers: tc.layers}}
			if got := clientPolicy(r, tc.clients[0]); !strings.HasPrefix(got, tc.want) {
				t.Errorf("policy %q, want it to start %q", got, tc.want)
			}
		})
	}
}
