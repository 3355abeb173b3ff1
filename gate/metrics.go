package gate

import (
	"fmt"
	"strings"

	"github.com/stampede/stampede/analyze"
)

// Metric is a quantity of the result that a rule can test.
type Metric struct {
	Name string
	// Unit says what the number counts, for help and error messages.
	Unit string
	Help string
	// Example is a threshold that reads naturally in a help example.
	Example string
	// YesNo metrics stand alone in a rule; Fraction metrics accept "5%".
	YesNo    bool
	Fraction bool
	value    func(*analyze.Result) value
	class    func(*analyze.ClassReconciliation) value
}

// value is a metric's reading: the number, what it rests on, and, when the
// input cannot give it, why.
type value struct {
	v float64
	// upper, when above v, is the other end of the range v lies in: some
	// outcomes the input leaves unknown.
	upper   float64
	detail  string
	missing string
}

func yes(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Metrics lists every metric, in the order help shows them.
func Metrics() []Metric { return append([]Metric(nil), metrics...) }

func lookup(name string) (Metric, bool) {
	name = strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	for _, m := range metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

var metrics = []Metric{
	{
		Name: "amplification", Unit: "attempts per task", Example: "4",
		Help: "HTTP attempts sent per unit of work: the product of the retry layers",
		value: func(r *analyze.Result) value {
			a := r.Amplification
			if a.Tasks == 0 {
				return value{missing: "no tasks identified"}
			}
			return value{v: a.Product, detail: fmt.Sprintf("%d requests for %d tasks", a.Requests, a.Tasks)}
		},
	},
	{
		Name: "attempts_per_call", Unit: "attempts per call", Example: "2",
		Help: "HTTP attempts per SDK call: the SDK's own retries",
		value: func(r *analyze.Result) value {
			if r.Reconcile.App.Calls == 0 {
				return value{missing: "no calls"}
			}
			return value{v: r.Reconcile.AttemptsPerCall, detail: r.Reconcile.Method}
		},
		class: func(c *analyze.ClassReconciliation) value {
			if c.App.Calls == 0 {
				return value{missing: "no calls in class " + c.Class}
			}
			return value{v: c.AttemptsPerCall}
		},
	},
	{
		Name: "http_throttle_rate", Unit: "a fraction of attempts", Example: "0.05", Fraction: true,
		Help:  "throttled HTTP attempts / all attempts",
		value: func(r *analyze.Result) value { return httpRate(r.Reconcile.HTTP) },
		class: func(c *analyze.ClassReconciliation) value { return httpRate(c.HTTP) },
	},
	{
		Name: "app_error_rate", Unit: "a fraction of calls", Example: "0.1", Fraction: true,
		Help:  "SDK calls that failed / all calls: what the application saw",
		value: func(r *analyze.Result) value { return appRate(r.Reconcile.App) },
		class: func(c *analyze.ClassReconciliation) value { return appRate(c.App) },
	},
	{
		Name: "periodic", YesNo: true, Unit: "yes/no",
		Help: "retries arrived in significant periodic waves",
		value: func(r *analyze.Result) value {
			w := r.Waves
			if w.Periodic {
				detail := fmt.Sprintf("period %.2f s, ACF %.2f vs threshold %.2f", w.Period, w.ACF, w.Threshold)
				if w.PeriodEvidence == "burst grid" {
					detail += fmt.Sprintf(", all %d bursts on its grid", w.OnGrid)
				}
				return value{v: 1, detail: detail}
			}
			if w.BestLag > 0 {
				side := "not above"
				if w.ACF > w.Threshold {
					side = "above"
				}
				detail := fmt.Sprintf("best repeat %.2f s, ACF %.4g %s threshold %.4g", w.BestLag, w.ACF, side, w.Threshold)
				switch w.Rejected {
				case "grid":
					detail += fmt.Sprintf(", but %d of %d bursts on its grid", w.OnGrid, len(w.Waves))
				case "wide":
					detail += ", but its 3 bursts are wide and unlike in width"
				case "chance":
					if w.GridChance != nil {
						detail += fmt.Sprintf(", but random bursts line up as well in %.0f%% of tries", 100**w.GridChance)
					}
				}
				return value{v: 0, detail: detail}
			}
			return value{v: 0, detail: "no repeat found"}
		},
	},
	{
		Name: "period", Unit: "seconds", Example: "30",
		Help: "period of the retry waves, when periodic",
		value: func(r *analyze.Result) value {
			if !r.Waves.Periodic {
				return value{missing: "no periodic waves"}
			}
			return value{v: r.Waves.Period}
		},
	},
	{
		Name: "waves", Unit: "waves", Example: "3",
		Help:  "number of retry waves detected",
		value: func(r *analyze.Result) value { return value{v: float64(len(r.Waves.Waves))} },
	},
	{
		Name: "uncapped", YesNo: true, Unit: "yes/no",
		Help: "some retry layer retried more than once with no bound in sight",
		value: func(r *analyze.Result) value {
			var names []string
			for _, l := range r.Amplification.Layers {
				if l.Units > 0 && l.Max > 1 && !l.Capped {
					names = append(names, fmt.Sprintf("%s (max %g)", l.Name, l.Max))
				}
			}
			if len(names) == 0 {
				return value{v: 0, detail: "every retrying layer is capped"}
			}
			return value{v: 1, detail: "uncapped: " + strings.Join(names, ", ")}
		},
	},
	{
		Name: "fixed_delays", Unit: "delays", Example: "0",
		Help: "fixed (unjittered) retry delays suspected behind the waves",
		value: func(r *analyze.Result) value {
			var texts []string
			for _, s := range r.Waves.Suspects {
				texts = append(texts, fmt.Sprintf("%s %s %.2f s", s.Layer, s.Kind, s.Delay))
			}
			return value{v: float64(len(r.Waves.Suspects)), detail: strings.Join(texts, "; ")}
		},
	},
	{
		Name: "synchronising_clients", Unit: "SDKs", Example: "0",
		Help: "SDKs seen whose policy sleeps a server's retry-after exactly",
		value: func(r *analyze.Result) value {
			var n float64
			var names []string
			for _, c := range r.Clients {
				if c.Synchronising {
					n++
					names = append(names, strings.TrimSpace(c.SDK+" "+c.Version))
				}
			}
			return value{v: n, detail: strings.Join(names, ", ")}
		},
	},
	{
		Name: "skipped_lines", Unit: "lines", Example: "0",
		Help: "input lines that could not be read",
		value: func(r *analyze.Result) value {
			var skipped int64
			for _, in := range r.Inputs {
				skipped += in.Skipped
			}
			return value{v: float64(skipped)}
		},
	},
}

func httpRate(h analyze.HTTPSide) value {
	if h.Attempts == 0 {
		return value{missing: "no HTTP attempts"}
	}
	v := value{v: h.ThrottleRate, detail: fmt.Sprintf("%d of %d attempts throttled", h.Throttled, h.Attempts)}
	if h.Unknown > 0 {
		v.upper = h.ThrottleRateMax
		v.detail += fmt.Sprintf(", and up to %d more of unknown outcome", h.Unknown)
	}
	return v
}

func appRate(a analyze.AppSide) value {
	if a.Calls == 0 {
		return value{missing: "no calls"}
	}
	v := value{v: a.ErrorRate, detail: fmt.Sprintf("%d of %d calls failed (%s)", a.Failed, a.Calls, a.Source)}
	if a.Unknown > 0 {
		v.upper = a.ErrorRateMax
		v.detail += fmt.Sprintf(", and up to %d more of unknown outcome", a.Unknown)
	}
	return v
}
