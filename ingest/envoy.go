package ingest

import (
	"fmt"
	"strings"
)

// EnvoyDefaultFormat is Envoy's default access log format. %START_TIME% is
// when the request began and %DURATION% its length in milliseconds.
const EnvoyDefaultFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" ` +
	`%RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% ` +
	`%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
	`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"`

// Istio's proxies log in their own default format: istio since Istio 1.8
// adds the response code details and the upstream and downstream
// addresses; istio_mixer is the format of the releases with Mixer (up to
// 1.7), which logged Mixer's status in their place.
const (
	istioLogFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" ` +
		`%RESPONSE_CODE% %RESPONSE_FLAGS% %RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS% ` +
		`"%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% %DURATION% ` +
		`%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
		`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" %UPSTREAM_CLUSTER% ` +
		`%UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS% ` +
		`%REQUESTED_SERVER_NAME% %ROUTE_NAME%`
	istioMixerLogFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" ` +
		`%RESPONSE_CODE% %RESPONSE_FLAGS% "%DYNAMIC_METADATA(istio.mixer:status)%" ` +
		`"%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% %DURATION% ` +
		`%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
		`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" %UPSTREAM_CLUSTER% ` +
		`%UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS% ` +
		`%REQUESTED_SERVER_NAME% %ROUTE_NAME%`
)

var envoyNamedFormats = map[string]string{
	"default":     EnvoyDefaultFormat,
	"istio":       istioLogFormat,
	"istio_mixer": istioMixerLogFormat,
}

// envoyCandidates are the named formats in detection order.
var envoyCandidates = []string{"istio", "istio_mixer", "default"}

// envoyOperators are the command operators stampede reads; any other is
// matched and ignored.
var envoyOperators = map[string]varKind{
	"RESPONSE_CODE":                  varStatus,
	"RESPONSE_FLAGS":                 varResponseFlags,
	"DURATION":                       varDurationMs,
	"UPSTREAM_REQUEST_ATTEMPT_COUNT": varAttemptCount,
}

func compileEnvoyNamedOrCustom(s string) (*logFormat, error) {
	if d, ok := envoyNamedFormats[strings.TrimSpace(s)]; ok {
		return compileEnvoyFormat(strings.TrimSpace(s), d)
	}
	return compileEnvoyFormat("custom", s)
}

// compileEnvoyFormat compiles an Envoy text format string
// (text_format_source / the format field) into the shape the nginx parser
// matches.
func compileEnvoyFormat(name, def string) (*logFormat, error) {
	text := strings.TrimSpace(def)
	// The config spells the line end as "\n"; the log line has none.
	text = strings.TrimSuffix(strings.TrimSuffix(text, `\n`), "\n")
	if len(text) >= 2 && (text[0] == '\'' || text[0] == '"') && text[len(text)-1] == text[0] {
		text = text[1 : len(text)-1]
		text = strings.TrimSuffix(text, `\n`)
	}
	f := &logFormat{family: "envoy", name: name, def: text, timeIsStart: true}
	b := newFormatBuilder(f, "envoy format")
	for i := 0; i < len(text); {
		c := text[i]
		if c != '%' {
			b.literal(c)
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] == '_' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= '0' && text[j] <= '9') {
			j++
		}
		op := text[i+1 : j]
		if op == "" {
			return nil, fmt.Errorf("envoy format: '%%' at offset %d is not followed by an operator", i)
		}
		var arg string
		if j < len(text) && text[j] == '(' {
			end := strings.IndexByte(text[j:], ')')
			if end < 0 {
				return nil, fmt.Errorf("envoy format: unterminated %%%s( at offset %d", op, i)
			}
			arg = text[j+1 : j+end]
			j += end + 1
		}
		if j < len(text) && text[j] == ':' { // max length, as in %REQ(X):10%
			j++
			for j < len(text) && text[j] >= '0' && text[j] <= '9' {
				j++
			}
		}
		if j >= len(text) || text[j] != '%' {
			return nil, fmt.Errorf("envoy format: %%%s at offset %d has no closing '%%'", op, i)
		}
		tok := text[i : j+1]
		kind, err := envoyOperator(op, arg, tok)
		if err != nil {
			return nil, err
		}
		if err := b.variable(op, tok, kind); err != nil {
			return nil, err
		}
		i = j + 1
	}
	return b.finish("%START_TIME%")
}

func envoyOperator(op, arg, tok string) (varKind, error) {
	switch op {
	case "START_TIME":
		switch {
		case arg == "" || strings.HasPrefix(arg, "%Y-%m-%dT%H:%M:%"):
			return varTimeISO, nil
		case arg == "%s":
			return varMsec, nil
		}
		return 0, fmt.Errorf("envoy format: %s: stampede reads the default START_TIME, ISO 8601 (%%Y-%%m-%%dT%%H:%%M:%%S or %%E3S...) or %%s", tok)
	case "REQ", "RESP":
		prefix := "http_"
		if op == "RESP" {
			prefix = "sent_http_"
		}
		// "X-ENVOY-ORIGINAL-PATH?:PATH": the first header present; both
		// alternatives mean the same to stampede.
		for _, h := range strings.Split(arg, "?") {
			switch strings.ToLower(strings.TrimSpace(h)) {
			case ":path", "x-envoy-original-path":
				if op == "REQ" {
					return varURI, nil
				}
			}
			if k := knownVars[headerVar(prefix, h)]; k != varIgnored {
				return k, nil
			}
		}
		return varIgnored, nil
	}
	return envoyOperators[op], nil
}
