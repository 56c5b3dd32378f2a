// Package optname checks the keyword of an option against those a
// function, layer or utility takes, for the option types of nn and its
// subpackages, which all name an option by its PyTorch keyword.
package optname

import "slices"

// Check reports whether allowed lists name, and how an error should name
// the option: its keyword, or "(zero Option)" for the zero Option.
func Check(name string, allowed []string) (shown string, ok bool) {
	if name == "" {
		return "(zero Option)", false
	}
	return name, slices.Contains(allowed, name)
}
