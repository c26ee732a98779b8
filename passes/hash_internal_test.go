package passes

import (
	"hash/fnv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// hashText is FNV-1a without the copy io.WriteString makes: the same sums
// as hash/fnv over the same bytes, so text hashes and streamed graph
// hashes (Hash) compare.
func TestHashTextIsFNV1a(t *testing.T) {
	for _, text := range []string{"", "a", "class GraphModule(torch.nn.Module):\n", string([]byte{0, 0xff, 0x80, '\n'})} {
		h := fnv.New64a()
		h.Write([]byte(text))
		assert.Equal(t, h.Sum64(), hashText(text), "%q", text)
	}
}
