package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestUseColourOnlyOnATerminal(t *testing.T) {
	if UseColour(&bytes.Buffer{}) {
		t.Error("colour for a buffer")
	}
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	// /dev/null is a character device but not a terminal.
	if UseColour(devNull) {
		t.Error("colour for /dev/null")
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no terminal to test the positive case:", err)
	}
	defer tty.Close()
	t.Setenv("TERM", "xterm")
	t.Setenv("NO_COLOR", "")
	if !UseColour(tty) {
		t.Error("no colour for a terminal")
	}
	t.Setenv("NO_COLOR", "1")
	if UseColour(tty) {
		t.Error("colour despite NO_COLOR")
	}
}

func TestColourTouchesOnlyOurHeadings(t *testing.T) {
	var plainOut, coloured bytes.Buffer
	if err := RenderWith(&plainOut, hostileResult(), FormatTable, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := RenderWith(&coloured, hostileResult(), FormatTable, Options{Colour: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(coloured.String(), ansiBold+"FINDINGS"+ansiReset) {
		t.Error("headings are not emphasised")
	}
	// Removing our emphasis gives the plain report back: no log string
	// gained or kept an escape sequence.
	stripped := strings.NewReplacer(ansiBold, "", ansiReset, "").Replace(coloured.String())
	if stripped != plainOut.String() {
		t.Error("coloured table differs from the plain one beyond heading emphasis")
	}
	if strings.Contains(plainOut.String(), "\x1b") {
		t.Error("plain table contains an escape")
	}
	if Verdict("FAIL", true, false) != "FAIL" || Verdict("FAIL", true, true) != ansiRed+"FAIL"+ansiReset {
		t.Error("Verdict colours wrongly")
	}
}
