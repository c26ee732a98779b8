package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Linear algebra: LAPACK returns matrices in column-major order (batch
// dims row-major around them), as PyTorch's meta functions for the CPU
// say; the shapes and layouts here were read off PyTorch 2.15's fake
// tensors (tools/conformance, testdata/conformance).

func linalgTable() []Entry {
	l := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindExtern, Meta: meta} }
	return []Entry{
		l("linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)", squareWithInfo("A")),
		l("linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info)", squareWithInfo("self")),
		l("linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> (Tensor LU, Tensor pivots, Tensor info)", metaLUFactor),
		l("linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)", metaLU("A")),
		l("lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)", metaLUUnpack),
		l(`_linalg_eigh(Tensor A, str UPLO="L", bool compute_v=True) -> (Tensor eigenvalues, Tensor eigenvectors)`, metaEigh),
		l("linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)", metaEig),
		l("_linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet, Tensor LU, Tensor pivots)", metaDet(true)),
		l("_linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)", metaDet(false)),
		l("linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False) -> Tensor", solveLike("self", "B", false)),
		l("linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor", metaLUSolve),
		l("cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor", solveLike("input2", "self", false)),
		l("triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)", solveLike("A", "self", true)),
		l("_linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (Tensor result, Tensor LU, Tensor pivots, Tensor info)", metaSolveEx),
		l("cholesky_inverse(Tensor self, bool upper=False) -> Tensor", selfRule(func(env *Env, c *Call, self *ir.TensorType) (*ir.TensorType, error) {
			return colMajor(env, self.DType, copyExprs(self.Shape), self.Device), needDims(self, "cholesky_inverse")
		})),
		l("linalg_householder_product(Tensor input, Tensor tau) -> Tensor", func(env *Env, c *Call) ([]ir.Type, error) {
			in, err := c.Tensor("input")
			if err != nil {
				return nil, err
			}
			return one(colMajor(env, in.DType, copyExprs(in.Shape), in.Device)), nil
		}),
		l("geqrf(Tensor self) -> (Tensor a, Tensor tau)", metaGeqrf),
		l(`linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R)`, metaQR),
		l("_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)", metaSVD),
		l("linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor", metaCross),
	}
}

// colMajor is a batch of column-major matrices: shape [..., m, n] with
// strides [..., m·n, ..., 1, m].
func colMajor(env *Env, dt ir.DType, shape []sym.Expr, dev ir.Device) *ir.TensorType {
	t := env.Contiguous(dt, shape, dev)
	if r := len(shape); r >= 2 {
		t.Strides[r-2], t.Strides[r-1] = sym.Const(1), sym.Max(shape[r-2], sym.Const(1))
	}
	return t
}

// matrix reads a batch of matrices: its batch dims and its m, n.
func matrix(c *Call, name string) (*ir.TensorType, []sym.Expr, sym.Expr, sym.Expr, error) {
	t, err := c.Tensor(name)
	if err != nil {
		return nil, nil, sym.Expr{}, sym.Expr{}, err
	}
	r := t.Rank()
	if r < 2 {
		return nil, nil, sym.Expr{}, sym.Expr{}, Errorf(CodeShape, "", "%s: The input tensor %s must have at least 2 dimensions.", c.Op.Schema.Name, name)
	}
	return t, t.Shape[:r-2], t.Shape[r-2], t.Shape[r-1], nil
}

func with(batch []sym.Expr, dims ...sym.Expr) []sym.Expr {
	return append(copyExprs(batch), dims...)
}

func types(ts ...*ir.TensorType) []ir.Type {
	out := make([]ir.Type, len(ts))
	for i, t := range ts {
		out[i] = ir.TensorOf(t)
	}
	return out
}

// squareWithInfo is (a column-major matrix like the input, int32 info per
// batch entry): linalg_inv_ex, linalg_cholesky_ex.
func squareWithInfo(name string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		a, batch, _, _, err := matrix(c, name)
		if err != nil {
			return nil, err
		}
		return types(colMajor(env, a.DType, copyExprs(a.Shape), a.Device), env.Contiguous(ir.I32, copyExprs(batch), a.Device)), nil
	}
}

