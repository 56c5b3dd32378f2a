package classfile_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/safetensors"
)

// dropNet draws from the random generator in every training step: its
// dropout masks.
type dropNet struct {
	classfile.Module
	FC1  *nn.LinearModule
	Drop *nn.DropoutModule
	FC2  *nn.LinearModule
}

func (m *dropNet) Main() {
	m.FC1 = nn.Linear(2, 16)
	m.Drop = nn.Dropout()
	m.FC2 = nn.Linear(16, 2)
}

func (m *dropNet) Forward(x torch.Tensor) torch.Tensor {
	return m.FC2.Forward(m.Drop.Forward(m.FC1.Forward(x)))
}

// dropTrainer is the same script every time: seed 4, a dropout model, fit
// for epochs with a checkpoint (seed < 0: no seed).
func dropTrainer(t *testing.T, seed, epochs int, ckpt string) (*classfile.Trainer, *dropNet) {
	t.Helper()
	train := blobs(t, 64) // seeds the generator itself: before the script's seed
	tr := new(classfile.Trainer)
	tr.Progress__1(false)
	if seed >= 0 {
		tr.Seed__1(seed)
	}
	tr.BatchSize__1(16)
	tr.Epochs__1(epochs)
	tr.Optimizer__1("adam")
	tr.Dataset__2(train, nil)
	net := new(dropNet)
	tr.Model__1(net)
	tr.Checkpoint__1(ckpt)
	return tr, net
}

func rngState(t *testing.T) []uint8 {
	t.Helper()
	s, err := torch.GetRngState()
	require.NoError(t, err)
	return torch.ToSlice[uint8](s)
}

func weights(net *dropNet) [][]float64 {
	return [][]float64{net.FC1.Weight.Float64s(), net.FC1.Bias.Float64s(), net.FC2.Weight.Float64s(), net.FC2.Bias.Float64s()}
}

// A run stopped after epoch 1 and resumed from its checkpoint draws the
// same dropout masks in epoch 2 as the run that was not stopped: it ends
// with the same weights, bit for bit, and the generator in the same state.
// A checkpoint without the random state (as written before it was saved)
// still loads, and leaves the generator where the script's seed put it,
// so that epoch 2 draws other masks.
func TestCheckpointResumesRandomStream(t *testing.T) {
	dir := t.TempDir()
	whole, wholeNet := dropTrainer(t, 4, 2, filepath.Join(dir, "whole.ckpt"))
	whole.Fit()
	want, wantState := weights(wholeNet), rngState(t)

	ckpt := filepath.Join(dir, "run.ckpt")
	first, _ := dropTrainer(t, 4, 1, ckpt)
	first.Fit()
	tensors, meta, err := safetensors.Load(ckpt)
	require.NoError(t, err)
	require.Contains(t, tensors, "rng.cpu.0", "the checkpoint holds the generator's state")
	assert.Equal(t, torch.Uint8, tensors["rng.cpu.0"].DType())
	assert.Equal(t, "4", meta["loader_seed"])

	// An old checkpoint: the same, without the random state.
	old := filepath.Join(dir, "old.ckpt")
	delete(tensors, "rng.cpu.0")
	delete(meta, "loader_seed")
	require.NoError(t, safetensors.Save(old, tensors, meta))

	resumed, net := dropTrainer(t, 4, 2, ckpt)
	resumed.Fit()
	assert.Equal(t, 2, resumed.Epoch())
	assert.Equal(t, want, weights(net), "the resumed run's weights after epoch 2")
	assert.Equal(t, wantState, rngState(t), "the generator after the resumed run")

	oldRun, oldNet := dropTrainer(t, 4, 2, old)
	before := rngState(t)
	oldRun.LoadCheckpoint(old)
	assert.Equal(t, before, rngState(t), "an old checkpoint leaves the generator as the seed put it")
	assert.Equal(t, 1, oldRun.Epoch())
	oldRun.Fit()
	assert.Equal(t, 2, oldRun.Epoch())
	assert.NotEqual(t, want, weights(oldNet), "without the state, epoch 2 draws other dropout masks")
}

