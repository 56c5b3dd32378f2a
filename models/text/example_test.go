package text_test

import (
	"fmt"
	"log"

	"github.com/gotorch/gotorch/models/text"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/pt"
	"github.com/gotorch/gotorch/torch/safetensors"
)

// tinyGPT2 is the configuration of testdata/gpt2_tiny.pt; a real model's
// comes from text.GPT2Small() or text.ReadGPT2Config("config.json").
func tinyGPT2() text.GPT2Config {
	c := text.GPT2Small()
	c.VocabSize, c.NPositions, c.NEmbd, c.NLayer, c.NHead, c.InitializerRange = 67, 32, 32, 2, 4, 0.2
	return c
}

// A GPT-2 state dict saved with torch.save loads strictly, then generates.
func ExampleGPT2LMHeadModel_Generate() {
	m, err := text.NewGPT2LMHeadModel(tinyGPT2())
	if err != nil {
		log.Fatal(err)
	}
	if err := pt.LoadModule(m, "testdata/gpt2_tiny.pt", true); err != nil {
		log.Fatal(err)
	}
	m.Eval()
	prompt := torch.FromSlice([]int64{28, 7, 31, 1, 39, 22}, 1, 6)
	out := m.Generate(prompt, text.WithMaxNewTokens(8)) // greedy
	fmt.Println(out.Int64s())
	a := m.Generate(prompt, text.WithMaxNewTokens(8), text.WithDoSample(true), text.WithTopK(5), text.WithSeed(7))
	b := m.Generate(prompt, text.WithMaxNewTokens(8), text.WithDoSample(true), text.WithTopK(5), text.WithSeed(7))
	fmt.Println(a.Equal(b))
	// Output:
	// [28 7 31 1 39 22 23 3 16 16 16 3 3 6]
	// true
}

// A loop of one's own feeds each new token through the cache.
func ExampleKVCache() {
	m, err := text.NewGPT2LMHeadModel(tinyGPT2())
	if err != nil {
		log.Fatal(err)
	}
	if err := pt.LoadModule(m, "testdata/gpt2_tiny.pt", true); err != nil {
		log.Fatal(err)
	}
	m.Eval()
	cache := &text.KVCache{}
	defer cache.Free()
	tokens := []int64{28, 7, 31, 1, 39, 22}
	in := torch.FromSlice(tokens, 1, int64(len(tokens)))
	torch.NoGrad(func() {
		for range 4 {
			logits, err := m.TryForward(in, cache)
			if err != nil {
				log.Fatal(err)
			}
			next := logits.Select(1, -1).ArgmaxAlong(-1)
			tokens = append(tokens, next.Int64s()...)
			in = next.Unsqueeze(1) // only the new token: the cache has the rest
		}
	})
	fmt.Println(tokens, cache.Len())
	// Output: [28 7 31 1 39 22 23 3 16 16] 9
}

// A BERT classifier from a model.safetensors, one fine-tuning step.
func ExampleBertForSequenceClassification() {
	c := text.BertBase()
	c.VocabSize, c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads = 50, 32, 2, 4
	c.IntermediateSize, c.MaxPositionEmbeddings, c.NumLabels, c.InitializerRange = 64, 16, 3, 0.2
	m, err := text.NewBertForSequenceClassification(c)
	if err != nil {
		log.Fatal(err)
	}
	sd, _, err := safetensors.Load("testdata/bert_tiny.safetensors")
	if err != nil {
		log.Fatal(err)
	}
	if err := m.LoadStateDict(sd, true); err != nil {
		log.Fatal(err)
	}
	ids := torch.FromSlice([]int64{5, 17, 23, 9, 0, 0, 31, 2, 44, 12, 8, 3}, 2, 6)
	mask := torch.FromSlice([]int64{1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1}, 2, 6)
	labels := torch.FromSlice([]int64{2, 0})
	evalLoss := func() float64 {
		m.Eval()
		var l torch.Tensor
		torch.NoGrad(func() { l = m.Loss(m.Forward(ids, mask, torch.Tensor{}), labels) })
		return l.Item()
	}
	before := evalLoss()

	torch.ManualSeed(1) // dropout's masks
	opt := optim.AdamW(m.Parameters(), optim.WithLR(1e-3))
	m.Train()
	loss := m.Loss(m.Forward(ids, mask, torch.Tensor{}), labels)
	m.ZeroGrad()
	loss.Backward()
	opt.Step()
	fmt.Println(evalLoss() < before)
	// Output: true
}
