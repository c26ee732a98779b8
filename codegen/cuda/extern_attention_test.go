package cuda_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestExternSDPAText: the flash attention forward is one thread per query
// row (an unread logsumexp is no parameter and no store); its backward one
// thread per element of the three gradients, grouped-query key/value heads
// summing over their query heads. (Values are checked against interp by
// TestCorpusEmulated on the same graph.)
func TestExternSDPAText(t *testing.T) {
	src := loweringCaseCUDA(t, "extern_sdpa.txtar")
	kernel := func(name string) string { return kernelSource(t, src, name) }
	params := func(k string) int {
		return len(regexp.MustCompile(`__restrict__ (\w+)`).FindAllString(k[:strings.Index(k, "{")], -1))
	}
	k0, k1, k2 := kernel("kernel0"), kernel("kernel1"), kernel("kernel2")
	assert.Contains(t, src, "// kernel0: extern aten::_scaled_dot_product_flash_attention_for_cpu.default, origins [sdpa]: naive, one thread per query row")
	assert.Contains(t, k0, "const long long nwork = 16;") // [1, 4, 4] query rows
	assert.Equal(t, 4, params(k0), "q, k, v and out: logsumexp unread")
	assert.Contains(t, k0, "const long long hk = o1 / ((4) / (2));", "grouped-query: query head o1 reads key/value head o1 / 2")
	assert.Contains(t, k0, "(o2 + 1 < (6) ? o2 + 1 : (6))", "causal: row o2 sees keys j <= o2")
	assert.Contains(t, k0, "const float scale = (float)(1.0 / km_sqrt((double)(8)));")
	assert.Equal(t, 6, params(k1), "q, k, v, mask, out and logsumexp")
	assert.Contains(t, k1, "const float scale = (float)(0.29999999999999999);")
	assert.NotContains(t, k1, "o2 + 1 <", "not causal")
	assert.Contains(t, k2, "const long long nwork = 320;") // 128 + 96 + 96 gradient elements
	assert.Contains(t, k2, "if (w < (128)) {")
	assert.Contains(t, k2, "} else if (w < (128) + (96)) {")
	assert.Contains(t, k2, "for (long long h = o1 * rep; h < (o1 + 1) * rep; ++h) {")
	assert.Equal(t, 10, params(k2), "grad_out, q, k, v, out, logsumexp, mask and three gradients")
}
