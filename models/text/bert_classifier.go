package text

import (
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// BertForSequenceClassification is BERT with a classifier on its pooled
// output (transformers' BertForSequenceClassification): bert.*, then
// dropout and classifier (hidden_size → num_labels). Fine-tuning BERT for
// a task is training this on the task's labels.
type BertForSequenceClassification struct {
	nn.Module
	Bert       *BertModel
	Dropout    *nn.DropoutModule
	Classifier *nn.LinearModule

	Config BertConfig
}

// NewBertForSequenceClassification returns the model of config c,
// initialized as transformers does. An invalid config is an error
// wrapping ErrConfig.
func NewBertForSequenceClassification(c BertConfig) (*BertForSequenceClassification, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	p := c.HiddenDropoutProb
	if c.ClassifierDropout != nil {
		p = *c.ClassifierDropout
	}
	m := &BertForSequenceClassification{Bert: newBertModel(c), Dropout: nn.Dropout(nn.WithP(p)),
		Classifier: nn.Linear(c.HiddenSize, c.NumLabels), Config: c}
	m.Init(m)
	initBert(m, c)
	return m, nil
}

// Forward returns the logits (batch, num_labels) of the inputs that
// BertModel.Forward takes. It panics on error.
func (m *BertForSequenceClassification) Forward(inputIDs, attentionMask, tokenTypeIDs torch.Tensor) torch.Tensor {
	y, err := m.TryForward(inputIDs, attentionMask, tokenTypeIDs)
	must(err)
	return y
}

// TryForward is Forward that returns its error.
func (m *BertForSequenceClassification) TryForward(inputIDs, attentionMask, tokenTypeIDs torch.Tensor) (torch.Tensor, error) {
	if m == nil || m.Bert == nil || m.Dropout == nil || m.Classifier == nil {
		return torch.Tensor{}, uninitialized("BertForSequenceClassification")
	}
	h, pooled, err := m.Bert.TryForward(inputIDs, attentionMask, tokenTypeIDs)
	if err != nil {
		return torch.Tensor{}, err
	}
	h.Free()
	defer pooled.Free()
	return catch("BertForSequenceClassification", func() torch.Tensor {
		d := m.Dropout.Forward(pooled)
		defer d.Free()
		return m.Classifier.Forward(d)
	})
}

// Loss is transformers' loss of the logits with labels: with num_labels
// 1, the mean squared error with float labels (batch) (regression);
// otherwise the cross entropy with class indices (batch).
func (m *BertForSequenceClassification) Loss(logits, labels torch.Tensor) torch.Tensor {
	l, err := m.TryLoss(logits, labels)
	must(err)
	return l
}

// TryLoss is Loss that returns its error.
func (m *BertForSequenceClassification) TryLoss(logits, labels torch.Tensor) (torch.Tensor, error) {
	const model = "BertForSequenceClassification"
	if m == nil {
		return torch.Tensor{}, uninitialized(model)
	}
	if !logits.Defined() || !labels.Defined() {
		return torch.Tensor{}, modelError(model, ErrInput, "logits and labels must be defined")
	}
	n := m.Config.NumLabels
	if logits.Dim() != 2 || logits.Size(1) != n {
		return torch.Tensor{}, modelError(model, ErrInput, "logits must be (batch, num_labels=%d), got %v", n, logits.Shape())
	}
	if labels.Numel() != logits.Size(0) {
		return torch.Tensor{}, modelError(model, ErrInput, "%d labels for a batch of %d", labels.Numel(), logits.Size(0))
	}
	return catch(model, func() torch.Tensor {
		var tmp temps
		var loss torch.Tensor
		if n == 1 {
			loss = F.MseLoss(tmp.add(logits.ViewDims(-1)), tmp.add(tmp.add(labels.ViewDims(-1)).To(logits.DType())))
		} else {
			if labels.DType().IsFloatingPoint() {
				must(modelError(model, ErrInput, "labels must be class indices (int64), got %v", labels.DType()))
			}
			loss = F.CrossEntropy(tmp.add(logits.ViewDims(-1, n)), tmp.add(tmp.add(labels.ViewDims(-1)).To(torch.Int64)))
		}
		tmp.free(loss)
		return loss
	})
}
