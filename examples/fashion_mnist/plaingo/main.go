// Command plaingo uses the Go+ model of the Fashion-MNIST example from
// plain Go: package cnn is Go+ compiled to Go by gop-torch, and this
// program builds with go build alone. Given a weights file, such as the
// one the training script writes with -checkpoint FILE, it loads it and
// classifies the first test images.
//
//	go run ./examples/fashion_mnist/plaingo [weights.safetensors]
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/examples/fashion_mnist/cnn"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

func main() {
	net := classfile.Build(new(cnn.Net))
	n := int64(0)
	for _, p := range net.Parameters() {
		n += p.Numel()
	}
	fmt.Printf("%v\n%d parameters\n", net, n)

	x := torch.Randn([]int64{2, 1, 28, 28})
	fmt.Println("output shape:", net.Forward(x).Shape())

	if len(os.Args) < 2 {
		return
	}
	if err := nn.Load(net, os.Args[1], true); err != nil {
		log.Fatal(err)
	}
	test, err := data.LoadFashionMNIST("", data.Test)
	if err != nil {
		log.Fatal(err)
	}
	images, labels, err := test.Tensors()
	if err != nil {
		log.Fatal(err)
	}
	net.Eval()
	k := int64(8)
	batch := images.Narrow(0, 0, k).To(torch.Float32).DivScalar(torch.S(255 * 0.3530)).SubScalar(torch.S(0.2860 / 0.3530))
	var pred torch.Tensor
	torch.NoGrad(func() { pred = net.Forward(batch).ArgmaxAlong(1) })
	for i := int64(0); i < k; i++ {
		fmt.Printf("image %d: predicted %s, labelled %s\n", i,
			data.FashionMNISTClasses[pred.Select(0, i).ItemInt()],
			data.FashionMNISTClasses[labels.Select(0, i).ItemInt()])
	}
}
