// Package whatif answers "what would have happened if" for a throttling
// incident: it measures the incident's parameters from an analysis of its
// logs (or takes them from a scenario file), replays the incident in package
// simulate under the retry policy as measured and under alternatives (full
// jitter, an attempt cap, a concurrency limit, an adaptive limit), each over
// several seeds, and derives recommendations whose numbers the replays
// check. The replays use simulate.Run, the same simulator that writes the
// bundled incident: there is one model of the endpoint and its clients.
//
// Everything is deterministic for a seed; nothing reads a clock.
package whatif

import (
	"fmt"
	"math"
)

// Capacity is the drain arithmetic of a token bucket shared by a batch
// backlog and interactive traffic: what is left of the refill after
// interactive traffic, in tasks per minute. No retry policy changes it.
type Capacity struct {
	TokensPerMinute            float64
	InteractiveTokensPerMinute float64
	TaskTokens                 float64
}

// TasksPerMinute is the spare refill divided by a task's tokens; 0 when
// interactive traffic takes the whole refill.
func (c Capacity) TasksPerMinute() float64 {
	if c.TaskTokens <= 0 {
		return 0
	}
	return math.Max(0, c.TokensPerMinute-c.InteractiveTokensPerMinute) / c.TaskTokens
}

// Drain is how long tasks take at TasksPerMinute, in seconds; +Inf when
// nothing is spare.
func (c Capacity) Drain(tasks int64) float64 {
	rate := c.TasksPerMinute()
	if rate <= 0 {
		return math.Inf(1)
	}
	return float64(tasks) / rate * 60
}

// String is the arithmetic written out, e.g. "(2,000,000 - 288,000
// interactive) tokens/min / 28,000 tokens per task = 61.1 tasks/min".
func (c Capacity) String() string {
	return fmt.Sprintf("(%s − %s interactive) tokens/min ÷ %s tokens per task = %.1f tasks/min",
		thousands(c.TokensPerMinute), thousands(c.InteractiveTokensPerMinute), thousands(c.TaskTokens), c.TasksPerMinute())
}

// thousands writes v rounded to an integer with comma separators.
func thousands(v float64) string {
	n := int64(math.Round(v))
	neg := n < 0
	if neg {
		n = -n
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
