package robustness

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// Hostile sizes and indices: the extremes of int32 and int64 and the
// powers of two where 32-bit arithmetic wraps, given to the integer
// arguments of ops (dimensions, indices, sizes, strides, offsets, steps,
// counts). Every call must succeed or fail with a *torch.Error; nothing may
// crash, hang or fail with a bare runtime error.

var hostileValues = []int64{
	math.MinInt64, math.MinInt64 + 1, math.MaxInt64, -1, 0, 1, 2,
	math.MaxInt32, 1 << 31, 1 << 32, 1 << 40, math.MinInt32, -(1 << 40),
}

// maxLegit is the most bytes a hostile call may legitimately ask for. A
// call whose sizes are all valid and whose result would be larger is not
// made: it is a real request for memory (2^31 floats are 8 GiB), which
// this machine may or may not grant, not a hostile one.
const maxLegit = 64 << 20

// legit reports whether sizes (elements of elem bytes) ask for more than
// maxLegit bytes without any of them being negative or overflowing: such
// a call is skipped.
func legit(elem int64, sizes ...int64) bool {
	n := uint64(elem)
	for _, s := range sizes {
		if s < 0 {
			return false
		}
		hi, lo := bits.Mul64(n, uint64(s))
		if hi != 0 || lo > math.MaxInt64 {
			return false // overflows: libtorch must refuse it
		}
		n = lo
	}
	return n > maxLegit
}

// hostileOp is one op with two integer arguments, v and w. It returns
// errSkip for a legitimately large request.
type hostileOp struct {
	name string
	f    func(v, w int64) error
}

var errSkip = errors.New("skipped: a legitimately large request")

func abs(v int64) int64 {
	if v < 0 {
		if v == math.MinInt64 {
			return math.MaxInt64
		}
		return -v
	}
	return v
}

func hostileOps() []hostileOp {
	x := func() torch.Tensor { return x34() }
	return []hostileOp{
		{"select", func(v, w int64) error { return e1(x().TrySelect(v, w)) }},
		{"narrow", func(v, w int64) error { return e1(x().TryNarrow(v, w, 1)) }},
		{"narrow length", func(v, w int64) error { return e1(x().TryNarrow(0, v, w)) }},
		{"narrow_copy", func(v, w int64) error { return e1(x().TryNarrowCopy(1, v, w)) }},
		{"unfold", func(v, w int64) error { return e1(x().TryUnfold(v, w, 1)) }},
		{"unfold step", func(v, w int64) error { return e1(x().TryUnfold(0, v, w)) }},
		{"topk", func(v, w int64) error { return e2(x().TryTopk(v, torch.WithDim(w))) }},
		{"kthvalue", func(v, w int64) error { return e2(x().TryKthvalue(v, torch.WithDim(w))) }},
		{"transpose", func(v, w int64) error { return e1(x().TryTranspose(v, w)) }},
		{"movedim", func(v, w int64) error { return e1(x().TryMovedim(shape(v), shape(w))) }},
		{"roll", func(v, w int64) error { return e1(x().TryRoll(shape(v), torch.WithDims(w))) }},
		{"chunk", func(v, w int64) error { return e1(x().TryChunk(v, torch.WithDim(w))) }},
		{"split", func(v, w int64) error { return e1(x().TrySplit(v, torch.WithDim(w))) }},
		{"view", func(v, w int64) error { return e1(x().TryView(shape(v, w))) }},
		{"reshape", func(v, w int64) error { return e1(x().TryReshape(shape(v, w))) }},
		{"expand", func(v, w int64) error { return e1(x().TryExpand(shape(v, w, 4))) }},
		{"as_strided strides", func(v, w int64) error { return e1(x().TryAsStrided(shape(2, 2), shape(v, w))) }},
		{"as_strided sizes", func(v, w int64) error { return e1(x().TryAsStrided(shape(v, w), shape(1, 1))) }},
		{"as_strided offset", func(v, w int64) error {
			return e1(x().TryAsStrided(shape(2, 2), shape(1, w), torch.WithStorageOffset(v)))
		}},
		{"index_select", func(v, w int64) error { return e1(x().TryIndexSelect(v, i64(w))) }},
		{"gather", func(v, w int64) error { return e1(x().TryGather(v, torch.FromSlice([]int64{w, 0, 0}, 3, 1))) }},
		{"diagonal", func(v, w int64) error {
			return e1(x().TryDiagonal(torch.WithOffset(v), torch.WithDim1(w), torch.WithDim2(1)))
		}},
		{"tril", func(v, w int64) error { return e1(x().TryTril(torch.WithDiagonal(v))) }},
		{"cumsum", func(v, w int64) error { return e1(x().TryCumsum(v)) }},
		{"unsqueeze", func(v, w int64) error { return e1(x().TryUnsqueeze(v)) }},
		{"squeeze dim", func(v, w int64) error { return e1(x().TrySqueezeDim(v)) }},
		{"flatten", func(v, w int64) error {
			return e1(x().TryFlatten(torch.WithStartDim(v), torch.WithEndDim(w)))
		}},
		{"randint", func(v, w int64) error { return e1(torch.TryRandintLow(v, w, shape(3))) }},
		{"zeros", func(v, w int64) error {
			if legit(4, v, w) {
				return errSkip
			}
			return e1(torch.TryZeros(shape(v, w)))
		}},
		{"full", func(v, w int64) error {
			if legit(4, v, w) {
				return errSkip
			}
			return e1(torch.TryFull(shape(w, v), torch.S(1)))
		}},
		{"empty_strided", func(v, w int64) error {
			// Storage of 1 + v + w elements for 2×2 with strides v, w.
			if v >= 0 && w >= 0 && legit(4, 1+abs(v)/2+abs(w)/2, 2) {
				return errSkip
			}
			return e1(torch.TryEmptyStrided(shape(2, 2), shape(v, w)))
		}},
		{"randperm", func(v, w int64) error {
			if legit(8, v) {
				return errSkip
			}
			return e1(torch.TryRandperm(v))
		}},
		{"eye", func(v, w int64) error {
			if legit(4, v, w) {
				return errSkip
			}
			return e1(torch.TryEyeM(v, w))
		}},
		{"repeat", func(v, w int64) error {
			if legit(4, 3, v, 4, w) {
				return errSkip
			}
			return e1(x().TryRepeat(shape(v, w)))
		}},
		{"constant_pad_nd", func(v, w int64) error {
			// Pads (v, 0) on the last dimension and (w, 0) on the first:
			// negative pads crop, so only the result's sizes tell.
			if a, b := 4+v, 3+w; a > 0 && b > 0 && v < math.MaxInt64-4 && w < math.MaxInt64-3 && legit(4, a, b) {
				return errSkip
			}
			return e1(torch.TryConstantPadNd(x(), shape(v, 0, w, 0)))
		}},
		{"linspace", func(v, w int64) error {
			if legit(4, v) {
				return errSkip
			}
			return e1(torch.TryLinspace(torch.S(0), torch.S(1), v))
		}},
		{"unfold_backward", func(v, w int64) error {
			return e1(torch.TryUnfoldBackward(torch.Rand(shape(2, 2)), shape(4), v, w, 1))
		}},
		{"embedding_dense_backward", func(v, w int64) error {
			if legit(4, w, 3) {
				return errSkip
			}
			return e1(torch.TryEmbeddingDenseBackward(torch.Rand(shape(1, 3)), i64(v), w, -1, false))
		}},
	}
}

