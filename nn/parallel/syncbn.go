package parallel

import (
	"fmt"
	"reflect"

	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

// SyncBatchNormModule is PyTorch's nn.SyncBatchNorm: batch norm whose
// statistics, in training, are those of the whole process group's batch
// (every rank's batch together) rather than this rank's, for
// data-parallel training with small per-rank batches. Its parameters,
// buffers, state-dict keys and settings are BatchNorm's; in evaluation,
// or in a group of one, it is plain batch norm. It lives in nn/parallel,
// not nn, so that package nn does not depend on Gloo.
//
// Every rank must run the same SyncBatchNorm layers in the same order
// (each forward and backward is a collective), as in PyTorch.
type SyncBatchNormModule struct {
	nn.Module
	Weight            torch.Tensor // (num_features), ones; undefined with nn.WithAffine(false)
	Bias              torch.Tensor // (num_features), zeros; undefined with nn.WithAffine(false)
	RunningMean       torch.Tensor `gotorch:"buffer"` // (num_features), zeros
	RunningVar        torch.Tensor `gotorch:"buffer"` // (num_features), ones
	NumBatchesTracked torch.Tensor `gotorch:"buffer"` // int64 scalar
	nn.BatchNormSettings
	// ProcessGroup is the group whose statistics it uses (nil: the
	// default group), PyTorch's process_group.
	ProcessGroup *distributed.ProcessGroup `gotorch:"-"`
}

// SyncBatchNorm returns a SyncBatchNormModule over numFeatures channels
// of input (N, C, ...), with BatchNorm's options: nn.WithEps (1e-5),
// nn.WithMomentum (0.1) or nn.WithMomentumNone, nn.WithAffine (true),
// nn.WithTrackRunningStats (true), nn.WithDtype, nn.WithDevice.
func SyncBatchNorm(numFeatures int64, opts ...nn.Option) *SyncBatchNormModule {
	bn := nn.BatchNorm1d(numFeatures, opts...)
	m := &SyncBatchNormModule{Weight: bn.Weight, Bias: bn.Bias, RunningMean: bn.RunningMean,
		RunningVar: bn.RunningVar, NumBatchesTracked: bn.NumBatchesTracked, BatchNormSettings: bn.BatchNormSettings}
	m.Init(m)
	return m
}

// Forward normalizes x; it panics on error.
func (m *SyncBatchNormModule) Forward(x torch.Tensor) torch.Tensor {
	y, err := m.TryForward(x)
	if err != nil {
		panic(err)
	}
	return y
}

// TryForward is PyTorch's SyncBatchNorm.forward: in training (with
// batch statistics) over a group of more than one rank, the group's
// statistics (distributed.SyncBatchNorm); otherwise batch norm.
func (m *SyncBatchNormModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, fmt.Errorf("parallel.SyncBatchNorm: nil module")
	}
	if !x.Defined() {
		return torch.Tensor{}, fmt.Errorf("parallel.SyncBatchNorm: undefined input")
	}
	if d := x.Dim(); d < 2 {
		return torch.Tensor{}, fmt.Errorf("parallel.SyncBatchNorm: expected at least 2D input (got %dD input)", d)
	}
	if c := x.Shape()[1]; c != m.NumFeatures {
		return torch.Tensor{}, fmt.Errorf("parallel.SyncBatchNorm: expected %d channels (dimension 1 of the input), got %d", m.NumFeatures, c)
	}
	training := m.IsTraining()
	factor := m.Momentum
	if m.MomentumNone {
		factor = 0
	}
	if training && m.TrackRunningStats && m.NumBatchesTracked.Defined() {
		var n int64
		var err error
		torch.NoGrad(func() {
			if _, err = m.NumBatchesTracked.TryAddScalar_(torch.S(1)); err == nil {
				n, err = m.NumBatchesTracked.TryItemInt()
			}
		})
		if err != nil {
			return torch.Tensor{}, fmt.Errorf("parallel.SyncBatchNorm: %w", err)
		}
		if m.MomentumNone {
			factor = 1 / float64(n)
		}
	}
	bnTraining := training || (!m.RunningMean.Defined() && !m.RunningVar.Defined())
	rm, rv := m.RunningMean, m.RunningVar
	if training && !m.TrackRunningStats {
		rm, rv = torch.Tensor{}, torch.Tensor{}
	}
	if bnTraining && training {
		pg := m.ProcessGroup
		if pg == nil {
			var err error
			if pg, err = distributed.DefaultOrError(); err != nil {
				return torch.Tensor{}, fmt.Errorf("parallel.SyncBatchNorm in training: %w", err)
			}
		}
		if pg.Size() > 1 {
			y, err := distributed.SyncBatchNorm(pg, x, m.Weight, m.Bias, rm, rv, m.Eps, factor)
			if err != nil {
				return torch.Tensor{}, fmt.Errorf("parallel.SyncBatchNorm: %w", err)
			}
			return y, nil
		}
	}
	return F.TryBatchNorm(x, rm, rv, F.WithWeight(m.Weight), F.WithBias(m.Bias), F.WithTraining(bnTraining),
		F.WithMomentum(factor), F.WithEps(m.Eps))
}

