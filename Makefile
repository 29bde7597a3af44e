# Engram's two everyday commands are `make run` and `make test` (README.md).
export GOTOOLCHAIN := auto
export LANG := C.UTF-8
GO ?= go
# ARGS empty opens the desktop app; e.g. ARGS=serve runs the agent API only.
ARGS ?=
# Where the desktop end-to-end test leaves its screenshots.
SHOTS ?= e2e-screenshots

MODEL_DIR ?= .cache/model/use-lite
# Where `make model` puts the verified model for go:embed (git-ignored); a
# build with the tag engram_model carries it, so every way Engram starts
# recalls by meaning without a model directory.
EMBED_MODEL_DIR = app/embed/model
MODEL_TAGS = engram_model
# The app's build: the model inside, and emoji drawn with the system's
# emoji font (fonts-noto-color-emoji, which `make deps` installs) instead
# of the copy Fyne bundles, which every text style parses anew (16 MiB of
# the idle app's memory; README.md, "Memory").
APP_TAGS = $(MODEL_TAGS),no_emoji

.PHONY: run build test vet deps test-deps model e2e crash package bench report fuzz clean

## run: build engram (the embedding model inside) and open the desktop app (or run ARGS)
run: deps build
	LANG=en_US.UTF-8 ./bin/engram $(ARGS)

## build: bin/engram with the verified embedding model embedded, and bin/engram-hook (lifecycle hooks)
build: model
	$(GO) build -tags $(APP_TAGS) -o bin/engram ./cmd/engram
	$(GO) build -o bin/engram-hook ./cmd/engram-hook

deps:
	sh .ci/deps

test-deps:
	sh .ci/deps test

## model: fetch the embedding model (checked against pinned hashes) for tests,
## and copy it where the build embeds it
model:
	sh app/embed/fetch-model.sh $(MODEL_DIR)
	mkdir -p $(EMBED_MODEL_DIR)
	for f in $(MODEL_DIR)/*; do cmp -s "$$f" $(EMBED_MODEL_DIR)/$${f##*/} || cp "$$f" $(EMBED_MODEL_DIR)/ || exit 1; done

## vet: go vet (the embedded model's file too) and staticcheck (from the module proxy)
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2
vet:
	$(GO) vet ./...
	$(GO) vet -tags $(MODEL_TAGS) ./app/embed/
	$(GO) run $(STATICCHECK) ./...

## test: install test dependencies, vet, and run every test with a real OS keyring
## (printing, after go test's usual output, the tests that skipped and why),
## then MCP Inspector against both transports, the crash harness, the desktop
## end-to-end test, and every fuzz target for a few seconds
test: test-deps model vet build
	status=$$(mktemp) && \
	{ ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) .ci/with-keyring $(GO) test -race -count=1 -timeout 45m -v ./... 2>&1; echo $$? >"$$status"; } | awk "$$GO_TEST_REPORT"; \
	s=$$(cat "$$status"); rm -f "$$status"; exit $$s
	ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) $(GO) test -tags $(MODEL_TAGS) -count=1 -run 'Builtin|Pinned' ./app/embed/
	.ci/mcp-inspector bin/engram
	$(MAKE) crash
	$(MAKE) e2e
	$(MAKE) fuzz FUZZTIME=8s

# GO_TEST_REPORT turns the output of 'go test -v' into what plain 'go test'
# prints (a line a package; a failed package's failed tests with their
# output, and what no test printed), then lists each skipped test with the
# reason it gave. Kept out of make's expansion with $(value).
define GO_TEST_REPORT_AWK
function flush(line,   pkg, i) {
	pkg = line; sub(/^[^\t]*\t/, "", pkg); sub(/[\t ].*/, "", pkg)
	if (line ~ /^FAIL/) printf "%s", out
	print line
	for (i = 1; i <= npend; i++) skipped[++nskip] = pkg " " pend[i]
	npend = 0; out = ""; cur = ""; split("", buf)
}
/^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; next }
/^ *--- (PASS|FAIL|SKIP): / {
	if ($2 == "FAIL:") out = out $0 "\n" buf[$3]
	if ($2 == "SKIP:") {
		why = buf[$3]; gsub(/\n +/, "\n\t", why); sub(/^ +/, "\t", why); sub(/\n$/, "", why)
		pend[++npend] = $3 (why == "" ? "" : "\n" why)
	}
	delete buf[$3]
	next
}
/^(ok|FAIL|\?) *\t/ { flush($0); next }
cur != "" && /^    / { buf[cur] = buf[cur] $0 "\n"; next }
{ out = out $0 "\n" }
END {
	printf "%s", out
	if (nskip == 0) exit
	printf "\n%d tests skipped, and why:\n", nskip
	for (i = 1; i <= nskip; i++) print "  " skipped[i]
}
endef
export GO_TEST_REPORT := $(value GO_TEST_REPORT_AWK)

