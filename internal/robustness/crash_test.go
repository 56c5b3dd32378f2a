package robustness

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	if spec := os.Getenv(saveCrashEnv); spec != "" {
		dir, start, _ := strings.Cut(spec, "|")
		n, err := strconv.ParseInt(start, 10, 64)
		if err != nil {
			panic(err)
		}
		saveCrashChild(dir, n)
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
		cmd := exec.Command(os.Args[0], "-test.run=^TestSaveCrashSafety$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d", saveCrashEnv, dir, next))
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		lines := make(chan string, 1000)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Let one save complete to learn how long a save takes, then kill
		// at a random point of the next.
		lastSaved := next - 1
		var took time.Duration
		timeout := time.After(2 * time.Minute)
	wait:
		for {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "child exited early")
				require.False(t, strings.HasPrefix(l, "error"), l)
				f := strings.Fields(l)
				switch {
				case f[0] == "saved" && len(f) == 3:
					lastSaved, _ = strconv.ParseInt(f[1], 10, 64)
					ns, _ := strconv.ParseInt(f[2], 10, 64)
					took = time.Duration(ns)
				case f[0] == "begin" && took > 0:
					break wait
				}
			case <-timeout:
				t.Fatal("child did not save")
			}
		}
		// Past the first fifth, which is mostly encoding in memory.
		delay := took/5 + time.Duration(rng.Int64N(int64(took-took/5)))
		time.Sleep(delay)
		require.NoError(t, cmd.Process.Kill()) // SIGKILL
		_ = cmd.Wait()
		for l := range lines {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "saved" {
				lastSaved, _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		stray := 0
		for _, e := range entries {
			if e.Name() == "tensor.pt" || e.Name() == "optim.safetensors" {
				continue
			}
			require.True(t, strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-"), "unexpected file %s", e.Name())
			stray++
			require.NoError(t, os.Remove(filepath.Join(dir, e.Name())))
		}
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
