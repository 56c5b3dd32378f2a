package torch

// The keyword options of hand-written functions that no ATen op takes, so
// that the generator (options_gen.go) does not define them. Their keys
// start above the generated ones; handOptNames gives their keywords, for
// errors (Option.name).
const (
	optWarnOnly optKey = 1<<15 + iota
	optCheckNan
	optGetInfos
)

var handOptNames = map[optKey]string{
	optWarnOnly: "warn_only",
	optCheckNan: "check_nan",
	optGetInfos: "get_infos",
}

// WithWarnOnly sets the keyword argument warn_only
// (UseDeterministicAlgorithms).
func WithWarnOnly(v bool) Option { return Option{key: optWarnOnly, b: v} }

// WithCheckNan sets the keyword argument check_nan (SetAnomalyEnabled).
func WithCheckNan(v bool) Option { return Option{key: optCheckNan, b: v} }

// WithGetInfos sets the keyword argument get_infos (Lu).
func WithGetInfos(v bool) Option { return Option{key: optGetInfos, b: v} }
