package classfile

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// Module is the base class of the work classes in *_model.gox files. Go+
// makes each such file a struct that embeds Module, so a model is an
// nn module: Parameters, StateDict, Train, Eval, To and printing come from
// nn.Module, and nn registers the model's exported fields as its layers
// and parameters.
//
// The file's top-level statements become the model's Main method, which
// builds the layers. Build (or Trainer.Model) runs it once and calls
// nn.Module.Init, which a Go constructor would have called.
type Module struct {
	nn.Module
	built bool
}

func (m *Module) classfileModule() *Module { return m }

// Model is a work class of a *_model.gox file: a pointer to a struct that
// embeds Module, with the Main method that Go+ makes of the file's
// top-level statements.
type Model interface {
	nn.Moduler
	Main()
	classfileModule() *Module
}

// Build makes m ready to use and returns it: the first time, it registers
// m with nn (nn.Module.Init) and runs its top-level statements, which
// build the layers. Later calls do nothing. In Go+:
//
//	net := build(new(Net))
//
// and in Go, for a model package that Go+ generated:
//
//	net := classfile.Build(new(cnn.Net))
func Build[M Model](m M) M {
	buildModel(m)
	return m
}

func buildModel(m Model) {
	base := m.classfileModule()
	if base.built {
		return
	}
	base.built = true
	base.Init(m)
	m.Main()
	checkFields(m)
}

var (
	warned  sync.Map              // warnings given, by text
	warnOut io.Writer = os.Stderr // where warnings go
)

// warnOnce prints a warning to stderr the first time it is given.
func warnOnce(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if _, dup := warned.LoadOrStore(msg, true); !dup {
		fmt.Fprintln(warnOut, "gotorch: warning:", msg)
	}
}

var (
	tensorType  = reflect.TypeOf(torch.Tensor{})
	modulerType = reflect.TypeOf((*nn.Moduler)(nil)).Elem()
)

// checkFields warns about unexported fields that hold tensors or modules:
// nn registers only exported fields, so their parameters would not be
// trained or saved.
func checkFields(m Model) {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	t := v.Elem().Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.IsExported() || f.Anonymous || !holdsState(f.Type, 0) {
			continue
		}
		warnOnce("%s.%s holds a %s but is not exported, so nn does not register it: its parameters are not trained, moved or saved. Name it %s.",
			t.Name(), f.Name, f.Type, exported(f.Name))
	}
}

// exported capitalizes a field name.
func exported(name string) string {
	r := []rune(name)
	if len(r) > 0 && r[0] == '_' {
		r = r[1:]
	}
	if len(r) == 0 {
		return "X"
	}
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

// holdsState reports whether values of t are, or hold, tensors or modules.
func holdsState(t reflect.Type, depth int) bool {
	if depth > 3 {
		return false
	}
	switch {
	case t == tensorType, t.Implements(modulerType):
		return true
	case t.Kind() == reflect.Slice, t.Kind() == reflect.Array, t.Kind() == reflect.Map:
		return holdsState(t.Elem(), depth+1)
	}
	return false
}
