package classfile

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// knobFlags are the command-line flags of a training script, one per
// knob. A flag overrides the script: the knob keeps the flag's value
// whatever the script sets.
//
// usedAtSet says that setting the knob uses it at once (seed seeds the
// generator); the others count as used when the trainer or the script
// reads them (flagUsed).
var knobFlags = []struct {
	name, usage string
	set         func(t *Trainer, v string) error
	usedAtSet   bool
}{
	{"epochs", "number of epochs", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.Epochs__1(n)
		}
		return err
	}, false},
	{"batch-size", "batch size", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.BatchSize__1(n)
		}
		return err
	}, false},
	{"lr", "learning rate", func(t *Trainer, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			t.Lr__1(f)
		}
		return err
	}, false},
	{"momentum", "momentum of SGD and RMSprop", func(t *Trainer, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			t.Momentum__1(f)
		}
		return err
	}, false},
	{"weight-decay", "weight decay", func(t *Trainer, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			t.WeightDecay__1(f)
		}
		return err
	}, false},
	{"optimizer", "sgd, adam, adamw, rmsprop or adagrad", func(t *Trainer, v string) error {
		t.Optimizer__1(v)
		return nil
	}, false},
	{"lr-schedule", "learning-rate schedule: constant or cosine", func(t *Trainer, v string) error {
		t.LrSchedule__1(v)
		return nil
	}, false},
	{"seed", "random seed", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.Seed__1(n)
		}
		return err
	}, true},
	{"device", "device: auto, cpu, cuda, cuda:N", func(t *Trainer, v string) error {
		t.Device__1(v)
		return nil
	}, true},
	{"amp", "mixed precision: bf16, fp16 (CUDA) or off", func(t *Trainer, v string) error {
		t.Amp__1(v)
		return nil
	}, true},
	{"workers", "loader goroutines", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.Workers__1(n)
		}
		return err
	}, false},
	{"limit-batches", "most batches per epoch, 0 for all", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.LimitBatches__1(n)
		}
		return err
	}, false},
	{"progress", "progress bar: true or false", func(t *Trainer, v string) error {
		b, err := strconv.ParseBool(v)
		if err == nil {
			t.Progress__1(b)
		}
		return err
	}, false},
	{"checkpoint", "checkpoint file", func(t *Trainer, v string) error {
		t.Checkpoint__1(v)
		return nil
	}, false},
}

// ParseFlags sets knobs from command-line flags (-epochs=1 -lr 0.1
// -limit-batches 20), which the script's own settings then cannot
// change. A flag that the script never uses is an error: setting its own
// optimizer with -lr, -momentum, -weight-decay or -optimizer unread
// panics, and XGot_Trainer_Main exits with status 2 after a script that
// left any flag unread. Arguments after the flags are left to the script (os.Args). The
// generated main calls it with os.Args[1:].
func (t *Trainer) ParseFlags(args []string) error {
	name := scriptName()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vals := map[string]*string{}
	for _, k := range knobFlags {
		vals[k.name] = fs.String(k.name, "", k.usage)
	}
	usage := func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "usage: %s [flags]\nflags override the script's settings:\n", name)
		for _, k := range knobFlags {
			fmt.Fprintf(&b, "  -%s\t%s\n", k.name, k.usage)
		}
		return b.String()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return fmt.Errorf("%s", usage())
		}
		return fmt.Errorf("%v\n%s", err, usage())
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil {
			return
		}
		for _, k := range knobFlags {
			if k.name != f.Name {
				continue
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("-%s: %v", k.name, r)
					}
				}()
				if e := k.set(t, *vals[k.name]); e != nil {
					err = fmt.Errorf("-%s: %v", k.name, e)
				}
			}()
			if err == nil {
				if t.locked == nil {
					t.locked = map[string]bool{}
				}
				t.locked[k.name] = true
				t.cmdFlags = append(t.cmdFlags, &cmdFlag{name: k.name, value: *vals[k.name], used: k.usedAtSet})
			}
		}
	})
	return err
}

// A flag that the script never uses is an error: -lr 0.5 on a script
// that builds its own optimizer would change nothing, and the run would
// look as if it had.

// cmdFlag is a knob flag given on the command line.
type cmdFlag struct {
	name, value string
	used        bool
}

func (f *cmdFlag) String() string { return "-" + f.name + " " + f.value }

// flagUsed records that the knobs' values were read: by the trainer (the
// optimizer it makes reads lr) or by the script (lr as a value).
func (t *Trainer) flagUsed(names ...string) {
	for _, f := range t.cmdFlags {
		for _, n := range names {
			if f.name == n {
				f.used = true
			}
		}
	}
}

// unusedFlags returns the flags among names (all if none) that the
// command line gave and nothing has read yet.
func (t *Trainer) unusedFlags(names ...string) []string {
	var out []string
	for _, f := range t.cmdFlags {
		if f.used {
			continue
		}
		if len(names) == 0 {
			out = append(out, f.String())
			continue
		}
		for _, n := range names {
			if f.name == n {
				out = append(out, f.String())
			}
		}
	}
	return out
}

// optimizerKnobs are the knobs that only the trainer's own optimizer
// reads.
var optimizerKnobs = []string{"optimizer", "lr", "momentum", "weight-decay"}

// checkOwnOptimizer fails when the script sets its own optimizer while
// flags for the trainer's optimizer are unread: they would be ignored.
func (t *Trainer) checkOwnOptimizer() {
	if bad := t.unusedFlags(optimizerKnobs...); len(bad) > 0 {
		panic(fmt.Sprintf("classfile: the command line gives %s, but the script builds its own optimizer, which does not use %s; "+
			"drop %s, or pass the knob to the optimizer (optim.withLR(lr))",
			strings.Join(bad, " "), them(len(bad)), them(len(bad))))
	}
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// unusedFlagsError is the error for the flags that the script never used,
// nil if it used them all.
func (t *Trainer) unusedFlagsError() error {
	bad := t.unusedFlags()
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s: the command line gives %s, but the script never used %s", scriptName(), strings.Join(bad, " "), them(len(bad)))
}

// errOut and exit are where XGot_Trainer_Main reports a bad command line
// and how it ends the run then; tests replace them.
var (
	errOut io.Writer = os.Stderr
	exit             = os.Exit
)

// scriptName is the name of the running script, for messages.
func scriptName() string {
	if len(os.Args) > 0 {
		return filepath.Base(os.Args[0])
	}
	return "script"
}
