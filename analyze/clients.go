package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede/stampede/timeline"
)

// Client identification. The User-Agent names the SDK and its version, and
// the version decides the retry policy: how many attempts a call makes and
// whether a server's retry-after is slept exactly (which makes every client
// that got the same value return together) or jittered or ignored.

// sdkPolicy is one row of the known-policy table: an SDK's defaults for
// versions in [from, until).
type sdkPolicy struct {
	sdk         string
	from, until version // until zero: no upper bound
	maxAttempts int
	// retryAfter says how a retry-after is used; exact marks exact sleeps,
	// which synchronise clients.
	retryAfter string
	exact      bool
	backoff    string
}

// knownPolicies are the SDK defaults, from each SDK's published source.
// Rows of one SDK are in version order; the first match wins.
var knownPolicies = []sdkPolicy{
	{sdk: "openai-python", until: version{2, 52, 0}, maxAttempts: 3, exact: true,
		retryAfter: "honours retry-after exactly up to 60 s", backoff: "min(0.5 s·2^n, 8 s) × U(0.75, 1]"},
	{sdk: "openai-python", from: version{2, 52, 0}, maxAttempts: 3, exact: true,
		retryAfter: "honours retry-after exactly up to 120 s (longer: not retried)", backoff: "min(0.5 s·2^n, 8 s) × U(0.75, 1]"},
	{sdk: "openai-node", from: version{4, 0, 0}, until: version{4, 25, 0}, maxAttempts: 3, exact: true,
		retryAfter: "honours an integer retry-after exactly up to 60 s", backoff: "min(0.5 s·2^n, 8 s) × U(0.75, 1]"},
	{sdk: "openai-node", from: version{4, 25, 0}, until: version{6, 26, 0}, maxAttempts: 3, exact: true,
		retryAfter: "honours retry-after(-ms) exactly below 60 s", backoff: "min(0.5 s·2^n, 8 s) × U(0.75, 1]"},
	{sdk: "openai-node", from: version{6, 26, 0}, until: version{7, 5, 0}, maxAttempts: 3, exact: true,
		retryAfter: "honours retry-after(-ms) exactly, with no cap", backoff: "min(0.5 s·2^n, 8 s) × U(0.75, 1]"},
	{sdk: "openai-node", from: version{7, 5, 0}, maxAttempts: 3, exact: true,
		retryAfter: "honours retry-after(-ms) exactly up to 60 s", backoff: "min(0.5 s·2^n, 8 s) × U(0.75, 1]"},
	{sdk: "anthropic-python", maxAttempts: 3, exact: true,
		retryAfter: "honours retry-after exactly up to 60 s", backoff: "min(0.5 s·2^n, 8 s) × U(0.75, 1]"},
	{sdk: "anthropic-typescript", until: version{0, 79, 0}, maxAttempts: 3, exact: true,
		retryAfter: "honours retry-after exactly below 60 s", backoff: "min(0.5 s·2^n, 8 s) × U(0.75, 1]"},
	{sdk: "anthropic-typescript", from: version{0, 79, 0}, maxAttempts: 3, exact: true,
		retryAfter: "honours retry-after exactly, with no cap", backoff: "min(0.5 s·2^n, 8 s) × U(0.75, 1]"},
	{sdk: "botocore legacy", maxAttempts: 5,
		retryAfter: "ignores retry-after", backoff: "U(0,1)·2^(n−1) s, uncapped"},
	{sdk: "botocore standard", maxAttempts: 3,
		retryAfter: "ignores retry-after", backoff: "U(0,1)·min(2^n, 20) s, with a client-wide retry quota of 500"},
	{sdk: "botocore adaptive", maxAttempts: 3,
		retryAfter: "ignores retry-after", backoff: "as standard, plus a client-side rate limiter that backs off on throttles"},
	{sdk: "aws-sdk-js-v3", maxAttempts: 3,
		retryAfter: "versions before April 2026 sleep max(retry-after, backoff) exactly and uncapped; later ones at most backoff + 5 s",
		backoff:    "U(0,1)·min(base·2^n, 20 s), base 100 ms (500 ms on throttles)"},
}

// version is major.minor.patch; missing parts are 0.
type version [3]int

func parseVersion(s string) (version, bool) {
	var v version
	parts := strings.SplitN(s, ".", 3)
	for i, p := range parts {
		// Drop pre-release and build suffixes: 1.2.3-beta.1, 1.2.3+x.
		if j := strings.IndexAny(p, "-+ "); j >= 0 {
			p = p[:j]
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return version{}, false
		}
		v[i] = n
	}
	return v, true
}

func (v version) less(o version) bool { return slices.Compare(v[:], o[:]) < 0 }
func (v version) zero() bool          { return v == version{} }

