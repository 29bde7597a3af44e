package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/engram-app/engram/vault"
)

// PairingOriginResponse answers PairingOrigin.
type PairingOriginResponse struct {
	Response
	// Origin is the process that asked to pair, as the OS reported it
	// when it asked: PID and Exe, or only UID for a process Engram did
	// not or may not inspect. Its Command is empty: the audit log keeps
	// no text the process chose. Nil when the agent was added by hand,
	// the OS did not say, or the entry is no longer in the audit log.
	Origin *Peer `json:"origin,omitempty"`
	// Asked is when the pairing request came (zero without Origin).
	Asked time.Time `json:"asked,omitzero"`
}

// PairingOrigin returns the process whose pairing request created the
// agent name, for an agent that was paired rather than added by hand,
// after the request was decided (while it waits, AskedBy says more, with
// the command line). It reads the audit entry that RequestPairing wrote,
// so it knows what the audit log still holds (DefaultAuditRetention). An
// agent added by hand under the name of a pairing request that had
// expired has no origin. Operator only; it writes nothing.
func (s *Service) PairingOrigin(ctx context.Context, req Request, name string) PairingOriginResponse {
	return s.reg.PairingOrigin(ctx, req, name)
}

// PairingOrigin is Service.PairingOrigin's work.
func (s *registrar) PairingOrigin(ctx context.Context, req Request, name string) PairingOriginResponse {
	if r, ok := s.operatorGate(req); !ok {
		return PairingOriginResponse{Response: r}
	}
	entries, err := s.v.AuditLog(vault.AuditFilter{Action: vault.ActionAgent})
	if err != nil {
		return PairingOriginResponse{Response: s.fail("pairing origin", err)}
	}
	var last *vault.AuditEntry // the entry that created the agent's record
	for i, e := range entries {
		if e.Result != vault.ResultOK {
			continue
		}
		pairing := e.Agent == name && (e.Reason == "pairing requested by "+name || strings.HasPrefix(e.Reason, "pairing requested by "+name+", "))
		if pairing || (e.Agent == vault.AgentOperator && e.Reason == "add "+name) {
			last = &entries[i]
		}
	}
	out := PairingOriginResponse{Response: Response{Status: StatusOK}}
	if last == nil || last.Agent != name {
		return out
	}
	label, ok := strings.CutPrefix(last.Reason, "pairing requested by "+name+", ")
	if !ok {
		return out // the OS did not say
	}
	var p Peer
	var rest string
	if n, _ := fmt.Sscanf(label, "process %d,", &p.PID); n == 1 && p.PID > 0 {
		_, rest, _ = strings.Cut(label, ", ")
		p.UID, p.Exe = -1, rest
	} else if n, _ := fmt.Sscanf(label, "a process of user id %d", &p.UID); n != 1 {
		return out
	}
	out.Origin, out.Asked = &p, last.Time
	return out
}
