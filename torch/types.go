package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"runtime"
)

// MemoryFormat is a tensor memory layout (c10::MemoryFormat).
type MemoryFormat int8

// The memory formats.
const (
	ContiguousFormat MemoryFormat = 0
	PreserveFormat   MemoryFormat = 1
	ChannelsLast     MemoryFormat = 2
	ChannelsLast3d   MemoryFormat = 3
)

// Layout is a tensor storage layout (c10::Layout).
type Layout int8

// The layouts.
const (
	Strided   Layout = 0
	SparseCOO Layout = 1
	SparseCSR Layout = 2
	Mkldnn    Layout = 3
)

// Generator is a random number generator with its own state, for ops that
// take WithGenerator; without one they use the default generator that
// ManualSeed seeds.
type Generator struct {
	p       C.gt_generator
	cleanup runtime.Cleanup
}

// NewGenerator returns a CPU generator seeded with seed.
func NewGenerator(seed uint64) *Generator {
	g := &Generator{p: C.gt_generator_new(C.uint64_t(seed))}
	g.cleanup = runtime.AddCleanup(g, func(p C.gt_generator) { C.gt_generator_free(p) }, g.p)
	return g
}

// Seed returns the generator's seed.
func (g *Generator) Seed() uint64 {
	s := uint64(C.gt_generator_seed(g.mustPtr()))
	runtime.KeepAlive(g)
	return s
}

// SetSeed reseeds the generator.
func (g *Generator) SetSeed(seed uint64) {
	e := C.gt_generator_set_seed(g.mustPtr(), C.uint64_t(seed))
	runtime.KeepAlive(g)
	must(cError("generator.manual_seed", e))
}

func (g *Generator) mustPtr() C.gt_generator {
	p, err := g.ptr("generator")
	if err != nil {
		panic(err)
	}
	return p
}

// ptr returns the native generator; a nil *Generator gives NULL (the
// default generator).
func (g *Generator) ptr(op string) (C.gt_generator, error) {
	if g == nil {
		return nil, nil
	}
	if g.p == nil {
		return nil, newError(op, nil, "generator used after Free")
	}
	return g.p, nil
}
