//go:build windows

package jail_windows

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// WineVersion returns the version of Wine this process runs under ("8.0"),
// or "" on real Windows. Wine's ntdll exports wine_get_version; Windows'
// does not.
func WineVersion() string {
	p := windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version")
	if p.Find() != nil {
		return ""
	}
	r, _, _ := p.Call()
	if r == 0 {
		return "unknown"
	}
	// r points into ntdll's static data (vet: not Go memory)
	return windows.BytePtrToString(*(**byte)(unsafe.Pointer(&r)))
}
