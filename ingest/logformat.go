package ingest

import (
	"fmt"
	"sort"
	"strings"
)

// StampedeLogFormat is the recommended nginx log_format: combined plus the
// timings and the request headers that let stampede join attempts to calls
// and tasks exactly. $msec gives the end of the request to the millisecond.
const StampedeLogFormat = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent ` +
	`"$http_referer" "$http_user_agent" $request_time $upstream_response_time ` +
	`"$http_x_stainless_retry_count" "$http_amz_sdk_request" "$http_amz_sdk_invocation_id" ` +
	`"$http_x_task_id" $msec "$sent_http_retry_after"`

// Named nginx formats, most specific first: auto-detection prefers the one
// with the most variables among those that fit.
const (
	combinedLogFormat = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent ` +
		`"$http_referer" "$http_user_agent"`
	mainLogFormat  = combinedLogFormat + ` "$http_x_forwarded_for"`
	retryLogFormat = combinedLogFormat + ` $request_time $upstream_response_time ` +
		`"$http_x_stainless_retry_count" "$http_amz_sdk_request" "$http_amz_sdk_invocation_id" "$http_x_task_id"`
	// upstreaminfoLogFormat is Kubernetes ingress-nginx's default
	// (log-format-upstream); $req_id is its request id.
	upstreaminfoLogFormat = combinedLogFormat + ` $request_length $request_time [$proxy_upstream_name] ` +
		`[$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time ` +
		`$upstream_status $req_id`
	// mainTimingLogFormat is main with the timings that guides to nginx
	// monitoring add to it.
	mainTimingLogFormat = mainLogFormat + ` rt=$request_time uct="$upstream_connect_time" ` +
		`uht="$upstream_header_time" urt="$upstream_response_time"`
)

var namedFormats = map[string]string{
	"combined":     combinedLogFormat,
	"main":         mainLogFormat,
	"main_timing":  mainTimingLogFormat,
	"retry":        retryLogFormat,
	"stampede":     StampedeLogFormat,
	"upstreaminfo": upstreaminfoLogFormat,
}

// NginxFormats returns the named nginx formats, name -> log_format
// definition. The map is a copy.
func NginxFormats() map[string]string {
	m := make(map[string]string, len(namedFormats))
	for k, v := range namedFormats {
		m[k] = v
	}
	return m
}