// bnParts returns the tensors and settings of m if it is one of nn's
// BatchNorm modules.
func bnParts(m any) (*SyncBatchNormModule, bool) {
	var s *SyncBatchNormModule
	mk := func(w, b, rm, rv, nbt torch.Tensor, set nn.BatchNormSettings, training bool) {
		s = &SyncBatchNormModule{Weight: w, Bias: b, RunningMean: rm, RunningVar: rv, NumBatchesTracked: nbt, BatchNormSettings: set}
		s.Init(s)
		s.Train(training)
	}
	switch b := m.(type) {
	case *nn.BatchNorm1dModule:
		mk(b.Weight, b.Bias, b.RunningMean, b.RunningVar, b.NumBatchesTracked, b.BatchNormSettings, b.IsTraining())
	case *nn.BatchNorm2dModule:
		mk(b.Weight, b.Bias, b.RunningMean, b.RunningVar, b.NumBatchesTracked, b.BatchNormSettings, b.IsTraining())
	case *nn.BatchNorm3dModule:
		mk(b.Weight, b.Bias, b.RunningMean, b.RunningVar, b.NumBatchesTracked, b.BatchNormSettings, b.IsTraining())
	default:
		return nil, false
	}
	return s, true
}

// refuseLazy is ConvertSyncBatchNorm's error for a LazyBatchNorm whose
// parameters are not sized yet: a SyncBatchNorm sharing its empty tensors
// would have 0 features (PyTorch's convert_sync_batchnorm copies the
// uninitialized parameters as they are).
func refuseLazy(m any, path string) error {
	if l, ok := m.(interface{ HasUninitializedParams() bool }); ok && l.HasUninitializedParams() {
		switch m.(type) {
		case *nn.BatchNorm1dModule, *nn.BatchNorm2dModule, *nn.BatchNorm3dModule:
			return fmt.Errorf("parallel.ConvertSyncBatchNorm: %s is a lazy BatchNorm whose parameters are not sized yet: run a forward pass first, or build it with parallel.SyncBatchNorm", path)
		}
	}
	return nil
}

var (
	modulerType = reflect.TypeOf((*nn.Moduler)(nil)).Elem()
	moduleType  = reflect.TypeOf(nn.Module{})
)

// ConvertSyncBatchNorm is PyTorch's SyncBatchNorm.convert_sync_batchnorm:
// it replaces every BatchNorm1d, 2d and 3d in m's tree with a
// SyncBatchNormModule over pg (nil: the default group) that shares its
// parameters and buffers (so an optimizer made before still updates
// them), and returns m (or the new module, when m itself is a BatchNorm).
//
// A BatchNorm can be replaced where the tree holds it as an nn.Moduler
// (Sequential's layers, ModuleList, ModuleDict, a field of interface type);
// a field declared as *nn.BatchNorm2dModule cannot hold another type, and
// is an error that names it (declare it nn.Moduler, or build the model with
// SyncBatchNorm).
func ConvertSyncBatchNorm(m nn.Moduler, pg *distributed.ProcessGroup) (nn.Moduler, error) {
	if err := refuseLazy(m, fmt.Sprintf("%T", m)); err != nil {
		return nil, err
	}
	if s, ok := bnParts(m); ok {
		s.ProcessGroup = pg
		return s, nil
	}
	v := reflect.ValueOf(m)
	if m == nil || v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("parallel.ConvertSyncBatchNorm: %T is not a module (a pointer to a struct that embeds nn.Module)", m)
	}
	c := &conversion{pg: pg, seen: map[uintptr]bool{}}
	if err := convertIn(v, typeLabel(m), c); err != nil {
		return nil, err // nothing replaced yet
	}
	for _, set := range c.sets {
		set()
	}
	return m, nil
}

