// Package align is kiln's alignment pass: for every tensor value it proves
// how many bytes its data pointer is aligned to, decides the widest safe
// vector access for every value a kernel reads or writes, and makes every
// alignment kiln assumes (rather than proves) explicit in the graph as an
// assertion, which is Scenario 3 of docs/SCENARIOS.md (Inductor's GGUF failure).
//
// # What is proved
//
// A pointer is aligned to A bytes when the storage base is and the byte
// offset `storage_offset * itemsize` is a multiple of A. The storage base is
//
//   - 64 bytes for a buffer kiln allocates (every non-view registry op's
//     result: planned allocations are 64-byte aligned, as Inductor's are);
//   - 16 bytes (GPU_ALIGN_BYTES) for a graph input's storage: what
//     PyTorch's allocator guarantees at least, and what assert_alignment
//     presumes when it checks only `storage_offset * itemsize % 16`;
//   - unknown for results kiln did not allocate and cannot trace (a custom
//     op's own allocation, an op typed only from its annotation, a view
//     fakeprop could not link to its base): only the element size is
//     claimed, which every scalar access needs anyway.
//
// Offsets come from fakeprop, which carries them through every view
// (slice, select, as_strided, view.dtype between element sizes, split, the
// views functionalization replays, ...) in the storage's own terms; the
// scatter ops functionalization creates (slice_scatter, ...) allocate. A
// symbolic offset counts for the largest constant known to divide it
// (sym.Expr.Divisor): a bf16 offset of 8*s0 elements is 16*s0 bytes, a
// multiple of 16; 2*s0 elements is 4*s0 bytes, of which only 4 is proved.
// The alignment recorded is the largest power of two dividing both the base
// alignment and the byte offset.
//
// # Graph inputs
//
// Inductor decides an input's alignment from the example input's storage
// offset, without a guard. FX text does not print storage offsets, so a
// plain input is taken at the storage offset its type carries (0 unless
// the graph makes it a view) and the `input-offsets` option states the
// example's offset (`align{input-offsets=arg0_1:1}`, in elements, symbolic
// allowed). An input found 16-byte aligned is assumed so, and kiln inserts
// an assertion for it. A misaligned input gets the policy the user picks:
//
//   - misaligned-inputs=scalar (default): kiln uses what it proved (scalar
//     access where that is under 16 bytes) and asserts nothing;
//   - misaligned-inputs=copy: a realigning copy (`aten::clone.default`,
//     Inductor's copy_misaligned_inputs) into a fresh 64-byte-aligned
//     buffer, read by every later use (graph outputs keep the input). An
//     input that the graph writes to, that is not contiguous, or whose type
//     has a storage offset keeps the scalar policy, with a remark saying why.
//     Assume mode takes every input aligned, so it copies nothing.
//
// # Assertions
//
// The assertion is the registry op
//
//	kiln::assert_alignment(Tensor self, int alignment, str? op_name=None) -> ()
//
// printed `torch.ops.kiln.assert_alignment.default(arg0_1, 16)`, the same
// call and arguments as Inductor's wrapper line `assert_alignment(arg0_1,
// 16)` (torch._C._dynamo.guards.assert_alignment), with the op name as a
// third argument for a view (`..., 'aten.view.dtype')`). It is an op rather
// than an opaque Python call so that it binds against a schema, survives
// DCE (it has effects), and runs in the interpreter like any other op: it
// fails with PyTorch's message when `storage_offset * itemsize` is not a
// multiple of the alignment. It is taken from the registry when the registry
// declares it; until then the pass builds the entry itself.
//
// # Assume mode
//
// `assume=inputs-and-views` reproduces the old, wrong assumption: every
// graph input is taken as 16-byte aligned whatever its example says, and
// every view as aligned as its base (the view's offset is dropped, as in
// pytorch issue 151589). Each such assumption a kernel relies on gets its
// assertion, vector widths follow the assumption, and every assertion that
// would fail at run time is reported statically as a `misaligned` error
// with PyTorch's message (`Expect the tensor to be 16 bytes aligned. Fail
// due to storage_offset=1 itemsize=4`) at the op it came from; one that may
// fail (a symbolic offset) is a `misaligned` warning.
//
// # Attributes (for lowering and codegen)
//
// The pass records its decisions on ir.Value.Attrs, printed as trailing
// comments (`# align=4 vec=1`; an input's print on a `# arg0_1: ...` line):
//
//   - align: the alignment, in bytes, that the pointer to the value's first
//     element has (a power of two). Every tensor value gets one.
//   - vec: the widest safe vector access, in elements, for a value a kernel
//     reads or writes (views that only feed other views get none): 1 means
//     scalar access. A width w > 1 needs the value 16-byte aligned
//     (GPU_ALIGN_BYTES, as Inductor gives Triton `tt.divisibility=16` only
//     then), w*itemsize <= 16, an innermost run of stride 1 (collapsing
//     contiguous dimensions) whose length w divides, and every outer stride
//     a multiple of w, so that each vector starts aligned.
//
// Remarks (code `align`) say for every value what it is aligned to and why
// (`slice_1 is 4-byte aligned: slice at storage offset 2 elements of bf16 =
// 4 bytes into arg0_1's storage, whose base is 16-byte aligned`), the vector
// width and why, and for every assertion and copy why it is there. The
// rules do not depend on the device: CPU graphs get the same answers.
//
// Regression cases live in testdata/align (txtar, see align_test.go) over
// the Scenario 3 graphs in testdata/scenarios/03_*.fx; each also runs under
// translation validation (tv_test.go).
package align
