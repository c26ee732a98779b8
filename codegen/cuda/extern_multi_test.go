package cuda_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestExternMultiText: topk is one thread per row; convolution_backward
// one thread per element of every output asked for, picked by w's range;
// an output the graph never reads is no kernel parameter. (Values are
// checked against interp by TestCorpusEmulated on the same graphs.)
func TestExternMultiText(t *testing.T) {
	src := loweringCaseCUDA(t, "extern_multi.txtar")
	kernel := func(name string) string { return kernelSource(t, src, name) }
	k0, k1, k2, k3 := kernel("kernel0"), kernel("kernel1"), kernel("kernel2"), kernel("kernel3")
	assert.Contains(t, src, "// kernel0: extern aten::topk.default, origins [topk]: naive, one thread per row")
	assert.Contains(t, k0, "const long long nwork = 4;")  // rows of [4, 50] along dim 1
	assert.Contains(t, k1, "const long long nwork = 50;") // rows of [4, 50] along dim 0
	assert.Contains(t, k0, "for (long long i = 0; i < (50) && r < 5; ++i) {")
	assert.Contains(t, k1, "< (4) && r < 3; ++i)")
	assert.Contains(t, k1, "|| b < a", "largest=False orders by <")
	assert.Equal(t, 1, strings.Count(k1, "__restrict__ p")-1, "topk_1: indices unread, not a parameter")
	// mask [False, True, True]: grad_weight (144) then grad_bias (8)
	assert.Contains(t, k2, "const long long nwork = 152;")
	assert.Contains(t, k2, "if (w < (144)) {")
	assert.Contains(t, k2, "} else if (w < (144) + (8)) {")
	assert.Contains(t, k3, "const long long nwork = 664;")
	assert.Contains(t, k3, "if (w < (512)) {")
	assert.Contains(t, k3, "const long long t0 = o2 + 1 - k0 * 1;")
	assert.Contains(t, k3, "if (t0 < 0 || t0 % 2 != 0 || t0 / 2 >= (4)) continue;")
	params := regexp.MustCompile(`__restrict__ (\w+)`).FindAllStringSubmatch(k2[:strings.Index(k2, "{")], -1)
	assert.Len(t, params, 5, "g, inp, w and the two gradients asked for")
}
