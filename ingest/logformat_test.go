package ingest

import (
	"strings"
	"testing"
)

// describe renders a compiled format as lead|$var<next>|... for comparison.
func describe(f *logFormat) string {
	var b strings.Builder
	b.WriteString(string(f.lead))
	for _, fd := range f.fields {
		b.WriteString("|$" + fd.name + "|" + string(fd.next))
	}
	return b.String()
}

func TestCompileLogFormat(t *testing.T) {
	tests := []struct {
		name string
		def  string
		want string // describe() output
	}{
		{"bare", `[$time_local] $status`, `[|$time_local|] |$status|`},
		{"quoted piece", `'[$time_local] $status'`, `[|$time_local|] |$status|`},
		{"several pieces", `'[$time_local] ' '"$request" '
		   '$status';`, `[|$time_local|] "|$request|" |$status|`},
		{"directive", `log_format timed '$msec $status';`, `|$msec| |$status|`},
		{"directive with escape", `log_format j escape=json '$msec $status';`, `|$msec| |$status|`},
		{"double quotes with escaped quote", `"$msec \"$request\""`, `|$msec| "|$request|"`},
		{"braced variable", `${msec}ms $status`, `|$msec|ms |$status|`},
		{"braced joins text", `$msec ${status}x`, `|$msec| |$status|x`},
		{"pipe delimited", `$remote_addr|$time_local|$request|$status`, `|$remote_addr|||$time_local|||$request|||$status|`},
		{"named combined", `combined`, `|$remote_addr| - |$remote_user| [|$time_local|] "|$request|" |$status| |$body_bytes_sent| "|$http_referer|" "|$http_user_agent|"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := compileNamedOrCustom(tt.def)
			if err != nil {
				t.Fatalf("compile(%q): %v", tt.def, err)
			}
			if got := describe(f); got != tt.want {
				t.Errorf("compile(%q)\n got %s\nwant %s", tt.def, got, tt.want)
			}
		})
	}
}

func TestCompileLogFormatErrors(t *testing.T) {
	tests := []struct {
		def  string
		want string // substring of the error
	}{
		{``, "empty definition"},
		{`''`, "empty definition"},
		{`log_format main`, "has a name but no format"},
		{`'$msec $status`, "unterminated quote starting at offset 0"},
		{`'$msec' junk`, `unexpected 'j' at offset 8 outside quotes`},
		{`'$msec'; '$status'`, "unexpected text after ';'"},
		{`$msec $`, "'$' not followed by a variable name at offset 6"},
		{`$msec $-x`, "'$' not followed by a variable name at offset 6"},
		{`$msec ${status`, "unterminated ${ at offset 6"},
		{`$msec ${st-atus}`, `invalid variable "${st-atus}" at offset 6`},
		{`$msec$status`, "$msec and $status are not separated"},
		{`[$time_local] ${status}$request_time`, "$status and $request_time are not separated"},
		{`plain text`, "has no variables"},
		{`$status $request`, "no time variable"},
		{`%h %>s`, "LogFormat: no time (%t or %{sec}t)"},
		{`LogFormat "%h %t %{x}Q\" x`, "LogFormat: unterminated quote"},
		{`%REQ(:PATH)% %RESPONSE_CODE%`, "envoy format: no time (%START_TIME%)"},
	}
	for _, tt := range tests {
		err := CompileLogFormat(tt.def)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CompileLogFormat(%q) = %v, want error containing %q", tt.def, err, tt.want)
		}
	}
}

func TestNamedFormatsCompile(t *testing.T) {
	for name, def := range NginxFormats() {
		if err := CompileLogFormat(def); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, def := range []string{"common", "combined", apacheCombinedFormat, "default", EnvoyDefaultFormat} {
		if err := CompileLogFormat(def); err != nil {
			t.Errorf("%s: %v", def, err)
		}
	}
	if got := NginxFormatNames(); strings.Join(got, ",") != "combined,main,main_timing,retry,stampede,upstreaminfo" {
		t.Errorf("NginxFormatNames() = %v", got)
	}
}

// TestLogFormatLeavesJSONLines: a text log_format given for the access log
// does not apply to the call log read beside it; a JSON log_format does.
func TestLogFormatLeavesJSONLines(t *testing.T) {
	calls := `{"ts":"2026-11-30T02:00:00.000Z","layer":"call","task_id":"t1","outcome":"ok","http_status":200}` + "\n" +
		`{"ts":"2026-11-30T02:00:01.000Z","layer":"call","task_id":"t2","outcome":"throttled","http_status":429}` + "\n"
	for _, tt := range []struct {
		logFormat, wantFormat string
	}{
		{"combined", "jsonl"},
		{`$remote_addr - $remote_user [$time_local] "$request" $status`, "jsonl"},
	} {
		tl, err := Read(strings.NewReader(calls), "calls.jsonl", Options{LogFormat: tt.logFormat})
		if err != nil {
			t.Fatalf("--log-format %q: %v", tt.logFormat, err)
		}
		if got := tl.Sources[0].Format; got != tt.wantFormat || tl.Sources[0].Skipped != 0 {
			t.Errorf("--log-format %q: read as %s with %d skipped, want %s with none", tt.logFormat, got, tl.Sources[0].Skipped, tt.wantFormat)
		}
	}
}
