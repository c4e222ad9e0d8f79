package delayedtasks

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// maxSafeInteger is 2^53-1, the largest integer every JSON parser reads exactly.
const maxSafeInteger = 1<<53 - 1

var maxSafeBig = big.NewInt(maxSafeInteger)

// checkPayload walks v and appends a detail for every non-finite number and every integer beyond
// ±(2^53-1), at its dotted path (array indexes as path elements: "payload.items.2").
func checkPayload(v any, path string, details []ErrorDetail) []ErrorDetail {
	switch x := v.(type) {
	case nil, bool, string:
		return details
	case float64:
		return checkFloat(x, path, details)
	case float32:
		return checkFloat(float64(x), path, details)
	case int:
		return checkInt(int64(x), path, details)
	case int64:
		return checkInt(x, path, details)
	case int32, int16, int8, uint8, uint16, uint32:
		return details
	case uint:
		return checkUint(uint64(x), path, details)
	case uint64:
		return checkUint(x, path, details)
	case json.Number:
		return checkNumber(x, path, details)
	case *big.Int:
		if x != nil && new(big.Int).Abs(x).Cmp(maxSafeBig) > 0 {
			return append(details, ErrorDetail{Field: path, Reason: reasonUnsafeInt})
		}
		return details
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			details = checkPayload(x[k], path+"."+k, details)
		}
		return details
	case []any:
		for i, item := range x {
			details = checkPayload(item, path+"."+strconv.Itoa(i), details)
		}
		return details
	case json.Marshaler:
		return details
	}
	return checkReflected(reflect.ValueOf(v), path, details)
}

// checkReflected handles typed maps, slices, pointers and structs by reading them the way
// encoding/json would: structs through a JSON round trip.
func checkReflected(rv reflect.Value, path string, details []ErrorDetail) []ErrorDetail {
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return details
		}
		return checkPayload(rv.Elem().Interface(), path, details)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			return details // []byte is sent as a base64 string
		}
		for i := 0; i < rv.Len(); i++ {
			details = checkPayload(rv.Index(i).Interface(), path+"."+strconv.Itoa(i), details)
		}
		return details
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		keys := rv.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			switch {
			case a.String() < b.String():
				return -1
			case a.String() > b.String():
				return 1
			}
			return 0
		})
		for _, k := range keys {
			details = checkPayload(rv.MapIndex(k).Interface(), path+"."+k.String(), details)
		}
		return details
	case reflect.Float32, reflect.Float64:
		return checkFloat(rv.Float(), path, details)
	case reflect.Int, reflect.Int64:
		return checkInt(rv.Int(), path, details)
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return checkUint(rv.Uint(), path, details)
	}
	raw, err := json.Marshal(rv.Interface())
	if err != nil {
		return append(details, ErrorDetail{Field: path, Reason: "cannot be sent as JSON: " + err.Error()})
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return append(details, ErrorDetail{Field: path, Reason: "cannot be sent as JSON: " + err.Error()})
	}
	if _, isStruct := generic.(map[string]any); !isStruct {
		return details
	}
	return checkPayload(generic, path, details)
}

func checkFloat(f float64, path string, details []ErrorDetail) []ErrorDetail {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(details, ErrorDetail{Field: path, Reason: reasonNotFinite})
	}
	if f == math.Trunc(f) && math.Abs(f) > maxSafeInteger {
		return append(details, ErrorDetail{Field: path, Reason: reasonUnsafeInt})
	}
	return details
}

func checkInt(i int64, path string, details []ErrorDetail) []ErrorDetail {
	if i > maxSafeInteger || i < -maxSafeInteger {
		return append(details, ErrorDetail{Field: path, Reason: reasonUnsafeInt})
	}
	return details
}

func checkUint(u uint64, path string, details []ErrorDetail) []ErrorDetail {
	if u > maxSafeInteger {
		return append(details, ErrorDetail{Field: path, Reason: reasonUnsafeInt})
	}
	return details
}

// checkNumber reads a json.Number as the service will: an integer literal exactly, anything else
// as a double.
func checkNumber(n json.Number, path string, details []ErrorDetail) []ErrorDetail {
	if i, ok := new(big.Int).SetString(string(n), 10); ok {
		if i.Abs(i).Cmp(maxSafeBig) > 0 {
			return append(details, ErrorDetail{Field: path, Reason: reasonUnsafeInt})
		}
		return details
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !math.IsInf(f, 0) {
		return append(details, ErrorDetail{Field: path, Reason: "is not a JSON number"})
	}
	return checkFloat(f, path, details)
}

// The reasons of the checks made before sending, word for word the same in every SDK.
const (
	reasonNotFinite      = "is not a finite number"
	reasonUnsafeInt      = "is an integer beyond ±(2^53-1); send large ids and amounts as strings"
	reasonNotObject      = "must be a JSON object"
	reasonNegative       = "must not be negative"
	reasonExactlyOneWhen = "give exactly one of delaySeconds or executeAt"
	reasonAtMostOneWhen  = "give at most one of delaySeconds or executeAt"
)

// checkWhen checks the pair Delay/ExecuteAt (zero values are not set) and returns their wire
// values. With required, exactly one must be set; otherwise at most one.
func checkWhen(delay time.Duration, executeAt time.Time, required bool, details []ErrorDetail) (*float64, string, []ErrorDetail) {
	switch {
	case delay != 0 && !executeAt.IsZero():
		reason := reasonAtMostOneWhen
		if required {
			reason = reasonExactlyOneWhen
		}
		return nil, "", append(details, ErrorDetail{Field: "delaySeconds", Reason: reason})
	case delay == 0 && executeAt.IsZero():
		if required {
			details = append(details, ErrorDetail{Field: "delaySeconds", Reason: reasonExactlyOneWhen})
		}
		return nil, "", details
	case delay != 0:
		if delay < 0 {
			return nil, "", append(details, ErrorDetail{Field: "delaySeconds", Reason: reasonNegative})
		}
		secs := float64(delay.Round(time.Millisecond).Milliseconds()) / 1000
		return &secs, "", details
	}
	return nil, formatTime(executeAt), details
}

// formatTime is RFC 3339 in UTC with milliseconds: 2026-12-03T10:00:00.000Z.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+) or panics
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// checkTarget refuses a task that names both a callback URL and a delivery (neither is fine: the
// task type's policy may name the callback).
func checkTarget(callbackURL string, delivery *Delivery, field string, details []ErrorDetail) []ErrorDetail {
	if callbackURL != "" && delivery != nil {
		details = append(details, ErrorDetail{Field: field, Reason: "give either callbackUrl or delivery, not both"})
	}
	return details
}
