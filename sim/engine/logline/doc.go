// Package logline scans the log entries the simulator and services write
// through zerolog: flat JSON objects whose values are strings, numbers,
// booleans and nulls. It reads them in place, several times faster than
// decoding them with encoding/json, for the plain-text logs
// (engine.NewLogger) and the report page (mdb/htmlreport), which read every
// entry of paths of tens of thousands of steps. An entry it does not
// accept (a nested value, a key given twice or escaped, a string that is
// not valid UTF-8 or holds a surrogate escape) is for encoding/json to
// read: Parse says so rather than guess.
//
// # Usage
//
//	fields, buf, ok := logline.Parse(entry, fields[:0], buf[:0])
//	if !ok {
//		// decode entry with encoding/json
//	}
//	for _, f := range fields {
//		fmt.Printf("%s=%s (string: %v)\n", f.Key, f.Value, f.String)
//	}
package logline
