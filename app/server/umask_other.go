//go:build !unix

package server

func umask(m int) int { return 0 }
