package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Meta rules for embedding_bag (meta_embedding_bag in
// torch/_meta_registrations.py, CPU): (output [bags, D], offset2bag,
// bag_size, max_indices), the index outputs in offsets' dtype.
func metaEmbeddingBag(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "weight", "indices", "offsets")
	if err != nil {
		return nil, err
	}
	w, idx, off := ts[0], ts[1], ts[2]
	if w.Rank() != 2 || off.Rank() != 1 {
		return nil, Errorf(CodeShape, "", "embedding_bag: expected a 2D weight and 1D offsets, got %s and %s", shapeString(w.Shape), shapeString(off.Shape))
	}
	mode, err := c.Int("mode")
	if err != nil {
		return nil, err
	}
	last, err := c.Bool("include_last_offset")
	if err != nil {
		return nil, err
	}
	pad, err := c.Int("padding_idx")
	if err != nil {
		return nil, err
	}
	psw, err := c.Tensor("per_sample_weights")
	if err != nil {
		return nil, err
	}
	bags := off.Shape[0]
	if last {
		bags = sym.Sub(bags, sym.Const(1))
	}
	d := w.Shape[1]
	fastSum := (w.DType == ir.F32 || w.DType == ir.F16) && isOne(stridesOf(w)[1]) && pad < 0 &&
		(psw == nil || isOne(stridesOf(psw)[0]))
	o2b := []sym.Expr{c0}
	if mode != 0 || !fastSum {
		o2b = []sym.Expr{product(idx.Shape)}
	}
	bagSize := []sym.Expr{bags}
	if c.Op.Schema.Name == "_embedding_bag_forward_only" {
		bagSize = []sym.Expr{off.Shape[0]}
	}
	maxIdx := []sym.Expr{bags}
	if mode == 2 {
		maxIdx = []sym.Expr{bags, d}
	}
	return types(env.Contiguous(w.DType, []sym.Expr{bags, d}, w.Device), env.Contiguous(off.DType, o2b, off.Device),
		env.Contiguous(off.DType, bagSize, off.Device), env.Contiguous(off.DType, maxIdx, off.Device)), nil
}

// metaEmbeddingBagBackward is the dense weight gradient [num_weights, D].
func metaEmbeddingBagBackward(env *Env, c *Call) ([]ir.Type, error) {
	g, err := c.Tensor("grad")
	if err != nil {
		return nil, err
	}
	n, err := c.SymInt("num_weights")
	if err != nil {
		return nil, err
	}
	if g.Rank() != 2 {
		return nil, Errorf(CodeShape, "", "embedding_bag_backward: expected a 2D grad, got %s", shapeString(g.Shape))
	}
	return one(env.Contiguous(g.DType, []sym.Expr{n, g.Shape[1]}, g.Device)), nil
}

// metaEmbeddingBagPSWBackward is one gradient per index.
func metaEmbeddingBagPSWBackward(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := tensorsOf(c, "grad", "indices")
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(ts[0].DType, []sym.Expr{product(ts[1].Shape)}, ts[0].Device)), nil
}
