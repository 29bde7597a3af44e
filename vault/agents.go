package vault

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// AgentStatus is where an agent is in its life.
type AgentStatus string

// Agent statuses.
const (
	AgentPending AgentStatus = "pending" // asked to pair, waiting for the user
	AgentActive  AgentStatus = "active"
	AgentPaused  AgentStatus = "paused"
	AgentRevoked AgentStatus = "revoked"
)

// Agent is a registered agent. Its bearer token is never stored: only its
// SHA-256 (the token is 256 random bits, so a fast hash is enough).
type Agent struct {
	Name      string `json:"name"`
	TokenHash string `json:"token_hash,omitempty"`
	// PairHash is the SHA-256 of a pending agent's pairing secret.
	PairHash string      `json:"pair_hash,omitempty"`
	Status   AgentStatus `json:"status"`
	Fields   []Field     `json:"fields"`
	Read     []Partition `json:"read"`
	Group    string      `json:"group,omitempty"`
	Product  string      `json:"product,omitempty"`
	Trust    Trust       `json:"trust"`
	// MayConfirm is the user's grant that this agent's "the user
	// confirmed" counts as the user's confirmation; off by default.
	MayConfirm bool `json:"may_confirm,omitempty"`
	// Note says why Engram itself paused the agent (its refused writes);
	// empty when the user paused it, and cleared when it is resumed.
	Note     string    `json:"note,omitempty"`
	Created  time.Time `json:"created"`
	LastSeen time.Time `json:"last_seen,omitempty"`
}

// PutAgent stores an agent registration and appends e to the audit log in
// the same transaction.
func (v *Vault) PutAgent(a Agent, e AuditEntry) error {
	if a.Name == "" || len(a.Name) > 64 {
		return fmt.Errorf("put agent: %w: name must be 1 to 64 characters", ErrInvalid)
	}
	err := v.update(func(tx *bolt.Tx) error {
		raw, err := encodeRecord(a, nil, string(bucketAgents), a.Name, 1)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucketAgents).Put([]byte(a.Name), raw); err != nil {
			return err
		}
		if e.Action == "" {
			return nil
		}
		return appendGivenTx(tx, v.now(), e)
	})
	if err != nil {
		return fmt.Errorf("put agent %s: %w", a.Name, mapBoltErr(err))
	}
	return nil
}

// GetAgent returns the agent named name.
func (v *Vault) GetAgent(name string) (Agent, error) {
	var a Agent
	err := v.view(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketAgents).Get([]byte(name))
		if raw == nil {
			return fmt.Errorf("agent %s: %w", name, ErrNotFound)
		}
		_, err := decodeRecord(raw, nil, string(bucketAgents), name, &a)
		return err
	})
	return a, err
}

// Agents returns every registered agent, in name order.
func (v *Vault) Agents() ([]Agent, error) {
	var out []Agent
	err := v.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketAgents).ForEach(func(k, raw []byte) error {
			var a Agent
			if _, err := decodeRecord(raw, nil, string(bucketAgents), string(k), &a); err != nil {
				return err
			}
			out = append(out, a)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	return out, nil
}

// DeletePendingAgent removes the registration of an agent that is still
// pending (a pairing request the user never answered) and appends e to
// the audit log in the same transaction. A registration in any other
// state is kept: ErrInvalid.
func (v *Vault) DeletePendingAgent(name string, e AuditEntry) error {
	err := v.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAgents)
		raw := b.Get([]byte(name))
		if raw == nil {
			return fmt.Errorf("agent %s: %w", name, ErrNotFound)
		}
		var a Agent
		if _, err := decodeRecord(raw, nil, string(bucketAgents), name, &a); err != nil {
			return err
		}
		if a.Status != AgentPending {
			return fmt.Errorf("%w: agent %s is not pending", ErrInvalid, name)
		}
		if err := b.Delete([]byte(name)); err != nil {
			return err
		}
		return appendGivenTx(tx, v.now(), e)
	})
	if err != nil {
		return fmt.Errorf("delete agent %s: %w", name, mapBoltErr(err))
	}
	return nil
}
