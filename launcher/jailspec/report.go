package jailspec

import (
	"fmt"
	"strings"
)

// Layer names one confinement layer; these are the names that
// `sandbox run --allow-degraded` accepts.
type Layer string

// The layers, in the order doctor prints them.
const (
	LayerCgroup     Layer = "cgroup"
	LayerLandlock   Layer = "landlock"
	LayerSeccomp    Layer = "seccomp"
	LayerNoNewPrivs Layer = "no_new_privs"
	LayerMount      Layer = "mount"
	LayerPid        Layer = "pid"
	LayerNetwork    Layer = "network"
)

// Layers lists every layer in doctor's order.
var Layers = []Layer{
	LayerCgroup, LayerLandlock, LayerSeccomp, LayerNoNewPrivs,
	LayerMount, LayerPid, LayerNetwork,
}

// ParseLayer accepts a layer name as --allow-degraded spells it.
func ParseLayer(s string) (Layer, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, l := range Layers {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown layer %q (one of %s)", s, layerNames())
}

func layerNames() string {
	names := make([]string, len(Layers))
	for i, l := range Layers {
		names[i] = string(l)
	}
	return strings.Join(names, ", ")
}

// Status is how fully a layer is enforced on this machine.
type Status string

// Status values.
const (
	StatusOK       Status = "ok"       // enforced as designed
	StatusDegraded Status = "degraded" // enforced in part; Detail says what is not
	StatusMissing  Status = "missing"  // not enforced at all
)

// LayerReport is one line of doctor's output.
type LayerReport struct {
	Layer  Layer
	Status Status
	Detail string // one line: what is enforced, or why not
}

// Report is what a jail can enforce on this machine, detected once.
type Report struct {
	OS     string        // "linux", "windows", ...
	Layers []LayerReport // one per entry of Layers, in that order
	Notes  []string      // facts behind the layers (kernel, user namespaces, hints)

	// LandlockABI is the kernel's Landlock ABI version (0: none).
	LandlockABI int
	// CgroupMode is "v1", "v2", "hybrid" or "" (none usable).
	CgroupMode string
}

// Layer returns the report of l; a layer the jail did not report is
// missing.
func (r Report) Layer(l Layer) LayerReport {
	for _, lr := range r.Layers {
		if lr.Layer == l {
			return lr
		}
	}
	return LayerReport{Layer: l, Status: StatusMissing, Detail: "not reported by this jail"}
}

// OK reports whether layer l is fully enforced.
func (r Report) OK(l Layer) bool { return r.Layer(l).Status == StatusOK }

// Set replaces the report of one layer (the launcher uses it to apply
// --disable-style overrides before checking).
func (r *Report) Set(lr LayerReport) {
	for i := range r.Layers {
		if r.Layers[i].Layer == lr.Layer {
			r.Layers[i] = lr
			return
		}
	}
	r.Layers = append(r.Layers, lr)
}
