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
var knobFlags = []struct {
	name, usage string
	set         func(t *Trainer, v string) error
}{
	{"epochs", "number of epochs", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.Epochs__1(n)
		}
		return err
	}},
	{"batch-size", "batch size", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.BatchSize__1(n)
		}
		return err
	}},
	{"lr", "learning rate", func(t *Trainer, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			t.Lr__1(f)
		}
		return err
	}},
	{"momentum", "momentum of SGD and RMSprop", func(t *Trainer, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			t.Momentum__1(f)
		}
		return err
	}},
	{"weight-decay", "weight decay", func(t *Trainer, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			t.WeightDecay__1(f)
		}
		return err
	}},
	{"optimizer", "sgd, adam, adamw, rmsprop or adagrad", func(t *Trainer, v string) error {
		t.Optimizer__1(v)
		return nil
	}},
	{"lr-schedule", "learning-rate schedule: constant or cosine", func(t *Trainer, v string) error {
		t.LrSchedule__1(v)
		return nil
	}},
	{"seed", "random seed", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.Seed__1(n)
		}
		return err
	}},
	{"device", "device: cpu, cuda, cuda:N", func(t *Trainer, v string) error {
		t.Device__1(v)
		return nil
	}},
	{"workers", "loader goroutines", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.Workers__1(n)
		}
		return err
	}},
	{"limit-batches", "most batches per epoch, 0 for all", func(t *Trainer, v string) error {
		n, err := strconv.Atoi(v)
		if err == nil {
			t.LimitBatches__1(n)
		}
		return err
	}},
	{"progress", "progress bar: true or false", func(t *Trainer, v string) error {
		b, err := strconv.ParseBool(v)
		if err == nil {
			t.Progress__1(b)
		}
		return err
	}},
	{"checkpoint", "checkpoint file", func(t *Trainer, v string) error {
		t.Checkpoint__1(v)
		return nil
	}},
}

// ParseFlags sets knobs from command-line flags (-epochs=1 -lr 0.1
// -limit-batches 20), which the script's own settings then cannot
// change. Arguments after the flags are left to the script (os.Args). The
// generated main calls it with os.Args[1:].
func (t *Trainer) ParseFlags(args []string) error {
	name := "script"
	if len(os.Args) > 0 {
		name = filepath.Base(os.Args[0])
	}
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
			}
		}
	})
	return err
}
