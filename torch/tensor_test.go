package torch_test

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func TestMetadata(t *testing.T) {
	cases := []struct {
		name   string
		x      func() torch.Tensor
		shape  []int64
		numel  int64
		dtype  torch.DType
		nbytes int64
	}{
		{"0-dim", func() torch.Tensor { return torch.FromNested(2.5) }, []int64{}, 1, torch.Float64, 8},
		{"vector", func() torch.Tensor { return f32(1, 2, 3) }, []int64{3}, 3, torch.Float32, 12},
		{"matrix", func() torch.Tensor { return torch.Zeros(i64s(2, 3), torch.WithDtype(torch.Int32)) }, []int64{2, 3}, 6, torch.Int32, 24},
		{"3-d", func() torch.Tensor { return torch.Ones(i64s(2, 3, 4), torch.WithDtype(torch.Uint8)) }, []int64{2, 3, 4}, 24, torch.Uint8, 24},
		{"empty", func() torch.Tensor { return torch.Zeros(i64s(0, 3)) }, []int64{0, 3}, 0, torch.Float32, 0},
		// More than 8 dims takes Shape's slow path.
		{"9-d", func() torch.Tensor { return torch.Zeros(i64s(1, 2, 1, 2, 1, 2, 1, 2, 3), torch.WithDtype(torch.Bool)) },
			[]int64{1, 2, 1, 2, 1, 2, 1, 2, 3}, 48, torch.Bool, 48},
		{"complex", func() torch.Tensor { return torch.FromSlice([]complex128{1, 2}) }, []int64{2}, 2, torch.Complex128, 32},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := tc.x()
			defer x.Free()
			assert.True(t, x.Defined())
			assert.Equal(t, tc.shape, x.Shape())
			assert.Equal(t, int64(len(tc.shape)), x.Dim())
			assert.Equal(t, tc.numel, x.Numel())
			assert.Equal(t, tc.dtype, x.DType())
			assert.Equal(t, torch.CPU, x.Device())
			assert.Equal(t, "cpu", x.Device().String())
			assert.Equal(t, tc.nbytes, x.NBytes())
			for i, n := range tc.shape {
				assert.Equal(t, n, x.Size(int64(i)))
				assert.Equal(t, n, x.Size(int64(i-len(tc.shape))), "negative dim")
			}
		})
	}
}

func TestSizeOutOfRange(t *testing.T) {
	x := torch.Zeros(i64s(2, 3))
	for _, d := range []int64{2, 5, -3} {
		err := mustPanicErr(t, "size", func() { x.Size(d) })
		assert.Contains(t, err.Msg, "dimension out of range")
		assert.Nil(t, err.Err)
		assert.Equal(t, int64(3), x.Size(-1), "x still works")
	}
	mustPanicErr(t, "size", func() { torch.FromNested(1.0).Size(0) })
	ok(t)
}

