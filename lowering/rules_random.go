package lowering

import (
	"fmt"
	"hash/fnv"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Random ops lower to pointwise kernels whose value at element i is a
// RandFns call on (seed, stream, i): the run's seed is the program symbol
// SeedSym (so Program.Syms lists it and generated code receives it like a
// size: Go's Run reads syms["kiln_seed"], 0 by default, set by the main's
// -seed; CUDA's host takes kiln_seed=N or seed=N), the stream is the
// node's StreamID, a constant, and i is the element's row-major index in
// the result. interp draws the same numbers (interp/kernels_random.go), so
// generated code matches it bit for bit. Inductor's prims take their seed
// from a tensor (inductor_lookup_seed of inductor_seeds) and stream 0, as
// tl.rand(seed, offset) does.

// SeedSym is the symbol holding the run's seed (rt.SeedSym in the Go
// runtime): an int64 the caller gives, not a size.
const SeedSym = "kiln_seed"

// StreamID is a random node's stream: FNV-1a 64 of "node:" and its name,
// as int64 (rt.StreamID, which interp uses).
func StreamID(node string) int64 {
	h := fnv.New64a()
	h.Write([]byte("node:" + node))
	return int64(h.Sum64())
}

func randomRules() map[string]rule {
	return map[string]rule{
		"rand":                        randFactory("rand_uniform"),
		"randn":                       randFactory("rand_normal"),
		"rand_like":                   randFactory("rand_uniform"),
		"randn_like":                  randFactory("rand_normal"),
		"bernoulli":                   lowerBernoulli,
		"bernoulli.p":                 lowerBernoulliP,
		"native_dropout":              lowerDropout,
		"prims::inductor_seeds":       lowerInductorSeeds,
		"prims::inductor_lookup_seed": lowerInductorLookupSeed,
		"prims::inductor_random":      lowerInductorRandom,
	}
}

// The random rules join the rule table here rather than in rules.go's
// list; buildRules' duplicate check is repeated.
func init() {
	for name, r := range randomRules() {
		q := qualify(name)
		if _, dup := rules[q]; dup {
			panic("lowering: two rules for " + name)
		}
		rules[q] = r
	}
}

// rowMajor is the row-major index of the outer position in shape, as an
// int64 value.
func (b *kbuilder) rowMajor(shape []sym.Expr) *Instr {
	strides := ir.ContiguousStrides(shape)
	e := sym.Const(0)
	for i, x := range outerVars(len(shape)) {
		e = sym.Add(e, sym.Mul(strides[i], x))
	}
	return b.index(e, ir.I64)
}

// draw emits fn(seed, stream, row-major index) for the node being lowered.
func (l *lowerer) draw(b *kbuilder, fn string, seed *Instr, stream int64, shape []sym.Expr) *Instr {
	if seed == nil {
		seed = b.index(sym.Symbol(SeedSym), ir.I64)
	}
	return b.call(fn, RandFns[fn], seed, b.constInt(stream, ir.I64), b.rowMajor(shape))
}

// randFactory is rand/randn(_like): the draw, rounded once into the dtype.
func randFactory(fn string) rule {
	return func(l *lowerer, c *ops.Call) error {
		out, err := l.resultRef(c, 0)
		if err != nil {
			return err
		}
		if !out.layout.DType.IsFloat() {
			return noLowering(c.Node, "", "%s of dtype %s is not supported", c.Node.Target, out.layout.DType.Abbr())
		}
		b := l.newKernel(out.layout.Shape)
		v := l.draw(b, fn, nil, StreamID(c.Node.Name), out.layout.Shape)
		b.store(out, outerVars(len(out.layout.Shape)), v)
		return nil
	}
}

// lowerBernoulli is u < p in p's opmath type, stored as 0/1.
func lowerBernoulli(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	p, err := l.ref(c.Arg("self"))
	if err != nil {
		return err
	}
	if !p.layout.DType.IsFloat() {
		return noLowering(c.Node, "", "bernoulli of dtype %s is not supported", p.layout.DType.Abbr())
	}
	shape := out.layout.Shape
	b := l.newKernel(shape)
	dt := opmath(p.layout.DType)
	prob := b.cast(b.loadBroadcast(p, shape), dt)
	u := b.cast(l.draw(b, "rand_uniform", nil, StreamID(c.Node.Name), shape), dt)
	b.store(out, outerVars(len(shape)), b.call("lt", ir.Bool, u, prob))
	return nil
}

// lowerDropout is native_dropout: one kernel storing the output and the
// mask. Training: keep = u >= p (compared in float64, as interp), output
// = input * keep * scale in the input's opmath type (ATen's CPU kernel:
// input.mul(mask).mul_(scale)). Eval: the input and an all-true mask.
func lowerDropout(l *lowerer, c *ops.Call) error {
	p, err := c.Float("p")
	if err != nil {
		return err
	}
	train := true
	if c.Has("train") && !c.IsNone("train") {
		if train, err = c.Bool("train"); err != nil {
			return err
		}
	}
	x, err := l.ref(c.Arg("input"))
	if err != nil {
		return err
	}
	if !x.layout.DType.IsFloat() {
		return noLowering(c.Node, "", "native_dropout of dtype %s is not supported", x.layout.DType.Abbr())
	}
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	mask, err := l.resultRef(c, 1)
	if err != nil {
		return err
	}
	shape := out.layout.Shape
	b := l.newKernel(shape)
	dt := opmath(x.layout.DType)
	xv := b.cast(b.loadBroadcast(x, shape), dt)
	idx := outerVars(len(shape))
	if !train {
		b.store(out, idx, xv)
		b.store(mask, idx, b.constant(1, ir.Bool))
		return nil
	}
	u := b.cast(l.draw(b, "rand_uniform", nil, StreamID(c.Node.Name), shape), ir.F64)
	keep := b.call("ge", ir.Bool, u, b.constant(p, ir.F64))
	kept := b.call("mul", dt, xv, b.cast(keep, dt))
	b.store(out, idx, b.call("mul", dt, kept, b.constant(dropoutScale(p), dt)))
	b.store(mask, idx, keep)
	return nil
}

// dropoutScale is 1/(1-p), 0 when p = 1 (interp.DropoutScale).
func dropoutScale(p float64) float64 {
	if 1-p == 0 {
		return 0
	}
	return 1 / (1 - p)
}

// lowerInductorSeeds draws count int64 seeds from the node's stream.
func lowerInductorSeeds(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	if out.layout.DType != ir.I64 || len(out.layout.Shape) != 1 {
		return fmt.Errorf("inductor_seeds result is %s of rank %d, want a vector of i64", out.layout.DType.Abbr(), len(out.layout.Shape))
	}
	b := l.newKernel(out.layout.Shape)
	v := l.draw(b, "rand_bits", nil, StreamID(c.Node.Name), out.layout.Shape)
	b.store(out, outerVars(1), v)
	return nil
}

// lowerInductorLookupSeed copies seeds[index] into a 0-d tensor.
func lowerInductorLookupSeed(l *lowerer, c *ops.Call) error {
	seeds, err := l.ref(c.Arg("seeds"))
	if err != nil {
		return err
	}
	i, err := c.Int("index")
	if err != nil {
		return err
	}
	if len(seeds.layout.Shape) != 1 {
		return fmt.Errorf("inductor_lookup_seed of a rank-%d tensor", len(seeds.layout.Shape))
	}
	if n, ok := seeds.layout.Shape[0].Const(); ok && (i < 0 || i >= n) {
		return fmt.Errorf("inductor_lookup_seed: index %d out of range for %d seeds", i, n)
	}
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	b := l.newKernel(out.layout.Shape)
	b.store(out, outerVars(len(out.layout.Shape)), b.load(seeds, []sym.Expr{sym.Const(i)}))
	return nil
}

// lowerInductorRandom draws from the seed tensor's value on stream 0.
func lowerInductorRandom(l *lowerer, c *ops.Call) error {
	mode := c.Enum("mode")
	fn := map[string]string{"rand": "rand_uniform", "randn": "rand_normal"}[mode]
	if fn == "" {
		return noLowering(c.Node, "", "inductor_random mode %q is not supported", mode)
	}
	seed, err := l.ref(c.Arg("seed"))
	if err != nil {
		return err
	}
	if len(seed.layout.Shape) != 0 || seed.layout.DType != ir.I64 {
		return fmt.Errorf("inductor_random seed must be a 0-d i64 tensor")
	}
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	shape := out.layout.Shape
	b := l.newKernel(shape)
	v := l.draw(b, fn, b.load(seed, nil), 0, shape)
	b.store(out, outerVars(len(shape)), v)
	return nil
}

// lowerBernoulliP is bernoulli.p: u < p compared in float64, as interp
// does, stored as 0/1 in self's dtype (self's values are not read).
func lowerBernoulliP(l *lowerer, c *ops.Call) error {
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	p, err := c.Float("p")
	if err != nil {
		return err
	}
	shape := out.layout.Shape
	b := l.newKernel(shape)
	u := b.cast(l.draw(b, "rand_uniform", nil, StreamID(c.Node.Name), shape), ir.F64)
	b.store(out, outerVars(len(shape)), b.call("lt", ir.Bool, u, b.constant(p, ir.F64)))
	return nil
}
