package mdb_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/macemc/macemc/mdb"
)

// TestGraphHTML: g --html writes the report page of the session's paths,
// opening at the current step.
func TestGraphHTML(t *testing.T) {
	s, f := fixtureSession(t)
	file := filepath.Join(t.TempDir(), "page.html")
	s.run("j crit")
	mustContain(t, s.run("g --html "+file), "wrote "+file, "the error path and the live path")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for i := 0; i < 3; i++ {
		mustContain(t, page, fmt.Sprintf(`class="lane-head" data-node="%d"`, i))
	}
	sel := regexp.MustCompile(`"select":(\d+)`).FindStringSubmatch(page)
	if sel == nil || sel[1] != fmt.Sprint(f.Error.Critical) {
		t.Errorf("the page opens at step %v, want the current step %d", sel, f.Error.Critical)
	}
	if !strings.Contains(page, `data-name="live"`) || !strings.Contains(page, `id="compare"`) {
		t.Error("the page lacks the live path or the comparison at the critical step")
	}
	mustContain(t, s.fail("g --html"), "needs a file")
	mustContain(t, s.fail("g --html "+filepath.Join(t.TempDir(), "no", "such", "dir", "p.html")), "graph:")
}

// TestGraphHTMLTool: the page that g --html writes names the session's
// tool in its commands (a user's binary that runs mdb as a subcommand),
// not macemc.
func TestGraphHTMLTool(t *testing.T) {
	dir, _ := writeFixture(t)
	s := open(t, dir, "", mdb.Options{Tool: "./mybin"})
	file := filepath.Join(t.TempDir(), "page.html")
	s.run("g --html " + file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	mustContain(t, page, "./mybin replay --trace ", "./mybin mdb ")
	if strings.Contains(page, "macemc replay") || strings.Contains(page, "macemc mdb") {
		t.Error("the page names macemc's commands, not the session's tool")
	}
}
