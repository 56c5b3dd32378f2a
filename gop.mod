gop 1.4

// GoTorch's classfiles for gop v1.4 (see package classfile and cmd/gop-torch).
// XGo v1.6 reads gox.mod, which says the same; keep the two in step.
//
// *_train.gox: a training script, whose project class embeds
// classfile.Trainer. Its top-level statements are the script.
project _train.gox Trainer github.com/gotorch/gotorch/classfile github.com/gotorch/gotorch/gopkg
import torch github.com/gotorch/gotorch/torch
import nn github.com/gotorch/gotorch/nn
import optim github.com/gotorch/gotorch/nn/optim
import data github.com/gotorch/gotorch/data

// *_model.gox: a model, a work class that embeds classfile.Module (an nn
// module). It is a project of its own, with no project class, so that a
// model package holds only its models and plain Go code can import it.
project github.com/gotorch/gotorch/classfile github.com/gotorch/gotorch/gopkg
class _model.gox Module
import torch github.com/gotorch/gotorch/torch
import nn github.com/gotorch/gotorch/nn
