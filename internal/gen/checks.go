package main

import (
	"fmt"
	"log"
	"sort"
	"strings"
)

// check is a hand-written C++ check (cgotorch/checks.h, namespace
// gotorch::checks) that the shim of an op calls, inside the op's guard and
// before the kernel, with the op's name and the named arguments, in that
// order. An overload that lacks one of the arguments is not checked (div
// without rounding_mode is true division and needs no check).
type check struct {
	fn   string
	args []string
}

// trustedArgs lists the ops whose CPU kernels trust an argument, found by
// reading the declarations for index-like arguments of backward and
// internal ops and probing each with out-of-range values in a child
// process (issue #27; docs/robustness.md has the probe's results). Without
// the check each of them crashed the process (SIGFPE, SIGSEGV or SIGABRT)
// or wrote out of bounds. Keys are the op's name without the trailing _ of
// in-place variants and _out of out= variants, so that every variant is
// checked.
var trustedArgs = map[string][]check{
	// The minimum int32/int64 divided by -1 traps (SIGFPE).
	"div":          {{"int_div_mode", []string{"self", "other", "rounding_mode"}}},
	"divide":       {{"int_div_mode", []string{"self", "other", "rounding_mode"}}},
	"floor_divide": {{"int_div", []string{"self", "other"}}},
	"remainder":    {{"int_div", []string{"self", "other"}}},
	"fmod":         {{"int_div", []string{"self", "other"}}},

	// Index arguments that a kernel reads or writes through unchecked.
	"searchsorted":                               {{"sorter", []string{"sorted_sequence", "sorter"}}},
	"segment_reduce":                             {{"segment_reduce", []string{"data", "lengths", "offsets", "axis", "unsafe"}}},
	"_segment_reduce_backward":                   {{"segment_reduce_backward", []string{"grad", "output", "data", "lengths", "offsets", "axis"}}},
	"max_pool2d_with_indices_backward":           {{"pool2d_indices", []string{"grad_output", "self", "indices"}}},
	"max_pool3d_with_indices_backward":           {{"pool3d_indices", []string{"grad_output", "self", "indices"}}},
	"adaptive_max_pool2d_backward":               {{"pool2d_indices", []string{"grad_output", "self", "indices"}}},
	"adaptive_max_pool3d_backward":               {{"pool3d_indices", []string{"grad_output", "self", "indices"}}},
	"fractional_max_pool2d_backward":             {{"pool2d_indices", []string{"grad_output", "self", "indices"}}},
	"fractional_max_pool3d_backward":             {{"pool3d_indices", []string{"grad_output", "self", "indices"}}},
	"embedding_backward":                         {{"embedding_indices", []string{"indices", "num_weights"}}},
	"embedding_dense_backward":                   {{"embedding_indices", []string{"indices", "num_weights"}}},
	"embedding_sparse_backward":                  {{"embedding_indices", []string{"indices", "num_weights"}}},
	"_embedding_bag_backward":                    {{"embedding_bag_sizes", []string{"grad", "indices", "offset2bag", "bag_size", "num_weights", "per_sample_weights"}}},
	"_embedding_bag_dense_backward":              {{"embedding_bag_sizes", []string{"grad", "indices", "offset2bag", "bag_size", "num_weights", "per_sample_weights"}}},
	"_embedding_bag_sparse_backward":             {{"embedding_bag_sizes", []string{"grad", "indices", "offset2bag", "bag_size", "num_weights", "per_sample_weights"}}},
	"_embedding_bag_per_sample_weights_backward": {{"embedding_bag_weight", []string{"grad", "weight", "indices", "offset2bag"}}},
	"nll_loss_backward":                          {{"nll_target", []string{"self", "target", "ignore_index"}}},
	"nll_loss2d_backward":                        {{"nll_target", []string{"self", "target", "ignore_index"}}},
	"_gather_sparse_backward":                    {{"gather_sparse", []string{"self", "dim", "index", "grad"}}},
	"ctc_loss":                                   {{"ctc_targets", []string{"log_probs", "targets", "target_lengths"}}},
	"_ctc_loss":                                  {{"ctc_targets", []string{"log_probs", "targets", "target_lengths"}}},
	"_ctc_loss_backward":                         {{"ctc_backward", []string{"grad", "log_probs", "targets", "input_lengths", "target_lengths", "neg_log_likelihood", "log_alpha", "blank"}}},
	"_convert_indices_from_csr_to_coo":           {{"csr_to_coo", []string{"crow_indices", "col_indices"}}},
	"_convert_indices_from_coo_to_csr":           {{"coo_to_csr", []string{"self", "size"}}},
	"linalg_ldl_solve":                           {{"ldl_pivots", []string{"LD", "pivots"}}},
	"_sobol_engine_initialize_state":             {{"sobol_state", []string{"self", "dimension"}}},
	"_sobol_engine_ff":                           {{"sobol_draw", []string{"self", "n", "sobolstate", "dimension", "num_generated"}}},
	"_sobol_engine_draw":                         {{"sobol_draw", []string{"quasi", "n", "sobolstate", "dimension", "num_generated"}}},
	"_sobol_engine_scramble":                     {{"sobol_scramble", []string{"self", "ltm", "dimension"}}},

	// Backward ops whose kernels index by the shapes of their forward
	// pass, and trust grad to have them.
	"unfold_backward": {{"unfold_grad", []string{"grad_in", "input_sizes", "dim", "size", "step"}}},
	"_cdist_backward": {{"cdist_grad", []string{"grad|grad_output", "x1", "x2", "cdist"}}},
	"_pdist_backward": {{"pdist_grad", []string{"grad|grad_output", "self", "pdist"}}},

	// Views and sparse tensors built without the checks of their safe
	// forms; later ops (to_dense, coalesce, add) trust them.
	"_reshape_alias":                           {{"view_in_storage", []string{"self", "size", "stride"}}},
	"_reshape_alias_copy":                      {{"view_in_storage", []string{"self", "size", "stride"}}},
	"_sparse_coo_tensor_unsafe":                {{"sparse_coo", []string{"indices", "values", "size"}}},
	"_sparse_coo_tensor_with_dims_and_tensors": {{"sparse_coo_dims", []string{"sparse_dim", "dense_dim", "size", "indices", "values"}}},
	"_sparse_csc_tensor_unsafe":                {{"sparse_csc", []string{"ccol_indices", "row_indices", "values", "size"}}},
	"_sparse_bsr_tensor_unsafe":                {{"sparse_bsr", []string{"crow_indices", "col_indices", "values", "size"}}},
	"_sparse_bsc_tensor_unsafe":                {{"sparse_bsc", []string{"ccol_indices", "row_indices", "values", "size"}}},
	"_sparse_compressed_tensor_unsafe":         {{"sparse_compressed", []string{"compressed_indices", "plain_indices", "values", "size", "options"}}},

	// Round 3 (issue #36): a probe of the ops that take sample, length,
	// per-channel or shape-bearing tensors, each case in a child process
	// (internal/robustness/testdata/probe_round3_ops.py), and the checks
	// that PyTorch added after 1.13 (fractional pooling's samples, rrelu's
	// noise). Each crashed 1.13.1 (SIGSEGV, SIGFPE or a corrupted heap) or
	// read out of bounds silently.
	"fractional_max_pool2d":          {{"fractional_samples2d", []string{"self", "random_samples"}}},
	"fractional_max_pool3d":          {{"fractional_samples3d", []string{"self", "random_samples"}}},
	"_pad_packed_sequence":           {{"packed_batch_sizes", []string{"data", "batch_sizes"}}},
	"rrelu_with_noise":               {{"rrelu_noise", []string{"self", "noise", "training"}}},
	"rrelu_with_noise_functional":    {{"rrelu_noise", []string{"self", "noise", "training"}}},
	"rrelu_with_noise_backward":      {{"rrelu_noise_backward", []string{"grad_output", "self", "noise", "training"}}},
	"channel_shuffle":                {{"channel_groups", []string{"self", "groups"}}},
	"native_channel_shuffle":         {{"channel_groups", []string{"self", "groups"}}},
	"_transform_bias_rescale_qkv":    {{"qkv_heads", []string{"qkv", "qkv_bias", "num_heads"}}},
	"_native_multi_head_attention":   {{"attention_heads", []string{"embed_dim", "num_head"}}},
	"_transformer_encoder_layer_fwd": {{"attention_heads", []string{"embed_dim", "num_heads"}}},
	"native_batch_norm":              {{"batch_norm_args", []string{"input", "weight", "bias", "running_mean", "running_var"}}},
	"_native_batch_norm_legit": {
		{"batch_norm_args", []string{"input", "weight", "bias", "running_mean", "running_var"}},
		{"batch_norm_affine", []string{"input", "weight", "bias"}},
	},
	"_native_batch_norm_legit_no_training": {{"batch_norm_args", []string{"input", "weight", "bias", "running_mean", "running_var"}}},
	"_native_batch_norm_legit_functional":  {{"batch_norm_args", []string{"input", "weight", "bias", "running_mean", "running_var"}}},
	"batch_norm_update_stats":              {{"batch_norm_stats", []string{"input", "running_mean", "running_var"}}},
	"native_batch_norm_backward": {{"batch_norm_backward", []string{"grad_out", "input", "weight", "running_mean",
		"running_var", "save_mean", "save_invstd", "train"}}},
	"_weight_norm_interface":          {{"weight_norm", []string{"v", "g", "dim"}}},
	"_weight_norm_interface_backward": {{"weight_norm_backward", []string{"grad_w", "saved_v", "saved_g", "saved_norms", "dim"}}},
	"multi_margin_loss":               {{"margin_weight", []string{"self", "weight"}}},
	"multi_margin_loss_backward":      {{"margin_weight_backward", []string{"grad_output", "self", "weight"}}},
	"_fused_moving_avg_obs_fq_helper": {{"fused_observer", []string{"self", "observer_on", "fake_quant_on", "running_min",
		"running_max", "scale", "zero_point", "ch_axis", "per_row_fake_quant"}}},
	"_fused_moving_avg_obs_fq_helper_functional": {{"fused_observer", []string{"self", "observer_on", "fake_quant_on",
		"running_min", "running_max", "scale", "zero_point", "ch_axis", "per_row_fake_quant"}}},
	"_cummax_helper":             {{"cum_outputs", []string{"self", "values", "indices"}}},
	"_cummin_helper":             {{"cum_outputs", []string{"self", "values", "indices"}}},
	"_log_softmax_backward_data": {{"softmax_grad", []string{"grad_output", "output"}}},
	"_masked_softmax_backward":   {{"softmax_grad", []string{"grad_output", "output"}}},
	"_fft_c2r":                   {{"c2r_size", []string{"self", "dim", "last_dim_size"}}},
	"grid_sampler_2d_backward":   {{"grid_grad", []string{"grad_output", "input", "grid"}}},
	"grid_sampler_3d_backward":   {{"grid_grad", []string{"grad_output", "input", "grid"}}},
	"replication_pad3d_backward": {{"pad3d_grad", []string{"grad_output", "self", "padding"}}},
}

