package frontend_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kiln-compiler/kiln/frontend"
	"github.com/kiln-compiler/kiln/ops"
)

// FuzzParse: no input, in any format the sniffer picks, may panic or hang
// a reader. Seeds are the real traces. go test -fuzz=FuzzParse ./frontend/
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/traces/*/*")
	for _, p := range paths {
		if src, err := os.ReadFile(p); err == nil && len(src) < 64<<10 {
			f.Add(src)
		}
	}
	f.Add([]byte(`{"schema": "1.1.1", "nodes": [{"id": 2, "name": "aten::relu", "ctrl_deps": 3}, {"id": 3, "name": "x", "ctrl_deps": 2}]}`))
	f.Add([]byte("V1124 04:30:39.819000 7474 t.py:1] {\"aot_forward_graph\": {}, \"frame_id\": 0}\n\tclass A(torch.nn.Module):\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := frontend.Parse("fuzz", src, ops.LookupSchema)
		if err == nil && len(res.Module.Graphs) == 0 {
			for _, d := range res.Diags {
				if d.Severity.String() == "error" {
					return
				}
			}
			t.Fatalf("no graph, no error")
		}
	})
}
