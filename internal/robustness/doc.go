// Package robustness holds GoTorch's cross-package robustness tests (issue
// #9); it has no code of its own.
//
//   - badinput_test.go and cases_*_test.go: the bad-input suite, a table of
//     wrong calls across the public API (torch, nn, nn/functional,
//     nn/optim, data, checkpoints, torch.Load, Go+ scripts). Each case must
//     give an error value, or a panic carrying an error that recover gets,
//     whose message names the problem; it must never be a bare runtime
//     error, and the next valid op must succeed. TestBadInputCount checks
//     the number of cases.
//   - cases_native_test.go: calls that crashed libtorch's kernels (integer
//     division overflow, index arguments they trust) before the shim's
//     checks (internal/gen's trustedArgs); trusted_test.go: valid calls at
//     the edges of those checks still work.
//   - concurrency_test.go: inference on a shared model under NoGrad from
//     many goroutines, training beside data-loader goroutines, and GC from
//     several goroutines, meant for go test -race.
//   - fuzz_ops_test.go: FuzzOps, which feeds random shapes, dtypes and
//     arguments to a table of 160 ops, and TestOpsRandomPrograms,
//     its harness on fresh random programs at each run;
//     fuzz_checkpoint_test.go: FuzzLoadCheckpoint, nn.Load on arbitrary
//     files.
//   - crash_test.go: SIGKILL inside torch.Save and nn.SaveOptimizerState
//     writes; the previous files must stay whole.
//   - round3_*_test.go: issue #36's cases. round3_depth_test.go and
//     round3_torchscript_test.go: depth, cycles and hostile TorchScript
//     files (TestRound3DepthCrashes and TestRound3TorchScriptCrashes run
//     the examples that killed the process, in child processes);
//     round3_ops_test.go: the trusted op arguments a probe found
//     (testdata/probe_round3_ops.py); round3_serve_test.go: the batcher,
//     the sampler and the server.
//
// docs/robustness.md describes the suite, the fuzzing done and what was
// found and fixed.
package robustness
