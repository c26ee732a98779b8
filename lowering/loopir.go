package lowering

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// The loop IR, after Inductor's: a Program is buffers plus kernels in run
// order. A kernel iterates over its outer ranges (loop variables x0, x1, ...)
// and, for each outer index, runs its stages in order. A stage either runs
// once per outer index (no Reduce ranges) or loops over its own reduction
// ranges (r0, r1, ...). A stage's body is a scalar SSA DAG of Instrs:
// loads and stores index a buffer by an expression of the loop variables in
// which every view has been folded, so views never move data.
//
// Multi-stage kernels are what fusion builds: softmax is one kernel whose
// stages are "max over r", "sum of exp over r", "store exp/sum over r", the
// way Inductor's looped reductions read. A Reduce instruction's value is
// available to every later stage; any other value of an r-stage lives only
// inside that stage's loop, an OpScan's (a cumsum's running total) too.

// OuterVar and ReduceVar name loop variables in index expressions.
func OuterVar(i int) string  { return "x" + itoa(i) }
func ReduceVar(i int) string { return "r" + itoa(i) }

// Program is one lowered graph.
type Program struct {
	Name string
	// Syms are the size symbols (s0, u0, ...) that ranges and indexes use,
	// sorted; the generated code binds them from input shapes or arguments.
	Syms    []string
	Buffers []*Buffer // every buffer, inputs first, by ID
	Inputs  []*Param  // one per graph input, in order
	Outputs []*Result // one per graph output, in order
	Kernels []*Kernel // run order
	// Remarks say what the scheduler fused and why something did not.
	Remarks []string
}

// BufferKind is where a buffer's memory comes from.
type BufferKind uint8

const (
	BufIntermediate BufferKind = iota // allocated by the program, dead after its last reader
	BufInput                          // a graph input's storage, owned by the caller
	BufOutput                         // allocated by the program and returned
)

func (k BufferKind) String() string {
	return [...]string{"intermediate", "input", "output"}[k]
}

// Buffer is one storage: a graph input's storage or a tensor a kernel writes.
// A view of a buffer is never a buffer of its own.
type Buffer struct {
	ID    int
	Name  string   // the graph input's name for inputs, "buf<ID>" otherwise
	DType ir.DType // the element type it is allocated as
	Size  sym.Expr // in elements of DType
	Kind  BufferKind
	// Align is the alignment in bytes proven for the buffer's base: 64 for
	// buffers the program allocates, what the align pass assumed for inputs.
	Align int
	// ReuseOf, set by buffer planning, is the dead buffer whose memory this
	// one takes over; nil for a fresh allocation.
	ReuseOf *Buffer
}

// Bytes is the buffer's size in bytes.
func (b *Buffer) Bytes() sym.Expr { return sym.Mul(b.Size, sym.Const(int64(b.DType.ItemSize()))) }

// Layout is how a tensor value sits in its buffer: element type (which may
// differ from the buffer's after view.dtype), sizes, strides and storage
// offset, all in elements of DType.
type Layout struct {
	DType   ir.DType
	Shape   []sym.Expr
	Strides []sym.Expr
	Offset  sym.Expr
}

// Index is the buffer index of the element at idx (one expression per dim).
func (l Layout) Index(idx []sym.Expr) sym.Expr {
	e := l.Offset
	for i, x := range idx {
		e = sym.Add(e, sym.Mul(l.Strides[i], x))
	}
	return e
}

// Param is one graph input: a tensor (Buffer and Layout set), or a symbolic
// or scalar value (Type is ir.SymType / a scalar type; Sym names the symbol
// a SymInt input binds, "" otherwise).
type Param struct {
	Name   string
	Type   ir.Type
	Buffer *Buffer
	Layout Layout
	Sym    string
	// Mutated marks a tensor input that a kernel writes (the
	// functionalization epilogue's copy_): callers see the new contents.
	Mutated bool
}

// Result is one graph output: a tensor seen through Layout in Buffer, or a
// value that is not a tensor (Value: an int64, float64 or bool constant, or
// a sym.Expr over the program's symbols).
type Result struct {
	Name   string
	Buffer *Buffer
	Layout Layout
	Value  any
}

// KernelKind is a kernel's shape of work.
type KernelKind uint8

const (
	KernelPointwise KernelKind = iota // every stage runs once per outer index
	KernelReduction                   // some stage loops over reduction ranges
	KernelExtern                      // an opaque library call (mm, bmm, convolution)
)

