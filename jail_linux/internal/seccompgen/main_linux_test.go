//go:build linux && cgo

package main

import (
	"bytes"
	"os"
	"testing"
)

// TestEmbeddedUpToDate fails when the deny list changed but the embedded
// programs were not regenerated (`go generate ./jail_linux/internal/jailinit`).
func TestEmbeddedUpToDate(t *testing.T) {
	want, err := Source()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../jailinit/seccomp_filters_linux.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("jail_linux/internal/jailinit/seccomp_filters_linux.go is stale: run `go generate ./jail_linux/internal/jailinit`")
	}
}
