package rt_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/rt"
)

// The header NPYHeader writes is what ReadNPYHeader reads back, with the
// data starting at a multiple of 64 bytes.
func TestNPYHeaderRoundTrip(t *testing.T) {
	for _, shape := range [][]int64{nil, {5}, {2, 3}, {0, 4, 1}} {
		h := rt.NPYHeader("<f4", shape)
		assert.Zero(t, len(h)%64, "%v", shape)
		descr, got, fortran, err := rt.ReadNPYHeader(bytes.NewReader(h))
		require.NoError(t, err, "%v", shape)
		assert.Equal(t, "<f4", descr)
		assert.Equal(t, shape, got)
		assert.False(t, fortran)
	}
	assert.Contains(t, string(rt.NPYHeader("|u1", []int64{7})), "'shape': (7,), }")
}

func TestReadNPYHeaderErrors(t *testing.T) {
	v1 := func(h string) string { return "\x93NUMPY\x01\x00" + string([]byte{byte(len(h)), 0}) + h }
	for in, want := range map[string]string{
		"NUMPY\x01\x00":             "bad magic",
		"\x93NUMPY\x04\x00\x00\x00": "unsupported .npy version 4.0",
		v1("{}}}}"):                 "malformed .npy header",
		v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, x), }"):      "malformed .npy shape (2, x)",
		v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }")[:20]: "EOF",
	} {
		_, _, _, err := rt.ReadNPYHeader(bytes.NewReader([]byte(in)))
		require.Error(t, err, "%q", in)
		assert.Contains(t, err.Error(), want, "%q", in)
	}
}

func TestNPYDescrTables(t *testing.T) {
	for descr, want := range map[string][2]any{
		"<f4": {"f4", false}, ">f8": {"f8", true}, ">u1": {"u1", false}, "|b1": {"b1", false}, "=i2": {"i2", false}, "f2": {"f2", false},
	} {
		base, big := rt.SplitNPYDescr(descr)
		assert.Equal(t, want[0], base, descr)
		assert.Equal(t, want[1], big, descr)
	}
	assert.Equal(t, "f32", rt.NPYDType("f4"))
	assert.Equal(t, "u16", rt.NPYDType("u2"), "the exact dtype, not bf16's container")
	assert.Equal(t, "", rt.NPYDType("c8"))
	assert.Nil(t, rt.NPYStrides([]int64{2, 3}, false))
	assert.Equal(t, []int64{1, 2, 6}, rt.NPYStrides([]int64{2, 3, 0}, true))
}
