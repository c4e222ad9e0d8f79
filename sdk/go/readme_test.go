package delayedtasks_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// The README cannot drift from the code: it starts with the install line of this version, its
// first Go block (a whole program, which install-test.sh runs against the live stack) builds
// against this module, and every other Go block is found as it is in an example of
// example_test.go, which the compiler checks.

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

func readmeGoBlocks(t *testing.T) (readme string, blocks []string) {
	t.Helper()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range goBlock.FindAllStringSubmatch(string(raw), -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go block")
	}
	return string(raw), blocks
}

func TestReadmeStartsWithTheInstallLine(t *testing.T) {
	readme, _ := readmeGoBlocks(t)
	// One line in a bash block before the first Go block, ending with the go get of this version
	// (until the module is published it carries the file GOPROXY and GONOSUMDB in front; the
	// same line in every doc: scripts/sdk-install-line.sh, which install-test.sh runs).
	install := "go get github.com/delayed-tasks/delayed-task-service/sdk/go@v" + dt.Version
	head, _, _ := strings.Cut(readme, "```go")
	_, block, _ := strings.Cut(head, "```bash\n")
	line, _, _ := strings.Cut(block, "\n")
	if !strings.HasSuffix(line, install) || !strings.HasPrefix(block, line+"\n```") {
		t.Errorf("README.md does not start with one install line ending in %q: %q", install, line)
	}
}

func TestReadmeProgramBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program: not in -short")
	}
	_, blocks := readmeGoBlocks(t)
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const module = "github.com/delayed-tasks/delayed-task-service/sdk/go"
	goMod := "module example.com/readme\n\ngo 1.24\n\nrequire " + module + " v" + dt.Version +
		"\n\nreplace " + module + " => " + here + "\n"
	for name, content := range map[string]string{"go.mod": goMod, "main.go": blocks[0]} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "vet", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's program does not build: %v\n%s", err, out)
	}
}

func TestReadmeFragmentsAreExamples(t *testing.T) {
	_, blocks := readmeGoBlocks(t)
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && strings.HasPrefix(fn.Name.Name, "Example") {
			body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
			bodies = append(bodies, strings.ReplaceAll(body, "\n\t", "\n"))
		}
	}
	for i, block := range blocks[1:] {
		found := false
		for _, body := range bodies {
			found = found || strings.Contains(body, "\n"+block)
		}
		if !found {
			t.Errorf("README Go block %d is in no example of example_test.go (as it is, one tab less):\n%s", i+2, block)
		}
	}
}
