package vision

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

func TestOptionsAreChecked(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []Option
		want string
	}{
		{"resnet18", []Option{WithPatchSize(4)}, "no option patch_size"},
		{"resnet18", []Option{WithNumClasses(0)}, "num_classes must be at least 1"},
		{"resnet18", []Option{WithGroups(2)}, "BasicBlock only supports groups=1"},
		{"resnet18", []Option{WithReplaceStrideWithDilation(false, true, true)}, "dilation > 1 not supported"},
		{"mobilenet_v2", []Option{WithWidthMult(-1)}, "width_mult must be positive"},
		{"mobilenet_v2", []Option{WithInvertedResidualSetting([4]int64{1, 16, 1, 3})}, "stride should be 1 or 2"},
		{"vgg11_bn", []Option{WithDropout(1.5)}, "dropout must be in [0, 1]"},
		{"vgg11_bn", []Option{WithWidthMult(0.5)}, "no option width_mult"},
		{"vit_b_16", []Option{WithPatchSize(8)}, "no option patch_size"},
		{"vit_b_16", []Option{WithImageSize(100)}, "indivisible by patch size"},
		{"resnet18", []Option{{}}, "zero Option"},
		{"alexnet", nil, `unknown model "alexnet"`},
	} {
		_, err := New(c.name, c.opts...)
		require.Error(t, err, c.name)
		require.Contains(t, err.Error(), c.want, c.name)
	}
	_, err := NewVisionTransformer(WithImageSize(32), WithPatchSize(8))
	require.ErrorContains(t, err, "num_layers is required")
	_, err = NewVisionTransformer(WithImageSize(32), WithPatchSize(8), WithNumLayers(1), WithNumHeads(3),
		WithHiddenDim(16), WithMLPDim(8))
	require.ErrorContains(t, err, "hidden_dim 16 is not divisible by num_heads 3")
	_, err = NewResNet(Basic, [4]int{1, 0, 1, 1})
	require.ErrorContains(t, err, "layer2 needs at least one block")
	_, err = NewVGG(nil)
	require.ErrorContains(t, err, "nil features")
	require.PanicsWithError(t, "vision.ResNet18: no option width_mult (it takes groups, num_classes, replace_stride_with_dilation, width_per_group, zero_init_residual)",
		func() { ResNet18(WithWidthMult(2)) })
}

func TestBadInputIsAnError(t *testing.T) {
	vit := must(NewVisionTransformer(WithImageSize(16), WithPatchSize(8), WithNumLayers(1), WithNumHeads(2),
		WithHiddenDim(8), WithMLPDim(8), WithNumClasses(3)))
	tiny := must(NewResNet(Basic, [4]int{1, 1, 1, 1}, WithNumClasses(3)))
	mobile := MobileNetV2(WithWidthMult(0.25), WithNumClasses(3),
		WithInvertedResidualSetting([4]int64{1, 8, 1, 2}))
	for _, m := range []Model{tiny, mobile, vit} {
		for _, c := range []struct {
			x    torch.Tensor
			want string
		}{
			{torch.Tensor{}, "undefined tensor"},
			{torch.Zeros([]int64{3, 16, 16}), "want (N, 3, H, W)"},
			{torch.Zeros([]int64{1, 1, 16, 16}), "want (N, 3, H, W)"},
			{torch.Zeros([]int64{1, 3, 16, 16}, torch.WithDtype(torch.Int64)), "floating-point"},
		} {
			_, err := m.TryForward(c.x)
			require.ErrorIs(t, err, errInput)
			require.ErrorContains(t, err, c.want)
			require.Panics(t, func() { m.Forward(c.x) })
		}
	}
	_, err := vit.TryForward(torch.Zeros([]int64{1, 3, 32, 32}))
	require.ErrorContains(t, err, "want images of 16×16")
	// Too small for the stem's pooling: libtorch's error, returned.
	_, err = tiny.TryForward(torch.Zeros([]int64{1, 3, 1, 1}))
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "vision.ResNet: "), err.Error())

	var nilNet *ResNet
	_, err = nilNet.TryForward(torch.Zeros([]int64{1, 3, 32, 32}))
	require.True(t, errors.Is(err, nn.ErrUninitialized), "%v", err)
}

// TestFineTuneResNet18 replaces ResNet-18's head, freezes the rest and
// checks that a few steps of Adam train the head alone and lower the loss.
func TestFineTuneResNet18(t *testing.T) {
	torch.ManualSeed(1)
	net := ResNet18()
	for _, p := range net.Parameters() {
		p.SetRequiresGrad(false)
	}
	net.Fc = nn.Linear(net.Fc.InFeatures, 2)
	require.Len(t, net.Parameters(), 62) // 60 of the trunk and fc's two
	require.Equal(t, []int64{2, 512}, net.StateDict()["fc.weight"].Shape())

	conv1 := net.Conv1.Weight.Clone()
	opt := optim.Adam(net.Fc.Parameters(), optim.WithLR(1e-3))
	x := torch.Randn([]int64{4, 3, 32, 32})
	y := torch.FromSlice([]int64{0, 1, 0, 1})
	net.Eval() // batch norms keep their statistics, as when fine-tuning the head only
	var first, last float64
	for step := 0; step < 5; step++ {
		opt.ZeroGrad()
		loss := F.CrossEntropy(net.Forward(x), y)
		loss.Backward()
		opt.Step()
		if step == 0 {
			first = loss.Item()
		}
		last = loss.Item()
	}
	require.Less(t, last, first)
	require.True(t, torch.Equal(conv1, net.Conv1.Weight), "the frozen trunk changed")
	require.False(t, net.Conv1.Weight.Grad().Defined(), "the frozen trunk has gradients")
}
