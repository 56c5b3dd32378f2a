package text

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/safetensors"
)

const bertFile = "testdata/bert_tiny.safetensors"

// loadBert builds the golden classifier of config c and loads the golden
// state dict (a model.safetensors) strictly.
func loadBert(t *testing.T, c BertConfig) *BertForSequenceClassification {
	t.Helper()
	m, err := NewBertForSequenceClassification(c)
	require.NoError(t, err)
	sd, meta, err := safetensors.Load(bertFile)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"format": "pt"}, meta)
	require.NoError(t, m.LoadStateDict(sd, true), "strict load of PyTorch's state dict")
	return m
}

func TestBertGolden(t *testing.T) {
	var g gBert
	readJSON(t, "bert_tiny.json", &g)
	t.Logf("golden values from PyTorch %s", g.TorchVersion)
	m := loadBert(t, bertConfig(t, g.Config))
	assert.Equal(t, g.StateDictKeys, paramNames(m), "transformers' names, in its order")

	ids, mask, types, labels := g.InputIDs.tensor(t), g.AttentionMask.tensor(t), g.TokenTypeIDs.tensor(t), g.Labels.tensor(t)
	m.Eval()
	t.Run("eval", func(t *testing.T) {
		h, pooled := m.Bert.Forward(ids, mask, types)
		g.LastHiddenState.requireClose(t, h, "last_hidden_state")
		g.PoolerOutput.requireClose(t, pooled, "pooler_output")
		logits := m.Forward(ids, mask, types)
		g.Logits.requireClose(t, logits, "classifier logits")
		loss := m.Loss(logits, labels)
		assert.True(t, golden.Close(g.EvalLoss, loss.Item(), torch.Float32), "eval loss: PyTorch %v, GoTorch %v", g.EvalLoss, loss.Item())
	})
	t.Run("defaults", func(t *testing.T) {
		// No mask, every token of type 0.
		h, pooled := m.Bert.Forward(ids, torch.Tensor{}, torch.Tensor{})
		g.LastHiddenStateNoMask.requireClose(t, h, "last_hidden_state without mask and token types")
		g.PoolerOutputNoMask.requireClose(t, pooled, "pooler_output without mask and token types")
	})
	t.Run("train step", func(t *testing.T) {
		tm := loadBert(t, bertConfig(t, g.TrainConfig))
		tm.Train()
		opt := optim.AdamW(tm.Parameters(), optim.WithLR(g.TrainStep.LR))
		loss := tm.Loss(tm.Forward(ids, mask, types), labels)
		assert.True(t, golden.Close(g.TrainStep.Loss, loss.Item(), torch.Float32), "training loss: PyTorch %v, GoTorch %v", g.TrainStep.Loss, loss.Item())
		loss.Backward()
		checkTrainStep(t, tm, g.TrainStep, opt.Step)
	})
}

// Padding is invisible: what the mask hides changes nothing of the rest.
func TestBertMaskHidesPadding(t *testing.T) {
	var g gBert
	readJSON(t, "bert_tiny.json", &g)
	m := loadBert(t, bertConfig(t, g.Config))
	m.Eval()
	ids := torch.FromSlice([]int64{5, 6, 7, 0, 0, 8, 9, 10, 11, 12}, 2, 5)
	other := torch.FromSlice([]int64{5, 6, 7, 33, 44, 8, 9, 10, 11, 12}, 2, 5)
	mask := torch.FromSlice([]int64{1, 1, 1, 0, 0, 1, 1, 1, 1, 1}, 2, 5)
	h1, p1 := m.Bert.Forward(ids, mask, torch.Tensor{})
	h2, p2 := m.Bert.Forward(other, mask, torch.Tensor{})
	seen1 := h1.Narrow(1, 0, 3).Contiguous()
	seen2 := h2.Narrow(1, 0, 3).Contiguous()
	golden.AllClose(t, seen1.Float64s(), seen2.Float64s(), torch.Float32, "hidden states of the unpadded tokens")
	golden.AllClose(t, p1.Float64s(), p2.Float64s(), torch.Float32, "pooled output")
	// And without the mask they would differ.
	h3, _ := m.Bert.Forward(other, torch.Tensor{}, torch.Tensor{})
	assert.False(t, golden.For(torch.Float32).Close(seen1.Float64s()[0], h3.Float64s()[0]))
}

