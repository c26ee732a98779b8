package cuda

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ClangArgs compile CUDA source from stdin to PTX on stdout without the
// CUDA SDK: device code only, no CUDA headers or libdevice (the prelude
// defines what it needs and declares libdevice's math functions).
// -ffp-contract=off keeps a*b+c two rounded ops, as eager PyTorch computes
// it (clang's CUDA default would fuse them into fma).
var ClangArgs = []string{"--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_80",
	"-O2", "-ffp-contract=off", "-S", "-x", "cuda", "-o", "-", "-"}

// ErrNoClang is returned by PTX when clang is not installed.
var ErrNoClang = errors.New("cuda: clang not found in PATH (install clang to compile kernels to PTX)")

// PTX compiles a translation unit from Generate to PTX with clang, so
// that one can see which loads are vector loads (ld.global.v4.f32) and
// which are scalar, without a GPU or the CUDA SDK.
func PTX(ctx context.Context, cuSource string) (string, error) {
	clang, err := exec.LookPath("clang")
	if err != nil {
		return "", ErrNoClang
	}
	cmd := exec.CommandContext(ctx, clang, ClangArgs...)
	cmd.Stdin = strings.NewReader(cuSource)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("cuda: clang: %w\n%s", err, firstLines(stderr.String(), 40))
	}
	return out.String(), nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...\n")
	}
	return strings.Join(lines, "")
}
