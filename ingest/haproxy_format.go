package ingest

import (
	"fmt"
	"strconv"
	"strings"
)

// HAProxy's named log formats. httplog is what "option httplog" writes
// (HAPROXY_HTTP_LOG_FMT since 2.7); clf is "option httplog clf".
const (
	haproxyHTTPLogFormat = `%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r`
	haproxyCLFLogFormat  = `%{+Q}o %{-Q}ci - - [%trg] %r %ST %B "" "" %cp %ms %ft %b %s %TR %Tw %Tc %Tr %Ta %tsc %ac %fc %bc %sc %rc %sq %bq %CC %CS %hrl %hsl`
)

var haproxyNamedFormats = map[string]string{
	"httplog": haproxyHTTPLogFormat,
	"clf":     haproxyCLFLogFormat,
}

// hapKind is what stampede does with a HAProxy log variable.
type hapKind uint8

const (
	hapIgnored        hapKind = iota
	hapDateRequest            // %tr: request date, "01/Dec/2026:12:00:18.025"
	hapDateRequestCLF         // %trg, %trl: "01/Dec/2026:12:00:18 +0000"
	hapDateAccept             // %t: accept date, as %tr
	hapDateAcceptCLF          // %T, %Tl
	hapAcceptMs               // %ms: the milliseconds of the accept date
	hapAcceptEpoch            // %Ts: the accept date in Unix seconds
	hapTR                     // timers, in milliseconds; -1 when not reached
	hapTw
	hapTc
	hapTr
	hapTa
	hapTt
	hapTh
	hapTi
	hapStatus
	hapTermState // %tsc or %ts
	hapServer    // %s: <NOSRV> when no server was chosen
	hapRequest   // %r: "METHOD /path HTTP/1.1"
	hapPath      // %HP, %HPO, %HU
	hapReqCaptures
	hapResCaptures
	hapReqCapturesCLF // %hrl: one value per capture, space-separated
	hapResCapturesCLF
	hapUniqueID  // %ID: unique-id-format's request id
	hapReqHeader // %[req.hdr(NAME)], %[capture.req.hdr(N)]: one header
	hapResHeader // %[res.hdr(NAME)], %[capture.res.hdr(N)]
)

// hapVars maps the variables stampede reads; any other %name is matched
// and ignored.
var hapVars = map[string]hapKind{
	"tr": hapDateRequest, "trg": hapDateRequestCLF, "trl": hapDateRequestCLF,
	"t": hapDateAccept, "T": hapDateAcceptCLF, "Tl": hapDateAcceptCLF, "ms": hapAcceptMs, "Ts": hapAcceptEpoch,
	"TR": hapTR, "Tw": hapTw, "Tc": hapTc, "Tr": hapTr, "Ta": hapTa, "Tt": hapTt, "Th": hapTh, "Ti": hapTi,
	"ST": hapStatus, "tsc": hapTermState, "ts": hapTermState, "s": hapServer,
	"r": hapRequest, "HP": hapPath, "HPO": hapPath, "HU": hapPath,
	"hr": hapReqCaptures, "hs": hapResCaptures, "hrl": hapReqCapturesCLF, "hsl": hapResCapturesCLF, "ID": hapUniqueID,
}

// haproxyOnlyVars are variables no nginx, Apache or Envoy definition has:
// one of them names a --log-format definition HAProxy's.
var haproxyOnlyVars = []string{"${HAPROXY_HTTP_LOG_FMT}", "%ci", "%cp", "%tr", "%ST", "%Ta", "%Tw", "%Tc", "%TR", "%tsc", "%ft", "%hr", "%HM", "%HP", "%HU", "%{+Q}", "%["}

// isHAProxyLogFormat reports whether a --log-format definition is written
// in HAProxy's language.
func isHAProxyLogFormat(def string) bool {
	if haproxyNamedFormats[strings.TrimSpace(def)] != "" {
		return true
	}
	if strings.Contains(def, "%START_TIME") || strings.Contains(def, "%REQ(") {
		return false // Envoy's operators end in '%'
	}
	for _, v := range haproxyOnlyVars {
		if k := strings.Index(def, v); k >= 0 {
			// %ci must not be the start of a longer Apache directive.
			rest := def[k+len(v):]
			if v[len(v)-1] == '}' || v == "%[" || rest == "" || !isVarChar(rest[0]) {
				return true
			}
		}
	}
	return false
}

// hapElem is one piece of a compiled HAProxy format: a literal, or a
// variable.
type hapElem struct {
	lit  []byte // a literal when name == ""
	name string // the variable as written, for messages
	kind hapKind
	// header is, for hapReqHeader and hapResHeader, the header's name
	// (lower case), or "" with capture its index among the captures.
	header  string
	capture int
}

