// Package wine is the harness that runs the Windows tests under Wine 8 on
// Linux: go_windows_amd64_exec (put this directory on PATH and `GOOS=windows
// go test` runs each test binary through it), the prefix it creates once
// (prefix.sh, mkprefix.sh) and the forwarder bcryptprimitives.dll that Go
// >= 1.22 binaries need under Wine 8 (bcryptprimitives.def, dllmain.asm,
// built with mingw's as and ld). hack/test-windows.sh drives it; the Go
// test here checks the harness itself and fails under
// SANDBOX_STRICT_SKIPS=1 when Wine is missing.
package wine
