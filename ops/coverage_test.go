package ops_test

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/ops"
)

var writeCoverage = flag.String("coverage-out", "", "write the op coverage table (Markdown) to this file")

// TestCoverage prints which op has which facet, and holds the registry to
// its invariants: every op has a meta rule, every in-place op names its
// functional counterpart, every scatter-inverse view names its inverse.
func TestCoverage(t *testing.T) {
	rows := ops.Coverage(ops.Default())
	table := ops.FormatCoverage(rows)
	if *writeCoverage != "" {
		assert.NoError(t, os.WriteFile(*writeCoverage, []byte(table), 0o644))
	}
	t.Log("\n" + table)
	noFunctional := map[string]bool{
		"aten::_index_put_impl_.default":         true, // internal; functionalized as index_put
		"aten::_foreach_zero_.default":           true,
		"aten::_foreach_copy_.default":           true,
		"aten::_native_batch_norm_legit.default": true, // functional form is _native_batch_norm_legit_functional
	}
	for _, r := range rows {
		assert.True(t, r.Meta, "%s has no meta rule", r.Op)
		if r.Inplace && !noFunctional[r.Op] {
			assert.NotEmpty(t, r.Functional, "in-place %s has no functional counterpart", r.Op)
		}
		if r.Functional != "" {
			assert.NotNil(t, ops.Lookup(r.Functional), "%s: functional %s is not registered", r.Op, r.Functional)
		}
		if r.ViewInverse != "" {
			assert.NotNil(t, ops.Lookup(r.ViewInverse), "%s: view inverse %s is not registered", r.Op, r.ViewInverse)
		}
	}
	for _, name := range []string{"aten::slice.Tensor", "aten::select.int", "aten::diagonal.default", "aten::as_strided.default"} {
		assert.NotEmpty(t, ops.Lookup(name).ViewInverse, name)
	}
}

// TestScenarioAndCorpusOps: every op docs/SCENARIOS.md and the issue name is in
// the registry.
func TestScenarioAndCorpusOps(t *testing.T) {
	for _, name := range []string{
		"aten::amax.default", "aten::_local_scalar_dense.default", "aten::mul.Tensor", "aten::_to_copy.default",
		"aten::permute.default", "aten::mm.default", "aten::slice.Tensor", "aten::view.dtype", "aten::add.Tensor",
		"aten::zeros.default", "aten::select.int", "aten::sub.Tensor", "aten::copy_.default", "aten::new_zeros.default",
		"aten::nonzero.default", "aten::masked_select.default", "aten::_unique2.default", "aten::repeat_interleave.Tensor",
		"aten::bincount.default", "aten::item.default", "aten::_assert_scalar.default", "aten::sym_size.int",
		"aten::sym_stride.int", "aten::sym_numel.default", "aten::resize_.default", "aten::transpose_.default",
		"aten::index_put_.default", "aten::masked_fill_.Scalar", "aten::fill_.Scalar", "aten::zero_.default",
		"aten::unfold.default", "aten::unbind.int", "aten::chunk.default", "aten::split_with_sizes.default",
		"aten::as_strided_scatter.default", "aten::upsample_bilinear2d.vec", "aten::_scaled_dot_product_efficient_attention.default",
		"prims::convert_element_type.default", "prims::iota.default", "_c10d_functional::wait_tensor.default",
	} {
		assert.NotNil(t, ops.Lookup(name), name)
	}
	assert.NotNil(t, ops.Lookup("aten::sym_size"), "overload packet")
}
