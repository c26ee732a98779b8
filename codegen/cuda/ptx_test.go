package cuda_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/codegen/cuda"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// viewProgram is scenario 3 built by hand: x[off:].view(f32) + 1 on a
// bf16 buffer, the f32 view at element index start + x0, with the vector
// width the align pass proves.
func viewProgram(t *testing.T, start string, vec int) *lowering.Program {
	b := newProg(t)
	x := b.input("arg0_1", ir.BF16, "2056")
	out := b.output(ir.F32, "1024")
	k := b.kernel(vec, "1024")
	v := k.load(x, ir.F32, start+" + x0")
	v.Access.DType = ir.F32
	k.store(out, "x0", k.call("add", ir.F32, v, k.fconst(ir.F32, 1)))
	return b.p
}

// TestViewPTXHandBuilt: the misaligned view (index 1 + x0, 4 bytes in)
// is read with scalar loads even when the kernel has vec=4; the aligned
// one (4 + x0, 16 bytes in) with ld.global.v4.f32.
func TestViewPTXHandBuilt(t *testing.T) {
	for _, c := range []struct {
		start  string
		vec    int
		vector bool
	}{{"1", 1, false}, {"1", 4, false}, {"4", 4, true}, {"4", 1, false}} {
		p := viewProgram(t, c.start, c.vec)
		src, err := cuda.Generate(p)
		require.NoError(t, err)
		loads := loadLines(ptx(t, src))
		if c.vector {
			assert.Regexp(t, `ld\.global(\.nc)?\.v4\.f32`, loads, "start %s vec %d", c.start, c.vec)
		} else {
			assert.Regexp(t, scalarF32, loads, "start %s vec %d", c.start, c.vec)
			assert.NotRegexp(t, vectorLoad, loads, "start %s vec %d", c.start, c.vec)
		}
	}
}

// TestBF16VectorPTX: 8 bf16 lanes are one 16-byte access per thread.
func TestBF16VectorPTX(t *testing.T) {
	b := newProg(t)
	h := b.input("h", ir.BF16, "1024")
	out := b.output(ir.BF16, "1024")
	k := b.kernel(8, "1024")
	k.store(out, "x0", k.cast(k.call("mul", ir.F32, k.cast(k.load(h, ir.BF16, "x0"), ir.F32), k.fconst(ir.F32, 2)), ir.BF16))
	src, err := cuda.Generate(b.p)
	require.NoError(t, err)
	assert.Contains(t, src, "vector load h[x0]: 1 x uint4")
	out2 := ptx(t, src)
	assert.Regexp(t, vectorLoad, loadLines(out2))
	assert.Regexp(t, `st\.global\.v[24]\.`, out2)
}

// TestGenerateShape: one extern "C" __global__ per kernel, the reduction
// simplification said in a comment, and clear errors for what the
// backend cannot do.
func TestGenerateShape(t *testing.T) {
	p := viewProgram(t, "4", 4)
	p.Kernels = append(p.Kernels, p.Kernels[0])
	src, err := cuda.Generate(p)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(src, `extern "C" __global__ void kernel0(`))
	assert.Contains(t, src, "int main(int argc, char** argv)")

	b := newProg(t)
	x := b.input("x", ir.C64, "4")
	k := b.kernel(1, "4")
	k.store(b.output(ir.C64, "4"), "x0", k.load(x, ir.C64, "x0"))
	_, err = cuda.Generate(b.p)
	assert.ErrorContains(t, err, "dtype c64 is not supported by the CUDA backend")

	b = newProg(t)
	b.p.Kernels = append(b.p.Kernels, &lowering.Kernel{Name: "kernel0", Extern: &lowering.Extern{Op: "aten::_scaled_mm"}})
	_, err = cuda.Generate(b.p)
	assert.ErrorContains(t, err, "extern op aten::_scaled_mm has no CUDA kernel")

	b = newProg(t)
	y := b.input("y", ir.I64, "4")
	k = b.kernel(1, "4")
	k.store(b.output(ir.I64, "4"), "x0", k.call("exp", ir.I64, k.load(y, ir.I64, "x0")))
	_, err = cuda.Generate(b.p)
	assert.ErrorContains(t, err, "function exp is not defined on i64 operands")
}
