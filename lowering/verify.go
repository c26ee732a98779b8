package lowering

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Verify checks a Program's invariants and returns every problem found,
// joined (nil when there is none):
//
//   - an Instr argument is defined earlier in the same stage, or in an
//     earlier stage when that value is outer-level (its stage has no
//     Reduce) or an OpReduce;
//   - OpReduce appears only in stages with Reduce ranges, never combining
//     by logaddexp; OpScan only in stages with one Reduce range, combining
//     by sum, prod, max, min or logaddexp
//     (its value, like any in-loop value, is used only in its stage);
//   - index expressions mention only x<i> for i < len(Outer), r<i> for i <
//     len(stage.Reduce) (in r-stages only), the program's symbols, and
//     for an Access with Indirect, the tmps it lists;
//   - OpCall names a Fn with the right arity; BoolFns produce bool;
//   - OpStore has one argument and an Access, OpLoad an Access;
//   - OpCheck has one integer argument, a Check with a message, and a
//     bound (Expr) that mentions what an index may; nothing uses a check
//     as a value (an argument or an indirect index);
//   - every Access buffer is one of p.Buffers; instruction ids are unique
//     per kernel;
//   - every non-input buffer that is read was written by an earlier kernel;
//   - every Result's buffer exists.
func Verify(p *Program) error {
	v := &verifier{p: p, bufs: map[*Buffer]bool{}, firstWrite: firstWrites(p), syms: map[string]bool{}}
	for _, b := range p.Buffers {
		v.bufs[b] = true
	}
	for _, s := range p.Syms {
		v.syms[s] = true
	}
	// Kernels are checked on every core (each check reads only its kernel
	// and the tables above); their errors join in program order.
	errs := make([][]error, len(p.Kernels))
	pos := make(map[*Kernel]int, len(p.Kernels))
	for i, k := range p.Kernels {
		pos[k] = i
	}
	inChunks(len(p.Kernels), func(_, lo, hi int) {
		kc := &kernelCheck{v: v, ids: map[int]bool{}, where: map[*Instr]int{}}
		shared := &sharedCodeCheck{pos: pos, owners: map[*Kernel]string{}}
		for i := lo; i < hi; i++ {
			errs[i] = kc.kernel(i, p.Kernels[i])
			if err := shared.kernel(i, p.Kernels[i]); err != nil {
				errs[i] = append(errs[i], err)
			}
		}
	})
	for _, e := range errs {
		v.errs = append(v.errs, e...)
	}
	for _, r := range p.Outputs {
		if r.Buffer != nil && !v.bufs[r.Buffer] {
			v.errorf("output %s: buffer %s is not in the program", r.Name, r.Buffer.Name)
		}
	}
	for _, in := range p.Inputs {
		if in.Buffer != nil && !v.bufs[in.Buffer] {
			v.errorf("input %s: buffer %s is not in the program", in.Name, in.Buffer.Name)
		}
	}
	return errors.Join(v.errs...)
}

// firstWrites maps each buffer a kernel writes (a store, an extern's
// output) to the first such kernel's index.
func firstWrites(p *Program) map[*Buffer]int {
	first := map[*Buffer]int{}
	note := func(b *Buffer, i int) {
		if _, ok := first[b]; !ok && b != nil {
			first[b] = i
		}
	}
	for i, k := range p.Kernels {
		if k.Extern != nil {
			for _, w := range k.Extern.Written() {
				note(w, i)
			}
		}
		for _, s := range k.Stages {
			for _, in := range s.Body {
				if in.Op == OpStore && in.Access != nil {
					note(in.Access.Buffer, i)
				}
			}
		}
	}
	return first
}

type verifier struct {
	p          *Program
	bufs       map[*Buffer]bool
	firstWrite map[*Buffer]int // the first kernel that writes each buffer
	syms       map[string]bool
	errs       []error
}

func (v *verifier) errorf(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf(format, args...))
}

