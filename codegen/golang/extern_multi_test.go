package golang

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/internal/lit"
)

// TestExternMultiText: a call with several outputs is rt.ExternN with one
// tensor per output, nil for one the graph never reads; a single-output
// call stays rt.Extern.
func TestExternMultiText(t *testing.T) {
	path := filepath.Join("../../testdata/lowering", "extern_multi.txtar")
	arch, err := txtar.ParseFile(path)
	require.NoError(t, err)
	c := lowerFX(t, path, "g", lit.Section(arch, "input.fx"), basePipeline)
	src, err := Generate(c.prog, "g")
	require.NoError(t, err)
	code := string(src)
	assert.Equal(t, 4, strings.Count(code, "return rt.ExternN("), "four multi-output calls")
	assert.NotContains(t, code, "return rt.Extern(")
	// topk_1 reads only values: indices are nil
	assert.Regexp(t, `rt\.ExternN\("aten::topk\.default", \[\]\*rt\.Tensor\{&rt\.Tensor\{DType: "f32", Shape: \[\]int64\{3, 50\}, Strides: \[\]int64\{50, 1\}, Offset: 0, Data: b\d+\}, nil\}`, code)
	// output_mask [False, True, True]: grad_input is nil
	assert.Regexp(t, `rt\.ExternN\("aten::convolution_backward\.default", \[\]\*rt\.Tensor\{nil, &rt\.Tensor\{DType: "f32", Shape: \[\]int64\{8, 2, 3, 3\}`, code)
	assert.Contains(t, code, `map[string][]int64{"dim": {1}, "k": {5}, "largest": {1}, "sorted": {1}}`)
}
