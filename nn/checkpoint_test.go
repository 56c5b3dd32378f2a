package nn_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/crashtest"
	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/safetensors"
)

// The checkpoint tests build their own tiny modules, named like PyTorch's
// Linear and BatchNorm1d so that the state-dict keys match.

type ckLinear struct {
	nn.Module
	Weight, Bias torch.Tensor
}

type ckBatchNorm struct {
	nn.Module
	Weight, Bias      torch.Tensor
	RunningMean       torch.Tensor `gotorch:"buffer"`
	RunningVar        torch.Tensor `gotorch:"buffer"`
	NumBatchesTracked torch.Tensor `gotorch:"buffer"`
}

// ckNet is testdata/checkpoint_model.py's Net: fc = Linear(4, 3), bn =
// BatchNorm1d(3).
type ckNet struct {
	nn.Module
	FC *ckLinear
	BN *ckBatchNorm
}

func newCkNet(dtype torch.DType) *ckNet {
	opt := torch.WithDtype(dtype)
	fc := &ckLinear{Weight: torch.Zeros([]int64{3, 4}, opt).SetRequiresGrad(true), Bias: torch.Zeros([]int64{3}, opt).SetRequiresGrad(true)}
	fc.Init(fc)
	bn := &ckBatchNorm{
		Weight: torch.Ones([]int64{3}, opt).SetRequiresGrad(true), Bias: torch.Zeros([]int64{3}, opt).SetRequiresGrad(true),
		RunningMean: torch.Zeros([]int64{3}, opt), RunningVar: torch.Ones([]int64{3}, opt),
		NumBatchesTracked: torch.Zeros([]int64{}, torch.WithDtype(torch.Int64)),
	}
	bn.Init(bn)
	n := &ckNet{FC: fc, BN: bn}
	n.Init(n)
	return n
}

// forward is the eval-mode forward pass of ckNet.
func (n *ckNet) forward(x torch.Tensor, eps float64) torch.Tensor {
	y := torch.Linear(x, n.FC.Weight, torch.WithBias(n.FC.Bias))
	return torch.BatchNorm(y, n.BN.Weight, n.BN.Bias, n.BN.RunningMean, n.BN.RunningVar, false, 0.1, eps, false)
}

// ckFillArange gives every tensor of m distinct values.
func ckFillArange(t *testing.T, m *ckNet) {
	t.Helper()
	torch.NoGrad(func() {
		for i, nt := range append(m.NamedParameters(), m.NamedBuffers()...) {
			n := nt.Tensor.Numel()
			v := torch.Arange(torch.S(n), torch.WithDtype(torch.Float64)).MulScalar(torch.S(0.25)).AddScalar(torch.S(float64(i))).Reshape(nt.Tensor.Shape())
			nt.Tensor.Copy_(v)
		}
	})
}

func ckRequireSameState(t *testing.T, want, got nn.Moduler) {
	t.Helper()
	w := ckState(want)
	g := ckState(got)
	require.Equal(t, len(w), len(g))
	for k, wt := range w {
		gt, ok := g[k]
		require.True(t, ok, k)
		assert.Equal(t, wt.DType(), gt.DType(), k)
		assert.True(t, wt.Equal(gt), "%s: %v != %v", k, wt, gt)
	}
}

func ckState(m nn.Moduler) map[string]torch.Tensor {
	return m.(interface {
		StateDict() map[string]torch.Tensor
	}).StateDict()
}

func TestCheckpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "net.safetensors")
	src := newCkNet(torch.Float32)
	ckFillArange(t, src)
	require.NoError(t, nn.Save(src, path))

	dst := newCkNet(torch.Float32)
	w := dst.FC.Weight // the module keeps its tensors
	require.NoError(t, nn.Load(dst, path, true))
	ckRequireSameState(t, src, dst)
	assert.True(t, w.Equal(src.FC.Weight))
	assert.True(t, dst.FC.Weight.RequiresGrad(), "parameters stay parameters")

	tensors, md, err := nn.LoadTensors(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"format": "pt"}, md)
	assert.ElementsMatch(t, []string{"fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}, ckKeys(tensors))

	// A Float64 module loads a Float32 checkpoint, converting.
	d64 := newCkNet(torch.Float64)
	require.NoError(t, nn.Load(d64, path, true))
	assert.Equal(t, torch.Float64, d64.FC.Weight.DType())
	assert.True(t, d64.FC.Weight.Equal(src.FC.Weight.To(torch.Float64)))
}

func ckKeys(m map[string]torch.Tensor) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCheckpointTensors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.safetensors")
	in := map[string]torch.Tensor{
		"a": torch.FromSlice([]float32{1, 2, 3}),
		"b": torch.FromSlice([]int64{4, 5}, 2, 1),
		"h": torch.FromSlice([]float32{0.5}).To(torch.BFloat16),
	}
	require.NoError(t, nn.SaveTensors(in, path, map[string]string{"epoch": "3"}))
	out, md, err := nn.LoadTensors(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"epoch": "3"}, md)
	require.Len(t, out, 3)
	for k, v := range in {
		assert.Equal(t, v.DType(), out[k].DType(), k)
		assert.True(t, v.Equal(out[k]), k)
	}
}

// ckPyModel is testdata/checkpoint_model.json.
type ckPyModel struct {
	State map[string]struct {
		DType  string    `json:"dtype"`
		Shape  []int64   `json:"shape"`
		Values []float64 `json:"values"`
	} `json:"state"`
	Input       []float32 `json:"input"`
	InputShape  []int64   `json:"input_shape"`
	Output      []float64 `json:"output"`
	OutputShape []int64   `json:"output_shape"`
	Eps         float64   `json:"eps"`
}

