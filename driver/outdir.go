package driver

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// manifestName lists, in an output folder, the files kiln wrote there, so
// that the next run into the same folder removes its own stale files (a
// graph1.go from a two-graph input, the dumps of a pass no longer in the
// pipeline) and never a file of the user's.
const manifestName = ".kiln-files"

// OutDir is an output folder being (re)written.
type OutDir struct {
	dir    string
	before map[string]bool // files present once kiln's stale ones were removed
	goMod  bool            // the last run wrote go.mod
}

// OpenOutDir removes the files the last run listed and remembers what is left.
func OpenOutDir(dir string) (*OutDir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o := &OutDir{dir: dir, before: map[string]bool{}}
	if old, err := os.ReadFile(filepath.Join(dir, manifestName)); err == nil {
		for _, rel := range strings.Split(string(old), "\n") {
			o.goMod = o.goMod || rel == "go.mod"
			if rel = strings.TrimSpace(rel); rel != "" && filepath.IsLocal(rel) {
				os.Remove(filepath.Join(dir, rel))
			}
		}
	}
	os.Remove(filepath.Join(dir, manifestName))
	files, err := listFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		o.before[f] = true
	}
	return o, nil
}

// Close writes the manifest of the files this run added. A folder that held
// nothing of the user's also gets its own go.mod (when kiln wrote none), so
// that dumps written inside a Go module — `kiln compile` in a clone of kiln
// writes kiln-out/graph0.go — are not part of that module's `go test ./...`.
func (o *OutDir) Close() error {
	files, err := listFiles(o.dir)
	if err != nil {
		return err
	}
	var ours []string
	for _, f := range files {
		if !o.before[f] {
			ours = append(ours, f)
		}
	}
	if (len(o.before) == 0 || o.goMod) && !o.before["go.mod"] && !slices.Contains(ours, "go.mod") {
		if err := os.WriteFile(filepath.Join(o.dir, "go.mod"), []byte("// Written by kiln compile: keeps these dumps out of any enclosing Go module.\nmodule kiln-out\n"), 0o644); err != nil {
			return err
		}
		ours = append(ours, "go.mod")
	}
	slices.Sort(ours)
	return os.WriteFile(filepath.Join(o.dir, manifestName), []byte(strings.Join(ours, "\n")+"\n"), 0o644)
}

// listFiles lists the regular files under dir, relative, slash-separated.
func listFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
}
