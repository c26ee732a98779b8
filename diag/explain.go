package diag

import "sort"

// explanations tell the story behind each stable code: what failed, why
// PyTorch fails the same way, and the ways out. `kiln explain CODE` prints them.
var explanations = map[string]string{
	"parse": `parse: the input is not FX readable text kiln understands.
kiln reads what PyTorch prints: print_readable(), TORCH_LOGS=graph_code/aot_graphs/post_grad_graphs,
TORCH_COMPILE_DEBUG's fx_graph_readable.py, graph.code, and str(graph) node listings. The error
points at the first character kiln could not read. Log prefixes ("I0121 ... [__aot_graphs]") are
stripped automatically; paste the graph as printed, without editing the statements.`,
	"unknown-op": `unknown-op: the op is not in kiln's registry.
The node is kept as an opaque call: it parses, prints and passes through, but no meta rule gives it
types, so later passes treat its results as unknown. For a custom op, declare its schema and shape
rule in a custom-op file (kiln's register_fake).`,
	"internal": `internal: kiln itself failed on this input. This is a bug in kiln, not in your graph;
please report the input file.`,
	"data-dependent": `data-dependent: an op's result depends on tensor data (Tensor.item() lowers to
aten._local_scalar_dense). Fake tensors have no data, so PyTorch stops:
  data dependent operator: aten._local_scalar_dense.default; to enable, set
  torch._dynamo.config.capture_scalar_outputs = True
Ways out: capture the scalar as an unbacked symbol (-capture-scalar-outputs, like the Dynamo
config), or keep the value out of the compiled region.`,
	"dynamic-output-shape": `dynamic-output-shape: the op's output size depends on data (nonzero,
masked_select, unique, repeat_interleave without output_size, boolean-mask indexing). PyTorch says:
  dynamic shape operator: aten.nonzero.default; to enable, set
  torch._dynamo.config.capture_dynamic_output_shape_ops = True
With -capture-dynamic-output-shape-ops the size becomes an unbacked symbol u<N> with 0 <= u <= numel.`,
	"data-dependent-guard": `data-dependent-guard: a branch, size check or guard needs the value of an
unbacked symbol (one that came from data). PyTorch: "Could not guard on data-dependent expression
Eq(u0, 1)". Ways out: torch._check(...) the fact you know, or restructure to avoid the branch.`,
	"meta-copy": `meta-copy: a copy out of a meta tensor. Meta tensors have shapes and no data, so
moving one to a real device fails: "Cannot copy out of meta tensor; no data!". It happens when a
model built under torch.device('meta') (or empty weights) is moved with .to()/.cpu()/.cuda().
Ways out: keep the meta model out of the module tree, create it on demand, or allocate real storage
with module.to_empty(device=...) and initialise it. Copying *into* a meta tensor is fine.`,
	"meta-item": `meta-item: Tensor.item() (aten._local_scalar_dense) on a meta tensor: "Tensor.item()
cannot be called on meta tensors". A value that should have been real was left on meta (a cache set
up under offloading, say). Ways out: materialise the tensor on a real device before the call, or
avoid the data-dependent call (e.g. use_cache=False in the Transformers case).`,
	"missing-fake-impl": `missing-fake-impl: a custom op has no fake (meta) implementation, so its output
shapes are unknown under torch.compile/export. PyTorch: "...there was no fake impl or Meta kernel
registered...". Way out: torch.library.register_fake("ns::op"); in kiln, declare the op's schema and
shape rule in a custom-op file.`,
	"no-graph": `no-graph: kiln found no graph in the file: it is empty, holds only comments, is binary,
UTF-16 or gzip-compressed, has CR-only line endings, or is Python without an FX graph. kiln reads FX
readable text (print_readable, TORCH_LOGS=graph_code, fx_graph_readable.py, str(graph)) and JSON-lines
op traces; the message says what the file looks like instead.`,
	"limit": `limit: the input passes one of kiln's size bounds (input size, line length, rank, result
count, tensor bytes in kiln run), checked before allocating so that a short corrupt file cannot exhaust
memory. The bounds are listed in docs/LIMITS.md; the ones a real input could need more of have a flag
(-max-input-bytes, kiln run -max-tensor-bytes).`,
	"invalid-graph": `invalid-graph: the graph as written breaks a rule every FX graph keeps: a call
missing a required argument of its op's schema, or with too many, a value used before it is defined.
PyTorch would fail on the same call (TypeError / RuntimeError from the op's schema). Fix the line named.`,
	"verify": `verify: kiln's IR verifier found a broken invariant in the graph a pass produced (a value
left untyped after fakeprop, a mutation left after functionalize). When the input is valid PyTorch this
is a kiln bug; the message names the pass and the node.`,
	"out-of-bounds": `out-of-bounds: a view (as_strided) reaches past the storage it views, or takes a negative
stride. Eager PyTorch raises "setStorage: sizes ..., strides ..., storage offset ..., and itemsize ...
requiring a storage size of N are out of bounds for storage of size M" at the call; fake tensors do not
check, so torch.compile would generate code that reads out of bounds. kiln compile stops at the call.`,
	"lowering": `lowering: kiln's lowering rule for the op cannot handle the call as written (an argument
of a kind the rule does not take, say a list where a number goes). The graph may still be valid for
PyTorch: kiln opt and kiln run tell whether it is.`,
	"type-mismatch": `type-mismatch: kiln's inferred type for a value disagrees with the annotation the
input carried (what PyTorch computed). This is the check PyTorch runs as assert_size_stride; when it
fails in PyTorch, it most often comes from an incorrect fake (meta) kernel for a custom op.`,
	"vmap-inplace": `vmap-inplace: an in-place op under vmap where self is not batched but another
argument is: "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a
Tensor other in extra_args that has more elements than self...". Ways out: use out-of-place ops
(build the result with cat/scatter), or make the buffer batched (new_zeros from a batched tensor).`,
	"misaligned": `misaligned: a buffer the compiled code assumes 16-byte aligned is not
("Expect the tensor to be 16 bytes aligned. Fail due to storage_offset=1 itemsize=4"). Views with a
storage offset (x[2:]) reinterpreted with view(dtype) are the usual cause. kiln only assumes what it
proves, and uses scalar loads elsewhere.`,
}

// Explain returns the explanation for code.
func Explain(code string) (string, bool) {
	text, ok := explanations[code]
	return text, ok
}

// Codes lists the codes kiln can explain, sorted.
func Codes() []string {
	out := make([]string, 0, len(explanations))
	for c := range explanations {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// RegisterExplanation adds the story for a code owned by another package.
func RegisterExplanation(code, text string) {
	explanations[code] = text
}
