//go:build windows

package broker

// cloexecInherited has nothing to do on Windows: os/exec passes the child
// an explicit list of handles (its three streams), never the approver's
// other inheritable handles.
func cloexecInherited() {}
