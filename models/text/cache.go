package text

import "github.com/gotorch/gotorch/torch"

// KVCache holds the keys and values of the tokens a GPT-2 model has
// already seen, per block (transformers' past_key_values), so that the
// next tokens attend to them without recomputing them. Pass the same
// cache to each call of TryForward, with the tokens that follow; Generate
// makes its own. A zero KVCache is empty.
//
// A zero cache grows by concatenation: each forward makes every block's
// keys and values anew, past and new together, as transformers' dynamic
// cache does. Generate's cache is reserved for all the tokens it will
// see (reserve): each block's keys and values live in a buffer of that
// many positions, Keys[i] and Values[i] are views of its first Len(), and
// a forward copies only the new tokens' keys and values in after them
// (transformers' StaticCache), so a token costs one position's copy
// instead of the whole past's, and no new block of a new size.
type KVCache struct {
	Keys, Values []torch.Tensor // per block: (batch, n_head, seen, head_dim)

	reserve    int64          // positions of kbuf and vbuf; 0 for none
	kbuf, vbuf []torch.Tensor // per block: (batch, n_head, reserve, head_dim), made at first use
	views      []torch.Tensor // per block: the keys extend returned last (not owned: Keys' tensors)
}

// Len is how many tokens the cache holds; 0 for a nil or empty cache.
func (c *KVCache) Len() int64 {
	if c == nil || len(c.Keys) == 0 {
		return 0
	}
	return c.Keys[0].Size(2)
}

// set replaces the cache's keys and values, freeing the old ones (the
// reserved buffers stay).
func (c *KVCache) set(keys, values []torch.Tensor) {
	freeAll(c.Keys)
	freeAll(c.Values)
	c.Keys, c.Values = keys, values
}

// Free frees the cached tensors and empties the cache.
func (c *KVCache) Free() {
	if c == nil {
		return
	}
	for _, ts := range [][]torch.Tensor{c.Keys, c.Values, c.kbuf, c.vbuf} {
		freeAll(ts)
	}
	c.Keys, c.Values, c.kbuf, c.vbuf, c.views = nil, nil, nil, nil, nil
}

func freeAll(ts []torch.Tensor) {
	for i := range ts {
		if ts[i].Defined() {
			ts[i].Free()
		}
	}
}

// extend returns block i's keys and values: those of the past, pastK and
// pastV (undefined for none), followed by the new ones, k and v (batch,
// n_head, new, head_dim). In a reserved cache whose past is block i's
// buffer (what extend returned last, not a tensor the caller put in Keys)
// it copies k and v into the buffer and returns views of it; otherwise it
// concatenates, or returns k and v themselves when there is no past. It
// never writes to the positions of the past, so a forward that fails
// halfway leaves the cache's tensors as they were.
func (c *KVCache) extend(i int, pastK, pastV, k, v torch.Tensor) (torch.Tensor, torch.Tensor) {
	if kb, vb, past, ok := c.buffers(i, pastK, k); ok {
		n := k.Size(2)
		for _, p := range [][2]torch.Tensor{{kb, k}, {vb, v}} {
			dst := p[0].Narrow(2, past, n)
			dst.Copy_(p[1])
			dst.Free()
		}
		keys := kb.Narrow(2, 0, past+n)
		c.views[i] = keys
		return keys, vb.Narrow(2, 0, past+n)
	}
	if !pastK.Defined() {
		return k, v
	}
	return torch.Cat([]torch.Tensor{pastK, k}, torch.WithDim(-2)), torch.Cat([]torch.Tensor{pastV, v}, torch.WithDim(-2))
}

// buffers returns block i's reserved buffers, made at first use like k,
// and the length of the past in them, when the new keys k fit after
// pastK there.
func (c *KVCache) buffers(i int, pastK, k torch.Tensor) (kb, vb torch.Tensor, past int64, ok bool) {
	if c == nil || c.reserve <= 0 {
		return kb, vb, 0, false
	}
	if pastK.Defined() {
		// The past must be the view extend made last (Keys[i] of a cache
		// that only extend has filled), not the caller's tensor.
		if i >= len(c.views) || pastK != c.views[i] || !c.kbuf[i].Defined() {
			return kb, vb, 0, false
		}
		past = pastK.Size(2)
	}
	if past+k.Size(2) > c.reserve {
		return kb, vb, 0, false
	}
	for len(c.kbuf) <= i {
		c.kbuf, c.vbuf, c.views = append(c.kbuf, torch.Tensor{}), append(c.vbuf, torch.Tensor{}), append(c.views, torch.Tensor{})
	}
	shape := k.Shape()
	shape[2] = c.reserve
	if b := c.kbuf[i]; !b.Defined() || !equalShape(b.Shape(), shape) || b.DType() != k.DType() || b.Device() != k.Device() {
		if past > 0 {
			return kb, vb, 0, false
		}
		freeAll([]torch.Tensor{c.kbuf[i], c.vbuf[i]})
		opts := []torch.Option{torch.WithDtype(k.DType()), torch.WithDevice(k.Device())}
		c.kbuf[i], c.vbuf[i] = torch.Empty(shape, opts...), torch.Empty(shape, opts...)
	}
	return c.kbuf[i], c.vbuf[i], past, true
}
