package main

import "github.com/sandbox-dev/sandbox/launcher"

// jailLayers are doctor's lines for run mode: per jail layer, whether
// `sandbox run` enforces it on this machine, then the facts behind them.
func jailLayers() []check {
	r := launcher.Probe()
	var out []check
	for _, l := range r.Layers {
		out = append(out, check{Area: "jail", Name: string(l.Layer), Status: string(l.Status), Detail: l.Detail})
	}
	for _, n := range r.Notes {
		out = append(out, check{Area: "jail", Name: "note", Status: "info", Detail: n})
	}
	return out
}