// NginxFormatNames lists the named formats in a stable order.
func NginxFormatNames() []string {
	names := make([]string, 0, len(namedFormats))
	for k := range namedFormats {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// varKind is what stampede does with a variable's value.
type varKind uint8

const (
	varIgnored varKind = iota
	varTimeLocal
	varTimeISO
	varMsec
	varStatus
	varRequest
	varURI
	varRequestTime
	varUpstreamStatus
	varUpstreamList // a comma-separated list whose value is not used
	varUserAgent
	varRetryCount
	varAmzSDKRequest
	varCallID
	varTaskID
	varRequestID
	varRetryAfter
	varRetryAfterMs
	varErrorType
	varUpstreamTimes // $upstream_response_time: one duration per upstream attempt
	varDurationMs    // Envoy %DURATION%, Apache %{ms}T
	varDurationUs    // Apache %D, %{us}T
	varResponseFlags // Envoy %RESPONSE_FLAGS%
	varAttemptCount  // attempts made upstream for this request (Envoy)
	varAttemptNumber // the attempt number this request is (x-envoy-attempt-count)
	varTimeEpochMs   // Apache %{msec}t
	varTimeEpochUs   // Apache %{usec}t
)

// isListKind reports whether a variable holds nginx's upstream lists, whose
// separators may look like the literal after them.
func isListKind(k varKind) bool {
	return k == varUpstreamList || k == varUpstreamStatus || k == varUpstreamTimes
}

// isTimeKind reports whether a variable places the event in time.
func isTimeKind(k varKind) bool {
	return k == varTimeLocal || k == varTimeISO || k == varMsec || k == varTimeEpochMs || k == varTimeEpochUs
}

var knownVars = map[string]varKind{
	"time_local":                      varTimeLocal,
	"time_iso8601":                    varTimeISO,
	"msec":                            varMsec,
	"status":                          varStatus,
	"request":                         varRequest,
	"request_uri":                     varURI,
	"uri":                             varURI,
	"document_uri":                    varURI,
	"request_time":                    varRequestTime,
	"upstream_status":                 varUpstreamStatus,
	"upstream_response_time":          varUpstreamTimes,
	"upstream_connect_time":           varUpstreamList,
	"upstream_header_time":            varUpstreamList,
	"upstream_addr":                   varUpstreamList,
	"upstream_response_length":        varUpstreamList,
	"upstream_bytes_received":         varUpstreamList,
	"upstream_bytes_sent":             varUpstreamList,
	"http_user_agent":                 varUserAgent,
	"http_x_stainless_retry_count":    varRetryCount,
	"http_amz_sdk_request":            varAmzSDKRequest,
	"http_amz_sdk_invocation_id":      varCallID,
	"http_x_call_id":                  varCallID,
	"http_x_task_id":                  varTaskID,
	"http_x_job_id":                   varTaskID,
	"http_x_request_id":               varRequestID,
	"request_id":                      varRequestID,
	"req_id":                          varRequestID,
	"sent_http_x_request_id":          varRequestID,
	"sent_http_x_amzn_requestid":      varRequestID,
	"sent_http_retry_after":           varRetryAfter,
	"upstream_http_retry_after":       varRetryAfter,
	"sent_http_retry_after_ms":        varRetryAfterMs,
	"upstream_http_retry_after_ms":    varRetryAfterMs,
	"sent_http_x_amzn_errortype":      varErrorType,
	"upstream_http_x_amzn_errortype":  varErrorType,
	"http_x_envoy_attempt_count":      varAttemptNumber,
	"sent_http_x_envoy_attempt_count": varAttemptCount,
}

// field is one variable and the literal text that follows it.
type field struct {
	name string // without '$', for messages
	// tok is the token as the format spells it ("%>s", "%DURATION%") for
	// formats other than nginx; messages use it when set.
	tok  string
	kind varKind
	// next is the literal that ends the value; empty only for a variable
	// at the very end of the format, whose value runs to the end of line.
	next []byte
}

// display renders the variable for messages as its format spells it.
func (fd *field) display() string {
	if fd.tok != "" {
		return fd.tok
	}
	return "$" + fd.name
}

// logFormat is a compiled nginx log_format: a leading literal, then
// variables each followed by a literal. Apache LogFormat and Envoy format
// strings compile to the same shape.
type logFormat struct {
	family string // "nginx", "apache" or "envoy"
	name   string // "combined", ..., or "custom"
	def    string
	lead   []byte
	fields []field
	// timeIsStart: the line's time is when the request began (Apache %t,
	// Envoy %START_TIME%), not when it was logged at its end (nginx).
	timeIsStart bool
}

// CompileLogFormat checks a format definition the way parsing will use
// it, in the language Options.LogFormat would pick for it (nginx, Apache
// or Envoy); the error names the offending token. It accepts a named
// format too.
func CompileLogFormat(def string) error {
	var err error
	switch logFormatFamily(def) {
	case "apache":
		_, err = compileApacheNamedOrCustom(def)
	case "envoy":
		_, err = compileEnvoyNamedOrCustom(def)
	case "haproxy":
		_, err = compileHAProxyNamedOrCustom(def)
	case "cloudfront":
		// A field list: any names, unknown ones ignored.
	default:
		_, err = compileNamedOrCustom(def)
	}
	return err
}

func compileNamedOrCustom(s string) (*logFormat, error) {
	if d, ok := namedFormats[strings.TrimSpace(s)]; ok {
		return compileLogFormat(strings.TrimSpace(s), d)
	}
	return compileLogFormat("custom", s)
}

// compileLogFormat compiles a definition given verbatim: the text of the
// quoted pieces, or a whole `log_format name '...' '...';` directive.
func compileLogFormat(name, def string) (*logFormat, error) {
	text, err := unquoteDirective(def)
	if err != nil {
		return nil, err
	}
	f := &logFormat{family: "nginx", name: name, def: text}
	var lit []byte
	prev := ""
	hasTime := false
	for i := 0; i < len(text); {
		c := text[i]
		if c != '$' {
			lit = append(lit, c)
			i++
			continue
		}
		var v string
		j := i + 1
		if j < len(text) && text[j] == '{' {
			end := strings.IndexByte(text[j:], '}')
			if end < 0 {
				return nil, fmt.Errorf("log_format: unterminated ${ at offset %d", i)
			}
			v = text[j+1 : j+end]
			if !isVarName(v) {
				return nil, fmt.Errorf("log_format: invalid variable %q at offset %d", text[i:j+end+1], i)
			}
			j += end + 1
		} else {
			for j < len(text) && isVarChar(text[j]) {
				j++
			}
			v = text[i+1 : j]
			if v == "" {
				return nil, fmt.Errorf("log_format: '$' not followed by a variable name at offset %d", i)
			}
		}
		if len(f.fields) == 0 {
			f.lead = lit
		} else {
			if len(lit) == 0 {
				return nil, fmt.Errorf("log_format: $%s and $%s are not separated by any text, so their values cannot be told apart", prev, v)
			}
			f.fields[len(f.fields)-1].next = lit
		}
		lit = nil
		k := knownVars[strings.ToLower(v)]
		if isTimeKind(k) {
			hasTime = true
		}
		f.fields = append(f.fields, field{name: v, kind: k})
		prev = v
		i = j
	}
	if len(f.fields) == 0 {
		return nil, fmt.Errorf("log_format: %q has no variables", text)
	}
	f.fields[len(f.fields)-1].next = lit
	if !hasTime {
		return nil, fmt.Errorf("log_format: no time variable ($time_local, $time_iso8601 or $msec), so events cannot be placed in time")
	}
	return f, nil
}

func isVarChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isVarChar(s[i]) {
			return false
		}
	}
	return true
}

