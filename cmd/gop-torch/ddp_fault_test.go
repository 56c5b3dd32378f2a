package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testKilledJobResumes is the fault test of TestDDPFashionMNIST: a
// gop-torch run -nproc 2 job whose rank 1 is SIGKILLed in its second
// epoch, after rank 0 wrote the first epoch's checkpoint,
//
//   - makes the launcher stop the other rank and exit with an error that
//     names rank 1, instead of hanging;
//   - leaves that checkpoint whole (written atomically): the same as the
//     uninterrupted job's after its first epoch (epoch1, its bytes);
//   - and, restarted, resumes from it: it reports epoch 1 done, trains
//     epoch 2 only, and from the checkpoint's weights, since its epoch 2
//     reaches the losses of the uninterrupted job's resumed epoch 2
//     (resumed, its output).
func testKilledJobResumes(t *testing.T, bin, tmp string, args func(string, ...string) []string, epoch1 []byte, resumed string) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Log("no /proc: the killed-job test needs it to find rank 1")
		return
	}
	ckpt := filepath.Join(tmp, "killed.ckpt")
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- launch(2, bin, tmp, args("killed.ckpt", "-epochs", "2"), &stdout, &stderr) }()
	output := func() string { return stdout.String() + stderr.String() }

	// Wait for the first checkpoint: the job is then in its second epoch.
	// (The deadlines only turn a hang into a failure.)
	deadline := time.After(3 * time.Minute)
	for {
		if _, err := os.Stat(ckpt); err == nil {
			break
		}
		select {
		case rc := <-done:
			t.Fatalf("the job ended (exit %d) before its first checkpoint:\n%s", rc, output())
		case <-deadline:
			t.Fatalf("no checkpoint after 3 minutes:\n%s", output())
		case <-time.After(10 * time.Millisecond):
		}
	}
	pid := rankPID(t, bin, 1)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	var rc int
	select {
	case rc = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the job still runs 2 minutes after rank 1 was killed:\n%s", output())
	}
	out := output()
	t.Logf("killed job:\n%s", out)
	assert.NotEqual(t, 0, rc, "the launcher's exit after a rank was killed")
	assert.Contains(t, out, "rank 1 of 2 failed (signal: killed)", "the launcher names the killed rank")
	assert.Contains(t, out, "epoch 1/2")
	require.NotContains(t, out, "epoch 2/2", "rank 1 was killed in epoch 2, not after it")

	// The checkpoint is whole and is the uninterrupted job's.
	b, err := os.ReadFile(ckpt)
	require.NoError(t, err)
	got := readCheckpoint(t, b)
	want := readCheckpoint(t, epoch1)
	assert.Equal(t, "1", got.meta["epoch"], "the checkpoint is the first epoch's")
	assert.Equal(t, want.meta["steps"], got.meta["steps"])
	require.Equal(t, len(want.f32), len(got.f32), "tensors in the checkpoint")
	for name, w := range want.f32 {
		g, ok := got.f32[name]
		require.True(t, ok, "tensor %s missing", name)
		assert.InDeltaSlice(t, w, g, 1e-4, name)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, ".killed.ckpt.tmp-*"))
	assert.Empty(t, left, "temporary checkpoint files left")

	// Restarted (by the same launcher, without building the program again
	// as gop-torch run does), the job resumes from it.
	stdout.Reset()
	stderr.Reset()
	rc = launch(2, bin, tmp, args("killed.ckpt", "-epochs", "2"), &stdout, &stderr)
	again := output()
	require.Equal(t, 0, rc, "restarted job:\n%s", again)
	t.Logf("restarted job:\n%s", again)
	assert.Contains(t, again, "resumed from "+ckpt+" after epoch 1")
	assert.NotContains(t, again, "epoch 1/2")
	train, test := losses(t, again)
	wantTrain, wantTest := losses(t, resumed)
	assert.InEpsilon(t, wantTrain, train, 1e-3, "epoch 2's train loss, resumed after the kill against resumed after a clean stop")
	assert.InEpsilon(t, wantTest, test, 1e-3, "epoch 2's test loss")
}

// rankPID is the process id of rank's process, a child of this test
// process that runs bin.
func rankPID(t *testing.T, bin string, rank int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	want := "RANK=" + strconv.Itoa(rank)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so after the last ')'.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err != nil || exe != bin {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == want {
				return pid
			}
		}
	}
	t.Fatalf("no child process of rank %d running %s", rank, bin)
	return 0
}

// checkpoint is what the fault test reads of a classfile checkpoint, a
// safetensors file (without linking libtorch into this test): its
// metadata and its float32 tensors.
type checkpoint struct {
	meta map[string]string
	f32  map[string][]float64
}

// readCheckpoint parses a safetensors file and checks that it is whole:
// the header's tensors cover the data to its last byte.
func readCheckpoint(t *testing.T, b []byte) checkpoint {
	t.Helper()
	require.Greater(t, len(b), 8, "checkpoint too short")
	n := binary.LittleEndian.Uint64(b[:8])
	require.LessOrEqual(t, n, uint64(len(b)-8), "checkpoint header length beyond the file")
	var header map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b[8:8+n], &header), "checkpoint header")
	data := b[8+n:]
	c := checkpoint{meta: map[string]string{}, f32: map[string][]float64{}}
	var end uint64
	for name, raw := range header {
		if name == "__metadata__" {
			require.NoError(t, json.Unmarshal(raw, &c.meta))
			continue
		}
		var info struct {
			Dtype   string   `json:"dtype"`
			Offsets []uint64 `json:"data_offsets"`
		}
		require.NoError(t, json.Unmarshal(raw, &info), "tensor %s", name)
		require.Len(t, info.Offsets, 2, "tensor %s", name)
		require.LessOrEqual(t, info.Offsets[1], uint64(len(data)), "tensor %s ends beyond the file", name)
		end = max(end, info.Offsets[1])
		if info.Dtype != "F32" {
			continue
		}
		raw := data[info.Offsets[0]:info.Offsets[1]]
		v := make([]float64, len(raw)/4)
		for i := range v {
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		}
		c.f32[name] = v
	}
	require.Equal(t, uint64(len(data)), end, "the tensors cover the checkpoint's data")
	require.NotEmpty(t, c.f32, "no float32 tensor in the checkpoint")
	return c
}
