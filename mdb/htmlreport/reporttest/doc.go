// Package reporttest makes result directories of every example system's
// finding, with small fixed budgets, for the tests of the report page (the
// structural tests of htmlreport and the browser test in
// htmlreport/browsertest).
//
// # Usage
//
//	for _, ex := range reporttest.Examples {
//		dir := t.TempDir()
//		reporttest.Search(t, dir, ex)
//		err := htmlreport.WriteDir(dir, htmlreport.Options{})
//	}
package reporttest
