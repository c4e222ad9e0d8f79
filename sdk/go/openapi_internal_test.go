package delayedtasks

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The wire types are checked against the OpenAPI document the service's schemas generate
// (docs/openapi.json in the repository, `npm run openapi`): every property of a schema is a JSON
// field of its Go type and every JSON field of the Go type is a property of the schema.
const openAPIPath = "../../docs/openapi.json"

type schema struct {
	Properties map[string]*schema `json:"properties"`
	Items      *schema            `json:"items"`
	AnyOf      []*schema          `json:"anyOf"`
	Enum       []any              `json:"enum"`
}

type mediaTypes map[string]struct {
	Schema *schema `json:"schema"`
}

type operation struct {
	Parameters []struct {
		In   string `json:"in"`
		Name string `json:"name"`
	} `json:"parameters"`
	RequestBody *struct {
		Content mediaTypes `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Content mediaTypes `json:"content"`
	} `json:"responses"`
}

type openAPI struct {
	Paths map[string]map[string]*operation `json:"paths"`
}

func loadOpenAPI(t *testing.T) *openAPI {
	t.Helper()
	raw, err := os.ReadFile(openAPIPath)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("no OpenAPI document (%v): outside the repository", err)
	}
	var doc openAPI
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", openAPIPath, err)
	}
	return &doc
}

// op returns the operation method path of the document; it fails the test when there is none.
func (d *openAPI) op(t *testing.T, method, path string) *operation {
	t.Helper()
	o := d.Paths[path][method]
	if o == nil {
		t.Fatalf("the document has no %s %s", method, path)
	}
	return o
}

func jsonSchema(t *testing.T, where string, content mediaTypes) *schema {
	t.Helper()
	s := content["application/json"].Schema
	if s == nil {
		t.Fatalf("%s: no application/json schema", where)
	}
	return s
}

func (o *operation) requestSchema(t *testing.T) *schema {
	t.Helper()
	if o.RequestBody == nil {
		t.Fatal("no request body")
	}
	return jsonSchema(t, "request body", o.RequestBody.Content)
}

func (o *operation) responseSchema(t *testing.T, status string) *schema {
	t.Helper()
	return jsonSchema(t, "response "+status, o.Responses[status].Content)
}

func (s *schema) prop(t *testing.T, name string) *schema {
	t.Helper()
	p := s.Properties[name]
	if p == nil {
		t.Fatalf("schema has no property %q", name)
	}
	return p
}

// enum is every value of an enum written as {"enum": [...]} or as anyOf of one-value enums.
func (s *schema) enum() []string {
	var out []string
	for _, v := range s.Enum {
		out = append(out, v.(string))
	}
	for _, alt := range s.AnyOf {
		out = append(out, alt.enum()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// jsonFields is the set of JSON names of a struct type's fields (embedded structs flattened).
func jsonFields(typ reflect.Type) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "":
			out = append(out, jsonFields(f.Type)...)
		case name == "":
			out = append(out, f.Name)
		default:
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func sameFields(t *testing.T, what string, s *schema, typ reflect.Type) {
	t.Helper()
	var props []string
	for name := range s.Properties {
		props = append(props, name)
	}
	slices.Sort(props)
	fields := jsonFields(typ)
	for _, p := range props {
		if !slices.Contains(fields, p) {
			t.Errorf("%s: the document's property %q is not a field of %v", what, p, typ)
		}
	}
	for _, f := range fields {
		if !slices.Contains(props, f) {
			t.Errorf("%s: %v has field %q, not in the document (properties %v)", what, typ, f, props)
		}
	}
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

func TestWireTypesMatchOpenAPI(t *testing.T) {
	doc := loadOpenAPI(t)
	t.Run("Task", func(t *testing.T) {
		for _, route := range [][2]string{
			{"get", "/api/v1/tasks/{taskId}"}, {"post", "/api/v1/tasks/{taskId}/cancel"},
			{"post", "/api/v1/tasks/{taskId}/reschedule"}, {"post", "/api/v1/tasks/{taskId}/replay"},
		} {
			task := doc.op(t, route[0], route[1]).responseSchema(t, "200")
			sameFields(t, route[0]+" "+route[1], task, typeOf[Task]())
			sameFields(t, "lastError", task.prop(t, "lastError"), typeOf[TaskError]())
			sameFields(t, "attemptHistory", task.prop(t, "attemptHistory").Items, typeOf[TaskAttempt]())
		}
		for _, status := range []string{"200", "201"} {
			sameFields(t, "create "+status, doc.op(t, "post", "/api/v1/tasks").responseSchema(t, status), typeOf[Task]())
		}
	})
	list := doc.op(t, "get", "/api/v1/tasks")
	t.Run("TaskPage", func(t *testing.T) {
		page := list.responseSchema(t, "200")
		sameFields(t, "list page", page, typeOf[TaskPage]())
		summary := page.prop(t, "tasks").Items
		sameFields(t, "TaskSummary", summary, typeOf[TaskSummary]())
		sameFields(t, "TaskSummary lastError", summary.prop(t, "lastError"), typeOf[TaskError]())
	})
	t.Run("ListTasksRequest", func(t *testing.T) {
		var params []string
		for _, p := range list.Parameters {
			if p.In == "query" {
				params = append(params, p.Name)
			}
		}
		slices.Sort(params)
		var sent []string
		for name := range everyListOption().query() {
			sent = append(sent, name)
		}
		slices.Sort(sent)
		if !slices.Equal(params, sent) {
			t.Errorf("ListTasksRequest sends %v; the document's list parameters are %v", sent, params)
		}
	})
	t.Run("request bodies", func(t *testing.T) {
		sameFields(t, "create body", doc.op(t, "post", "/api/v1/tasks").requestSchema(t), typeOf[createBody]())
		batch := doc.op(t, "post", "/api/v1/tasks/batch")
		sameFields(t, "batch body", batch.requestSchema(t), typeOf[batchBody]())
		sameFields(t, "batch item", batch.requestSchema(t).prop(t, "tasks").Items, typeOf[createBody]())
		sameFields(t, "reschedule body", doc.op(t, "post", "/api/v1/tasks/{taskId}/reschedule").requestSchema(t), typeOf[whenBody]())
		sameFields(t, "replay body", doc.op(t, "post", "/api/v1/tasks/{taskId}/replay").requestSchema(t), typeOf[replayBody]())
	})
	t.Run("batch response", func(t *testing.T) {
		resp := doc.op(t, "post", "/api/v1/tasks/batch").responseSchema(t, "200")
		sameFields(t, "batch response", resp, typeOf[batchResponse]())
		sameFields(t, "batch result", resp.prop(t, "results").Items, typeOf[batchItem]())
		sameFields(t, "batch result error", resp.prop(t, "results").Items.prop(t, "error"), typeOf[wireError]())
	})
	t.Run("error body", func(t *testing.T) {
		n := 0
		for path, ops := range doc.Paths {
			if !strings.HasPrefix(path, "/api/v1/tasks") {
				continue
			}
			for method, o := range ops {
				for status, r := range o.Responses {
					if status[0] == '2' || r.Content["application/json"].Schema == nil {
						continue
					}
					where := method + " " + path + " " + status
					body := r.Content["application/json"].Schema
					sameFields(t, where, body, typeOf[errorBody]())
					sameFields(t, where+" error", body.prop(t, "error"), typeOf[wireError]())
					sameFields(t, where+" details", body.prop(t, "error").prop(t, "details").Items, typeOf[ErrorDetail]())
					n++
				}
			}
		}
		if n == 0 {
			t.Error("no error response found in the document")
		}
	})
}

// TestEveryCreateFieldReachesTheBody sets each field of CreateTaskRequest in turn and checks that
// the body changes, and that every field of the wire body (createBody, which the test above holds
// to the document) is written by some field: a property added to the create body fails here until
// CreateTaskRequest has a field for it and newCreateBody copies it.
func TestEveryCreateFieldReachesTheBody(t *testing.T) {
	base := func() *CreateTaskRequest {
		return &CreateTaskRequest{TaskType: "t", Payload: map[string]any{}, Delay: time.Second, CallbackURL: "https://h.example/cb", TaskID: "id"}
	}
	// One change per field; Delay and ExecuteAt, CallbackURL and Delivery exclude each other.
	samples := map[string]func(*CreateTaskRequest){
		"TaskType":       func(r *CreateTaskRequest) { r.TaskType = "u" },
		"Payload":        func(r *CreateTaskRequest) { r.Payload = map[string]any{"a": 1} },
		"Delay":          func(r *CreateTaskRequest) { r.Delay = 2 * time.Second },
		"ExecuteAt":      func(r *CreateTaskRequest) { r.Delay, r.ExecuteAt = 0, time.Now() },
		"CallbackURL":    func(r *CreateTaskRequest) { r.CallbackURL = "https://h.example/other" },
		"Delivery":       func(r *CreateTaskRequest) { r.CallbackURL, r.Delivery = "", &Delivery{Mode: "pull"} },
		"TaskID":         func(r *CreateTaskRequest) { r.TaskID = "other" },
		"MaxRetries":     func(r *CreateTaskRequest) { r.MaxRetries = Ptr(2) },
		"TimeoutMs":      func(r *CreateTaskRequest) { r.TimeoutMs = 1500 },
		"PayloadVersion": func(r *CreateTaskRequest) { r.PayloadVersion = 2 },
		"TraceID":        func(r *CreateTaskRequest) { r.TraceID = "trace" },
		"Priority":       func(r *CreateTaskRequest) { r.Priority = 1 },
	}
	var fields []string
	for i := range typeOf[CreateTaskRequest]().NumField() {
		fields = append(fields, typeOf[CreateTaskRequest]().Field(i).Name)
	}
	if got := slices.Sorted(maps.Keys(samples)); !slices.Equal(slices.Sorted(slices.Values(fields)), got) {
		t.Fatalf("samples for %v; CreateTaskRequest's fields are %v: add a sample for each", got, fields)
	}
	asJSON := func(r *CreateTaskRequest) map[string]any {
		t.Helper()
		body, err := newCreateBody(r)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(body)
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return out
	}
	unchanged := asJSON(base())
	written := map[string]bool{}
	for name := range maps.Keys(unchanged) {
		written[name] = true
	}
	for field, set := range samples {
		r := base()
		set(r)
		body := asJSON(r)
		if reflect.DeepEqual(body, unchanged) {
			t.Errorf("CreateTaskRequest.%s does not reach the body: copy it in newCreateBody", field)
		}
		for name := range maps.Keys(body) {
			written[name] = true
		}
	}
	for _, name := range jsonFields(typeOf[createBody]()) {
		if !written[name] {
			t.Errorf("no field of CreateTaskRequest writes the create body's %q: add one and copy it in newCreateBody", name)
		}
	}
}

// everyListOption is a ListTasksRequest with every field set, by reflection, so that a field added
// later is checked too.
func everyListOption() *ListTasksRequest {
	var o ListTasksRequest
	v := reflect.ValueOf(&o).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(time.Now()))
		case f.Kind() == reflect.String:
			f.SetString("x")
		case f.Kind() == reflect.Int:
			f.SetInt(1)
		default:
			panic("everyListOption: set field " + v.Type().Field(i).Name)
		}
	}
	return &o
}

func TestEnumsMatchOpenAPI(t *testing.T) {
	doc := loadOpenAPI(t)
	task := doc.op(t, "get", "/api/v1/tasks/{taskId}").responseSchema(t, "200")
	if got, want := constants(t, func(typ, _ string) bool { return typ == "TaskStatus" }), task.prop(t, "status").enum(); !slices.Equal(got, want) {
		t.Errorf("TaskStatus constants %v; the document's task statuses %v", got, want)
	}
	outcome := task.prop(t, "attemptHistory").Items.prop(t, "outcome")
	if got, want := constants(t, func(typ, _ string) bool { return typ == "AttemptOutcome" }), outcome.enum(); !slices.Equal(got, want) {
		t.Errorf("AttemptOutcome constants %v; the document's outcomes %v", got, want)
	}
	// Every error code any response of the document can carry.
	var codes []string
	for _, ops := range doc.Paths {
		for _, o := range ops {
			for status, r := range o.Responses {
				body := r.Content["application/json"].Schema
				if status[0] == '2' || body == nil || body.Properties["error"] == nil {
					continue
				}
				codes = append(codes, body.prop(t, "error").prop(t, "code").enum()...)
			}
		}
	}
	slices.Sort(codes)
	codes = slices.Compact(codes)
	// CodeUnknown is the client's own: an error response without the service's envelope.
	got := constants(t, func(_, name string) bool { return strings.HasPrefix(name, "Code") && name != "CodeUnknown" })
	if doc.Paths["/api/v1/leases"] == nil {
		// A document from before the lease routes (conformance/pull/README.md): their codes come
		// with them.
		got = slices.DeleteFunc(got, func(c string) bool {
			return c == CodeLeaseNotFound || c == CodeLeaseExpired || c == CodeTaskCancelled
		})
	}
	if !slices.Equal(got, codes) {
		t.Errorf("Code constants %v; the document's error codes %v", got, codes)
	}
}

// constants reads the package's source and returns the sorted string values of the constants
// that keep(type name, constant name) selects.
func constants(t *testing.T, keep func(typ, name string) bool) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []string
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				typ := ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
				for i, name := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING || !keep(typ, name.Name) {
						continue
					}
					value, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, value)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