func (k KernelKind) String() string {
	return [...]string{"pointwise", "reduction", "extern"}[k]
}

// Kernel is one loop nest (or one extern call).
type Kernel struct {
	Name   string     // "kernel<N>", unique in the program
	Outer  []sym.Expr // sizes of x0, x1, ...
	Stages []*Stage
	Extern *Extern // set for extern kernels, which have no Outer or Stages
	// Origins are the graph nodes this kernel computes, in graph order.
	Origins []string
	// Vec is the vector width in elements the align pass proved for every
	// access of the kernel along its innermost outer range; 1 when unknown.
	Vec int
	// Serial says the kernel must not be split across threads or blocks:
	// it is a scatter-accumulate (index_put accumulate, scatter_add,
	// scatter_reduce, index_add) whose indices may repeat, so two
	// iterations may update one element. Codegen runs it in one thread,
	// in outer-index order, unvectorized (Vec 1). The scheduler may fuse
	// other pointwise work into it (or it into other pointwise work) when
	// no other member reads or writes what it accumulates into, and never
	// reorders or re-splits its loops: the fused kernel stays Serial.
	Serial bool
	// Split, on a Serial kernel, lists the outer dims (ascending) along
	// which its iterations never update one element (serialSplit proves
	// it from the index expressions): a code generator may run iterations
	// that differ in them on different threads, each thread in loop order.
	Split []int
	// SharesCode, set by ShareCode, is an earlier kernel that is this one
	// but for the buffers it touches: code generators emit no code for
	// this kernel and call SharesCode's with this kernel's buffers
	// (CallBuffers). nil when the kernel has code of its own.
	SharesCode *Kernel
	// codeBuffers are the kernel's buffers in the order of first use, as
	// ShareCode found them: CallBuffers pairs them with SharesCode's.
	codeBuffers []*Buffer
}

// Kind derives the kernel's kind from its stages.
func (k *Kernel) Kind() KernelKind {
	if k.Extern != nil {
		return KernelExtern
	}
	for _, s := range k.Stages {
		if len(s.Reduce) > 0 {
			return KernelReduction
		}
	}
	return KernelPointwise
}

// Stage is one loop over the reduction ranges (or one straight-line block
// when Reduce is empty) run for every outer index.
type Stage struct {
	Reduce []sym.Expr // sizes of r0, r1, ...; empty for an outer-level stage
	Body   []*Instr   // topological order; stores included
}

// Opcode is what an instruction does.
type Opcode uint8

const (
	OpLoad    Opcode = iota // Access read, converted to DType's register type
	OpStore                 // Args[0] written to Access (DType = the stored element type)
	OpConst                 // Imm
	OpIndex                 // the value of Expr (an index expression) as DType
	OpCall                  // Fn applied to Args, computed in DType (see Fns)
	OpCast                  // Args[0] converted to DType with PyTorch's rounding and wrapping
	OpBitcast               // Args[0]'s bits reinterpreted as DType (same size)
	OpReduce                // Reduce over the stage's ranges of Args[0]; value available after the loop
	// OpCheck fails the kernel with Check's message unless Args[0] (an
	// int64 index read from a tensor) lies in [0, Expr), or in [-Expr,
	// Expr) when Check.Neg. It has no value and no users: like a store it
	// is a root that dead-code removal keeps, and it precedes the accesses
	// that use the index, so a bad index never reaches memory.
	OpCheck
	// OpScan folds Args[0] into a running value with Reduce (sum, prod,
	// max, min) like OpReduce, but its value is the running result
	// including the current element, and it lives only inside its stage's
	// loop: a store in the same stage writes every prefix (cumsum,
	// cumprod). Its stage has one reduce range, the scanned dim, walked
	// in order: codegen never splits it across lanes or threads. The
	// scheduler may recompute it in a later stage over the same range
	// (softmax of a cumsum), where it restarts and walks the range again.
	// Printed "tmp3 = scan sum(tmp2) : f64".
	OpScan
)

func (o Opcode) String() string {
	return [...]string{"load", "store", "const", "index", "call", "cast", "bitcast", "reduce", "check", "scan"}[o]
}

