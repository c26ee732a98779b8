package lowering

import (
	"fmt"
	"math"
)

// Activations and their backward formulas, after ATen's Activation.cpp.

const (
	sqrt1_2  = 0.70710678118654752440 // M_SQRT1_2
	twoSqrtP = 1.12837916709551257390 // M_2_SQRTPI
)

func activationRules() map[string]pwRule {
	unary := func(body func(e *pwEnv, x *Instr) *Instr) pwRule {
		return exprRule(computeOut, func(e *pwEnv, x []*Instr) *Instr { return body(e, x[0]) }, "self")
	}
	withParams := func(body func(e *pwEnv, x *Instr) (*Instr, error)) pwRule {
		return pwRule{operands: []string{"self"}, build: func(e *pwEnv, x []*Instr) (*Instr, error) { return body(e, x[0]) }}
	}
	return map[string]pwRule{
		"relu": unary(func(e *pwEnv, x *Instr) *Instr { return e.fn("maximum", x, e.k(0)) }),
		// x / (1 + e^-x), as Inductor's C++ computes it (run_and_get_code,
		// torch 2.15): torch's float32 silu equals it on 96% of 1.1M inputs,
		// x·sigmoid(x) on 79%.
		"silu": unary(func(e *pwEnv, x *Instr) *Instr {
			return e.fn("truediv", x, e.fn("add", e.k(1), e.fn("exp", e.fn("neg", x))))
		}),
		"mish": unary(func(e *pwEnv, x *Instr) *Instr {
			return e.fn("mul", x, e.fn("tanh", e.fn("log1p", e.fn("exp", x))))
		}),
		"hardsigmoid": unary(func(e *pwEnv, x *Instr) *Instr { return e.fn("truediv", relu6(e, e.fn("add", x, e.k(3))), e.k(6)) }),
		"hardswish": unary(func(e *pwEnv, x *Instr) *Instr {
			return e.fn("truediv", e.fn("mul", x, relu6(e, e.fn("add", x, e.k(3)))), e.k(6))
		}),
		"sinc": unary(func(e *pwEnv, x *Instr) *Instr {
			px := e.fn("mul", e.k(math.Pi), x)
			return e.fn("where", e.fn("eq", x, e.k(0)), e.k(1), e.fn("truediv", e.fn("sin", px), px))
		}),
		"deg2rad":  unary(func(e *pwEnv, x *Instr) *Instr { return e.fn("mul", x, e.k(math.Pi/180)) }),
		"rad2deg":  unary(func(e *pwEnv, x *Instr) *Instr { return e.fn("mul", x, e.k(180/math.Pi)) }),
		"gelu":     withParams(gelu),
		"hardtanh": withParams(func(e *pwEnv, x *Instr) (*Instr, error) { return boundParams(e, x, "min_val", "max_val") }),
		"leaky_relu": withParams(func(e *pwEnv, x *Instr) (*Instr, error) {
			s, err := e.param("negative_slope")
			return e.fn("where", e.fn("gt", x, e.k(0)), x, e.fn("mul", x, s)), err
		}),
		"elu":       withParams(elu),
		"softplus":  withParams(softplus),
		"threshold": withParams(threshold),
		"threshold_backward": {operands: []string{"grad_output", "self"}, build: func(e *pwEnv, x []*Instr) (*Instr, error) {
			th, err := e.param("threshold")
			return e.fn("where", e.fn("le", x[1], th), e.k(0), x[0]), err
		}},
		"sigmoid_backward": exprRule(computeOut, func(e *pwEnv, x []*Instr) *Instr {
			return e.fn("mul", e.fn("mul", x[0], e.fn("sub", e.k(1), x[1])), x[1])
		}, "grad_output", "output"),
		"tanh_backward": exprRule(computeOut, func(e *pwEnv, x []*Instr) *Instr {
			return e.fn("mul", x[0], e.fn("sub", e.k(1), e.fn("mul", x[1], x[1])))
		}, "grad_output", "output"),
		"silu_backward": exprRule(computeOut, func(e *pwEnv, x []*Instr) *Instr {
			s := e.fn("sigmoid", x[1])
			return e.fn("mul", e.fn("mul", x[0], s), e.fn("add", e.k(1), e.fn("mul", x[1], e.fn("sub", e.k(1), s))))
		}, "grad_output", "self"),
		"gelu_backward": {operands: []string{"grad_output", "self"}, build: geluBackward},
	}
}

func relu6(e *pwEnv, x *Instr) *Instr { return e.fn("minimum", e.fn("maximum", x, e.k(0)), e.k(6)) }

