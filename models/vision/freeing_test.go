package vision

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// liveAfter runs f without gradients, after a collection, and returns how
// many tensors it left live (made and not freed) and their bytes.
func liveAfter(f func()) (tensors, bytes int64) {
	torch.FinishGC()
	before := torch.ReadMemStats()
	torch.NoGrad(f)
	after := torch.ReadMemStats()
	return after.LiveTensors - before.LiveTensors, after.LiveBytes - before.LiveBytes
}

// An eval forward of a ResNet frees every intermediate, the downsample
// branches' included, so that only its logits outlive it and torch.GC()
// finds nothing worth a collection after a batch-1 forward (issue #35).
func TestResNetForwardLeavesOnlyItsOutput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block Block
	}{{"basic", Basic}, {"bottleneck", Bottleneck}} {
		t.Run(tc.name, func(t *testing.T) {
			torch.ManualSeed(1)
			net, err := NewResNet(tc.block, [4]int{1, 1, 1, 1}, WithNumClasses(10))
			require.NoError(t, err)
			net.Eval()
			x := torch.Randn([]int64{1, 3, 64, 64})
			var y torch.Tensor
			n, bytes := liveAfter(func() { y = net.Forward(x) })
			require.Equal(t, []int64{1, 10}, y.Shape())
			require.EqualValues(t, 1, n, "tensors a forward left live besides its output")
			require.Less(t, bytes, int64(4096), "bytes a forward left live besides its output's")
			y.Free()
		})
	}
}

// keeper is a user's module that keeps what it returns.
type keeper struct {
	nn.Module
	Conv *nn.Conv2dModule
	kept torch.Tensor
}

func (k *keeper) Forward(x torch.Tensor) torch.Tensor {
	k.kept = k.Conv.Forward(x)
	return k.kept
}

// A downsample of the user's is run through its Forward, and what it
// returns is not freed: the user may hold it.
func TestResNetKeepsAUserDownsamplesResult(t *testing.T) {
	torch.ManualSeed(1)
	net := ResNet18(WithNumClasses(10))
	net.Eval()
	block := net.Layer2.Layers[0].(*BasicBlock)
	k := &keeper{Conv: block.Downsample.Layers[0].(*nn.Conv2dModule)}
	k.Init(k)
	block.Downsample = nn.Sequential(k)
	x := torch.Randn([]int64{1, 3, 64, 64})
	torch.NoGrad(func() { net.Forward(x) })
	require.True(t, k.kept.Defined())
	require.Equal(t, []int64{1, 128, 8, 8}, k.kept.Shape())
	require.NotPanics(t, func() { k.kept.Sum().Item() }, "the user's tensor was freed")
}

// The downsample of this package's shape gives the same logits whether
// the block runs it itself (shortcut) or through Sequential.Forward.
func TestResNetShortcutMatchesSequential(t *testing.T) {
	torch.ManualSeed(1)
	net := ResNet18(WithNumClasses(10))
	net.Eval()
	x := torch.Randn([]int64{2, 3, 64, 64})
	var own, viaSeq torch.Tensor
	torch.NoGrad(func() { own = net.Forward(x) })
	// The same layers wrapped one level deeper: no longer this package's
	// shape, so the block calls Forward.
	for _, stage := range []*nn.SequentialModule{net.Layer2, net.Layer3, net.Layer4} {
		b := stage.Layers[0].(*BasicBlock)
		b.Downsample = nn.Sequential(b.Downsample)
	}
	torch.NoGrad(func() { viaSeq = net.Forward(x) })
	require.True(t, torch.Equal(own, viaSeq), "logits differ: %v and %v", own, viaSeq)
}