func TestBertErrors(t *testing.T) {
	var g gBert
	readJSON(t, "bert_tiny.json", &g)
	c := bertConfig(t, g.Config)
	m := loadBert(t, c)
	ids := torch.FromSlice([]int64{1, 2, 3, 4}, 2, 2)
	for _, tc := range []struct {
		name             string
		ids, mask, types torch.Tensor
		msg              string
	}{
		{"too long", torch.Ones([]int64{1, 17}, torch.WithDtype(torch.Int64)), torch.Tensor{}, torch.Tensor{}, "17 tokens exceed max_position_embeddings=16"},
		{"out of vocab", torch.FromSlice([]int64{1, 50}, 1, 2), torch.Tensor{}, torch.Tensor{}, "input_ids must be in [0, vocab_size=50)"},
		{"mask shape", ids, torch.Ones([]int64{2, 3}), torch.Tensor{}, "attention_mask is [2 3], input_ids [2 2]"},
		{"type shape", ids, torch.Tensor{}, torch.Zeros([]int64{2}, torch.WithDtype(torch.Int64)), "token_type_ids are [2], input_ids [2 2]"},
		{"type range", ids, torch.Tensor{}, torch.FromSlice([]int64{0, 1, 2, 0}, 2, 2), "token_type_ids must be in [0, type_vocab_size=2), got values from 0 to 2"},
		{"3-D", torch.Ones([]int64{1, 2, 2}, torch.WithDtype(torch.Int64)), torch.Tensor{}, torch.Tensor{}, "input_ids must be (batch, seq)"},
	} {
		_, err := m.TryForward(tc.ids, tc.mask, tc.types)
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, ErrInput, tc.name)
		assert.Contains(t, err.Error(), tc.msg, tc.name)
	}
	logits := m.Forward(ids, torch.Tensor{}, torch.Tensor{})
	_, err := m.TryLoss(logits, torch.FromSlice([]int64{1, 2, 0}))
	assert.ErrorContains(t, err, "3 labels for a batch of 2")
	_, err = m.TryLoss(logits, torch.FromSlice([]float32{1, 2}))
	assert.ErrorContains(t, err, "labels must be class indices")

	var nilModel *BertForSequenceClassification
	_, err = nilModel.TryForward(ids, torch.Tensor{}, torch.Tensor{})
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	_, err = nilModel.TryLoss(logits, torch.FromSlice([]int64{1, 2}))
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	_, _, err = (&BertModel{Config: c}).TryForward(ids, torch.Tensor{}, torch.Tensor{})
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	_, _, err = m.Bert.TryForward(ids, torch.Ones([]int64{2, 2}, torch.WithDtype(torch.Bool)), torch.Tensor{})
	assert.NoError(t, err, "a bool mask")

	bad := c
	bad.NumAttentionHeads = 5
	_, err = NewBertModel(bad)
	assert.ErrorIs(t, err, ErrConfig)
	assert.ErrorContains(t, err, "hidden_size (32) must be a multiple of num_attention_heads (5)")
	bad = c
	bad.PadTokenID = 50
	_, err = NewBertForSequenceClassification(bad)
	assert.ErrorContains(t, err, "pad_token_id 50 is not in [0, vocab_size=50)")
}

// With num_labels 1 the loss is a regression's mean squared error.
func TestBertRegressionLoss(t *testing.T) {
	var g gBert
	readJSON(t, "bert_tiny.json", &g)
	c := bertConfig(t, g.Config)
	c.NumLabels = 1
	m, err := NewBertForSequenceClassification(c)
	require.NoError(t, err)
	logits := torch.FromSlice([]float32{0.5, -1}, 2, 1)
	loss := m.Loss(logits, torch.FromSlice([]float32{1.5, 1}))
	assert.InDelta(t, (1.0+4.0)/2, loss.Item(), 1e-6)
}
