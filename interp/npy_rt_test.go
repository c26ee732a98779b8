package interp_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/rt"
)

// interp and the Go runtime each read and write .npy files (see npy.go for
// why both exist); for every dtype they share, the files must be the same
// bytes and each must read the other's.
func TestNPYMatchesGoRuntime(t *testing.T) {
	shapes := [][]int64{{}, {5}, {2, 3}, {0, 4}}
	shared := 0
	for _, dt := range ir.AllDTypes() {
		name := dt.Abbr()
		if rt.ItemSize(name) == 0 {
			continue // complex, packed and bit-container dtypes: interp only
		}
		shared++
		for _, shape := range shapes {
			x, err := interp.Empty(dt, shape, nil, ir.CPU)
			require.NoError(t, err)
			for i := range x.Storage.Data {
				x.Storage.Data[i] = byte(i*37 + 11)
			}
			var fromInterp, fromRT bytes.Buffer
			require.NoError(t, interp.WriteNPY(&fromInterp, x))
			y := &rt.Tensor{DType: name, Shape: shape, Data: x.Storage.Data}
			require.NoError(t, rt.WriteNPY(&fromRT, y))
			require.Equal(t, fromInterp.Bytes(), fromRT.Bytes(), "%s %v", name, shape)

			back, err := rt.ReadNPY(bytes.NewReader(fromInterp.Bytes()), name)
			require.NoError(t, err, "%s %v", name, shape)
			require.Equal(t, x.Storage.Data, back.Data, "%s %v", name, shape)
			got, err := interp.ReadNPY(bytes.NewReader(fromRT.Bytes()), dt)
			require.NoError(t, err, "%s %v", name, shape)
			require.Equal(t, x.Storage.Data, got.Storage.Data, "%s %v", name, shape)
		}
	}
	require.Equal(t, 18, shared, "dtypes both can read and write")
}
