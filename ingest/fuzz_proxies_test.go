package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzParserLines seeds a fuzz target with the lines of an example and
// checks that any input keeps the books of newParser balanced.
func fuzzParserLines(f *testing.F, example string, newParser func() lineParser) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "ingest", example))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, input string) {
		checkAccessAccounting(t, []byte(input+"\n"+input), newParser())
	})
}

func FuzzCloudflareLine(f *testing.F) {
	f.Add(`{"EdgeStartTimestamp":1e400,"EdgeResponseStatus":429,"OriginResponseStatus":0,"SecuritySources":[{"x":1}]}`)
	fuzzParserLines(f, "cloudflare/http_requests.json", func() lineParser { return newCloudflareParser(newInterner()) })
}

func FuzzGCPLBLine(f *testing.F) {
	f.Add(`{"timestamp":"2026-12-01T12:00:18Z","httpRequest":{"status":429,"latency":"-1s"},"jsonPayload":{"statusDetails":"x"}}`)
	fuzzParserLines(f, "gcp-lb/requests.jsonl", func() lineParser { return newGCPLBParser(newInterner()) })
}

func FuzzKongLine(f *testing.F) {
	f.Add(`{"started_at":0,"latencies":{"request":-5,"proxy":-1},"response":{"status":429}}`)
	fuzzParserLines(f, "kong/file-log.json", func() lineParser { return newKongParser(newInterner()) })
}

// FuzzCloudFrontLines reads input as a whole log, so that #Fields headers
// met mid-input change the columns of the lines after them.
func FuzzCloudFrontLines(f *testing.F) {
	f.Add("#Fields: timestamp sc-status time-taken cs-headers\n1796126418.031\t429\t0.005\tx-task-id:%zz%0A")
	f.Add("#Fields:\n\t\t")
	fuzzParserLines(f, "cloudfront/standard.log", func() lineParser { return newCloudFrontParser(newInterner()) })
}
