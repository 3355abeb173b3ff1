package ingest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stampede/stampede/timeline"
)

// accessFormat describes one load-tester results or proxy access log
// format: its Options.Format name and aliases, how detection recognises
// it, and its parser.
type accessFormat struct {
	name      string
	aliases   []string
	detect    string
	sniff     sniffer
	newParser func(strs *interner) lineParser
}

// accessFormats are in detection order. The JSON ones must run before
// sniffJSONL, which claims any file of JSON objects; the CSV and CLF ones
// before the nginx and Apache sniffers, which try loose named formats.
var accessFormats = []accessFormat{
	{"k6", nil, "half of the first 50 lines are k6 --out json Point or Metric records", sniffK6,
		func(s *interner) lineParser { return newK6Parser(s) }},
	{"vegeta-json", nil, "half of the first 50 lines are Vegeta JSON results (timestamp, code, latency)", sniffVegetaJSON,
		func(s *interner) lineParser { return newVegetaJSONParser(s) }},
	{"caddy", nil, "half of the first 50 lines are Caddy log entries (logger, ts), one from http.log.access", sniffCaddy,
		func(s *interner) lineParser { return newCaddyParser(s) }},
	{"cloudflare", []string{"cloudflare-logpush"}, "half of the first 50 lines are Cloudflare Logpush http_requests JSON records (EdgeStartTimestamp with EdgeResponseStatus, RayID or ClientRequestHost); a 4xx the edge sent with OriginResponseStatus 0 is the edge's own (code cloudflare:...)", sniffCloudflare,
		func(s *interner) lineParser { return newCloudflareParser(s) }},
	{"gcp-lb", []string{"gclb"}, "half of the first 50 lines are Cloud Logging entries of a Google Cloud load balancer (httpRequest, with a LoadBalancerLogEntry jsonPayload or a load balancer resource); a 4xx or 5xx whose statusDetails is not response_sent_by_backend is the load balancer's own (code gclb:<statusDetails>)", sniffGCPLB,
		func(s *interner) lineParser { return newGCPLBParser(s) }},
	{"kong", nil, "half of the first 50 lines are Kong file-log JSON records (started_at, latencies.request, response.status); a 4xx with latencies.proxy -1 is Kong's own (code kong)", sniffKong,
		func(s *interner) lineParser { return newKongParser(s) }},
	{"traefik-json", []string{"traefik"}, "half of the first 50 lines are Traefik JSON access log entries (StartUTC, DownstreamStatus)", sniffTraefikJSON,
		func(s *interner) lineParser { return newTraefikJSONParser(s) }},
	{"apigateway-json", []string{"apigateway"}, "half of the first 50 lines are API Gateway JSON access log entries (requestId, requestTime, status); records pretty-printed as the CloudWatch console shows them are read as apigateway-json:pretty", sniffAPIGatewayJSON,
		func(s *interner) lineParser { return newAPIGatewayJSONParser(s) }},
	{"jmeter", []string{"jtl"}, "the first line is a JMeter CSV header (timeStamp,...), or 90% of the first 50 lines read in JMeter's default columns", sniffJMeter,
		func(s *interner) lineParser { return newJMeterParser(s) }},
	{"vegeta-csv", nil, "90% of the first 50 lines are Vegeta CSV results (6, 9 or 12 columns, Unix-nanosecond timestamp first)", sniffVegetaCSV,
		func(s *interner) lineParser { return newVegetaCSVParser(s) }},
	{"traefik-clf", nil, "90% of the first 50 lines are Traefik common format (CLF with \"router\" \"server URL\" Nms), or it explains the lines best among the text access-log formats", sniffTraefikCLF,
		func(s *interner) lineParser { return newTraefikCLFParser(s) }},
	{"apigateway-clf", nil, "90% of the first 50 lines are API Gateway's CLF template (CLF ending in status, length, requestId), or it explains the lines best among the text access-log formats", sniffAPIGatewayCLF,
		func(s *interner) lineParser { return newAPIGatewayCLFParser(s) }},
}

// accessFormatSniffers are the sniffers of accessFormats, in order.
var accessFormatSniffers = func() []sniffer {
	out := make([]sniffer, len(accessFormats))
	for i, f := range accessFormats {
		out[i] = f.sniff
	}
	return out
}()

// newAccessFormatParser returns the parser for an Options.Format name or
// alias (lower case), or nil when it names none of these formats.
func newAccessFormatParser(format string, strs *interner) lineParser {
	for _, f := range accessFormats {
		if f.name == format || slices.Contains(f.aliases, format) {
			return f.newParser(strs)
		}
	}
	return nil
}

