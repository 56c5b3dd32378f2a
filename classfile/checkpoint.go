package classfile

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/safetensors"
)

// Save writes the model's weights, its state dict, to path as nn.Save does:
// a safetensors file that PyTorch loads with safetensors.torch.load_file
// and load_state_dict. save "net.safetensors".
func (t *Trainer) Save(path string) {
	if t.model == nil {
		panic("classfile: save needs a model: call model first")
	}
	t.onRank0("save "+path, func() {
		if err := nn.Save(t.model, path); err != nil {
			panic(fmt.Errorf("classfile: save %s: %w", path, err))
		}
	})
}

// Load reads weights that Save (or PyTorch's safetensors) wrote into the
// model, strictly: every parameter and buffer must be there, with its
// shape.
func (t *Trainer) Load(path string) {
	if t.model == nil {
		panic("classfile: load needs a model: call model first")
	}
	if err := nn.Load(t.model, path, true); err != nil {
		panic(fmt.Errorf("classfile: load %s: %w", path, err))
	}
}

// Checkpoints hold the whole state of training, to resume it: they are
// safetensors files too, with
//
//   - the model's state dict, under "model." + its PyTorch names
//     ("model.conv1.weight");
//   - the optimizer's state tensors, under "optimizer.<param index>.<key>"
//     ("optimizer.0.momentum_buffer");
//   - each rank's random generator's state, under "rng.cpu.<rank>"
//     (checkpoint_rng.go);
//   - in the metadata: "format" (checkpointFormat), "epoch", "steps",
//     "optimizer", the optimizer's name, hyper-parameters and non-tensor
//     state as JSON, and "loader_seed" (checkpoint_rng.go).

const checkpointFormat = "gotorch-classfile-checkpoint/1"

// typed is a JSON value that keeps its Go type.
type typed struct {
	T string          `json:"t"`
	V json.RawMessage `json:"v,omitempty"`
}

func encodeTyped(v any) (typed, error) {
	var kind string
	switch v.(type) {
	case nil:
		return typed{T: "none"}, nil
	case bool:
		kind = "bool"
	case int:
		kind = "int"
	case float64:
		kind = "float"
	case string:
		kind = "string"
	case []int:
		kind = "ints"
	case []float64:
		kind = "floats"
	default:
		return typed{}, fmt.Errorf("cannot save a %T", v)
	}
	b, err := json.Marshal(v)
	return typed{T: kind, V: b}, err
}

func (x typed) decode() (any, error) {
	var err error
	switch x.T {
	case "none":
		return nil, nil
	case "bool":
		var v bool
		err = json.Unmarshal(x.V, &v)
		return v, err
	case "int":
		var v int
		err = json.Unmarshal(x.V, &v)
		return v, err
	case "float":
		var v float64
		err = json.Unmarshal(x.V, &v)
		return v, err
	case "string":
		var v string
		err = json.Unmarshal(x.V, &v)
		return v, err
	case "ints":
		var v []int
		err = json.Unmarshal(x.V, &v)
		return v, err
	case "floats":
		var v []float64
		err = json.Unmarshal(x.V, &v)
		return v, err
	}
	return nil, fmt.Errorf("unknown value type %q", x.T)
}

type optimizerMeta struct {
	Name        string                      `json:"name"`
	ParamGroups []map[string]typed          `json:"param_groups"`
	State       map[string]map[string]typed `json:"state,omitempty"` // non-tensor state
}

// SaveCheckpoint writes a checkpoint of the model, the optimizer (if it
// was made), the epoch and step counts and the random state (every rank's
// generator, the loaders' seed) to path, atomically:
// saveCheckpoint "run.ckpt". In a distributed job every rank calls it (it
// gathers the ranks' generators) and rank 0 writes the file.
func (t *Trainer) SaveCheckpoint(path string) {
	states, err := t.rngStates()
	if err != nil {
		panic(fmt.Errorf("classfile: save checkpoint %s: %w", path, err))
	}
	t.onRank0("save checkpoint "+path, func() {
		if err := t.saveCheckpoint(path, states); err != nil {
			panic(fmt.Errorf("classfile: save checkpoint %s: %w", path, err))
		}
	})
}

