package classfile

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/amp"
)

// XGoPackage marks the package for XGo: Trainer's knobs are overloaded
// (epochs 3 sets, epochs reads). GopPackage is the same mark for gop v1.4.
const (
	XGoPackage = true
	GopPackage = true
)

// Defaults of the knobs, PyTorch's where it has one (Adam's lr), the
// PyTorch examples' otherwise (batch size 64).
const (
	DefaultEpochs    = 10
	DefaultBatchSize = 64
	DefaultOptimizer = "sgd"
	DefaultLoss      = "crossEntropy"
)

// defaultLR is the learning rate of each optimizer when lr is not set:
// PyTorch's default, or 0.01 for SGD, which has none.
var defaultLR = map[string]float64{
	"sgd": 0.01, "adam": 1e-3, "adamw": 1e-3, "rmsprop": 0.01, "adagrad": 0.01,
}

// Trainer is the base class of the project class of a *_train.gox file, a
// training script. Its methods are the script's vocabulary; Go+ spells
// them in lower case and calls those without arguments by their name
// alone (epochs, trainLoader).
//
// Knobs are commands that set (epochs 3) and properties that read
// (for epoch in :epochs). Each has a default, so a script sets only what
// it changes.
//
// The zero Trainer is ready to use; Go+ makes one for each script.
type Trainer struct {
	epochs, batchSize, workers int
	lr, momentum, weightDecay  float64
	wdSet, momentumSet         bool
	seed                       uint64
	seeded                     bool
	device                     torch.Device
	deviceSet                  bool
	ampDType                   torch.DType     // amp "bf16" or "fp16" (amp.go); 0 is off
	scaler                     *amp.GradScaler // amp "fp16": Step scales the loss (amp.go)
	optName                    string
	schedName                  string
	sched                      *optim.LRScheduler
	lossName                   string
	lossFn                     func(out, target torch.Tensor) torch.Tensor
	progress, progressSet      bool
	checkpoint                 string
	limitBatches               int

	// resumedLoaderSeed is a checkpoint's loader seed, which the loaders of
	// a script without a seed take (checkpoint_rng.go).
	resumedLoaderSeed    uint64
	hasResumedLoaderSeed bool

	// locked holds the knobs set on the command line, which the script
	// cannot change.
	locked map[string]bool
	// cmdFlags are those flags, and whether they were used (flags.go).
	cmdFlags []*cmdFlag

	model    nn.Moduler
	opt      optim.Optimizer
	trainSet Dataset
	testSet  Dataset
	// trainTransform and testTransform turn a loader's input batches
	// into the model's inputs (built-in datasets: pixels to floats).
	trainTransform, testTransform func(torch.Tensor) torch.Tensor
	train                         *Batches
	test                          *Batches

	dist         *distState // the distributed knob (distributed.go)
	epoch        int        // training epochs started
	steps        int        // optimizer steps taken
	instrumented bool
	bar          *bar
}

func (t *Trainer) trainerBase() *Trainer { return t }

// commandLine returns the arguments that XGot_Trainer_Main parses.
var commandLine = func() []string { return os.Args[1:] }

// project is what Go+ makes of a *_train.gox file: a struct that embeds
// Trainer, with a MainEntry method holding the top-level statements.
type project interface {
	trainerBase() *Trainer
}

// instrumented is implemented by project classes that gop-torch compiled:
// it adds this method to mark that it inserted torch.GC() and
// torch.FinishGC() calls into the script's loops.
type instrumented interface {
	GopTorchInstrumented() string
}

