package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/lowering"
)

// verifyCase breaks a valid program in one way; Verify must say want.
type verifyCase struct {
	name   string
	mutate func(p *lowering.Program)
	want   string
}

// requireVerifyRejects runs each case as a subtest on a fresh program
// from build: Verify must fail with an error containing the case's want.
func requireVerifyRejects(t *testing.T, build func() *lowering.Program, cases []verifyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := build()
			c.mutate(p)
			err := lowering.Verify(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
