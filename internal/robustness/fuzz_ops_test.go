package robustness

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gotorch/gotorch/torch"
)

// FuzzOps runs programs of generated ops on random shapes, dtypes and
// arguments. Each byte string is a program: it makes a few tensors, then
// applies ops from opTable to tensors of its pool, with dimensions, sizes
// and scalars read from the same bytes, and keeps the small results as
// new operands. Every op must succeed or fail with a *torch.Error, and a
// panic must carry a *torch.Error too; a native crash kills the fuzzing
// process, which go test reports as a failure with the input that did it.
// Sizes are kept small so that no input can ask for much memory.
//
// Run it longer with
//
//	go test ./internal/robustness -run '^$' -fuzz '^FuzzOps$' -fuzztime 10m
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	for op := 0; op < len(opTable); op++ {
		// Each op once on the default operands, and with a dtype change.
		f.Add([]byte{byte(op), 0, 1, 2, 3, 2, 1})
		f.Add([]byte{3, 2, 1, 7, byte(op), 1, 0, 4, 2})
	}
	f.Add([]byte{255, 255, 255, 255, 0, 0, 0, 0, 128, 128, 128})
	f.Fuzz(runProgram)
}

// TestOpsRandomPrograms runs FuzzOps's harness on random programs without
// the fuzzing engine, so that every go test run tries new ones; the seed
// is logged to replay a failure with GOTORCH_OPS_SEED.
func TestOpsRandomPrograms(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("GOTORCH_OPS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = v
	}
	t.Logf("GOTORCH_OPS_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	n := 100
	if testing.Short() {
		n = 20
	}
	for i := 0; i < n; i++ {
		prog := make([]byte, 8+rng.IntN(120))
		for j := range prog {
			prog[j] = byte(rng.UintN(256))
		}
		runProgram(t, prog)
	}
}

// runProgram runs one program of FuzzOps.
func runProgram(t *testing.T, prog []byte) {
	if len(prog) > 256 {
		prog = prog[:256]
	}
	r := &progReader{b: prog}
	pool := []torch.Tensor{r.tensor(), r.tensor()}
	for steps := 0; steps < 16 && !r.done(); steps++ {
		op := opTable[r.byte()%byte(len(opTable))]
		a, b := pool[int(r.byte())%len(pool)], pool[int(r.byte())%len(pool)]
		out, err := runOp(op, a, b, r)
		if err != nil {
			var te *torch.Error
			if !errors.As(err, &te) {
				t.Fatalf("program %q: op %s: error %T %v, want a *torch.Error", prog, op.name, err, err)
			}
			continue
		}
		if out.Defined() && out.Numel() <= 4096 && len(pool) < 8 {
			pool = append(pool, out)
		}
	}
	// The library still works.
	if got := torch.Add(f32(1), f32(2)).Float32s(); got[0] != 3 {
		t.Fatalf("program %q: 1 + 2 = %v after it", prog, got)
	}
	for _, x := range pool {
		x.Free()
	}
}

// runOp runs one op, turning a panic into its error; a panic that is not
// an error, or a bare runtime error, is returned as a non-torch error so
// that the fuzz target fails.
func runOp(op fuzzOp, a, b torch.Tensor, r *progReader) (out torch.Tensor, err error) {
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok {
				var re runtime.Error
				if errors.As(e, &re) {
					err = errors.New("runtime error: " + e.Error())
					return
				}
				err = e
				return
			}
			err = errors.New("panic with a non-error")
		}
	}()
	return op.f(a, b, r)
}

// progReader reads a program's bytes; past the end it reads zeros.
type progReader struct {
	b []byte
	i int
}

func (r *progReader) done() bool { return r.i >= len(r.b) }

