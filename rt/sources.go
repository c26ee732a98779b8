package rt

import (
	"embed"
	"io/fs"
	"strings"
)

// The runtime's own source, which codegen/golang copies into every
// generated module: one source of truth for interp and generated code.
//
//go:embed *.go *.s
var sourceFS embed.FS

// Sources returns the runtime's source files by name, without tests and
// without this file (a generated module needs no copy of its own source).
func Sources() (map[string][]byte, error) {
	entries, err := fs.ReadDir(sourceFS, ".")
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") || e.Name() == "sources.go" {
			continue
		}
		b, err := sourceFS.ReadFile(e.Name())
		if err != nil {
			return nil, err
		}
		out[e.Name()] = b
	}
	return out, nil
}
