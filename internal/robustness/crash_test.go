package robustness

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/crashtest"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// nn/checkpoint_test.go's TestCheckpointCrashSafety kills a process that
// saves module checkpoints in a loop at random times. This test does the
// same for the two other atomic writers, torch.Save (PyTorch's format) and
// nn.SaveOptimizerState, and aims its kills inside a write: the child says
// when each save begins and how long the last one took, and the parent
// kills it at a random point of the next one. The previous file must load,
// whole, after every kill.

const saveCrashEnv = "GOTORCH_ROBUSTNESS_SAVE_CRASH_CHILD"

// saveCrashChild saves generation after generation to dir, alternately
// with torch.Save and nn.SaveOptimizerState, until killed or a minute has
// passed. Every value of generation gen is gen.
func saveCrashChild(dir string, start int64) {
	big := torch.Zeros(shape(1024, 1024))
	state := map[int]map[string]torch.Tensor{0: {"exp_avg": torch.Zeros(shape(1024, 1024))}}
	deadline := time.Now().Add(time.Minute)
	for gen := start; time.Now().Before(deadline); gen++ {
		big.FillScalar_(torch.S(gen))
		state[0]["exp_avg"].FillScalar_(torch.S(gen))
		fmt.Println("begin", gen)
		t0 := time.Now()
		if err := torch.Save(big, filepath.Join(dir, "tensor.pt")); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		if err := nn.SaveOptimizerState(filepath.Join(dir, "optim.safetensors"), state, []map[string]any{{"lr": float64(gen)}}); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Println("saved", gen, time.Since(t0).Nanoseconds())
	}
	os.Exit(0)
}

func TestSaveCrashSafety(t *testing.T) {
	if dir, start, ok := crashtest.ChildSpec(saveCrashEnv); ok {
		saveCrashChild(dir, start)
		return
	}
	if testing.Short() {
		t.Skip("slow")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	dir := t.TempDir()
	next := int64(1)
	midWrite := 0
	const rounds = 8
	for round := 0; round < rounds; round++ {
		child := crashtest.Start(t, "TestSaveCrashSafety", saveCrashEnv, dir, next)
		// Let one save complete to learn how long a save takes, then kill
		// at a random point of the next.
		var took time.Duration
		child.WaitFor(2*time.Minute, func(f []string) bool {
			if f[0] == "saved" && len(f) == 3 {
				ns, _ := strconv.ParseInt(f[2], 10, 64)
				took = time.Duration(ns)
			}
			return f[0] == "begin" && took > 0
		})
		// Past the first fifth, which is mostly encoding in memory.
		delay := took/5 + time.Duration(rng.Int64N(int64(took-took/5)))
		time.Sleep(delay)
		child.Kill()
		lastSaved := child.LastSaved
		stray := crashtest.Strays(t, dir, "tensor.pt", "optim.safetensors")
		if stray > 0 {
			midWrite++
		}
		// Each file holds a whole generation: the last reported, or the
		// one in flight if its rename happened before the kill.
		x, err := torch.Load(filepath.Join(dir, "tensor.pt"))
		require.NoError(t, err, "round %d", round)
		gen := int64(x.Select(0, 0).Select(0, 0).Item())
		require.True(t, gen == lastSaved || gen == lastSaved+1, "round %d: tensor.pt generation %d, last saved %d", round, gen, lastSaved)
		require.True(t, x.EqScalar(torch.S(gen)).All().ItemBool(), "round %d: tensor.pt is torn", round)
		var groups []map[string]float64
		state, err := nn.LoadOptimizerState(filepath.Join(dir, "optim.safetensors"), &groups)
		require.NoError(t, err, "round %d", round)
		ogen := int64(groups[0]["lr"])
		require.True(t, ogen == lastSaved || ogen == lastSaved+1, "round %d: optim.safetensors generation %d, last saved %d", round, ogen, lastSaved)
		require.True(t, state[0]["exp_avg"].EqScalar(torch.S(ogen)).All().ItemBool(), "round %d: optim.safetensors is torn", round)
		t.Logf("round %d: killed %v into a save of about %v: files of generations %d and %d intact, %d temporary files", round, delay, took, gen, ogen, stray)
		next = max(gen, ogen) + 1
	}
	t.Logf("%d of %d kills left a temporary file behind (killed mid-write)", midWrite, rounds)
	require.Positive(t, midWrite, "no kill landed inside a write")
}
