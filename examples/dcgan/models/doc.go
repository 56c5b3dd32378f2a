// Package models holds the two models of the DCGAN example, written in
// Go+ (Generator_model.gox, Discriminator_model.gox). gop-torch compiles
// them to xgo_autogen.go, which is committed, so that plain Go code can
// import the package like any other:
//
//	g := classfile.Build(new(models.Generator))
//	images := g.Forward(torch.Randn([]int64{16, g.Latent})) // [16, 1, 28, 28]
package models
