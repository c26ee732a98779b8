package rt

import "math"

// LogAddExp64 folds x into a logcumsumexp running value acc as ATen's
// _log_add_exp_helper(x, acc) does in double: max + log1p(exp(min -
// max)), NaN propagating, and two equal infinities left as they are
// (inf - inf would be NaN).
func LogAddExp64(acc, x float64) float64 {
	lo, hi := min(x, acc), max(x, acc) // Go's min and max propagate NaN
	if lo != hi || !math.IsInf(lo, 0) {
		return math.Log1p(math.Exp(lo-hi)) + hi
	}
	return x
}

// LogAddExp32 is LogAddExp64 in float (half types accumulate in float):
// exp, log1p and the add each rounded to float32, as std::exp(float),
// std::log1p(float) and a float add are.
func LogAddExp32(acc, x float32) float32 {
	lo, hi := min(x, acc), max(x, acc)
	if lo != hi || !math.IsInf(float64(lo), 0) {
		e := float32(math.Exp(float64(lo - hi)))
		return float32(math.Log1p(float64(e))) + hi
	}
	return x
}
