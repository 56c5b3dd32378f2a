package worker

import (
	"fmt"
	"os"
)

// The models part's jobs (issue #35), the same in the C++
// (bench/cxx/models.h), Go (bench/cmd/gowork) and Python
// (bench/py/modeljobs.py) workers, on the CPU or, with BENCH_DEVICE=cuda,
// on cuda:0:
//
//	r18b1     ResNet-18 forward, batch 1, eval, no_grad; an iteration is one forward
//	r18b32    the same at batch 32
//	r18train  a ResNet-18 training step at batch 16: cross-entropy, SGD
//	          (lr 0.01, momentum 0.9), zero_grad to none, loss.item()
//	gpt2gen   GPT-2 small greedy generation with the key/value cache from an
//	          8-token prompt: a repetition is one generation of ITERS
//	          tokens, so the time per iteration is the time per token
//	bert      BERT-base encoder and pooler forward at batch 8 × 128 with an
//	          all-ones attention mask, eval, no_grad
//
// Weights are random (each worker's own initialization, seeded): the
// shapes, and so the arithmetic, are the same everywhere.
var ModelJobs = []string{"r18b1", "r18b32", "r18train", "gpt2gen", "bert"}

// The models part's fixed sizes.
const (
	R18TrainBatch = 16
	GPT2Prompt    = 8 // prompt tokens
	BertBatch     = 8
)

// ModelShapes are the sizes the models part's jobs vary with
// BENCH_MODEL_SHAPES: full (the default) or small, the harness's -quick
// smoke run.
type ModelShapes struct {
	Image      int64 // ResNet-18's images are Image × Image
	GPT2Layers int64 // GPT-2 small's 12 blocks
	BertLayers int64 // BERT-base's 12 layers
	BertSeq    int64 // BERT's tokens per sequence
}

// Shapes returns the sizes BENCH_MODEL_SHAPES asks for.
func Shapes() (ModelShapes, error) {
	switch s := os.Getenv("BENCH_MODEL_SHAPES"); s {
	case "", "full":
		return ModelShapes{Image: 224, GPT2Layers: 12, BertLayers: 12, BertSeq: 128}, nil
	case "small":
		return ModelShapes{Image: 64, GPT2Layers: 2, BertLayers: 2, BertSeq: 32}, nil
	default:
		return ModelShapes{}, fmt.Errorf("BENCH_MODEL_SHAPES=%q: want full or small", s)
	}
}

// IsModelJob reports whether job is one of the models part's.
func IsModelJob(job string) bool {
	for _, j := range ModelJobs {
		if j == job {
			return true
		}
	}
	return false
}
