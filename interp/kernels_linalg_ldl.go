package interp

import (
	"fmt"
	"math"
)

// LDLᵀ with Bunch-Kaufman pivoting as LAPACK's sytf2 (lower) computes it
// for the matrices sytrf factors unblocked (n up to its block size, 64):
// 1×1 and 2×2 pivots chosen by α = (1+√17)/8 with |re|+|im| magnitudes
// (zsytf2's cabs1); pivots 1-based, a 2×2 block's both entries −kp. The
// symmetric (not Hermitian) factorization, for real and complex dtypes;
// sytrs solves with it.

func init() {
	register(kLDLFactor, "linalg_ldl_factor_ex")
	register(kLDLSolve, "linalg_ldl_solve")
}

// ldlBlockSize is sytrf's ILAENV block size: larger matrices are factored
// by the blocked dlasyf, which kiln does not model.
const ldlBlockSize = 64

func swapEl(a *cmat, i1, j1, i2, j2 int64) {
	x, y := a.at(i1, j1), a.at(i2, j2)
	a.set(i1, j1, y)
	a.set(i2, j2, x)
}

// imaxCol is the row of the largest cabs1 in column j, rows from..to-1
// (the first on ties, as izamax).
func imaxCol(a *cmat, j, from, to int64) int64 {
	best := from
	for i := from + 1; i < to; i++ {
		if cabs1(a.at(i, j)) > cabs1(a.at(best, j)) {
			best = i
		}
	}
	return best
}

// sytf2 factors the lower triangle of a in place; it returns the pivots
// and info.
func sytf2(a *cmat) ([]int64, int64) {
	n := a.r
	alpha := (1 + math.Sqrt(17)) / 8
	piv := make([]int64, n)
	info := int64(0)
	for k := int64(0); k < n; {
		kstep := int64(1)
		absakk := cabs1(a.at(k, k))
		imax, colmax := int64(0), 0.0
		if k < n-1 {
			imax = imaxCol(a, k, k+1, n)
			colmax = cabs1(a.at(imax, k))
		}
		kp := k
		if max(absakk, colmax) == 0 || math.IsNaN(absakk) {
			if info == 0 {
				info = k + 1
			}
		} else {
			if absakk < alpha*colmax {
				jmax := k // row imax, columns k..imax-1
				for j := k + 1; j < imax; j++ {
					if cabs1(a.at(imax, j)) > cabs1(a.at(imax, jmax)) {
						jmax = j
					}
				}
				rowmax := cabs1(a.at(imax, jmax))
				if imax < n-1 {
					jmax = imaxCol(a, imax, imax+1, n)
					rowmax = max(rowmax, cabs1(a.at(jmax, imax)))
				}
				switch {
				case absakk >= alpha*colmax*(colmax/rowmax):
				case cabs1(a.at(imax, imax)) >= alpha*rowmax:
					kp = imax
				default:
					kp, kstep = imax, 2
				}
			}
			kk := k + kstep - 1
			if kp != kk {
				for i := kp + 1; i < n; i++ {
					swapEl(a, i, kk, i, kp)
				}
				for j := kk + 1; j < kp; j++ {
					swapEl(a, j, kk, kp, j)
				}
				swapEl(a, kk, kk, kp, kp)
				if kstep == 2 {
					swapEl(a, k+1, k, kp, k)
				}
			}
			if kstep == 1 {
				if k < n-1 {
					d11 := 1 / a.at(k, k)
					for j := k + 1; j < n; j++ {
						for i := j; i < n; i++ {
							a.set(i, j, a.at(i, j)-d11*a.at(i, k)*a.at(j, k))
						}
					}
					for i := k + 1; i < n; i++ {
						a.set(i, k, a.at(i, k)*d11)
					}
				}
			} else if k < n-2 {
				d21 := a.at(k+1, k)
				d11 := a.at(k+1, k+1) / d21
				d22 := a.at(k, k) / d21
				t := 1 / (d11*d22 - 1)
				d21 = t / d21
				for j := k + 2; j < n; j++ {
					wk := d21 * (d11*a.at(j, k) - a.at(j, k+1))
					wkp1 := d21 * (d22*a.at(j, k+1) - a.at(j, k))
					for i := j; i < n; i++ {
						a.set(i, j, a.at(i, j)-a.at(i, k)*wk-a.at(i, k+1)*wkp1)
					}
					a.set(j, k, wk)
					a.set(j, k+1, wkp1)
				}
			}
		}
		if kstep == 1 {
			piv[k] = kp + 1
		} else {
			piv[k], piv[k+1] = -(kp + 1), -(kp + 1)
		}
		k += kstep
	}
	return piv, info
}

