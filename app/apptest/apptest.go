// Package apptest has helpers for tests of packages built on app.
package apptest

import (
	"net"
	"sync"
	"testing"

	"github.com/engram-app/engram/app"
)

// Keys is an in-memory app.KeyStore. The zero value is empty and usable.
type Keys struct {
	mu   sync.Mutex
	keys map[string][]byte
}

// Get returns a copy of the stored key, or app.ErrNoKey.
func (m *Keys) Get(id string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[id]
	if !ok {
		return nil, app.ErrNoKey
	}
	return append([]byte(nil), k...), nil
}

// Set stores a copy of k under id.
func (m *Keys) Set(id string, k []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = map[string][]byte{}
	}
	m.keys[id] = append([]byte(nil), k...)
	return nil
}

// Delete removes id's key.
func (m *Keys) Delete(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.keys, id)
	return nil
}

// LoopbackServerEnd returns the server's end of a loopback TCP
// connection whose client end this process holds: a connection whose
// peer process (app.Service.PairingOrigin) is the test itself. Both ends
// close when the test ends.
func LoopbackServerEnd(t testing.TB) net.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return server
}
