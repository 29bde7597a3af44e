//go:build !linux

package vault

// ReleasePages does nothing outside Linux (see the Linux version).
func (v *Vault) ReleasePages() error { return nil }
