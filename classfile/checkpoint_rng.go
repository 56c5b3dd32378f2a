package classfile

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// The random state of a checkpoint, so that a resumed run draws what the
// run it continues would have drawn (dropout masks, random augmentation of
// the batches):
//
//   - "rng.cpu.<rank>": each rank's default CPU generator's state
//     (torch.GetRngState, PyTorch's torch.get_rng_state()), gathered to rank
//     0 when the checkpoint is saved; on load each rank takes its own.
//   - "loader_seed" in the metadata: the seed of the training loader's
//     shuffling and of its transforms' draws. The loaders derive each
//     epoch's order and draws from that seed and the epoch's number
//     (data.Loader, data.DistributedSampler), so with the epoch, which the
//     checkpoint holds too, it is their whole state. A script with a seed
//     gets the same one again anyway; one without gets the checkpoint's
//     back.
//
// A checkpoint without them (written before they were saved) still loads:
// the streams then go on from where the script's seed put them, as they
// did then. One saved by a job of another number of ranks restores no
// generator either, and says so on rank 0.

// rngPrefix starts the names of the generators' states in a checkpoint.
const rngPrefix = "rng.cpu."

// rngStates returns every rank's CPU generator state, indexed by rank. It is
// a collective in a distributed job: every rank calls it.
func (t *Trainer) rngStates() ([]torch.Tensor, error) {
	s, err := torch.GetRngState()
	if err != nil {
		return nil, err
	}
	if t.dist == nil || t.dist.pg == nil {
		return []torch.Tensor{s}, nil
	}
	outs := make([]torch.Tensor, t.WorldSize())
	for i := range outs {
		outs[i] = torch.EmptyLike(s)
	}
	if err := t.dist.pg.AllGather(outs, s); err != nil {
		return nil, fmt.Errorf("gathering the ranks' random states: %w", err)
	}
	s.Free()
	return outs, nil
}

// addRandomState puts states and the training loader's seed in a
// checkpoint's tensors and metadata.
func (t *Trainer) addRandomState(tensors map[string]torch.Tensor, meta map[string]string, states []torch.Tensor) {
	for r, s := range states {
		tensors[rngPrefix+strconv.Itoa(r)] = s
	}
	switch {
	case t.seeded:
		meta["loader_seed"] = strconv.FormatUint(t.seed, 10)
	case t.train != nil:
		meta["loader_seed"] = strconv.FormatUint(t.train.loader.Options().Seed, 10)
	}
}

// rngRank parses the rank of a tensor named rngPrefix + rank and checks that
// it can be a generator's state.
func rngRank(name string, v torch.Tensor) (int, error) {
	r, err := strconv.Atoi(strings.TrimPrefix(name, rngPrefix))
	if err != nil || r < 0 || strconv.Itoa(r) != strings.TrimPrefix(name, rngPrefix) {
		return 0, fmt.Errorf("bad tensor name %q: want %s<rank>", name, rngPrefix)
	}
	if v.DType() != torch.Uint8 || v.Dim() != 1 {
		return 0, fmt.Errorf("tensor %s is %v of shape %v, not a random generator's state (1-D uint8)", name, v.DType(), v.Shape())
	}
	return r, nil
}

// restoreRandomState sets this rank's generator from states (by rank) and
// the loaders' seed from the metadata. It checks everything before it
// changes anything.
func (t *Trainer) restoreRandomState(path string, states map[int]torch.Tensor, meta map[string]string) error {
	var loaderSeed uint64
	hasLoaderSeed := false
	if s, ok := meta["loader_seed"]; ok {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return fmt.Errorf("bad loader_seed %q in the metadata: %w", s, err)
		}
		loaderSeed, hasLoaderSeed = v, true
	}
	if len(states) > 0 {
		ranks := make([]int, 0, len(states))
		for r := range states {
			ranks = append(ranks, r)
		}
		sort.Ints(ranks)
		if ranks[len(ranks)-1] != len(ranks)-1 {
			return fmt.Errorf("random states of ranks %v: want ranks 0 to %d", ranks, len(ranks)-1)
		}
		if n := t.WorldSize(); len(states) == n {
			name := rngPrefix + strconv.Itoa(t.Rank())
			if err := torch.SetRngState(states[t.Rank()]); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		} else {
			t.Log(fmt.Sprintf("%s holds the random state of %d ranks, and this job has %d: the random streams go on from the seed",
				path, len(states), n))
		}
	}
	if hasLoaderSeed && !t.seeded {
		t.pinLoaderSeed(loaderSeed)
	}
	return nil
}

// pinLoaderSeed makes seed the seed of the loaders of a script without a
// seed of its own: loaders made before with another are made again at
// their next use (one that a loop still holds finishes its epoch).
func (t *Trainer) pinLoaderSeed(seed uint64) {
	t.resumedLoaderSeed, t.hasResumedLoaderSeed = seed, true
	if t.dist != nil {
		t.dist.seed, t.dist.hasSeed = seed, true
	}
	if t.train != nil && t.train.loader.Options().Seed != seed {
		t.train = nil
	}
	if t.test != nil && t.test.loader.Options().Seed != seed {
		t.test = nil
	}
}
