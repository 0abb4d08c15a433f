package htmlreport_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"golang.org/x/net/html"

	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/sim/trace"
)

// TestCommandsAndComparisons renders mdbtest's finding from the result
// directories testdata/commands.txt describes and prints the page's
// commands, its marks and what each path is compared with. Each
//
//	page dir=DIR [tool=TOOL] [report=OLD] [traces=error,live,min]
//
// reads a directory holding the traces named (default error,live; min is
// the error path up to its critical step), and report.json when report=
// is given, whose files and commands name the directory OLD the search
// wrote (a directory since moved to DIR), and makes its page as
// `TOOL report DIR` does (Input.Dir DIR, Options.Tool TOOL). go test
// ./mdb/htmlreport -rewrite regenerates the file.
func TestCommandsAndComparisons(t *testing.T) {
	src := t.TempDir()
	f, mt := withMinimized(t, src)
	et := f.Found.Error
	traces := map[string]*trace.Trace{"error": et, "live": f.Found.Live, "min": mt}
	datadriven.RunTest(t, "testdata/commands.txt", func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "page" {
			td.Fatalf(t, "unknown command %q", td.Cmd)
		}
		var dir, tool, old string
		names := []string{"error", "live"}
		for _, a := range td.CmdArgs {
			if len(a.Vals) != 1 {
				td.Fatalf(t, "%s: want one value", a.Key)
			}
			switch v := a.Vals[0]; a.Key {
			case "dir":
				dir = v
			case "tool":
				tool = v
			case "report":
				old = v
			case "traces":
				names = strings.Split(v, ",")
			default:
				td.Fatalf(t, "unknown argument %q", a.Key)
			}
		}
		rd := t.TempDir()
		for _, n := range names {
			tr := traces[n]
			if tr == nil {
				td.Fatalf(t, "unknown trace %q", n)
			}
			if err := tr.Write(filepath.Join(rd, n+".trace")); err != nil {
				t.Fatal(err)
			}
		}
		if old != "" {
			writeMovedReport(t, rd, old, et)
		}
		in, err := htmlreport.ReadDir(rd)
		if err != nil {
			t.Fatal(err)
		}
		in.Dir, in.Options.Tool = dir, tool
		var buf bytes.Buffer
		if err := htmlreport.Render(&buf, in); err != nil {
			t.Fatal(err)
		}
		return pageSummary(t, buf.Bytes())
	})
}

// writeMovedReport writes into dir the report.json of a search whose
// --out was old, as lockbin's search writes it.
func writeMovedReport(t *testing.T, dir, old string, et *trace.Trace) {
	t.Helper()
	files := map[string]string{}
	for _, n := range []string{"error", "live", "min"} {
		if _, err := os.Stat(filepath.Join(dir, n+".trace")); err == nil {
			files[n+"_trace"] = filepath.Join(old, n+".trace")
			files[n+"_log"] = filepath.Join(old, n+".log")
		}
	}
	files["report"] = filepath.Join(old, htmlreport.ReportFile)
	rep := htmlreport.Report{
		Verdict: "liveness", Kind: "dead", Property: et.Property, System: et.System, Params: et.Params, Seed: et.Seed, Steps: et.Steps,
		Critical: &htmlreport.Critical{Step: et.Critical, Condition: "C1"},
		Files:    files,
		Replay:   fmt.Sprintf("./lockbin replay --trace %s/error.trace --log %s/error.log", old, old),
		Debug:    "./lockbin mdb " + old,
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, htmlreport.ReportFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pageSummary prints a page's commands, the command its script offers
// for mdb, its marks (by the path's name) and, per path, the steps it
// shares with the live alternative and the path its states are diffed
// against.
func pageSummary(t *testing.T, raw []byte) string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	script := find(doc, func(n *html.Node) bool { return n.Data == "script" && attr(n, "id") == "macemc-data" })
	if len(script) != 1 {
		t.Fatalf("%d data scripts in the page", len(script))
	}
	var data struct {
		Paths []struct {
			Name   string `json:"name"`
			Steps  int    `json:"steps"`
			Shared int    `json:"shared"`
			Other  int    `json:"other"`
		} `json:"paths"`
		Debug string `json:"debug"`
	}
	if err := json.Unmarshal([]byte(text(script[0])), &data); err != nil {
		t.Fatalf("the page's data: %v", err)
	}
	var b strings.Builder
	b.WriteString("commands:\n")
	for _, c := range byClass(doc, "div", "command") {
		label := byClass(c, "span", "label")
		copyBtn := byClass(c, "button", "copy")
		if len(label) != 1 || len(copyBtn) != 1 {
			t.Fatalf("a command without one label and one copy button: %q", text(c))
		}
		fmt.Fprintf(&b, "  %s: %s\n", text(label[0]), attr(copyBtn[0], "data-copy"))
	}
	fmt.Fprintf(&b, "script's mdb command: %s\n", data.Debug)
	b.WriteString("marks:\n")
	for _, m := range byClass(doc, "button", "mark") {
		i, err := strconv.Atoi(attr(m, "data-path"))
		if err != nil || i < 0 || i >= len(data.Paths) {
			t.Fatalf("a mark of path %q", attr(m, "data-path"))
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", data.Paths[i].Name, attr(m, "class"), text(m))
	}
	b.WriteString("paths:\n")
	for _, p := range data.Paths {
		other := "none"
		if p.Other >= 0 && p.Other < len(data.Paths) {
			other = data.Paths[p.Other].Name
		}
		fmt.Fprintf(&b, "  %s: %d steps, shared %d, states diffed against %s\n", p.Name, p.Steps, p.Shared, other)
	}
	return b.String()
}