// XGot_Trainer_Main is the entry point of a *_train.gox script: XGo
// generates main() { new(Script).Main() } and Script.Main calls this.
//
// It parses the command line's flags (ParseFlags), runs the script's
// top-level statements (MainEntry), then ends the last GC step
// (torch.FinishGC). That FinishGC also covers a return from inside a loop,
// which skips the FinishGC that gop-torch puts after the loop.
//
// A script compiled by plain xgo (or gop) rather than gop-torch has no GC
// calls in its loops; the Trainer then warns once at start-up
// (NotInstrumentedWarning) and calls torch.GC itself at each batch of its
// loaders.
//
// The script runs locked to its OS thread (runtime.LockOSThread), as a C++
// or Python training loop runs on one thread. libgomp keeps a team of
// OpenMP workers for every thread that starts a parallel op; a goroutine
// that changes threads (Go moves it at its collections) leaves teams
// behind, and once they outnumber the CPUs their workers sleep between ops
// and every parallel op pays for waking them. Locked, an epoch of
// examples/fashion_mnist ran in 17.2–17.9 s against 19.9–21.7 s
// (docs/memory.md). GOTORCH_LOCK_THREAD=0 (or false, off, no) turns the
// lock off.
func XGot_Trainer_Main(p project) {
	t := p.trainerBase()
	if v, ok := p.(instrumented); ok && v.GopTorchInstrumented() != "" {
		t.instrumented = true
	} else {
		warnOnce("%s", NotInstrumentedWarning)
	}
	entry, ok := p.(interface{ MainEntry() })
	if !ok {
		panic(fmt.Sprintf("classfile: %T has no top-level statements (MainEntry)", p))
	}
	if err := t.ParseFlags(commandLine()); err != nil {
		fmt.Fprintln(errOut, err)
		exit(2)
		return
	}
	// A flag that nothing the script calls can read: say so before the
	// run, when gop-torch listed what it calls (knobs.go).
	if v, ok := p.(selectorLister); ok {
		if err := t.unreadableFlagsError(v.GopTorchSelectors()); err != nil {
			fmt.Fprintln(errOut, err)
			exit(2)
			return
		}
	}
	if !envOff("GOTORCH_LOCK_THREAD") {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	defer t.finish()
	entry.MainEntry()
	// A flag that nothing read changed nothing: say so, rather than let
	// the run pass for one made with it.
	if err := t.unusedFlagsError(); err != nil {
		t.finish()
		fmt.Fprintln(errOut, err)
		exit(2)
	}
}

// Gopt_Trainer_Main is XGot_Trainer_Main under the name that gop v1.4
// looks for (gop.mod). XGo accepts both names; it calls this one, the
// first in alphabetical order, and it does the same.
func Gopt_Trainer_Main(p project) { XGot_Trainer_Main(p) }

// NotInstrumentedWarning is what a script that gop-torch did not compile
// prints at start-up, once: plain xgo run, xgo build or gop run make a
// program without GoTorch's loop GC and without its freeing of
// temporaries.
const NotInstrumentedWarning = "this script was compiled without GoTorch's loop GC (by xgo or gop, not gop-torch): " +
	"its loops do not call torch.GC() and its temporaries wait for the collector; " +
	"the trainer's loaders call torch.GC() at each batch, other loops rely on GoTorch's memory budget. " +
	"Compile and run it with: go run github.com/gotorch/gotorch/cmd/gop-torch run DIR"

// envOff reports whether the environment variable is set to turn
// something off: 0, false, off or no.
func envOff(name string) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(name))) {
	case "0", "false", "off", "no":
		return true
	}
	return false
}

// finish ends what a script leaves open: the progress bar and the GC step.
func (t *Trainer) finish() {
	if t.bar != nil {
		t.bar.finish()
		t.bar = nil
	}
	torch.FinishGC()
}

// Instrumented reports whether gop-torch compiled the script, inserting
// torch.GC() at the top of its loops.
func (t *Trainer) Instrumented() bool { return t.instrumented }

// Epochs__0 is the number of epochs (default 10).
func (t *Trainer) Epochs__0() int {
	t.flagUsed("epochs")
	if t.epochs == 0 {
		return DefaultEpochs
	}
	return t.epochs
}

// Epochs__1 sets the number of epochs: epochs 3.
func (t *Trainer) Epochs__1(n int) {
	if t.locked["epochs"] {
		return
	}
	if n < 1 {
		panic(fmt.Sprintf("classfile: epochs must be at least 1, got %d", n))
	}
	t.epochs = n
}

// BatchSize__0 is the batch size of the loaders (default 64).
func (t *Trainer) BatchSize__0() int {
	t.flagUsed("batch-size")
	if t.batchSize == 0 {
		return DefaultBatchSize
	}
	return t.batchSize
}

// BatchSize__1 sets the batch size: batchSize 128. Loaders made earlier
// are made again.
func (t *Trainer) BatchSize__1(n int) {
	if t.locked["batch-size"] {
		return
	}
	if n < 1 {
		panic(fmt.Sprintf("classfile: batchSize must be at least 1, got %d", n))
	}
	t.batchSize = n
	t.train, t.test = nil, nil
}

// Workers__0 is the number of goroutines that load batches (default 0:
// the loop's own goroutine loads them, PyTorch's num_workers=0).
func (t *Trainer) Workers__0() int {
	t.flagUsed("workers")
	return t.workers
}

// Workers__1 sets the number of loader goroutines.
func (t *Trainer) Workers__1(n int) {
	if t.locked["workers"] {
		return
	}
	if n < 0 {
		panic(fmt.Sprintf("classfile: workers must not be negative, got %d", n))
	}
	t.workers = n
	t.train, t.test = nil, nil
}

