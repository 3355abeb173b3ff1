package ingest

import (
	"bytes"
	"strconv"

	"github.com/stampede/stampede/timeline"
)

// jmeterParser reads JMeter's CSV results (JTL). Which columns it writes is
// configurable (jmeter.save.saveservice.*), so the header line names them;
// a file without a header is read in the default column order. The header
// is counted as a skipped line. Each sample is one attempt.
//
// timeStamp is taken as the start of the sample (End = timeStamp +
// elapsed), as with sampleresult.timestamp.start=true; JMeter can be set to
// stamp the end instead, which the file does not say.
type jmeterParser struct {
	csv      csvSplitter
	strs     *interner
	outcomes outcomeCache
	// col holds each wanted column's index, -1 when the file lacks it.
	col     [numJMeterCols]int
	columns int
}

const (
	jmTimeStamp = iota
	jmElapsed
	jmLabel
	jmResponseCode
	jmSuccess
	jmURL
	numJMeterCols
)

var jmeterColNames = [numJMeterCols]string{"timeStamp", "elapsed", "label", "responseCode", "success", "URL"}

// jmeterDefaultHeader is JMeter's default column set, in its order.
const jmeterDefaultHeader = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"

func newJMeterParser(strs *interner) *jmeterParser {
	p := &jmeterParser{strs: strs, outcomes: outcomeCache{}}
	fields, _ := p.csv.split([]byte(jmeterDefaultHeader))
	p.setColumns(fields)
	return p
}

func (p *jmeterParser) format() string { return "jmeter" }

func (p *jmeterParser) setColumns(header [][]byte) {
	for c := range p.col {
		p.col[c] = -1
	}
	for i, h := range header {
		for c, name := range jmeterColNames {
			if string(bytes.TrimSpace(h)) == name {
				p.col[c] = i
			}
		}
	}
	p.columns = len(header)
}

// isJMeterHeader reports whether fields are a JTL header line.
func isJMeterHeader(fields [][]byte) bool {
	return len(fields) > 1 && string(fields[0]) == "timeStamp"
}

func (p *jmeterParser) parse(line []byte, e *timeline.Event) string {
	f, reason := p.csv.split(line)
	if reason != "" {
		return reason
	}
	if isJMeterHeader(f) {
		// A header may also come mid-file where results files were
		// concatenated; it applies to the lines after it.
		p.setColumns(f)
		return "header"
	}
	if len(f) != p.columns {
		return strconv.Itoa(len(f)) + " columns where the header has " + strconv.Itoa(p.columns)
	}
	if p.col[jmTimeStamp] < 0 {
		return "the header has no timeStamp column"
	}
	ts := f[p.col[jmTimeStamp]]
	start, ok := parseEpoch(ts)
	if _, digitsOnly := digits(ts); !ok || !digitsOnly || start < 1e17 {
		return "bad timeStamp " + quoteField(ts) + ": want epoch milliseconds"
	}
	e.Start = start
	if c := p.col[jmElapsed]; c >= 0 {
		ms, ok := digits(f[c])
		if !ok || ms > maxRequestDuration.Milliseconds() {
			return "bad elapsed " + quoteField(f[c]) + ": want milliseconds"
		}
		e.End = start + ms*1e6
	}
	e.Layer = timeline.LayerHTTP
	e.RetryAfter = timeline.NoRetryAfter
	if c := p.col[jmResponseCode]; c >= 0 {
		code := f[c]
		if n, ok := digits(code); ok && n <= 999 {
			e.Status = timeline.Small(n)
		} else if len(code) > 0 {
			// "Non HTTP response code: java.net.SocketTimeoutException":
			// no response, and the exception is the error.
			code, _ = bytes.CutPrefix(code, []byte("Non HTTP response code: "))
			e.ErrorCode = p.strs.label(timeline.LabelErrorCode, code)
		}
	}
	route := []byte(nil)
	if c := p.col[jmURL]; c >= 0 && len(f[c]) > 0 && string(f[c]) != "null" {
		route = pathOnly(f[c])
	} else if c := p.col[jmLabel]; c >= 0 && len(f[c]) > 0 {
		// Without the URL column the sampler's label is the best name.
		route = f[c]
	}
	if route != nil {
		e.Route = p.strs.label(timeline.LabelRoute, route)
	}
	said := outcomeUnsaid
	if c := p.col[jmSuccess]; c >= 0 {
		switch string(f[c]) {
		case "true":
			said = outcomeSaidOK
		case "false":
			said = outcomeSaidError
		default:
			return "bad success " + quoteField(f[c]) + ": want true or false"
		}
	}
	e.Outcome = jsonOutcome(said, e.Status, e.ErrorCode.String(), p.outcomes)
	return ""
}
