package nn_test

import (
	"fmt"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

func ExampleLSTM() {
	lstm := nn.LSTM(10, 20, nn.WithNumLayers(2), nn.WithBatchFirst(true))
	x := torch.Randn([]int64{3, 5, 10}) // (batch, seq, input_size)
	out, hn, cn := lstm.Forward(x)
	fmt.Println(lstm, out.Shape(), hn.Shape(), cn.Shape())
	// Output: LSTM(10, 20, num_layers=2, batch_first=True) [3 5 20] [2 3 20] [2 3 20]
}

func ExamplePackPaddedSequence() {
	gru := nn.GRU(4, 6, nn.WithBatchFirst(true))
	x := torch.Randn([]int64{3, 5, 4}) // three sequences padded to 5 steps
	p := nn.PackPaddedSequence(x, []int64{2, 5, 3}, nn.WithBatchFirst(true), nn.WithEnforceSorted(false))
	out, hn := gru.ForwardPacked(p)
	y, lengths := nn.PadPackedSequence(out, nn.WithBatchFirst(true))
	fmt.Println(p.BatchSizes.Int64s(), y.Shape(), lengths, hn.Shape())
	// Output: [3 3 2 1 1] [3 5 6] [2 5 3] [1 3 6]
}

func ExampleTransformer() {
	t := nn.Transformer(nn.WithDModel(16), nn.WithNhead(4), nn.WithNumEncoderLayers(2), nn.WithNumDecoderLayers(2),
		nn.WithDimFeedforward(32), nn.WithBatchFirst(true))
	src := torch.Randn([]int64{2, 7, 16}) // (batch, S, d_model)
	tgt := torch.Randn([]int64{2, 5, 16}) // (batch, T, d_model)
	y := t.Forward(src, tgt, nn.WithTgtMask(nn.GenerateSquareSubsequentMask(5)))
	fmt.Println(y.Shape())
	fmt.Println(nn.GenerateSquareSubsequentMask(3))
	// Output:
	// [2 5 16]
	// tensor([[0., -inf, -inf],
	//         [0., 0., -inf],
	//         [0., 0., 0.]])
}
