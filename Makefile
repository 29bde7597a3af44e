# Engram's two everyday commands are `make run` and `make test` (README.md).
export GOTOOLCHAIN := auto
export LANG := C.UTF-8
GO ?= go
ARGS ?= help

MODEL_DIR ?= .cache/model/use-lite

.PHONY: run build test vet deps model bench fuzz clean

## run: build engram and run it with ARGS (default: help), with the embedding model
run: deps model build
	ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) ./bin/engram $(ARGS)

build:
	$(GO) build -o bin/engram ./cmd/engram

deps:
	sh .ci/deps

## model: fetch the embedding model (checked against pinned hashes) for tests
model:
	sh app/embed/fetch-model.sh $(MODEL_DIR)

vet:
	$(GO) vet ./...

## test: install test dependencies, vet, and run every test with a real OS keyring
test: deps model vet build
	ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) .ci/with-keyring $(GO) test -race -count=1 ./...
	.ci/mcp-inspector bin/engram

## bench: the benchmarks whose figures the issues ask for
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./vault/... ./quarantine/... ./decay/... ./app/recall/
	ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) $(GO) test -run '^$$' -bench . -benchmem ./app/embed/

## fuzz: run each fuzz target briefly (FUZZTIME per target)
FUZZTIME ?= 20s
fuzz:
	for t in FuzzDecodeRecord FuzzDecodeHeader FuzzDecodeBackup; do $(GO) test ./vault/ -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	$(GO) test ./vault/internal/seal/ -run '^$$' -fuzz '^FuzzOpen$$' -fuzztime $(FUZZTIME)
	$(GO) test ./vault/internal/pagecheck/ -run '^$$' -fuzz '^FuzzCheck$$' -fuzztime $(FUZZTIME)
	$(GO) test ./quarantine/ -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./quarantine/guard/ -run '^$$' -fuzz '^FuzzCheck$$' -fuzztime $(FUZZTIME)
	for t in FuzzDecodeVector FuzzStem; do $(GO) test ./app/recall/ -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) $(GO) test ./app/embed/ -run '^$$' -fuzz '^FuzzTokenize$$' -fuzztime $(FUZZTIME)

clean:
	rm -rf bin
