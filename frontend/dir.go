package frontend

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
)

// File is one file of a folder input.
type File struct {
	Name string
	Src  []byte
}

var rankRe = regexp.MustCompile(`rank_(\d+)`)

// ParseDir reads a TORCH_TRACE folder (one log per rank, as TORCH_TRACE=/dir
// writes them): one Result per log, in file-name order, each graph's title
// prefixed with its rank ("rank 1 [0/0] aot_forward_graph") or, when the
// name has none, the file's name. Files that are not TORCH_TRACE logs are
// skipped; a folder with none is an error.
func ParseDir(dir string, files []File, lookup func(string) ir.OpSchema) ([]*Result, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	var out []*Result
	for _, f := range files {
		src := f.Src
		if isGzip(src) {
			plain, err := gunzip(src)
			if err != nil {
				continue
			}
			src = plain
		}
		if Sniff(src) != TorchTrace {
			continue
		}
		res, err := Parse(f.Name, f.Src, lookup)
		if err != nil {
			return nil, err
		}
		who := filepath.Base(f.Name)
		if m := rankRe.FindStringSubmatch(who); m != nil {
			who = "rank " + m[1]
		}
		for _, g := range res.Module.Graphs {
			g.Title = who + " " + g.Title
		}
		out = append(out, res)
	}
	if len(out) == 0 {
		return nil, diag.Errorf(diag.Pos{File: dir, Line: 1, Col: 1}, CodeNoGraph,
			"a folder input is what TORCH_TRACE=/dir writes: one log per rank; for other formats name the file",
			"no TORCH_TRACE log in the folder")
	}
	return out, nil
}

// ReadDir lists a folder's regular files, for ParseDir.
func ReadDir(dir string, maxBytes int64) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxBytes {
			continue
		}
		path := filepath.Join(dir, e.Name())
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: path, Src: src})
	}
	return files, nil
}

// Merge joins per-rank results into one (the CLI compiles one module).
func Merge(dir string, rs []*Result) *Result {
	m := &Result{Format: TorchTrace, Module: &ir.Module{File: dir}, Config: map[string]bool{}}
	for _, r := range rs {
		m.Module.Graphs = append(m.Module.Graphs, r.Module.Graphs...)
		m.Diags = append(m.Diags, r.Diags...)
		m.Provenance = append(m.Provenance, r.Provenance...)
		for k, v := range r.Config {
			m.Config[k] = m.Config[k] || v
		}
	}
	return m
}
