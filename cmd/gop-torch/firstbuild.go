package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// The first build speaks (issue 38). The C++ of GoTorch's bindings (2,810
// generated ops in four packages, cgotorch/ops/shard0-3, and cgotorch
// itself) takes minutes to compile the first time, once per build cache,
// libtorch and build mode (-race compiles it again); the go command prints
// nothing meanwhile, which reads as a hang. Before go builds a program,
// gop-torch asks go list which of those packages are stale and, if any
// are, says so in one line with an estimate for this machine. go list
// takes about 0.3 s here.

// bindingPackages are the packages whose C++ is slow to compile.
var bindingPackages = []string{
	gotorchModule + "/cgotorch",
	gotorchModule + "/cgotorch/ops/shard0",
	gotorchModule + "/cgotorch/ops/shard1",
	gotorchModule + "/cgotorch/ops/shard2",
	gotorchModule + "/cgotorch/ops/shard3",
}

// bindingCPUSeconds is the CPU time (user+sys) g++ 12 -O2 took to compile
// each package's C++ against libtorch 1.13.1's headers on a 2-core AMD
// EPYC, file by file as cgo does (cgotorch: tensor.cc, with the
// convolution check, about 28 s, allocator.cc 2 s; a shard's ops_gen.cc
// 39 to 43 s); bindingCPUSeconds[i] is bindingPackages[i]'s.
var bindingCPUSeconds = []float64{30, 42, 42, 42, 42}

// announced holds the build flags (listFlags) that a line was printed for:
// gop-torch run announces before translating, which compiles the packages
// with no flags, and again before go run, whose flags may compile them
// again (-race), but not twice for the same flags.
var announced = map[string]bool{}

// listFlags keeps the flags of go build that change what the packages
// compile to (go list accepts them; -o and the like it does not).
func listFlags(flags []string) []string {
	var out []string
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch name {
		case "race", "msan", "asan", "cover", "trimpath", "a":
			out = append(out, f)
		case "tags", "gcflags", "asmflags", "installsuffix", "mod", "modfile", "buildmode", "compiler", "pgo":
			out = append(out, f)
			if !hasValue && i+1 < len(flags) {
				i++
				out = append(out, flags[i])
			}
		}
	}
	return out
}

// announceBuild prints the line, where a binding package is stale. It says
// nothing when go list fails (a program that does not use GoTorch, say):
// the build that follows reports what is wrong.
func announceBuild(flags []string, workDir string, stderr io.Writer) {
	if prebuiltBindings(flags) {
		return
	}
	lf := listFlags(flags)
	key := strings.Join(lf, " ")
	if announced[key] {
		return
	}
	args := append([]string{"list", "-e", "-f", "{{if .Stale}}{{.ImportPath}}{{end}}"}, lf...)
	args = append(args, bindingPackages...)
	c := exec.Command("go", args...)
	c.Dir = workDir
	out, err := c.Output()
	if err != nil {
		return
	}
	if line := buildAnnouncement(strings.Fields(string(out)), runtime.NumCPU()); line != "" {
		fmt.Fprintln(stderr, line)
		announced[key] = true
	}
}

// prebuiltBindings reports whether the build links the bindings' C++ from
// the library scripts/prebuilt.sh built (the gotorch_prebuilt tag, which
// the Makefile puts in GOFLAGS): then no C++ is compiled here, and the
// script announced its own build.
func prebuiltBindings(flags []string) bool {
	all := append(strings.Fields(os.Getenv("GOFLAGS")), flags...)
	for i, f := range all {
		name, value, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name != "tags" {
			continue
		}
		if !hasValue && i+1 < len(all) {
			value = all[i+1]
		}
		for _, tag := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' }) {
			if tag == "gotorch_prebuilt" {
				return true
			}
		}
	}
	return false
}

// buildAnnouncement is the line for the stale packages on a machine with
// cpus CPUs, or "" if none is stale.
func buildAnnouncement(stale []string, cpus int) string {
	if len(stale) == 0 {
		return ""
	}
	var total, longest float64
	for _, p := range stale {
		for i, b := range bindingPackages {
			if p == b {
				total += bindingCPUSeconds[i]
				longest = max(longest, bindingCPUSeconds[i])
			}
		}
	}
	if total == 0 {
		return ""
	}
	// The go command compiles the packages in parallel, one g++ each.
	wall := max(total/float64(max(1, min(cpus, len(stale)))), longest)
	est := "under a minute"
	if m := int(wall/60 + 0.5); m >= 1 {
		est = fmt.Sprintf("about %d minute%s", m, map[bool]string{true: "s"}[m > 1])
	}
	return fmt.Sprintf("gop-torch: compiling GoTorch's C++ bindings to libtorch (%d of %d packages), once per build cache, libtorch and build mode: %s on this machine's %d CPUs",
		len(stale), len(bindingPackages), est, cpus)
}
