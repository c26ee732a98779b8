package ops

import (
	"github.com/kiln-compiler/kiln/ir"
)

// The 1-d average pools, core ATen ops that are composites of the 2-d ones
// (Pooling.cpp: unsqueeze(-2), the 2-d pool, squeeze(-2)), so their output
// is contiguous.
func pool1dTable() []Entry {
	n := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindNN, Meta: meta} }
	return []Entry{
		n("avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], bool ceil_mode=False, bool count_include_pad=True) -> Tensor", metaAvgPool1d),
		n("adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor", metaAdaptiveAvgPool1d),
	}
}

func metaAvgPool1d(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	if self.Rank() != 2 && self.Rank() != 3 {
		return nil, Errorf(CodeShape, "", "avg_pool1d() Expected 2D or 3D input tensor, but got %s", shapeString(self.Shape))
	}
	k, err := spatialParam(c, "kernel_size", 1, nil)
	if err != nil || k == nil {
		return nil, Errorf(CodeShape, "", "avg_pool1d() argument 'kernel_size' should contain one int")
	}
	stride, err := spatialParam(c, "stride", 1, k)
	if err != nil {
		return nil, err
	}
	pad, err := spatialParam(c, "padding", 1, constList(1, 0))
	if err != nil {
		return nil, err
	}
	ceil, err := c.Bool("ceil_mode")
	if err != nil {
		return nil, err
	}
	r := self.Rank()
	shape := append(copyExprs(self.Shape[:r-1]), env.poolSize(self.Shape[r-1], k[0], pad[0], stride[0], c1, ceil))
	return one(env.Contiguous(self.DType, shape, self.Device)), nil
}

func metaAdaptiveAvgPool1d(env *Env, c *Call) ([]ir.Type, error) {
	self, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	size, err := c.SymInts("output_size")
	if err != nil {
		return nil, err
	}
	if self.Rank() != 2 && self.Rank() != 3 || len(size) != 1 {
		return nil, Errorf(CodeShape, "", "adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got %s", shapeString(self.Shape))
	}
	shape := append(copyExprs(self.Shape[:self.Rank()-1]), size...)
	return one(env.Contiguous(self.DType, shape, self.Device)), nil
}