// checkKey is the trustedArgs key of a declaration.
func checkKey(d decl) string {
	n := strings.TrimSuffix(d.Name, "_out")
	return strings.TrimSuffix(n, "_")
}

// checkCalls returns the C++ statements that check f's trusted arguments
// before its kernel runs, and records in checksUsed which table entries
// were used.
func (f *function) checkCalls() string {
	key := checkKey(f.d)
	var b strings.Builder
	for _, c := range trustedArgs[key] {
		exprs := []string{fmt.Sprintf("%q", key)}
		for _, name := range c.args {
			e, ok := f.argExpr(name)
			if !ok {
				exprs = nil
				break
			}
			exprs = append(exprs, e)
		}
		if exprs == nil {
			continue
		}
		checksUsed[key+"."+c.fn] = true
		fmt.Fprintf(&b, "checks::%s(%s); ", c.fn, strings.Join(exprs, ", "))
	}
	return b.String()
}

// argExpr returns the C++ expression of f's argument name; "a|b" names
// an argument that versions spell differently.
func (f *function) argExpr(name string) (string, bool) {
	for _, n := range strings.Split(name, "|") {
		for _, p := range f.params {
			if p.a.Name == n {
				_, e := cParams(p)
				return e, true
			}
		}
	}
	return "", false
}

// checksUsed records the trustedArgs entries that some function uses.
var checksUsed = map[string]bool{}

// checkAllUsed fails the run if an entry of trustedArgs checks no
// generated function: a misspelled op or argument name.
func checkAllUsed() {
	used := checksUsed
	var missing []string
	for key, cs := range trustedArgs {
		for _, c := range cs {
			if !used[key+"."+c.fn] {
				missing = append(missing, key+" ("+c.fn+")")
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		log.Fatalf("trustedArgs: no generated function has these ops and arguments: %s", strings.Join(missing, ", "))
	}
}
