package text

import "github.com/gotorch/gotorch/torch"

// KVCache holds the keys and values of the tokens a GPT-2 model has
// already seen, per block (transformers' past_key_values), so that the
// next tokens attend to them without recomputing them. Pass the same
// cache to each call of TryForward, with the tokens that follow; Generate
// makes its own. A zero KVCache is empty.
type KVCache struct {
	Keys, Values []torch.Tensor // per block: (batch, n_head, seen, head_dim)
}

// Len is how many tokens the cache holds; 0 for a nil or empty cache.
func (c *KVCache) Len() int64 {
	if c == nil || len(c.Keys) == 0 {
		return 0
	}
	return c.Keys[0].Size(2)
}

// set replaces the cache's tensors, freeing the old ones.
func (c *KVCache) set(keys, values []torch.Tensor) {
	c.Free()
	c.Keys, c.Values = keys, values
}

// Free frees the cached tensors and empties the cache.
func (c *KVCache) Free() {
	if c == nil {
		return
	}
	for i := range c.Keys {
		c.Keys[i].Free()
	}
	for i := range c.Values {
		c.Values[i].Free()
	}
	c.Keys, c.Values = nil, nil
}