func boundParams(e *pwEnv, x *Instr, lo, hi string) (*Instr, error) {
	a, err := e.param(lo)
	if err != nil {
		return nil, err
	}
	b, err := e.param(hi)
	return e.fn("minimum", e.fn("maximum", x, a), b), err
}

// gelu: x * 0.5 * (1 + erf(x / sqrt 2)), or the tanh approximation.
func gelu(e *pwEnv, x *Instr) (*Instr, error) {
	switch approx := e.c.Arg("approximate").Str; approx {
	case "none", "":
		cdf := e.fn("add", e.k(1), e.fn("erf", e.fn("mul", x, e.k(sqrt1_2))))
		return e.fn("mul", e.fn("mul", x, e.k(0.5)), cdf), nil
	case "tanh":
		beta := math.Sqrt2 * twoSqrtP * 0.5
		cube := e.fn("mul", e.fn("mul", x, x), x)
		inner := e.fn("mul", e.k(beta), e.fn("add", x, e.fn("mul", e.k(0.044715), cube)))
		return e.fn("mul", e.fn("mul", e.k(0.5), x), e.fn("add", e.k(1), e.fn("tanh", inner))), nil
	default:
		return nil, fmt.Errorf("gelu: approximate must be 'none' or 'tanh', got %q", approx)
	}
}

// geluBackward is decompositions.py gelu_backward: dy * (cdf + x * pdf),
// or for approximate='tanh' dy * (0.5 * (1 + t) + 0.5 * x * (1 - t*t) *
// kBeta * (1 + 3 * kKappa * x^2)) with t = tanh(kBeta * (x + kKappa *
// x^3)), in its order of operations.
func geluBackward(e *pwEnv, x []*Instr) (*Instr, error) {
	dy, v := x[0], x[1]
	switch a := e.c.Arg("approximate").Str; a {
	case "none", "":
		cdf := e.fn("mul", e.k(0.5), e.fn("add", e.k(1), e.fn("erf", e.fn("mul", v, e.k(sqrt1_2)))))
		pdf := e.fn("mul", e.k(twoSqrtP*sqrt1_2*0.5), e.fn("exp", e.fn("mul", e.fn("mul", v, v), e.k(-0.5))))
		return e.fn("mul", dy, e.fn("add", cdf, e.fn("mul", v, pdf))), nil
	case "tanh":
		beta, kappa := math.Sqrt2*twoSqrtP*0.5, 0.044715
		sq := e.fn("mul", v, v)
		cube := e.fn("mul", sq, v)
		t := e.fn("tanh", e.fn("mul", e.k(beta), e.fn("add", v, e.fn("mul", e.k(kappa), cube))))
		left, right := e.fn("mul", e.k(0.5), v), e.fn("add", e.k(1), t)
		leftD := e.fn("mul", e.k(0.5), right)
		tanhD := e.fn("sub", e.k(1), e.fn("mul", t, t))
		innerD := e.fn("mul", e.k(beta), e.fn("add", e.k(1), e.fn("mul", e.k(3*kappa), sq)))
		rightD := e.fn("mul", e.fn("mul", left, tanhD), innerD)
		return e.fn("mul", dy, e.fn("add", leftD, rightD)), nil
	default:
		return nil, fmt.Errorf("gelu_backward: approximate must be 'none' or 'tanh', got %q", a)
	}
}

// elu: x <= 0 ? expm1(x*input_scale) * alpha*scale : x*scale.
func elu(e *pwEnv, x *Instr) (*Instr, error) {
	var p [3]float64
	for i, n := range []string{"alpha", "scale", "input_scale"} {
		v, err := e.paramFloat(n)
		if err != nil {
			return nil, err
		}
		p[i] = v
	}
	neg := e.fn("mul", e.fn("expm1", e.fn("mul", x, e.k(p[2]))), e.k(p[0]*p[1]))
	return e.fn("where", e.fn("le", x, e.k(0)), neg, e.fn("mul", x, e.k(p[1]))), nil
}

// softplus: x*beta > threshold ? x : log1p(exp(x*beta)) / beta.
func softplus(e *pwEnv, x *Instr) (*Instr, error) {
	beta, err := e.param("beta")
	if err != nil {
		return nil, err
	}
	th, err := e.param("threshold")
	if err != nil {
		return nil, err
	}
	xb := e.fn("mul", x, beta)
	soft := e.fn("truediv", e.fn("log1p", e.fn("exp", xb)), beta)
	return e.fn("where", e.fn("gt", xb, th), x, soft), nil
}

// threshold: x <= threshold ? value : x.
func threshold(e *pwEnv, x *Instr) (*Instr, error) {
	th, err := e.param("threshold")
	if err != nil {
		return nil, err
	}
	v, err := e.param("value")
	return e.fn("where", e.fn("le", x, th), v, x), err
}
