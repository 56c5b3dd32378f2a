package main

import (
	"fmt"
	"time"

	"github.com/gotorch/gotorch/bench/internal/worker"
	"github.com/gotorch/gotorch/models/text"
	"github.com/gotorch/gotorch/models/vision"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// modelJob runs one of the models part's jobs (worker.ModelJobs: ResNet-18
// inference and training, GPT-2 generation, BERT) with models/vision and
// models/text, on worker.Device(), as a user would write them: every
// forward or step starts with torch.GC() (timed, and recorded as the GC
// pause) and every repetition ends with torch.FinishGC(), as the training
// jobs do; Generate makes the GPT-2 job's per-token loop itself.
func modelJob(s *worker.Server, job string) error {
	sh, err := worker.Shapes()
	if err != nil {
		return err
	}
	torch.GC() // the previous job's tensors
	worker.ResetPeak()
	switch job {
	case "r18b1":
		return resnetInference(s, sh, 1)
	case "r18b32":
		return resnetInference(s, sh, 32)
	case "r18train":
		return resnetTraining(s, sh)
	case "gpt2gen":
		return gpt2Generation(s, sh)
	case "bert":
		return bertForward(s, sh)
	}
	return fmt.Errorf("%q is not a models job", job)
}

// timedReps runs body Reps() times, each between two synchronizations,
// followed by torch.FinishGC(), and records each repetition's time.
func timedReps(s *worker.Server, body func()) {
	for r := 0; r < s.Reps(); r++ {
		worker.Sync()
		t0 := time.Now()
		body()
		torch.FinishGC()
		worker.Sync()
		s.Record(time.Since(t0))
	}
}

// gcTimed is torch.GC(), its pause recorded.
func gcTimed(s *worker.Server) {
	g0 := time.Now()
	torch.GC()
	s.RecordGC(time.Since(g0))
}

func resnetInference(s *worker.Server, sh worker.ModelShapes, batch int64) error {
	net := vision.ResNet18()
	net.Eval()
	if err := net.To(worker.Device()); err != nil {
		return err
	}
	x := torch.Randn([]int64{batch, 3, sh.Image, sh.Image}, torch.WithDevice(worker.Device()))
	iters := s.Iters()
	timedReps(s, func() {
		torch.NoGrad(func() {
			for range iters {
				gcTimed(s)
				net.Forward(x)
			}
		})
	})
	return nil
}

func resnetTraining(s *worker.Server, sh worker.ModelShapes) error {
	net := vision.ResNet18()
	net.Train()
	if err := net.To(worker.Device()); err != nil {
		return err
	}
	d := torch.WithDevice(worker.Device())
	opt := optim.SGD(net.Parameters(), optim.WithLR(0.01), optim.WithMomentum(0.9))
	x := torch.Randn([]int64{worker.R18TrainBatch, 3, sh.Image, sh.Image}, d)
	y := torch.Randint(1000, []int64{worker.R18TrainBatch}, d)
	iters := s.Iters()
	timedReps(s, func() {
		for range iters {
			g0 := time.Now()
			torch.GC()
			p0 := time.Now()
			s.RecordGC(p0.Sub(g0))
			loss := F.CrossEntropy(net.Forward(x), y)
			p1 := time.Now()
			opt.ZeroGrad()
			p2 := time.Now()
			loss.Backward()
			p3 := time.Now()
			opt.Step()
			loss.Item()
			if !worker.OnCUDA() {
				s.RecordPhases(p0, p1, p2, p3, time.Now())
			}
		}
	})
	return nil
}

func gpt2Generation(s *worker.Server, sh worker.ModelShapes) error {
	c := text.GPT2Small()
	c.NLayer = sh.GPT2Layers
	m, err := text.NewGPT2LMHeadModel(c)
	if err != nil {
		return err
	}
	m.Eval()
	if err := m.To(worker.Device()); err != nil {
		return err
	}
	prompt := torch.Randint(c.VocabSize, []int64{1, worker.GPT2Prompt}, torch.WithDevice(worker.Device()))
	tokens := int64(s.Iters())
	var genErr error
	timedReps(s, func() {
		gcTimed(s)
		if _, err := m.TryGenerate(prompt, text.WithMaxNewTokens(tokens)); err != nil && genErr == nil {
			genErr = err
		}
	})
	return genErr
}

func bertForward(s *worker.Server, sh worker.ModelShapes) error {
	c := text.BertBase()
	c.NumHiddenLayers = sh.BertLayers
	m, err := text.NewBertModel(c)
	if err != nil {
		return err
	}
	m.Eval()
	if err := m.To(worker.Device()); err != nil {
		return err
	}
	d := torch.WithDevice(worker.Device())
	ids := torch.Randint(c.VocabSize, []int64{worker.BertBatch, sh.BertSeq}, d)
	mask := torch.Ones([]int64{worker.BertBatch, sh.BertSeq}, torch.WithDtype(torch.Int64), d)
	iters := s.Iters()
	var fwdErr error
	timedReps(s, func() {
		torch.NoGrad(func() {
			for range iters {
				gcTimed(s)
				if _, _, err := m.TryForward(ids, mask, torch.Tensor{}); err != nil && fwdErr == nil {
					fwdErr = err
				}
			}
		})
	})
	return fwdErr
}
