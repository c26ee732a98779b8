package interp

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/rt"
)

// Random ops. Values cannot match PyTorch's generators; they are
// counter-based (rt.Philox), so element i of node N's result depends only
// on the run's seed, N's stream (rt.StreamID of its name) and i, the
// element's row-major index in the result. Two runs of the same graph
// (before and after a pass) draw the same numbers, and generated kernels
// (lowering/rules_random.go) draw them too, in any order:
//
//	rand, rand_like           rt.RandUniform(seed, stream, i), in [0, 1)
//	randn, randn_like         rt.RandNormal(seed, stream, i)
//	bernoulli(p)              u_i < p_i
//	native_dropout(x, p)      keep_i = u_i >= p; out_i = x_i * keep_i * 1/(1-p) (0 when p = 1)
//	inductor_seeds(count)     rt.RandBits(seed, stream, i), i < count
//	inductor_lookup_seed(s,k) s[k]
//	inductor_random(size, s)  rt.RandUniform(s, 0, i) or rt.RandNormal(s, 0, i)
//
// The value is a float32 rounded once into the result's dtype.

// randFill marks a random factory: uniform [0, 1) or standard normal.
type randFill struct{ normal bool }

// draw is element i of stream under seed.
func (r randFill) draw(seed, stream, i int64) float64 {
	if r.normal {
		return float64(rt.RandNormal(seed, stream, i))
	}
	return float64(rt.RandUniform(seed, stream, i))
}

// seed is the run's seed as the generated code receives it.
func (c *call) seed() int64 { return int64(c.m.opts.Seed) }

// stream is the node's random stream.
func (c *call) stream() int64 { return rt.StreamID(c.n.Name) }

// fillRandomOp fills t's elements (row-major) from the node's stream.
func fillRandomOp(c *call, t *Tensor, r randFill) {
	seed, stream := c.seed(), c.stream()
	for i, o := range t.offsets() {
		storeF(t.DType, t.Storage.Data, o, r.draw(seed, stream, int64(i)))
	}
}

func kInductorSeeds(c *call) ([]any, error) {
	n, err := c.int("count")
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("inductor_seeds: negative count %d", n)
	}
	dev, _, err := c.device("device")
	if err != nil {
		return nil, err
	}
	seed, stream := c.seed(), c.stream()
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = rt.RandBits(seed, stream, int64(i))
	}
	t := FromInts(ir.I64, []int64{n}, vals)
	t.Storage.Device = dev
	return one(t)
}

func kInductorLookupSeed(c *call) ([]any, error) {
	seeds, err := c.tensor("seeds")
	if err != nil {
		return nil, err
	}
	i, err := c.int("index")
	if err != nil {
		return nil, err
	}
	v, err := selectView(seeds, 0, i)
	if err != nil {
		return nil, err
	}
	return one(contiguous(v))
}

func kInductorRandom(c *call) ([]any, error) {
	size, err := c.intList("size")
	if err != nil {
		return nil, err
	}
	seed, err := c.tensor("seed")
	if err != nil {
		return nil, err
	}
	mode, err := c.str("mode")
	if err != nil {
		return nil, err
	}
	if mode != "rand" && mode != "randn" {
		return nil, fmt.Errorf("inductor_random: unsupported mode %q", mode)
	}
	if seed.Numel() != 1 {
		return nil, fmt.Errorf("inductor_random: seed has %d elements, want 1", seed.Numel())
	}
	s := seed.Ints()[0]
	t, err := Empty(ir.F32, size, nil, seed.Device())
	if err != nil {
		return nil, err
	}
	r := randFill{normal: mode == "randn"}
	for i := int64(0); i < t.Numel(); i++ {
		storeF(ir.F32, t.Storage.Data, i, r.draw(s, 0, i))
	}
	return one(t)
}

func kBernoulli(c *call) ([]any, error) {
	p, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	probs := p.Floats()
	seed, stream := c.seed(), c.stream()
	for i, q := range probs {
		probs[i] = rt.B2F(float64(rt.RandUniform(seed, stream, int64(i))) < q)
	}
	return one(FromFloatsOn(p.DType, p.Shape, probs, p.Device()))
}

// kDropout is native_dropout: (output, mask). As ATen's CPU kernel,
// output = input * mask * scale with scale = 1/(1-p) (0 when p = 1),
// computed in the input's opmath type; in eval mode the input and an
// all-true mask.
func kDropout(c *call) ([]any, error) {
	x, err := c.tensor("input")
	if err != nil {
		return nil, err
	}
	p, err := c.float("p")
	if err != nil {
		return nil, err
	}
	train := true
	if c.has("train") && !c.isNone("train") {
		if train, err = c.bool("train"); err != nil {
			return nil, err
		}
	}
	vals := x.Floats()
	mask := make([]int64, len(vals))
	seed, stream := c.seed(), c.stream()
	om := opmath(x.DType)
	scale := roundTo(om, DropoutScale(p))
	for i := range vals {
		keep := !train || float64(rt.RandUniform(seed, stream, int64(i))) >= p
		mask[i] = rt.B2I(keep)
		if train {
			vals[i] = roundTo(om, roundTo(om, vals[i]*rt.B2F(keep))*scale)
		}
	}
	return []any{FromFloatsOn(x.DType, x.Shape, vals, x.Device()), FromInts(ir.Bool, x.Shape, mask)}, nil
}

// kDropoutBackward is native_dropout_backward: grad * mask * scale, as
// Dropout.cpp computes it: the double scale enters the second product as
// an opmath scalar (float for float grads), each product is rounded.
func kDropoutBackward(c *call) ([]any, error) {
	in, err := operands(c, "grad_output", "mask")
	if err != nil {
		return nil, err
	}
	scale, err := c.float("scale")
	if err != nil {
		return nil, err
	}
	return oneT(elementwise(ewSpec{kind: ops.PromoteDefault, opName: "native_dropout_backward"}, ewKernel{f: fl2r(func(r rounder) func(g, m float64) float64 {
		sc := r(scale)
		return func(g, m float64) float64 { return r(r(g*m) * sc) }
	})}, in))
}

// DropoutScale is native_dropout's scale 1/(1-p), 0 when p = 1 (ATen
// avoids the division by zero).
func DropoutScale(p float64) float64 {
	if 1-p == 0 {
		return 0
	}
	return 1 / (1 - p)
}

func init() {
	register(kInductorSeeds, "prims::inductor_seeds")
	register(kInductorLookupSeed, "prims::inductor_lookup_seed")
	register(kInductorRandom, "prims::inductor_random")
	register(kBernoulli, "bernoulli")
	register(kDropout, "native_dropout")
	register(kDropoutBackward, "native_dropout_backward")
}
