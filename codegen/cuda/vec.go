package cuda

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// maxVectorBytes is the widest global load or store a thread issues
// (ld.global.v4.f32, ld.global.v4.u32).
const maxVectorBytes = 16

// vecPlan is how a kernel uses the vector width the align pass proved
// (Kernel.Vec): each thread handles lanes consecutive indices of the
// innermost outer variable, and the accesses in vec are read or written
// with vector instructions; notes say why each access is (or is not).
type vecPlan struct {
	lanes int
	inner string // the innermost outer variable ("x1")
	why   string // why the kernel is (not) vectorized
	vec   map[*lowering.Access]vecAccess
	notes []string
}

// vecAccess is one vectorized access: chunks loads or stores of ctype,
// each chunkElems elements wide.
type vecAccess struct {
	ctype      string
	chunkBytes int
	chunkElems int
	chunks     int
}

// planVector decides, per access, between vector and scalar instructions.
// A vector access needs all of: Kernel.Vec > 1 (the align pass proved the
// kernel's values aligned for that width), an innermost range that is a
// multiple of Vec (lanes never straddle a row), an index with coefficient
// 1 on the innermost variable (contiguous lanes) whose remaining part is a
// multiple of Vec for every value of the other variables and symbols
// (lane 0 is aligned), and a buffer base aligned to the vector's bytes.
func planVector(k *lowering.Kernel) *vecPlan {
	pl := &vecPlan{lanes: 1, vec: map[*lowering.Access]vecAccess{}}
	n := len(k.Outer)
	switch {
	case k.Vec <= 1:
		pl.why = "scalar: the align pass proved no vector width (vec=1)"
		return pl
	case n == 0:
		pl.why = "scalar: no outer ranges"
		return pl
	case k.Vec&(k.Vec-1) != 0:
		pl.why = fmt.Sprintf("scalar: vec=%d is not a power of two", k.Vec)
		return pl
	}
	pl.inner = lowering.OuterVar(n - 1)
	if !multipleOf(k.Outer[n-1], k.Vec) {
		pl.why = fmt.Sprintf("scalar: innermost range %s is not a multiple of vec=%d", k.Outer[n-1], k.Vec)
		return pl
	}
	pl.lanes = k.Vec
	pl.why = fmt.Sprintf("%d lanes per thread along %s (vector width %d proved by the align pass)", k.Vec, pl.inner, k.Vec)
	for _, s := range k.Stages {
		for _, in := range s.Body {
			if in.Access == nil {
				continue
			}
			va, reason := pl.access(in.Access)
			kind := "load"
			if in.Op == lowering.OpStore {
				kind = "store"
			}
			if reason == "" {
				pl.vec[in.Access] = va
				pl.notes = append(pl.notes, fmt.Sprintf("vector %s %s: %d x %s", kind, accessText(in.Access), va.chunks, va.ctype))
			} else {
				pl.notes = append(pl.notes, fmt.Sprintf("scalar %s %s: %s", kind, accessText(in.Access), reason))
			}
		}
	}
	return pl
}

// access checks one access; reason is "" when it can be vectorized.
func (pl *vecPlan) access(a *lowering.Access) (vecAccess, string) {
	v := pl.lanes
	if len(a.Indirect) > 0 {
		return vecAccess{}, "indirect index"
	}
	coeffs, rest, ok := sym.Linear(a.Index, []string{pl.inner})
	if !ok {
		return vecAccess{}, "index is not affine in " + pl.inner
	}
	if c, isConst := coeffs[0].Const(); !isConst || c != 1 {
		return vecAccess{}, fmt.Sprintf("stride %s along %s, not 1", coeffs[0], pl.inner)
	}
	if !multipleOf(rest, v) {
		return vecAccess{}, fmt.Sprintf("element offset %s is not a multiple of %d", rest, v)
	}
	isz := a.DType.ItemSize()
	bytes := v * isz
	if bytes < 4 {
		return vecAccess{}, fmt.Sprintf("%d lanes of %d bytes are narrower than a 4-byte word", v, isz)
	}
	chunk := min(bytes, maxVectorBytes)
	if a.Buffer.Align <= 0 || a.Buffer.Align%chunk != 0 {
		return vecAccess{}, fmt.Sprintf("buffer %s is only %d-byte aligned", a.Buffer.Name, a.Buffer.Align)
	}
	return vecAccess{ctype: vectorType(a.DType, chunk), chunkBytes: chunk, chunkElems: chunk / isz, chunks: bytes / chunk}, ""
}

// vectorType is the C type of one vector chunk: float4/float2 for f32
// (ld.global.v4.f32), unsigned words otherwise.
func vectorType(dt ir.DType, bytes int) string {
	if dt == ir.F32 {
		return map[int]string{16: "float4", 8: "float2", 4: "float"}[bytes]
	}
	return map[int]string{16: "uint4", 8: "uint2", 4: "unsigned int"}[bytes]
}

// multipleOf reports that w divides every value e takes.
func multipleOf(e sym.Expr, w int) bool {
	d := e.Divisor()
	return d == 0 || d%int64(w) == 0
}

func accessText(a *lowering.Access) string {
	s := fmt.Sprintf("%s[%s]", a.Buffer.Name, a.Index)
	if a.DType != a.Buffer.DType {
		s += ".as(" + a.DType.Abbr() + ")"
	}
	return s
}
