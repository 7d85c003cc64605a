//go:build !unix

package main

import "errors"

type cwdReport struct {
	jail interface{ Read([]byte) (int, error) }
}

func openCwdReport(int) (*cwdReport, error) {
	return nil, errors.New("--cwd-fd: not supported on this system")
}

func newCwdReport(func(string)) (*cwdReport, error) {
	return nil, errors.New("a served run: not supported on this system")
}

func (*cwdReport) finish() {}