func kLDLFactor(c *call) ([]any, error) {
	a, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	herm, err := c.bool("hermitian")
	if err != nil {
		return nil, err
	}
	mb, err := readMats(a, "torch.linalg.ldl_factor_ex")
	if err != nil {
		return nil, err
	}
	if herm && a.DType.IsComplex() {
		return nil, fmt.Errorf("torch.linalg.ldl_factor_ex: the Hermitian factorization (hetrf) is not modelled")
	}
	if mb.n > ldlBlockSize {
		return nil, fmt.Errorf("torch.linalg.ldl_factor_ex: matrices larger than %d (sytrf's blocked path) are not modelled", ldlBlockSize)
	}
	var pivs, infos []int64
	for _, m := range mb.mats {
		p, info := sytf2(m)
		for i := int64(0); i < m.r; i++ { // LD keeps the lower triangle only
			for j := i + 1; j < m.c; j++ {
				m.set(i, j, 0)
			}
		}
		pivs, infos = append(pivs, p...), append(infos, info)
	}
	dev := a.Device()
	ld, err := writeMats(a.DType, mb.batch, mb.mats, mb.n, mb.n, true, dev)
	if err != nil {
		return nil, err
	}
	return []any{ld, int32Tensor(mb.shape(mb.n), pivs, dev), int32Tensor(mb.batch, infos, dev)}, nil
}

// sytrs solves A·X = B in place for A = P·L·D·Lᵀ·Pᵀ from sytf2 (lower).
func sytrs(a *cmat, piv []int64, b *cmat) {
	n := a.r
	for k := int64(0); k < n; { // L·D·Y = Pᵀ·B
		if piv[k] > 0 {
			swapRows(b, k, piv[k]-1)
			for i := k + 1; i < n; i++ {
				for j := int64(0); j < b.c; j++ {
					b.set(i, j, b.at(i, j)-a.at(i, k)*b.at(k, j))
				}
			}
			for j := int64(0); j < b.c; j++ {
				b.set(k, j, b.at(k, j)/a.at(k, k))
			}
			k++
			continue
		}
		swapRows(b, k+1, -piv[k]-1)
		for i := k + 2; i < n; i++ {
			for j := int64(0); j < b.c; j++ {
				b.set(i, j, b.at(i, j)-a.at(i, k)*b.at(k, j)-a.at(i, k+1)*b.at(k+1, j))
			}
		}
		akm1k := a.at(k+1, k)
		akm1 := a.at(k, k) / akm1k
		ak := a.at(k+1, k+1) / akm1k
		denom := akm1*ak - 1
		for j := int64(0); j < b.c; j++ {
			bkm1, bk := b.at(k, j)/akm1k, b.at(k+1, j)/akm1k
			b.set(k, j, (ak*bkm1-bk)/denom)
			b.set(k+1, j, (akm1*bk-bkm1)/denom)
		}
		k += 2
	}
	for k := n - 1; k >= 0; { // Lᵀ·X = Y, then P
		dot := func(col, row int64) {
			for j := int64(0); j < b.c; j++ {
				s := b.at(row, j)
				for i := k + 1; i < n; i++ {
					s -= a.at(i, col) * b.at(i, j)
				}
				b.set(row, j, s)
			}
		}
		if piv[k] > 0 {
			dot(k, k)
			swapRows(b, k, piv[k]-1)
			k--
			continue
		}
		dot(k, k)
		dot(k-1, k-1)
		swapRows(b, k, -piv[k]-1)
		k -= 2
	}
}

func kLDLSolve(c *call) ([]any, error) {
	ld, pv, err := c.tensor2("LD", "pivots")
	if err != nil {
		return nil, err
	}
	b, err := c.tensor("B")
	if err != nil {
		return nil, err
	}
	herm, err := c.bool("hermitian")
	if err != nil {
		return nil, err
	}
	if herm && ld.DType.IsComplex() {
		return nil, fmt.Errorf("torch.linalg.ldl_solve: the Hermitian solve (hetrs) is not modelled")
	}
	ml, mb, err := broadcastMats(ld, b, "torch.linalg.ldl_solve")
	if err != nil {
		return nil, err
	}
	n := ml.n
	pivs := contiguous(pv).Ints()
	own := ld.Shape[:ld.Dim()-2]
	out := make([]*cmat, len(mb.mats))
	for i := range mb.mats {
		src := luIndex(i, mb.batch, own)
		x := mb.mats[i].clone()
		sytrs(ml.mats[i], pivs[src*n:(src+1)*n], x)
		out[i] = x
	}
	return oneT(writeMats(b.DType, mb.batch, out, mb.m, mb.n, true, b.Device()))
}
