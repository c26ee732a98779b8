"""Linear algebra cases for tools/opcases/gen.py: the argument variants of
issue 11's linalg kernels that the OpInfo conformance data does not reach
(only outputs PyTorch defines uniquely: no singular or eigenvectors)."""
import torch

aten = torch.ops.aten


def linalg_cases(gen, case, single):
    def cgen(n, *shape):
        return torch.complex(gen(n, *shape), gen(n + 1000, *shape)).to(torch.complex64)

    out = []
    a44 = gen(60, 4, 4) + 4 * torch.eye(4)
    b42 = gen(61, 4, 2)
    out.append(case("triangular_solve_lower_transpose_unit", lambda b, a: aten.triangular_solve(b, a, False, True, True), b42, a44))
    out.append(case("triangular_solve_lower", lambda b, a: aten.triangular_solve(b, a, False), b42, a44))
    out.append(case("solve_ex_right", lambda a, b: aten._linalg_solve_ex(a, b, left=False), a44, gen(62, 3, 4)))
    c43 = cgen(63, 4, 3)
    out.append(case("pinv_atol_only", lambda a, t: aten.linalg_pinv.atol_rtol_tensor(a, atol=t), gen(64, 5, 3), torch.tensor(0.5)))
    out.append(case("pinv_complex", lambda a: aten.linalg_pinv.atol_rtol_tensor(a), c43))
    lu, piv = torch.linalg.lu_factor(gen(65, 3, 4))
    out.append(case("lu_unpack_no_data", lambda l, p: aten.lu_unpack(l, p, False, True), lu, piv))
    sym = gen(66, 5, 5)
    sym = sym + sym.mT
    out.append(case("ldl_factor_hermitian_real", lambda a: aten.linalg_ldl_factor_ex(a, hermitian=True), sym))
    out.append(case("polar_tall", lambda a: aten.linalg_polar(a), gen(67, 5, 3)))
    out.append(case("polar_complex", lambda a: aten.linalg_polar(a), c43))
    spd = cgen(68, 2, 3, 3)
    spd = spd @ spd.mH + 3 * torch.eye(3)
    out.append(case("cholesky_upper_complex_batch", lambda a: aten.linalg_cholesky_ex(a, upper=True), spd))
    out.append(case("cholesky_inverse_upper", lambda a: aten.cholesky_inverse(a, True), torch.linalg.cholesky(spd, upper=True)))
    out.append(case("matrix_exp_small", lambda a: aten.linalg_matrix_exp(a), gen(69, 3, 3, lo=-0.5, hi=0.5)))
    out.append(case("vector_norm_complex_inf", lambda a: aten.linalg_vector_norm(a, float("inf"), [1]), c43))
    q, tau = torch.geqrf(cgen(70, 4, 3))
    out.append(case("ormqr_right_conj", lambda a, t, c: aten.ormqr(a, t, c, False, True), q, tau, cgen(71, 2, 4)))
    # Decompositions through what they define uniquely: singular values,
    # U·S·Vh, projectors onto the spaces full_matrices adds, eigh's values
    # and V·diag(w)·Vᴴ.
    def svd_wide(a):
        u, s, vh = aten._linalg_svd(a, True)
        return s, u @ torch.diag(s).to(a.dtype) @ vh[:2], vh[2:].mH @ vh[2:]

    def outer_h(x, y):
        # x·yᴴ in real arithmetic (interp does not model the conj bit)
        xr, xi = torch.view_as_real(x).unbind(-1)
        yr, yi = torch.view_as_real(y).unbind(-1)
        return xr @ yr.mT + xi @ yi.mT, xi @ yr.mT - xr @ yi.mT

    def svd_tall(a):
        u, s, vh = aten._linalg_svd(a, True)
        return (s, *outer_h(u[:, 2:], u[:, 2:]))

    def eigh_upper(a):
        w, v = aten._linalg_eigh(a, "U")
        return (w, *outer_h(v * w.to(a.dtype), v))

    out.append(case("svd_full_wide", svd_wide, gen(77, 2, 4)))
    out.append(case("svd_full_tall_complex", svd_tall, cgen(78, 4, 2)))
    out.append(case("eigh_upper_complex", eigh_upper, cgen(79, 3, 3)))
    out.append(case("dist_inf_broadcast", lambda a, b: aten.dist(a, b, float("inf")), gen(80, 2, 3), gen(81, 3)))
    # Pairwise distances: the norms and modes OpInfo's cdist samples (p=1) miss.
    x1, x2 = gen(72, 2, 4, 3), gen(73, 1, 5, 3)
    def fwd(p):
        return lambda a, b: aten._cdist_forward(a, b, p, 2)

    def bwd(p):
        return lambda g, a, b, d: aten._cdist_backward(g, a, b, p, d)

    for p in (0.0, 0.5, 2.0, 3.0, float("inf")):
        out.append(case(f"cdist_p{p}", fwd(p), x1, x2))
    out.append(case("cdist_p2_mm", lambda a, b: aten._cdist_forward(a, b, 2.0, 1), x1, x2))
    g = gen(74, 2, 4, 5)
    for p in (0.5, 2.0, 3.0, float("inf")):
        d = aten._cdist_forward(x1, x2, p, 2)
        out.append(case(f"cdist_backward_p{p}", bwd(p), g, x1, x2, d))
    pd_x = gen(75, 4, 3)
    out.append(case("pdist_inf", lambda a: aten._pdist_forward(a, float("inf")), pd_x))
    out.append(case("pdist_backward_p3", lambda g, a, d: aten._pdist_backward(g, a, 3.0, d), gen(76, 6), pd_x, aten._pdist_forward(pd_x, 3.0)))
    # Composite entry points of Dynamo-level graphs (torch.linalg.inv is
    # aten::linalg_inv), one node each.
    spd3 = gen(82, 2, 3, 3)
    spd3 = spd3 @ spd3.mT + 3 * torch.eye(3)
    rhs = gen(83, 2, 3, 2)
    out.append(single("linalg_inv", aten.linalg_inv.default, (spd3,)))
    out.append(single("inverse", aten.inverse.default, (spd3,)))
    out.append(single("linalg_solve", aten.linalg_solve.default, (spd3, rhs)))
    out.append(single("linalg_cholesky_upper", aten.linalg_cholesky.default, (spd3,), {"upper": True}))
    out.append(single("linalg_det", aten.linalg_det.default, (gen(84, 2, 3, 3),)))
    out.append(single("det", aten.det.default, (gen(84, 2, 3, 3),)))
    out.append(single("logdet", aten.logdet.default, (gen(84, 2, 3, 3),)))
    out.append(single("slogdet", aten.slogdet.default, (gen(84, 2, 3, 3),)))
    out.append(single("linalg_slogdet_complex", aten.linalg_slogdet.default, (cgen(85, 3, 3),)))
    out.append(single("linalg_eigvalsh", aten.linalg_eigvalsh.default, (spd3,)))
    out.append(single("linalg_eigh_types", aten.linalg_eigh.default, (spd3,), values=False))
    out.append(single("linalg_svdvals", aten.linalg_svdvals.default, (gen(86, 2, 3, 5),)))
    out.append(single("linalg_svd_types", aten.linalg_svd.default, (gen(86, 2, 3, 5),), values=False))
    out.append(single("linalg_eigvals_triangular", aten.linalg_eigvals.default, (torch.triu(gen(87, 4, 4)),)))
    out.append(single("linalg_lu_factor", aten.linalg_lu_factor.default, (gen(88, 2, 3, 4),)))
    out.append(single("linalg_ldl_factor", aten.linalg_ldl_factor.default, (sym,)))
    out.append(single("cdist", aten.cdist.default, (gen(89, 2, 4, 3), gen(90, 5, 3))))
    # Norms: linalg_norm picks the matrix or the vector norm.
    m34 = gen(100, 2, 3, 4)
    for name, op, kw in [
        ("linalg_norm_default", aten.linalg_norm.default, {}),
        ("linalg_norm_vec_dim", aten.linalg_norm.default, {"ord": 3, "dim": [-1], "keepdim": True}),
        ("linalg_norm_mat_inf", aten.linalg_norm.default, {"ord": float("inf"), "dim": [0, 2]}),
        ("linalg_norm_nuc", aten.linalg_norm.ord_str, {"ord": "nuc", "dim": [1, 2]}),
        ("matrix_norm_2", aten.linalg_matrix_norm.default, {"ord": 2}),
        ("matrix_norm_neg2_keepdim", aten.linalg_matrix_norm.default, {"ord": -2, "keepdim": True}),
        ("matrix_norm_1_dims", aten.linalg_matrix_norm.default, {"ord": 1, "dim": [2, 0]}),
        ("matrix_norm_neg_inf_keepdim", aten.linalg_matrix_norm.default, {"ord": float("-inf"), "keepdim": True}),
        ("matrix_norm_fro_f64", aten.linalg_matrix_norm.str_ord, {"dtype": torch.float64}),
    ]:
        out.append(single(name, op, (m34,), kw))
    out.append(single("matrix_norm_complex_nuc", aten.linalg_matrix_norm.str_ord, (cgen(101, 3, 3),), {"ord": "nuc"}))
    # Rank and condition number.
    low = gen(102, 2, 4, 2) @ gen(103, 2, 2, 4)
    out.append(single("matrix_rank_default", aten.linalg_matrix_rank.atol_rtol_tensor, (low,)))
    out.append(single("matrix_rank_tol", aten.linalg_matrix_rank.default, (low, 0.5)))
    out.append(single("matrix_rank_atol_rtol_float", aten.linalg_matrix_rank.atol_rtol_float, (low,), {"atol": 0.1, "rtol": 0.01}))
    out.append(single("matrix_rank_hermitian", aten.linalg_matrix_rank.atol_rtol_tensor, (low @ low.mT,), {"hermitian": True}))
    out.append(single("cond_default", aten.linalg_cond.default, (spd3,)))
    out.append(single("cond_neg2", aten.linalg_cond.default, (spd3, -2)))
    out.append(single("cond_1", aten.linalg_cond.default, (spd3, 1)))
    out.append(single("cond_fro", aten.linalg_cond.p_str, (spd3, "fro")))
    # Matrix powers, vecdot, kron.
    for k in (0, 1, 3, -1, -2):
        out.append(single(f"matrix_power_{k}", aten.linalg_matrix_power.default, (spd3, k)))
    out.append(single("vecdot_complex_broadcast", aten.linalg_vecdot.default, (cgen(104, 2, 3, 4), cgen(105, 3, 4))))
    out.append(single("vecdot_dim0", aten.linalg_vecdot.default, (gen(106, 3, 2), gen(107, 3, 2)), {"dim": 0}))
    out.append(single("kron_ranks", aten.kron.default, (gen(108, 2, 3), gen(109, 4, 1, 2))))
    out.append(single("kron_int", aten.kron.default, (gen(110, 2, 2, dtype=torch.int64, lo=-5, hi=5), gen(111, 3, dtype=torch.int64, lo=-5, hi=5))))
    # Double precision (torch.testing's f64 tolerance is 1e-7).
    def dgen(n, *shape):
        return gen(n, *shape, dtype=torch.float64)

    def zgen(n, *shape):
        return torch.complex(dgen(n, *shape), dgen(n + 1000, *shape))

    zspd = zgen(91, 4, 4)
    zspd = zspd @ zspd.mH + 4 * torch.eye(4, dtype=torch.complex128)
    out.append(case("qr_f64_complete", lambda a: aten.linalg_qr(a, "complete"), dgen(92, 5, 3)))
    out.append(case("lu_factor_c128", lambda a: aten.linalg_lu_factor_ex(a), zgen(93, 4, 4)))
    out.append(single("svdvals_f64", aten.linalg_svdvals.default, (dgen(94, 3, 6),)))
    out.append(single("eigvalsh_c128", aten.linalg_eigvalsh.default, (zspd,)))
    out.append(case("pinv_f64", lambda a: aten.linalg_pinv.atol_rtol_tensor(a), dgen(95, 3, 5)))
    out.append(case("matrix_exp_f64", lambda a: aten.linalg_matrix_exp(a), dgen(96, 4, 4)))
    out.append(case("cholesky_solve_c128", lambda b, l: aten.cholesky_solve(b, l), zgen(97, 4, 2), torch.linalg.cholesky(zspd)))
    out.append(case("ldl_factor_f64", lambda a: aten.linalg_ldl_factor_ex(a), sym.double()))
    out.append(case("geqrf_c128", lambda a: aten.geqrf(a), zgen(98, 3, 4)))
    out.append(case("householder_product_f64", lambda a, t: aten.linalg_householder_product(a, t), *torch.geqrf(dgen(99, 5, 3))))
    return out