func (r *progReader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

// small reads an int in [-2, 5]: dimensions, sizes, counts.
func (r *progReader) small() int64 { return int64(r.byte()%8) - 2 }

// size reads a size in [0, 4], and now and then -1.
func (r *progReader) size() int64 {
	c := r.byte()
	if c == 255 {
		return -1
	}
	return int64(c % 5)
}

func (r *progReader) sizes() []int64 {
	n := int(r.byte() % 5)
	s := make([]int64, n)
	for i := range s {
		s[i] = r.size()
	}
	return s
}

func (r *progReader) ints() []int64 {
	n := int(r.byte() % 4)
	s := make([]int64, n)
	for i := range s {
		s[i] = r.small()
	}
	return s
}

var fuzzScalars = []float64{0, 1, -1, 0.5, 2, 1e30, -1e-30, math.Inf(1), math.Inf(-1), math.NaN(), 3}

func (r *progReader) scalar() torch.Scalar {
	return torch.S(fuzzScalars[int(r.byte())%len(fuzzScalars)])
}

var fuzzDTypes = []torch.DType{
	torch.Float32, torch.Float64, torch.Int64, torch.Int32, torch.Bool,
	torch.Float16, torch.BFloat16, torch.Complex64, torch.Uint8, torch.Int8,
}

func (r *progReader) dtype() torch.DType { return fuzzDTypes[int(r.byte())%len(fuzzDTypes)] }

// tensor makes an operand: a small tensor of a shape, a dtype and values
// read from the program, or now and then the zero Tensor or a freed one.
func (r *progReader) tensor() torch.Tensor {
	switch r.byte() % 16 {
	case 0:
		return torch.Tensor{}
	case 1:
		t := torch.Ones([]int64{2})
		t.Free()
		return t
	}
	shape := r.sizes()
	for i := range shape {
		shape[i] = max(shape[i], 0)
	}
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(fuzzScalars[int(r.byte())%len(fuzzScalars)])
	}
	t := torch.FromSlice(v, shape...)
	if dt := r.dtype(); dt != torch.Float32 {
		if c, err := t.TryTo(dt); err == nil {
			t = c
		}
	}
	return t
}

type fuzzOp struct {
	name string
	f    func(a, b torch.Tensor, r *progReader) (torch.Tensor, error)
}

func first[A any](a A, _ A, err error) (A, error)     { return a, err }
func first3[A any](a A, _, _ A, err error) (A, error) { return a, err }
func firstList(ts []torch.Tensor, err error) (torch.Tensor, error) {
	if err != nil || len(ts) == 0 {
		return torch.Tensor{}, err
	}
	return ts[0], nil
}

