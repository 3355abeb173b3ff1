// Package simulate generates throttling incidents with known ground truth.
//
// A discrete-event simulation plays one token bucket shared by a batch
// backlog and steady interactive traffic, an SDK layer that retries 429s
// (honouring retry-after exactly, with jitter, or ignoring it for exponential
// backoff) and a job runner that requeues failed tasks after a delay. Run is
// deterministic: the scenario's seed drives every random draw and no wall
// clock is read, so the same scenario always yields byte-identical files.
//
// Optional parts, off unless a scenario asks for them, let package whatif
// replay an incident under other policies on the same code path: a limiter
// that charges rejected requests and keeps a debt, a request-rate bucket
// beside the token bucket, application retry layers stacked around the SDK
// call, backoff curves (none, exponential, full, equal, decorrelated), a
// client-wide retry budget, and a fixed or AIMD concurrency limit on the
// batch. Scenarios without them run exactly as before.
//
// WriteDir writes what an incident leaves behind, an nginx access.log and an
// application calls.jsonl, together with truth.json: the figures the
// simulator counted while running (attempts, throttles, calls, tasks, waves,
// their period and decay), against which analyses of the logs are checked.
package simulate