// sampleShare tries each sample line and reports whether at least
// need/10 of them are recognised; why says how many were and the first
// line that was not.
func sampleShare(name string, sample []sampledLine, need int, try func(line []byte) string) (ok bool, why string) {
	good, firstBad := 0, ""
	for _, l := range sample {
		if reason := try(l.text); reason == "" {
			good++
		} else if firstBad == "" {
			firstBad = fmt.Sprintf("; line %d: %s", l.n, reason)
		}
	}
	if len(sample) > 0 && good*10 >= len(sample)*need {
		return true, ""
	}
	return false, fmt.Sprintf("%s (%d of %d lines%s)", name, good, len(sample), firstBad)
}

// parses adapts a parser to sampleShare.
func parses(p lineParser) func([]byte) string {
	return func(line []byte) string {
		var e timeline.Event
		return p.parse(line, &e)
	}
}

// The JSON formats, like sniffJSONL, need half of the lines: a log cut
// mid-line by rotation starts with a fragment.
const (
	jsonShare = 5
	textShare = 9
)

func sniffK6(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	js := newJSONPaths("type", "metric")
	ok, why := sampleShare("k6", sample, jsonShare, func(line []byte) string {
		if reason := js.scan(line); reason != "" {
			return reason
		}
		if t := string(js.text(0)); (t != "Point" && t != "Metric") || js.text(1) == nil {
			return "not a k6 Point or Metric record"
		}
		return ""
	})
	if !ok {
		return nil, why
	}
	return newK6Parser(strs), ""
}

func sniffVegetaJSON(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p := newVegetaJSONParser(newInterner())
	ok, why := sampleShare("vegeta-json", sample, jsonShare, func(line []byte) string {
		if reason := parses(p)(line); reason != "" {
			return reason
		}
		if p.js.get(vjLatency) == nil {
			return "no latency"
		}
		return ""
	})
	if !ok {
		return nil, why
	}
	return newVegetaJSONParser(strs), ""
}

// sniffCaddy wants half of the lines to be Caddy's (any logger with a ts)
// and at least one access log entry: Caddy writes its other loggers to the
// same file, but so do other zap-based programs.
func sniffCaddy(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	js := newJSONPaths("logger", "ts")
	access := 0
	ok, why := sampleShare("caddy", sample, jsonShare, func(line []byte) string {
		if reason := js.scan(line); reason != "" {
			return reason
		}
		logger := js.text(0)
		if logger == nil || js.get(1) == nil {
			return "no logger and ts"
		}
		if isCaddyAccessLogger(logger) {
			access++
		}
		return ""
	})
	if !ok {
		return nil, why
	}
	if access == 0 {
		return nil, "caddy (no line from logger http.log.access)"
	}
	return newCaddyParser(strs), ""
}

func sniffTraefikJSON(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p := newTraefikJSONParser(newInterner())
	ok, why := sampleShare("traefik-json", sample, jsonShare, func(line []byte) string {
		if reason := parses(p)(line); reason != "" {
			return reason
		}
		if p.js.text(tfStatus) == nil {
			return "no DownstreamStatus"
		}
		return ""
	})
	if !ok {
		return nil, why
	}
	return newTraefikJSONParser(strs), ""
}

func sniffAPIGatewayJSON(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p := newAPIGatewayJSONParser(newInterner())
	ok, why := sampleShare("apigateway-json", sample, jsonShare, func(line []byte) string {
		if reason := parses(p)(line); reason != "" {
			return reason
		}
		if p.js.text(agStatus) == nil {
			return "no status"
		}
		return ""
	})
	if !ok {
		return nil, why
	}
	return newAPIGatewayJSONParser(strs), ""
}

// sniffJMeter claims a file whose first line is a JTL header, or whose
// lines read in JMeter's default columns.
func sniffJMeter(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	var csv csvSplitter
	if len(sample) == 0 {
		return nil, "jmeter (no lines)"
	}
	if f, _ := csv.split(sample[0].text); isJMeterHeader(f) {
		return newJMeterParser(strs), ""
	}
	ok, why := sampleShare("jmeter", sample, textShare, parses(newJMeterParser(newInterner())))
	if !ok {
		if strings.HasPrefix(why, "jmeter (") {
			why = "jmeter (no timeStamp header; " + why[len("jmeter ("):]
		}
		return nil, why
	}
	return newJMeterParser(strs), ""
}

func sniffVegetaCSV(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	ok, why := sampleShare("vegeta-csv", sample, textShare, parses(newVegetaCSVParser(newInterner())))
	if !ok {
		return nil, why
	}
	return newVegetaCSVParser(strs), ""
}

func sniffTraefikCLF(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	ok, why := sampleShare("traefik-clf", sample, textShare, parses(newTraefikCLFParser(newInterner())))
	if !ok {
		return nil, why
	}
	return newTraefikCLFParser(strs), ""
}

func sniffAPIGatewayCLF(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	ok, why := sampleShare("apigateway-clf", sample, textShare, parses(newAPIGatewayCLFParser(newInterner())))
	if !ok {
		return nil, why
	}
	return newAPIGatewayCLFParser(strs), ""
}
