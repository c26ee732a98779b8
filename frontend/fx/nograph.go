package fx

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/kiln-compiler/kiln/diag"
)

// NoGraph is the error for an input in which Parse found no graph (Parse
// itself accepts such files: Inductor's dumps beside a graph hold none,
// and a caller may want their warnings). It says
// what the input looks like instead (empty, binary, UTF-16, compressed,
// CR line endings, Python without a graph), since "no graph" alone does not
// tell a user which file they passed by mistake.
func NoGraph(file string, src []byte) error {
	srcText := string(src)
	pos := diag.Pos{File: file, Line: 1, Col: 1}
	what, hint := describeNonGraph(srcText)
	return diag.Errorf(pos, "no-graph", hint, "no graph found: %s", what)
}

const graphHint = "kiln reads FX readable text (a `class GraphModule` with `def forward`, " +
	"print_readable, TORCH_LOGS=graph_code, fx_graph_readable.py, str(graph)), a JSON-lines op trace, " +
	"a TORCH_TRACE log (TORCH_TRACE=/dir), a PyTorch Execution Trace (ExecutionTraceObserver JSON), or any of them gzipped"

func describeNonGraph(src string) (what, hint string) {
	b := []byte(src)
	switch {
	case len(strings.TrimSpace(src)) == 0:
		return "the input is empty", graphHint
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return "the input is gzip-compressed", "decompress it first (gunzip -k FILE)"
	case bytes.HasPrefix(b, []byte{0xff, 0xfe}) || bytes.HasPrefix(b, []byte{0xfe, 0xff}):
		return "the input is UTF-16 text", "convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 FILE)"
	case bytes.IndexByte(b, 0) >= 0:
		return "the input holds NUL bytes (a binary file?)", graphHint
	case !utf8.Valid(b):
		return "the input is not UTF-8 text (a binary file?)", graphHint
	case !strings.Contains(src, "\n") && strings.Contains(src, "\r"):
		return "the input's lines end in CR alone (old Mac line endings)", "convert them to LF first (tr '\\r' '\\n' < FILE)"
	}
	if onlyComments(src) {
		return "the input holds only comments", graphHint
	}
	if strings.Contains(src, "def ") || strings.Contains(src, "import ") {
		return "Python source without an FX graph (no `def forward` holding FX statements)", graphHint
	}
	return "no `def forward`, `graph():` or node listing in the input", graphHint
}

func onlyComments(src string) bool {
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}
