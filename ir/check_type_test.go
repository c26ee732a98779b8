package ir

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseTypeRejectsImpossibleShapes: annotations no PyTorch tensor can
// have stop at parse time with PyTorch's words (messages checked against
// PyTorch 2.15: torch.empty(-4), torch.empty(2**62, 4, device='meta'),
// torch.device('tpu:0'), Python's 1//0).
func TestParseTypeRejectsImpossibleShapes(t *testing.T) {
	for _, tc := range []struct{ ann, want string }{
		{"f32[-4][1]cpu", "Trying to create tensor with negative dimension -4: [-4]"},
		{"f32[9223372036854775808][1]cpu", "Trying to create tensor with negative dimension"},
		{"f32[4611686018427387904, 4][4, 1]cpu", "Storage size calculation overflowed with sizes=[4611686018427387904, 4]"},
		{"f32[(s0//0)][1]cpu", "integer division or modulo by zero"},
		{"f32[Mod(s0, 0)][1]cpu", "integer division or modulo by zero"},
		{"f32[4][CeilDiv(s0, 0)]cpu", "integer division or modulo by zero"},
		{"f32[4*4611686018427387904*s0][1]cpu", "integer overflow"},
		{"f32[4][1]tpu:0", "device type at start of device string: tpu"},
		{"f32[" + strings.Repeat("1, ", 1100) + "1]", "tensor rank 1101 is past kiln's limit of 1024"},
	} {
		_, err := ParseType(tc.ann)
		require.Error(t, err, tc.ann)
		require.Contains(t, err.Error(), tc.want, tc.ann)
		require.Less(t, len(err.Error()), 400, "the message quotes a long annotation whole")
	}
	for _, ok := range []string{"f32[0, 4611686018427387904][1, 1]cpu", "f32[s0//2][1]cuda:0", "bf16[8, s0]npu:0", "f32[4][1]meta", "i64[][]xla:1"} {
		_, err := ParseType(ok)
		require.NoError(t, err, ok)
	}
}
