package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// The host writes .npy files as interp does (bf16 as '<u2' bits, ...).
func TestNPYDescrMatchesInterp(t *testing.T) {
	for _, dt := range ir.AllDTypes() {
		want, _ := interp.NPYDescr(dt)
		assert.Equal(t, want, npyDescr(dt), dt.Abbr())
	}
}

// fnClasses names exactly lowering.Fns.
func TestFnClassesCoverFns(t *testing.T) {
	for name := range lowering.Fns {
		assert.NotZero(t, fnClasses[name], "%s has no CUDA form", name)
	}
	for name := range fnClasses {
		_, ok := lowering.Fns[name]
		assert.True(t, ok, "%s is not a lowering.Fns name", name)
	}
}
