// Package models holds the Go+ models of the benchmark's Go+ worker
// (MLP_model.gox, CNN_model.gox, Transformer_model.gox). gop-torch compiles them to
// xgo_autogen.go, which is committed.
package models
