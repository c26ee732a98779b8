package ops_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// TestPromoteTypes checks torch.promote_types (c10/core/ScalarType.cpp's
// table) on representative pairs.
func TestPromoteTypes(t *testing.T) {
	cases := []struct{ a, b, want ir.DType }{
		{ir.Bool, ir.Bool, ir.Bool}, {ir.Bool, ir.U8, ir.U8}, {ir.Bool, ir.F16, ir.F16},
		{ir.U8, ir.I8, ir.I16}, {ir.U8, ir.I16, ir.I16}, {ir.U8, ir.I32, ir.I32}, {ir.U8, ir.I64, ir.I64},
		{ir.I8, ir.I16, ir.I16}, {ir.I32, ir.I64, ir.I64}, {ir.I64, ir.F16, ir.F16}, {ir.I64, ir.BF16, ir.BF16},
		{ir.F16, ir.BF16, ir.F32}, {ir.F16, ir.F32, ir.F32}, {ir.BF16, ir.F64, ir.F64},
		{ir.F32, ir.C64, ir.C64}, {ir.F64, ir.C64, ir.C128}, {ir.F16, ir.C32, ir.C32}, {ir.BF16, ir.C32, ir.C64},
		{ir.I64, ir.C64, ir.C64}, {ir.U16, ir.U32, ir.U32}, {ir.U8, ir.U64, ir.U64},
	}
	for _, tc := range cases {
		got, err := ops.PromoteTypes(tc.a, tc.b)
		require.NoError(t, err, "%s + %s", tc.a, tc.b)
		assert.Equal(t, tc.want, got, "%s + %s", tc.a, tc.b)
		back, _ := ops.PromoteTypes(tc.b, tc.a)
		assert.Equal(t, got, back, "symmetric")
	}
	for _, bad := range [][2]ir.DType{{ir.U16, ir.I8}, {ir.U32, ir.F32}, {ir.F8E4M3FN, ir.F32}, {ir.F8E4M3FN, ir.F8E5M2}} {
		_, err := ops.PromoteTypes(bad[0], bad[1])
		assert.Error(t, err, "%s + %s", bad[0], bad[1])
	}
}

// TestResultType checks the three-group rule of docs/REFERENCE.md.
func TestResultType(t *testing.T) {
	dim := func(d ir.DType) ops.Operand { return ops.Operand{DType: d} }
	zero := func(d ir.DType) ops.Operand { return ops.Operand{DType: d, ZeroD: true} }
	num := func(d ir.DType) ops.Operand { return ops.Operand{DType: d, Scalar: true} }
	cases := []struct {
		name string
		in   []ops.Operand
		want ir.DType
	}{
		{"i32 tensor + int", []ops.Operand{dim(ir.I32), num(ir.I64)}, ir.I32},
		{"i32 tensor + i64 0-dim", []ops.Operand{dim(ir.I32), zero(ir.I64)}, ir.I32},
		{"i32 tensor + float", []ops.Operand{dim(ir.I32), num(ir.F64)}, ir.F32},
		{"f16 tensor + float", []ops.Operand{dim(ir.F16), num(ir.F64)}, ir.F16},
		{"f16 tensor + f64 0-dim", []ops.Operand{dim(ir.F16), zero(ir.F64)}, ir.F16},
		{"i64 tensor + f64 0-dim", []ops.Operand{dim(ir.I64), zero(ir.F64)}, ir.F64},
		{"bool tensor + int", []ops.Operand{dim(ir.Bool), num(ir.I64)}, ir.I64},
		{"bool tensor + bool", []ops.Operand{dim(ir.Bool), num(ir.Bool)}, ir.Bool},
		{"f32 tensor + complex", []ops.Operand{dim(ir.F32), num(ir.C128)}, ir.C64},
		{"f64 tensor + complex", []ops.Operand{dim(ir.F64), num(ir.C64)}, ir.C128},
		{"0-dim only", []ops.Operand{zero(ir.I32), num(ir.F64)}, ir.F32},
		{"scalars only", []ops.Operand{num(ir.I64), num(ir.F64)}, ir.F32},
		{"u8 tensor + i8 tensor", []ops.Operand{dim(ir.U8), dim(ir.I8)}, ir.I16},
	}
	for _, tc := range cases {
		got, err := ops.ResultType(tc.in)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
	assert.False(t, ops.CanCast(ir.F32, ir.I64))
	assert.False(t, ops.CanCast(ir.I64, ir.Bool))
	assert.False(t, ops.CanCast(ir.C64, ir.F64))
	assert.True(t, ops.CanCast(ir.I64, ir.F16))
	assert.True(t, ops.CanCast(ir.Bool, ir.U8))
}

// TestSchemasRoundTrip: every registered schema prints back to text that
// parses to the same schema, and its alias facts are derived consistently.
func TestSchemasRoundTrip(t *testing.T) {
	for _, op := range ops.Default().All() {
		text := op.Schema.String()
		again, err := ops.ParseSchema(text, "")
		require.NoError(t, err, text)
		assert.Equal(t, text, again.String())
		if op.IsInplace() {
			assert.True(t, op.Mutates(), op.QualifiedName())
		}
		assert.False(t, op.IsView() && op.Mutates() && !op.IsInplace(), "%s: a view that mutates", op.QualifiedName())
	}
}
