package ingest

import (
	"fmt"
	"strings"
)

// Apache httpd's predefined LogFormat nicknames. %t is when the request
// was received, so unlike nginx the line's time is the start.
const (
	apacheCommonFormat   = `%h %l %u %t "%r" %>s %b`
	apacheCombinedFormat = apacheCommonFormat + ` "%{Referer}i" "%{User-Agent}i"`
)

// Debian's and Ubuntu's apache2.conf define these two as well.
// vhost_combined there opens with "%v:%p"; "%v" alone reads the same
// lines (the port stays part of the word) and those of servers that log
// the virtual host without it.
const (
	apacheVhostCombinedFormat = `%v ` + apacheCombinedFormat
	apacheSSLRequestFormat    = `%t %h %{SSL_PROTOCOL}x %{SSL_CIPHER}x "%r" %b`
)

var apacheNamedFormats = map[string]string{
	"common":          apacheCommonFormat,
	"combined":        apacheCombinedFormat,
	"vhost_combined":  apacheVhostCombinedFormat,
	"ssl_request_log": apacheSSLRequestFormat,
}

// apacheCandidates are tried in detection order, most directives first.
var apacheCandidates = []string{"vhost_combined", "combined", "common", "ssl_request_log"}

// compileApacheNamedOrCustom compiles a nickname or a LogFormat string.
func compileApacheNamedOrCustom(s string) (*logFormat, error) {
	if d, ok := apacheNamedFormats[strings.TrimSpace(s)]; ok {
		return compileApacheFormat(strings.TrimSpace(s), d)
	}
	return compileApacheFormat("custom", s)
}

// compileApacheFormat compiles a mod_log_config format string, given bare
// or as a whole `LogFormat "..." nickname` directive, into the shape the
// nginx parser matches. Directives stampede does not use are matched and
// ignored.
func compileApacheFormat(name, def string) (*logFormat, error) {
	text, err := unquoteApacheDirective(def)
	if err != nil {
		return nil, err
	}
	f := &logFormat{family: "apache", name: name, def: text, timeIsStart: true}
	b := newFormatBuilder(f, "LogFormat")
	for i := 0; i < len(text); {
		c := text[i]
		if c != '%' {
			b.literal(c)
			i++
			continue
		}
		if i+1 < len(text) && text[i+1] == '%' {
			b.literal('%')
			i += 2
			continue
		}
		// %[condition]{arg}X: a status condition ("!200,304", "<", ">")
		// only decides whether to log the value, so it is skipped.
		j := i + 1
		for j < len(text) && strings.IndexByte("<>!,0123456789", text[j]) >= 0 {
			j++
		}
		var arg string
		if j < len(text) && text[j] == '{' {
			end := strings.IndexByte(text[j:], '}')
			if end < 0 {
				return nil, fmt.Errorf("LogFormat: unterminated %%{ at offset %d", i)
			}
			arg = text[j+1 : j+end]
			j += end + 1
		}
		if j >= len(text) {
			return nil, fmt.Errorf("LogFormat: '%%' at offset %d is not followed by a directive", i)
		}
		letter := text[j]
		tok := text[i : j+1]
		j++
		if letter == 't' && arg == "" {
			// The default %t renders "[10/Oct/2000:13:55:36 -0700]".
			b.literal('[')
			if err := b.variable("time_local", tok, varTimeLocal); err != nil {
				return nil, err
			}
			b.literal(']')
			i = j
			continue
		}
		kind, err := apacheDirective(letter, arg, tok)
		if err != nil {
			return nil, err
		}
		if err := b.variable(strings.TrimPrefix(tok, "%"), tok, kind); err != nil {
			return nil, err
		}
		i = j
	}
	return b.finish("%t or %{sec}t")
}