// Instr is one scalar operation. Values have a DType; codegen keeps f16,
// bf16 and f8 values in float32 registers (exactly representable), so a
// cast to bf16 rounds in place, and integer values in int64 registers
// wrapped to their width by every op that produces them.
type Instr struct {
	ID     int // unique in the kernel; prints as tmp<ID>
	Op     Opcode
	DType  ir.DType
	Reduce ReduceOp // OpReduce, OpScan (beside the other one-byte fields: 112 bytes an instruction, not 128)
	Args   []*Instr
	Access *Access  // OpLoad, OpStore
	Imm    Scalar   // OpConst
	Expr   sym.Expr // OpIndex
	Fn     string   // OpCall: a name from Fns
	Check  *Check   // OpCheck: the accepted range and the message (Expr is the size)
}

// Check is what an OpCheck accepts and raises: PyTorch's bounds check of
// an index read from a tensor (gather, scatter, embedding, index.Tensor,
// index_put, index_select, index_add/copy/fill).
type Check struct {
	// Neg accepts negative indices, which count from the end (-size <= i
	// < size: index.Tensor, index_put, index_fill); otherwise 0 <= i <
	// size (gather, scatter, embedding, index_select, index_add/copy).
	Neg bool
	// Msg is PyTorch's message as data: CheckIndex and CheckSize stand
	// for the offending value and the size, filled in when the check
	// fails ("index {index} is out of bounds for dimension 0 with size
	// {size}"); every other byte is literal.
	Msg string
}

// The placeholders of Check.Msg.
const (
	CheckIndex = ops.IndexPlaceholder
	CheckSize  = ops.SizePlaceholder
)

// Message is the error text of a failed check of value index against
// size. Code generators emit the same substitution (the Go runtime's
// rt.IndexError, the CUDA host's kiln_check_message).
func (c *Check) Message(index, size int64) string {
	return ops.IndexBounds{Msg: c.Msg}.Message(index, size, 0) // the dim is already in Msg
}

// Accepts reports whether index passes the check against size.
func (c *Check) Accepts(index, size int64) bool {
	return ops.IndexBounds{Neg: c.Neg}.Accepts(index, size)
}

// Access is a load or store address: element Index (in units of DType) of
// Buffer, read or written as DType, which differs from the buffer's own
// type after view.dtype (same size: a bitcast; different size: the bytes
// are reinterpreted).
type Access struct {
	Buffer *Buffer
	DType  ir.DType
	Index  sym.Expr
	// Indirect are int64 instructions (indices read from a tensor:
	// embedding, index_select, gather) that Index mentions as symbols
	// "tmp<ID>"; they are defined before the access in the kernel.
	Indirect []*Instr
}

// Scalar is a constant: an integer, a float (including ±inf and NaN) or a
// bool, by DType's category.
type Scalar struct {
	Int   int64
	Float float64
	Bool  bool
}

// ReduceOp is a reduction's combining function.
type ReduceOp uint8

const (
	ReduceSum ReduceOp = iota
	ReduceProd
	ReduceMax // NaN-propagating, like amax
	ReduceMin
	ReduceArgMax // first index of the maximum (NaN counts as maximal), as int64
	ReduceArgMin
	ReduceAny // bool
	ReduceAll
	// ReduceLogAddExp is log(exp(acc) + exp(x)) as ATen's
	// _log_add_exp_helper computes it (max + log1p(exp(min - max)); two
	// equal infinities stay as they are): scans only (logcumsumexp).
	ReduceLogAddExp
)

func (r ReduceOp) String() string {
	return [...]string{"sum", "prod", "max", "min", "argmax", "argmin", "any", "all", "logaddexp"}[r]
}

// ScanOps are the combining functions an OpScan may use.
var ScanOps = map[ReduceOp]bool{ReduceSum: true, ReduceProd: true, ReduceMax: true, ReduceMin: true, ReduceLogAddExp: true}

