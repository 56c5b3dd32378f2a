// Package classfile is GoTorch's XGo (formerly Go+) front end: the base
// classes of two XGo classfiles, which the gox.mod at the root of the
// module registers (XGo v1.6; gop.mod beside it says the same to gop
// v1.4). The package declares XGoPackage and the entry point
// XGot_Trainer_Main, with GopPackage and Gopt_Trainer_Main for gop v1.4.
//
//   - A *_model.gox file is a model: an nn module written in Go+. Its
//     variables are the layers, its functions are methods (Forward), and
//     its top-level statements build the layers. Its class embeds Module.
//   - A *_train.gox file is a training script. Its class embeds Trainer,
//     whose methods are the script's vocabulary: knobs (epochs 3), data
//     (dataset, trainLoader), the model, the loss, the optimizer (step),
//     evaluation, checkpoints and a progress bar.
//
// Both can call the functions of package gopkg (tensor, ones, sum(x, 1),
// crossEntropy, …) without a package name, use Tensor's operators and
// Pythonic methods (x + 1, x.argmax(1)), and refer to packages torch and
// nn (and, in scripts, optim and data) without importing them.
//
// Compile and run them with gop-torch, which needs only the Go toolchain:
//
//	go run github.com/gotorch/gotorch/cmd/gop-torch run ./examples/fashion_mnist
//
// # A model
//
// cnn/Net_model.gox, in a package of its own so that Go code can import
// it:
//
//	package cnn
//
//	var (
//		Conv1 *nn.Conv2dModule
//		Conv2 *nn.Conv2dModule
//		FC    *nn.LinearModule
//	)
//
//	func Forward(x torch.Tensor) torch.Tensor {
//		x = maxPool2d(relu(Conv1.forward(x)), 2)
//		x = maxPool2d(relu(Conv2.forward(x)), 2)
//		return FC.forward(flatten(x, 1))
//	}
//
//	Conv1 = nn.conv2d(1, 32, 3)
//	Conv2 = nn.conv2d(32, 64, 3)
//	FC = nn.linear(64*5*5, 10)
//
// Go+ makes it type Net struct { classfile.Module; Conv1 ...; Conv2 ...;
// FC ... }, with methods Forward and Main (the top-level statements).
// Layers must be exported fields: nn registers only those (Build warns
// about an unexported field that holds a layer). Build(new(Net)), or the
// script's model command, runs Main once and registers the model with nn,
// so Parameters, StateDict, Train, Eval, To and printing work.
//
// # A training script
//
// main_train.gox:
//
//	import "github.com/gotorch/gotorch/examples/fashion_mnist/cnn"
//
//	epochs 3
//	lr 0.01
//	momentum 0.9
//	seed 1
//	dataset "fashion-mnist"
//
//	net := new(cnn.Net)
//	model net
//
//	for epoch in :epochs {
//		for x, y in trainLoader {
//			step loss(net.forward(x), y)
//		}
//		log "epoch", epoch+1, "test", evaluate
//	}
//	save "fashion_mnist.safetensors"
//
// or, with the loop that Fit runs:
//
//	epochs 3
//	momentum 0.9
//	dataset "fashion-mnist"
//	model new(cnn.Net)
//	fit
//
// # The Trainer's vocabulary
//
// Knobs (set with a command, read by name; PyTorch-like defaults):
// epochs (10), batchSize (64), lr (the optimizer's default: 0.01 for SGD,
// 1e-3 for Adam), momentum (0), weightDecay (0), seed (none), device
// ("cpu"), optimizer ("sgd", "adam", "adamw", "rmsprop", "adagrad", or an
// optim.Optimizer), loss ("crossEntropy", "nllLoss", "mseLoss", "l1Loss",
// "bceWithLogits", or a function), workers (0), limitBatches (0: all),
// progress (on a terminal), checkpoint (Fit's file). The script's
// command-line flags override them: -epochs 1 -lr 0.1 -limit-batches 20
// (see ParseFlags).
//
// Data: dataset "fashion-mnist" (Debian's dataset-fashion-mnist) or
// "mnist:DIR", or dataset train, test for any data.Dataset; trainSet,
// testSet; trainLoader and testLoader, which a for-in loop iterates,
// giving batches on the device. Each loop over trainLoader is an epoch
// (epoch counts them) with a progress bar on a terminal. textDataset path,
// seqLen makes a character-level dataset of a text file (windows of
// seqLen characters, the next characters as targets, nine tenths for
// training) and sets it as the script's dataset (see examples/char_lstm).
// args gives the command-line arguments after the flags.
//
// Training: model m; loss(out, y) computes the loss; step loss takes an
// optimizer step (zero_grad, backward, step); optimizer is the optimizer,
// made for the model's parameters at its first use; evaluate gives the
// loss and accuracy on the test set (Metrics), evaluate forward for
// another forward function; fit trains for the epochs. Plain loops work
// too: the script has all of torch, nn and optim.
//
// Checkpoints: save and load write and read the model's weights
// (safetensors, PyTorch's state-dict names, as nn.Save does);
// saveCheckpoint and loadCheckpoint the whole training state (model,
// optimizer, epoch, and the random state: every rank's generator and the
// loaders' seed, so that a resumed run draws the dropout masks and random
// augmentations the run it continues would have). log prints above the
// progress bar.
//
// # Tensor memory
//
// GoTorch frees the tensors of a training step at the next torch.GC(). In
// a script compiled by gop-torch, every loop body of the script, of its
// funcs and of the closures that run on the spot (noGrad => { ... })
// starts with torch.GC() and every such loop is followed by
// torch.FinishGC(); loops that may run inside another loop's step (in
// model methods, stored closures, goroutines) start with torch.MaybeGC(),
// which collects only past a threshold. The script's class gets a
// GopTorchInstrumented method. XGot_Trainer_Main
// runs the script and calls torch.FinishGC() when it ends (also after a
// return from inside a loop). A script compiled by plain xgo (or gop)
// lacks the calls and the marker: the Trainer then warns once at start-up
// (NotInstrumentedWarning, which names gop-torch) and its loaders call
// torch.GC() before each batch and torch.FinishGC() after the last;
// other loops rely on GoTorch's memory budget. The Trainer's own loops
// (fit, evaluate) mark their steps in either case.
package classfile
