package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestListFlags(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"-o", "bin", "-race"}, []string{"-race"}},
		{[]string{"-tags", "a,b", "-v", "-x"}, []string{"-tags", "a,b"}},
		{[]string{"-tags=a", "-gcflags=all=-N", "-ldflags", "-s"}, []string{"-tags=a", "-gcflags=all=-N"}},
		{[]string{"--race", "-trimpath"}, []string{"--race", "-trimpath"}},
	} {
		assert.Equal(t, c.want, listFlags(c.in), "%q", c.in)
	}
}

func TestBuildAnnouncement(t *testing.T) {
	assert.Empty(t, buildAnnouncement(nil, 2))
	assert.Empty(t, buildAnnouncement([]string{"example.com/other"}, 2))
	all := buildAnnouncement(bindingPackages, 2)
	assert.Contains(t, all, "gop-torch: compiling GoTorch's C++ bindings to libtorch (5 of 5 packages)")
	assert.Contains(t, all, "on this machine's 2 CPUs")
	// More CPUs, a shorter estimate; never under the longest package.
	assert.NotEqual(t, all, buildAnnouncement(bindingPackages, 16))
	one := buildAnnouncement(bindingPackages[:1], 16)
	assert.Contains(t, one, "(1 of 5 packages)")
}

func TestPrebuiltBindings(t *testing.T) {
	for _, c := range []struct {
		goflags string
		flags   []string
		want    bool
	}{
		{"", nil, false},
		{"-mod=mod", []string{"-race"}, false},
		{"-tags=gotorch_prebuilt", nil, true},
		{"-mod=mod -tags=a,gotorch_prebuilt", nil, true},
		{"", []string{"-tags", "gotorch_jemalloc,gotorch_prebuilt"}, true},
		{"", []string{"-tags", "gotorch_prebuilt_not"}, false},
		{"-tags=gotorch_jemalloc", nil, false},
	} {
		t.Setenv("GOFLAGS", c.goflags)
		assert.Equal(t, c.want, prebuiltBindings(c.flags), "GOFLAGS=%q %q", c.goflags, c.flags)
	}
}
