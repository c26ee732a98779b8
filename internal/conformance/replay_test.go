package conformance

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func f32s(xs ...float32) Stored {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return Stored{DType: "f32", Shape: []int64{int64(len(xs))}, Data: base64.StdEncoding.EncodeToString(b)}
}

func i64s(xs ...int64) Stored {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return Stored{DType: "i64", Shape: []int64{int64(len(xs))}, Data: base64.StdEncoding.EncodeToString(b)}
}

const sortFX = `class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[3][1]cpu"):
        sort = torch.ops.aten.sort.default(arg0_1);  arg0_1 = None
        getitem: "f32[3][1]cpu" = sort[0]
        getitem_1: "i64[3][1]cpu" = sort[1];  sort = None
        return (getitem, getitem_1)
`

// A node with several results agrees only when every recorded result
// does: a wrong second result must not hide behind a right first one.
func TestMultiResultNodeNeedsEveryResult(t *testing.T) {
	result := func(indices Stored) NodeResult {
		c := &Case{Name: "sort/test", FX: sortFX, Inputs: []Stored{f32s(3, 1, 2)},
			Values: map[string]Stored{"sort[0]": f32s(1, 2, 3), "sort[1]": indices}}
		rs, err := Replay(c)
		require.NoError(t, err)
		for _, r := range rs {
			if r.Node == "sort" {
				return r
			}
		}
		t.Fatal("no sort node")
		return NodeResult{}
	}
	ok := result(i64s(1, 2, 0))
	require.True(t, ok.HasValue && ok.ValueOK, ok.ValueWhy)
	bad := result(i64s(0, 1, 2))
	require.True(t, bad.HasValue)
	require.False(t, bad.ValueOK)
	require.Contains(t, bad.ValueWhy, "result 1")
}