// opTable is the sample of ops: elementwise, reductions, shape and view
// ops, indexing, linear algebra, neural-network ops and in-place ops.
var opTable = []fuzzOp{
	{"add", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryAdd(a, b) }},
	{"sub", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TrySub(a, b) }},
	{"mul", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMul(a, b) }},
	{"div", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryDiv(a, b) }},
	{"remainder", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryRemainder(a, b) }},
	{"fmod", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryFmod(a, b) }},
	{"pow", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryPow(a, b) }},
	{"atan2", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryAtan2(a, b) }},
	{"maximum", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMaximum(a, b) }},
	{"lerp", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLerp(a, b, b) }},
	{"eq", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryEq(a, b) }},
	{"logical_and", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLogicalAnd(a, b) }},
	{"bitwise_and", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryBitwiseAnd(a, b) }},
	{"add scalar", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryAddScalar(r.scalar()) }},
	{"sqrt", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TrySqrt(a) }},
	{"log", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLog(a) }},
	{"exp", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryExp(a) }},
	{"sigmoid", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TrySigmoid(a) }},
	{"erf", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryErf(a) }},
	{"lgamma", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLgamma(a) }},
	{"round", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryRound(a) }},
	{"sign", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TrySign(a) }},
	{"reciprocal", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryReciprocal(a) }},
	{"isnan", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryIsnan(a) }},
	{"nan_to_num", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryNanToNum(a) }},
	{"clamp", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryClamp(a, torch.WithMin(r.scalar().Float()), torch.WithMax(r.scalar().Float()))
	}},
	{"logit", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLogit(a) }},
	{"gelu", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryGelu(a) }},
	{"to", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryTo(r.dtype()) }},
	{"sum", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TrySumDimIntList(a, r.ints())
	}},
	{"prod", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryProd(a) }},
	{"mean", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMean(a) }},
	{"std", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryStd(a) }},
	{"var", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryVar(a) }},
	{"max", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMax(a) }},
	{"max dim", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return first(torch.TryMaxDim(a, r.small()))
	}},
	{"argmax", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryArgmax(a, torch.WithDim(r.small()))
	}},
	{"median", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMedian(a) }},
	{"mode", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return first(torch.TryMode(a)) }},
	{"logsumexp", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLogsumexp(a, r.ints()) }},
	{"cumsum", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryCumsum(a, r.small()) }},
	{"cumprod", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryCumprod(a, r.small()) }},
	{"cummax", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return first(torch.TryCummax(a, r.small()))
	}},
	{"sort", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return first(torch.TrySort(a)) }},
	{"argsort", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryArgsort(a) }},
	{"topk", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return first(torch.TryTopk(a, r.small()))
	}},
	{"kthvalue", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return first(torch.TryKthvalue(a, r.small()))
	}},
	{"quantile", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryQuantile(a, b) }},
	{"histc", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryHistc(a, torch.WithBins(r.small()))
	}},
	{"bincount", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryBincount(a) }},
	{"reshape", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryReshape(a, r.sizes()) }},
	{"view", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryView(r.sizes()) }},
	{"expand", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryExpand(r.sizes()) }},
	{"permute", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryPermute(a, r.ints()) }},
	{"transpose", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryTranspose(a, r.small(), r.small())
	}},
	{"movedim", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryMovedim(a, r.ints(), r.ints())
	}},
	{"flatten", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryFlatten(a) }},
	{"unflatten", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryUnflatten(a, r.small(), r.sizes())
	}},
	{"squeeze", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TrySqueeze(a) }},
	{"unsqueeze", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryUnsqueeze(a, r.small()) }},
	{"narrow", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryNarrow(a, r.small(), r.small(), r.small())
	}},
	{"select", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TrySelect(r.small(), r.small()) }},
	{"flip", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryFlip(a, r.ints()) }},
	{"roll", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryRoll(a, r.ints(), torch.WithDims(r.ints()...))
	}},
	{"tile", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryTile(a, r.sizes()) }},
	{"repeat", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryRepeat(r.sizes()) }},
	{"unfold", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return a.TryUnfold(r.small(), r.small(), r.small())
	}},
	{"as_strided", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryAsStrided(a, r.sizes(), r.ints())
	}},
	{"chunk", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return firstList(torch.TryChunk(a, r.small(), torch.WithDim(r.small())))
	}},
	{"split", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return firstList(torch.TrySplit(a, r.small()))
	}},
	{"cat", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryCat([]torch.Tensor{a, b}, torch.WithDim(r.small()))
	}},
	{"stack", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryStack([]torch.Tensor{a, b}, torch.WithDim(r.small()))
	}},
	{"pad", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryConstantPadNd(a, r.ints())
	}},
	{"tril", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryTril(a) }},
	{"diag", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryDiag(a) }},
	{"trace", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryTrace(a) }},
	{"diff", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryDiff(a) }},
	{"gather", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryGather(a, r.small(), b) }},
	{"index_select", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryIndexSelect(a, r.small(), b)
	}},
	{"index", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryIndex(a, []torch.Tensor{b})
	}},
	{"take", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryTake(a, b) }},
	{"scatter", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryScatter(a, r.small(), b, a)
	}},
	{"index_add", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryIndexAdd(a, r.small(), b, a)
	}},
	{"index_put", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryIndexPut(a, []torch.Tensor{b}, a)
	}},
	{"masked_fill", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMaskedFill(a, b, f32(1)) }},
	{"masked_select", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMaskedSelect(a, b) }},
	{"where", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryWhereSelf(a, b, b) }},
	{"nonzero", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryNonzero(a) }},
	{"unique_dim", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return first3(torch.TryUniqueDim(a, r.small()))
	}},
	{"searchsorted", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TrySearchsorted(a, b) }},
	{"bucketize", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryBucketize(a, b) }},
	{"one_hot", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryOneHot(a, torch.WithNumClasses(r.small()))
	}},
	{"embedding", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryEmbedding(a, b) }},
	{"matmul", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMatmul(a, b) }},
	{"mm", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMm(a, b) }},
	{"bmm", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryBmm(a, b) }},
	{"mv", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMv(a, b) }},
	{"dot", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryDot(a, b) }},
	{"outer", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryOuter(a, b) }},
	{"kron", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryKron(a, b) }},
	{"cross", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryCross(a, b) }},
	{"cdist", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryCdist(a, b) }},
	{"addmm", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryAddmm(a, a, b) }},
	{"einsum", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		eqs := []string{"ij,jk->ik", "i,i->", "ii->i", "bij,bjk->bik", "...i,...i", "ij->ji", "i,j", "->", "ab,ab->a"}
		return torch.TryEinsum(eqs[int(r.byte())%len(eqs)], []torch.Tensor{a, b})
	}},
	{"det", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLinalgDet(a) }},
	{"inv", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLinalgInv(a) }},
	{"svd", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return first3(torch.TryLinalgSvd(a)) }},
	{"qr", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return first(torch.TryLinalgQr(a)) }},
	{"eigh", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return first(torch.TryLinalgEigh(a)) }},
	{"solve", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLinalgSolve(a, b) }},
	{"cholesky", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryCholesky(a) }},
	{"norm", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLinalgNorm(a) }},
	{"fft", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryFftFft(a) }},
	{"view_as_real", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryViewAsReal(a) }},
	{"view_as_complex", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryViewAsComplex(a) }},
	{"polar", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryPolar(a, b) }},
	{"softmax", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TrySoftmax(a, r.small()) }},
	{"log_softmax", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLogSoftmax(a, r.small()) }},
	{"relu", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryRelu(a) }},
	{"hardtanh", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryHardtanh(a) }},
	{"dropout", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryDropout(a, r.scalar().Float(), true)
	}},
	{"conv1d", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryConv1d(a, b, torch.WithStride(r.small()), torch.WithPadding(r.small()))
	}},
	{"conv2d", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryConv2d(a, b, torch.WithGroups(r.small()))
	}},
	{"max_pool1d", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryMaxPool1d(a, []int64{r.small()}, torch.WithStride(r.small()), torch.WithPadding(r.small()))
	}},
	{"max_pool2d", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryMaxPool2d(a, []int64{r.small(), r.small()})
	}},
	{"avg_pool1d", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryAvgPool1d(a, []int64{r.small()}, torch.WithPadding(r.small()))
	}},
	{"adaptive_avg_pool1d", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryAdaptiveAvgPool1d(a, []int64{r.small()})
	}},
	{"adaptive_max_pool2d", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return first(torch.TryAdaptiveMaxPool2d(a, []int64{r.small(), r.small()}))
	}},
	{"upsample_nearest1d", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryUpsampleNearest1d(a, []int64{r.small()})
	}},
	{"pixel_shuffle", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryPixelShuffle(a, r.small())
	}},
	{"channel_shuffle", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryChannelShuffle(a, r.small())
	}},
	{"im2col", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryIm2col(a, []int64{r.small(), r.small()}, []int64{1, 1}, []int64{r.small(), 0}, []int64{1, r.small()})
	}},
	{"layer_norm", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryLayerNorm(a, r.sizes()) }},
	{"group_norm", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryGroupNorm(a, r.small()) }},
	{"batch_norm", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryBatchNorm(a, b, b, b, b, r.byte()%2 == 0, 0.1, 1e-5, false)
	}},
	{"cross_entropy", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryCrossEntropyLoss(a, b) }},
	{"nll_loss", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryNllLoss(a, b) }},
	{"mse_loss", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return torch.TryMseLoss(a, b) }},
	{"binary_cross_entropy", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryBinaryCrossEntropy(a, b)
	}},
	{"zeros", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryZeros(r.sizes(), torch.WithDtype(r.dtype()))
	}},
	{"arange", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryArangeStartStep(r.scalar(), r.scalar(), torch.WithStep(r.scalar().Float()))
	}},
	{"linspace", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryLinspace(r.scalar(), r.scalar(), r.small())
	}},
	{"randint", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryRandint(r.small(), r.sizes())
	}},
	{"multinomial", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return torch.TryMultinomial(a, r.small())
	}},
	{"in-place add", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryAdd_(b) }},
	{"in-place mul", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryMul_(b) }},
	{"in-place div", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryDiv_(b) }},
	{"in-place copy", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryCopy_(b) }},
	{"in-place clamp", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return a.TryClamp_(torch.WithMin(r.scalar().Float()))
	}},
	{"in-place fill", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryFill_(b) }},
	{"in-place exp", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryExp_() }},
	{"in-place transpose", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return a.TryTranspose_(r.small(), r.small())
	}},
	{"in-place unsqueeze", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryUnsqueeze_(r.small()) }},
	{"in-place resize", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) { return a.TryResize_(r.sizes()) }},
	{"in-place index_put", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return a.TryIndexPut_([]torch.Tensor{b}, a)
	}},
	{"in-place as_strided", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return a.TryAsStrided_(r.sizes(), r.ints())
	}},
	{"in-place fill_diagonal", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		return a.TryFillDiagonal_(r.scalar())
	}},
	{"backward", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		x, err := a.TryTo(torch.Float32)
		if err != nil {
			return x, err
		}
		x = x.Detach().SetRequiresGrad(true)
		y, err := torch.TryMul(x, x)
		if err != nil {
			return y, err
		}
		return x, y.Sum().TryBackward()
	}},
	{"encode and decode", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		enc, err := a.TryEncode()
		if err != nil {
			return torch.Tensor{}, err
		}
		return torch.Decode(enc)
	}},
	{"print", func(a, b torch.Tensor, r *progReader) (torch.Tensor, error) {
		_ = a.String()
		return a, nil
	}},
}
