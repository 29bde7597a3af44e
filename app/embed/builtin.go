package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"unsafe"
)

// Embedded is ModelInfo.Location for the copy of the model compiled into
// the binary.
const Embedded = "embedded"

// pinned is the SHA-256 of every file of the built-in model, the same
// values fetch-model.sh checks a download against (a test keeps the two
// lists equal). LICENSE is the model's Apache-2.0 licence, shipped with it.
var pinned = map[string]string{
	"model.json":       "507d11df18b070f99e0ad650b9a4e6534a4cfb05040127e8ce579f00c8fa3b53",
	"vocab.json":       "1ad860b9720c16cd48e666d664a556b2515c04f5a26a4b53c0372427913b1b8e",
	"group1-shard1of7": "8775e61b6a4235ea230a62a0d81f1ff00f5213ce86baa5d89c29e611f8cd7412",
	"group1-shard2of7": "deaf897e5eea5be6c71ea62876a092034560b6f6fbc99c87a768076385a465bd",
	"group1-shard3of7": "50ee49b0daf620cf0cacda2f5fcc0da5929f4a3e520034844b6f8d9f3f4ec936",
	"group1-shard4of7": "c1a50daae51e7c6e1e904f5d8d638a8658a0a1d310b9345cd7a368866304d596",
	"group1-shard5of7": "410cde3029282e5f601c782985cbb5caa96977f6705dec981c98dd02e93fec6b",
	"group1-shard6of7": "83ef116b2b98dc98e03547280ca0166142fbf6b4547bf1d9e6d13a8f518c088b",
	"group1-shard7of7": "a29a5e08ee3afd839250b9187b89f1d3163749b5b1807bb175341a16c6012689",
	"LICENSE":          "4458503dd48e88c4e0b945fb252a08b93c40ec757309b8ffa7c594dfa1e35104",
}

// ModelInfo says which built-in model a process loaded: its name (the
// Embedder name of its vectors), where from (Embedded or a directory),
// and whether every file matched its pinned SHA-256.
type ModelInfo struct {
	Name     string `json:"name"`
	Location string `json:"location"`
	Verified bool   `json:"verified"`
}

// BuiltinLocation is where LoadBuiltin(dir) looks for the model: dir when
// it is not empty, else $ENGRAM_MODEL_DIR when set, else Embedded when
// the binary carries the model (see HasEmbedded), else DefaultModelDir.
func BuiltinLocation(dir string) string {
	switch {
	case dir != "":
		return dir
	case os.Getenv("ENGRAM_MODEL_DIR") != "":
		return os.Getenv("ENGRAM_MODEL_DIR")
	case HasEmbedded():
		return Embedded
	}
	return DefaultModelDir()
}

// HasEmbedded reports whether this binary carries the model: it was built
// with the tag engram_model after `make model` put the verified files in
// app/embed/model (as `make build` and `make package` do).
func HasEmbedded() bool { return embeddedModel != nil }

// LoadBuiltin loads Universal Sentence Encoder Lite the way Engram does at
// start, from BuiltinLocation(dir); nothing is downloaded. Every file's
// SHA-256 is checked against the pinned value before any is parsed: a
// file that differs fails with an error wrapping ErrModelCorrupt that
// names it, an absent one with ErrModelNotFound. The ModelInfo is filled
// in (Verified false) even when loading fails, so a caller can say which
// model it tried.
func LoadBuiltin(dir string) (*USE, ModelInfo, error) {
	files, info, err := readBuiltin(dir)
	if info.Location == Embedded {
		defer releaseEmbedded()
	}
	if err != nil {
		return nil, info, err
	}
	u, err := loadUSE(func(name string) ([]byte, error) {
		if b, ok := files[name]; ok {
			return b, nil
		}
		// model.json names only pinned files; any other name is not
		// part of the verified model.
		return nil, fmt.Errorf("read %s: %w: not a file of the pinned model", name, ErrModelCorrupt)
	})
	if err != nil {
		return nil, info, err
	}
	return u, info, nil
}

// VerifyBuiltin checks the model LoadBuiltin(dir) would load against its
// pinned hashes without building it (a few tens of milliseconds instead
// of half a second), with the same errors.
func VerifyBuiltin(dir string) (ModelInfo, error) {
	_, info, err := readBuiltin(dir)
	if info.Location == Embedded {
		releaseEmbedded()
	}
	return info, err
}

// embeddedBytes is the embedded file name as bytes, without a copy: the
// binary maps them read-only, so they must never be written.
func embeddedBytes(name string) ([]byte, bool) {
	s, ok := embeddedModel[name]
	return unsafe.Slice(unsafe.StringData(s), len(s)), ok
}

// releaseEmbedded gives the pages of the embedded model back once it is
// parsed (or checked): the weights the model uses are copies in the heap,
// and the file's 28 MB would otherwise stay resident for nothing.
func releaseEmbedded() {
	for name := range embeddedModel {
		b, _ := embeddedBytes(name)
		release(b)
	}
}

// readBuiltin reads and verifies the files of the model at
// BuiltinLocation(dir).
func readBuiltin(dir string) (map[string][]byte, ModelInfo, error) {
	where := BuiltinLocation(dir)
	info := ModelInfo{Name: useName, Location: where}
	var read readFile
	switch {
	case where == Embedded:
		read = func(name string) ([]byte, error) {
			b, ok := embeddedBytes(name)
			if !ok {
				return nil, fmt.Errorf("read %s: %w: %s is not in the embedded copy", name, ErrModelNotFound, name)
			}
			return b, nil
		}
	case where == "":
		return nil, info, fmt.Errorf("load model: %w: no model directory could be determined", ErrModelNotFound)
	default:
		if _, err := os.Stat(where); err != nil {
			return nil, info, fmt.Errorf("load model: %w: %s does not exist", ErrModelNotFound, where)
		}
		read = dirReader(where)
	}
	files, err := verified(read)
	if err != nil {
		return nil, info, fmt.Errorf("load model from %s: %w", where, err)
	}
	info.Verified = true
	return files, info, nil
}

// verified reads every pinned file with read and checks its SHA-256,
// returning the contents by name.
func verified(read readFile) (map[string][]byte, error) {
	names := make([]string, 0, len(pinned))
	for name := range pinned {
		names = append(names, name)
	}
	slices.Sort(names)
	files := make(map[string][]byte, len(pinned))
	for _, name := range names {
		b, err := read(name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != pinned[name] {
			return nil, fmt.Errorf("%w: %s does not match its pinned SHA-256", ErrModelCorrupt, name)
		}
		files[name] = b
	}
	return files, nil
}
