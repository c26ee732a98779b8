package passes

import (
	"hash/maphash"
	"testing"

	"github.com/stretchr/testify/assert"
)

// HashText gives the sums a maphash.Hash with the manager's seed gives
// over the same bytes written in pieces, so text hashes and streamed graph
// hashes (Hash) compare; different texts get different sums.
func TestHashTextMatchesStreamedHash(t *testing.T) {
	texts := []string{"", "a", "class GraphModule(torch.nn.Module):\n", string([]byte{0, 0xff, 0x80, '\n'})}
	for _, text := range texts {
		var h maphash.Hash
		h.SetSeed(textSeed)
		for i := 0; i < len(text); i += 3 {
			h.WriteString(text[i:min(i+3, len(text))])
		}
		assert.Equal(t, h.Sum64(), HashText(text), "%q", text)
	}
	assert.NotEqual(t, HashText(texts[2]), HashText(texts[2]+" "))
}