// Lr__0 is the learning rate: as set, or the optimizer's default (0.01
// for SGD, 1e-3 for Adam and AdamW, 0.01 for RMSprop and Adagrad).
func (t *Trainer) Lr__0() float64 {
	t.flagUsed("lr")
	if t.lr == 0 {
		return defaultLR[t.OptimizerName()]
	}
	return t.lr
}

// Lr__1 sets the learning rate: lr 0.1. It also changes the learning
// rate of the optimizer if it exists, so a script can decay it by hand.
func (t *Trainer) Lr__1(lr float64) {
	if t.locked["lr"] {
		return
	}
	if !(lr > 0) {
		panic(fmt.Sprintf("classfile: lr must be positive, got %v", lr))
	}
	t.lr = lr
	if t.opt != nil {
		for _, g := range t.opt.ParamGroups() {
			g.SetLR(lr)
		}
	}
}

// Momentum__0 is SGD's and RMSprop's momentum (default 0).
func (t *Trainer) Momentum__0() float64 {
	t.flagUsed("momentum")
	return t.momentum
}

// Momentum__1 sets the momentum: momentum 0.9. The optimizer is made
// again at its next use.
func (t *Trainer) Momentum__1(m float64) {
	if t.locked["momentum"] {
		return
	}
	t.momentum, t.momentumSet = m, true
	t.opt = nil
}

// WeightDecay__0 is the weight decay (default: the optimizer's, 0 except
// AdamW's 0.01).
func (t *Trainer) WeightDecay__0() float64 {
	t.flagUsed("weight-decay")
	if !t.wdSet && t.OptimizerName() == "adamw" {
		return 0.01
	}
	return t.weightDecay
}

// WeightDecay__1 sets the weight decay. The optimizer is made again at its
// next use.
func (t *Trainer) WeightDecay__1(wd float64) {
	if t.locked["weight-decay"] {
		return
	}
	t.weightDecay, t.wdSet = wd, true
	t.opt = nil
}

// Seed__0 is the random seed, or -1 if none was set (PyTorch's default: a
// different run each time).
func (t *Trainer) Seed__0() int {
	if !t.seeded {
		return -1
	}
	return int(t.seed)
}

// Seed__1 seeds libtorch's generator (torch.manual_seed) and the loaders'
// shuffling: seed 1. Set it before model, so that the initial weights
// depend on it.
func (t *Trainer) Seed__1(seed int) {
	if t.locked["seed"] {
		return
	}
	t.seed, t.seeded = uint64(seed), true
	torch.ManualSeed(uint64(seed))
	t.train, t.test = nil, nil
}

// Device__0 is the device that the model and batches live on (default
// "auto": cuda:0 when a GPU is present, else cpu).
func (t *Trainer) Device__0() torch.Device {
	if !t.deviceSet {
		return autoDevice()
	}
	return t.device
}

// Device__1 sets the device: device "cuda", device "cuda:1". The model, if
// set, moves there; batches move there as the loaders yield them.
func (t *Trainer) Device__1(name string) {
	if t.locked["device"] {
		return
	}
	if name == "auto" {
		t.deviceSet = false
		if t.model != nil {
			t.moveModel()
		}
		return
	}
	d, err := torch.TryParseDevice(name)
	if err != nil {
		panic(fmt.Errorf("classfile: device %q: %w", name, err))
	}
	if d.Type == torch.CUDADevice && !torch.CUDAIsAvailable() {
		panic(fmt.Errorf("classfile: device %q: this libtorch has no CUDA device", name))
	}
	t.device, t.deviceSet = d, true
	if t.model != nil {
		t.moveModel()
	}
}

// Progress__0 reports whether loaders show a progress bar (default: when
// stderr is a terminal).
func (t *Trainer) Progress__0() bool {
	t.flagUsed("progress")
	if !t.progressSet {
		return isTerminal(os.Stderr)
	}
	return t.progress
}

// Progress__1 turns the progress output on or off: progress false.
func (t *Trainer) Progress__1(on bool) {
	if t.locked["progress"] {
		return
	}
	t.progress, t.progressSet = on, true
}

// Checkpoint__0 is the checkpoint file of Fit, "" for none.
func (t *Trainer) Checkpoint__0() string {
	t.flagUsed("checkpoint")
	return t.checkpoint
}

// Checkpoint__1 sets Fit's checkpoint file: Fit resumes from it if it
// exists and saves to it after every epoch (SaveCheckpoint).
func (t *Trainer) Checkpoint__1(path string) {
	if t.locked["checkpoint"] {
		return
	}
	t.checkpoint = path
}

