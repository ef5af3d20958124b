package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times. It is 100
// on every Linux architecture Go supports (the kernel exports it to user
// space as a constant; sysconf would need cgo).
const clockTicks = 100

// ProcTimes is the CPU a process has used so far.
type ProcTimes struct{ User, System time.Duration }

// Total is user plus system time.
func (t ProcTimes) Total() time.Duration { return t.User + t.System }

func (t ProcTimes) minus(o ProcTimes) ProcTimes {
	return ProcTimes{User: t.User - o.User, System: t.System - o.System}
}

// ProcCPU returns the user and system CPU time a process has used so far,
// from /proc/PID/stat (Linux). Resolution is 10 ms, so a run should last seconds.
func ProcCPU(pid int) (ProcTimes, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ProcTimes{}, fmt.Errorf("read cpu of pid %d: %w", pid, err)
	}
	return parseProcStat(raw)
}

// parseProcStat reads utime and stime (fields 14 and 15). The command name
// (field 2) is in parentheses and may hold spaces, so fields are counted
// from the last ')'.
func parseProcStat(raw []byte) (ProcTimes, error) {
	end := bytes.LastIndexByte(raw, ')')
	if end < 0 {
		return ProcTimes{}, fmt.Errorf("proc stat: no command field")
	}
	fields := bytes.Fields(raw[end+1:])
	// fields[0] is field 3 (state); utime is field 14, stime field 15.
	if len(fields) < 13 {
		return ProcTimes{}, fmt.Errorf("proc stat: %d fields after the command, want at least 13", len(fields))
	}
	utime, err1 := strconv.ParseUint(string(fields[11]), 10, 64)
	stime, err2 := strconv.ParseUint(string(fields[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return ProcTimes{}, fmt.Errorf("proc stat: utime %q / stime %q are not numbers", fields[11], fields[12])
	}
	tick := func(n uint64) time.Duration { return time.Duration(n) * time.Second / clockTicks }
	return ProcTimes{User: tick(utime), System: tick(stime)}, nil
}

// selfCPU is this process's own CPU, to show what the load generator
// itself costs on a shared machine.
func selfCPU() ProcTimes {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return ProcTimes{}
	}
	return ProcTimes{User: time.Duration(ru.Utime.Nano()), System: time.Duration(ru.Stime.Nano())}
}

// ReadPIDFile reads a process id from a file (as written by a service manager).
func ReadPIDFile(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("pid file: %w", err)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(raw)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("pid file %s: %q is not a process id", path, bytes.TrimSpace(raw))
	}
	return pid, nil
}

// ProcRSSMiB is a process's resident memory (VmRSS of /proc/PID/status)
// in MiB; pid 0 is this process.
func ProcRSSMiB(pid int) (float64, error) {
	path := "/proc/self/status"
	if pid != 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/status"
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read rss of pid %d: %w", pid, err)
	}
	return parseVmRSS(raw)
}

// parseVmRSS reads the "VmRSS:  N kB" line of /proc/PID/status.
func parseVmRSS(raw []byte) (float64, error) {
	for line := range bytes.Lines(raw) {
		rest, ok := bytes.CutPrefix(line, []byte("VmRSS:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("proc status: VmRSS line %q", bytes.TrimSpace(line))
		}
		kb, err := strconv.ParseUint(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("proc status: VmRSS %q: %w", f[0], err)
		}
		return float64(kb) / 1024, nil
	}
	return 0, fmt.Errorf("proc status: no VmRSS line")
}
