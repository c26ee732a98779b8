package graphgen

import (
	_ "embed"
	"strings"
)

// trainingBlock is one training step of transformerBlock's block: the
// forward, a loss (the output's sum in f32) and its backward to the input
// and the 12 weights, bf16 on cpu, as make_fx traced and PyTorch printed it
// (tools/graphgen/transformer_block_train.py writes it). It returns the
// loss, then the gradients of its 13 inputs in order.
//
//go:embed transformer_block_train.fx
var trainingBlock string

// TrainingBlocks returns FX text of roughly cfg.Nodes op nodes: the traced
// training step stacked, layer li+1 reading layer li's gradient of its
// input as its own input (a chain of joint forward-backward graphs with a
// training step's op mix: native_layer_norm_backward, _softmax_backward_data,
// gelu_backward, mm of transposes). The graph returns every layer's loss
// and weight gradients and the last layer's input gradient, as a training
// step returns its gradients. cfg.SharedWeights applies; Hidden, Symbolic
// and Mutating do not.
func TrainingBlocks(cfg Config) string {
	t := parseBlock(trainingBlock)
	var b strings.Builder
	results := stackLayers(&b, t, cfg, 1)
	var outs []string
	for _, r := range results {
		outs = append(outs, r[0])
		outs = append(outs, r[2:]...)
	}
	outs = append(outs, results[len(results)-1][1])
	b.WriteString("        return (")
	b.WriteString(strings.Join(outs, ", "))
	b.WriteString(")\n")
	return b.String()
}