## crash: SIGKILL a serving engram 50 times under writes; doctor and every acknowledged write must survive
crash:
	ENGRAM_CRASH=1 $(GO) test -count=1 -timeout 10m -run '^TestCrashHarness$$' -v ./cmd/engram

## e2e: the desktop app under Xvfb with a tray host; screenshots in $(SHOTS)/
e2e: test-deps build
	rm -rf $(SHOTS) && mkdir -p $(SHOTS)
	ENGRAM_E2E=1 ENGRAM_E2E_SHOTS=$(CURDIR)/$(SHOTS) ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) \
		.ci/with-keyring $(GO) test -count=1 -timeout 5m -run '^TestDesktopEndToEnd$$' -v ./cmd/engram

## package: an installable Linux archive, Engram.tar.xz (binary, icon, .desktop entry from FyneApp.toml)
FYNE_TOOL = fyne.io/fyne/v2/cmd/fyne@v2.7.1
package: deps model
	$(GO) install $(FYNE_TOOL)
	# fyne package reads FyneApp.toml beside the main package.
	sed 's|assets/icon.png|../../assets/icon.png|' FyneApp.toml > cmd/engram/FyneApp.toml
	cd cmd/engram && "$$($(GO) env GOPATH)/bin/fyne" package -os linux -tags $(APP_TAGS); status=$$?; rm -f FyneApp.toml; exit $$status
	mv cmd/engram/Engram.tar.xz .

## bench: the benchmarks whose figures the issues ask for
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./vault/... ./quarantine/... ./decay/... ./app/recall/
	ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) $(GO) test -run '^$$' -bench . -benchmem ./app/embed/
	LANG=en_US.UTF-8 $(GO) test -run '^$$' -bench 100k -benchtime 3x ./ui/

## report: cmd/engram-bench/report/report.md with charts (needs ../shared/eval and the model)
report: model
	ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) $(GO) run ./cmd/engram-bench report --out cmd/engram-bench/report --eval ../shared/eval

## fuzz: run each fuzz target briefly (FUZZTIME per target)
FUZZTIME ?= 20s
fuzz:
	for t in FuzzDecodeRecord FuzzDecodeHeader FuzzDecodeBackup FuzzSalvage; do $(GO) test ./vault/ -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	$(GO) test ./vault/internal/seal/ -run '^$$' -fuzz '^FuzzOpen$$' -fuzztime $(FUZZTIME)
	$(GO) test ./vault/segment/ -run '^$$' -fuzz '^FuzzOpen$$' -fuzztime $(FUZZTIME)
	for t in FuzzCheck FuzzScan; do $(GO) test ./vault/internal/pagecheck/ -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	$(GO) test ./quarantine/ -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	for t in FuzzCheck FuzzFindHidden; do $(GO) test ./quarantine/guard/ -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	for t in FuzzDecodeVector FuzzStem; do $(GO) test ./app/recall/ -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	for t in FuzzAPI FuzzMCP; do $(GO) test ./app/server/ -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	$(GO) test ./app/internal/strictjson/ -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	for t in FuzzEdit FuzzHooksEdit; do $(GO) test ./app/connect/ -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	for t in FuzzStatements FuzzTranscript; do $(GO) test ./app/hooks/ -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	$(GO) test ./app/importer/ -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	ENGRAM_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) $(GO) test ./app/embed/ -run '^$$' -fuzz '^FuzzTokenize$$' -fuzztime $(FUZZTIME)

clean:
	rm -rf bin Engram.tar.xz