// identifyClient reads an SDK name and version from a User-Agent. Botocore
// announces its retry mode only in newer versions (cfg/retry-mode#...); older
// ones run legacy unless configured otherwise, so the mode stays unknown.
func identifyClient(ua string) (sdk, ver string) {
	for _, f := range strings.Fields(ua) {
		name, v, ok := strings.Cut(f, "/")
		if !ok {
			// An SDK log names its client "botocore" when the request
			// lines do not show the User-Agent.
			if strings.EqualFold(f, "botocore") && sdk == "" {
				sdk = "botocore"
			}
			continue
		}
		switch strings.ToLower(name) {
		case "openai":
			// "OpenAI/Python 1.52.0", "OpenAI/JS 6.49.0": the version is the
			// next field.
			return stainless(ua, "openai", v)
		case "anthropic":
			return stainless(ua, "anthropic", v)
		case "botocore", "boto3":
			// "Boto3/… cfg/retry-mode#legacy Botocore/…": the mode
			// named before the last product token is kept.
			if !strings.HasPrefix(sdk, "botocore") {
				sdk = "botocore"
			}
			if name == "Botocore" || name == "botocore" {
				ver = v
			}
		case "aws-sdk-js", "aws-sdk-js-v3":
			return "aws-sdk-js-v3", v
		case "cfg":
			if mode, ok := strings.CutPrefix(v, "retry-mode#"); ok && sdk == "botocore" {
				sdk = "botocore " + mode
			}
		}
	}
	return sdk, ver
}

// stainless handles the "Vendor/Lang x.y.z" form of the Stainless-built SDKs.
func stainless(ua, vendor, lang string) (string, string) {
	fields := strings.Fields(ua)
	var ver string
	for i, f := range fields {
		if strings.EqualFold(f, vendor+"/"+lang) && i+1 < len(fields) {
			ver = fields[i+1]
		}
	}
	switch strings.ToLower(lang) {
	case "python":
		return vendor + "-python", ver
	case "js":
		if vendor == "anthropic" {
			return "anthropic-typescript", ver
		}
		return vendor + "-node", ver
	}
	return vendor + "-" + strings.ToLower(lang), ver
}

// policyFor finds the table row for an SDK and version; a botocore client
// whose mode is unknown matches no row, since legacy and standard differ.
func policyFor(sdk, ver string) (sdkPolicy, bool) {
	v, vok := parseVersion(ver)
	for _, p := range knownPolicies {
		if p.sdk != sdk {
			continue
		}
		if !vok && (!p.from.zero() || !p.until.zero()) {
			continue
		}
		if (p.from.zero() || !v.less(p.from)) && (p.until.zero() || v.less(p.until)) {
			return p, true
		}
	}
	return sdkPolicy{}, false
}

// clients groups HTTP attempts by the SDK their User-Agent names. Only the
// attempts that count (those of the best observer, see eventCounts.observers)
// make a client, so that an SDK debug log beside the access log adds no
// second copy of the same traffic; what the other logs say of a botocore
// client's retry mode still names it. At most maxClientRows clients are
// counted apart, and maxClientsShown rows returned.
func clients(tl *timeline.Timeline, counted []bool) ([]Client, TableBound) {
	type key struct{ sdk, ver string }
	byKey := map[key]*Client{}
	// maxes counts the attempt limits the wire announced per client.
	maxes := map[key]map[int32]int64{}
	// modes are the botocore retry modes the other logs name.
	modes := map[string]bool{}
	seen := map[timeline.Sym]key{}
	// uncounted marks the User-Agents counted in the "other" row because
	// their client came after the first maxClientRows: a bit per Sym,
	// since a hostile log brings a new one on every line.
	var uncounted []uint64
	bound := TableBound{Rows: maxClientsShown, Counted: maxClientRows}
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP || e.Client == timeline.NoSym {
			continue
		}
		k, ok := seen[e.Client]
		if !ok {
			sdk, ver := identifyClient(e.Client.String())
			if sdk == "" {
				// Not an SDK: told apart by its product (curl, Wget,
				// python-requests), so one tool's label is not another's.
				sdk, ver = "unknown", productOf(e.Client.String())
			}
			k = key{sdk, ver}
			if _, known := byKey[k]; !known && len(byKey) >= maxClientRows {
				// A log with a distinct User-Agent per line must not grow
				// the table with it.
				k = key{otherClients, ""}
			}
			if len(seen) < 1<<16 {
				seen[e.Client] = k
			}
		}
		if int(e.Source) < len(counted) && !counted[e.Source] {
			if mode, ok := strings.CutPrefix(k.sdk, "botocore "); ok {
				modes[mode] = true
			}
			continue
		}
		if k.sdk == otherClients {
			if uncounted == nil {
				uncounted = make([]uint64, (timeline.SymCount()+63)/64)
			}
			if w, b := int(e.Client)/64, uint(e.Client)%64; w < len(uncounted) && uncounted[w]&(1<<b) == 0 {
				uncounted[w] |= 1 << b
				bound.Uncounted++
			}
		}
		c := byKey[k]
		if c == nil {
			c = &Client{UserAgent: e.Client.String(), SDK: k.sdk, Version: k.ver}
			switch k.sdk {
			case otherClients:
				c.UserAgent = ""
			case "unknown":
				c.Version = "" // the key's product, not a version
			}
			byKey[k] = c
			maxes[k] = map[int32]int64{}
		}
		c.Attempts++
		if e.Outcome == timeline.OutcomeThrottled {
			c.Throttled++
		}
		if e.MaxAttempts > 0 && len(maxes[k]) < 16 {
			maxes[k][e.MaxAttempts]++
		}
	}
	out := make([]Client, 0, len(byKey))
	for k, c := range byKey {
		var modeFrom string
		if c.SDK == "botocore" {
			c.SDK, modeFrom = botocoreMode(modes, maxes[k])
		}
		describeClient(c)
		if modeFrom != "" {
			c.Policy += " (retry mode " + modeFrom + ")"
		}
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Client) int {
		// The row for the rest goes last, whatever its count; equal counts
		// in a fixed order, whatever the map's.
		return cmp.Or(cmp.Compare(boolRank(a.SDK == otherClients), boolRank(b.SDK == otherClients)),
			cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.SDK, b.SDK), cmp.Compare(a.Version, b.Version),
			cmp.Compare(a.UserAgent, b.UserAgent))
	})
	out = foldClients(out, &bound)
	if n := len(out); n > 0 && out[n-1].SDK == otherClients {
		out[n-1].Policy = otherClientsPolicy(bound)
	}
	return out, bound
}

