package classfile_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/classfile"
)

func TestCosineSchedule(t *testing.T) {
	cosine := func(lr float64, epoch, epochs int) float64 {
		return lr * (1 + math.Cos(math.Pi*float64(epoch)/float64(epochs))) / 2
	}
	newTrainer := func() *classfile.Trainer {
		tr := new(classfile.Trainer)
		tr.Progress__1(false)
		tr.Seed__1(3)
		tr.BatchSize__1(16)
		tr.Epochs__1(4)
		tr.Optimizer__1("adam")
		tr.Lr__1(0.01)
		tr.LrSchedule__1("Cosine")
		tr.Dataset__2(blobs(t, 64), blobs(t, 16))
		tr.Model__1(new(linear))
		return tr
	}
	tr := newTrainer()
	assert.Equal(t, "cosine", tr.LrSchedule__0())
	lr := func(tr *classfile.Trainer) float64 { return tr.Optimizer__0().ParamGroups()[0].LR() }
	for epoch := 1; epoch <= 2; epoch++ {
		it := tr.TrainLoader().XGo_Enum()
		assert.InDelta(t, cosine(0.01, epoch-1, 4), lr(tr), 1e-12, "during epoch %d", epoch)
		for {
			x, y, ok := it.Next()
			if !ok {
				break
			}
			tr.Step(tr.Loss__2(tr.Model__0().(*linear).Forward(x), y))
		}
		assert.InDelta(t, cosine(0.01, epoch, 4), lr(tr), 1e-12, "after epoch %d", epoch)
	}
	ckpt := filepath.Join(t.TempDir(), "sched.ckpt")
	tr.SaveCheckpoint(ckpt)

	// fit after a resumed checkpoint replays the schedule.
	tr2 := newTrainer()
	tr2.Checkpoint__1(ckpt)
	tr2.Fit()
	assert.Equal(t, 4, tr2.Epoch())
	assert.InDelta(t, 0.0, lr(tr2), 1e-12, "annealed to 0 at the last epoch")

	assert.PanicsWithValue(t, `classfile: unknown lrSchedule "linear" (want constant or cosine)`, func() { tr.LrSchedule__1("linear") })
	assert.Panics(t, func() { tr.LrSchedule__1("constant") }, "the schedule cannot change once it runs")
	require.Equal(t, "constant", new(classfile.Trainer).LrSchedule__0())
}
