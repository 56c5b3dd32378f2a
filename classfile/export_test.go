package classfile

import (
	"io"
	"sync"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/amp"
)

// SetTestHooks sends warnings to w, forgets the warnings given, and makes
// XGot_Trainer_Main parse args. It returns a function that undoes it.
func SetTestHooks(w io.Writer, args []string) (undo func()) {
	oldOut, oldArgs := warnOut, commandLine
	warnOut = w
	warned = sync.Map{}
	commandLine = func() []string { return args }
	return func() { warnOut, commandLine = oldOut, oldArgs }
}

// SetExit makes XGot_Trainer_Main write its command-line errors to w and
// call f instead of os.Exit. It returns a function that undoes it.
func SetExit(w io.Writer, f func(code int)) (undo func()) {
	oldOut, oldExit := errOut, exit
	errOut, exit = w, f
	return func() { errOut, exit = oldOut, oldExit }
}

// EnvOff exposes envOff.
var EnvOff = envOff

// FreeLoss exposes freeLoss.
func FreeLoss(t *Trainer, loss torch.Tensor, batch ...torch.Tensor) { t.freeLoss(loss, batch...) }

// SetGradScaler gives t the GradScaler of amp "fp16" without float16
// autocast, so that the scaled step can be tested on the CPU.
func SetGradScaler(t *Trainer, s *amp.GradScaler) { t.scaler = s }

// SetAmpFloat16 turns amp "fp16" on without the knob's CUDA check, and
// Autocast runs f as the trainer runs a forward pass, so that the device
// check of float16 autocast can be tested on the CPU.
func SetAmpFloat16(t *Trainer) { t.ampDType = torch.Float16 }

// Autocast exposes Trainer.autocast.
func Autocast(t *Trainer, f func()) { t.autocast(f) }
