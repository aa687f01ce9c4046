// Package grading runs a Go exercise's tests for the grader and reports each test's outcome on a
// channel the solution cannot forge. Grading compiles it into the test binary under a package path
// drawn at random for each grading (so no solution can import it), and removes its sources before the
// binary runs.
//
// The contract with the grader (domains/exercism/go.ts):
//   - Standard input holds the grading's secret token and nothing else. This package is imported by the
//     exercise's package, so its init runs before any of the solution's variable initializers or init
//     functions: it drains standard input before solution code exists, and the token lives on only
//     masked in this package's unexported variables.
//   - It then confines the process: not dumpable (no other process may read its memory or ptrace it),
//     and, where the kernel has Landlock, no file under /proc or /sys may be opened (so not
//     /proc/self/mem). Both are inherited by any program the solution starts.
//   - Run, called by the one generated test, runs each exercise test as a subtest and records how it
//     ended from the testing package's own state (failed, skipped) and from its own observation (did the
//     function return, did it panic). Each outcome is written as one line,
//     "go-grading-report <json> <hex HMAC-SHA256 of json under the token>", in one write to a copy of
//     standard output taken before solution code ran; a last line {"done":true,...} closes the report.
//     A line {"start":name} comes before each test, so that a crash inside one is put on it.
//     The token itself is never written, so a solution that intercepts the report cannot forge another.
package grading

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// Test is one test function of the exercise, by the name go test gives it.
type Test struct {
	Name string
	F    func(*testing.T)
}

const prefix = "go-grading-report "

var (
	// The token XOR mask: neither half alone is the token.
	masked, mask []byte
	// A duplicate of standard output, taken before solution code ran.
	out *os.File
	// The arguments the binary was started with, before solution code could change them.
	args []string
	runs sync.Mutex
	ran  bool
)

func init() {
	token, _ := io.ReadAll(os.Stdin)
	token = []byte(strings.TrimSpace(string(token)))
	// /dev/urandom rather than crypto/rand, whose dependencies (math/big) would double the build.
	mask = make([]byte, len(token))
	if random, err := os.Open("/dev/urandom"); err == nil {
		io.ReadFull(random, mask)
		random.Close()
	}
	masked = make([]byte, len(token))
	for i := range token {
		masked[i] = token[i] ^ mask[i]
		token[i] = 0
	}
	out = os.Stdout
	if fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_DUPFD_CLOEXEC, 3); errno == 0 {
		out = os.NewFile(fd, "report")
	}
	args = append([]string(nil), os.Args...)
	// The binary holds the tests' data: once it runs, no one needs its file.
	if exe, err := os.Executable(); err == nil {
		os.Remove(exe)
	}
	for _, why := range confine() {
		fmt.Fprintf(os.Stderr, "go-grading: not confined: %s\n", why)
	}
}

// record is what Run saw of one test.
type record struct {
	mu       sync.Mutex
	t        *testing.T
	started  bool
	returned bool
	panicked string
	ok       bool
	reported bool
}

// over tells whether the test has ended: it returned, stopped (failed, skipped, panicked), or never ran.
func (r *record) over() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.started || r.returned || r.panicked != "" || r.t.Failed() || r.t.Skipped()
}

// Run runs the tests as subtests of t, in order, and reports each outcome; it is called once, by the
// generated test, and a second call is reported as tampering.
func Run(t *testing.T, tests []Test) {
	runs.Lock()
	again := ran
	ran = true
	runs.Unlock()
	var notes []string
	if again {
		notes = append(notes, "the grading test ran more than once (the test binary's arguments were changed)")
	}
	if !sameArgs() {
		notes = append(notes, "the solution changed the test binary's arguments")
	}
	// A test's line is written as soon as its subtest is over, so that a crash later leaves the lines
	// before it; a test that called t.Parallel is over only when the group is, and is written then.
	report := func(name string, r *record) {
		passed, message, note := judge(name, r)
		notes = append(notes, note...)
		emit(fmt.Sprintf(`{"test":%s,"passed":%t,"message":%s}`, quote(name), passed, quote(message)))
	}
	records := make([]*record, len(tests))
	t.Run("exercise", func(t *testing.T) {
		for i, test := range tests {
			r := &record{}
			records[i] = r
			f := test.F
			// Said before it runs, so that a crash inside it (a panic in a subtest's goroutine) is
			// put on this test.
			emit(fmt.Sprintf(`{"start":%s}`, quote(test.Name)))
			r.ok = t.Run(test.Name, func(t *testing.T) { runOne(r, t, f) })
			if r.over() {
				report(test.Name, r)
				r.reported = true
			}
		}
	})
	for i, r := range records {
		if r != nil && !r.reported {
			report(tests[i].Name, r)
		}
	}
	if changed := "the solution changed the test binary's arguments"; !sameArgs() && (len(notes) == 0 || notes[0] != changed) {
		notes = append(notes, changed)
	}
	list := make([]string, len(notes))
	for i, n := range notes {
		list[i] = quote(n)
	}
	emit(fmt.Sprintf(`{"done":true,"tampering":[%s]}`, strings.Join(list, ",")))
}

