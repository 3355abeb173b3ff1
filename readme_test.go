package stampede_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede/stampede/internal/racedetect"
)

// The examples in README.md and docs/*.md are run as written, so that a user
// who copies one gets what the page says it prints.
//
// Which lines are commands: in a ```sh, ```bash, ```shell or ```console
// block, a line starting with "$ " is a command (console style), and in the
// blocks other than console so is every line that is not blank or a
// comment; a line ending in "\" goes on on the next. A stampede command is
// one that starts with "stampede " or "go run ./cmd/stampede "; others (go
// test, go install, source) are not run here.
//
// Which blocks run: a block runs when one of its stampede commands names
// testdata/. Then each of its stampede commands runs, in order, under sh,
// in one scratch directory where testdata/ is the repository's, so that a
// command can read what the one before it wrote. GITHUB_STEP_SUMMARY names
// a file there.
//
// What is checked: the exit status is 0 unless the example says otherwise,
// with "$ echo $?" and the status on the next line, or with a trailing
// "# exit N" comment. After a "$ " command, the lines up to the next "$ "
// are its output, standard output and error together, compared exactly; a
// command with no such lines must print nothing.

type docExample struct {
	at       string // file:line of the command, for failures
	cmd      string // continuation lines joined
	wantExit int
	// output is checked when checkOutput: console blocks quote it.
	output      []string
	checkOutput bool
}

type docBlock struct {
	at       string // file:line of the opening fence
	examples []docExample
}

var (
	exitMarker = regexp.MustCompile(`#\s*exit\s+(\d+)\s*$`)
	stampedeIn = []string{"stampede ", "go run ./cmd/stampede "}
)

// stampedeArgs returns what follows the program in a stampede command.
func stampedeArgs(cmd string) (string, bool) {
	for _, p := range stampedeIn {
		if rest, ok := strings.CutPrefix(cmd, p); ok {
			return rest, true
		}
	}
	return "", false
}

