package whatif

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// TrackRecord is how the replays' predictions compared with real re-runs
// of recorded incidents under the policies the rows describe. The root
// package's TestWhatIfAgainstRealRuns computes it and keeps
// track_record.json current; every comparison quotes it.
type TrackRecord struct {
	// ReRuns is how many real re-runs were compared, of Incidents
	// recorded incidents, by clients Clients. Measured is how many
	// recorded incidents the as-measured replay was held to, their waves
	// and period.
	ReRuns    int      `json:"reruns"`
	Incidents int      `json:"incidents"`
	Measured  int      `json:"measured"`
	Clients   []string `json:"clients"`
	// Rows are the rows the re-runs checked; the others had no real
	// runner to check them against.
	Rows      []string `json:"rows"`
	Unchecked []string `json:"unchecked"`
	Figures   []Figure `json:"figures"`
}

// Figure is one compared figure over every re-run.
type Figure struct {
	Name string `json:"name"`
	// Worst is the largest miss: a relative error, or for a share a
	// difference in points (as a fraction) when Points is set.
	Worst  float64 `json:"worst"`
	Points bool    `json:"points,omitempty"`
	// Target is the acceptance bound, 0 for none; Met counts the re-runs
	// within it.
	Target float64 `json:"target,omitempty"`
	Met    int     `json:"met,omitempty"`
}

//go:embed track_record.json
var trackRecordJSON []byte

// LoadTrackRecord is the embedded track record.
func LoadTrackRecord() (TrackRecord, error) {
	var tr TrackRecord
	if err := json.Unmarshal(trackRecordJSON, &tr); err != nil {
		return TrackRecord{}, fmt.Errorf("what-if track record: %w", err)
	}
	return tr, nil
}

// String is the track record as the comparison's note states it.
func (tr TrackRecord) String() string {
	var figs []string
	for _, f := range tr.Figures {
		within := fmt.Sprintf("%s within %.0f%%", f.Name, 100*f.Worst)
		if f.Points {
			within = fmt.Sprintf("%s within %.1f points", f.Name, 100*f.Worst)
		}
		if f.Target > 0 {
			target := fmt.Sprintf("%.0f%%", 100*f.Target)
			if f.Points {
				target = fmt.Sprintf("%.0f points", 100*f.Target)
			}
			within += fmt.Sprintf(" (%d of %d within %s)", f.Met, tr.ReRuns, target)
		}
		figs = append(figs, within)
	}
	s := fmt.Sprintf("predictions checked against %d real re-runs of %d recorded incidents (%s; rows %s), each figure counted as on the real run, up to the end of its tail after the batch: %s",
		tr.ReRuns, tr.Incidents, strings.Join(tr.Clients, ", "), strings.Join(tr.Rows, ", "), strings.Join(figs, ", "))
	if tr.Measured > 0 {
		s += fmt.Sprintf("; the as-measured replay checked against the waves and period of %d recorded incidents", tr.Measured)
	}
	if len(tr.Unchecked) > 0 {
		s += fmt.Sprintf("; not checked: %s, which the recording harness has no job runner for", strings.Join(tr.Unchecked, ", "))
	}
	return s
}
