// Package ingest reads incident logs into a timeline.Timeline: access
// logs of nginx (any log_format), Apache httpd (any LogFormat), Envoy (text
// or JSON), HAProxy (any log-format), AWS Application Load Balancers,
// CloudFront, Cloudflare, Google Cloud load balancers and Kong, JSON-lines call logs
// written by applications around their SDK calls, OpenTelemetry client
// spans, HAR archives, load-test results and SDK debug logs.
//
// Every line of a file is accounted for in its timeline.Source: it is
// either parsed or counted as skipped with a reason, so Parsed + Skipped ==
// Lines always holds. A parsed line usually yields one event; a line that
// records a proxy's upstream retries yields one event per attempt, so
// Source.Events counts events and may exceed Parsed. A malformed line never
// stops reading; only input that cannot be used at all (unreadable, format
// not recognised, invalid format definition) is an error. Events are
// appended in file order; callers sort the merged timeline. Gzip input is
// detected by its magic bytes; a UTF-8 BOM and CRLF line ends are accepted;
// a line longer than 4 MiB is skipped.
//
// # Formats and detection
//
// Formats lists every format with its detection rule and the timeline
// fields it fills. Options.Format names one ("nginx", "jsonl", "apache",
// "envoy", "envoy-json", "haproxy", "cloudfront", "alb", ...), optionally
// with the variant Source.Format reports ("apache:common", "nginx:retry",
// "haproxy:clf"), and skips detection. Otherwise
// the first 50 non-blank lines go through a chain of sniffers, and the
// first to claim them wins:
//
//	har         the input opens with '{' and its first lines hold "log" and "entries"
//	otlp-json   half the lines are JSON objects with "resourceSpans"
//	envoy-json  half the lines are JSON objects with "start_time" and "response_code" or "response_flags"
//	(JSON and CSV access-log and load-test formats, each by its keys or columns)
//	:pretty     the first record is a pretty-printed object a JSON access-log format reads
//	jsonl       half the lines start with '{'
//	(SDK logs, each by its markers)
//	haproxy     half the lines read in HAProxy's httplog or clf format
//	cloudfront  a #Fields header with x-edge-request-id, or 90% real-time log lines
//	text        the named format of nginx, Apache, Envoy, Traefik CLF or API Gateway CLF
//	            that explains the lines best, if it reads half of them (below)
//	alb         90% are ALB entries, or 90% open with a request type and an ISO time and most parse
//
// Text access logs share a shape, so a line often parses under several
// formats. Every candidate reads the sample, and the one that explains most
// of it wins: each line scores the share of its bytes the format explains,
// text after the end of the format or a second word in a one-word value
// (an extra field swallowed by $remote_addr) counting against it. Ties go
// to the format with more fields, nginx before Apache. A named format also
// reads lines of the named formats it extends (main reads combined lines,
// as a log whose format gained fields at its end holds both), and, when
// detected, lines with extra quoted values at their end (request headers
// logged after a named format), as not fully explained. When no format
// reads whole lines, the closest is read with the rest of each line
// ignored. Doubts become Source.Warnings: a runner-up that reads the sample
// almost as well but into different events, lines only partly explained,
// fewer than 90% read; each names the option that settles it.
//
// Before the chain, a docker compose ("web-1  | "), kubectl --timestamps
// or syslog prefix on 90% of the lines is looked for; the access-log and
// load-test sniffers then see the lines without it, and the chosen parser
// reads each line past it. The SDK log parsers read their logging
// framework's prefixes themselves and see lines whole.
//
// A sniffer that declines says why, and the error for undetectable input
// lists every reason. Options.LogFormat without Options.Format picks the
// language from the definition: $variables are nginx, %OPERATORS% (such as
// %START_TIME% or %REQ(...)%) Envoy, HAProxy's variables (%ci, %tr, %ST,
// %Ta, %{+Q}r) HAProxy, a list of CloudFront field names CloudFront, other
// %directives Apache; a bare name
// is looked up among nginx's named formats first, so "combined" means
// nginx's, "common" Apache's and "default" Envoy's.
//
// # nginx
//
// A log_format definition is compiled into literals and variables; a
// variable's value runs up to the first occurrence of the literal that
// follows it, and a line must match the whole format. The variables read
// are $time_local, $time_iso8601, $msec, $status, $request, $request_uri,
// $uri, $request_time, $upstream_status, $upstream_response_time,
// $http_user_agent, $http_x_stainless_retry_count (retries so far, so
// attempt = n+1), $http_amz_sdk_request (attempt=N; max=M),
// $http_amz_sdk_invocation_id and $http_x_call_id (call), $http_x_task_id
// and $http_x_job_id (task), $http_x_request_id and $request_id,
// $sent_http_retry_after (seconds or an HTTP date) and
// $sent_http_retry_after_ms, and $sent_http_x_amzn_errortype. Other
// variables are matched and ignored; "-" means absent. nginx writes a line
// when the request ends: it ended at $msec (else $time_local, to the
// second) and began $request_time earlier.
// $time_local also accepts an ISO 8601 time, so that a named format with
// [$time_iso8601] in its place reads; the built-in formats with
// $request_time (retry, stampede, upstreaminfo, main_timing) start their
// events that much before the logged time. The last value of a format
// that runs to the end of the line is one word: more text after it is
// "unexpected text ... after the end of the format".
//
// When nginx passed a request to several upstreams in turn
// (proxy_next_upstream), $upstream_status holds a list: "502, 429" for the
// next upstream, " : " after an internal redirect. Each element is one
// attempt, emitted as its own event with the list's status, numbered 1..n
// (unless the client numbered its own attempt, as SDKs do, which every
// event keeps). The attempts ran back to back and the last ended at the
// line's time, so $upstream_response_time, read from the end, gives each
// its span; without a list of the same length every attempt keeps the
// request's span. Only the last attempt carries the response headers the
// client saw (retry-after, error type); a last status of "-" (the client
// went away first) takes $status. More than 64 elements are cut to 64.
//
// # Apache httpd
//
// LogFormat strings compile like nginx's log_format; "common" and
// "combined" are predefined, and a whole `LogFormat "..." nickname`
// directive is accepted as written in httpd.conf. Directives read: %t (and
// %{%d/%b/%Y:%H:%M:%S %z}t, %{sec}t, %{msec}t, %{usec}t), %r, %U, %s and
// %>s, %D (microseconds), %T and %{s}T (seconds), %{ms}T, %{us}T, %L
// (request id), %{Header}i for any request header and %{Header}o for any
// response header, read as nginx reads $http_header and $sent_http_header
// (so %{X-Task-Id}i is the task, %{Retry-After}o the retry-after). Other
// directives are matched and ignored. Unlike nginx, Apache's %t is when
// the request arrived: the event starts there and ends %D later (no end
// without a duration). A combined line reads the same under nginx's
// combined format, which detection tries first; its time is then taken as
// the end. Pin Options.Format "apache" when the log comes from httpd.
//
// # Envoy
//
// Text format strings compile the same way; "default" is Envoy's default
// format. Operators read: %START_TIME% (default, ISO 8601 patterns, or
// %s), %RESPONSE_CODE%, %RESPONSE_FLAGS%, %DURATION% (ms),
// %UPSTREAM_REQUEST_ATTEMPT_COUNT%, %REQ(:PATH)% and
// %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%, %REQ(Header)% and %RESP(Header)% read
// like nginx's $http_ and $sent_http_ variables, %REQ(X-ENVOY-ATTEMPT-COUNT)%
// (this request's attempt number) and %RESP(X-ENVOY-ATTEMPT-COUNT)% (the
// attempts Envoy made). The event starts at %START_TIME% and lasts
// %DURATION%. On a response that is not 2xx or 3xx the response flags
// become the error code: RL (rate limited locally, with a 429: a
// throttle), URX (upstream retry limit reached), UO (circuit breaker
// overflow), UF, UH, DC and so on; on a success they only annotate.
//
// An upstream attempt count N > 1 means Envoy's router retried: the line
// becomes N attempts numbered 1..N. The last keeps the response; the
// earlier ones are retryable errors with no status, placed at the
// request's start with no end, since the log says neither when they ran
// nor what they got, only that the router retried, which it does on a
// retryable failure.
//
// Envoy JSON (json_format or typed_json_format) has keys of the user's
// choosing; stampede reads those of Envoy's and Istio's examples, in this
// order of preference:
//
//	start         start_time, timestamp, @timestamp
//	duration      duration, duration_ms (milliseconds)
//	status        response_code, status_code, status
//	code          response_flags (as in the text format)
//	attempts      upstream_request_attempt_count (N > 1 splits as above)
//	attempt       x_envoy_attempt_count; else x_stainless_retry_count (+1)
//	route         x_envoy_original_path, path, request_path (query dropped)
//	client        user_agent
//	request       x_request_id, request_id
//	task, call    x_task_id, task_id; amz_sdk_invocation_id, x_call_id, call_id
//	retry_after   retry_after (seconds)
//
// Values may be strings or numbers; "-" (json_format) and null
// (typed_json_format) mean unset.
//
// # OpenTelemetry traces and HAR archives
//
// The OpenTelemetry collector's file exporter writes one OTLP/JSON
// ExportTraceServiceRequest per line; each CLIENT span with an HTTP status
// is one attempt, so a line holds many (see otlpParser for the attributes
// read). A HAR 1.2 archive is one JSON document, read whole (up to 1 GiB)
// rather than by line; each log entry is one attempt, and the line
// accounting is by the lines each entry spans (see harParser). Both are
// client-side records (timeline.ObserverClient).
//
// # AWS Application Load Balancer
//
// Entries are read by position (type, time, elb, client:port, target:port,
// the three processing times, elb_status_code, target_status_code, ...,
// "request", "user_agent", ..., "trace_id", ..., request_creation_time);
// fields AWS added later are optional and any beyond are ignored. The
// event starts at request_creation_time (when the ALB received the
// request) and ends at time (when it sent the response); older entries
// without request_creation_time start the processing times before time,
// -1 counting as 0. Status is elb_status_code, what the client got. When
// no target answered (target_status_code "-") and the status is 400 or
// more, the error code is ALBErrorCode ("elb"): the load balancer (or WAF)
// generated the response itself, so its 429s and 503s are told apart from
// the backend's. Route is the path of the request URL, Client the user
// agent, and Request the X-Amzn-Trace-Id.
//
// # HAProxy
//
// HAProxy's log-format strings compile into literals and variables
// (%ci, %{+Q}r, %[req.hdr(x-task-id)]); a value runs to the next literal,
// or is quoted ("+Q"). The named formats are httplog (option httplog,
// HAPROXY_HTTP_LOG_FMT) and clf (option httplog clf); detection tries
// both, after any syslog prefix, and a custom one is given with
// LogFormat, whose %ci, %tr, %ST, %Ta and the like name it HAProxy's. The
// event starts at the request date %tr (%trg, %trl; or the accept date %t,
// %T, %Ts with %ms, plus %Th and %Ti), read as UTC when it has no zone,
// and lasts %Ta (else %Tt). %ST is the status, -1 none. Request headers
// captured with "capture request header" appear in %hr as {a|b} (in %hrl
// as a list) in the order of the capture lines; Options.HAProxyCaptures
// names them ("res:NAME" for %hs), and they are read like nginx's
// $http_NAME and $sent_http_NAME. Unnamed captures are left unread with a
// warning. %ID (unique-id-format) is the request id. The server timers
// %Tw, %Tc and %Tr are checked, and %Tr of -1 says no server answered.
// A response of 400 or more that HAProxy made itself has the error
// code HAProxyErrorCode and the termination state, "haproxy:PR--": no
// server was chosen (<NOSRV>), the session ended on the proxy's side (P,
// R, I, D or L first), or the server never sent headers (sQ, sC, sH; %Tr
// -1). A request with no response (status -1) takes its termination state
// ("CD--") as its code.
//
// # Proxies and CDNs in JSON
//
// Cloudflare Logpush http_requests: EdgeStartTimestamp to EdgeEndTimestamp,
// EdgeResponseStatus, ClientRequestPath (else ClientRequestURI),
// ClientRequestUserAgent, RayID as the request, and the custom fields
// RequestHeaders and ResponseHeaders for the retry headers. A 4xx or 5xx
// with OriginResponseStatus 0 came from the edge: "cloudflare:ratelimit"
// (SecuritySources rateLimit, or EdgeRateLimitAction), or
// "cloudflare:<SecurityAction>".
//
// Google Cloud load balancers, as Cloud Logging exports them: timestamp
// plus httpRequest.latency, httpRequest.status, requestUrl, userAgent, and
// the trace as the request. A 4xx or 5xx whose jsonPayload.statusDetails
// is not response_sent_by_backend is the load balancer's:
// "gclb:denied_by_security_policy" (Cloud Armor), "gclb:backend_timeout".
//
// Kong's file-log: started_at (ms) plus latencies.request, response.status,
// request.uri and the headers under request.headers and
// response.headers. A 4xx with latencies.proxy -1 (no upstream tried) is
// Kong's own, "kong".
//
// # Amazon CloudFront
//
// Standard logs are tab-separated with the fields named by a #Fields
// header (the header lines are counted as skipped); real-time logs have
// no header, and are read in the documented order of every field, or in
// the order of a field list given as LogFormat. The line's time (date and
// time, or timestamp) is when the edge finished; time-taken runs back to
// the start. sc-status, cs-uri-stem, cs(User-Agent) or cs-user-agent
// (URL-decoded), x-edge-request-id as the request, and, in real-time logs,
// cs-headers for the retry headers. A 4xx whose x-edge-detailed-result-type
// is CloudFront's own (LimitExceeded, ClientGeoBlocked, InvalidRequest...)
// is "cloudfront:<type>".
//
// Each proxy's own code is recognised by timeline.IsProxyCode, so that
// the reconciliation counts those throttles as the proxy's limit.
//
// # JSON lines
//
// Each line is one JSON object and one event, as applications log around
// their SDK calls. A record without a layer key is a call, unless
// Options.Layer says otherwise or the sample looks like an access log in
// JSON (a status, the request and a time, none of the call log's keys),
// whose records are attempts. Only top-level keys are read; nested objects and arrays
// are skipped. null, and -1 for a count or retry-after, count as absent.
// For each timeline field the first key present wins, in this order:
//
//	start         ts_start, start_time, start, timestamp, ts, time, @timestamp, t_start
//	end           ts_end, end_time, end, t_end
//	duration_ms   duration_ms, duration_s, latency_ms (End = Start + duration when no end key)
//	layer         layer: "attempt", "call" or "queue_attempt" (default call)
//	class         class, kind, traffic_class: "batch" or "interactive"
//	task          task_id, task, job_id
//	queue_attempt queue_attempt, delivery_count, receive_count
//	call          amz_sdk_invocation_id, invocation_id, call_id
//	request       request_id, x_request_id
//	status        http_status, status_code, status
//	code          error_code, error_type, code
//	outcome       outcome, result: ok/success/succeeded or error/failed/failure/throttled
//	retry_after   retry_after (s), retry_after_s, retry_after_ms
//	attempts      http_attempts, attempts; else sdk_retry_count, retries (+1)
//	attempt       attempt, attempt_number; else retry_count (+1)
//	route         route, path, operation, url (path part)
//	client        client, user_agent, sdk
//
// The call id prefers the SDK's invocation id over the application's own
// call id because the invocation id is what the wire carries
// (amz-sdk-invocation-id), so attempts in an access log join to it.
//
// Times are RFC 3339 strings (any fraction; Z, an offset, or none for UTC),
// or epoch numbers or numeric strings whose unit (s, ms, us, ns) follows
// from their magnitude. Statuses and counts may be numbers or numeric
// strings.
//
// Outcome: a record that says ok, with status 0 or 2xx, is OK whatever
// error code it keeps from earlier attempts; otherwise
// the status and error code are classified (timeline.Classify), and a
// record that says it failed is at least a retryable error (a throttle if
// it says "throttled") even when its status looks fine.
//
// Options.Fields replaces the key list of a field with one key of the
// user's choice; see ParseFieldMapping for the field names.
package ingest