// LimitBatches__0 is the most batches that a loop over a loader takes per
// epoch, 0 for all (the default).
func (t *Trainer) LimitBatches__0() int {
	t.flagUsed("limit-batches")
	return t.limitBatches
}

// LimitBatches__1 limits the batches per epoch, for a quick trial run:
// limitBatches 20.
func (t *Trainer) LimitBatches__1(n int) {
	if t.locked["limit-batches"] {
		return
	}
	if n < 0 {
		panic(fmt.Sprintf("classfile: limitBatches must not be negative, got %d", n))
	}
	t.limitBatches = n
}

// Model__0 is the model being trained, nil before model is called.
func (t *Trainer) Model__0() nn.Moduler { return t.model }

// Model__1 sets the model to train: model net. A _model.gox model is
// built first (Build), so `net := new(Net); model net` is enough. The
// model moves to the device, and the optimizer is made for its
// parameters at its first use.
func (t *Trainer) Model__1(m nn.Moduler) {
	if m == nil {
		panic("classfile: model(nil)")
	}
	if cm, ok := m.(Model); ok {
		buildModel(cm)
	}
	t.model = m
	t.opt = nil
	if t.Device__0().Type != torch.CPUDevice {
		t.moveModel()
	}
	if t.dist != nil {
		t.wrapDDP()
	}
}

func (t *Trainer) moveModel() {
	mv, ok := t.model.(interface{ To(...torch.Target) error })
	if !ok {
		return
	}
	if err := mv.To(t.Device__0()); err != nil {
		panic(fmt.Errorf("classfile: moving the model to %v: %w", t.Device__0(), err))
	}
	t.opt = nil
}

// forward returns the model's Forward as a function of one tensor.
func (t *Trainer) forward(what string) func(torch.Tensor) torch.Tensor {
	if t.model == nil {
		panic(fmt.Sprintf("classfile: %s needs a model: call model first", what))
	}
	f, ok := t.model.(interface {
		Forward(torch.Tensor) torch.Tensor
	})
	if !ok {
		panic(fmt.Sprintf("classfile: %s needs %T to have a method Forward(x torch.Tensor) torch.Tensor; pass a function instead", what, t.model))
	}
	return f.Forward
}

// parameters returns the model's parameters.
func (t *Trainer) parameters() []torch.Tensor {
	if t.model == nil {
		panic("classfile: the optimizer needs a model: call model first")
	}
	p, ok := t.model.(interface{ Parameters() []torch.Tensor })
	if !ok {
		panic(fmt.Sprintf("classfile: %T has no Parameters method", t.model))
	}
	return p.Parameters()
}

// OptimizerName is the name of the optimizer that Optimizer makes:
// "sgd" (default), "adam", "adamw", "rmsprop" or "adagrad"; "" for a
// custom optimizer.
func (t *Trainer) OptimizerName() string {
	t.flagUsed("optimizer")
	if t.optName == "" {
		return DefaultOptimizer
	}
	return t.optName
}

// Optimizer__0 is the optimizer of the model's parameters, made at its
// first use with lr, momentum and weightDecay.
func (t *Trainer) Optimizer__0() optim.Optimizer {
	if t.opt == nil {
		t.opt = t.newOptimizer()
	}
	return t.opt
}

// Optimizer__1 picks the optimizer by its PyTorch name: optimizer "adam".
func (t *Trainer) Optimizer__1(name string) {
	if t.locked["optimizer"] {
		return
	}
	n := strings.ToLower(name)
	if _, ok := defaultLR[n]; !ok {
		panic(fmt.Sprintf("classfile: unknown optimizer %q (want sgd, adam, adamw, rmsprop or adagrad)", name))
	}
	t.optName = n
	t.opt = nil
}

// Optimizer__2 sets a custom optimizer: optimizer optim.adam(net.parameters, ...).
func (t *Trainer) Optimizer__2(o optim.Optimizer) {
	if o == nil {
		panic("classfile: optimizer(nil)")
	}
	t.checkOwnOptimizer()
	t.opt = o
	t.optName = "custom"
}

