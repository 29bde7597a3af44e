//go:build engram_model

package embed

import _ "embed" // the model's files, below

// The model's files, copied into app/embed/model by `make model` after
// fetch-model.sh verified them. The directory is git-ignored: the model is
// never committed, and a build without the tag engram_model does not need it.
//
// Each file is a string, not an embed.FS: a string's bytes are read where
// the binary maps them, while embed.FS.ReadFile copies each file (28 MB)
// into the heap.
var (
	//go:embed model/model.json
	modelJSON string
	//go:embed model/vocab.json
	vocabJSON string
	//go:embed model/group1-shard1of7
	shard1 string
	//go:embed model/group1-shard2of7
	shard2 string
	//go:embed model/group1-shard3of7
	shard3 string
	//go:embed model/group1-shard4of7
	shard4 string
	//go:embed model/group1-shard5of7
	shard5 string
	//go:embed model/group1-shard6of7
	shard6 string
	//go:embed model/group1-shard7of7
	shard7 string
	//go:embed model/LICENSE
	modelLicense string
)

var embeddedModel = map[string]string{
	"model.json": modelJSON, "vocab.json": vocabJSON,
	"group1-shard1of7": shard1, "group1-shard2of7": shard2, "group1-shard3of7": shard3, "group1-shard4of7": shard4,
	"group1-shard5of7": shard5, "group1-shard6of7": shard6, "group1-shard7of7": shard7,
	"LICENSE": modelLicense,
}