func metaLUFactor(env *Env, c *Call) ([]ir.Type, error) {
	a, batch, m, n, err := matrix(c, "A")
	if err != nil {
		return nil, err
	}
	return types(colMajor(env, a.DType, copyExprs(a.Shape), a.Device),
		env.Contiguous(ir.I32, with(batch, sym.Min(m, n)), a.Device),
		env.Contiguous(ir.I32, copyExprs(batch), a.Device)), nil
}

// metaLU is (P [m, m], L [m, k], U [k, n]), row-major.
func metaLU(name string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		a, batch, m, n, err := matrix(c, name)
		if err != nil {
			return nil, err
		}
		k := sym.Min(m, n)
		return types(env.Contiguous(a.DType, with(batch, m, m), a.Device),
			env.Contiguous(a.DType, with(batch, m, k), a.Device),
			env.Contiguous(a.DType, with(batch, k, n), a.Device)), nil
	}
}

func metaEigh(env *Env, c *Call) ([]ir.Type, error) {
	a, batch, _, n, err := matrix(c, "A")
	if err != nil {
		return nil, err
	}
	computeV, err := c.Bool("compute_v")
	if err != nil {
		return nil, err
	}
	vals := env.Contiguous(realPart(a.DType), with(batch, n), a.Device)
	vecs := env.Contiguous(a.DType, []sym.Expr{sym.Const(0)}, a.Device)
	if computeV {
		vecs = colMajor(env, a.DType, copyExprs(a.Shape), a.Device)
	}
	return types(vals, vecs), nil
}

func metaEig(env *Env, c *Call) ([]ir.Type, error) {
	a, batch, _, n, err := matrix(c, "self")
	if err != nil {
		return nil, err
	}
	dt := toComplex(a.DType)
	return types(env.Contiguous(dt, with(batch, n), a.Device), colMajor(env, dt, copyExprs(a.Shape), a.Device)), nil
}

// metaDet is (sign, log|det|) or det per batch entry, then the LU
// factorization and its pivots.
func metaDet(slog bool) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		a, batch, _, n, err := matrix(c, "A")
		if err != nil {
			return nil, err
		}
		lu := colMajor(env, a.DType, copyExprs(a.Shape), a.Device)
		piv := env.Contiguous(ir.I32, with(batch, n), a.Device)
		det := env.Contiguous(a.DType, copyExprs(batch), a.Device)
		if slog {
			return types(det, env.Contiguous(realPart(a.DType), copyExprs(batch), a.Device), lu, piv), nil
		}
		return types(det, lu, piv), nil
	}
}

// solveLike solves A·X = B (or X·A = B when left is false): X has B's
// matrix shape over the broadcast batch, column-major. triangular_solve
// also returns A's clone.
func solveLike(aName, bName string, withCoefficient bool) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		a, aBatch, _, _, err := matrix(c, aName)
		if err != nil {
			return nil, err
		}
		b, bBatch, m, n, err := matrix(c, bName)
		if err != nil {
			return nil, err
		}
		batch, err := env.BroadcastShapes(aBatch, bBatch)
		if err != nil {
			return nil, err
		}
		dt, err := PromoteTypes(a.DType, b.DType)
		if err != nil {
			return nil, err
		}
		x := colMajor(env, dt, with(batch, m, n), b.Device) // left or right: PyTorch 2.15 gives both column-major
		if !withCoefficient {
			return one(x), nil
		}
		ar := a.Rank()
		return types(x, colMajor(env, dt, with(batch, a.Shape[ar-2], a.Shape[ar-1]), a.Device)), nil
	}
}

