// Package ingest reads incident logs into a timeline.Timeline: nginx access
// logs in any log_format, and JSON-lines call logs written by applications
// around their SDK calls.
//
// Every line of a file is accounted for in its timeline.Source: it is
// either parsed into an event or counted as skipped with a reason, so
// Parsed + Skipped == Lines always holds. A malformed line never stops
// reading; only input that cannot be used at all (unreadable, format not
// recognised, invalid log_format) is an error. Events are appended in file
// order; callers sort the merged timeline. Gzip input is detected by its
// magic bytes; a UTF-8 BOM and CRLF line ends are accepted; a line longer
// than 4 MiB is skipped.
//
// # Detection
//
// Unless Options.Format says, the first 50 non-blank lines decide: JSONL
// when at least half of them start with '{', else the named nginx format
// with the most variables that parses at least 90% of them.
//
// # nginx
//
// A log_format definition is compiled into literals and variables; a
// variable's value runs up to the first occurrence of the literal that
// follows it, and a line must match the whole format. The variables read
// are $time_local, $time_iso8601, $msec, $status, $request, $request_uri,
// $uri, $request_time, $upstream_status (last of a list), $http_user_agent,
// $http_x_stainless_retry_count (retries so far, so attempt = n+1),
// $http_amz_sdk_request (attempt=N; max=M), $http_amz_sdk_invocation_id and
// $http_x_call_id (call), $http_x_task_id and $http_x_job_id (task),
// $http_x_request_id and $request_id, $sent_http_retry_after (seconds or an
// HTTP date) and $sent_http_retry_after_ms, and $sent_http_x_amzn_errortype.
// Other variables are matched and ignored; "-" means absent. Each line is
// one attempt that ended at $msec (else $time_local, to the second) and
// began $request_time earlier.
//
// # JSON lines
//
// Each line is one JSON object and one event, as applications log around
// their SDK calls. Only top-level keys are read; nested objects and arrays
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
