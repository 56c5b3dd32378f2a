package data_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/torch"
)

func ExampleLoader() {
	// Ten examples: inputs 0..9, targets their squares.
	x := torch.Arange(torch.S(10)).To(torch.Float32).Unsqueeze(1)
	ds, err := data.NewTensorDataset(x, x.Mul(x))
	if err != nil {
		log.Fatal(err)
	}
	loader, err := data.NewLoader(ds, data.Options{BatchSize: 4, Shuffle: true, Seed: 1, Workers: 2, DropLast: true})
	if err != nil {
		log.Fatal(err)
	}
	for epoch := 0; epoch < 2; epoch++ {
		for loader.Scan() { // calls torch.GC() before each batch
			input, target := loader.Batch()
			fmt.Println(epoch, input.Shape(), target.Shape(), len(loader.Indices()))
		}
		if err := loader.Err(); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// 0 [4 1] [4 1] 4
	// 0 [4 1] [4 1] 4
	// 1 [4 1] [4 1] 4
	// 1 [4 1] [4 1] 4
}

func ExampleLoader_All() {
	text := "to be or not to be, that is the question"
	ds, err := data.NewCharDataset(text, 8)
	if err != nil {
		log.Fatal(err)
	}
	loader, err := data.NewLoader(ds, data.Options{BatchSize: 16})
	if err != nil {
		log.Fatal(err)
	}
	for b, err := range loader.All(context.Background()) { // no implicit torch.GC
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.Input.Shape(), b.Target.Shape(), b.Input.DType())
	}
	// Output:
	// [16 8] [16 8] torch.int64
	// [16 8] [16 8] torch.int64
}
