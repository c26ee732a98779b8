package interp

import "github.com/kiln-compiler/kiln/rt"

// kBernoulliP is bernoulli.p, what functionalization makes of dropout's
// empty_like(x).bernoulli_(p): element i is u_i < p, u_i drawn from the
// node's stream as for bernoulli (kernels_random.go), stored as 0/1 in
// self's dtype. self's values are not read.
func kBernoulliP(c *call) ([]any, error) {
	self, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	p, err := c.float("p")
	if err != nil {
		return nil, err
	}
	vals := make([]float64, self.Numel())
	seed, stream := c.seed(), c.stream()
	for i := range vals {
		vals[i] = rt.B2F(float64(rt.RandUniform(seed, stream, int64(i))) < p)
	}
	return one(FromFloatsOn(self.DType, self.Shape, vals, self.Device()))
}

func init() { register(kBernoulliP, "bernoulli.p") }
