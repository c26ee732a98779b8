package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// The composite linear algebra entry points of Dynamo-level graphs
// (torch.linalg.inv routes to aten::linalg_inv): PyTorch builds each on
// one structured kernel, so each result is that kernel's, with its
// parameters read under this op's names. Layouts checked against eager
// PyTorch 2.15 on a [2, 3, 3] row-major input (inv, solve, cholesky,
// eigh's vectors, svd's U/Vh, lu/ldl factors column-major; values,
// determinants, pivots row-major).

// results keeps some results of another rule.
func results(meta MetaFunc, keep ...int) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		ts, err := meta(env, c)
		if err != nil {
			return nil, err
		}
		out := make([]ir.Type, len(keep))
		for i, j := range keep {
			out[i] = ts[j]
		}
		return out, nil
	}
}

func linalgCompositeTable() []Entry {
	l := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindExtern, Meta: meta} }
	return []Entry{
		l("linalg_inv(Tensor A) -> Tensor", results(squareWithInfo("A"), 0)),
		l("inverse(Tensor self) -> Tensor", results(squareWithInfo("self"), 0)),
		l("linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor", results(metaSolveEx, 0)),
		l("linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor", results(squareWithInfo("self"), 0)),
		l("linalg_det(Tensor A) -> Tensor", metaDetOf("A", false)),
		l("det(Tensor self) -> Tensor", metaDetOf("self", false)),
		l("logdet(Tensor self) -> Tensor", metaDetOf("self", false)),
		l("linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)", metaDetOf("A", true)),
		l("slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)", metaDetOf("self", true)),
		l(`linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)`, metaEighOf(true)),
		l(`linalg_eigvalsh(Tensor self, str UPLO="L") -> Tensor`, metaEighOf(false)),
		l("linalg_eigvals(Tensor self) -> Tensor", results(metaEig, 0)),
		l("_linalg_eigvals(Tensor self) -> Tensor", results(metaEig, 0)),
		l("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)", metaSVDOf(true)),
		l("linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor", metaSVDOf(false)),
		l("linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)", results(metaLUFactor, 0, 1)),
		l("linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (Tensor LD, Tensor pivots)", results(metaLDLFactor, 0, 1)),
		l("cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor", metaCdistForward),
		l("linalg_matrix_rank(Tensor self, float tol, bool hermitian=False) -> Tensor", metaPerMatrix(ir.I64)),
		l("linalg_matrix_rank.tol_tensor(Tensor input, Tensor tol, bool hermitian=False) -> Tensor", metaPerMatrix(ir.I64)),
		l("linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False) -> Tensor", metaPerMatrix(ir.I64)),
		l("linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor", metaPerMatrix(ir.I64)),
		l("linalg_cond(Tensor self, Scalar? p=None) -> Tensor", metaPerMatrix(ir.Invalid)),
		l("linalg_cond.p_str(Tensor self, str p) -> Tensor", metaPerMatrix(ir.Invalid)),
		l("linalg_matrix_power(Tensor self, int n) -> Tensor", metaMatrixPower),
		l("linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor", metaVecdot),
		l("kron(Tensor self, Tensor other) -> Tensor", metaKron),
		l("linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", reduction(outRealFloat)),
		l(`linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor`, reduction(outRealFloat)),
		l("linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2, -1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", reduction(outRealFloat)),
		l(`linalg_matrix_norm.str_ord(Tensor self, str ord="fro", int[] dim=[-2, -1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor`, reduction(outRealFloat)),
	}
}

// metaDetOf is det (or sign and log|det|) per batch entry of name.
func metaDetOf(name string, slog bool) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		a, batch, m, n, err := matrix(c, name)
		if err != nil {
			return nil, err
		}
		if !sym.Equal(m, n) {
			return nil, Errorf(CodeShape, "", "%s: A must be batches of square matrices, but they are %s by %s matrices", c.Op.Schema.Name, m, n)
		}
		d := env.Contiguous(a.DType, copyExprs(batch), a.Device)
		if !slog {
			return one(d), nil
		}
		return types(d, env.Contiguous(realPart(a.DType), copyExprs(batch), a.Device)), nil
	}
}

