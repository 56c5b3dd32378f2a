package nn

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/safetensors"
)

// Checkpoints are safetensors files (Hugging Face's format, see package
// torch/safetensors): a module's state dict is saved under its PyTorch
// state-dict keys, so that a checkpoint written here loads in PyTorch with
// safetensors.torch.load_file + load_state_dict, and the other way round.
// Every save is atomic: the file is written under a temporary name in the
// same directory, synced and renamed, so that a crash or a kill at any
// point leaves either the previous checkpoint or the new one, whole.

// CheckpointMetadata is the metadata that Save writes: {"format": "pt"},
// which Hugging Face's loaders expect of PyTorch weights.
var CheckpointMetadata = map[string]string{"format": "pt"}

// Save writes m's state dict (parameters and buffers) to path as a
// safetensors file, atomically. Tensors on any device and of any layout
// are copied to the host first.
func Save(m Moduler, path string) error {
	b, err := module(m)
	if err != nil {
		return fmt.Errorf("nn: save %s: %w", path, err)
	}
	return SaveTensors(b.StateDict(), path, CheckpointMetadata)
}

// Load reads a safetensors checkpoint from path into m's parameters and
// buffers, as LoadStateDict does: dtypes and devices are converted to the
// module's, shape mismatches are errors, and with strict so are missing and
// unexpected keys (a *StateDictError). Nothing is copied unless the whole
// file is valid and every check passes.
func Load(m Moduler, path string, strict bool) error {
	b, err := module(m)
	if err != nil {
		return fmt.Errorf("nn: load %s: %w", path, err)
	}
	sd, _, err := LoadTensors(path)
	if err != nil {
		return err
	}
	if err := b.LoadStateDict(sd, strict); err != nil {
		return fmt.Errorf("nn: load %s: %w", path, err)
	}
	return nil
}

// SaveTensors writes named tensors and optional string metadata to path as
// a safetensors file, atomically.
func SaveTensors(tensors map[string]torch.Tensor, path string, metadata map[string]string) error {
	return safetensors.Save(path, tensors, metadata)
}

// LoadTensors reads a safetensors file: its tensors, as new CPU tensors,
// and its metadata (nil when it has none). A malformed file gives an error
// that names the file and the problem and matches safetensors.ErrInvalid.
func LoadTensors(path string) (map[string]torch.Tensor, map[string]string, error) {
	return safetensors.Load(path)
}

// Optimizer state. PyTorch's optimizer state_dict is
//
//	{"state": {0: {"momentum_buffer": tensor, ...}, 1: {...}},
//	 "param_groups": [{"lr": 0.1, ..., "params": [0, 1]}]}
//
// where the integers index the parameters in the optimizer's order. In a
// safetensors file the per-parameter tensors become flat keys
// "state.<index>.<name>" (FlattenState, UnflattenState), and the
// hyper-parameters, which are not tensors, go as JSON into the metadata
// under ParamGroupsKey. Scalar state that PyTorch keeps as a tensor (Adam's
// "step") should be a 0-dim tensor here too.

// ParamGroupsKey is the metadata key of an optimizer's hyper-parameters.
const ParamGroupsKey = "param_groups"

const statePrefix = "state."

// FlattenState turns per-parameter state, by parameter index, into flat
// "state.<index>.<name>" keys.
func FlattenState(state map[int]map[string]torch.Tensor) map[string]torch.Tensor {
	out := map[string]torch.Tensor{}
	for i, s := range state {
		for name, t := range s {
			out[statePrefix+strconv.Itoa(i)+"."+name] = t
		}
	}
	return out
}

// UnflattenState is the inverse of FlattenState. Every key must have the
// form "state.<index>.<name>", with a non-negative decimal index (no
// leading zeros) and a non-empty name.
func UnflattenState(tensors map[string]torch.Tensor) (map[int]map[string]torch.Tensor, error) {
	out := map[int]map[string]torch.Tensor{}
	keys := make([]string, 0, len(tensors))
	for k := range tensors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		idx, name, ok := strings.Cut(strings.TrimPrefix(k, statePrefix), ".")
		i, err := strconv.Atoi(idx)
		if !strings.HasPrefix(k, statePrefix) || !ok || name == "" || err != nil || i < 0 || strconv.Itoa(i) != idx {
			return nil, fmt.Errorf("nn: optimizer state: key %q is not of the form state.<index>.<name>", k)
		}
		if out[i] == nil {
			out[i] = map[string]torch.Tensor{}
		}
		out[i][name] = tensors[k]
	}
	return out, nil
}

// SaveOptimizerState writes an optimizer's per-parameter state and its
// hyper-parameters to path, atomically: the tensors as FlattenState names
// them, and paramGroups JSON-encoded in the metadata under ParamGroupsKey.
func SaveOptimizerState(path string, state map[int]map[string]torch.Tensor, paramGroups any) error {
	js, err := json.Marshal(paramGroups)
	if err != nil {
		return fmt.Errorf("nn: save optimizer state %s: param groups: %w", path, err)
	}
	md := map[string]string{"format": "pt", ParamGroupsKey: string(js)}
	return SaveTensors(FlattenState(state), path, md)
}

// LoadOptimizerState reads what SaveOptimizerState wrote: it returns the
// per-parameter state and decodes the hyper-parameters into paramGroups (a
// pointer, as for json.Unmarshal; nil skips them).
func LoadOptimizerState(path string, paramGroups any) (map[int]map[string]torch.Tensor, error) {
	tensors, md, err := LoadTensors(path)
	if err != nil {
		return nil, err
	}
	state, err := UnflattenState(tensors)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	if paramGroups != nil {
		js, ok := md[ParamGroupsKey]
		if !ok {
			return nil, fmt.Errorf("nn: load optimizer state %s: no %q in the metadata", path, ParamGroupsKey)
		}
		if err := json.Unmarshal([]byte(js), paramGroups); err != nil {
			return nil, fmt.Errorf("nn: load optimizer state %s: param groups: %w", path, err)
		}
	}
	return state, nil
}