// parseDocBlocks returns the runnable blocks of one Markdown file.
func parseDocBlocks(name string, md []byte) []docBlock {
	var blocks []docBlock
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(md))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	for i := 0; i < len(lines); i++ {
		fence, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "```")
		if !ok {
			continue
		}
		lang := strings.TrimSpace(fence)
		start := i + 1
		end := start
		for end < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[end]), "```") {
			end++
		}
		i = end
		switch lang {
		case "sh", "bash", "shell", "console":
		default:
			continue
		}
		b := docBlock{at: name + ":" + strconv.Itoa(start)}
		var cur *docExample // the last command, whose output lines follow
		for j := start; j < end; j++ {
			line := lines[j]
			at := name + ":" + strconv.Itoa(j+1)
			cmd, prompted := strings.CutPrefix(line, "$ ")
			if !prompted {
				if cur != nil && cur.checkOutput {
					cur.output = append(cur.output, line)
					continue
				}
				if lang == "console" || strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
					continue
				}
			}
			for strings.HasSuffix(cmd, `\`) && j+1 < end {
				j++
				cmd = strings.TrimRight(strings.TrimSuffix(cmd, `\`), " ") + " " + strings.TrimSpace(lines[j])
			}
			cmd = strings.TrimSpace(cmd)
			if prompted && cmd == "echo $?" && j+1 < end {
				// The status of the command before, on the next line.
				j++
				if n, err := strconv.Atoi(strings.TrimSpace(lines[j])); err == nil && cur != nil {
					cur.wantExit = n
				}
				cur = nil
				continue
			}
			if _, ok := stampedeArgs(cmd); !ok {
				cur = nil
				continue
			}
			ex := docExample{at: at, cmd: cmd, checkOutput: prompted}
			if m := exitMarker.FindStringSubmatch(cmd); m != nil {
				ex.wantExit, _ = strconv.Atoi(m[1])
			}
			b.examples = append(b.examples, ex)
			cur = &b.examples[len(b.examples)-1]
		}
		for _, ex := range b.examples {
			if strings.Contains(ex.cmd, "testdata/") {
				blocks = append(blocks, b)
				break
			}
		}
	}
	return blocks
}

func TestParseDocBlocks(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []docBlock
	}{
		{"sh lines, comments, continuation, exit marker", "```sh\n# a comment\ngo run ./cmd/stampede analyze testdata/x  # tables\n\nstampede check testdata/x \\\n    --fail-on periodic  # exit 1\ngo test ./...\n```\n",
			[]docBlock{{at: "f.md:1", examples: []docExample{
				{at: "f.md:3", cmd: "go run ./cmd/stampede analyze testdata/x  # tables"},
				{at: "f.md:5", cmd: "stampede check testdata/x --fail-on periodic  # exit 1", wantExit: 1},
			}}}},
		{"console output and echo $?", "```console\n$ stampede check testdata/x --fail-on periodic\nFAIL: periodic\nstampede: 1 of 1 --fail-on gates failed\n$ echo $?\n1\n$ stampede analyze testdata/x -o r.md\n```\n",
			[]docBlock{{at: "f.md:1", examples: []docExample{
				{at: "f.md:2", cmd: "stampede check testdata/x --fail-on periodic", wantExit: 1, checkOutput: true,
					output: []string{"FAIL: periodic", "stampede: 1 of 1 --fail-on gates failed"}},
				{at: "f.md:7", cmd: "stampede analyze testdata/x -o r.md", checkOutput: true},
			}}}},
		{"a block without testdata does not run", "```sh\nstampede analyze access.log\n```\n", nil},
		{"other languages do not run", "```yaml\nrun: stampede analyze testdata/x\n```\n```\nstampede analyze testdata/x\n```\n", nil},
		{"commands after one on testdata run too", "```sh\nstampede ingest testdata/x -o t.arrow\nstampede analyze t.arrow\n```\n",
			[]docBlock{{at: "f.md:1", examples: []docExample{
				{at: "f.md:2", cmd: "stampede ingest testdata/x -o t.arrow"},
				{at: "f.md:3", cmd: "stampede analyze t.arrow"},
			}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := parseDocBlocks("f.md", []byte(tc.md))
			if len(got) != len(tc.want) {
				t.Fatalf("%d blocks, want %d: %+v", len(got), len(tc.want), got)
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if g.at != w.at || len(g.examples) != len(w.examples) {
					t.Fatalf("block %d = %+v, want %+v", i, g, w)
				}
				for k := range g.examples {
					ge, we := g.examples[k], w.examples[k]
					if ge.at != we.at || ge.cmd != we.cmd || ge.wantExit != we.wantExit || ge.checkOutput != we.checkOutput ||
						strings.Join(ge.output, "\n") != strings.Join(we.output, "\n") {
						t.Errorf("example %d = %+v\nwant        %+v", k, ge, we)
					}
				}
			}
		})
	}
}

func TestDocExamples(t *testing.T) {
	racedetect.SkipResultsTest(t)
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	var blocks []docBlock
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, parseDocBlocks(filepath.ToSlash(f), md)...)
	}
	// A parser that finds nothing would pass: the README's set-up command
	// must be among what runs.
	found := false
	for _, b := range blocks {
		for _, ex := range b.examples {
			found = found || ex.cmd == "go run ./cmd/stampede analyze testdata/seed-incident"
		}
	}
	if !found {
		t.Fatalf("the README's set-up command is not among the %d example blocks found", len(blocks))
	}

	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "stampede")
	build := exec.Command("go", "build", "-o", bin, "./cmd/stampede")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, b := range blocks {
		t.Run(b.at, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Symlink(testdata, filepath.Join(dir, "testdata")); err != nil {
				t.Fatal(err)
			}
			for _, ex := range b.examples {
				args, _ := stampedeArgs(ex.cmd)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				cmd := exec.CommandContext(ctx, "sh", "-c", "'"+bin+"' "+args)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+filepath.Join(dir, "step-summary.md"))
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out // one pipe keeps their order
				err := cmd.Run()
				cancel()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatalf("%s: %s: %v", ex.at, ex.cmd, err)
				}
				got := strings.TrimSuffix(out.String(), "\n")
				if code != ex.wantExit {
					t.Errorf("%s: %s\nexit %d, the page says %d; output:\n%s", ex.at, ex.cmd, code, ex.wantExit, got)
				}
				if want := strings.Join(ex.output, "\n"); ex.checkOutput && got != want {
					t.Errorf("%s: %s\nprints:\n%s\nthe page quotes:\n%s", ex.at, ex.cmd, got, want)
				}
			}
		})
	}
}
