//go:build !linux

package testserver

import "syscall"

func childAttributes() *syscall.SysProcAttr { return nil }
