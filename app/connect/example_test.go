package connect_test

import (
	"fmt"

	"github.com/engram-app/engram/app/connect"
)

// Edit adds Engram's entry to a client's file and leaves the rest of it,
// comments included, as it was; Strip takes it out again.
func ExampleClient_Edit() {
	zed, _ := connect.Find("zed")
	settings := []byte(`{
  // my theme
  "theme": "One Dark"
}
`)
	out, err := zed.Edit(settings, connect.NewEntry("/usr/bin/engram", "zed", nil))
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	back, _, _ := zed.Strip(out)
	fmt.Println(string(back) == string(settings))
	// Output:
	// {
	//   // my theme
	//   "theme": "One Dark",
	//   "context_servers": {
	//     "engram": {
	//       "command": "/usr/bin/engram",
	//       "args": [
	//         "mcp",
	//         "--agent",
	//         "zed"
	//       ]
	//     }
	//   }
	// }
	// true
}
