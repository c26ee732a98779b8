package optrace

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// jsonMessage is err from encoding/json in the words of the trace format:
// the JSON kind a field wants, not the Go type kiln happens to decode into.
func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	where := "a value"
	if te.Field != "" {
		where = fmt.Sprintf("field %q", te.Field)
	}
	return fmt.Sprintf("%s must be %s, not a JSON %s", where, jsonKind(te.Type), te.Value)
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a JSON value"
}
