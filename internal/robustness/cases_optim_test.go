package robustness

import (
	"testing"

	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// optimCases: optimizers and schedulers with invalid hyper-parameters and
// parameters, and bad state dicts.
func optimCases(t *testing.T) []badCase {
	param := func() torch.Tensor { return torch.Ones(shape(2), torch.WithRequiresGrad(true)) }
	ps := func() []torch.Tensor { return []torch.Tensor{param()} }
	sgd := func() *optim.SGDOptimizer { return optim.SGD(ps(), optim.WithLR(0.1)) }
	return []badCase{
		{"SGD negative learning rate", "invalid learning rate: -1", "", nil,
			func() error { return e1(optim.TrySGD(ps(), optim.WithLR(-1))) }},
		{"SGD without learning rate", "lr", "", nil,
			func() error { return e1(optim.TrySGD(ps())) }},
		{"SGD negative momentum", "invalid momentum value: -0.5", "", nil,
			func() error { return e1(optim.TrySGD(ps(), optim.WithLR(0.1), optim.WithMomentum(-0.5))) }},
		{"SGD nesterov without momentum", "Nesterov momentum requires a momentum and zero dampening", "", nil,
			func() error { return e1(optim.TrySGD(ps(), optim.WithLR(0.1), optim.WithNesterov(true))) }},
		{"SGD negative weight decay", "invalid weight_decay value: -1", "", nil,
			func() error { return e1(optim.TrySGD(ps(), optim.WithLR(0.1), optim.WithWeightDecay(-1))) }},
		{"SGD NaN learning rate", "invalid learning rate", "", nil,
			func() error { return e1(optim.TrySGD(ps(), optim.WithLR(float64(nan)))) }},
		{"SGD option it does not take", "betas", "", nil,
			func() error { return e1(optim.TrySGD(ps(), optim.WithLR(0.1), optim.WithBetas(0.9, 0.99))) }},
		{"Adam beta", "invalid beta parameter at index 0: 1.5", "", nil,
			func() error { return e1(optim.TryAdam(ps(), optim.WithBetas(1.5, 0.9))) }},
		{"Adam negative eps", "invalid epsilon value: -1", "", nil,
			func() error { return e1(optim.TryAdam(ps(), optim.WithEps(-1))) }},
		{"AdamW negative learning rate", "invalid learning rate: -0.001", "", nil,
			func() error { return e1(optim.TryAdamW(ps(), optim.WithLR(-0.001))) }},
		{"RMSprop negative alpha", "invalid alpha value: -1", "", nil,
			func() error { return e1(optim.TryRMSprop(ps(), optim.WithAlpha(-1))) }},
		{"Adagrad negative lr_decay", "invalid lr_decay value: -1", "", nil,
			func() error { return e1(optim.TryAdagrad(ps(), optim.WithLRDecay(-1))) }},
		{"optimizer without parameters", "optimizer got an empty parameter list", "", nil,
			func() error { return e1(optim.TrySGD([]torch.Tensor{}, optim.WithLR(0.1))) }},
		{"optimizer with a non-leaf", "can't optimize a non-leaf Tensor", "", nil,
			func() error {
				return e1(optim.TrySGD([]torch.Tensor{param().MulScalar(torch.S(2))}, optim.WithLR(0.1)))
			}},
		{"optimizer with a zero Tensor", "is an undefined or freed tensor", "", nil,
			func() error { return e1(optim.TrySGD([]torch.Tensor{{}}, optim.WithLR(0.1))) }},
		{"optimizer with a freed tensor", "is an undefined or freed tensor", "", nil,
			func() error { return e1(optim.TrySGD([]torch.Tensor{freed()}, optim.WithLR(0.1))) }},
		{"optimizer with a parameter twice", "appears twice in the group", "", nil,
			func() error { w := param(); return e1(optim.TrySGD([]torch.Tensor{w, w}, optim.WithLR(0.1))) }},
		{"AddParamGroup with a parameter already in a group", "some parameters appear in more than one parameter group", "", nil,
			func() error {
				o := sgd()
				return o.AddParamGroup(optim.ParamGroup{Params: o.ParamGroups()[0].Params})
			}},
		{"LoadStateDict with another group count", "different number of parameter groups", "", nil,
			func() error {
				o := sgd()
				sd := o.StateDict()
				sd.ParamGroups = append(sd.ParamGroups, sd.ParamGroups[0])
				return o.LoadStateDict(sd)
			}},
		{"LoadStateDict with a negative learning rate", "invalid learning rate", "", nil,
			func() error {
				o := sgd()
				sd := o.StateDict()
				sd.ParamGroups[0]["lr"] = -3.0
				return o.LoadStateDict(sd)
			}},
		{"scheduler of a nil optimizer", "nil optimizer", "", nil,
			func() error { return e1(optim.TryStepLR(nil, 1)) }},
		{"StepLR step size 0", "step_size must be positive, got 0", "", nil,
			func() error { return e1(optim.TryStepLR(sgd(), 0)) }},
		{"CosineAnnealingLR T_max 0", "T_max", "", nil,
			func() error { return e1(optim.TryCosineAnnealingLR(sgd(), 0)) }},
		{"OneCycleLR no steps", "total_steps", "", nil,
			func() error { return e1(optim.TryOneCycleLR(sgd(), 0.1, 0)) }},
		{"LinearLR start factor 0", "starting multiplicative factor expected to be greater than 0", "", nil,
			func() error { return e1(optim.TryLinearLR(sgd(), optim.WithStartFactor(0))) }},
		{"ClipGradNorm_ of a freed parameter", "tensor used after Free", "", torch.ErrFreed,
			func() error { return e1(optim.TryClipGradNorm_([]torch.Tensor{freed()}, 1)) }},
	}
}