// Fns are the scalar functions OpCall may name, with their arity. Semantics
// are PyTorch's for the instruction's DType: maximum/minimum propagate NaN,
// floordiv and remainder round toward -inf (Python), fmod truncates,
// truediv on integers is not allowed (lowering casts to float first),
// integer ops wrap, shifts are arithmetic for signed types. Operands of a
// call share one compute type (lowering inserts the casts), except where's
// condition, which is bool. The instruction's DType is its result type:
// bool for BoolFns, the compute type otherwise.
var Fns = map[string]int{
	// unary
	"neg": 1, "abs": 1, "exp": 1, "exp2": 1, "expm1": 1, "log": 1, "log2": 1, "log10": 1, "log1p": 1,
	"sqrt": 1, "rsqrt": 1, "reciprocal": 1, "sin": 1, "cos": 1, "tan": 1, "asin": 1, "acos": 1, "atan": 1,
	"sinh": 1, "cosh": 1, "tanh": 1, "asinh": 1, "acosh": 1, "atanh": 1, "sigmoid": 1, "erf": 1, "erfc": 1,
	"erfinv": 1, "floor": 1, "ceil": 1, "round": 1, "trunc": 1, "frac": 1, "sign": 1, "signbit": 1,
	"logical_not": 1, "bitwise_not": 1, "isnan": 1, "isinf": 1, "isfinite": 1, "lgamma": 1,
	// binary
	"add": 2, "sub": 2, "mul": 2, "truediv": 2, "floordiv": 2, "remainder": 2, "fmod": 2, "pow": 2,
	"maximum": 2, "minimum": 2, "fmax": 2, "fmin": 2, "atan2": 2, "hypot": 2, "copysign": 2,
	"eq": 2, "ne": 2, "lt": 2, "le": 2, "gt": 2, "ge": 2,
	"logical_and": 2, "logical_or": 2, "logical_xor": 2,
	"bitwise_and": 2, "bitwise_or": 2, "bitwise_xor": 2, "lshift": 2, "rshift": 2,
	// ternary
	"where": 3,
	// random (RandFns): (seed, stream, index) -> a counter-based draw
	"rand_uniform": 3, "rand_normal": 3, "rand_bits": 3,
}

// RandFns are the random Fns and their result type. Their three operands
// are int64 (the seed, the node's stream id, the element's row-major
// index), whatever the result: element i of a random node is a pure
// function of them (Philox4x32-10: rt.RandUniform, rt.RandNormal,
// rt.RandBits in the Go runtime, k_rand_* in the CUDA prelude), so
// kernels may compute it in any order and recompute it when fused.
var RandFns = map[string]ir.DType{"rand_uniform": ir.F32, "rand_normal": ir.F32, "rand_bits": ir.I64}

// BoolFns are the Fns whose result is bool whatever the operands' DType.
var BoolFns = map[string]bool{
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"logical_and": true, "logical_or": true, "logical_xor": true, "logical_not": true,
	"isnan": true, "isinf": true, "isfinite": true, "signbit": true,
}

// Extern is an opaque library call: mm, bmm, convolution, topk,
// convolution_backward. Args are its tensor operands (buffer + layout);
// Params are its non-tensor arguments (stride, padding, dilation, groups,
// ... as int64 lists, by schema name). Outs are its results in schema
// order: one for most ops, several for topk (values, indices) and
// convolution_backward (grad_input, grad_weight, grad_bias). A result the
// graph never reads has a nil Buffer: it is neither allocated nor
// computed, and prints as "_".
//
// A float argument (sdpa's scale) travels as its IEEE bits, one int64
// under NAME + F64BitsSuffix; the dump prints it as NAME=value.
type Extern struct {
	Op     string // registry name: "aten::mm", "aten::bmm", "aten::convolution"
	Args   []Operand
	Params map[string][]int64
	Outs   []Operand
}

// F64BitsSuffix marks an Extern param that holds a float64's bits.
const F64BitsSuffix = "_f64bits"

// Written lists the buffers e writes: its present outputs, in order.
func (e *Extern) Written() []*Buffer {
	var bs []*Buffer
	for _, o := range e.Outs {
		if o.Buffer != nil {
			bs = append(bs, o.Buffer)
		}
	}
	return bs
}

// Writes reports whether e writes b.
func (e *Extern) Writes(b *Buffer) bool {
	for _, o := range e.Outs {
		if o.Buffer != nil && o.Buffer == b {
			return true
		}
	}
	return false
}

// Operand is a tensor argument of an extern call; Buffer is nil for an
// absent optional tensor (convolution's bias).
type Operand struct {
	Buffer *Buffer
	Layout Layout
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// Instrs counts p's instructions: each prints as one line, so the printed
// program has more lines than this.
func (p *Program) Instrs() int {
	n := 0
	for _, k := range p.Kernels {
		for _, s := range k.Stages {
			n += len(s.Body)
		}
	}
	return n
}
