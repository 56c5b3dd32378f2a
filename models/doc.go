// Package models holds whole architectures built from package nn, with the
// module names of the libraries that people train them in, so that their
// state dicts load into GoTorch without renaming a key:
//
//   - models/vision: torchvision 0.14's ResNet (resnet18, resnet50),
//     MobileNetV2, VGG (vgg11_bn) and VisionTransformer (vit_b_16);
//   - models/text: GPT-2- and BERT-style models with Hugging Face's names.
//
// docs/models.md shows how to bring a state dict saved in PyTorch into Go,
// fine-tune it and serve it.
package models