// sampleHeader reads the header a sample expression fetches:
// "[req.hdr(x-task-id)]", "[capture.req.hdr(0),json]".
func sampleHeader(v string) (hapElem, bool) {
	expr, _, _ := strings.Cut(strings.Trim(v, "[]"), ",")
	for _, pre := range []struct {
		fetch string
		kind  hapKind
		index bool
	}{
		{"req.hdr(", hapReqHeader, false}, {"hdr(", hapReqHeader, false}, {"req.fhdr(", hapReqHeader, false},
		{"res.hdr(", hapResHeader, false}, {"res.fhdr(", hapResHeader, false},
		{"capture.req.hdr(", hapReqHeader, true}, {"capture.res.hdr(", hapResHeader, true},
	} {
		arg, ok := strings.CutPrefix(expr, pre.fetch)
		if !ok || !strings.HasSuffix(arg, ")") {
			continue
		}
		arg, _, _ = strings.Cut(strings.TrimSuffix(arg, ")"), ",")
		el := hapElem{kind: pre.kind}
		if pre.index {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 0 || n > 64 {
				return hapElem{}, false
			}
			el.capture = n
		} else {
			el.header = strings.ToLower(strings.TrimSpace(arg))
		}
		return el, true
	}
	return hapElem{}, false
}

// haproxyFormat is a compiled HAProxy log-format.
type haproxyFormat struct {
	name  string // "httplog", "clf" or "custom"
	elems []hapElem
	// hasTime: some variable places the line in time.
	hasTime bool
}

func compileHAProxyNamedOrCustom(def string) (*haproxyFormat, error) {
	if d, ok := haproxyNamedFormats[strings.TrimSpace(def)]; ok {
		return compileHAProxyFormat(strings.TrimSpace(def), d)
	}
	return compileHAProxyFormat("custom", def)
}

// compileHAProxyFormat compiles a log-format string as written in
// haproxy.cfg: bare, quoted, or the whole `log-format "..."` line, with
// HAProxy's backslash escapes ("\ ", "\"").
func compileHAProxyFormat(name, def string) (*haproxyFormat, error) {
	s := strings.TrimSpace(def)
	if rest, ok := strings.CutPrefix(s, "log-format"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		s = strings.TrimSpace(rest)
	}
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	// HAProxy 2.7 and later name the httplog format in a variable.
	s = strings.ReplaceAll(s, "${HAPROXY_HTTP_LOG_FMT}", haproxyHTTPLogFormat)
	f := &haproxyFormat{name: name}
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			f.elems = append(f.elems, hapElem{lit: lit})
			lit = nil
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			lit = append(lit, s[i+1])
			i += 2
			continue
		case c != '%':
			lit = append(lit, c)
			i++
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == '%' { // "%%" is a literal '%'
			lit = append(lit, '%')
			i += 2
			continue
		}
		if j < len(s) && s[j] == '{' { // flags: %{+Q}r
			end := strings.IndexByte(s[j:], '}')
			if end < 0 {
				return nil, fmt.Errorf("log-format: unterminated %%{ at offset %d", i)
			}
			j += end + 1
		}
		var v string
		if j < len(s) && s[j] == '[' { // a sample expression: %[capture.req.hdr(0)]
			end := strings.IndexByte(s[j:], ']')
			if end < 0 {
				return nil, fmt.Errorf("log-format: unterminated %%[ at offset %d", i)
			}
			v = s[j : j+end+1]
			j += end + 1
		} else {
			k := j
			for k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z') {
				k++
			}
			v = s[j:k]
			j = k
		}
		if v == "" {
			return nil, fmt.Errorf("log-format: '%%' not followed by a variable at offset %d", i)
		}
		if v == "o" { // %{+Q}o: options for every variable after it, not a value
			for j < len(s) && s[j] == ' ' {
				j++
			}
			i = j
			continue
		}
		flush()
		if n := len(f.elems); n > 0 && f.elems[n-1].name != "" {
			return nil, fmt.Errorf("log-format: %s and %%%s are not separated by any text, so their values cannot be told apart", f.elems[n-1].name, v)
		}
		el := hapElem{kind: hapVars[v]}
		if v[0] == '[' {
			el, _ = sampleHeader(v)
		}
		el.name = "%" + v
		switch el.kind {
		case hapDateRequest, hapDateRequestCLF, hapDateAccept, hapDateAcceptCLF, hapAcceptEpoch:
			f.hasTime = true
		}
		f.elems = append(f.elems, el)
		i = j
	}
	flush()
	if !f.hasTime {
		return nil, fmt.Errorf("log-format: no date variable (%%tr, %%trg, %%t, %%T or %%Ts), so events cannot be placed in time")
	}
	return f, nil
}
