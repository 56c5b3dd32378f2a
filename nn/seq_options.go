package nn

import (
	"fmt"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// seqArgs holds the options of a sequence model's constructor or Forward
// (the recurrent layers, MultiheadAttention and the transformers), by
// keyword. The caller gives PyTorch's defaults to the getters, so a
// setting left out is PyTorch's default and any value, 0 included, can be
// set.
type seqArgs struct {
	op  string
	set map[string]Option
}

// parseSeq applies opts, allowing only the keywords in allowed, and
// returns the *torch.Error of any other. A later option overrides an
// earlier one.
func parseSeq(op string, opts []Option, allowed ...string) (seqArgs, error) {
	a := seqArgs{op: op, set: map[string]Option{}}
	for _, o := range opts {
		ok := false
		for _, n := range allowed {
			ok = ok || n == o.name
		}
		if !ok {
			name := o.name
			if name == "" {
				name = "(zero Option)"
			}
			return a, &torch.Error{Op: "nn." + op, Msg: fmt.Sprintf("unexpected option %s (this takes %s)", name, strings.Join(allowed, ", "))}
		}
		a.set[o.name] = o
	}
	return a, nil
}

// mustParseSeq is parseSeq that panics with the error.
func mustParseSeq(op string, opts []Option, allowed ...string) seqArgs {
	a, err := parseSeq(op, opts, allowed...)
	if err != nil {
		panic(err)
	}
	return a
}

func (a seqArgs) has(name string) bool { _, ok := a.set[name]; return ok }

func (a seqArgs) float(name string, def float64) float64 {
	if o, ok := a.set[name]; ok {
		return o.f
	}
	return def
}

func (a seqArgs) int(name string, def int64) int64 {
	if o, ok := a.set[name]; ok && len(o.ints) > 0 {
		return o.ints[0]
	}
	return def
}

func (a seqArgs) bool(name string, def bool) bool {
	if o, ok := a.set[name]; ok {
		return o.b
	}
	return def
}

func (a seqArgs) str(name string, def string) string {
	if o, ok := a.set[name]; ok {
		return o.s
	}
	return def
}

func (a seqArgs) tensor(name string) torch.Tensor { return a.set[name].t }

func (a seqArgs) value(name string) any { return a.set[name].v }

// factory returns the dtype and device options for new parameters.
func (a seqArgs) factory() []torch.Option {
	var o []torch.Option
	if d, ok := a.set["dtype"]; ok {
		o = append(o, torch.WithDtype(d.dtype))
	}
	if d, ok := a.set["device"]; ok {
		o = append(o, torch.WithDevice(d.device))
	}
	return o
}

// forwardOpts returns the options a sequence module passes on to its
// parts: only those of opts that were set, in a fixed order.
func (a seqArgs) pick(names ...string) []Option {
	var out []Option
	for _, n := range names {
		if o, ok := a.set[n]; ok {
			out = append(out, o)
		}
	}
	return out
}

// seqErr is the *torch.Error of a bad argument of a sequence module.
func seqErr(op, format string, v ...any) error {
	return &torch.Error{Op: "nn." + op, Msg: fmt.Sprintf(format, v...)}
}
