package vision

import (
	"fmt"
	"sort"
	"strings"
)

// Option sets one of the constructor arguments of a model, named after
// torchvision's keyword: WithNumClasses(10) is num_classes=10. A model
// constructor rejects (panics with an error naming it) an option that its
// torchvision constructor does not take.
type Option struct {
	name string
	set  func(*config) error
}

// config holds every model's constructor arguments; each constructor sets
// its defaults, then the options.
type config struct {
	numClasses int64

	// ResNet
	zeroInitResidual          bool
	groups, widthPerGroup     int64
	replaceStrideWithDilation [3]bool

	// MobileNetV2
	widthMult               float64
	invertedResidualSetting [][4]int64
	roundNearest            int64

	// MobileNetV2, VGG, VisionTransformer
	dropout float64

	// VGG
	initWeights bool

	// VisionTransformer
	imageSize, patchSize, numLayers, numHeads, hiddenDim, mlpDim int64
	attentionDropout                                             float64
	representationSize                                           int64
}

// WithNumClasses sets num_classes, the outputs of the classifier (default
// 1000, ImageNet's).
func WithNumClasses(n int64) Option {
	return Option{"num_classes", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("num_classes must be at least 1, got %d", n)
		}
		c.numClasses = n
		return nil
	}}
}

// WithZeroInitResidual sets zero_init_residual (ResNet): the last batch
// norm of each residual block starts with zero weights.
func WithZeroInitResidual(on bool) Option {
	return Option{"zero_init_residual", func(c *config) error { c.zeroInitResidual = on; return nil }}
}

// WithGroups sets groups (ResNet with Bottleneck blocks: ResNeXt's
// cardinality; default 1).
func WithGroups(n int64) Option {
	return Option{"groups", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("groups must be at least 1, got %d", n)
		}
		c.groups = n
		return nil
	}}
}

// WithWidthPerGroup sets width_per_group (ResNet with Bottleneck blocks;
// default 64, 128 for wide_resnet50_2).
func WithWidthPerGroup(n int64) Option {
	return Option{"width_per_group", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("width_per_group must be at least 1, got %d", n)
		}
		c.widthPerGroup = n
		return nil
	}}
}

// WithReplaceStrideWithDilation sets replace_stride_with_dilation
// (ResNet): for layer2, layer3 and layer4, whether to dilate instead of
// striding.
func WithReplaceStrideWithDilation(layer2, layer3, layer4 bool) Option {
	return Option{"replace_stride_with_dilation", func(c *config) error {
		c.replaceStrideWithDilation = [3]bool{layer2, layer3, layer4}
		return nil
	}}
}

// WithWidthMult sets width_mult (MobileNetV2; default 1): every layer's
// channels are scaled by it and rounded to a multiple of round_nearest.
func WithWidthMult(w float64) Option {
	return Option{"width_mult", func(c *config) error {
		if !(w > 0) {
			return fmt.Errorf("width_mult must be positive, got %v", w)
		}
		c.widthMult = w
		return nil
	}}
}

// WithInvertedResidualSetting sets inverted_residual_setting
// (MobileNetV2): one row per stage of expansion factor t, output channels
// c, repeats n and stride s. The default is the paper's seven stages.
func WithInvertedResidualSetting(rows ...[4]int64) Option {
	return Option{"inverted_residual_setting", func(c *config) error {
		if len(rows) == 0 {
			return fmt.Errorf("inverted_residual_setting is empty")
		}
		for i, r := range rows {
			if r[0] < 1 || r[1] < 1 || r[2] < 1 || r[3] < 1 {
				return fmt.Errorf("inverted_residual_setting row %d: t, c, n, s must be positive, got %v", i, r)
			}
		}
		c.invertedResidualSetting = append([][4]int64(nil), rows...)
		return nil
	}}
}

// WithRoundNearest sets round_nearest (MobileNetV2; default 8).
func WithRoundNearest(n int64) Option {
	return Option{"round_nearest", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("round_nearest must be at least 1, got %d", n)
		}
		c.roundNearest = n
		return nil
	}}
}

// WithDropout sets dropout: the classifier's dropout in MobileNetV2 (0.2)
// and VGG (0.5), the encoder's in VisionTransformer (0).
func WithDropout(p float64) Option {
	return Option{"dropout", func(c *config) error {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("dropout must be in [0, 1], got %v", p)
		}
		c.dropout = p
		return nil
	}}
}

// WithInitWeights sets init_weights (VGG; default true): false leaves
// nn's default initialization.
func WithInitWeights(on bool) Option {
	return Option{"init_weights", func(c *config) error { c.initWeights = on; return nil }}
}

func intOption(name string, n int64, field func(*config) *int64) Option {
	return Option{name, func(c *config) error {
		if n < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", name, n)
		}
		*field(c) = n
		return nil
	}}
}

// WithImageSize sets image_size (VisionTransformer; vit_b_16: 224).
func WithImageSize(n int64) Option {
	return intOption("image_size", n, func(c *config) *int64 { return &c.imageSize })
}

// WithPatchSize sets patch_size (VisionTransformer; vit_b_16: 16).
func WithPatchSize(n int64) Option {
	return intOption("patch_size", n, func(c *config) *int64 { return &c.patchSize })
}

// WithNumLayers sets num_layers (VisionTransformer; vit_b_16: 12).
func WithNumLayers(n int64) Option {
	return intOption("num_layers", n, func(c *config) *int64 { return &c.numLayers })
}

// WithNumHeads sets num_heads (VisionTransformer; vit_b_16: 12).
func WithNumHeads(n int64) Option {
	return intOption("num_heads", n, func(c *config) *int64 { return &c.numHeads })
}

// WithHiddenDim sets hidden_dim (VisionTransformer; vit_b_16: 768).
func WithHiddenDim(n int64) Option {
	return intOption("hidden_dim", n, func(c *config) *int64 { return &c.hiddenDim })
}

// WithMLPDim sets mlp_dim (VisionTransformer; vit_b_16: 3072).
func WithMLPDim(n int64) Option {
	return intOption("mlp_dim", n, func(c *config) *int64 { return &c.mlpDim })
}

// WithRepresentationSize sets representation_size (VisionTransformer;
// default none): a Linear and Tanh, heads.pre_logits and heads.act, before
// heads.head.
func WithRepresentationSize(n int64) Option {
	return intOption("representation_size", n, func(c *config) *int64 { return &c.representationSize })
}

// WithAttentionDropout sets attention_dropout (VisionTransformer; default 0).
func WithAttentionDropout(p float64) Option {
	return Option{"attention_dropout", func(c *config) error {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("attention_dropout must be in [0, 1], got %v", p)
		}
		c.attentionDropout = p
		return nil
	}}
}

// apply applies opts to c for the model called model, which takes the
// keywords in allowed.
func (c *config) apply(model string, opts []Option, allowed ...string) error {
	for _, o := range opts {
		if o.set == nil {
			return fmt.Errorf("vision.%s: zero Option", model)
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == o.name
		}
		if !ok {
			sort.Strings(allowed)
			return fmt.Errorf("vision.%s: no option %s (it takes %s)", model, o.name, strings.Join(allowed, ", "))
		}
		if err := o.set(c); err != nil {
			return fmt.Errorf("vision.%s: %w", model, err)
		}
	}
	return nil
}