// The errors the brief names, each checked in both forms and each followed
// by an op that succeeds.
func TestErrors(t *testing.T) {
	freed := f32(1, 2)
	freed.Free()
	good := f32(1, 2)
	m23 := torch.Zeros(i64s(2, 3))

	cases := []struct {
		name    string
		panicky func()
		try     func() error
		op      string
		msg     string
		is      error
	}{
		{
			name:    "mm shape mismatch",
			panicky: func() { torch.Mm(m23, m23) },
			try:     func() error { _, err := torch.TryMm(m23, m23); return err },
			op:      "mm",
			msg:     "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)",
		},
		{
			name:    "mm of vectors",
			panicky: func() { torch.Mm(good, good) },
			try:     func() error { _, err := torch.TryMm(good, good); return err },
			op:      "mm",
			msg:     "must be a matrix",
		},
		{
			name:    "add broadcast mismatch",
			panicky: func() { torch.Add(f32(1, 2, 3), good) },
			try:     func() error { _, err := torch.TryAdd(f32(1, 2, 3), good); return err },
			op:      "add",
			msg:     "must match the size",
		},
		{
			name:    "freed self",
			panicky: func() { torch.Add(freed, good) },
			try:     func() error { _, err := torch.TryAdd(freed, good); return err },
			op:      "add",
			msg:     "argument self: tensor used after Free",
			is:      torch.ErrFreed,
		},
		{
			name:    "freed other",
			panicky: func() { torch.Add(good, freed) },
			try:     func() error { _, err := torch.TryAdd(good, freed); return err },
			op:      "add",
			msg:     "argument other",
			is:      torch.ErrFreed,
		},
		{
			name:    "freed mm operand",
			panicky: func() { torch.Mm(m23, freed) },
			try:     func() error { _, err := torch.TryMm(m23, freed); return err },
			op:      "mm",
			is:      torch.ErrFreed,
		},
		{
			name:    "zero tensor self",
			panicky: func() { torch.Add(torch.Tensor{}, good) },
			try:     func() error { _, err := torch.TryAdd(torch.Tensor{}, good); return err },
			op:      "add",
			msg:     "argument self: undefined tensor",
			is:      torch.ErrUndefined,
		},
		{
			name:    "zero tensor other",
			panicky: func() { torch.Mm(m23, torch.Tensor{}) },
			try:     func() error { _, err := torch.TryMm(m23, torch.Tensor{}); return err },
			op:      "mm",
			msg:     "undefined tensor",
			is:      torch.ErrUndefined,
		},
		{
			name:    "freed to",
			panicky: func() { freed.To(torch.Float64) },
			try:     func() error { _, err := freed.TryTo(torch.Float64); return err },
			op:      "to",
			is:      torch.ErrFreed,
		},
		{
			name:    "freed clone",
			panicky: func() { freed.Clone() },
			try:     func() error { _, err := freed.TryClone(); return err },
			op:      "clone",
			is:      torch.ErrFreed,
		},
		{
			name:    "zero tensor detach",
			panicky: func() { torch.Tensor{}.Detach() },
			try:     func() error { _, err := torch.Tensor{}.TryDetach(); return err },
			op:      "detach",
			is:      torch.ErrUndefined,
		},
		{
			name:    "freed to_slice",
			panicky: func() { torch.ToSlice[float32](freed) },
			try:     func() error { _, err := torch.TryToSlice[float32](freed); return err },
			op:      "to_slice",
			is:      torch.ErrFreed,
		},
		{
			name:    "zero tensor item",
			panicky: func() { torch.Tensor{}.Item() },
			try:     func() error { _, err := torch.Tensor{}.TryItem(); return err },
			op:      "item",
			is:      torch.ErrUndefined,
		},
		{
			name:    "freed encode",
			panicky: func() { freed.Encode() },
			try:     func() error { _, err := freed.TryEncode(); return err },
			op:      "save",
			is:      torch.ErrFreed,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pe := mustPanicErr(t, tc.op, tc.panicky)
			ok(t)
			err := tc.try()
			te := requireTorchErr(t, tc.op, err)
			ok(t)
			// The Try form returns the error the panicking form panics with.
			assert.Equal(t, pe.Op, te.Op)
			assert.Equal(t, pe.Msg, te.Msg)
			assert.Equal(t, pe.Error(), te.Error())
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
				assert.ErrorIs(t, pe, tc.is)
				assert.Same(t, tc.is, te.Err)
			} else {
				assert.Nil(t, te.Err, "a libtorch error has no sentinel")
				assert.False(t, errors.Is(err, torch.ErrFreed) || errors.Is(err, torch.ErrUndefined))
			}
			if tc.msg != "" {
				assert.Contains(t, te.Msg, tc.msg)
			}
		})
	}
	// The operands of the failed calls are intact.
	assert.Equal(t, []float32{1, 2}, good.Float32s())
	assert.Equal(t, []int64{2, 3}, m23.Shape())
}

func TestSetBacktrace(t *testing.T) {
	defer torch.SetBacktrace(false)
	torch.SetBacktrace(true)
	_, err := torch.TryMm(f32(1), f32(1))
	te := requireTorchErr(t, "mm", err)
	assert.True(t, strings.HasPrefix(te.Msg, "self must be a matrix\n"), "%.200q", te.Msg)
	assert.Contains(t, te.Msg, "Exception raised from")
	torch.SetBacktrace(false)
	_, err = torch.TryMm(f32(1), f32(1))
	te = requireTorchErr(t, "mm", err)
	assert.Equal(t, "self must be a matrix", te.Msg)
	ok(t)
}

