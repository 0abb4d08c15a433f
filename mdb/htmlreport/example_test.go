package htmlreport_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/mdb/mdbtest"
)

// ExampleWriteDir writes the page of a result directory: here mdbtest's
// fixture, an error and a live trace without report.json.
func ExampleWriteDir() {
	mdbtest.Register()
	dir, err := os.MkdirTemp("", "macemc-out")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if _, err := mdbtest.Write(dir, mdbtest.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	page, err := os.ReadFile(filepath.Join(dir, htmlreport.PageFile))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", regexp.MustCompile(`<title>(.*)</title>`).FindSubmatch(page)[1])
	fmt.Println(regexp.MustCompile(`class="lane-head"`).FindAll(page, -1) != nil)
	// Output:
	// macemc: liveness violation of AllAcked: mdbtest-ping
	// true
}
