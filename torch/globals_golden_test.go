package torch_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// globalsGolden is testdata/globals.json, which testdata/globals.py writes
// with the reference PyTorch: torch's global settings
// (deterministic_test.go, anomaly_test.go, globals_test.go).
type globalsGolden struct {
	DebugModes []struct {
		Mode     any  `json:"mode"` // an int (a float64 here) or a name
		Enabled  bool `json:"enabled"`
		WarnOnly bool `json:"warn_only"`
		Get      int  `json:"get"`
	} `json:"debug_modes"`
	WarnOnlyMode           int        `json:"warn_only_mode"`
	IndexAdd               []float64  `json:"index_add"`
	NanGrad                []*float64 `json:"nan_grad"` // null for NaN
	AnomalyDefault         []bool     `json:"anomaly_default"`
	AnomalyError           string     `json:"anomaly_error"`
	AnomalyNoCheckNan      []bool     `json:"anomaly_no_check_nan"`
	MatmulPrecisionDefault string     `json:"matmul_precision_default"`
	MatmulPrecisions       []string   `json:"matmul_precisions"`
	FlushSupported         bool       `json:"flush_supported"`
	Flushed                []float64  `json:"flushed"`
	Kept                   []float64  `json:"kept"`
	Seeds                  []struct {
		Seed        string    `json:"seed"`
		InitialSeed string    `json:"initial_seed"`
		Rand3       []float64 `json:"rand3"`
	} `json:"seeds"`
	InferenceModeDefault bool   `json:"inference_mode_default"`
	InferenceModeInside  []bool `json:"inference_mode_inside"`
}

func loadGlobalsGolden(t *testing.T) globalsGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/globals.json")
	require.NoError(t, err)
	var g globalsGolden
	require.NoError(t, json.Unmarshal(b, &g))
	return g
}