// callHostile makes one call and says what went wrong, if anything
// besides a *torch.Error; skipped reports a legitimately large request.
func callHostile(op hostileOp, v, w int64) (problem string, skipped bool) {
	err, _, nonError := catch(func() error { return op.f(v, w) })
	if nonError != nil {
		return fmt.Sprintf("panicked with a %T: %v", nonError, nonError), false
	}
	if errors.Is(err, errSkip) {
		return "", true
	}
	var re runtime.Error
	if errors.As(err, &re) {
		return fmt.Sprintf("a bare runtime error: %v", err), false
	}
	var te *torch.Error
	if err != nil && !errors.As(err, &te) {
		return fmt.Sprintf("an error that is not a *torch.Error: %T: %v", err, err), false
	}
	return "", false
}

// TestHostileArgs makes every op of hostileOps with every pair of hostile
// values.
func TestHostileArgs(t *testing.T) {
	ops := hostileOps()
	calls, skipped := 0, 0
	for _, op := range ops {
		for _, v := range hostileValues {
			for _, w := range hostileValues {
				p, skip := callHostile(op, v, w)
				if skip {
					skipped++
					continue
				}
				calls++
				if p != "" {
					t.Errorf("%s(%d, %d): %s", op.name, v, w, p)
				}
			}
		}
		torch.GC()
	}
	t.Logf("%d ops, %d calls, %d skipped as legitimately large", len(ops), calls, skipped)
	assertHealthy(t)
}

// FuzzHostileArgs drives the same ops with hostile values picked by the
// fuzzer, and with arbitrary int64 values built from its bytes.
//
//	go test ./internal/robustness -run '^$' -fuzz '^FuzzHostileArgs$' -fuzztime 10m
func FuzzHostileArgs(f *testing.F) {
	ops := hostileOps()
	for i := range ops {
		f.Add(uint8(i), int64(math.MinInt64), int64(-1))
		f.Add(uint8(i), int64(1<<31), int64(1<<32))
	}
	f.Fuzz(func(t *testing.T, opIndex uint8, v, w int64) {
		op := ops[int(opIndex)%len(ops)]
		// Half the time, snap to the nearest hostile value, so that the
		// interesting edges come up often.
		if v&1 == 0 {
			v = hostileValues[int(uint64(v)>>1%uint64(len(hostileValues)))]
		}
		if w&1 == 0 {
			w = hostileValues[int(uint64(w)>>1%uint64(len(hostileValues)))]
		}
		if p, _ := callHostile(op, v, w); p != "" {
			t.Fatalf("%s(%d, %d): %s", op.name, v, w, p)
		}
		require.True(t, torch.IsGradEnabled())
	})
}
