package classfile_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// linear is what Go+ makes of a _model.gox file with a Linear layer:
// fields, a Forward method, and Main holding the top-level statements.
type linear struct {
	classfile.Module
	FC    *nn.LinearModule
	mains int
}

func (m *linear) Main() {
	m.mains++
	m.FC = nn.Linear(2, 2)
}

func (m *linear) Forward(x torch.Tensor) torch.Tensor { return m.FC.Forward(x) }

// hidden keeps a layer in an unexported field, which nn does not see.
type hidden struct {
	classfile.Module
	Out torch.Tensor
	fc  *nn.LinearModule
}

func (m *hidden) Main() { m.fc = nn.Linear(1, 1) }

func TestBuild(t *testing.T) {
	var warnings bytes.Buffer
	defer classfile.SetTestHooks(&warnings, nil)()

	m := classfile.Build(new(linear))
	assert.Equal(t, 1, m.mains)
	assert.Len(t, m.Parameters(), 2, "Init registered the layer")
	assert.Contains(t, m.String(), "(fc): Linear(in_features=2, out_features=2, bias=True)")
	assert.Same(t, m, classfile.Build(m))
	assert.Equal(t, 1, m.mains, "Build runs Main once")
	assert.Empty(t, warnings.String())

	h := classfile.Build(new(hidden))
	assert.Empty(t, h.Parameters())
	assert.Contains(t, warnings.String(), "hidden.fc holds a *nn.LinearModule but is not exported")
	assert.Contains(t, warnings.String(), "Name it Fc.")
	classfile.Build(new(hidden))
	assert.Equal(t, 1, strings.Count(warnings.String(), "hidden.fc"), "warned once")
}

func TestKnobDefaults(t *testing.T) {
	var tr classfile.Trainer
	assert.Equal(t, classfile.DefaultEpochs, tr.Epochs__0())
	assert.Equal(t, classfile.DefaultBatchSize, tr.BatchSize__0())
	assert.Equal(t, "sgd", tr.OptimizerName())
	assert.Equal(t, 0.01, tr.Lr__0())
	assert.Equal(t, 0.0, tr.Momentum__0())
	assert.Equal(t, 0.0, tr.WeightDecay__0())
	assert.Equal(t, -1, tr.Seed__0())
	assert.Equal(t, torch.CPU, tr.Device__0())
	assert.Equal(t, 0, tr.Workers__0())
	assert.Equal(t, 0, tr.LimitBatches__0())
	assert.Equal(t, "", tr.Checkpoint__0())
	assert.Nil(t, tr.Model__0())

	tr.Optimizer__1("Adam")
	assert.Equal(t, "adam", tr.OptimizerName())
	assert.Equal(t, 1e-3, tr.Lr__0(), "Adam's default lr")
	tr.Optimizer__1("adamw")
	assert.Equal(t, 0.01, tr.WeightDecay__0(), "AdamW's default weight decay")

	tr.Epochs__1(3)
	tr.BatchSize__1(8)
	tr.Lr__1(0.5)
	tr.Momentum__1(0.9)
	tr.WeightDecay__1(1e-4)
	tr.Seed__1(7)
	tr.Device__1("cpu")
	tr.Workers__1(2)
	tr.LimitBatches__1(5)
	tr.Checkpoint__1("x.ckpt")
	tr.Progress__1(false)
	assert.Equal(t, 3, tr.Epochs__0())
	assert.Equal(t, 8, tr.BatchSize__0())
	assert.Equal(t, 0.5, tr.Lr__0())
	assert.Equal(t, 0.9, tr.Momentum__0())
	assert.Equal(t, 1e-4, tr.WeightDecay__0())
	assert.Equal(t, 7, tr.Seed__0())
	assert.Equal(t, torch.CPUDevice, tr.Device__0().Type)
	assert.Equal(t, 2, tr.Workers__0())
	assert.Equal(t, 5, tr.LimitBatches__0())
	assert.Equal(t, "x.ckpt", tr.Checkpoint__0())
	assert.False(t, tr.Progress__0())

	for name, f := range map[string]func(){
		"epochs":    func() { tr.Epochs__1(0) },
		"batchSize": func() { tr.BatchSize__1(-1) },
		"lr":        func() { tr.Lr__1(0) },
		"optimizer": func() { tr.Optimizer__1("lbfgs") },
		"loss":      func() { tr.Loss__0("hinge") },
		"device":    func() { tr.Device__1("tpu") },
		"dataset":   func() { tr.Dataset__0("imagenet") },
		"mnist dir": func() { tr.Dataset__0("mnist") },
		"model":     func() { tr.Model__1(nil) },
		"workers":   func() { tr.Workers__1(-1) },
		"no data":   func() { tr.TrainLoader() },
		"no model":  func() { tr.Optimizer__0() },
	} {
		assert.Panics(t, f, name)
	}
}