// conversion is one ConvertSyncBatchNorm's walk: the replacements are
// made only once the whole tree has been checked, so that an error leaves
// the model as it was.
type conversion struct {
	pg   *distributed.ProcessGroup
	seen map[uintptr]bool
	sets []func()
}

func typeLabel(m any) string { return reflect.TypeOf(m).String() }

// convertIn replaces the BatchNorms among the members of the module that
// the pointer v points to, and recurses into the other sub-modules.
func convertIn(v reflect.Value, path string, c *conversion) error {
	if c.seen[v.Pointer()] {
		return nil
	}
	c.seen[v.Pointer()] = true
	s := v.Elem()
	t := s.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Type == moduleType || f.Tag.Get("gotorch") == "-" {
			continue
		}
		if err := convertValue(s.Field(i), path+"."+f.Name, c); err != nil {
			return err
		}
	}
	return nil
}

// convertValue handles one member: a module, or a slice, array or map of
// them.
func convertValue(fv reflect.Value, path string, c *conversion) error {
	switch fv.Kind() {
	case reflect.Interface, reflect.Pointer:
		if fv.IsNil() || !fv.Type().Implements(modulerType) && fv.Kind() == reflect.Pointer {
			return nil
		}
		mod, ok := fv.Interface().(nn.Moduler)
		if !ok {
			return nil
		}
		if err := refuseLazy(mod, path); err != nil {
			return err
		}
		if s, ok := bnParts(mod); ok {
			s.ProcessGroup = c.pg
			if !fv.CanSet() || !reflect.TypeOf(s).AssignableTo(fv.Type()) {
				return fmt.Errorf("parallel.ConvertSyncBatchNorm: %s is a %s, which cannot hold a *parallel.SyncBatchNormModule: declare it nn.Moduler or build it with parallel.SyncBatchNorm", path, fv.Type())
			}
			c.sets = append(c.sets, func() { fv.Set(reflect.ValueOf(s)) })
			return nil
		}
		pv := reflect.ValueOf(mod)
		if pv.Kind() == reflect.Pointer && !pv.IsNil() && pv.Elem().Kind() == reflect.Struct {
			return convertIn(pv, path, c)
		}
	case reflect.Slice, reflect.Array:
		for j := 0; j < fv.Len(); j++ {
			if err := convertValue(fv.Index(j), fmt.Sprintf("%s[%d]", path, j), c); err != nil {
				return err
			}
		}
	case reflect.Map:
		if fv.Type().Key().Kind() != reflect.String {
			return nil
		}
		for _, k := range fv.MapKeys() {
			e := fv.MapIndex(k)
			mod, ok := e.Interface().(nn.Moduler)
			if !ok {
				continue
			}
			if err := refuseLazy(mod, fmt.Sprintf("%s[%q]", path, k.String())); err != nil {
				return err
			}
			if s, ok := bnParts(mod); ok {
				s.ProcessGroup = c.pg
				if !reflect.TypeOf(s).AssignableTo(fv.Type().Elem()) {
					return fmt.Errorf("parallel.ConvertSyncBatchNorm: %s[%q] is a %s, which cannot hold a *parallel.SyncBatchNormModule", path, k.String(), fv.Type().Elem())
				}
				c.sets = append(c.sets, func() { fv.SetMapIndex(k, reflect.ValueOf(s)) })
				continue
			}
			// a map element is not addressable; its sub-modules are
			if err := convertValue(e, fmt.Sprintf("%s[%q]", path, k.String()), c); err != nil {
				return err
			}
		}
	}
	return nil
}
