package robustness

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// badCase is one wrong call. f returns the error, or panics with it.
type badCase struct {
	name string
	want string // a part of the message that names the problem; "a|b": either
	op   string // if set, the error must be a *torch.Error of this op
	is   error  // if set, errors.Is(err, is) must hold
	f    func() error
}

// allBadCases gathers the tables of every area.
func allBadCases(t *testing.T) []badCase {
	var all []badCase
	for _, group := range [][]badCase{
		torchCases(t),
		fileCases(t),
		nnCases(t),
		checkpointCases(t),
		optimCases(t),
		dataCases(t),
		gopCases(t),
		nativeCases(t),
		hostileCases(t),
		round3DepthCases(t),
		round3TorchScriptCases(t),
		round3OpsCases(t),
		round3ServeCases(t),
	} {
		all = append(all, group...)
	}
	return all
}

// catch runs f and returns its error or the error it panicked with. A
// panic with something that is not an error is reported as such.
func catch(f func() error) (err error, panicked bool, nonError any) {
	defer func() {
		if r := recover(); r != nil {
			panicked = true
			if e, ok := r.(error); ok {
				err = e
			} else {
				nonError = r
			}
		}
	}()
	return f(), false, nil
}

// assertHealthy checks that the library still works after a failure: an
// op, autograd, and gradient mode back on.
func assertHealthy(t *testing.T) {
	t.Helper()
	a := torch.FromSlice([]float32{1, 2})
	b := torch.FromSlice([]float32{3, 4})
	require.Equal(t, []float32{4, 6}, torch.Add(a, b).Float32s(), "the next valid op")
	w := torch.Ones([]int64{2}, torch.WithRequiresGrad(true))
	torch.Mul(w, a).Sum().Backward()
	require.Equal(t, []float32{1, 2}, w.Grad().Float32s(), "autograd after the failure")
	require.True(t, torch.IsGradEnabled(), "gradient mode left off")
}

func TestBadInput(t *testing.T) {
	cases := allBadCases(t)
	seen := map[string]bool{}
	// The Go+ cases run the gop-torch binary, which builds first and
	// loads GoTorch's packages for each script, about 3 s of CPU a case:
	// in -short mode (make test) they are left to make test-long (issue
	// 38). make test still checks the same in cmd/gop-torch, in-process
	// under -race: TestCompileErrorsGolden and TestTypeErrors run scripts
	// with type errors through gop-torch's go command, which must exit 1
	// with the compiler's errors at the script's lines, without a panic or
	// an xgo_autogen.go.
	gop := map[string]bool{}
	for _, c := range gopCases(t) {
		gop[c.name] = true
	}
	for _, c := range cases {
		require.False(t, seen[c.name], "duplicate case name %q", c.name)
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			if gop[c.name] && testing.Short() {
				t.Skip("runs gop-torch: make test-long (cmd/gop-torch's tests check its errors in make test)")
			}
			err, panicked, nonError := catch(c.f)
			require.Nil(t, nonError, "panicked with a %T, not an error: %v", nonError, nonError)
			require.Error(t, err, "no error")
			var re runtime.Error
			require.False(t, errors.As(err, &re), "a bare runtime error: %v", err)
			// "a|b": libtorch versions word it differently.
			matched := false
			for _, w := range strings.Split(c.want, "|") {
				matched = matched || strings.Contains(err.Error(), w)
			}
			assert.True(t, matched, "%q does not contain %q", err.Error(), c.want)
			if c.op != "" {
				var te *torch.Error
				if assert.True(t, errors.As(err, &te), "want a *torch.Error, got %T: %v", err, err) {
					assert.Equal(t, c.op, te.Op)
				}
			}
			if c.is != nil {
				assert.ErrorIs(t, err, c.is)
			}
			t.Logf("panicked=%v: %v", panicked, err)
			assertHealthy(t)
		})
	}
}

// minBadCases is the size the issue asks of the suite.
const minBadCases = 450

func TestBadInputCount(t *testing.T) {
	cases := allBadCases(t)
	perGroup := fmt.Sprintf("torch %d, files %d, nn %d, checkpoints %d, optim %d, data %d, Go+ %d, trusted arguments %d, hostile sizes %d",
		len(torchCases(t)), len(fileCases(t)), len(nnCases(t)), len(checkpointCases(t)),
		len(optimCases(t)), len(dataCases(t)), len(gopCases(t)), len(nativeCases(t)), len(hostileCases(t)))
	t.Logf("%d bad-input cases (%s)", len(cases), perGroup)
	require.GreaterOrEqual(t, len(cases), minBadCases)
}

// f32 and i64 make small CPU tensors.
func f32(v ...float32) torch.Tensor { return torch.FromSlice(v) }
func i64(v ...int64) torch.Tensor   { return torch.FromSlice(v) }

// x34 is a 3×4 float32 tensor.
func x34() torch.Tensor {
	return torch.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3, 4)
}

func shape(v ...int64) []int64 { return v }

// freed returns a tensor that was freed.
func freed() torch.Tensor {
	t := x34()
	t.Free()
	return t
}

// p wraps a call expected to panic.
func p(f func()) func() error {
	return func() error {
		f()
		return nil
	}
}

// e1 and e2 drop the results of Try forms.
func e1[A any](_ A, err error) error                 { return err }
func e2[A, B any](_ A, _ B, err error) error         { return err }
func e3[A, B, C any](_ A, _ B, _ C, err error) error { return err }