// maxClientRows bounds the distinct clients counted; later ones count in
// the "other" row. maxClientsShown bounds the rows a report shows.
const (
	maxClientRows   = 1024
	maxClientsShown = 20
	otherClients    = "other clients"
)

// foldClients keeps the busiest rows, bound.Rows in all, and adds the rest
// into one row, counting in bound.Folded the clients it takes in.
func foldClients(rows []Client, bound *TableBound) []Client {
	n := len(rows)
	hasOther := n > 0 && rows[n-1].SDK == otherClients
	if n <= bound.Rows {
		return rows
	}
	other := Client{SDK: otherClients}
	for _, c := range rows[bound.Rows-1:] {
		other.Attempts += c.Attempts
		other.Throttled += c.Throttled
	}
	bound.Folded = int64(n - bound.Rows + 1)
	if hasOther {
		bound.Folded-- // the row for the clients past the bound
	}
	return append(rows[:bound.Rows-1:bound.Rows-1], other)
}

// otherClientsPolicy says what the "other clients" row holds.
func otherClientsPolicy(b TableBound) string {
	var parts []string
	if b.Folded > 0 {
		parts = append(parts, fmt.Sprintf("%s more %s, each with no more attempts than those above", count(b.Folded), plural(b.Folded, "client", "clients")))
	}
	if b.Uncounted > 0 {
		parts = append(parts, fmt.Sprintf("%s %s of clients seen after the first %s", count(b.Uncounted), plural(b.Uncounted, "User-Agent", "User-Agents"), count(int64(b.Counted))))
	}
	return strings.Join(parts, ", and ")
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// productOf is a User-Agent's first product token without its version:
// "curl/8.0" → "curl", "Mozilla/5.0 (…)" → "Mozilla".
func productOf(ua string) string {
	f, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
	name, _, _ := strings.Cut(f, "/")
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// botocoreMode names the retry mode of a botocore client whose User-Agent
// does not: the mode the SDK log's retry loggers name, when they name one,
// else the one whose default attempt limit the wire announced
// (amz-sdk-request max=3 is standard or adaptive, max=5 legacy). It
// returns the SDK name and where the mode came from, or "botocore" and "".
func botocoreMode(modes map[string]bool, maxes map[int32]int64) (sdk, from string) {
	if len(modes) == 1 {
		for m := range modes {
			return "botocore " + m, "named by the SDK log's retry logger"
		}
	}
	var most int32
	for m, n := range maxes {
		if n > maxes[most] || n == maxes[most] && m < most {
			most = m
		}
	}
	switch most {
	case 3:
		return "botocore standard", "inferred from max=3 in amz-sdk-request, the default of standard and adaptive mode"
	case 5:
		return "botocore legacy", "inferred from max=5 in amz-sdk-request, legacy mode's default"
	}
	return "botocore", ""
}

func describeClient(c *Client) {
	p, ok := policyFor(c.SDK, c.Version)
	name := c.SDK
	if c.Version != "" {
		name += " " + c.Version
	}
	switch {
	case ok:
		c.Known = true
		c.MaxAttempts = p.maxAttempts
		c.RetryAfter = p.retryAfter
		c.Synchronising = p.exact
		c.Policy = fmt.Sprintf("%s makes %d attempts per call by default, %s, and otherwise backs off %s", name, p.maxAttempts, p.retryAfter, p.backoff)
		if p.exact {
			c.Policy += ": expect synchronised retries whenever the server sends everyone the same retry-after"
		}
	case c.SDK == "botocore":
		c.Policy = name + " does not name its retry mode in the User-Agent: legacy (5 attempts, uncapped backoff) unless standard or adaptive is configured (3 attempts); none honours retry-after"
	case c.SDK == "unknown":
		c.Policy = "no known SDK in the User-Agent"
	default:
		c.Policy = name + " has no retry policy on record for this version"
	}
}
