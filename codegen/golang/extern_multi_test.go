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
	code := loweringCaseGo(t, "extern_multi.txtar")
	assert.Equal(t, 4, strings.Count(code, "return rt.ExternN("), "four multi-output calls")
	assert.NotContains(t, code, "return rt.Extern(")
	// topk_1 reads only values: indices are nil
	assert.Regexp(t, `rt\.ExternN\("aten::topk\.default", \[\]\*rt\.Tensor\{&rt\.Tensor\{DType: "f32", Shape: \[\]int64\{3, 50\}, Strides: \[\]int64\{50, 1\}, Offset: 0, Data: b\d+\}, nil\}`, code)
	// output_mask [False, True, True]: grad_input is nil
	assert.Regexp(t, `rt\.ExternN\("aten::convolution_backward\.default", \[\]\*rt\.Tensor\{nil, &rt\.Tensor\{DType: "f32", Shape: \[\]int64\{8, 2, 3, 3\}`, code)
	assert.Contains(t, code, `map[string][]int64{"dim": {1}, "k": {5}, "largest": {1}, "sorted": {1}}`)
}

// TestExternSDPAText: the flash attention op is rt.ExternN with a nil
// logsumexp in inference and no mask (a nil operand); a given scale
// travels as its float64 bits.
func TestExternSDPAText(t *testing.T) {
	code := loweringCaseGo(t, "extern_sdpa.txtar")
	assert.Equal(t, 2, strings.Count(code, `return rt.ExternN("aten::_scaled_dot_product_flash_attention_for_cpu.default"`))
	assert.Equal(t, 1, strings.Count(code, `return rt.ExternN("aten::_scaled_dot_product_flash_attention_for_cpu_backward.default"`))
	assert.Regexp(t, `Shape: \[\]int64\{1, 4, 4, 8\}, Strides: \[\]int64\{128, 32, 8, 1\}, Offset: 0, Data: b\d+\}, nil\}, \[\]\*rt\.Tensor\{[^\n]*, nil\}, map\[string\]\[\]int64\{"is_causal": \{1\}\}\)`, code)
	assert.Contains(t, code, `map[string][]int64{"is_causal": {0}, "scale_f64bits": {4599075939470750515}}`)
}

// loweringCaseGo is the generated Go of testdata/lowering/NAME's input.fx.
func loweringCaseGo(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("../../testdata/lowering", name)
	arch, err := txtar.ParseFile(path)
	require.NoError(t, err)
	c := lowerFX(t, path, "g", lit.Section(arch, "input.fx"), basePipeline)
	src, err := Generate(c.prog, "g")
	require.NoError(t, err)
	return string(src)
}
