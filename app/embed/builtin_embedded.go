//go:build engram_model

package embed

import (
	stdembed "embed"
	"io/fs"
)

// The model's files, copied into app/embed/model by `make model` after
// fetch-model.sh verified them. The directory is git-ignored: the model is
// never committed, and a build without the tag engram_model does not need it.
//
//go:embed model/model.json model/vocab.json model/group1-shard*of7 model/LICENSE
var modelFiles stdembed.FS

var embeddedModel fs.FS = modelFiles
