package golang

import (
	"testing"

	"github.com/kiln-compiler/kiln/lowering"
	"github.com/stretchr/testify/assert"
)

// The Go backend holds every dtype in the register class lowering declares
// for it (the CUDA backend reads the same table).
func TestRegisterClassesFollowLowering(t *testing.T) {
	for dt, d := range dtInfos {
		want, ok := lowering.RegisterKind(dt)
		if assert.True(t, ok, "%s has a Go register but no lowering.RegisterKind", dt.Abbr()) {
			assert.Equal(t, want, d.reg, dt.Abbr())
		}
	}
}
