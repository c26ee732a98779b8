package golang

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/rt"
)

// scatterAddFX adds 16384 rows of src into the 2 rows of x (each
// element about 8192 times): 64k source elements, above rt.SerialWork,
// so a non-serial kernel would be split across cores and lose updates.
// Operands are rounded to integers first, so that every order of the
// additions, in float32 or float64 (interp), gives the same sums.
const scatterAddFX = `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 4][4, 1]cpu", ix: "i64[16384, 4][4, 1]cpu", s: "f32[16384, 4][4, 1]cpu"):
        xr: "f32[2, 4][4, 1]cpu" = torch.ops.aten.round.default(x)
        s8: "f32[16384, 4][4, 1]cpu" = torch.ops.aten.mul.Tensor(s, 8)
        sr: "f32[16384, 4][4, 1]cpu" = torch.ops.aten.round.default(s8)
        b: "f32[2, 4][4, 1]cpu" = torch.ops.aten.scatter_add.default(xr, 0, ix, sr)
        return (b,)
`

// A Serial kernel runs on one goroutine in index order: the generated
// code says so and calls rt.SerialFor, never rt.ParallelFor, and its
// result (repeated indices accumulating) is interp's.
func TestSerialScatterAddAgainstInterp(t *testing.T) {
	c := fxProgram(t, "scatter_add_serial", scatterAddFX)
	var serial *lowering.Kernel
	for _, k := range c.prog.Kernels {
		if k.Serial {
			require.Nil(t, serial, "one serial kernel expected:\n%s", c.prog)
			serial = k
		}
	}
	require.NotNil(t, serial, "scatter_add must lower to a serial kernel:\n%s", c.prog)
	n := int64(1)
	for _, e := range serial.Outer {
		v, ok := e.Const()
		require.True(t, ok)
		n *= v
	}
	require.GreaterOrEqual(t, n, int64(64<<10))
	require.GreaterOrEqual(t, n, int64(rt.SerialWork), "ParallelFor would split this kernel")

	src, err := Generate(c.prog, c.name)
	require.NoError(t, err)
	body := kernelSource(t, string(src), serial.Name)
	assert.Contains(t, body, "It is serial")
	assert.Contains(t, body, "rt.SerialFor(total")
	assert.NotContains(t, body, "rt.ParallelFor")
	for _, k := range c.prog.Kernels {
		if !k.Serial && k.Extern == nil {
			assert.Contains(t, kernelSource(t, string(src), k.Name), "rt.ParallelFor", k.Name)
		}
	}

	bin := buildModule(t, []*lowering.Program{c.prog})
	c.check(t, bin)
}

// kernelSource cuts one kernel's function, doc comment included, out of
// a generated file.
func kernelSource(t *testing.T, src, name string) string {
	re := regexp.MustCompile(`(?s)// ` + name + ` is .*?\n}\n`)
	m := re.FindString(src)
	require.NotEmpty(t, m, "no %s in:\n%s", name, src)
	require.True(t, strings.Contains(m, "func "+name+"("))
	return m
}

// splitFX holds two serial kernels large enough for rt.ParallelFor to
// split (64k iterations each), both proven splittable: index_add along
// dim 0 adds 8192 rows into the 4 rows of x, each column apart from the
// others (split along x1), and scatter_add along dim 1 adds 16 values a
// row into 8 columns, each row apart (split along x0). Operands are
// integers, so every order gives the same sums and interp is exact.
const splitFX = `class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8][8, 1]cpu", i: "i64[8192][1]cpu", s: "f32[8192, 8][8, 1]cpu", y: "f32[4096, 8][8, 1]cpu", j: "i64[4096, 16][16, 1]cpu", t: "f32[4096, 16][16, 1]cpu"):
        xr: "f32[4, 8][8, 1]cpu" = torch.ops.aten.round.default(x)
        s8: "f32[8192, 8][8, 1]cpu" = torch.ops.aten.mul.Tensor(s, 8)
        sr: "f32[8192, 8][8, 1]cpu" = torch.ops.aten.round.default(s8)
        a: "f32[4, 8][8, 1]cpu" = torch.ops.aten.index_add.default(xr, 0, i, sr)
        t8: "f32[4096, 16][16, 1]cpu" = torch.ops.aten.mul.Tensor(t, 8)
        tr: "f32[4096, 16][16, 1]cpu" = torch.ops.aten.round.default(t8)
        b: "f32[4096, 8][8, 1]cpu" = torch.ops.aten.scatter_add.default(y, 1, j, tr)
        return (a, b)
`

// A serial kernel split along its leading dims runs blocks of the other
// dims across cores (rt.ParallelFor), each block in index order; one
// split along a later dim only stays on one goroutine (forChunks says
// why). Both compute interp's result.
func TestSerialSplitAgainstInterp(t *testing.T) {
	c := fxProgram(t, "serial_split", splitFX)
	src, err := Generate(c.prog, c.name)
	require.NoError(t, err)
	var split, calls []string
	for _, k := range c.prog.Kernels {
		if !k.Serial {
			continue
		}
		body := kernelSource(t, string(src), k.Name)
		split = append(split, splitVars(k.Split))
		switch {
		case strings.Contains(body, "rt.SerialFor(total"):
			calls = append(calls, "SerialFor")
		case strings.Contains(body, "lo, hi = lo*blk, hi*blk"):
			calls = append(calls, "blocks")
		}
	}
	assert.Equal(t, []string{"x1", "x0"}, split, "%s", c.prog)
	assert.Equal(t, []string{"SerialFor", "blocks"}, calls, "%s", c.prog)
	bin := buildModule(t, []*lowering.Program{c.prog})
	c.check(t, bin)
}
