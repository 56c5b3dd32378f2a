package nn

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// D1, D2 and D3 are the dimensions of a layer family defined once for all
// of them. A family is a generic type, such as ReflectionPadModule[D], and
// each of its members has PyTorch's name as an alias:
//
//	type ReflectionPad2dModule = ReflectionPadModule[D2]
//
// so that Go and Go+ code write *nn.ReflectionPad2dModule, and the layer
// prints, names its errors and documents itself as ReflectionPad2d.
type (
	D1 struct{}
	D2 struct{}
	D3 struct{}
)

func (D1) rank() int { return 1 }
func (D2) rank() int { return 2 }
func (D3) rank() int { return 3 }

// Dim is the constraint of the dimension of a layer family.
type Dim interface {
	D1 | D2 | D3
	rank() int
}

// rankOf is D's number of spatial dimensions: 1, 2 or 3.
func rankOf[D Dim]() int {
	var d D
	return d.rank()
}

// familyName is a family member's PyTorch name: family plus "1d", "2d" or
// "3d".
func familyName[D Dim](family string) string {
	return family + strconv.Itoa(rankOf[D]()) + "d"
}

// nilLayer is the error of a layer method called on a nil pointer, most
// often a field of a model that its constructor never set. Without the
// check it would be a bare nil-pointer dereference that names nothing.
// A layer named by reprName (the members of a generic family, whose %T is
// *nn.MaxPoolModule[nn.D2]) is named so.
func nilLayer(m any) error {
	typ := fmt.Sprintf("%T", m)
	name := strings.TrimSuffix(strings.TrimPrefix(typ, "*nn."), "Module")
	if r, ok := m.(interface{ reprName() string }); ok && strings.Contains(typ, "[") {
		name = r.reprName()
		typ = "*nn." + name + "Module"
	}
	return &torch.Error{Op: "nn." + name, Msg: fmt.Sprintf("called on a nil %s (a layer that was never constructed?)", typ), Err: ErrUninitialized}
}

// catch runs f, which calls the panicking forms of torch's ops, and
// returns the *torch.Error that one of them panicked with. Layers made of
// several ops use it to return errors without checking each op. f records
// the tensors it makes for its own use in tmp; catch frees them, but for
// f's result and the tensors in keep (the layer's arguments), as package
// temps says.
func catch(keep []torch.Tensor, f func(tmp *temps.List) torch.Tensor) (torch.Tensor, error) {
	return temps.Run(keep, f)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
