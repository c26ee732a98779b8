package golang

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// Operand pairs where the rewrites could go wrong: NaN on either side,
// signed zeros in both orders, infinities.
var peepX = []float64{math.NaN(), 1, 0, math.Copysign(0, -1), math.Inf(1), -2.5, 3, math.Copysign(0, -1), math.NaN()}
var peepY = []float64{1, math.NaN(), math.Copysign(0, -1), 0, math.Inf(-1), -2.5, -7, math.Copysign(0, -1), math.NaN()}

// casePeepholes: neg(maximum), neg(minimum), abs(neg) in f32 and bf16,
// a maximum with two uses (not folded), and abs(neg) on i64 at MinInt64;
// every result bit for bit what the unsimplified expression gives.
func casePeepholes() *genCase {
	n := int64(len(peepX))
	b := newProg("peepholes")
	x, y := b.input("x", f32, c(n)), b.input("y", f32, c(n))
	xb := b.input("xb", bf16, c(n))
	xi := b.input("xi", i64, c(n))
	names := []string{"negmax", "negmin", "absneg", "twouses", "bf16negmax", "i64absneg"}
	outs := map[string]*lowering.Buffer{}
	for _, name := range names {
		dt, ok := map[string]ir.DType{"bf16negmax": bf16, "i64absneg": i64}[name]
		if !ok {
			dt = f32
		}
		outs[name] = b.output(name, dt, c(n))
	}
	k := b.kernel(c(n))
	xl, yl := k.load(x, f32, v("x0")), k.load(y, f32, v("x0"))
	k.store(outs["negmax"], v("x0"), k.call("neg", f32, k.call("maximum", f32, xl, yl)))
	k.store(outs["negmin"], v("x0"), k.call("neg", f32, k.call("minimum", f32, xl, yl)))
	k.store(outs["absneg"], v("x0"), k.call("abs", f32, k.call("neg", f32, xl)))
	m := k.call("maximum", f32, xl, yl)
	k.store(outs["twouses"], v("x0"), k.call("add", f32, k.call("neg", f32, m), m))
	xbl := k.load(xb, bf16, v("x0"))
	k.store(outs["bf16negmax"], v("x0"), k.call("neg", bf16, k.call("maximum", bf16, xbl, k.fconst(bf16, 0.5))))
	k.store(outs["i64absneg"], v("x0"), k.call("abs", i64, k.call("neg", i64, k.load(xi, i64, v("x0")))))
	ints := []int64{math.MinInt64, -1, 0, 1, math.MaxInt64, -5, 7, 2, -3}
	xt, yt := interp.FromFloats(f32, []int64{n}, peepX), interp.FromFloats(f32, []int64{n}, peepY)
	xbt := interp.FromFloats(bf16, []int64{n}, peepX)
	xit := interp.FromInts(i64, []int64{n}, ints)
	inputs := map[string]*interp.Tensor{"x": xt, "y": yt, "xb": xbt, "xi": xit}
	return &genCase{prog: b.p, inputs: inputs, check: func(t *testing.T, r *runResult) {
		xs, ys := f32s(xt), f32s(yt)
		var negmax, negmin, absneg, twouses []float32
		var bnegmax []float64
		for i := range xs {
			negmax = append(negmax, -max(xs[i], ys[i]))
			negmin = append(negmin, -min(xs[i], ys[i]))
			absneg = append(absneg, float32(math.Abs(float64(-xs[i]))))
			twouses = append(twouses, -max(xs[i], ys[i])+max(xs[i], ys[i]))
			bnegmax = append(bnegmax, float64(-max(f32s(xbt)[i], 0.5)))
		}
		requireSameF32(t, negmax, r.output(t, 0))
		requireSameF32(t, negmin, r.output(t, 1))
		requireSameF32(t, absneg, r.output(t, 2))
		requireSameF32(t, twouses, r.output(t, 3))
		requireSameF32(t, f32s(interp.FromFloats(bf16, []int64{n}, bnegmax)), r.output(t, 4))
		var want []int64
		for _, v := range ints {
			a := -v
			if a < 0 {
				a = -a
			}
			want = append(want, a)
		}
		assert.Equal(t, want, r.output(t, 5).Ints())
	}}
}

func TestPeepholes(t *testing.T) {
	gc := casePeepholes()
	src, err := Generate(gc.prog, "peepholes")
	require.NoError(t, err)
	s := string(src)
	// neg(maximum) and neg(minimum) folded (the bf16 one too); the
	// maximum with two uses stays a max; abs(neg) reads the operand.
	assert.Equal(t, 2, strings.Count(s, "min((-"), "%s", s)
	assert.Equal(t, 1, strings.Count(s, "max((-"), "%s", s)
	assert.Contains(t, s, "rt.AbsF32(tmp0)")
	gc.run(t, buildModule(t, []*lowering.Program{gc.prog}))
	gc.run(t, buildModule(t, []*lowering.Program{gc.prog}, "GOEXPERIMENT=simd"))
}
