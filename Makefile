GO ?= go
BIN := bin/xcsh
PKGS := ./...

.PHONY: build test bench fuzz lint demo conformance clean

build:
	$(GO) build -o $(BIN) ./cmd/xcsh

test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 $(PKGS)

# Benchmarks of every package that has them (the 100,000-message session
# fixture, 231 MB, is generated once into the temp dir).
BENCHTIME ?= 3x
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime=$(BENCHTIME) ./internal/... ./session/ ./agent/... ./cmd/ ./ui/ ./terminal/... ./supervisor/

# Longer fuzzing runs; `make test` already runs every seed corpus.
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseJSONL -fuzztime $(FUZZTIME) ./internal/jsjson
	$(GO) test -run '^$$' -fuzz FuzzCanonical -fuzztime $(FUZZTIME) ./internal/jsjson
	$(GO) test -run '^$$' -fuzz FuzzParseEntries -fuzztime $(FUZZTIME) ./session
	$(GO) test -run '^$$' -fuzz FuzzMigrate -fuzztime $(FUZZTIME) ./session
	$(GO) test -run '^$$' -fuzz FuzzBuildContext -fuzztime $(FUZZTIME) ./session
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) ./breadcrumb
	$(GO) test -run '^$$' -fuzz FuzzSanitizeKeyPart -fuzztime $(FUZZTIME) ./terminal

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	$(GO) vet $(PKGS)

# Replay a directory of conformance cases into result documents:
#   make conformance CASES=testdata/conformance/cases OUT=/tmp/out
CASES ?= testdata/conformance/cases
OUT ?= out/conformance
conformance:
	$(GO) run ./internal/conformance/cmd/replay -cases $(CASES) -out $(OUT)

# The main job on a fresh machine: build, then show a demo session end to end.
demo: build
	./scripts/demo.sh

clean:
	rm -rf bin out
