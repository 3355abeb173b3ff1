package ingest

import (
	"bytes"

	"github.com/stampede/stampede/timeline"
)

// awsJSConsoleParser accounts for @aws-sdk/middleware-logger records that
// reached the file through `logger: console`: Node prints each record with
// util.inspect, over several lines and with unquoted keys,
//
//	{
//	  clientName: 'DynamoDBClient',
//	  commandName: 'ListTablesCommand',
//	  metadata: { httpStatusCode: 200, requestId: 'NL79…', attempts: 1, totalRetryDelay: 0 }
//	}
//
// and console writes no time. A call without a time cannot be placed in a
// wave or joined to the attempts of another log, so every line is skipped
// with one reason that says what is missing and how to log it instead.
type awsJSConsoleParser struct{}

func (awsJSConsoleParser) format() string { return "aws-js-v3:console" }

const skipAWSConsole = "aws-sdk-js-v3 console output (logger: console) has no timestamps; " +
	"give the client a logger that writes each record as one JSON line with its time (pino, winston), which stampede reads as aws-js-v3"

func (awsJSConsoleParser) parse([]byte, *timeline.Event) string { return skipAWSConsole }

// isInspectRecord reports a line of a middleware-logger record printed by
// util.inspect: `{ clientName: 'X', ...` or `  commandName: 'XCommand',`.
func isInspectRecord(b []byte) bool {
	t := bytes.TrimLeft(b, " \t{")
	return bytes.HasPrefix(t, []byte("clientName: '")) || bytes.HasPrefix(t, []byte("commandName: '"))
}
