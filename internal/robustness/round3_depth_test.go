package robustness

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/jit"
)

// Round 3 (issue #36): values nested past what a recursive walk survives,
// and values that contain themselves. Every walk has a limit or an
// explicit stack:
//
//   - pickles, before libtorch's unpickler runs them (torch.Decode and
//     torch.Load here, TorchScript archives in round3_torchscript_test.go):
//     cgotorch/loadcheck.cc's check_pickle refuses values nested more than
//     1000 deep and values that hold themselves;
//   - Go values going to TorchScript and back (torch/jit): jit.MaxDepth
//     levels, cycles and jit.MaxValues nodes;
//   - torch.Scoped's walk of its result: an explicit stack, so any depth.
//
// The examples that crashed the process run in a child process in
// TestRound3DepthCrashes; round3DepthCases holds them and their variants
// as bad-input cases.

// The pickle opcodes these tests write (protocol 2).
const (
	pkProto      = "\x80\x02"
	pkStop       = "."
	pkMark       = "("
	pkEmptyList  = "]"
	pkEmptyDict  = "}"
	pkEmptyTuple = ")"
	pkAppends    = "e"
	pkSetItem    = "s"
	pkTuple1     = "\x85"
	pkTuple2     = "\x86"
	pkNone       = "N"
)

func pkInt(v byte) string { return "K" + string([]byte{v}) }
func pkPut(i byte) string { return "q" + string([]byte{i}) }
func pkGet(i byte) string { return "h" + string([]byte{i}) }
func pkNested(n int) string { // a list nested n deep: [[[...]]]
	return strings.Repeat(pkEmptyList+pkMark, n) + pkEmptyList + strings.Repeat(pkAppends, n)
}

// torchSaveArchive wraps a data.pkl in the zip archive that torch.save
// writes for one tensor (records archive/data.pkl and archive/version).
func torchSaveArchive(t testing.TB, pkl string) []byte {
	return rezip(t, nil, func(add func(name string, body []byte)) {
		add("archive/data.pkl", []byte(pkl))
		add("archive/version", []byte("3\n"))
	})
}

func decodePickle(t testing.TB, pkl string) error {
	x, err := torch.Decode(torchSaveArchive(t, pkl))
	if err == nil {
		x.Free()
	}
	return err
}

// netModule loads torch/jit's test module once per call.
func netModule(t testing.TB) *jit.Module {
	m, err := jit.Load(netPath)
	require.NoError(t, err)
	return m
}

const netPath = "../../torch/jit/testdata/net.pt"

// nestedAny is a []any nested n deep around a tensor.
func nestedAny(n int) any {
	var v any = torch.Ones(shape(2, 4))
	for range n {
		v = []any{v}
	}
	return v
}

func nestedMap(n int) any {
	var v any = int64(1)
	for range n {
		v = map[string]any{"k": v}
	}
	return v
}

func forward(m *jit.Module, args ...any) error {
	_, err := m.Forward(args...)
	return err
}

