package classfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/internal/disttest"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
	"github.com/gotorch/gotorch/torch/safetensors"
)

// In a 2-rank job whose ranks' generators differ, the checkpoint that rank
// 0 writes holds both (gathered), and loading it gives each rank its own
// back, not rank 0's.
func TestCheckpointRandomStatePerRank(t *testing.T) {
	if disttest.Worker() {
		defer distributed.DestroyProcessGroup()
		path := filepath.Join(os.Getenv("CKPT_DIR"), "job.ckpt")
		tr := new(classfile.Trainer)
		tr.Progress__1(false)
		tr.Seed__1(4)
		tr.Distributed__1(true)
		tr.Model__1(new(dropNet))
		rank := tr.Rank()
		require.Equal(t, 2, tr.WorldSize())

		torch.ManualSeed(100 + uint64(rank)) // each rank's own stream
		torch.Rand([]int64{int64(3 + rank)})
		mine := rngState(t)
		want := torch.Rand([]int64{5}).Float32s()
		require.NoError(t, torch.SetRngState(torch.FromSlice(mine, int64(len(mine)))))
		tr.SaveCheckpoint(path)
		assert.Equal(t, mine, rngState(t), "saving draws nothing")

		if rank == 0 {
			tensors, _, err := safetensors.Load(path)
			require.NoError(t, err)
			require.Contains(t, tensors, "rng.cpu.0")
			require.Contains(t, tensors, "rng.cpu.1")
			assert.Equal(t, mine, torch.ToSlice[uint8](tensors["rng.cpu.0"]))
			assert.NotEqual(t, mine, torch.ToSlice[uint8](tensors["rng.cpu.1"]), "the ranks' states differ")
		}

		torch.ManualSeed(7) // elsewhere
		tr.LoadCheckpoint(path)
		assert.Equal(t, mine, rngState(t), "rank %d's own state back", rank)
		assert.Equal(t, want, torch.Rand([]int64{5}).Float32s(), "rank %d's draws after the load", rank)
		return
	}
	dir := t.TempDir()
	disttest.Run(t, 2, disttest.Options{Env: func(int) []string { return []string{"CKPT_DIR=" + dir} }})
}