func ckReadPyModel(t *testing.T) ckPyModel {
	var want ckPyModel
	js, err := os.ReadFile("testdata/checkpoint_model.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(js, &want))
	return want
}

// TestCheckpointFromPython loads a PyTorch Linear + BatchNorm1d checkpoint
// (with running statistics) and checks its values and the eval output.
func TestCheckpointFromPython(t *testing.T) {
	want := ckReadPyModel(t)
	m := newCkNet(torch.Float32)
	require.NoError(t, nn.Load(m, "testdata/checkpoint_model.safetensors", true))
	sd := m.StateDict()
	require.Len(t, sd, len(want.State))
	for k, w := range want.State {
		got, ok := sd[k]
		require.True(t, ok, k)
		assert.Equal(t, w.DType, got.DType().String(), k)
		assert.Equal(t, w.Shape, got.Shape(), k)
		assert.Equal(t, w.Values, got.Float64s(), k)
	}
	assert.Equal(t, int64(3), m.BN.NumBatchesTracked.ItemInt())

	x := torch.FromSlice(want.Input, want.InputShape...)
	y := m.forward(x, want.Eps)
	assert.Equal(t, want.OutputShape, y.Shape())
	golden.TensorClose(t, want.Output, y, "output")
}

// TestCheckpointPythonReadsGo saves a Go module, reads it back, and has
// PyTorch load it with strict load_state_dict when /usr/bin/python3 has
// torch.
func TestCheckpointPythonReadsGo(t *testing.T) {
	dir := t.TempDir()
	m := newCkNet(torch.Float32)
	ckFillArange(t, m)
	path := filepath.Join(dir, "from_go.safetensors")
	require.NoError(t, nn.Save(m, path))
	back := newCkNet(torch.Float32)
	require.NoError(t, nn.Load(back, path, true))
	ckRequireSameState(t, m, back)

	// The expected state, as the Python script describes it.
	state := map[string]any{}
	for k, v := range m.StateDict() {
		var values any = v.Float64s()
		if !v.DType().IsFloatingPoint() {
			values = v.Int64s()
		}
		state[k] = map[string]any{"dtype": v.DType().String(), "shape": v.Shape(), "values": values}
	}
	js, err := json.Marshal(state)
	require.NoError(t, err)
	jsPath := filepath.Join(dir, "from_go.json")
	require.NoError(t, os.WriteFile(jsPath, js, 0o644))

	if err := exec.Command("/usr/bin/python3", "-c", "import torch").Run(); err != nil {
		t.Skipf("/usr/bin/python3 with torch is not available (%v): skipping the Python check", err)
	}
	out, err := exec.Command("/usr/bin/python3", "testdata/checkpoint_model.py", "check", path, jsPath).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("python: %s", strings.TrimSpace(string(out)))
}

func TestCheckpointStrict(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.safetensors")
	src := newCkNet(torch.Float32)
	ckFillArange(t, src)
	require.NoError(t, nn.Save(src, full))

	// Only fc: bn's keys are missing; plus an unexpected key.
	partial := filepath.Join(dir, "partial.safetensors")
	require.NoError(t, nn.SaveTensors(map[string]torch.Tensor{
		"fc.weight": src.FC.Weight, "fc.bias": src.FC.Bias, "extra": torch.Ones([]int64{1}),
	}, partial, nil))
	dst := newCkNet(torch.Float32)
	err := nn.Load(dst, partial, true)
	var sde *nn.StateDictError
	require.ErrorAs(t, err, &sde)
	assert.ErrorContains(t, err, partial)
	assert.Equal(t, []string{"bn.bias", "bn.num_batches_tracked", "bn.running_mean", "bn.running_var", "bn.weight"}, sde.Missing)
	assert.Equal(t, []string{"extra"}, sde.Unexpected)
	assert.True(t, dst.FC.Weight.Equal(torch.Zeros([]int64{3, 4})), "nothing is copied on error")

	require.NoError(t, nn.Load(dst, partial, false))
	assert.True(t, dst.FC.Weight.Equal(src.FC.Weight))
	assert.True(t, dst.BN.Weight.Equal(torch.Ones([]int64{3})))

	// Shape mismatch is an error even when not strict.
	bad := filepath.Join(dir, "bad.safetensors")
	require.NoError(t, nn.SaveTensors(map[string]torch.Tensor{"fc.weight": torch.Ones([]int64{4, 3})}, bad, nil))
	err = nn.Load(dst, bad, false)
	require.ErrorAs(t, err, &sde)
	assert.ErrorContains(t, err, "fc.weight: shape [4 3] in state dict, [3 4] in module")

	// Uninitialized modules.
	var nilNet *ckNet
	assert.ErrorIs(t, nn.Save(nilNet, full), nn.ErrUninitialized)
	assert.ErrorIs(t, nn.Load(&ckNet{}, full, true), nn.ErrUninitialized)
}

// TestCheckpointCorrupt damages a checkpoint in many ways; each load fails
// with an error naming the file and the problem, and leaves the module as
// it was.
func TestCheckpointCorrupt(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.safetensors")
	src := newCkNet(torch.Float32)
	ckFillArange(t, src)
	require.NoError(t, nn.Save(src, good))
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	f, err := safetensors.Parse(data)
	require.NoError(t, err)
	hdrEnd := int(f.DataStart)
	hdr := string(data[8:hdrEnd])

	replace := func(old, new string) []byte {
		require.Contains(t, hdr, old)
		h := strings.Replace(hdr, old, new, 1)
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		return append(append(out, h...), data[hdrEnd:]...)
	}
	withLen := func(n uint64) []byte {
		out := append([]byte(nil), data...)
		binary.LittleEndian.PutUint64(out, n)
		return out
	}
	fcw, _ := f.Lookup("fc.weight")

	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty file"},
		{"only the length", data[:8], "header length"},
		{"four bytes", data[:4], "file is 4 bytes, too short"},
		{"truncated in the header", data[:hdrEnd-10], fmt.Sprintf("header length %d exceeds", hdrEnd-8)},
		{"truncated in the data", data[:len(data)-1], "out of range"},
		{"truncated after the header", data[:hdrEnd], "out of range"},
		{"extra bytes", append(append([]byte(nil), data...), 0), "belong to no tensor"},
		{"header length too large", withLen(uint64(len(data))), "exceeds"},
		{"header length too small", withLen(uint64(hdrEnd - 8 - 20)), "invalid JSON header"},
		{"header length one short", withLen(uint64(hdrEnd - 8 - 1)), "at the end of the data buffer belong to no tensor"},
		{"garbage header", append(binary.LittleEndian.AppendUint64(nil, 4), "\x00\x01\x02\x03"...), "header does not start with '{'"},
		{"unknown dtype", replace(`"dtype":"F32"`, `"dtype":"F33"`), `unknown dtype "F33"`},
		{"wrong shape", replace(`"shape":[3,4]`, `"shape":[4,4]`), `tensor "fc.weight": shape [4 4] of F32 needs 64 bytes`},
		{"negative shape", replace(`"shape":[3,4]`, `"shape":[-3,4]`), `negative size -3`},
		{"overlap", replace(fmt.Sprintf(`"data_offsets":[%d,`, fcw.DataOffsets[0]), fmt.Sprintf(`"data_offsets":[%d,`, fcw.DataOffsets[0]-4)), "data_offsets"},
		{"not a safetensors file", []byte("PK\x03\x04 this is a zip file, not safetensors"), "header length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".safetensors")
			require.NoError(t, os.WriteFile(path, tc.data, 0o644))
			m := newCkNet(torch.Float32)
			err := nn.Load(m, path, true)
			require.Error(t, err)
			assert.ErrorIs(t, err, safetensors.ErrInvalid)
			assert.ErrorContains(t, err, path)
			assert.ErrorContains(t, err, tc.want)
			assert.True(t, m.FC.Weight.Equal(torch.Zeros([]int64{3, 4})), "the module is unchanged")
			_, _, err = nn.LoadTensors(path)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	err = nn.Load(newCkNet(torch.Float32), filepath.Join(dir, "missing.safetensors"), true)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.ErrorContains(t, err, "missing.safetensors")
}

// ckBig is a module large enough that a save takes a while.
type ckBig struct {
	nn.Module
	A, B, C torch.Tensor
	Gen     torch.Tensor `gotorch:"buffer"`
}

func newCkBig() *ckBig {
	m := &ckBig{
		A:   torch.Zeros([]int64{1024, 1024}),
		B:   torch.Zeros([]int64{1536, 1024}),
		C:   torch.Zeros([]int64{512, 1024}, torch.WithDtype(torch.Float64)),
		Gen: torch.Zeros([]int64{}, torch.WithDtype(torch.Int64)),
	}
	m.Init(m)
	return m
}

func (m *ckBig) fill(gen int64) {
	for _, t := range []torch.Tensor{m.A, m.B, m.C, m.Gen} {
		t.FillScalar_(torch.S(gen))
	}
}

const crashChildEnv = "GOTORCH_CHECKPOINT_CRASH_CHILD"

// crashChild saves generation after generation of ckBig to path, printing
// "saved N" after each, until it is killed (or a minute has passed).
func crashChild(path string, start int64) {
	m := newCkBig()
	fmt.Println("ready")
	deadline := time.Now().Add(time.Minute)
	for gen := start; time.Now().Before(deadline); gen++ {
		m.fill(gen)
		if err := nn.Save(m, path); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Println("saved", gen)
	}
	os.Exit(0)
}

// TestCheckpointCrashSafety kills a process that keeps saving large
// checkpoints with SIGKILL at random points, again and again, and checks
// that the checkpoint is always whole, loadable and of a generation that
// was saved, and that temporary files never take its name.
func TestCheckpointCrashSafety(t *testing.T) {
	if path, start, ok := crashtest.ChildSpec(crashChildEnv); ok {
		crashChild(path, start)
		return
	}
	if testing.Short() {
		t.Skip("slow")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	path := filepath.Join(dir, "ckpt.safetensors")

	next := int64(1) // the first generation of the next child
	midWrite := 0
	const rounds = 8
	for round := 0; round < rounds; round++ {
		child := crashtest.Start(t, "TestCheckpointCrashSafety", crashChildEnv, path, next)
		// Wait for the child to be ready, and in odd rounds for a first
		// save, then kill it after a random delay.
		waitFor := "ready"
		if round%2 == 1 {
			waitFor = "saved"
		}
		child.WaitFor(2*time.Minute, func(f []string) bool { return f[0] == waitFor })
		delay := time.Duration(rng.Int64N(int64(800 * time.Millisecond)))
		time.Sleep(delay)
		child.Kill()
		lastSaved := child.LastSaved

		// Only the checkpoint and stray temporary files are in dir.
		midWrite += crashtest.Strays(t, dir, filepath.Base(path))

		if lastSaved == 0 {
			// Killed before the first save ended: no checkpoint, or a
			// whole first one.
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				t.Logf("round %d: killed after %v, before any checkpoint", round, delay)
				continue
			}
		}
		m := newCkBig()
		require.NoError(t, nn.Load(m, path, true), "round %d", round)
		gen := m.Gen.ItemInt()
		// The save in flight may have been renamed before it was reported.
		require.True(t, gen == lastSaved || gen == lastSaved+1, "round %d: checkpoint generation %d, last reported %d", round, gen, lastSaved)
		for name, tt := range map[string]torch.Tensor{"A": m.A, "B": m.B, "C": m.C} {
			require.True(t, tt.EqScalar(torch.S(gen)).All().ItemBool(), "round %d: %s is not all %d: a torn checkpoint", round, name, gen)
		}
		t.Logf("round %d: killed after %v; checkpoint generation %d intact", round, delay, gen)
		next = gen + 1
	}
	t.Logf("%d of %d kills left a temporary file behind (killed mid-write)", midWrite, rounds)
}

func TestOptimizerState(t *testing.T) {
	state := map[int]map[string]torch.Tensor{
		0:  {"momentum_buffer": torch.FromSlice([]float32{1, 2})},
		1:  {"exp_avg": torch.FromSlice([]float32{3}), "exp_avg_sq": torch.FromSlice([]float32{4}), "step": torch.FromSlice([]float32{7}, []int64{}...)},
		12: {"x.y": torch.FromSlice([]int64{5})},
	}
	flat := nn.FlattenState(state)
	assert.ElementsMatch(t, []string{"state.0.momentum_buffer", "state.1.exp_avg", "state.1.exp_avg_sq", "state.1.step", "state.12.x.y"}, ckKeys(flat))
	back, err := nn.UnflattenState(flat)
	require.NoError(t, err)
	assert.Equal(t, state, back)

	for _, bad := range []string{"step", "state.x.y", "state.1", "state.1.", "state.-1.a", "state.01.a", "param_groups.0.lr"} {
		_, err := nn.UnflattenState(map[string]torch.Tensor{bad: torch.Ones([]int64{1})})
		assert.ErrorContains(t, err, strconv.Quote(bad), bad)
	}

	type group struct {
		LR       float64 `json:"lr"`
		Momentum float64 `json:"momentum"`
		Params   []int   `json:"params"`
	}
	groups := []group{{LR: 0.1, Momentum: 0.9, Params: []int{0, 1, 12}}}
	path := filepath.Join(t.TempDir(), "optim.safetensors")
	require.NoError(t, nn.SaveOptimizerState(path, state, groups))
	var gotGroups []group
	got, err := nn.LoadOptimizerState(path, &gotGroups)
	require.NoError(t, err)
	assert.Equal(t, groups, gotGroups)
	require.Len(t, got, 3)
	for i, s := range state {
		for name, v := range s {
			assert.True(t, v.Equal(got[i][name]), "%d.%s", i, name)
		}
	}
	_, md, err := nn.LoadTensors(path)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"lr":0.1,"momentum":0.9,"params":[0,1,12]}]`, md[nn.ParamGroupsKey])

	// A model checkpoint is not an optimizer's.
	model := filepath.Join(t.TempDir(), "model.safetensors")
	require.NoError(t, nn.Save(newCkNet(torch.Float32), model))
	_, err = nn.LoadOptimizerState(model, &gotGroups)
	assert.ErrorContains(t, err, "is not of the form state.<index>.<name>")
	assert.ErrorContains(t, err, model)
	require.NoError(t, nn.SaveTensors(map[string]torch.Tensor{}, model, nil))
	_, err = nn.LoadOptimizerState(model, &gotGroups)
	assert.ErrorContains(t, err, `no "param_groups" in the metadata`)
}