// kernelCheck is the state of one kernel's check; a chunk of kernels
// reuses one, its maps cleared per kernel (two fresh maps per kernel were
// 85 MB of a 146k-node compile's allocation).
type kernelCheck struct {
	v     *verifier
	k     *Kernel
	ids   map[int]bool
	where map[*Instr]int // defining stage of each instruction seen
	index int            // k's place in the program
	errs  []error
	names []string // scratch for the names an expression mentions
}

// kernel checks kernel i, k, and returns its errors.
func (kc *kernelCheck) kernel(i int, k *Kernel) []error {
	if len(kc.where) > 1024 { // clear costs the map's capacity: start a small one
		kc.ids, kc.where = map[int]bool{}, map[*Instr]int{}
	}
	clear(kc.ids)
	clear(kc.where)
	kc.k, kc.index, kc.errs = k, i, nil
	for _, r := range k.Outer {
		kc.size("outer range", r)
	}
	for _, s := range k.Stages {
		for _, r := range s.Reduce {
			kc.size("reduce range", r)
		}
	}
	if k.Extern != nil {
		kc.extern(k.Extern)
	}
	for si, s := range k.Stages {
		for _, in := range s.Body {
			kc.instr(si, s, in)
		}
	}
	if len(kc.errs) == 0 {
		kc.serial(k)
	}
	return kc.errs
}

// serial checks a Serial kernel's promises: unvectorized (lanes would run
// one instruction for several iterations at once), and split only along
// dims its indices prove apart.
func (kc *kernelCheck) serial(k *Kernel) {
	if k.Serial && k.Vec > 1 {
		kc.errorf("serial kernel with vec=%d", k.Vec)
	}
	if len(k.Split) == 0 {
		return
	}
	proven := serialSplit(k)
	for _, d := range k.Split {
		if !k.Serial || !slices.Contains(proven, d) {
			kc.errorf("split along x%d, which its indices do not prove apart (proven: %v, serial %v)", d, proven, k.Serial)
		}
	}
}

func (kc *kernelCheck) errorf(format string, args ...any) {
	kc.errs = append(kc.errs, fmt.Errorf("%s: "+format, append([]any{kc.k.Name}, args...)...))
}

func (kc *kernelCheck) extern(e *Extern) {
	if len(kc.k.Stages) > 0 || len(kc.k.Outer) > 0 {
		kc.errorf("extern kernel has loops")
	}
	for i, a := range e.Args {
		if a.Buffer != nil {
			kc.read(a.Buffer, fmt.Sprintf("extern arg %d", i))
		}
	}
	if len(e.Written()) == 0 {
		kc.errorf("extern call writes no output")
	}
	seen := map[*Buffer]bool{}
	for i, o := range e.Outs {
		switch {
		case o.Buffer == nil:
		case !kc.v.bufs[o.Buffer]:
			kc.errorf("extern output %d: buffer %s is not in the program", i, o.Buffer.Name)
		case seen[o.Buffer]:
			kc.errorf("extern output %d: buffer %s is written by another output of the call", i, o.Buffer.Name)
		}
		seen[o.Buffer] = true
	}
}

// writtenBefore says whether a kernel before this one writes b.
func (kc *kernelCheck) writtenBefore(b *Buffer) bool {
	i, ok := kc.v.firstWrite[b]
	return ok && i < kc.index
}

// read checks a buffer a kernel reads: in the program, and written before
// unless it is an input.
func (kc *kernelCheck) read(b *Buffer, what any) {
	switch {
	case !kc.v.bufs[b]:
		kc.errorf("%v: buffer %s is not in the program", what, b.Name)
	case b.Kind != BufInput && !kc.writtenBefore(b):
		kc.errorf("%v: buffer %s is read before any kernel writes it", what, b.Name)
	}
}

// tmpName is an instruction's name in messages, formatted only when one
// is written (most kernels have none: a string per instruction was a
// tenth of the check).
type tmpName int

func (t tmpName) String() string { return "tmp" + strconv.Itoa(int(t)) }

