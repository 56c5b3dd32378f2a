#!/usr/bin/python3
"""PyTorch side of models/vision's tests: torchvision 0.14's models.

Run with the reference PyTorch (Debian's python3-torch 1.13.1 and
python3-torchvision 0.14.1), from the repository root:

    /usr/bin/python3 models/vision/testdata/gen.py

It writes, beside itself (or into $GOLDEN_OUT):

keys_<model>.pt, for resnet18, resnet50, mobilenet_v2, vgg11_bn and
    vit_b_16 at full size (torchvision's defaults): the model's state dict
    with torchvision's exact keys, shapes and dtypes, where every tensor is
    one value broadcast (a zero-stride view of a one-element storage, so
    the file is a few kB). Key i of the sorted keys holds the value
    (i+1)/1024 (num_batches_tracked: i+1), so a test that loads the file
    can tell where each value went.
counts.json: per model, the number of parameters (and of their elements)
    and of buffers, and every key with its shape.
golden_<case>.pt: one forward and one training step of a model, in
    float64. Weights are not stored: they follow the formula of fill()
    below, which models/vision's tests compute the same way, bit for bit
    (integer arithmetic, then one division by a power of two, one
    subtraction and one correctly rounded multiplication), and so do the
    input images, (4, 3, H, W): 4*(pattern(n, 12345) - 0.5). The file holds
      target         class indices, (4,)
      logits         eval-mode output
      loss           cross-entropy after a train-mode forward
      grad.<name>    gradients of a few parameters after loss.backward()
      buffer.<name>  a few batch-norm running statistics after that forward
state_<case>.pt: for the small cases only, the model's state dict (the
    fill() weights), which the Go tests load with pt.LoadModule, strictly.
"""

import json
import math
import os

import torch
import torch.nn.functional as F
import torchvision
from torchvision.models.mobilenetv2 import MobileNetV2
from torchvision.models.resnet import BasicBlock, ResNet
from torchvision.models.vision_transformer import VisionTransformer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("GOLDEN_OUT") or HERE


def pattern(n, i):
    """n float64 values in [0, 1): element j is ((j*40503 + i*9973) mod 65536) / 65536."""
    h = (torch.arange(n, dtype=torch.int64) * 40503 + i * 9973) % 65536
    return h.double() / 65536


