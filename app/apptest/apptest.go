// Package apptest has helpers for tests of packages built on app.
package apptest

import (
	"sync"

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
