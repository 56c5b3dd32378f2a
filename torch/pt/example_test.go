package pt_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/pt"
)

// A checkpoint that PyTorch wrote with
//
//	torch.save({"model": mlp.state_dict(), "optimizer": opt.state_dict(), "epoch": 3, ...}, "checkpoint.pt")
//
// loads into the same layers in Go, by PyTorch's names.
func ExampleLoadModule() {
	mlp := nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
	if err := pt.LoadModule(mlp, "testdata/checkpoint.pt", true, pt.WithKey("model")); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mlp.StateDict()["1.num_batches_tracked"].Int64s())
	// Output: [6]
}

func ExampleLoad() {
	v, err := pt.Load("testdata/checkpoint.pt")
	if err != nil {
		fmt.Println(err)
		return
	}
	ckpt := v.(*pt.Dict)
	epoch, _ := ckpt.Get("epoch")
	pair, _ := ckpt.Get("pair")
	fmt.Println(epoch, pair)
	// Output: 3 [1 2.5 x]
}

func ExampleSave() {
	path := filepath.Join(os.TempDir(), "pt-example.pt")
	defer os.Remove(path)
	sd := map[string]torch.Tensor{"weight": torch.FromSlice([]float32{1, 2, 3})}
	if err := pt.Save(path, sd); err != nil { // torch.load(path) reads it
		fmt.Println(err)
		return
	}
	back, err := pt.LoadStateDict(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back["weight"].Float32s())
	// Output: [1 2 3]
}
