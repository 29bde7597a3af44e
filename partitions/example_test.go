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
