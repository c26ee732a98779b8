package ops

import (
	"github.com/kiln-compiler/kiln/ir"
)

// Inductor's own prims (torch/_inductor/inductor_prims.py), as they appear
// in post-grad graphs; internal/opcases checks them against PyTorch 2.15.
func inductorPrimsTable() []Entry {
	return []Entry{
		{Schema: "prims::prepare_softmax_online(Tensor a, int dim) -> (Tensor, Tensor)", Kind: KindReduction, Meta: metaPrepareSoftmaxOnline},
		{Schema: "prims::inductor_randint(SymInt low, SymInt high, SymInt[] size, Tensor seed) -> Tensor", Kind: KindRandom, Meta: metaInductorRandint, Random: true},
		{Schema: "prims::_low_memory_max_pool_offsets_to_indices(Tensor self, SymInt[] kernel_size, SymInt[] input_size, SymInt[] stride, SymInt[] padding, SymInt[] dilation) -> Tensor",
			Kind: KindNN, Meta: metaOffsetsToIndices},
	}
}

// metaPrepareSoftmaxOnline: (max, sum of exp(a - max)) over dim, kept as 1,
// both contiguous in a's dtype.
func metaPrepareSoftmaxOnline(env *Env, c *Call) ([]ir.Type, error) {
	a, err := c.Tensor("a")
	if err != nil || a == nil {
		return nil, err
	}
	d, err := c.Dim("dim", a.Rank())
	if err != nil {
		return nil, err
	}
	shape := copyExprs(a.Shape)
	if a.Rank() > 0 {
		shape[d] = c1
	}
	return []ir.Type{ir.TensorOf(env.Contiguous(a.DType, shape, a.Device)), ir.TensorOf(env.Contiguous(a.DType, copyExprs(shape), a.Device))}, nil
}

// metaInductorRandint is an int64 tensor of size on the seed's device.
func metaInductorRandint(env *Env, c *Call) ([]ir.Type, error) {
	seed, err := c.Tensor("seed")
	if err != nil || seed == nil {
		return nil, err
	}
	size, err := c.SymInts("size")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(ir.I64, size, seed.Device)), nil
}

// metaOffsetsToIndices: int64 indices shaped like the int8 offsets.
func metaOffsetsToIndices(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil || self == nil {
		return nil, err
	}
	return one(env.Contiguous(ir.I64, copyExprs(self.Shape), self.Device)), nil
}
