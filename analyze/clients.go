package analyze

import (
	"cmp"
	"fmt"
	"math/bits"
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
// client's retry mode still names it. The first maxClientRows clients the
// counted attempts name, in time order, are counted apart, the rest in the
// "other" row, and maxClientsShown rows are returned.
func clients(tl *timeline.Timeline, counted []bool) ([]Client, TableBound) {
	// Which clients are counted apart depends on the whole timeline's
	// order, so one pass finds them and a second counts.
	order := accumulate(tl, func() *clientOrder { return newClientOrder(counted) }).order
	c := accumulate(tl, func() *clientCounts { return newClientCounts(counted, order) })
	return c.finalize(order)
}

// clientKey is what tells clients apart: the SDK and its version, or, for
// a User-Agent naming no SDK, "unknown" and its product.
type clientKey struct{ sdk, ver string }

// clientKeys caches the key of each User-Agent seen, up to maxKeyCache,
// with the most recent in a small direct-mapped table before the map: a
// log names few clients, on every line.
type clientKeys struct {
	m      map[timeline.Sym]clientKey
	recent [256]recentKey
}

type recentKey struct {
	sym timeline.Sym
	key clientKey
	ok  bool
}

const maxKeyCache = 1 << 16

func newClientKeys() *clientKeys { return &clientKeys{m: map[timeline.Sym]clientKey{}} }

// of is the client a User-Agent names.
func (c *clientKeys) of(ua timeline.Sym) clientKey {
	r := &c.recent[uint(ua)%uint(len(c.recent))]
	if r.ok && r.sym == ua {
		return r.key
	}
	k, ok := c.m[ua]
	if !ok {
		sdk, ver := identifyClient(ua.String())
		if sdk == "" {
			// Not an SDK: told apart by its product (curl, Wget,
			// python-requests), so one tool's label is not another's.
			sdk, ver = "unknown", productOf(ua.String())
		}
		k = clientKey{sdk, ver}
		if len(c.m) < maxKeyCache {
			c.m[ua] = k
		}
	}
	*r = recentKey{ua, k, true}
	return k
}

// countedAttempt is whether e is an HTTP attempt from a source that counts
// and names its client.
func countedAttempt(e *timeline.Event, counted []bool) bool {
	return e.Layer == timeline.LayerHTTP && e.Client != timeline.NoSym && (int(e.Source) >= len(counted) || counted[e.Source])
}

// clientOrder finds the first maxClientRows clients the counted attempts
// name, in time order: a stretch's first ones, then the next stretch's new
// ones, are the first ones of both.
type clientOrder struct {
	counted []bool
	keys    *clientKeys
	order   []clientKey
	seen    map[clientKey]bool
	// last is the User-Agent of the last attempt seen: most lines repeat
	// the one before.
	last timeline.Sym
}

func newClientOrder(counted []bool) *clientOrder {
	return &clientOrder{counted: counted, keys: newClientKeys(), seen: map[clientKey]bool{}, last: timeline.NoSym}
}

func (c *clientOrder) add(tl *timeline.Timeline, lo, hi int) {
	for i := lo; i < hi && len(c.order) < maxClientRows; i++ {
		if e := &tl.Events[i]; e.Client != c.last && countedAttempt(e, c.counted) {
			c.see(c.keys.of(e.Client))
			c.last = e.Client
		}
	}
}

func (c *clientOrder) see(k clientKey) {
	if !c.seen[k] && len(c.order) < maxClientRows {
		c.seen[k] = true
		c.order = append(c.order, k)
	}
}

func (c *clientOrder) merge(later *clientOrder) {
	for _, k := range later.order {
		c.see(k)
	}
}

// clientTally is one client's counts.
type clientTally struct {
	// userAgent is the first that named the client.
	userAgent           string
	attempts, throttled int64
	// maxes counts the attempt limits the wire announced, the first
	// maxAnnouncedLimits distinct ones in time order.
	maxes []announcedLimit
}

type announcedLimit struct {
	max   int32
	count int64
}

const maxAnnouncedLimits = 16

func (t *clientTally) addMax(m int32, n int64) {
	for i := range t.maxes {
		if t.maxes[i].max == m {
			t.maxes[i].count += n
			return
		}
	}
	if len(t.maxes) < maxAnnouncedLimits {
		t.maxes = append(t.maxes, announcedLimit{m, n})
	}
}

func (t *clientTally) merge(later *clientTally) {
	if t.userAgent == "" {
		t.userAgent = later.userAgent
	}
	t.attempts += later.attempts
	t.throttled += later.throttled
	for _, m := range later.maxes {
		t.addMax(m.max, m.count)
	}
}

// clientCounts is the clients' share of the incident summary: the counts
// of the clients counted apart (clientOrder's), and of the rest together.
type clientCounts struct {
	counted []bool
	keys    *clientKeys
	index   map[clientKey]int
	tally   []clientTally
	other   clientTally
	// otherAgents marks, a bit per Sym, the User-Agents counted in other.
	otherAgents []uint64
	// modes are the botocore retry modes the other logs name.
	modes map[string]bool
}

func newClientCounts(counted []bool, order []clientKey) *clientCounts {
	c := &clientCounts{counted: counted, keys: newClientKeys(), index: make(map[clientKey]int, len(order)), tally: make([]clientTally, len(order)), modes: map[string]bool{}}
	for i, k := range order {
		c.index[k] = i
	}
	return c
}

func (c *clientCounts) add(tl *timeline.Timeline, lo, hi int) {
	for i := lo; i < hi; i++ {
		e := &tl.Events[i]
		if e.Layer != timeline.LayerHTTP || e.Client == timeline.NoSym {
			continue
		}
		k := c.keys.of(e.Client)
		if !countedAttempt(e, c.counted) {
			if mode, ok := strings.CutPrefix(k.sdk, "botocore "); ok {
				c.modes[mode] = true
			}
			continue
		}
		t := &c.other
		if n, ok := c.index[k]; ok {
			t = &c.tally[n]
			if t.userAgent == "" {
				t.userAgent = e.Client.String()
			}
		} else {
			// A log with a distinct User-Agent per line must not grow the
			// table with it.
			c.markOther(e.Client)
		}
		t.attempts++
		if e.Outcome == timeline.OutcomeThrottled {
			t.throttled++
		}
		if e.MaxAttempts > 0 {
			t.addMax(int32(e.MaxAttempts), 1)
		}
	}
}

func (c *clientCounts) markOther(ua timeline.Sym) {
	if c.otherAgents == nil {
		c.otherAgents = make([]uint64, (timeline.SymCount()+63)/64)
	}
	if w := int(ua) / 64; w < len(c.otherAgents) {
		c.otherAgents[w] |= 1 << (uint(ua) % 64)
	}
}

func (c *clientCounts) merge(later *clientCounts) {
	for i := range c.tally {
		c.tally[i].merge(&later.tally[i])
	}
	c.other.merge(&later.other)
	if len(later.otherAgents) > len(c.otherAgents) {
		c.otherAgents = append(c.otherAgents, make([]uint64, len(later.otherAgents)-len(c.otherAgents))...)
	}
	for w, bits := range later.otherAgents {
		c.otherAgents[w] |= bits
	}
	for m := range later.modes {
		c.modes[m] = true
	}
}

// finalize is the clients table, its rows in order.
func (c *clientCounts) finalize(order []clientKey) ([]Client, TableBound) {
	bound := TableBound{Rows: maxClientsShown, Counted: maxClientRows}
	for _, w := range c.otherAgents {
		bound.Uncounted += int64(bits.OnesCount64(w))
	}
	out := make([]Client, 0, len(order)+1)
	for i, k := range order {
		t := &c.tally[i]
		cl := Client{UserAgent: t.userAgent, SDK: k.sdk, Version: k.ver, Attempts: t.attempts, Throttled: t.throttled}
		if k.sdk == "unknown" {
			cl.Version = "" // the key's product, not a version
		}
		var modeFrom string
		if cl.SDK == "botocore" {
			cl.SDK, modeFrom = botocoreMode(c.modes, t.maxes)
		}
		describeClient(&cl)
		if modeFrom != "" {
			cl.Policy += " (retry mode " + modeFrom + ")"
		}
		out = append(out, cl)
	}
	if c.other.attempts > 0 {
		cl := Client{SDK: otherClients, Attempts: c.other.attempts, Throttled: c.other.throttled}
		describeClient(&cl)
		out = append(out, cl)
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
func botocoreMode(modes map[string]bool, maxes []announcedLimit) (sdk, from string) {
	if len(modes) == 1 {
		for m := range modes {
			return "botocore " + m, "named by the SDK log's retry logger"
		}
	}
	var most announcedLimit
	for _, m := range maxes {
		if m.count > most.count || m.count == most.count && m.max < most.max {
			most = m
		}
	}
	switch most.max {
	case 3:
		return "botocore standard", "inferred from max=3 in amz-sdk-request, the default of standard and adaptive mode"
	case 5:
		return "botocore legacy", "inferred from max=5 in amz-sdk-request, legacy mode's default"
	}
	return "botocore", ""
}

// sdkName is the client's SDK and version, as the findings name it.
func (c *Client) sdkName() string {
	if c.Version == "" {
		return c.SDK
	}
	return c.SDK + " " + c.Version
}

func describeClient(c *Client) {
	p, ok := policyFor(c.SDK, c.Version)
	name := c.sdkName()
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
