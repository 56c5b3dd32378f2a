package classfile

import (
	"fmt"
	"strings"
)

// Flags that a script cannot read, known before the run.
//
// A knob flag the script never reads changes nothing (flags.go). After
// the run, XGot_Trainer_Main reports it; when gop-torch compiled the
// script, it is known before: gop-torch lists the names of every method
// and field the script selects (the GopTorchSelectors method it adds to
// the project class), and knobReaders (knobs_gen.go, found in this
// package's source) says which knobs each of Trainer's methods may read.
// A flag that no selected method may read is an error before the first
// statement runs, instead of after the training it did not change.

// selectorLister is implemented by project classes that gop-torch
// compiled: the names the script selects (x.Name), sorted; nil when the
// script passes the class itself somewhere, which could call anything.
type selectorLister interface {
	GopTorchSelectors() []string
}

// unreadableFlags returns the command line's flags that no method among
// selectors may read.
func (t *Trainer) unreadableFlags(selectors []string) []string {
	readable := map[string]bool{}
	for _, s := range selectors {
		for _, k := range knobReaders[s] {
			readable[k] = true
		}
	}
	var out []string
	for _, f := range t.cmdFlags {
		if !f.used && !readable[f.name] {
			out = append(out, f.String())
		}
	}
	return out
}

// unreadableFlagsError is the error for the flags that the script cannot
// read, nil if it may read them all.
func (t *Trainer) unreadableFlagsError(selectors []string) error {
	bad := t.unreadableFlags(selectors)
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s: the command line gives %s, but nothing the script calls reads %s (known before the run); "+
		"drop %s, or read the knob in the script (lr as a value, optim.withLR(lr))",
		scriptName(), strings.Join(bad, " "), them(len(bad)), them(len(bad)))
}
