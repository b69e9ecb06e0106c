package testserver

import "syscall"

// childAttributes makes a child process get SIGTERM if the test binary dies first.
func childAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