def fill(model):
    """Sets every floating-point tensor of model's state dict, in the
    sorted order of the keys, from integers: element j of key i is
    h = (j*40503 + i*9973) mod 65536, and u = h/65536 - 0.5, in [-0.5, 0.5):
      - running_var: 0.5 + h/65536;
      - a tensor of 2 or more dimensions (weights, class_token,
        pos_embedding): u * sqrt(6/fan_in), fan_in = numel/shape[0];
      - a 1-dimensional weight (batch and layer norms): 1 + u/2;
      - anything else (biases, running_mean): u.
    num_batches_tracked is set to 3. Computed in float64, then converted
    to the tensor's dtype."""
    sd = model.state_dict()
    with torch.no_grad():
        for i, k in enumerate(sorted(sd)):
            t = sd[k]
            if not t.dtype.is_floating_point:
                t.fill_(3)
                continue
            n = t.numel()
            r = pattern(n, i)
            if k.endswith("running_var"):
                v = 0.5 + r
            elif t.dim() >= 2:
                v = (r - 0.5) * math.sqrt(6.0 / (n // t.shape[0]))
            elif k.endswith("weight"):
                v = 1 + (r - 0.5) / 2
            else:
                v = r - 0.5
            t.copy_(v.reshape(t.shape).to(t.dtype))


# The full-size models whose keys and counts are checked.
FULL = {
    "resnet18": lambda: torchvision.models.resnet18(),
    "resnet50": lambda: torchvision.models.resnet50(),
    "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(),
    "vgg11_bn": lambda: torchvision.models.vgg11_bn(),
    "vit_b_16": lambda: torchvision.models.vit_b_16(),
}

# The golden cases: (model, image size, [parameters whose gradients are
# kept], [buffers kept], state dict saved). Dropout is 0, so that a
# training step is deterministic.
CASES = {
    "resnet18": (lambda: torchvision.models.resnet18(num_classes=10), 64,
                 ["conv1.weight", "layer2.0.downsample.1.weight", "layer4.1.bn2.bias", "fc.weight", "fc.bias"],
                 ["bn1.running_mean", "layer3.0.bn1.running_var"], False),
    "resnet18_tiny": (lambda: ResNet(BasicBlock, [1, 1, 1, 1], num_classes=3), 64,
                      ["layer1.0.bn2.weight", "fc.bias"], ["layer4.0.bn2.running_var"], False),
    "resnet50": (lambda: torchvision.models.resnet50(num_classes=10), 64,
                 ["conv1.weight", "layer1.0.conv3.weight", "layer3.5.bn3.weight", "fc.bias"],
                 ["layer4.2.bn2.running_mean"], False),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(num_classes=10, dropout=0.0), 64,
                     ["features.0.0.weight", "features.1.conv.1.weight", "features.17.conv.3.weight", "classifier.1.bias"],
                     ["features.18.1.running_var"], False),
    "mobilenet_v2_small": (lambda: MobileNetV2(num_classes=5, width_mult=0.25, dropout=0.0,
                                               inverted_residual_setting=[[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 1, 2]]), 32,
                           ["features.0.0.weight", "features.2.conv.2.weight", "classifier.1.weight"],
                           ["features.3.conv.0.1.running_mean"], True),
    "vgg11_bn": (lambda: torchvision.models.vgg11_bn(num_classes=10, dropout=0.0), 32,
                 ["features.0.weight", "features.26.weight", "classifier.6.bias"],
                 ["features.1.running_var"], False),
    "vit_small": (lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4,
                                            hidden_dim=32, mlp_dim=64, num_classes=5), 32,
                  ["conv_proj.weight", "class_token", "encoder.pos_embedding",
                   "encoder.layers.encoder_layer_0.self_attention.in_proj_weight",
                   "encoder.layers.encoder_layer_1.mlp.3.bias", "encoder.ln.weight", "heads.head.weight"],
                  [], True),
    "vit_small_repr": (lambda: VisionTransformer(image_size=16, patch_size=4, num_layers=1, num_heads=2,
                                                 hidden_dim=8, mlp_dim=16, num_classes=3, representation_size=6), 16,
                       ["heads.pre_logits.weight", "heads.head.bias", "encoder.layers.encoder_layer_0.ln_1.bias"],
                       [], True),
}


def keys_file(name, model):
    sd = model.state_dict()
    out = {}
    for i, k in enumerate(sorted(sd)):
        t = sd[k]
        v = (i + 1) if not t.dtype.is_floating_point else (i + 1) / 1024
        out[k] = torch.tensor(v, dtype=t.dtype).expand(t.shape)
    torch.save(out, os.path.join(OUT, f"keys_{name}.pt"))
    params = dict(model.named_parameters())
    return {
        "parameters": len(params),
        "parameter_elements": sum(p.numel() for p in params.values()),
        "buffers": len(dict(model.named_buffers())),
        "shapes": {k: list(v.shape) for k, v in sorted(sd.items())},
    }


def golden(name, build, size, grads, buffers, save_state):
    torch.manual_seed(0)
    model = build().double()
    fill(model)
    if save_state:
        torch.save(model.state_dict(), os.path.join(OUT, f"state_{name}.pt"))
    g = torch.Generator().manual_seed(1)
    x = (pattern(4 * 3 * size * size, 12345) - 0.5).reshape(4, 3, size, size) * 4
    model.eval()
    with torch.no_grad():
        logits = model(x)
    target = torch.randint(0, logits.shape[1], (4,), generator=g)
    model.train()
    loss = F.cross_entropy(model(x), target)
    loss.backward()
    params = dict(model.named_parameters())
    bufs = dict(model.named_buffers())
    out = {"target": target, "logits": logits, "loss": loss.detach()}
    for p in grads:
        out["grad." + p] = params[p].grad
    for b in buffers:
        out["buffer." + b] = bufs[b]
    torch.save(out, os.path.join(OUT, f"golden_{name}.pt"))


def main():
    counts = {}
    for name, build in FULL.items():
        torch.manual_seed(0)
        counts[name] = keys_file(name, build())
    tmp = os.path.join(OUT, "counts.json.tmp")
    with open(tmp, "w") as f:
        json.dump(counts, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, os.path.join(OUT, "counts.json"))
    for name, (build, size, grads, buffers, save_state) in CASES.items():
        golden(name, build, size, grads, buffers, save_state)


if __name__ == "__main__":
    main()
