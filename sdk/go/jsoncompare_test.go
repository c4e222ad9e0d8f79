package delayedtasks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"time"
)

// Helpers shared by the conformance runner and the live tests: JSON values compared the way the
// vectors say (times as instants, numbers exactly, {"$match": "uuid"} as any UUID v4).

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// decodeJSON reads JSON with numbers as json.Number.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// toJSONValue turns a Go value into its generic JSON form (maps, slices, json.Number).
func toJSONValue(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	out, err := decodeJSON(raw)
	if err != nil {
		panic(err)
	}
	return out
}

// matcher compares expected against actual; uuids pins the UUID a {"$match":"uuid"} first saw.
type matcher struct {
	uuid   string
	subset bool // objects: only the expected keys are compared
}

func (m *matcher) match(path string, want, got any) error {
	switch w := want.(type) {
	case nil:
		switch g := got.(type) {
		case nil:
			return nil
		case string:
			if g == "" {
				return nil
			}
		}
		return fmt.Errorf("%s: want null, got %v", path, got)
	case map[string]any:
		if tag, ok := w["$int"].(string); ok && len(w) == 1 {
			return m.match(path, json.Number(tag), got)
		}
		if tag, ok := w["$match"]; ok && len(w) == 1 {
			s, _ := got.(string)
			if tag != "uuid" || !uuidV4.MatchString(s) {
				return fmt.Errorf("%s: want a UUID v4, got %v", path, got)
			}
			if m.uuid == "" {
				m.uuid = s
			} else if m.uuid != s {
				return fmt.Errorf("%s: UUID %s differs from the earlier %s", path, s, m.uuid)
			}
			return nil
		}
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want object, got %v", path, got)
		}
		if !m.subset {
			for k := range g {
				if _, ok := w[k]; !ok {
					return fmt.Errorf("%s: unexpected field %q = %v", path, k, g[k])
				}
			}
		}
		for _, k := range sortedKeys(w) {
			gv, present := g[k]
			if !present && !(m.subset && w[k] == nil) {
				return fmt.Errorf("%s.%s: missing (want %v)", path, k, w[k])
			}
			if err := m.match(path+"."+k, w[k], gv); err != nil {
				return err
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: want %d items %v, got %v", path, len(w), w, got)
		}
		for i := range w {
			if err := m.match(fmt.Sprintf("%s.%d", path, i), w[i], g[i]); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		if !sameNumber(w, got) {
			return fmt.Errorf("%s: want %s, got %v", path, w, got)
		}
		return nil
	case string:
		g, ok := got.(string)
		if ok && (g == w || sameInstant(w, g)) {
			return nil
		}
		return fmt.Errorf("%s: want %q, got %v", path, w, got)
	default:
		if want != got {
			return fmt.Errorf("%s: want %v, got %v", path, want, got)
		}
		return nil
	}
}

func sameNumber(want json.Number, got any) bool {
	var g string
	switch x := got.(type) {
	case json.Number:
		g = string(x)
	case float64:
		g = fmt.Sprint(x)
	default:
		return false
	}
	a, okA := new(big.Rat).SetString(string(want))
	b, okB := new(big.Rat).SetString(g)
	return okA && okB && a.Cmp(b) == 0
}

func sameInstant(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339Nano, a)
	tb, errB := time.Parse(time.RFC3339Nano, b)
	return errA == nil && errB == nil && ta.Equal(tb)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