func (kc *kernelCheck) instr(si int, s *Stage, in *Instr) {
	name := tmpName(in.ID)
	if kc.ids[in.ID] {
		kc.errorf("%s: id defined twice", name)
	}
	kc.ids[in.ID] = true
	for _, a := range in.Args {
		kc.arg(si, name, a)
	}
	kc.shape(si, s, name, in)
	if in.Access != nil {
		kc.access(s, name, in)
	}
	if in.Op == OpIndex || in.Op == OpCheck {
		kc.expr(s, name, in.Expr, nil)
	}
	kc.where[in] = si
}

// arg checks that a is visible at stage si.
func (kc *kernelCheck) arg(si int, name tmpName, a *Instr) {
	if a == nil {
		kc.errorf("%s: nil argument", name)
		return
	}
	at, ok := kc.where[a]
	switch {
	case a.Op == OpCheck:
		kc.errorf("%s: argument tmp%d is a check, which has no value", name, a.ID)
	case !ok:
		kc.errorf("%s: argument tmp%d is not defined before it", name, a.ID)
	case at < si && len(kc.k.Stages[at].Reduce) > 0 && a.Op != OpReduce:
		kc.errorf("%s: argument tmp%d lives only inside stage %d's reduction loop", name, a.ID, at)
	}
}

// arity lists the argument counts of the opcodes other than OpCall.
var arity = map[Opcode]int{OpLoad: 0, OpStore: 1, OpConst: 0, OpIndex: 0, OpCast: 1, OpBitcast: 1, OpReduce: 1, OpCheck: 1, OpScan: 1}

// shape checks an instruction's opcode-specific form.
func (kc *kernelCheck) shape(si int, s *Stage, name tmpName, in *Instr) {
	if !in.DType.Valid() {
		kc.errorf("%s: invalid dtype", name)
	}
	if n, ok := arity[in.Op]; ok && len(in.Args) != n {
		kc.errorf("%s: %s takes %d argument(s), has %d", name, in.Op, n, len(in.Args))
	}
	switch in.Op {
	case OpLoad, OpStore:
		if in.Access == nil {
			kc.errorf("%s: %s without an access", name, in.Op)
		}
	case OpCall:
		n, ok := Fns[in.Fn]
		switch {
		case !ok:
			kc.errorf("%s: unknown function %q", name, in.Fn)
		case n != len(in.Args):
			kc.errorf("%s: %s takes %d argument(s), has %d", name, in.Fn, n, len(in.Args))
		case BoolFns[in.Fn] && in.DType != ir.Bool:
			kc.errorf("%s: %s produces bool, not %s", name, in.Fn, in.DType.Abbr())
		}
		if dt, ok := RandFns[in.Fn]; ok {
			kc.randCall(name, in, dt)
		}
	case OpReduce:
		if len(s.Reduce) == 0 {
			kc.errorf("%s: reduce in outer-level stage %d", name, si)
		}
		if in.Reduce == ReduceLogAddExp {
			kc.errorf("%s: reduce by logaddexp, which only scans combine by", name)
		}
	case OpScan:
		if len(s.Reduce) != 1 {
			kc.errorf("%s: scan in stage %d, which has %d reduce ranges (want 1)", name, si, len(s.Reduce))
		}
		if !ScanOps[in.Reduce] {
			kc.errorf("%s: scan by %s (want sum, prod, max, min or logaddexp)", name, in.Reduce)
		}
	case OpCheck:
		kc.checkInstr(name, in)
	case OpBitcast:
		if len(in.Args) == 1 && in.Args[0] != nil && in.Args[0].DType.ItemSize() != in.DType.ItemSize() {
			kc.errorf("%s: bitcast between sizes %d and %d", name, in.Args[0].DType.ItemSize(), in.DType.ItemSize())
		}
	}
}

