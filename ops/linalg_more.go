package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// More linear algebra, as PyTorch 2.15's meta registrations
// (torch/_meta_registrations.py) lay the results out: LDLᵀ factors
// column-major like LAPACK's sytrf, matrix functions (exp, Hermitian
// square root), the polar factors and pairwise distances row-major
// contiguous.

func linalgMoreTable() []Entry {
	l := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindExtern, Meta: meta} }
	return []Entry{
		l("linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> (Tensor LD, Tensor pivots, Tensor info)", metaLDLFactor),
		l("linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor", solveLike("LD", "B", false)),
		l("linalg_matrix_exp(Tensor self) -> Tensor", squareContiguous("self")),
		l("linalg_matrix_sqrth(Tensor self) -> Tensor", squareContiguous("self")),
		l("linalg_polar(Tensor A) -> (Tensor U, Tensor H)", metaPolar),
		l("_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor", metaCdistForward),
		l("_cdist_backward(Tensor grad_output, Tensor x1, Tensor x2, float p, Tensor cdist) -> Tensor", metaCdistBackward),
		l("_pdist_forward(Tensor self, float p=2) -> Tensor", metaPdistForward),
		l("_pdist_backward(Tensor grad_output, Tensor self, float p, Tensor pdist) -> Tensor", func(env *Env, c *Call) ([]ir.Type, error) {
			self, err := c.Tensor("self")
			if err != nil {
				return nil, err
			}
			return one(env.Contiguous(self.DType, copyExprs(self.Shape), self.Device)), nil
		}),
	}
}

// metaLDLFactor is (LD column-major like self, int32 pivots [..., n],
// int32 info [...]).
func metaLDLFactor(env *Env, c *Call) ([]ir.Type, error) {
	a, batch, m, n, err := matrix(c, "self")
	if err != nil {
		return nil, err
	}
	if !sym.Equal(m, n) {
		return nil, Errorf(CodeShape, "", "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they are %s by %s matrices", m, n)
	}
	return types(colMajor(env, a.DType, copyExprs(a.Shape), a.Device),
		env.Contiguous(ir.I32, with(batch, n), a.Device),
		env.Contiguous(ir.I32, copyExprs(batch), a.Device)), nil
}

// squareContiguous is empty_like(self, contiguous) after squareCheckInputs.
func squareContiguous(name string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		a, _, m, n, err := matrix(c, name)
		if err != nil {
			return nil, err
		}
		if !sym.Equal(m, n) {
			return nil, Errorf(CodeShape, "", "%s: A must be batches of square matrices, but they are %s by %s matrices", c.Op.Schema.Name, m, n)
		}
		return one(env.Contiguous(a.DType, copyExprs(a.Shape), a.Device)), nil
	}
}

// metaPolar is (U like A, H [..., n, n]), both row-major.
func metaPolar(env *Env, c *Call) ([]ir.Type, error) {
	a, batch, _, n, err := matrix(c, "A")
	if err != nil {
		return nil, err
	}
	return types(env.Contiguous(a.DType, copyExprs(a.Shape), a.Device), env.Contiguous(a.DType, with(batch, n, n), a.Device)), nil
}

// metaLUUnpack is metaLU, with P empty ([0]) unless unpack_pivots and L,
// U empty unless unpack_data (lu_unpack_meta).
func metaLUUnpack(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := metaLU("LU_data")(env, c)
	if err != nil {
		return nil, err
	}
	lu, err := c.Tensor("LU_data")
	if err != nil {
		return nil, err
	}
	empty := ir.TensorOf(env.Contiguous(lu.DType, []sym.Expr{sym.Const(0)}, lu.Device))
	if p, err := c.Bool("unpack_pivots"); err == nil && !p {
		ts[0] = empty
	}
	if d, err := c.Bool("unpack_data"); err == nil && !d {
		ts[1], ts[2] = empty, empty
	}
	return ts, nil
}

// metaLUSolve is B's shape over the broadcast batch, column-major when
// left and row-major otherwise (linalg_lu_solve_meta).
func metaLUSolve(env *Env, c *Call) ([]ir.Type, error) {
	ts, err := solveLike("LU", "B", false)(env, c)
	if err != nil {
		return nil, err
	}
	if left, err := c.Bool("left"); err == nil && !left {
		x := ts[0].Tensor
		return one(env.Contiguous(x.DType, copyExprs(x.Shape), x.Device)), nil
	}
	return ts, nil
}

// metaCdistForward is x1's dtype over the broadcast batch, [r1, r2].
func metaCdistForward(env *Env, c *Call) ([]ir.Type, error) {
	x1, b1, r1, c1, err := matrix(c, "x1")
	if err != nil {
		return nil, err
	}
	_, b2, r2, c2, err := matrix(c, "x2")
	if err != nil {
		return nil, err
	}
	if !sym.Equal(c1, c2) {
		return nil, Errorf(CodeShape, "", "X1 and X2 must have the same number of columns. X1: %s X2: %s", c1, c2)
	}
	batch, err := env.BroadcastShapes(b1, b2)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(x1.DType, with(batch, r1, r2), x1.Device)), nil
}

// metaCdistBackward is x1 expanded to the broadcast batch, contiguous
// (zeros_like(x1) when anything is empty, which for a contiguous x1 is
// the same layout).
func metaCdistBackward(env *Env, c *Call) ([]ir.Type, error) {
	x1, b1, r1, c1, err := matrix(c, "x1")
	if err != nil {
		return nil, err
	}
	_, b2, _, _, err := matrix(c, "x2")
	if err != nil {
		return nil, err
	}
	batch, err := env.BroadcastShapes(b1, b2)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(x1.DType, with(batch, r1, c1), x1.Device)), nil
}

// metaPdistForward is [n·(n−1)/2].
func metaPdistForward(env *Env, c *Call) ([]ir.Type, error) {
	x, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	if x.Rank() != 2 {
		return nil, Errorf(CodeShape, "", "pdist only supports 2D tensors, got: %dD", x.Rank())
	}
	n := x.Shape[0]
	size := sym.FloorDiv(sym.Mul(n, sym.Sub(n, sym.Const(1))), sym.Const(2))
	return one(env.Contiguous(x.DType, []sym.Expr{size}, x.Device)), nil
}