func TestFlagsOverrideScript(t *testing.T) {
	var tr classfile.Trainer
	require.NoError(t, tr.ParseFlags([]string{"-epochs", "2", "-lr=0.5", "-optimizer", "adam", "-limit-batches", "3", "-progress=false", "rest"}))
	tr.Epochs__1(10)
	tr.Lr__1(0.1)
	tr.Optimizer__1("sgd")
	tr.LimitBatches__1(0)
	tr.BatchSize__1(16)
	assert.Equal(t, 2, tr.Epochs__0(), "the flag wins over the script")
	assert.Equal(t, 0.5, tr.Lr__0())
	assert.Equal(t, "adam", tr.OptimizerName())
	assert.Equal(t, 3, tr.LimitBatches__0())
	assert.False(t, tr.Progress__0())
	assert.Equal(t, 16, tr.BatchSize__0(), "knobs without a flag follow the script")

	var bad classfile.Trainer
	err := bad.ParseFlags([]string{"-epochs", "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-epochs")
	err = bad.ParseFlags([]string{"-epochs", "0"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at least 1")
	err = bad.ParseFlags([]string{"-nope"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-limit-batches", "the error lists the flags")
}

func TestLosses(t *testing.T) {
	var tr classfile.Trainer
	out := torch.FromSlice([]float32{10, 0, 0, 10}, 2, 2)
	y := torch.FromSlice([]int64{0, 1})
	assert.Less(t, tr.Loss__2(out, y).Item(), 1e-3, "cross entropy by default")
	tr.Loss__0("mse_loss")
	assert.Equal(t, 0.0, tr.Loss__2(out, out).Item())
	tr.Loss__1(func(o, t torch.Tensor) torch.Tensor { return o.Sum() })
	assert.Equal(t, 20.0, tr.Loss__2(out, y).Item())
}

// blobs is a dataset of two separable classes of 2-d points.
func blobs(t *testing.T, n int) *data.TensorDataset {
	torch.ManualSeed(1)
	x := torch.Randn([]int64{int64(n), 2})
	y := x.Select(1, 0).Gop_GT(0).To(torch.Int64)
	x = x.Gop_Add(y.Unsqueeze(1).To(torch.Float32).Gop_Mul(2).Gop_Sub(1))
	ds, err := data.NewTensorDataset(x, y)
	require.NoError(t, err)
	return ds
}

func TestTrainingLoop(t *testing.T) {
	var tr classfile.Trainer
	tr.Progress__1(false)
	tr.Seed__1(1)
	tr.BatchSize__1(16)
	tr.Lr__1(0.1)
	tr.Momentum__1(0.9)
	tr.Dataset__2(blobs(t, 256), blobs(t, 64))
	net := new(linear)
	tr.Model__1(net)
	assert.Equal(t, 1, net.mains, "model builds the model")
	assert.Equal(t, 16, tr.TrainLoader().Len())

	before := tr.Evaluate__0()
	for epoch := 0; epoch < 3; epoch++ {
		it := tr.TrainLoader().XGo_Enum()
		batches := 0
		for {
			torch.GC()
			x, y, ok := it.Next()
			if !ok {
				break
			}
			assert.Equal(t, []int64{16, 2}, x.Shape())
			tr.Step(tr.Loss__2(net.Forward(x), y))
			batches++
		}
		torch.FinishGC()
		assert.Equal(t, 16, batches)
		assert.Equal(t, epoch+1, tr.Epoch())
	}
	assert.Equal(t, 48, tr.Steps())
	after := tr.Evaluate__0()
	assert.Equal(t, 64, after.N)
	assert.Less(t, after.Loss, before.Loss)
	assert.Greater(t, after.Accuracy, 0.9)
	assert.True(t, net.IsTraining(), "evaluate restores training mode")
	assert.Contains(t, after.String(), "accuracy")

	// A custom forward function, and a regression without accuracy.
	tr.Loss__1(func(out, y torch.Tensor) torch.Tensor { return out.Sub(y.To(torch.Float32)).Square().Mean() })
	m := tr.Evaluate__1(func(x torch.Tensor) torch.Tensor { return net.Forward(x).Select(1, 0) })
	assert.True(t, math.IsNaN(m.Accuracy))
	assert.NotContains(t, m.String(), "accuracy")

	// Breaking out of an epoch and starting the next one.
	it := tr.TrainLoader().XGo_Enum()
	_, _, ok := it.Next()
	require.True(t, ok)
	n := 0
	for it2 := tr.TrainLoader().XGo_Enum(); ; n++ {
		if _, _, ok := it2.Next(); !ok {
			break
		}
	}
	assert.Equal(t, 16, n)

	// lr changes the optimizer's learning rate.
	tr.Lr__1(0.05)
	assert.Equal(t, 0.05, tr.Optimizer__0().ParamGroups()[0].LR())
}

func TestLimitBatchesAndFit(t *testing.T) {
	var tr classfile.Trainer
	tr.Progress__1(false)
	tr.Seed__1(2)
	tr.BatchSize__1(8)
	tr.Epochs__1(2)
	tr.LimitBatches__1(3)
	tr.Optimizer__1("adam")
	tr.Lr__1(0.05)
	tr.Dataset__2(blobs(t, 64), blobs(t, 64))
	net := new(linear)
	tr.Model__1(net)
	n := 0
	for it := tr.TrainLoader().XGo_Enum(); ; n++ {
		x, y, ok := it.Next()
		if !ok {
			break
		}
		tr.Step(tr.Loss__2(net.Forward(x), y))
	}
	assert.Equal(t, 3, n)

	ckpt := filepath.Join(t.TempDir(), "run.ckpt")
	tr.Checkpoint__1(ckpt)
	tr.LimitBatches__1(0)
	tr.Fit() // epoch 1 was the loop above: Fit trains epoch 2
	assert.Equal(t, 2, tr.Epoch())
	assert.Equal(t, 3+8, tr.Steps())
	assert.FileExists(t, ckpt)

	// A second Fit resumes from the checkpoint, which is at the last epoch.
	var tr2 classfile.Trainer
	tr2.Progress__1(false)
	tr2.Epochs__1(3)
	tr2.BatchSize__1(8)
	tr2.Dataset__2(blobs(t, 64), blobs(t, 64))
	net2 := new(linear)
	tr2.Model__1(net2)
	tr2.Checkpoint__1(ckpt)
	tr2.Fit()
	assert.Equal(t, 3, tr2.Epoch())
	assert.Equal(t, 11+8, tr2.Steps())
	assert.Equal(t, "adam", tr2.OptimizerName(), "the checkpoint restores the optimizer")
	assert.Equal(t, fmt.Sprint(tr.Optimizer__0()), fmt.Sprint(tr2.Optimizer__0()),
		"the hyper-parameters keep their types: PyTorch's int defaults print as ints")
	assert.Contains(t, fmt.Sprint(tr2.Optimizer__0()), "weight_decay: 0\n")
	assert.Greater(t, tr2.Evaluate__0().Accuracy, 0.8)
}

func TestCheckpoints(t *testing.T) {
	dir := t.TempDir()
	train := func() (*classfile.Trainer, *linear) {
		tr := new(classfile.Trainer)
		tr.Progress__1(false)
		tr.Seed__1(3)
		tr.BatchSize__1(16)
		tr.Momentum__1(0.9)
		tr.Dataset__2(blobs(t, 64), nil)
		net := new(linear)
		tr.Model__1(net)
		return tr, net
	}
	tr, net := train()
	for it := tr.TrainLoader().XGo_Enum(); ; {
		x, y, ok := it.Next()
		if !ok {
			break
		}
		tr.Step(tr.Loss__2(net.Forward(x), y))
	}
	ckpt := filepath.Join(dir, "a.ckpt")
	tr.SaveCheckpoint(ckpt)
	weights := filepath.Join(dir, "w.safetensors")
	tr.Save(weights)

	tr2, net2 := train()
	assert.NotEqual(t, net.FC.Weight.Float64s(), net2.FC.Weight.Float64s())
	tr2.LoadCheckpoint(ckpt)
	assert.Equal(t, net.FC.Weight.Float64s(), net2.FC.Weight.Float64s())
	assert.Equal(t, 1, tr2.Epoch())
	assert.Equal(t, 4, tr2.Steps())
	sd, sd2 := tr.Optimizer__0().StateDict(), tr2.Optimizer__0().StateDict()
	require.Len(t, sd2.State, len(sd.State))
	for i, st := range sd.State {
		buf := st["momentum_buffer"].(torch.Tensor)
		assert.Equal(t, buf.Float64s(), sd2.State[i]["momentum_buffer"].(torch.Tensor).Float64s())
	}
	assert.Equal(t, 0.9, sd2.ParamGroups[0]["momentum"])
	assert.Equal(t, fmt.Sprint(tr.Optimizer__0()), fmt.Sprint(tr2.Optimizer__0()),
		"the hyper-parameters keep their types (PyTorch's int defaults print as ints)")

	tr3, net3 := train()
	tr3.Load(weights)
	assert.Equal(t, net.FC.Bias.Float64s(), net3.FC.Bias.Float64s())
	loaded, _, err := nn.LoadTensors(weights)
	require.NoError(t, err)
	assert.Contains(t, loaded, "fc.weight", "weights files have PyTorch's names")

	assert.Panics(t, func() { tr3.LoadCheckpoint(weights) }, "a weights file is not a checkpoint")
	assert.Panics(t, func() { tr3.Load(filepath.Join(dir, "missing")) })

	// A custom optimizer.
	tr3.Optimizer__2(optim.SGD(net3.Parameters(), optim.WithLR(0.3)))
	assert.Equal(t, 0.3, tr3.Optimizer__0().ParamGroups()[0].LR())
}

// script is what Go+ makes of a *_train.gox file.
type script struct {
	classfile.Trainer
	ran bool
}

func (s *script) MainEntry() { s.ran = true }

type instrumentedScript struct {
	script
	epochs int
}

// MainEntry reads epochs, as a loop over them would, and so uses -epochs.
func (s *instrumentedScript) MainEntry() {
	s.ran = true
	s.epochs = s.Epochs__0()
}

func (s *instrumentedScript) GopTorchInstrumented() string { return "test" }

func TestXGotTrainerMain(t *testing.T) {
	var warnings bytes.Buffer
	defer classfile.SetTestHooks(&warnings, []string{"-epochs", "4"})()

	s := new(instrumentedScript)
	classfile.XGot_Trainer_Main(s)
	assert.True(t, s.ran)
	assert.True(t, s.Instrumented())
	assert.Equal(t, 4, s.epochs, "flags are parsed")
	assert.Empty(t, warnings.String())

	defer classfile.SetTestHooks(&warnings, nil)()
	p := new(script)
	classfile.XGot_Trainer_Main(p)
	assert.True(t, p.ran)
	assert.False(t, p.Instrumented())
	assert.Contains(t, warnings.String(), "compiled without GoTorch's loop GC")
	assert.Contains(t, warnings.String(), "go run github.com/gotorch/gotorch/cmd/gop-torch run DIR", "names the command to use")
	classfile.XGot_Trainer_Main(new(script))
	assert.Equal(t, 1, strings.Count(warnings.String(), "compiled without GoTorch's loop GC"), "warned once")
}

// TestGoptTrainerMain: gop v1.4's entry point does what XGo's does.
func TestGoptTrainerMain(t *testing.T) {
	var warnings bytes.Buffer
	defer classfile.SetTestHooks(&warnings, []string{"-epochs", "3"})()
	s := new(instrumentedScript)
	classfile.Gopt_Trainer_Main(s)
	assert.True(t, s.ran)
	assert.True(t, s.Instrumented())
	assert.Equal(t, 3, s.epochs, "flags are parsed")
	assert.Empty(t, warnings.String())
}

// threadScript records the OS thread its statements run on, across
// blocking calls after which Go may resume a goroutine on another thread.
type threadScript struct {
	script
	tids map[int]bool
}

func (s *threadScript) MainEntry() {
	s.tids = map[int]bool{syscall.Gettid(): true}
	for i := 0; i < 50; i++ {
		time.Sleep(50 * time.Microsecond)
		runtime.GC()
		s.tids[syscall.Gettid()] = true
	}
}

func TestXGotTrainerMainLocksThread(t *testing.T) {
	defer classfile.SetTestHooks(io.Discard, nil)()
	// Another goroutine keeps the scheduler busy, as loaders do.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	s := new(threadScript)
	classfile.XGot_Trainer_Main(s)
	assert.Len(t, s.tids, 1, "the script's statements ran on threads %v", s.tids)

	t.Setenv("GOTORCH_LOCK_THREAD", "0")
	u := new(threadScript)
	classfile.XGot_Trainer_Main(u)
	t.Logf("unlocked, the statements ran on %d threads", len(u.tids))
}

func TestEnvOff(t *testing.T) {
	for v, off := range map[string]bool{
		"": false, "1": false, "on": false, "yes": false, "true": false,
		"0": true, "false": true, "FALSE": true, "off": true, " no ": true,
	} {
		t.Setenv("GOTORCH_TEST_SWITCH", v)
		assert.Equal(t, off, classfile.EnvOff("GOTORCH_TEST_SWITCH"), "value %q", v)
	}
}

// Fit and evaluate free the losses of the named loss functions once read,
// and never a custom loss's result, which its function may keep, nor a
// batch tensor.
func TestFreeLoss(t *testing.T) {
	isFreed := func(x torch.Tensor) (gone bool) {
		defer func() { gone = recover() != nil }()
		x.Float32s()
		return false
	}
	x := torch.FromSlice([]float32{1, 2})
	var tr classfile.Trainer
	tr.Loss__0("mseLoss")
	loss := tr.Loss__2(x, x)
	classfile.FreeLoss(&tr, loss, x, x)
	assert.True(t, isFreed(loss), "a named loss's result is freed")
	classfile.FreeLoss(&tr, x, x)
	assert.False(t, isFreed(x), "a batch tensor is not")

	// A custom loss that keeps its results: Fit and Evaluate leave them.
	var kept []torch.Tensor
	tr.Loss__1(func(out, y torch.Tensor) torch.Tensor {
		l := out.Sub(y.To(torch.Float32).Unsqueeze(1)).Square().Mean()
		kept = append(kept, l)
		return l
	})
	tr.Progress__1(false)
	tr.Seed__1(1)
	tr.BatchSize__1(16)
	tr.Epochs__1(1)
	tr.Dataset__2(blobs(t, 64), blobs(t, 32))
	tr.Model__1(new(linear))
	tr.Fit()
	tr.Evaluate__0()
	require.NotEmpty(t, kept)
	for _, l := range kept {
		assert.False(t, isFreed(l), "a custom loss's result was freed")
	}
}

// A flag that the script never reads is an error that names it: the run
// would otherwise pass for one made with it.
func TestUnusedFlags(t *testing.T) {
	var stderr bytes.Buffer
	code := -1
	defer classfile.SetExit(&stderr, func(c int) { code = c })()
	defer classfile.SetTestHooks(io.Discard, []string{"-epochs", "4", "-seed", "3"})()

	// script never reads epochs; seed is used as it is set.
	p := new(script)
	classfile.XGot_Trainer_Main(p)
	assert.True(t, p.ran)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "the command line gives -epochs 4, but the script never used it")
	assert.NotContains(t, stderr.String(), "-seed")

	// instrumentedScript reads epochs.
	code = -1
	stderr.Reset()
	classfile.XGot_Trainer_Main(new(instrumentedScript))
	assert.Equal(t, -1, code, stderr.String())
	assert.Empty(t, stderr.String())

	// A bad flag exits before the script runs.
	defer classfile.SetTestHooks(io.Discard, []string{"-epochs", "x"})()
	q := new(script)
	classfile.XGot_Trainer_Main(q)
	assert.Equal(t, 2, code)
	assert.False(t, q.ran)
	assert.Contains(t, stderr.String(), "-epochs")
}

// A script that builds its own optimizer does not use -lr or -optimizer:
// setting it fails, naming them, unless the script read them first.
func TestOwnOptimizerWithFlags(t *testing.T) {
	var tr classfile.Trainer
	require.NoError(t, tr.ParseFlags([]string{"-lr", "0.5", "-optimizer", "sgd", "-epochs", "1"}))
	m := new(linear)
	tr.Model__1(m)
	opt := optim.Adam(m.Parameters(), optim.WithLR(0.001))
	assert.PanicsWithValue(t,
		"classfile: the command line gives -lr 0.5 -optimizer sgd, but the script builds its own optimizer, "+
			"which does not use them; drop them, or pass the knob to the optimizer (optim.withLR(lr))",
		func() { tr.Optimizer__2(opt) })

	// Reading lr (optim.withLR(lr)) uses -lr.
	var ok classfile.Trainer
	require.NoError(t, ok.ParseFlags([]string{"-lr", "0.5"}))
	ok.Model__1(m)
	own := optim.Adam(m.Parameters(), optim.WithLR(ok.Lr__0()))
	assert.NotPanics(t, func() { ok.Optimizer__2(own) })
	assert.Equal(t, 0.5, ok.Optimizer__0().ParamGroups()[0].LR())

	// The trainer's own optimizer uses them all.
	var own2 classfile.Trainer
	require.NoError(t, own2.ParseFlags([]string{"-lr", "0.5", "-optimizer", "sgd", "-momentum", "0.9", "-weight-decay", "0.1"}))
	own2.Model__1(m)
	assert.Equal(t, 0.5, own2.Optimizer__0().ParamGroups()[0].LR())
}
