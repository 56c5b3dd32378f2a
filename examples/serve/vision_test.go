package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/models/vision"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/pt"
)

// TestVisionArchServes loads a ResNet-18 state dict with -arch resnet18
// and checks that Classify answers what the model computes on the
// normalized, three-channel images.
func TestVisionArchServes(t *testing.T) {
	torch.ManualSeed(3)
	net := vision.ResNet18(vision.WithNumClasses(NumClasses))
	path := filepath.Join(t.TempDir(), "resnet18.pt")
	require.NoError(t, pt.Save(path, net.StateDict()))

	m, err := loadVisionModel("resnet18", path, "auto")
	require.NoError(t, err)
	imgs := []*Pixels{new(Pixels), new(Pixels)}
	for i := range imgs[1] {
		imgs[0][i] = float32(i%28) / 28
		imgs[1][i] = float32(i%7) / 7
	}
	probs, err := m.Classify(imgs)
	require.NoError(t, err)
	require.Len(t, probs, 2)

	x := make([]float32, 0, 2*Side*Side)
	for _, img := range imgs {
		for _, v := range img {
			x = append(x, (v-pixelMean)/pixelStd)
		}
	}
	net.Eval()
	var want []float32
	torch.NoGrad(func() {
		in := torch.FromSlice(x, 2, 1, Side, Side).Expand([]int64{-1, 3, -1, -1})
		want = torch.ToSlice[float32](F.Softmax(net.Forward(in), 1))
	})
	for i := range probs {
		for c := range probs[i] {
			require.InDelta(t, want[i*NumClasses+c], probs[i][c], 1e-6, "image %d class %d", i, c)
		}
	}
}

func TestVisionArchErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "resnet18.pt")
	require.NoError(t, pt.Save(path, vision.ResNet18(vision.WithNumClasses(NumClasses)).StateDict()))

	_, err := loadVisionModel("alexnet", path, "auto")
	require.ErrorContains(t, err, `unknown model "alexnet"`)
	_, err = loadVisionModel("mobilenet_v2", path, "auto")
	require.ErrorContains(t, err, "loading "+path+" into mobilenet_v2")
	_, err = loadVisionModel("resnet18", filepath.Join(dir, "w.safetensors"), "auto")
	require.ErrorContains(t, err, "must be a PyTorch state dict")
	// 1000 classes (ImageNet's head) does not fit the server's 10.
	big := filepath.Join(dir, "imagenet.pt")
	require.NoError(t, pt.Save(big, vision.ResNet18().StateDict()))
	_, err = loadVisionModel("resnet18", big, "pt")
	require.ErrorContains(t, err, "fc.weight")
}
