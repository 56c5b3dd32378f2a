// Package cnn holds the model of the Fashion-MNIST example, written in Go+
// (Net_model.gox). gop-torch compiles it to xgo_autogen.go, which is
// committed, so that plain Go code imports the package like any other
// (see ../plaingo):
//
//	net := classfile.Build(new(cnn.Net))
//	out := net.Forward(x)
//
// Net is a CNN for 28×28 grey images: two blocks of convolution, batch
// norm, ReLU and 2×2 max pooling, then a classifier with dropout. It is
// the model of the plain-Go twin, examples/fashion_mnist_go, with the same
// parameter names, so the two read each other's weights.
package cnn
