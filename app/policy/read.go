package policy

import (
	"slices"

	"github.com/engram-app/engram/partitions"
	"github.com/engram-app/engram/vault"
)

// CanRead is the read matrix (package partitions states the levels):
//
//	public     every agent that may read the public partition
//	internal   its owner; agents of the owner's group (L1) or product (L2);
//	           every agent for memories the user wrote
//	sensitive  the operator, and agents explicitly granted the sensitive
//	           partition (each access is audited as L3)
//	archive    the operator only
//
// An agent's registration lists the partitions it may read at all (its
// sensitive grant among them); partitions.CanRead decides the level, here
// from the memory's partition, product and owner. agent looks up a
// registered agent by name (the memory's owner, for L1).
func CanRead(c Caller, info vault.Info, agent func(name string) (vault.Agent, bool)) bool {
	if c.Operator {
		return true
	}
	read := c.Read
	if read == nil {
		read = []vault.Partition{vault.Public, vault.Internal}
	}
	if info.Partition == vault.Archive {
		return false
	}
	r := partitions.Reader{Agent: c.Agent, Group: c.Group, Product: c.Product, SensitiveGrant: slices.Contains(read, vault.Sensitive)}
	var m partitions.Memory
	switch {
	case info.Sealed || info.Partition == vault.Sensitive:
		m.Level = partitions.Sensitive
	case !slices.Contains(read, info.Partition):
		return false
	case info.Partition == vault.Public, info.Owner == c.Agent, info.Owner == vault.AgentOperator:
		return true
	case info.Product != "":
		// L2: the agents of the memory's product.
		m = partitions.Memory{Level: partitions.ProductInternal, Product: info.Product}
	default:
		// L1: the agents of the owner's group.
		owner, ok := agent(info.Owner)
		if !ok {
			return false
		}
		m = partitions.Memory{Level: partitions.Operational, OwnerGroup: owner.Group}
	}
	return partitions.CanRead(r, m)
}

// CanWrite: the operator changes everything; an agent only its own
// memories outside the sensitive partition.
func CanWrite(c Caller, info vault.Info) bool {
	return c.Operator || (info.Owner == c.Agent && !info.Sealed)
}

// InfoOf is what the read and write rules need of m.
func InfoOf(m *vault.Memory) vault.Info {
	return vault.Info{Partition: m.Partition, Sealed: m.Sensitive(), Owner: m.Owner, Field: m.Field, Version: m.Version, Product: m.Product}
}
