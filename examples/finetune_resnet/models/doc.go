// Package models holds the model of the ResNet fine-tuning example, written
// in Go+ (Classifier_model.gox): a torchvision ResNet-18 from
// models/vision that takes Fashion-MNIST's grey images. gop-torch compiles
// it to xgo_autogen.go, which is committed, so that plain Go code imports
// the package like any other:
//
//	net := classfile.Build(new(models.Classifier))
//	scores := net.Forward(images) // [N, 1, 28, 28] -> [N, 1000], or the new head's classes
package models
