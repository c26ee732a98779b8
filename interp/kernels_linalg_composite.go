package interp

import (
	"math"
	"math/cmplx"
)

// The composite linear algebra entry points a Dynamo-level graph calls
// (torch.linalg.inv is aten::linalg_inv, torch.det aten::det): PyTorch
// implements each on one of the kernels above, so each is that kernel
// with its parameters renamed or fixed and some of its results.

// via runs k with the parameters over (a string value names another
// parameter of this call: {"A": "self"}) and keeps the results keep.
func via(k kernel, over map[string]any, keep ...int) kernel {
	return func(c *call) ([]any, error) {
		o := map[string]any{}
		for name, v := range over {
			if from, ok := v.(string); ok && c.has(from) {
				x, err := c.val(from)
				if err != nil {
					return nil, err
				}
				v = x
			}
			o[name] = v
		}
		outs, err := k(c.with(o))
		if err != nil {
			return nil, err
		}
		res := make([]any, len(keep))
		for i, j := range keep {
			res[i] = outs[j]
		}
		return res, nil
	}
}

func init() {
	register(via(kInvEx, map[string]any{"check_errors": false}, 0), "linalg_inv")
	register(via(kInvEx, map[string]any{"A": "self", "check_errors": false}, 0), "inverse")
	register(via(kSolveEx, map[string]any{"check_errors": false}, 0), "linalg_solve")
	register(via(kCholeskyEx, map[string]any{"check_errors": false}, 0), "linalg_cholesky")
	register(via(detKernel(false), nil, 0), "linalg_det")
	register(via(detKernel(false), map[string]any{"A": "self"}, 0), "det")
	register(via(detKernel(true), nil, 0, 1), "linalg_slogdet")
	register(via(detKernel(true), map[string]any{"A": "self"}, 0, 1), "slogdet")
	register(kLogdet, "logdet")
	register(via(kEigh, map[string]any{"A": "self", "compute_v": true}, 0, 1), "linalg_eigh")
	register(via(kEigh, map[string]any{"A": "self", "compute_v": false}, 0), "linalg_eigvalsh")
	register(via(kEig, nil, 0), "linalg_eigvals", "_linalg_eigvals")
	register(via(kSVD, map[string]any{"compute_uv": true}, 0, 1, 2), "linalg_svd")
	register(via(kSVD, map[string]any{"full_matrices": false, "compute_uv": false}, 1), "linalg_svdvals")
	register(via(kLUFactor, map[string]any{"check_errors": false}, 0, 1), "linalg_lu_factor")
	register(via(kLDLFactor, map[string]any{"check_errors": false}, 0, 1), "linalg_ldl_factor")
	register(kCdistForward, "cdist")
}

// kLogdet is log(det): from slogdet, log|det| where the sign is 1, NaN
// where it is −1 (real), log(sign) + log|det| for complex.
func kLogdet(c *call) ([]any, error) {
	outs, err := det(c.with(map[string]any{"A": mustVal(c, "self")}), true)
	if err != nil {
		return nil, err
	}
	sign, logabs := outs[0].(*Tensor), outs[1].(*Tensor)
	s, l := readComplex(sign), readComplex(logabs)
	out := make([]complex128, len(s))
	for i := range s {
		switch {
		case sign.DType.IsComplex():
			out[i] = cmplx.Log(s[i]) + l[i]
		case real(s[i]) < 0:
			out[i] = complex(math.NaN(), 0)
		default:
			out[i] = l[i]
		}
	}
	return oneT(writeComplex(sign.DType, sign.Shape, out, false, sign.Device()))
}

func mustVal(c *call, name string) any {
	x, err := c.val(name)
	if err != nil {
		return nil
	}
	return x
}
