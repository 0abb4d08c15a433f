package search

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeDocumentsReportJSON: every field name report.json can have
// (reportJSON and what it nests) is named in the README's report.json
// section, so that a field added to the report without its documentation
// fails here.
func TestReadmeDocumentsReportJSON(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "\n## report.json\n")
	if start < 0 {
		t.Fatal("README.md has no report.json section")
	}
	section := readme[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9_]+)`").FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}
	seen := map[reflect.Type]bool{}
	var walk func(path string, typ reflect.Type)
	walk = func(path string, typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !documented[name] {
				t.Errorf("report.json field %s%s is not named in the README's report.json section", path, name)
			}
			walk(path+name+".", f.Type)
		}
	}
	walk("", reflect.TypeOf(reportJSON{}))
	if len(seen) < 5 {
		t.Fatalf("walked %d structs: the report's JSON types changed shape", len(seen))
	}
}