func (kc *kernelCheck) access(s *Stage, name tmpName, in *Instr) {
	a := in.Access
	if a.Buffer == nil {
		kc.errorf("%s: access without a buffer", name)
		return
	}
	var tmps map[string]bool
	if len(a.Indirect) > 0 {
		tmps = map[string]bool{}
		for _, t := range a.Indirect {
			if t == nil {
				kc.errorf("%s: nil indirect index", name)
				continue
			}
			if _, ok := kc.where[t]; !ok {
				kc.errorf("%s: indirect index tmp%d is not defined before it", name, t.ID)
			}
			if t.Op == OpCheck {
				kc.errorf("%s: indirect index tmp%d is a check, which has no value", name, t.ID)
			}
			tmps["tmp"+strconv.Itoa(t.ID)] = true
		}
	}
	kc.expr(s, name, a.Index, tmps)
	if in.Op == OpStore {
		if !kc.v.bufs[a.Buffer] {
			kc.errorf("%s: buffer %s is not in the program", name, a.Buffer.Name)
		}
		return
	}
	kc.read(a.Buffer, name)
}

// expr checks the names an index expression mentions. Names are gathered
// into a scratch slice (Free sorts a slice of its own per index); only an
// index with a bad name is walked again, in Free's order, for the messages.
func (kc *kernelCheck) expr(s *Stage, name tmpName, e sym.Expr, tmps map[string]bool) {
	kc.names = e.AppendFree(kc.names[:0])
	if !slices.ContainsFunc(kc.names, func(f string) bool { return !kc.nameOK(s, f, tmps) }) {
		return
	}
	for _, f := range e.Free() {
		switch {
		case kc.nameOK(s, f, tmps):
		case loopIndex(f, "x") >= 0:
			kc.errorf("%s: index %s uses %s, but the kernel has %d outer range(s)", name, e, f, len(kc.k.Outer))
		case loopIndex(f, "r") >= 0:
			kc.errorf("%s: index %s uses %s, but the stage has %d reduce range(s)", name, e, f, len(s.Reduce))
		default:
			kc.errorf("%s: index %s uses %s, which is not a loop variable or program symbol", name, e, f)
		}
	}
}

// nameOK reports whether an index of stage s may mention f: a program
// symbol, an indirect-index temporary, or a loop variable in range.
func (kc *kernelCheck) nameOK(s *Stage, f string, tmps map[string]bool) bool {
	switch {
	case kc.v.syms[f], tmps[f]:
		return true
	case loopIndex(f, "x") >= 0:
		return loopIndex(f, "x") < len(kc.k.Outer)
	case loopIndex(f, "r") >= 0:
		return loopIndex(f, "r") < len(s.Reduce)
	}
	return false
}

// loopIndex is i for a name prefix<i>, -1 otherwise.
func loopIndex(name, prefix string) int {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" {
		return -1
	}
	i, err := strconv.Atoi(rest)
	if err != nil {
		return -1
	}
	return i
}

// size checks that a range size mentions program symbols only.
func (kc *kernelCheck) size(what string, e sym.Expr) {
	for _, f := range e.Free() {
		if !kc.v.syms[f] {
			kc.errorf("%s %s uses %s, which is not a program symbol", what, e, f)
		}
	}
}

// checkInstr checks an OpCheck's form: an integer operand and a message.
func (kc *kernelCheck) checkInstr(name tmpName, in *Instr) {
	if len(in.Args) == 1 && in.Args[0] != nil && !in.Args[0].DType.IsInt() {
		kc.errorf("%s: check of a %s value, not an integer index", name, in.Args[0].DType.Abbr())
	}
	if in.Check == nil || in.Check.Msg == "" {
		kc.errorf("%s: check without a message", name)
	}
	if in.Access != nil {
		kc.errorf("%s: check with an access", name)
	}
}

// randCall checks a RandFns call: int64 operands, the function's result type.
func (kc *kernelCheck) randCall(name tmpName, in *Instr, dt ir.DType) {
	if in.DType != dt {
		kc.errorf("%s: %s produces %s, not %s", name, in.Fn, dt.Abbr(), in.DType.Abbr())
	}
	for i, a := range in.Args {
		if a != nil && a.DType != ir.I64 {
			kc.errorf("%s: %s operand %d is %s, not i64", name, in.Fn, i, a.DType.Abbr())
		}
	}
}