func round3DepthCases(t *testing.T) []badCase {
	m := netModule(t)
	t.Cleanup(func() { m.Close() })
	selfSlice := []any{nil}
	selfSlice[0] = selfSlice
	selfMap := map[string]any{}
	selfMap["me"] = selfMap
	var selfPtr any
	selfPtr = &selfPtr
	deepInMemo := pkProto + pkEmptyDict + pkInt(1) + pkNested(2000) + pkSetItem + pkInt(1) + pkNone + pkSetItem + pkStop
	dir := t.TempDir()
	deepFile := filepath.Join(dir, "deep.pt")
	require.NoError(t, os.WriteFile(deepFile, torchSaveArchive(t, pkProto+pkNested(1_000_000)+pkStop), 0o644))
	const depthMsg = "more than 1000 deep"
	return []badCase{
		// Pickles (torch.Decode, torch.Load).
		{"decode a list nested 1,000,000 deep", depthMsg, "load", nil,
			func() error { return decodePickle(t, pkProto+pkNested(1_000_000)+pkStop) }},
		{"decode a list nested 100,000 deep", depthMsg, "load", nil,
			func() error { return decodePickle(t, pkProto+pkNested(100_000)+pkStop) }},
		{"decode a list nested 1001 deep", depthMsg, "load", nil,
			func() error { return decodePickle(t, pkProto+pkNested(1000)+pkStop) }},
		{"decode a list nested 999 deep is no tensor", "not a single tensor", "load", nil,
			func() error { return decodePickle(t, pkProto+pkNested(998)+pkStop) }},
		{"decode tuples nested 200,000 deep", depthMsg, "load", nil,
			func() error {
				return decodePickle(t, pkProto+pkNone+strings.Repeat(pkTuple1, 200_000)+pkStop)
			}},
		{"decode dicts nested 50,000 deep", depthMsg, "load", nil,
			func() error {
				return decodePickle(t, pkProto+strings.Repeat(pkEmptyDict+pkInt(0), 50_000)+pkNone+strings.Repeat(pkSetItem, 50_000)+pkStop)
			}},
		{"decode a list that contains itself", "contains itself", "load", nil,
			func() error {
				return decodePickle(t, pkProto+pkEmptyList+pkPut(0)+pkMark+pkGet(0)+pkAppends+pkStop)
			}},
		{"decode a dict that contains itself", "contains itself", "load", nil,
			func() error {
				return decodePickle(t, pkProto+pkEmptyDict+pkPut(0)+pkInt(1)+pkGet(0)+pkSetItem+pkStop)
			}},
		{"decode two lists that contain each other", "contains itself", "load", nil,
			func() error {
				return decodePickle(t, pkProto+pkEmptyList+pkPut(0)+pkMark+pkEmptyList+pkPut(1)+pkMark+pkGet(0)+pkAppends+pkAppends+pkStop)
			}},
		{"decode a deep list kept only in the memo", depthMsg, "load", nil,
			func() error { return decodePickle(t, deepInMemo) }},
		{"decode a deep list inside a tuple", depthMsg, "load", nil,
			func() error { return decodePickle(t, pkProto+pkNested(5000)+pkEmptyTuple+pkTuple2+pkStop) }},
		{"decode an APPEND (an opcode libtorch does not read)", "does not read", "load", nil,
			func() error { return decodePickle(t, pkProto+pkEmptyList+pkNone+"a"+pkStop) }},
		{"decode items taken across a MARK", "needs 2 values", "load", nil,
			func() error { return decodePickle(t, pkProto+pkNone+pkMark+pkNone+pkTuple2+pkStop) }},
		{"decode APPENDS to a scalar", "not a list", "load", nil,
			func() error { return decodePickle(t, pkProto+pkNone+pkMark+pkNone+pkAppends+pkStop) }},
		{"decode a GET of a memo entry never stored", "never stored", "load", nil,
			func() error { return decodePickle(t, pkProto+pkGet(7)+pkStop) }},
		{"decode a pickle without STOP", "no STOP", "load", nil,
			func() error { return decodePickle(t, pkProto+pkNone) }},
		{"decode two values at STOP", "want 1 and 0", "load", nil,
			func() error { return decodePickle(t, pkProto+pkNone+pkNone+pkStop) }},
		{"load a file nested 1,000,000 deep", depthMsg, "", nil,
			func() error { return e1(torch.Load(deepFile)) }},

		// Go values to TorchScript.
		{"jit forward with an argument nested 100,000 deep", "nested more than 1000 deep (the limit)", "jit.forward", nil,
			func() error { return forward(m, nestedAny(100_000)) }},
		{"jit forward with an argument nested 1001 deep", "nested more than 1000 deep", "jit.forward", nil,
			func() error { return forward(m, nestedAny(1001)) }},
		{"jit forward with maps nested 5000 deep", "nested more than 1000 deep", "jit.forward", nil,
			func() error { return forward(m, nestedMap(5000)) }},
		{"jit forward with a slice that contains itself", "contains itself", "jit.forward", nil,
			func() error { return forward(m, selfSlice) }},
		{"jit forward with a map that contains itself", "contains itself", "jit.forward", nil,
			func() error { return forward(m, selfMap) }},
		{"jit forward with a pointer to itself", "contains itself", "jit.forward", nil,
			func() error { return forward(m, selfPtr) }},
		{"jit keyword argument nested 100,000 deep", "nested more than 1000 deep", "jit.forward", nil,
			func() error { return forward(m, torch.Ones(shape(2, 4)), jit.Kwargs{"x": nestedAny(100_000)}) }},
		{"jit method with a list that contains itself", "contains itself", "jit.stats", nil,
			func() error { return e1(m.Method("stats", selfSlice)) }},
	}
}

// depthCrashEnv marks the child of TestRound3DepthCrashes.
const depthCrashEnv = "GOTORCH_ROUND3_DEPTH_CHILD"

// chain is a singly linked list, for torch.Scoped's walk of its result.
type chain struct {
	next *chain
	t    torch.Tensor
}

// TestRound3DepthCrashes runs each example of the issue that killed the
// process (SIGSEGV in libtorch, Go's fatal stack overflow) in a child
// process: the child must get an error (or, for Scoped, its result) and
// make the next call work.
func TestRound3DepthCrashes(t *testing.T) {
	cases := map[string]func(t *testing.T){
		"decode-1e6": func(t *testing.T) {
			require.ErrorContains(t, decodePickle(t, pkProto+pkNested(1_000_000)+pkStop), "more than 1000 deep")
		},
		"jit-arg-1e5": func(t *testing.T) {
			m := netModule(t)
			defer m.Close()
			require.ErrorContains(t, forward(m, nestedAny(100_000)), "more than 1000 deep")
			_, err := m.ForwardTensor(torch.Ones(shape(2, 4)))
			require.NoError(t, err, "the next call")
		},
		"jit-arg-cycle": func(t *testing.T) {
			m := netModule(t)
			defer m.Close()
			s := []any{nil}
			s[0] = s
			require.ErrorContains(t, forward(m, s), "contains itself")
			_, err := m.ForwardTensor(torch.Ones(shape(2, 4)))
			require.NoError(t, err, "the next call")
		},
		"scoped-deep-result": func(t *testing.T) {
			// The list was 5,000,000 long, enough to overflow
			// Go's default 1 GB stack in a recursive walk. With the
			// child's stack capped at 16 MB, 500,000 links prove the
			// same (a recursive walk needs at least one frame, over 32
			// bytes, per link) in a tenth of the time, most of it the
			// race detector's (issue 38).
			defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
			x := torch.Ones(shape(2))
			head := torch.Scoped(func() *chain {
				var c *chain
				for range 500_000 {
					c = &chain{next: c}
				}
				return &chain{next: c, t: x.AddScalar(torch.S(1))}
			})
			require.Equal(t, []float32{2, 2}, head.t.Float32s(), "Scoped's result kept")
		},
	}
	runInChild(t, depthCrashEnv, cases, assertHealthy)
}