func runOne(r *record, t *testing.T, f func(*testing.T)) {
	r.mu.Lock()
	r.t = t
	r.started = true
	r.mu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			r.mu.Lock()
			r.panicked = fmt.Sprint(p)
			r.mu.Unlock()
			t.Errorf("panic: %v", p)
		}
	}()
	f(t)
	r.mu.Lock()
	r.returned = true
	r.mu.Unlock()
}

// judge is a test's outcome: passed only when it ran, returned, and the testing package saw it neither
// fail nor skip; and what of it was tampering.
func judge(name string, r *record) (bool, string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !r.started:
		return false, "never ran", []string{name + " was left out of the run (the test binary's arguments were changed)"}
	case r.panicked != "":
		if strings.Contains(r.panicked, "os.Exit(0)") {
			return false, "panic: " + r.panicked, []string{"the solution called os.Exit(0) during " + name}
		}
		return false, "panic: " + r.panicked, nil
	case r.t.Skipped():
		return false, "skipped", nil
	case r.t.Failed() || !r.ok:
		return false, "failed (its messages are in the log)", nil
	case !r.returned:
		return false, "stopped before it returned (runtime.Goexit)", []string{"the solution stopped " + name + " with runtime.Goexit"}
	}
	return true, "", nil
}

func sameArgs() bool {
	if len(os.Args) != len(args) {
		return false
	}
	for i := range args {
		if os.Args[i] != args[i] {
			return false
		}
	}
	return true
}

// emit writes one report line, signed, in a single write.
func emit(json string) {
	key := make([]byte, len(masked))
	for i := range masked {
		key[i] = masked[i] ^ mask[i]
	}
	mac := hmac.New(sha256.New, key)
	for i := range key {
		key[i] = 0
	}
	mac.Write([]byte(json))
	line := "\n" + prefix + json + " " + hex.EncodeToString(mac.Sum(nil)) + "\n"
	out.Write([]byte(line))
}

// quote is a JSON string of s, cut to 300 bytes, invalid UTF-8 replaced.
func quote(s string) string {
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20 || c == 0x2028 || c == 0x2029:
			b.WriteString(`\u` + fmt.Sprintf("%04x", c))
		case c == utf8.RuneError:
			b.WriteString(`\ufffd`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Linux's prctl and Landlock interfaces (include/uapi/linux/prctl.h, landlock.h).
const (
	prSetDumpable            = 4
	prSetNoNewPrivs          = 38
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446
	landlockRulePathBeneath  = 1
	landlockReadFile         = 1 << 2
	landlockReadDir          = 1 << 3
	oPath                    = 0x200000
)

type landlockPathBeneath struct {
	allowed  uint64
	parentFd int32
}

// confine makes the process undumpable and, with Landlock, unable to open anything under /proc or /sys;
// it returns what could not be done (an older kernel), which grading logs but does not hold against
// the solution.
func confine() []string {
	var missing []string
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		missing = append(missing, "PR_SET_DUMPABLE: "+errno.Error())
	}
	attr := uint64(landlockReadFile | landlockReadDir)
	ruleset, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), 8, 0)
	if errno != 0 {
		return append(missing, "Landlock: "+errno.Error())
	}
	defer syscall.Close(int(ruleset))
	entries, err := os.ReadDir("/")
	if err != nil {
		return append(missing, "Landlock: "+err.Error())
	}
	for _, e := range entries {
		if e.Name() == "proc" || e.Name() == "sys" {
			continue
		}
		fd, err := syscall.Open("/"+e.Name(), oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		rule := landlockPathBeneath{allowed: landlockReadFile | landlockReadDir, parentFd: int32(fd)}
		_, _, errno := syscall.Syscall6(sysLandlockAddRule, ruleset, landlockRulePathBeneath, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		if errno == syscall.EINVAL {
			// A file, not a folder: only file rights apply to it.
			rule.allowed = landlockReadFile
			_, _, errno = syscall.Syscall6(sysLandlockAddRule, ruleset, landlockRulePathBeneath, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		}
		syscall.Close(fd)
		if errno != 0 {
			missing = append(missing, "Landlock rule for /"+e.Name()+": "+errno.Error())
		}
	}
	if _, _, errno := syscall.AllThreadsSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); errno != 0 {
		return append(missing, "PR_SET_NO_NEW_PRIVS: "+errno.Error())
	}
	if _, _, errno := syscall.AllThreadsSyscall(sysLandlockRestrictSelf, ruleset, 0, 0); errno != 0 {
		return append(missing, "Landlock: "+errno.Error())
	}
	return missing
}
