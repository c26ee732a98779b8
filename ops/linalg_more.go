package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// More linear algebra, as PyTorch 2.15's meta registrations
// (torch/_meta_registrations.py) lay the results out: LDLᵀ factors
// column-major like LAPACK's sytrf, matrix functions (exp, Hermitian
// square root) and the polar factors row-major contiguous.

func linalgMoreTable() []Entry {
	l := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindExtern, Meta: meta} }
	return []Entry{
		l("linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> (Tensor LD, Tensor pivots, Tensor info)", metaLDLFactor),
		l("linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor", solveLike("LD", "B", false)),
		l("linalg_matrix_exp(Tensor self) -> Tensor", squareContiguous("self")),
		l("linalg_matrix_sqrth(Tensor self) -> Tensor", squareContiguous("self")),
		l("linalg_polar(Tensor A) -> (Tensor U, Tensor H)", metaPolar),
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
