// Package models holds the model of the character-level LSTM example,
// written in Go+ (CharRNN_model.gox). gop-torch compiles it to
// xgo_autogen.go, which is committed, so that plain Go code can import the
// package like any other:
//
//	net := classfile.Build(&models.CharRNN{Vocab: 80})
//	logits := net.Forward(x) // [N, T, 80]
package models
