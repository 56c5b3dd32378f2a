// Package models holds the model of the MLP example, written in Go+
// (MLP_model.gox). gop-torch compiles it to xgo_autogen.go, which is
// committed, so that plain Go code can import the package like any other:
//
//	net := classfile.Build(new(models.MLP))
//	scores := net.Forward(images) // [N, 10]
package models