// Metadata methods have no Try form: they panic on a freed or zero tensor.
func TestMetadataOfFreedAndZero(t *testing.T) {
	freed := f32(1)
	freed.Free()
	for _, tc := range []struct {
		name string
		x    torch.Tensor
		is   error
	}{{"freed", freed, torch.ErrFreed}, {"zero", torch.Tensor{}, torch.ErrUndefined}} {
		t.Run(tc.name, func(t *testing.T) {
			x := tc.x
			assert.False(t, x.Defined())
			for op, f := range map[string]func(){
				"dim":           func() { x.Dim() },
				"shape":         func() { x.Shape() },
				"numel":         func() { x.Numel() },
				"dtype":         func() { x.DType() },
				"device":        func() { x.Device() },
				"nbytes":        func() { x.NBytes() },
				"requires_grad": func() { x.RequiresGrad() },
				"is_leaf":       func() { x.IsLeaf() },
				"grad_fn":       func() { x.GradFn() },
				"grad":          func() { x.Grad() },
				"zero_grad":     func() { x.ZeroGrad() },
				"share":         func() { x.Share() },
			} {
				err := mustPanicErr(t, op, f)
				assert.ErrorIs(t, err, tc.is, op)
				assert.Contains(t, err.Msg, "argument self")
			}
			ok(t)
		})
	}
}

func TestFree(t *testing.T) {
	x := f32(1, 2)
	require.True(t, x.Defined())
	x.Free()
	assert.False(t, x.Defined())
	assert.NotPanics(t, x.Free, "double Free is a no-op")
	assert.NotPanics(t, x.Free)
	assert.NotPanics(t, torch.Tensor{}.Free, "Free of the zero Tensor is a no-op")

	// Copies of a Tensor value share one handle.
	y := f32(3)
	y2 := y
	y.Free()
	assert.False(t, y2.Defined())
	assert.NotPanics(t, y2.Free)
	mustPanicErr(t, "numel", func() { y2.Numel() })
	ok(t)
}

func TestShare(t *testing.T) {
	x := leaf(1, 2)
	s := x.Share()
	assert.True(t, s.Defined())
	x.Free()
	// The other handle still works, and is the same autograd leaf.
	assert.True(t, s.Defined())
	assert.Equal(t, []float32{1, 2}, s.Float32s())
	assert.True(t, s.RequiresGrad())
	assert.True(t, s.IsLeaf())
	s.Free()
	assert.False(t, s.Defined())
	ok(t)
}

// Tensors left to Go's garbage collector are freed by their cleanups; those
// still in use are not.
func TestCleanupByGC(t *testing.T) {
	keep := f32(7, 8)
	for i := 0; i < 2000; i++ {
		x := torch.Add(keep, keep)
		_ = x
	}
	runtime.GC()
	runtime.GC()
	assert.Equal(t, []float32{7, 8}, keep.Float32s())
	assert.Equal(t, []float32{14, 16}, torch.Add(keep, keep).Float32s())
}

// Independent tensors may be used from many goroutines at once. Run with
// -race.
func TestConcurrentOps(t *testing.T) {
	const workers, iters = 4, 50
	a := torch.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			b := torch.Full(i64s(2, 2), torch.S(float32(w)))
			for i := 0; i < iters; i++ {
				s := torch.Add(a, b)
				p := torch.Mm(s, a)
				if i%2 == 0 {
					s.Free()
					p.Free()
				}
				if _, err := torch.TryMm(a, torch.Zeros(i64s(3, 3))); err == nil {
					errs <- errors.New("mm of 2x2 and 3x3 did not fail")
					return
				}
			}
			want := []float32{1 + float32(w), 2 + float32(w), 3 + float32(w), 4 + float32(w)}
			if got := torch.Add(a, b).Float32s(); !assert.ObjectsAreEqual(want, got) {
				errs <- errors.New("wrong sum")
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	runtime.GC()
}
