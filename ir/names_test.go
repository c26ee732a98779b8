package ir_test

import (
	"testing"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/stretchr/testify/assert"
)

func TestNamer(t *testing.T) {
	nm := ir.NewNamer(&ir.Graph{})
	assert.Equal(t, "add", nm.Fresh("add"))
	assert.Equal(t, "add_1", nm.Fresh("add"))
	assert.Equal(t, "add_2", nm.Fresh("add"))
	assert.Equal(t, "sum_1", nm.Fresh("sum"), "Python builtins start at _1, as FX names them")
	assert.Equal(t, "_unnamed", nm.Fresh(""))
	nm.Release("add_1")
	assert.Equal(t, "add_1", nm.Fresh("add"), "a released name is the smallest free one again")
	assert.Equal(t, "add_3", nm.Fresh("add"))
	nm.Take("mul")
	assert.Equal(t, "mul_1", nm.Fresh("mul"))
}
