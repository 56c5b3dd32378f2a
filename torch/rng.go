package torch

/*
#include "cgotorch.h"
#include "rng.h"
*/
import "C"

import "runtime"

// GetRngState returns a copy of the default CPU generator's state:
// torch.get_rng_state(). That generator is the one ManualSeed seeds and the
// random ops (Rand, Randn, Randperm, dropout, …) draw from when they are
// given no Generator. The state is a 1-D Uint8 tensor (5056 bytes on
// libtorch 1.13 to 2.x), PyTorch's byte for byte: a state that one saved,
// the other sets. SetRngState puts it back:
//
//	state, err := torch.GetRngState() // state = torch.get_rng_state()
//	a := torch.Rand([]int64{3})
//	err = torch.SetRngState(state)    // torch.set_rng_state(state)
//	b := torch.Rand([]int64{3})       // b equals a
//
// A checkpoint that holds it lets a resumed run draw the same random
// numbers as the run it continues (package classfile's checkpoints do).
func GetRngState() (Tensor, error) {
	return tensorResult("get_rng_state", C.gt_rng_get_state(nil))
}

// SetRngState makes state, a tensor that GetRngState (or PyTorch's
// torch.get_rng_state) returned, the default CPU generator's state:
// torch.set_rng_state(state). The state is copied. It must be a contiguous
// Uint8 CPU tensor of the generator's state size, with a content that the
// generator accepts: anything else is an error that says what is wrong,
// and leaves the generator as it was.
func SetRngState(state Tensor) error {
	return setState("set_rng_state", nil, state)
}

// GetState returns a copy of the generator's state:
// torch.Generator.get_state(). A nil *Generator stands for the default
// generator, as in WithGenerator.
func (g *Generator) GetState() (Tensor, error) {
	const op = "generator.get_state"
	p, err := g.ptr(op)
	if err != nil {
		return Tensor{}, err
	}
	r := C.gt_rng_get_state(p)
	runtime.KeepAlive(g)
	return tensorResult(op, r)
}

// SetState makes state the generator's state, as SetRngState does for the
// default generator: torch.Generator.set_state(state).
func (g *Generator) SetState(state Tensor) error {
	const op = "generator.set_state"
	p, err := g.ptr(op)
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(g)
	return setState(op, p, state)
}

func setState(op string, g C.gt_generator, state Tensor) error {
	p, err := state.ptr(op, "state")
	if err != nil {
		return err
	}
	defer state.unpin()
	return cError(op, C.gt_rng_set_state(g, p))
}
