package analyze

import (
	"fmt"
	"math"
	"sort"

	"github.com/stampede/stampede/timeline"
)

// Several job runners with different requeue delays beside one limiter each
// make waves at their own period, and the waves of one fall off the grid of
// the other, so the whole series shows neither. Their tasks are told apart
// by the requeue delay each task waited: a fixed delay is the same for every
// task of one runner.

// minGroupTasks is the fewest tasks that make a runner of their own: fewer
// cannot make the three waves a period needs.
const minGroupTasks = 10

// requeueGroups splits the tasks by their median requeue delay where the
// medians fall into clusters that a wide gap separates. It returns the
// clusters' delays and, per task index, its cluster; nil when there is only
// one cluster.
func requeueGroups(j *joins) (delays []float64, groupOf []int) {
	type taskDelay struct {
		task  int
		delay float64
	}
	var tds []taskDelay
	for ti := range j.tasks {
		qas := j.queueAttemptsOf(&j.tasks[ti])
		var gaps []float64
		for k := 1; k < len(qas); k++ {
			prev, next := j.queueAttempt(qas[k-1]), j.queueAttempt(qas[k])
			if prev.failed && next.start >= prev.end {
				gaps = append(gaps, seconds(next.start-prev.end))
			}
		}
		if len(gaps) > 0 {
			tds = append(tds, taskDelay{ti, percentile(gaps, 0.5)})
		}
	}
	if len(tds) < 2*minGroupTasks {
		return nil, nil
	}
	sort.Slice(tds, func(a, b int) bool { return tds[a].delay < tds[b].delay })
	// A gap between neighbouring medians wider than a fifth of the smaller
	// delay, and a second, separates runners: jitter of a tenth, or a
	// client running late, spreads one runner's delays far less.
	var cuts []int
	for k := 1; k < len(tds); k++ {
		lo := tds[k-1].delay
		if tds[k].delay-lo > math.Max(0.2*lo, 1) {
			cuts = append(cuts, k)
		}
	}
	if len(cuts) == 0 {
		return nil, nil
	}
	bounds := append(append([]int{0}, cuts...), len(tds))
	for b := 1; b < len(bounds); b++ {
		if bounds[b]-bounds[b-1] < minGroupTasks {
			// A sparse tail (tasks whose delays a limiter stretched) is
			// not a runner.
			return nil, nil
		}
	}
	groupOf = make([]int, len(j.tasks))
	for i := range groupOf {
		groupOf[i] = -1
	}
	prefixes := make([]map[string]int, len(bounds)-1)
	for b := 1; b < len(bounds); b++ {
		var ds []float64
		prefixes[b-1] = map[string]int{}
		for _, td := range tds[bounds[b-1]:bounds[b]] {
			groupOf[td.task] = b - 1
			ds = append(ds, td.delay)
			// Past maxPrefixes distinct prefixes, the rest count only in
			// the group's total: a prefix that names a runner is common
			// enough to be among the first, and ids that share none must
			// not grow the map with the tasks.
			p := taskPrefix(j.tasks[td.task].id.String())
			if _, ok := prefixes[b-1][p]; !ok && len(prefixes[b-1]) >= maxPrefixes {
				p = unnamedPrefix
			}
			prefixes[b-1][p]++
		}
		delays = append(delays, percentile(ds, 0.5))
	}
	assignByPrefix(j, groupOf, prefixes)
	return delays, groupOf
}

// maxPrefixes bounds the task id prefixes counted per group; unnamedPrefix
// counts the rest, and is never taken for a runner's.
const (
	maxPrefixes   = 4096
	unnamedPrefix = "\x00"
)

// assignByPrefix puts the tasks that were never requeued (done or given up
// at the first try) into the group whose tasks share their id prefix, where
// each group's tasks mostly share one prefix of their own: runners usually
// name their tasks. Without such names those tasks stay in no group.
func assignByPrefix(j *joins, groupOf []int, prefixes []map[string]int) {
	owner := map[string]int{}
	for g, ps := range prefixes {
		best, n, total := "", 0, 0
		for p, c := range ps {
			total += c
			if c > n || (c == n && p < best) {
				best, n = p, c
			}
		}
		if best == "" || best == unnamedPrefix || 10*n < 9*total {
			return
		}
		if _, taken := owner[best]; taken {
			return
		}
		owner[best] = g
	}
	for ti := range groupOf {
		if groupOf[ti] >= 0 {
			continue
		}
		if g, ok := owner[taskPrefix(j.tasks[ti].id.String())]; ok {
			groupOf[ti] = g
		}
	}
}

// taskPrefix is a task id without its trailing digits: "jobA-0012" → "jobA-".
func taskPrefix(id string) string {
	k := len(id)
	for k > 0 && id[k-1] >= '0' && id[k-1] <= '9' {
		k--
	}
	return id[:k]
}

// findGroupWaves runs the wave analysis once per runner, on the events of
// its tasks and every event that has no task (the interactive traffic they
// share a limiter with).
func findGroupWaves(j *joins, opt Options) []WaveGroup {
	delays, groupOf := requeueGroups(j)
	if len(delays) < 2 {
		return nil
	}
	group := map[timeline.Sym]int{}
	for ti, g := range groupOf {
		if g >= 0 {
			group[j.tasks[ti].id] = g
		}
	}
	var out []WaveGroup
	for g, delay := range delays {
		sub := &timeline.Timeline{Sources: j.tl.Sources}
		tasks := 0
		for ti := range groupOf {
			if groupOf[ti] == g {
				tasks++
			}
		}
		for i := range j.tl.Events {
			e := &j.tl.Events[i]
			if e.TaskID != timeline.NoSym {
				if gg, ok := group[e.TaskID]; !ok || gg != g {
					continue
				}
			}
			sub.Events = append(sub.Events, *e)
		}
		w := findWaves(buildJoins(sub), opt, false)
		wg := WaveGroup{RequeueDelay: delay, Tasks: tasks, Periodic: w.Periodic, Period: w.Period, BestLag: w.BestLag, Waves: len(w.Waves)}
		if len(w.Suspects) > 0 {
			wg.Explanation = w.Suspects[0].Text
		}
		out = append(out, wg)
	}
	return out
}

// groupFinding is the sentence for runners with periods of their own.
func groupFinding(gs []WaveGroup) string {
	var parts []string
	for _, g := range gs {
		p := fmt.Sprintf("%s tasks requeued after %s", count(int64(g.Tasks)), secs(g.RequeueDelay))
		switch {
		case g.Periodic && g.Explanation != "":
			p += fmt.Sprintf(" made %d waves, %s", g.Waves, g.Explanation)
		case g.Periodic:
			p += fmt.Sprintf(" made %d waves every %s", g.Waves, secs(g.Period))
		default:
			p += " made no periodic waves"
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("The tasks fall into %d groups by requeue delay, as %d job runners would, each with waves of its own: %s.",
		len(gs), len(gs), joinWords(parts, "and"))
}