// unquoteDirective strips an optional `log_format NAME [escape=...]` prefix
// and concatenates the quoted pieces as nginx does. Unquoted text is taken
// verbatim.
func unquoteDirective(def string) (string, error) {
	s := strings.TrimSpace(def)
	if rest, ok := strings.CutPrefix(s, "log_format"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		rest = strings.TrimSpace(rest)
		// The format name.
		n := strings.IndexAny(rest, " \t\n")
		if n < 0 {
			return "", fmt.Errorf("log_format: directive %q has a name but no format", s)
		}
		rest = strings.TrimSpace(rest[n:])
		if e, ok := strings.CutPrefix(rest, "escape="); ok {
			n := strings.IndexAny(e, " \t\n")
			if n < 0 {
				return "", fmt.Errorf("log_format: directive %q has no format after escape=", s)
			}
			rest = strings.TrimSpace(e[n:])
		}
		s = rest
	}
	if s == "" {
		return "", fmt.Errorf("log_format: empty definition")
	}
	if s[0] != '\'' && s[0] != '"' {
		return strings.TrimSuffix(s, ";"), nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == ';':
			if strings.TrimSpace(s[i+1:]) != "" {
				return "", fmt.Errorf("log_format: unexpected text after ';' at offset %d", i)
			}
			i = len(s)
		case c == '\'' || c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					b.WriteByte(s[j])
					continue
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return "", fmt.Errorf("log_format: unterminated quote starting at offset %d", i)
			}
			i = j + 1
		default:
			return "", fmt.Errorf("log_format: unexpected %q at offset %d outside quotes", c, i)
		}
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("log_format: empty definition")
	}
	return b.String(), nil
}
