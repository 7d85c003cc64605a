package launcher

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// applyDisable marks the disabled layers missing; the mount layer takes
// the pid and network namespaces with it.
func applyDisable(r *Report, disable []Layer) {
	for _, l := range disable {
		r.Set(LayerReport{Layer: l, Status: StatusMissing, Detail: "disabled by option"})
		if l == LayerMount {
			for _, dep := range []Layer{LayerPid, LayerNetwork} {
				if r.OK(dep) {
					r.Set(LayerReport{Layer: dep, Status: StatusMissing, Detail: "disabled with the mount layer"})
				}
			}
		}
	}
}

// checkDegraded returns the layers that are not fully enforced; it fails
// with ErrDegraded when one of them is not in allow.
func checkDegraded(r Report, allow []Layer) ([]LayerReport, error) {
	var weak, refused []LayerReport
	for _, l := range jailspec.Layers {
		lr := r.Layer(l)
		if lr.Status == StatusOK {
			continue
		}
		weak = append(weak, lr)
		if !slices.Contains(allow, l) {
			refused = append(refused, lr)
		}
	}
	if len(refused) > 0 {
		return weak, fmt.Errorf("%w on this machine:\n%s\n(accept with --allow-degraded %s)",
			ErrDegraded, formatLayers(refused), layerList(refused))
	}
	return weak, nil
}

// formatLayers renders one line per layer: "  name: status: detail".
func formatLayers(ls []LayerReport) string {
	lines := make([]string, len(ls))
	for i, l := range ls {
		lines[i] = fmt.Sprintf("  %s: %s: %s", l.Layer, l.Status, l.Detail)
	}
	return strings.Join(lines, "\n")
}

func layerList(ls []LayerReport) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = string(l.Layer)
	}
	return strings.Join(names, ",")
}

// NotEnforcedWarning is what run prints when it starts with degraded
// layers: never a silent fallback.
func NotEnforcedWarning(ls []LayerReport) string {
	if len(ls) == 0 {
		return ""
	}
	return "sandbox: running with layers not fully enforced (--allow-degraded):\n" + formatLayers(ls) + "\n"
}
