//go:build !windows

package main

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processRunning says whether a process with this id exists (signal 0 checks without sending)
// and, where /proc tells, has not exited into a zombie its parent has yet to reap.
func processRunning(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses and may hold spaces.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
