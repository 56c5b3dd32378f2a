package vision

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// Model is what every model of this package is: a module whose Forward
// maps images (N, 3, H, W) to class scores (N, num_classes).
// Besides Forward, it has nn.Module's methods (StateDict, Parameters,
// Train, Eval, To, ...).
type Model interface {
	nn.Moduler
	Forward(x torch.Tensor) torch.Tensor
	TryForward(x torch.Tensor) (torch.Tensor, error)

	StateDict() map[string]torch.Tensor
	LoadStateDict(sd map[string]torch.Tensor, strict bool) error
	NamedParameters() []nn.Named
	Parameters() []torch.Tensor
	NamedBuffers() []nn.Named
	Train(on ...bool)
	Eval()
	IsTraining() bool
	ZeroGrad()
	To(targets ...torch.Target) error
	String() string
}

// Names lists the models that New builds, by torchvision's function names.
var Names = []string{"resnet18", "resnet34", "resnet50", "mobilenet_v2", "vgg11_bn", "vit_b_16"}

// New builds the model that torchvision's function of that name builds
// (torchvision.models.<name>(**kwargs)), with its options: New("resnet18",
// WithNumClasses(10)). Unlike the constructors, it returns an error for an
// unknown name or a bad option.
func New(name string, opts ...Option) (m Model, err error) {
	err = catch("New", func() {
		switch name {
		case "resnet18":
			m = ResNet18(opts...)
		case "resnet34":
			m = ResNet34(opts...)
		case "resnet50":
			m = ResNet50(opts...)
		case "mobilenet_v2":
			m = MobileNetV2(opts...)
		case "vgg11_bn":
			m = VGG11BN(opts...)
		case "vit_b_16":
			m = ViTB16(opts...)
		default:
			panic(fmt.Errorf("unknown model %q (known: %v)", name, Names))
		}
	})
	return m, err
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// catch runs f and returns the error it panics with, named after model.
// Panics that are not errors go on.
func catch(model string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("vision.%s: %w", model, e)
		}
	}()
	f()
	return nil
}

// errInput is the cause of the errors about bad input.
var errInput = errors.New("bad input")

// checkImages checks that x is a defined batch of images (N, channels, H,
// W), of size×size when size > 0, and that m is a built model.
func checkImages(model string, m nn.Moduler, x torch.Tensor, channels, size int64) error {
	if m == nil || nilPointer(m) {
		return fmt.Errorf("vision.%s: nil model: %w", model, nn.ErrUninitialized)
	}
	if !x.Defined() {
		return fmt.Errorf("vision.%s: input is an undefined tensor: %w", model, errInput)
	}
	s := x.Shape()
	if len(s) != 4 || s[1] != channels {
		return fmt.Errorf("vision.%s: input of shape %v, want (N, %d, H, W): %w", model, s, channels, errInput)
	}
	if size > 0 && (s[2] != size || s[3] != size) {
		return fmt.Errorf("vision.%s: input of shape %v, want images of %d×%d (image_size): %w", model, s, size, size, errInput)
	}
	if !x.DType().IsFloatingPoint() {
		return fmt.Errorf("vision.%s: input of dtype %v, want a floating-point dtype: %w", model, x.DType(), errInput)
	}
	return nil
}

// nilPointer reports whether m is a typed nil pointer.
func nilPointer(m nn.Moduler) bool {
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
