package app

import (
	"context"
	"slices"
	"strings"

	"github.com/engram-app/engram/vault"
)

// QuestionFactor is what the user's question multiplies a memory's
// confidence by until the user confirms or refutes it.
const QuestionFactor = 0.5

// QuestionInput is the body of a question (Question takes the reason
// alone), described for models as ConfirmInput is.
type QuestionInput struct {
	Reason string `json:"reason" jsonschema:"why the memory may be wrong or out of date (kept in its history for the user). At most 500 characters, with no secrets, personal data or instructions"`
}

// Question records that the caller doubts a memory it can read, with the
// reason. The memory keeps its place (partition, recall, time to live);
// it is listed by Questions until the user confirms or refutes it.
//
//   - The user's question halves the memory's confidence (QuestionFactor;
//     the sweep does not archive it for low confidence while the question
//     stands) and labels it "questioned: REASON" in recall and the detail.
//   - An agent's question is recorded as that agent's report (a
//     QUESTIONED verification, as its refutation of a more trusted memory
//     is: see Refute): it changes neither the confidence nor the label,
//     whatever the memory's trust, since the user's verdict stands over
//     any agent's; the user sees it among the questions and decides.
func (s *Service) Question(ctx context.Context, req Request, id, reason string) MemoryResponse {
	return s.life.Question(ctx, req, id, reason)
}

// Question implements Service.Question.
func (l *lifecycle) Question(ctx context.Context, req Request, id, reason string) MemoryResponse {
	if strings.TrimSpace(reason) == "" {
		return MemoryResponse{Response: Response{StatusInvalid, "invalid: a question needs the reason the memory may be wrong"}}
	}
	r := l.verify(ctx, req, id, vault.Questioned, reason)
	if r.OK() && !req.Caller.Operator {
		r.Message = "recorded as your report: the memory stays as it is until the user confirms or refutes it"
	}
	return r
}

// OpenQuestions are the questions of m that stand: the QUESTIONED
// verifications (the user's and agents' reports) since the user's last
// confirmation or refutation, oldest first.
func OpenQuestions(m *Memory) []vault.Verification {
	vs := m.Provenance.Verifications
	var out []vault.Verification
	for i := len(vs) - 1; i >= 0; i-- {
		v := vs[i]
		if v.Agent == vault.AgentOperator && (v.Verdict == vault.Confirmed || v.Verdict == vault.Refuted) {
			break
		}
		if v.Verdict == vault.Questioned {
			out = append(out, v)
		}
	}
	slices.Reverse(out)
	return out
}

// QuestionedBy returns the reason of the user's standing question of m,
// and whether there is one: the memory is then labelled "questioned:
// REASON" and its confidence halved. Agents' reports do not count.
func QuestionedBy(m *Memory) (string, bool) {
	qs := OpenQuestions(m)
	for i := len(qs) - 1; i >= 0; i-- {
		if qs[i].Agent == vault.AgentOperator {
			return qs[i].Evidence, true
		}
	}
	return "", false
}

// QuestionLabel is how a memory the user questioned is labelled: in
// recall, the detail and the CLI ("questioned: REASON").
func QuestionLabel(reason string) string { return "questioned: " + reason }

// QuestionsResponse lists the memories with standing questions.
type QuestionsResponse struct {
	Response
	Memories []Memory `json:"memories"`
}

// Questions lists the live memories with a standing question (the user's
// or an agent's report, see OpenQuestions), oldest question first: they
// wait for the user to confirm or refute them. Operator only.
func (s *Service) Questions(ctx context.Context, req Request) QuestionsResponse {
	return s.life.Questions(ctx, req)
}

// Questions implements Service.Questions.
func (l *lifecycle) Questions(ctx context.Context, req Request) QuestionsResponse {
	if r, ok := l.operatorGate(req); !ok {
		return QuestionsResponse{Response: r}
	}
	var out []Memory
	_, err := l.v.Each(vault.ListFilter{Partitions: vault.LivePartitions, OnDamaged: l.damaged.Skip}, func(m *vault.Memory) error {
		if len(OpenQuestions(m)) > 0 {
			out = append(out, *m)
		}
		return ctx.Err()
	})
	if err != nil {
		return QuestionsResponse{Response: l.fail("questions", err)}
	}
	first := func(m *Memory) int64 { return OpenQuestions(m)[0].Time.UnixNano() }
	slices.SortFunc(out, func(a, b Memory) int {
		x, y := first(&a), first(&b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return QuestionsResponse{Response: Response{Status: StatusOK}, Memories: out}
}