// apacheDirective maps one directive to what stampede does with it.
func apacheDirective(letter byte, arg, tok string) (varKind, error) {
	switch letter {
	case 't':
		switch strings.TrimPrefix(arg, "begin:") {
		case "%d/%b/%Y:%H:%M:%S %z":
			return varTimeLocal, nil
		case "sec":
			return varMsec, nil
		case "msec":
			return varTimeEpochMs, nil
		case "usec":
			return varTimeEpochUs, nil
		}
		return 0, fmt.Errorf("LogFormat: %s: stampede reads %%t, %%{sec}t, %%{msec}t, %%{usec}t and %%{%%d/%%b/%%Y:%%H:%%M:%%S %%z}t", tok)
	case 's':
		return varStatus, nil
	case 'r':
		return varRequest, nil
	case 'U':
		return varURI, nil
	case 'D':
		return varDurationUs, nil
	case 'T':
		switch arg {
		case "", "s":
			return varRequestTime, nil
		case "ms":
			return varDurationMs, nil
		case "us":
			return varDurationUs, nil
		}
		return 0, fmt.Errorf("LogFormat: %s: the unit must be s, ms or us", tok)
	case 'L':
		return varRequestID, nil
	case 'i', 'o':
		if arg == "" {
			return 0, fmt.Errorf("LogFormat: %s needs a header name, as in %%{User-Agent}%c", tok, letter)
		}
		prefix := "http_"
		if letter == 'o' {
			prefix = "sent_http_"
		}
		return knownVars[headerVar(prefix, arg)], nil
	}
	if !isVarChar(letter) {
		return 0, fmt.Errorf("LogFormat: %q is not a directive", tok)
	}
	return varIgnored, nil
}

// headerVar names a header the way nginx does: $http_x_task_id.
func headerVar(prefix, header string) string {
	return prefix + strings.ToLower(strings.ReplaceAll(strings.TrimSpace(header), "-", "_"))
}

// unquoteApacheDirective strips an optional `LogFormat` keyword, the
// quotes around the format and its nickname, and undoes \" and \\.
func unquoteApacheDirective(def string) (string, error) {
	s := strings.TrimSpace(def)
	if rest, ok := strings.CutPrefix(s, "LogFormat"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		s = strings.TrimSpace(rest)
	}
	if s == "" {
		return "", fmt.Errorf("LogFormat: empty definition")
	}
	quoted := s[0] == '"'
	if quoted {
		s = s[1:]
	}
	var b strings.Builder
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		if quoted && c == '"' {
			break
		}
		b.WriteByte(c)
	}
	if quoted && i >= len(s) {
		return "", fmt.Errorf("LogFormat: unterminated quote")
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("LogFormat: empty definition")
	}
	return b.String(), nil
}

// formatBuilder assembles a logFormat from literals and variables, for the
// compilers of format languages other than nginx's.
type formatBuilder struct {
	f       *logFormat
	what    string // the directive's name, for messages
	lit     []byte
	prev    string
	hasTime bool
}

func newFormatBuilder(f *logFormat, what string) *formatBuilder {
	return &formatBuilder{f: f, what: what}
}

func (b *formatBuilder) literal(c byte) { b.lit = append(b.lit, c) }

func (b *formatBuilder) variable(name, tok string, kind varKind) error {
	f := b.f
	if len(f.fields) == 0 {
		f.lead = b.lit
	} else {
		if len(b.lit) == 0 {
			return fmt.Errorf("%s: %s and %s are not separated by any text, so their values cannot be told apart", b.what, b.prev, tok)
		}
		f.fields[len(f.fields)-1].next = b.lit
	}
	b.lit = nil
	if isTimeKind(kind) {
		b.hasTime = true
	}
	f.fields = append(f.fields, field{name: name, tok: tok, kind: kind})
	b.prev = tok
	return nil
}

// finish closes the format; timeHint names the directives that give a time.
func (b *formatBuilder) finish(timeHint string) (*logFormat, error) {
	f := b.f
	if len(f.fields) == 0 {
		return nil, fmt.Errorf("%s: %q has nothing to read", b.what, f.def)
	}
	f.fields[len(f.fields)-1].next = b.lit
	if !b.hasTime {
		return nil, fmt.Errorf("%s: no time (%s), so events cannot be placed in time", b.what, timeHint)
	}
	return f, nil
}
