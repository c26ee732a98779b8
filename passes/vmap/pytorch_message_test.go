package vmap_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The message kiln's vmap-inplace error carries is the one PyTorch 2.15
// raised for scenario 4's program (tools/scenarios/pytorch_messages.py).
func TestInplaceMessageFromPyTorch(t *testing.T) {
	src, err := os.ReadFile("../../testdata/scenarios/pytorch_messages.json")
	require.NoError(t, err)
	var data struct {
		Cases []struct {
			Name    string `json:"name"`
			Message string `json:"message"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(src, &data))
	for _, c := range data.Cases {
		if c.Name == "4_vmap_inplace" {
			require.Equal(t, c.Message, pytorchInplaceMessage)
			return
		}
	}
	t.Fatal("no 4_vmap_inplace record")
}
