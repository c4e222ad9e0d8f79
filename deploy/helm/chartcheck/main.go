// Command chartcheck decodes rendered manifests (helm template output) strictly against the
// Kubernetes API types and exits non-zero on the first stream that has a problem, naming them all.
//
//	helm template ... | chartcheck -          # from standard input
//	chartcheck rendered/*.yaml                # from files
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: chartcheck FILE... (- for standard input)")
		os.Exit(2)
	}
	failed := false
	for _, name := range args {
		objects, problems, err := checkFile(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			failed = true
			continue
		}
		for _, problem := range problems {
			fmt.Fprintf(os.Stderr, "FAIL %v\n", problem)
		}
		if len(problems) > 0 {
			failed = true
			continue
		}
		if len(objects) == 0 {
			fmt.Fprintf(os.Stderr, "FAIL %s: no Kubernetes object in it\n", name)
			failed = true
			continue
		}
		fmt.Printf("ok   %s: %d objects decoded strictly\n", name, len(objects))
	}
	if failed {
		os.Exit(1)
	}
}

func checkFile(name string) ([]Object, []error, error) {
	if name == "-" {
		objects, problems := DecodeStream("stdin", os.Stdin)
		return objects, problems, nil
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	objects, problems := DecodeStream(name, file)
	return objects, problems, nil
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }

// stripComments drops comment lines, such as helm template's "# Source: ..." headers, and document
// separators.
func stripComments(doc []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(doc, []byte("\n")) {
		trimmed := bytes.TrimSpace(line)
		if bytes.HasPrefix(trimmed, []byte("#")) || bytes.Equal(trimmed, []byte("---")) {
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
