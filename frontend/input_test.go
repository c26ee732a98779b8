package frontend_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend"
	"github.com/kiln-compiler/kiln/ops"
)

func gz(t *testing.T, src []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write(src)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func TestFormatByContentNotName(t *testing.T) {
	cases := map[string]frontend.Format{
		"../testdata/traces/torchtrace/cnn_train.log": frontend.TorchTrace,
		"../testdata/traces/et/et_compiled.json":      frontend.ExecTrace,
		"../testdata/traces/et/et_mlp_1_0.json":       frontend.ExecTrace,
		"../testdata/traces/et/et_mlp.json.gz":        frontend.ExecTrace,
		"../testdata/scenarios/03_misaligned_view.fx": frontend.FX,
	}
	for path, want := range cases {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		ins := [][]byte{src, gz(t, src)}
		if bytes.HasPrefix(src, []byte{0x1f, 0x8b}) {
			ins = ins[:1]
		}
		for _, in := range ins {
			res, err := frontend.Parse("input", in, ops.LookupSchema) // the name says nothing
			require.NoError(t, err, path)
			assert.Equal(t, want, res.Format, path)
			assert.NotEmpty(t, res.Module.Graphs, path)
		}
	}
	op := []byte(`{"op": "aten::relu.default", "args": [{"tensor": "x", "dtype": "f32", "shape": [2]}], "outputs": [{"tensor": "y", "dtype": "f32", "shape": [2]}]}` + "\n")
	res, err := frontend.Parse("t.json", op, ops.LookupSchema)
	require.NoError(t, err)
	assert.Equal(t, frontend.OpTrace, res.Format)
}

func TestUnreadableInputNamesTheFormats(t *testing.T) {
	for what, src := range map[string][]byte{
		"empty":     nil,
		"prose":     []byte("hello world\n"),
		"binary":    {0x7f, 'E', 'L', 'F', 0, 1, 2},
		"json":      []byte(`{"traceEvents": []}`),
		"empty gz":  gz(t, nil),
		"bad gzip":  {0x1f, 0x8b, 0, 0},
		"empty ET":  []byte(`{"schema": "1.1.1-chakra.0.0.4", "nodes": []}`),
		"glog only": []byte("V1124 04:30:39.819000 7474 torch/x.py:1] {\"chromium_event\": {}}\n"),
	} {
		_, err := frontend.Parse("in", src, ops.LookupSchema)
		var d *diag.Diagnostic
		require.ErrorAs(t, err, &d, what)
		assert.Equal(t, diag.Error, d.Severity, what)
		assert.Equal(t, 1, d.Pos.Line, what)
		if what != "bad gzip" {
			assert.Contains(t, d.Hint, "TORCH_TRACE", what)
			assert.Contains(t, d.Hint, "Execution Trace", what)
		}
	}
}