// metaSolveEx is linalg.solve's kernel: for a matrix B (left), a
// column-major result; with left=False a row-major one; then A's LU
// factorization, pivots and info.
func metaSolveEx(env *Env, c *Call) ([]ir.Type, error) {
	a, aBatch, _, n, err := matrix(c, "A")
	if err != nil {
		return nil, err
	}
	b, err := c.Tensor("B")
	if err != nil {
		return nil, err
	}
	left, err := c.Bool("left")
	if err != nil {
		return nil, err
	}
	if b.Rank() == 1 || b.Rank() == a.Rank()-1 && sym.EqualLists(b.Shape, a.Shape[:a.Rank()-1]) {
		// A vector right-hand side: the result is laid out as PyTorch's
		// meta lays out a column-major "matrix" of the result's shape.
		batch, err := env.BroadcastShapes(aBatch, b.Shape[:b.Rank()-1])
		if err != nil {
			return nil, err
		}
		dt, err := PromoteTypes(a.DType, b.DType)
		if err != nil {
			return nil, err
		}
		return types(colMajor(env, dt, with(batch, n), a.Device), colMajor(env, a.DType, with(batch, n, n), a.Device),
			env.Contiguous(ir.I32, with(batch, n), a.Device), env.Contiguous(ir.I32, copyExprs(batch), a.Device)), nil
	}
	if b.Rank() < 2 {
		return nil, fmt.Errorf("_linalg_solve_ex: B must have at least 1 dimension")
	}
	br := b.Rank()
	batch, err := env.BroadcastShapes(aBatch, b.Shape[:br-2])
	if err != nil {
		return nil, err
	}
	dt, err := PromoteTypes(a.DType, b.DType)
	if err != nil {
		return nil, err
	}
	shape := with(batch, b.Shape[br-2], b.Shape[br-1])
	x := colMajor(env, dt, shape, a.Device)
	if !left {
		x = env.Contiguous(dt, shape, a.Device)
	}
	return types(x, colMajor(env, a.DType, with(batch, n, n), a.Device),
		env.Contiguous(ir.I32, with(batch, n), a.Device), env.Contiguous(ir.I32, copyExprs(batch), a.Device)), nil
}

func metaGeqrf(env *Env, c *Call) ([]ir.Type, error) {
	a, batch, m, n, err := matrix(c, "self")
	if err != nil {
		return nil, err
	}
	return types(colMajor(env, a.DType, copyExprs(a.Shape), a.Device), env.Contiguous(a.DType, with(batch, sym.Min(m, n)), a.Device)), nil
}

// metaQR: reduced Q [m, k], R [k, n]; complete Q [m, m], R [m, n]; "r"
// gives an empty Q.
func metaQR(env *Env, c *Call) ([]ir.Type, error) {
	a, batch, m, n, err := matrix(c, "A")
	if err != nil {
		return nil, err
	}
	mode := c.Enum("mode")
	if mode == "" {
		mode = "reduced"
	}
	k := sym.Min(m, n)
	switch mode {
	case "reduced":
		return types(colMajor(env, a.DType, with(batch, m, k), a.Device), colMajor(env, a.DType, with(batch, k, n), a.Device)), nil
	case "complete":
		return types(colMajor(env, a.DType, with(batch, m, m), a.Device), colMajor(env, a.DType, with(batch, m, n), a.Device)), nil
	case "r":
		return types(env.Contiguous(a.DType, []sym.Expr{sym.Const(0)}, a.Device), colMajor(env, a.DType, with(batch, k, n), a.Device)), nil
	}
	return nil, Errorf(CodeInvalidArgVal, "", "qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', or 'complete'", mode)
}

func metaSVD(env *Env, c *Call) ([]ir.Type, error) {
	a, batch, m, n, err := matrix(c, "A")
	if err != nil {
		return nil, err
	}
	full, err := c.Bool("full_matrices")
	if err != nil {
		return nil, err
	}
	uv, err := c.Bool("compute_uv")
	if err != nil {
		return nil, err
	}
	k := sym.Min(m, n)
	s := env.Contiguous(realPart(a.DType), with(batch, k), a.Device)
	if !uv {
		empty := func() *ir.TensorType { return env.Contiguous(a.DType, []sym.Expr{sym.Const(0)}, a.Device) }
		return types(empty(), s, empty()), nil
	}
	uc, vr := k, k
	if full {
		uc, vr = m, n
	}
	return types(colMajor(env, a.DType, with(batch, m, uc), a.Device), s, colMajor(env, a.DType, with(batch, vr, n), a.Device)), nil
}

func metaCross(env *Env, c *Call) ([]ir.Type, error) {
	a, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	b, err := c.Tensor("other")
	if err != nil {
		return nil, err
	}
	if a.Rank() != b.Rank() {
		return nil, Errorf(CodeShape, "", "linalg.cross: inputs must have the same number of dimensions.")
	}
	shape, err := env.BroadcastShapes(a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	dt, err := PromoteTypes(a.DType, b.DType)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(dt, shape, a.Device)), nil
}
