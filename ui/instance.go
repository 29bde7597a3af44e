package ui

import (
	"bufio"
	"errors"
	"net"
	"os"
	"path/filepath"
	"time"
)

// A second 'engram' brings the running window forward and exits, rather
// than open a second window (and tray icon) that can only say the vault
// is in use. The running app listens on a Unix socket in the runtime
// directory (mode 0700, the user's own); a launch first asks it to show
// itself.

// instanceSocket is the socket of the running desktop app.
func instanceSocket(runtimeDir string) string { return filepath.Join(runtimeDir, "desktop.sock") }

// raise asks a running desktop app to show its window. It reports
// whether one did.
func raise(runtimeDir string) bool {
	c, err := net.DialTimeout("unix", instanceSocket(runtimeDir), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("show\n")); err != nil {
		return false
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && reply == "ok\n"
}

// listenInstance serves raise requests until the returned stop is
// called: each calls show (from the listener's goroutine). A socket left
// by an app that died is replaced.
func listenInstance(runtimeDir string, show func()) (stop func(), err error) {
	if err := os.MkdirAll(runtimeDir, 0o700); err != nil {
		return nil, err
	}
	path := instanceSocket(runtimeDir)
	l, err := net.Listen("unix", path)
	if err != nil {
		if raise(runtimeDir) {
			return nil, errors.New("another Engram window is open")
		}
		os.Remove(path) // stale
		if l, err = net.Listen("unix", path); err != nil {
			return nil, err
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(2 * time.Second))
			line, err := bufio.NewReader(c).ReadString('\n')
			if err == nil && line == "show\n" {
				show()
				c.Write([]byte("ok\n"))
			}
			c.Close()
		}
	}()
	return func() {
		l.Close() // also removes the socket file
		<-done
	}, nil
}
