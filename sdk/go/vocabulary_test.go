package delayedtasks_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// vocabulary is conformance/vocabulary.json, the one list of public names of the four SDKs.
type vocabulary struct {
	Types      []string       `json:"types"`
	Verbs      []string       `json:"verbs"`
	Functions  []string       `json:"functions"`
	ErrorCodes []string       `json:"errorCodes"`
	Enums      map[string]any `json:"enums"`
	Pending    []struct {
		Kind, Name string
		Landed     []string
	} `json:"pending"`
	Languages map[string]struct {
		Renamed      map[string]struct{ Names []string } `json:"renamed"`
		Absent       map[string]string                   `json:"absent"`
		Only         map[string]string                   `json:"only"`
		OnlyVerbs    map[string]string                   `json:"onlyVerbs"`
		EnumPrefixes map[string]string                   `json:"enumPrefixes"`
	} `json:"languages"`
}

// pascal spells a wire value or a camelCase verb in Go's exported case: "bufferOne" -> "BufferOne",
// "RETRYABLE_ERROR" -> "RetryableError", "missing_header" -> "MissingHeader".
func pascal(s string) string {
	if !strings.Contains(s, "_") && strings.ToUpper(s) != s {
		return string(unicode.ToUpper(rune(s[0]))) + s[1:]
	}
	var b strings.Builder
	for _, word := range strings.Split(strings.ToLower(s), "_") {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String()
}

// exportedNames reads the package's exported top-level identifiers and the exported methods of
// *Client from its source files (test files excluded) with go/ast.
func exportedNames(t *testing.T) (names, verbs []string) {
	t.Helper()
	fset := token.NewFileSet()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, ".", notTest, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for _, file := range pkg.Files {
			for _, decl := range file.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					if d.Recv == nil {
						names = append(names, d.Name.Name)
					} else if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
						if id, ok := star.X.(*ast.Ident); ok && id.Name == "Client" {
							verbs = append(verbs, d.Name.Name)
						}
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								names = append(names, s.Name.Name)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									names = append(names, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	return names, verbs
}

func TestVocabulary(t *testing.T) {
	raw, err := os.ReadFile("../../conformance/vocabulary.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vocabulary
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	lang := v.Languages["go"]
	pending := map[string]bool{}
	for _, p := range v.Pending {
		if !slices.Contains(p.Landed, "go") {
			pending[p.Kind+":"+p.Name] = true
		}
	}
	// want: Go name -> the canonical entry it spells ("" for a Go-only name, never missing).
	want := map[string]string{}
	add := func(kind string, canonical []string, spell func(string) string) {
		for _, name := range canonical {
			if _, absent := lang.Absent[name]; absent {
				continue
			}
			spelled := []string{spell(name)}
			if r, ok := lang.Renamed[name]; ok {
				spelled = r.Names
			}
			for _, s := range spelled {
				want[s] = kind + ":" + name
			}
		}
	}
	same := func(s string) string { return s }
	add("type", v.Types, same)
	add("function", v.Functions, pascal)
	add("errorCode", v.ErrorCodes, func(c string) string { return "Code" + pascal(c) })
	for set, prefix := range lang.EnumPrefixes {
		if set == "$comment" {
			continue
		}
		values, _ := v.Enums[set].([]any)
		for _, value := range values {
			want[prefix+pascal(value.(string))] = ""
		}
	}
	for name := range lang.Only {
		want[name] = ""
	}

	names, verbs := exportedNames(t)
	check := func(what string, got []string, want map[string]string) {
		t.Helper()
		var missing, unlisted []string
		for name, canonical := range want {
			if !slices.Contains(got, name) && !pending[canonical] {
				missing = append(missing, name)
			}
		}
		for _, name := range got {
			if _, ok := want[name]; !ok {
				unlisted = append(unlisted, name)
			}
		}
		sort.Strings(missing)
		sort.Strings(unlisted)
		if len(missing) > 0 {
			t.Errorf("%s the vocabulary lists but the package lacks: %v", what, missing)
		}
		if len(unlisted) > 0 {
			t.Errorf("%s the package exports but conformance/vocabulary.json does not list: %v", what, unlisted)
		}
	}
	check("identifiers", names, want)

	wantVerbs := map[string]string{}
	for _, verb := range v.Verbs {
		wantVerbs[pascal(verb)] = "verb:" + verb
	}
	for verb := range lang.OnlyVerbs {
		wantVerbs[verb] = ""
	}
	check("Client methods", verbs, wantVerbs)
}
