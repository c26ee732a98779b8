package lowering

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFoldAffineIndicesKeepsUnprovenChecks: w[arange(8)] into a 4-row w
// reads rows 4..7, which eager PyTorch refuses. The loop range does not
// prove the index in [-4, 4), so the check (and the indirect access it
// guards) stays, with PyTorch's message; an arange within the rows folds.
func TestFoldAffineIndicesKeepsUnprovenChecks(t *testing.T) {
	for _, c := range []struct {
		rows  int
		check bool
	}{{4, true}, {8, false}} {
		src := `class graph(torch.nn.Module):
    def forward(self, w_1: "f32[` + itoa(c.rows) + `, 12]", x_1: "f32[2, 8, 12]"):
        arange: "i64[8]" = torch.ops.aten.arange.default(8, device = device(type='cpu'), pin_memory = False)
        index: "f32[8, 12]" = torch.ops.aten.index.Tensor(w_1, [arange]);  w_1 = arange = None
        add: "f32[2, 8, 12]" = torch.ops.aten.add.Tensor(x_1, index);  x_1 = index = None
        return add
`
		p, err := Lower(schedCompile(t, "fold.fx", src, ""), Options{Name: "g"})
		require.NoError(t, err)
		_, err = Fuse(p, FuseOptions{})
		require.NoError(t, err)
		require.NoError(t, Verify(p))
		out := p.String()
		if c.check {
			assert.Regexp(t, `check -4 <= tmp\d+ < 4 "index {index} is out of bounds for dimension 0 with size {size}"`, out)
		} else {
			assert.NotContains(t, out, "check", out)
		}
	}
}