// A script without a seed shuffles with a random one: the checkpoint keeps
// it, so that a resumed run visits the examples in the order the run it
// continues would have. A script with a seed keeps its own.
func TestCheckpointKeepsLoaderSeed(t *testing.T) {
	ckpt := filepath.Join(t.TempDir(), "run.ckpt")
	first, _ := dropTrainer(t, -1, 1, ckpt)
	first.Fit()
	seed := first.TrainLoader().Loader().Options().Seed
	_, meta, err := safetensors.Load(ckpt)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprint(seed), meta["loader_seed"])

	resumed, _ := dropTrainer(t, -1, 2, ckpt)
	other := resumed.TrainLoader().Loader().Options().Seed // made before the checkpoint is loaded
	require.NotEqual(t, seed, other, "two unseeded loaders draw different seeds")
	resumed.LoadCheckpoint(ckpt)
	assert.Equal(t, seed, resumed.TrainLoader().Loader().Options().Seed, "the resumed loader's seed")
	assert.Equal(t, -1, resumed.Seed__0(), "the script still has no seed")

	seeded, _ := dropTrainer(t, 9, 2, ckpt)
	seeded.LoadCheckpoint(ckpt)
	assert.Equal(t, uint64(9), seeded.TrainLoader().Loader().Options().Seed, "a script's seed wins")
}

// loadError is LoadCheckpoint's panic message, "" if it did not panic.
func loadError(tr *classfile.Trainer, path string) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	tr.LoadCheckpoint(path)
	return ""
}

// Random states that cannot be this run's are errors that name the entry,
// never a crash; a job of another size keeps its stream.
func TestCheckpointBadRandomState(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "run.ckpt")
	tr, _ := dropTrainer(t, 4, 1, ckpt)
	tr.SaveCheckpoint(ckpt)
	tensors, meta, err := safetensors.Load(ckpt)
	require.NoError(t, err)
	good := tensors["rng.cpu.0"]
	u8 := func(n int64) torch.Tensor { return torch.Zeros([]int64{n}, torch.WithDtype(torch.Uint8)) }
	cases := []struct {
		name string
		rng  map[string]torch.Tensor
		meta map[string]string
		want string
	}{
		{"float", map[string]torch.Tensor{"rng.cpu.0": torch.Zeros([]int64{good.Size(0)})}, nil, "tensor rng.cpu.0 is torch.float32"},
		{"2-D", map[string]torch.Tensor{"rng.cpu.0": good.ViewDims(2, -1)}, nil, "not a random generator's state"},
		{"name", map[string]torch.Tensor{"rng.cpu.x": good}, nil, `bad tensor name "rng.cpu.x"`},
		{"name+", map[string]torch.Tensor{"rng.cpu.+0": good}, nil, `bad tensor name "rng.cpu.+0"`},
		{"gap", map[string]torch.Tensor{"rng.cpu.1": good}, nil, "random states of ranks [1]: want ranks 0 to 0"},
		{"short", map[string]torch.Tensor{"rng.cpu.0": u8(10)}, nil, "rng.cpu.0: torch.set_rng_state: the RNG state has 10 bytes"},
		{"content", map[string]torch.Tensor{"rng.cpu.0": u8(good.Size(0))}, nil, "rng.cpu.0: torch.set_rng_state: "},
		{"loader seed", nil, map[string]string{"loader_seed": "-3"}, `bad loader_seed "-3"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts, md := map[string]torch.Tensor{}, map[string]string{}
			for k, v := range tensors {
				if !strings.HasPrefix(k, "rng.") {
					ts[k] = v
				}
			}
			for k, v := range meta {
				md[k] = v
			}
			for k, v := range c.rng {
				ts[k] = v
			}
			for k, v := range c.meta {
				md[k] = v
			}
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".ckpt")
			require.NoError(t, safetensors.Save(path, ts, md))
			tr2, _ := dropTrainer(t, 4, 1, path)
			before := rngState(t)
			msg := loadError(tr2, path)
			assert.Contains(t, msg, "classfile: load checkpoint "+path)
			assert.Contains(t, msg, c.want)
			assert.Equal(t, before, rngState(t), "the generator after a refused checkpoint")
		})
	}

	// The states of a 2-rank job, loaded by one process: its stream goes on.
	ts := map[string]torch.Tensor{}
	for k, v := range tensors {
		ts[k] = v
	}
	torch.ManualSeed(99)
	ts["rng.cpu.1"] = mustState(t)
	two := filepath.Join(dir, "two.ckpt")
	require.NoError(t, safetensors.Save(two, ts, meta))
	tr3, _ := dropTrainer(t, 4, 1, two)
	before := rngState(t)
	assert.Empty(t, loadError(tr3, two))
	assert.Equal(t, before, rngState(t), "a job of another size keeps its stream")
}

func mustState(t *testing.T) torch.Tensor {
	t.Helper()
	s, err := torch.GetRngState()
	require.NoError(t, err)
	return s
}