func (t *Trainer) saveCheckpoint(path string, rngStates []torch.Tensor) error {
	if t.model == nil {
		return fmt.Errorf("no model")
	}
	sd, ok := t.model.(interface {
		StateDict() map[string]torch.Tensor
	})
	if !ok {
		return fmt.Errorf("%T has no StateDict", t.model)
	}
	tensors := map[string]torch.Tensor{}
	for k, v := range sd.StateDict() {
		tensors["model."+k] = v
	}
	meta := map[string]string{
		"format": checkpointFormat,
		"epoch":  strconv.Itoa(t.epoch),
		"steps":  strconv.Itoa(t.steps),
	}
	t.addRandomState(tensors, meta, rngStates)
	if t.opt != nil {
		osd := t.opt.StateDict()
		om := optimizerMeta{Name: t.OptimizerName(), State: map[string]map[string]typed{}}
		for _, g := range osd.ParamGroups {
			tg := map[string]typed{}
			for k, v := range g {
				x, err := encodeTyped(v)
				if err != nil {
					return fmt.Errorf("optimizer hyper-parameter %s: %w", k, err)
				}
				tg[k] = x
			}
			om.ParamGroups = append(om.ParamGroups, tg)
		}
		for i, st := range osd.State {
			for k, v := range st {
				if tv, ok := v.(torch.Tensor); ok {
					tensors["optimizer."+strconv.Itoa(i)+"."+k] = tv
					continue
				}
				x, err := encodeTyped(v)
				if err != nil {
					return fmt.Errorf("optimizer state %d.%s: %w", i, k, err)
				}
				key := strconv.Itoa(i)
				if om.State[key] == nil {
					om.State[key] = map[string]typed{}
				}
				om.State[key][k] = x
			}
		}
		b, err := json.Marshal(om)
		if err != nil {
			return err
		}
		meta["optimizer"] = string(b)
	}
	return safetensors.Save(path, tensors, meta)
}

// LoadCheckpoint restores a checkpoint that SaveCheckpoint wrote: the
// model's parameters and buffers, the optimizer's state if the checkpoint
// has one, the epoch and step counts, and the random state if it has one
// (this rank's generator; the loaders' seed if the script sets none). The
// model must be set, with the same layers.
func (t *Trainer) LoadCheckpoint(path string) {
	if err := t.loadCheckpoint(path); err != nil {
		panic(fmt.Errorf("classfile: load checkpoint %s: %w", path, err))
	}
}

func (t *Trainer) loadCheckpoint(path string) error {
	if t.model == nil {
		return fmt.Errorf("no model: call model first")
	}
	tensors, meta, err := safetensors.Load(path)
	if err != nil {
		return err
	}
	if meta["format"] != checkpointFormat {
		return fmt.Errorf("not a checkpoint of this package (format %q)", meta["format"])
	}
	msd := map[string]torch.Tensor{}
	ostate := map[int]map[string]any{}
	rng := map[int]torch.Tensor{}
	for k, v := range tensors {
		switch {
		case strings.HasPrefix(k, "model."):
			msd[strings.TrimPrefix(k, "model.")] = v
		case strings.HasPrefix(k, rngPrefix):
			r, err := rngRank(k, v)
			if err != nil {
				return err
			}
			rng[r] = v
		case strings.HasPrefix(k, "optimizer."):
			i, key, ok := strings.Cut(strings.TrimPrefix(k, "optimizer."), ".")
			n, err := strconv.Atoi(i)
			if !ok || err != nil {
				return fmt.Errorf("bad tensor name %q", k)
			}
			if ostate[n] == nil {
				ostate[n] = map[string]any{}
			}
			ostate[n][key] = v
		default:
			return fmt.Errorf("unexpected tensor %q", k)
		}
	}
	ld, ok := t.model.(interface {
		LoadStateDict(map[string]torch.Tensor, bool) error
	})
	if !ok {
		return fmt.Errorf("%T has no LoadStateDict", t.model)
	}
	if err := ld.LoadStateDict(msd, true); err != nil {
		return err
	}
	if s := meta["optimizer"]; s != "" {
		var om optimizerMeta
		if err := json.Unmarshal([]byte(s), &om); err != nil {
			return fmt.Errorf("optimizer metadata: %w", err)
		}
		if t.optName != "custom" && t.OptimizerName() != om.Name {
			if _, known := defaultLR[om.Name]; known {
				t.optName, t.opt = om.Name, nil
			}
		}
		sd := optim.StateDict{State: ostate}
		for _, g := range om.ParamGroups {
			pg := map[string]any{}
			keys := make([]string, 0, len(g))
			for k := range g {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v, err := g[k].decode()
				if err != nil {
					return fmt.Errorf("optimizer hyper-parameter %s: %w", k, err)
				}
				pg[k] = v
			}
			sd.ParamGroups = append(sd.ParamGroups, pg)
		}
		for i, st := range om.State {
			n, err := strconv.Atoi(i)
			if err != nil {
				return fmt.Errorf("bad optimizer state index %q", i)
			}
			if sd.State[n] == nil {
				sd.State[n] = map[string]any{}
			}
			for k, x := range st {
				v, err := x.decode()
				if err != nil {
					return fmt.Errorf("optimizer state %d.%s: %w", n, k, err)
				}
				sd.State[n][k] = v
			}
		}
		if err := t.Optimizer__0().LoadStateDict(sd); err != nil {
			return fmt.Errorf("optimizer: %w", err)
		}
	}
	if e, err := strconv.Atoi(meta["epoch"]); err == nil {
		t.epoch = e
	}
	if s, err := strconv.Atoi(meta["steps"]); err == nil {
		t.steps = s
	}
	return t.restoreRandomState(path, rng, meta)
}
