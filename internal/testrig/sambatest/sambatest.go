// Package sambatest starts Debian's Samba server (smbd) on a loopback
// port for tests, serving a folder as a read-only guest share; a test
// skips with a message where smbd is not installed or cannot start.
package sambatest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Start serves dir as the share name on 127.0.0.1 and returns the
// server's address (host:port); the server stops when the test ends.
func Start(t testing.TB, dir, name string) string {
	t.Helper()
	smbd, err := exec.LookPath("smbd")
	if err != nil {
		if smbd, err = exec.LookPath("/usr/sbin/smbd"); err != nil {
			t.Skip("smbd (Debian's samba package) is not installed: the SMB share tests are skipped")
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	state := t.TempDir()
	for _, d := range []string{"run", "lock", "state", "cache", "private"} {
		if err := os.MkdirAll(filepath.Join(state, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := filepath.Join(state, "smb.conf")
	err = os.WriteFile(conf, []byte(fmt.Sprintf(`[global]
  smb ports = %d
  interfaces = lo
  bind interfaces only = yes
  pid directory = %[2]s/run
  lock directory = %[2]s/lock
  state directory = %[2]s/state
  cache directory = %[2]s/cache
  private dir = %[2]s/private
  log file = %[2]s/log.%%m
  map to guest = Bad User
  guest account = %[3]s
  server role = standalone server
  disable spoolss = yes
  load printers = no
[%[4]s]
  path = %[5]s
  guest ok = yes
  read only = yes
`, port, state, guest(), name, dir)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(smbd, "--foreground", "--no-process-group", "-s", conf)
	out, err := os.Create(filepath.Join(state, "smbd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Skipf("smbd does not start (%v): the SMB share tests are skipped", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		out.Close()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(state, "smbd.log"))
			t.Skipf("smbd did not listen on %s within 10 s: the SMB share tests are skipped\n%s", addr, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// guest is the account guests are mapped to: the user running the test
// (who can read the test's folder).
func guest() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "root"
}
