package partitions_test

import (
	"fmt"

	"github.com/engram-app/engram/partitions"
)

func ExampleClassify() {
	// A memory with personal data: the writer asked for L1, but personal
	// data makes L3 mandatory.
	d := partitions.Classify(partitions.Facts{HasPII: true, Requested: partitions.Operational, HasRequested: true})
	fmt.Println(d.Level, d.Bucket, d.RequestIgnored)

	m := partitions.Memory{Level: d.Level, OwnerGroup: "backend"}
	fmt.Println(partitions.CanRead(partitions.Reader{Agent: "coder", Group: "backend"}, m))
	fmt.Println(partitions.CanRead(partitions.Reader{Operator: true}, m))
	// Output:
	// L3 sensitive true
	// false
	// true
}

func ExampleClassify_userChoice() {
	// An agent asks for L0 (public) on a plain memory: below the automatic
	// L1, so refused. The user's own choice of L0 stands.
	agent := partitions.Classify(partitions.Facts{Requested: partitions.Public, HasRequested: true})
	user := partitions.Classify(partitions.Facts{Requested: partitions.Public, HasRequested: true, UserChoice: true})
	fmt.Println(agent.Level, agent.RequestIgnored, agent.Reasons[len(agent.Reasons)-1])
	fmt.Println(user.Level, user.Bucket, user.RequestIgnored)
	// Output:
	// L1 true requested L0 is below the required L1
	// L0 public false
}
