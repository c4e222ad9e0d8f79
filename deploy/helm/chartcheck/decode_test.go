package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const deployment = `# Source: chart/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: example/api:1.0.0
          readinessProbe:
            httpGet: {path: /readyz, port: 3000}
`

func TestDecodeDocument(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		want string // "" when the document must decode
	}{
		{"a valid deployment", deployment, ""},
		{"a misspelled field", strings.Replace(deployment, "readinessProbe", "readinesProbe", 1), `unknown field "spec.template.spec.containers[0].readinesProbe"`},
		{"a field in the wrong case", strings.Replace(deployment, "readinessProbe", "ReadinessProbe", 1), `unknown field "spec.template.spec.containers[0].ReadinessProbe"`},
		{"a field written twice", strings.Replace(deployment, "name: api\n", "name: api\n  name: api2\n", 1), `already set`},
		{"a string where an object goes", strings.Replace(deployment, "httpGet: {path: /readyz, port: 3000}", "httpGet: /readyz", 1), "cannot unmarshal"},
		{"an unknown kind", strings.Replace(deployment, "kind: Deployment", "kind: Deploymnt", 1), "unknown apiVersion/kind"},
		{"a retired apiVersion", strings.Replace(deployment, "apps/v1", "extensions/v1beta1", 1), "unknown apiVersion/kind"},
		{"a selector that misses the pods", strings.Replace(deployment, "labels: {app: api}", "labels: {app: worker}", 1), "does not match"},
		{"no name", strings.Replace(deployment, "  name: api\nspec", "  labels: {}\nspec", 1), "metadata.name is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeDocument([]byte(c.doc))
			if c.want == "" {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error containing %q, got %v", c.want, err)
			}
		})
	}
}

// Every file in testdata/good decodes; every file in testdata/bad has at least one problem, and
// names the object it is in.
func TestStreams(t *testing.T) {
	for _, dir := range []string{"good", "bad"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no files in testdata/%s: %v", dir, err)
		}
		for _, name := range files {
			t.Run(name, func(t *testing.T) {
				file, err := os.Open(name)
				if err != nil {
					t.Fatal(err)
				}
				defer file.Close()
				objects, problems := DecodeStream(name, file)
				if dir == "good" && (len(problems) > 0 || len(objects) == 0) {
					t.Fatalf("want objects and no problem, got %d objects and %v", len(objects), problems)
				}
				if dir == "bad" && len(problems) == 0 {
					t.Fatalf("want a problem, got none in %d objects", len(objects))
				}
			})
		}
	}
}