// metaEighOf is (eigenvalues, column-major eigenvectors) or the values.
func metaEighOf(vectors bool) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		a, batch, _, n, err := matrix(c, "self")
		if err != nil {
			return nil, err
		}
		vals := env.Contiguous(realPart(a.DType), with(batch, n), a.Device)
		if !vectors {
			return one(vals), nil
		}
		return types(vals, colMajor(env, a.DType, copyExprs(a.Shape), a.Device)), nil
	}
}

// metaSVDOf is linalg_svd's (U, S, Vh) or linalg_svdvals' S.
func metaSVDOf(vectors bool) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		a, batch, m, n, err := matrix(c, "A")
		if err != nil {
			return nil, err
		}
		k := sym.Min(m, n)
		s := env.Contiguous(realPart(a.DType), with(batch, k), a.Device)
		if !vectors {
			return one(s), nil
		}
		full, err := c.Bool("full_matrices")
		if err != nil {
			return nil, err
		}
		uc, vr := k, k
		if full {
			uc, vr = m, n
		}
		return types(colMajor(env, a.DType, with(batch, m, uc), a.Device), s, colMajor(env, a.DType, with(batch, vr, n), a.Device)), nil
	}
}

// metaPerMatrix is one value per matrix of the first parameter: of dtype
// dt, or (Invalid) of the input's real dtype.
func metaPerMatrix(dt ir.DType) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		a, batch, _, _, err := matrix(c, c.Op.Schema.Params[0].Name)
		if err != nil {
			return nil, err
		}
		if dt == ir.Invalid {
			return one(env.Contiguous(realPart(a.DType), copyExprs(batch), a.Device)), nil
		}
		return one(env.Contiguous(dt, copyExprs(batch), a.Device)), nil
	}
}

// metaMatrixPower is row-major like the products, except n = −1, which is
// linalg_inv's column-major result.
func metaMatrixPower(env *Env, c *Call) ([]ir.Type, error) {
	a, _, m, n, err := matrix(c, "self")
	if err != nil {
		return nil, err
	}
	if !sym.Equal(m, n) {
		return nil, Errorf(CodeShape, "", "linalg.matrix_power: A must be batches of square matrices, but they are %s by %s matrices", m, n)
	}
	if p, err := c.Int("n"); err == nil && p == -1 {
		return one(colMajor(env, a.DType, copyExprs(a.Shape), a.Device)), nil
	}
	return one(env.Contiguous(a.DType, copyExprs(a.Shape), a.Device)), nil
}

// metaVecdot is the broadcast shape without dim.
func metaVecdot(env *Env, c *Call) ([]ir.Type, error) {
	x, err := c.Tensor("x")
	if err != nil {
		return nil, err
	}
	y, err := c.Tensor("y")
	if err != nil {
		return nil, err
	}
	if x.DType != y.DType {
		return nil, Errorf(CodeDType, "", "linalg.vecdot: Expected x and y to have the same dtype, but found x of type %s and y of type %s instead", ScalarTypeName(x.DType), ScalarTypeName(y.DType))
	}
	shape, err := env.BroadcastShapes(x.Shape, y.Shape)
	if err != nil {
		return nil, err
	}
	d, err := c.Dim("dim", len(shape))
	if err != nil {
		return nil, err
	}
	var out []sym.Expr
	if len(shape) > 0 { // a 0-dim operand reduces to 0-dim
		out = append(copyExprs(shape[:d]), shape[d+1:]...)
	}
	return one(env.Contiguous(x.DType, out, x.Device)), nil
}

// metaKron multiplies the sizes of the operands padded to one rank.
func metaKron(env *Env, c *Call) ([]ir.Type, error) {
	a, err := c.Tensor("self")
	if err != nil {
		return nil, err
	}
	b, err := c.Tensor("other")
	if err != nil {
		return nil, err
	}
	r := max(a.Rank(), b.Rank())
	at := func(t *ir.TensorType, i int) sym.Expr {
		if j := i - (r - t.Rank()); j >= 0 {
			return t.Shape[j]
		}
		return sym.Const(1)
	}
	shape := make([]sym.Expr, r)
	for i := range shape {
		shape[i] = sym.Mul(at(a, i), at(b, i))
	}
	dt, err := PromoteTypes(a.DType, b.DType)
	if err != nil {
		return nil, err
	}
	return one(env.Contiguous(dt, shape, a.Device)), nil
}
