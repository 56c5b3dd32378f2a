package torch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// freed reports whether t was freed: using it panics with the
// use-after-free error.
func freed(t torch.Tensor) (gone bool) {
	defer func() {
		if r := recover(); r != nil {
			gone = true
		}
	}()
	t.Float32s()
	return false
}

func TestTempFreedByConsumer(t *testing.T) {
	x := gf32(1, 2, 3)
	cases := []struct {
		name string
		run  func(tmp torch.Tensor) torch.Tensor
		want []float32
	}{
		{"right of +", func(tmp torch.Tensor) torch.Tensor { return x.Gop_Add(torch.Temp(tmp)) }, []float32{3, 6, 9}},
		{"left of *", func(tmp torch.Tensor) torch.Tensor { return torch.Temp(tmp).Gop_Mul(x) }, []float32{2, 8, 18}},
		{"left of -, scalar right", func(tmp torch.Tensor) torch.Tensor { return torch.Temp(tmp).Gop_Sub(1) }, []float32{1, 3, 5}},
		{"right of /", func(tmp torch.Tensor) torch.Tensor { return x.Gop_Quo(torch.Temp(tmp)) }, []float32{0.5, 0.5, 0.5}},
		{"unary -", func(tmp torch.Tensor) torch.Tensor { return torch.Temp(tmp).Gop_Neg() }, []float32{-2, -4, -6}},
		{"comparison", func(tmp torch.Tensor) torch.Tensor {
			return torch.Temp(tmp).Gop_GT(x).Float()
		}, []float32{1, 1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := x.Gop_Mul(2)
			r := c.run(tmp)
			assert.Equal(t, c.want, r.Float32s())
			assert.True(t, freed(tmp), "the temporary was not freed")
			assert.False(t, freed(x), "an operand that was not a temporary was freed")
		})
	}
}

func TestTempBothOperands(t *testing.T) {
	x := gf32(1, 2)
	a, b := x.Gop_Mul(2), x.Gop_Add(1)
	r := torch.Temp(a).Gop_Add(torch.Temp(b)) // (x*2) + (x+1)
	assert.Equal(t, []float32{4, 7}, r.Float32s())
	assert.True(t, freed(a))
	assert.True(t, freed(b))
}

// A temporary that is its operator's result is kept.
func TestTempKeptWhenItIsTheResult(t *testing.T) {
	y := gf32(5)
	assert.Equal(t, y, torch.ReleaseTemp(torch.Temp(y), y))
	assert.False(t, freed(y), "a temporary that is the result was freed")
	torch.ReleaseTemp(torch.Temp(y), gf32(5))
	assert.True(t, freed(y))

	x := gf32(1, 2)
	tmp := x.Gop_Mul(3)
	var total torch.Tensor
	total.Gop_AddAssign(torch.Temp(tmp)) // the zero Tensor takes a copy
	assert.Equal(t, []float32{3, 6}, total.Float32s())
	assert.True(t, freed(tmp))

	acc := gf32(10, 10)
	tmp = x.Gop_Mul(3)
	acc.Gop_SubAssign(torch.Temp(tmp)) // in place
	assert.Equal(t, []float32{7, 4}, acc.Float32s())
	assert.True(t, freed(tmp))
	assert.False(t, freed(acc))
}

// Freeing a temporary drops GoTorch's reference only: what autograd saved
// for the backward pass stays alive.
func TestTempKeepsAutograd(t *testing.T) {
	w := gf32(1, 2, 3).SetRequiresGrad(true)
	sq := w.Gop_Mul(w)                        // saved by the next Mul
	cube := torch.Temp(sq).Gop_Mul(w)         // w³, sq freed here
	loss := torch.Temp(cube).Gop_Add(1).Sum() // cube freed here
	require.True(t, freed(sq))
	require.True(t, freed(cube))
	loss.Backward()
	assert.Equal(t, []float32{3, 12, 27}, w.Grad().Float32s()) // 3w²
}

func TestTempLiveCount(t *testing.T) {
	x := gf32(1, 2, 3)
	// Earlier tests' garbage is collected first: a background collection
	// during the loop would otherwise lower the count (CI saw 17, not 487).
	before := settle()
	var r torch.Tensor
	for range 100 {
		r.Free()
		r = x.Gop_Add(torch.Temp(torch.Temp(x.Gop_Mul(x)).Gop_Sub(1))) // x + (x*x - 1)
	}
	assert.Equal(t, []float32{1, 5, 11}, r.Float32s())
	assert.Equal(t, before+1, torch.ReadMemStats().LiveTensors, "temporaries outlived their expressions")
}

func TestRebind(t *testing.T) {
	x := gf32(1, 2)
	old, next := x.Gop_Mul(2), x.Gop_Add(1)
	r := torch.Rebind(old, next)
	assert.Equal(t, []float32{2, 3}, r.Float32s())
	assert.True(t, freed(old), "the old value was not freed")
	assert.False(t, freed(next))

	// The same tensor stays; the zero Tensor and a freed one are fine.
	assert.False(t, freed(torch.Rebind(next, next)))
	assert.Equal(t, []float32{2, 3}, torch.Rebind(torch.Tensor{}, next).Float32s())
	assert.Equal(t, []float32{2, 3}, torch.Rebind(old, next).Float32s())
	assert.False(t, freed(x))
}

func TestConsume(t *testing.T) {
	x := gf32(1, 2)
	p := x.Gop_Mul(2)
	r := torch.Consume(p, func(t torch.Tensor) torch.Tensor { return t.Relu() })
	assert.Equal(t, []float32{2, 4}, r.Float32s())
	assert.True(t, freed(p), "the temporary was not freed")
	assert.False(t, freed(r))
	assert.False(t, freed(x))

	// A function that returns its argument keeps it.
	q := x.Gop_Mul(3)
	assert.Equal(t, []float32{3, 6}, torch.Consume(q, func(t torch.Tensor) torch.Tensor { return t }).Float32s())
	assert.False(t, freed(q))

	// A panic leaves the temporary to the collector, usable.
	s := x.Gop_Mul(4)
	assert.Panics(t, func() {
		torch.Consume(s, func(t torch.Tensor) torch.Tensor { return t.View([]int64{3}) })
	})
	assert.False(t, freed(s))
	assert.Equal(t, []float32{4, 8}, s.Float32s())

	// A nil function is a clear panic, and frees nothing.
	assert.PanicsWithError(t, "torch.Consume: the function is nil", func() { torch.Consume(s, nil) })
	assert.False(t, freed(s))

	// Autograd keeps what it saved: the gradient flows through a
	// consumed product.
	w := gf32(1, 2).SetRequiresGrad(true)
	loss := torch.Consume(w.Gop_Mul(w), func(t torch.Tensor) torch.Tensor { return t.Sum() })
	loss.Backward()
	assert.Equal(t, []float32{2, 4}, w.Grad().Float32s())
}