func (t *Trainer) newOptimizer() optim.Optimizer {
	t.flagUsed(optimizerKnobs...)
	params := t.parameters()
	name := t.OptimizerName()
	opts := []optim.Option{optim.WithLR(t.Lr__0())}
	if t.wdSet {
		opts = append(opts, optim.WithWeightDecay(t.weightDecay))
	}
	var o optim.Optimizer
	var err error
	switch name {
	case "sgd":
		if t.momentumSet {
			opts = append(opts, optim.WithMomentum(t.momentum))
		}
		o, err = optim.TrySGD(params, opts...)
	case "rmsprop":
		if t.momentumSet {
			opts = append(opts, optim.WithMomentum(t.momentum))
		}
		o, err = optim.TryRMSprop(params, opts...)
	case "adam", "adamw", "adagrad":
		if t.momentumSet && t.momentum != 0 {
			warnOnce("%s has no momentum; momentum %v is ignored", name, t.momentum)
		}
		switch name {
		case "adam":
			o, err = optim.TryAdam(params, opts...)
		case "adamw":
			o, err = optim.TryAdamW(params, opts...)
		default:
			o, err = optim.TryAdagrad(params, opts...)
		}
	default:
		panic(fmt.Sprintf("classfile: no optimizer: %q", name))
	}
	if err != nil {
		panic(fmt.Errorf("classfile: optimizer %s: %w", name, err))
	}
	return o
}

// lossFuncs are the losses that loss "name" picks, by PyTorch's names in
// camel case.
var lossFuncs = map[string]func(out, target torch.Tensor) torch.Tensor{
	"crossEntropy":  func(out, y torch.Tensor) torch.Tensor { return functional.CrossEntropy(out, y) },
	"nllLoss":       func(out, y torch.Tensor) torch.Tensor { return functional.NllLoss(out, y) },
	"mseLoss":       func(out, y torch.Tensor) torch.Tensor { return functional.MseLoss(out, y) },
	"l1Loss":        func(out, y torch.Tensor) torch.Tensor { return functional.L1Loss(out, y) },
	"bceWithLogits": func(out, y torch.Tensor) torch.Tensor { return functional.BinaryCrossEntropyWithLogits(out, y) },
}

// Loss__0 picks the loss by name: loss "crossEntropy" (the default),
// "nllLoss", "mseLoss", "l1Loss" or "bceWithLogits".
func (t *Trainer) Loss__0(name string) {
	f, ok := lossByName(name)
	if !ok {
		panic(fmt.Sprintf("classfile: unknown loss %q (want crossEntropy, nllLoss, mseLoss, l1Loss or bceWithLogits)", name))
	}
	t.lossName, t.lossFn = name, f
}

// Loss__1 sets a custom loss: loss (out, y) => mseLoss(out.squeeze, y).
func (t *Trainer) Loss__1(fn func(out, target torch.Tensor) torch.Tensor) {
	if fn == nil {
		panic("classfile: loss(nil)")
	}
	t.lossName, t.lossFn = "custom", fn
}

// Loss__2 computes the loss of a batch: loss(net.forward(x), y).
func (t *Trainer) Loss__2(out, target torch.Tensor) torch.Tensor {
	return t.lossFunc()(out, target)
}

func (t *Trainer) lossFunc() func(out, target torch.Tensor) torch.Tensor {
	if t.lossFn == nil {
		t.lossName, t.lossFn = DefaultLoss, lossFuncs[DefaultLoss]
	}
	return t.lossFn
}

func lossByName(name string) (func(out, target torch.Tensor) torch.Tensor, bool) {
	key := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
	for n, f := range lossFuncs {
		if strings.ToLower(n) == key {
			return f, true
		}
	}
	return nil, false
}

// Step takes one optimizer step on a batch's loss: it drops the old
// gradients, back-propagates loss and updates the parameters, PyTorch's
// optimizer.zero_grad(); loss.backward(); optimizer.step(). The progress
// bar shows the running mean of the losses.
func (t *Trainer) Step(loss torch.Tensor) {
	opt := t.Optimizer__0()
	opt.ZeroGrad()
	if t.scaler != nil {
		t.scaledStep(opt, loss) // amp "fp16"
	} else {
		t.prepareBackward(loss)
		loss.Backward()
		opt.Step()
	}
	t.syncBuffers()
	t.steps++
	if t.bar != nil && t.bar.training && !t.bar.done {
		t.bar.addLoss(loss.Item())
	}
}

// Steps is the number of optimizer steps taken.
func (t *Trainer) Steps() int { return t.steps }

// Epoch is the number of training epochs started: 1 during the first.
// Loading a checkpoint restores it.
func (t *Trainer) Epoch() int { return t.epoch }

// Log prints its arguments as fmt.Println does, above the progress bar.
func (t *Trainer) Log(args ...any) {
	if t.Rank() != 0 {
		return
	}
	if t.bar != nil {
		t.bar.clear()
	}
	fmt.Println(args...)
}

func (t *Trainer) loaderSeed() uint64 {
	if t.seeded {
		return t.seed
	}
	if t.hasResumedLoaderSeed {
		return t.resumedLoaderSeed
	}
	return rand.Uint64()
}
