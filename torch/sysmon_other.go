//go:build !linux

package torch

// SysmonIdled reports the thread ID that GoTorch moved to SCHED_IDLE as
// the Go runtime's sysmon: always 0 outside Linux (sysmon_linux.go).
func SysmonIdled() int { return 0 }

func idleSysmon() {}
