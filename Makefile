# gmlg — build, test and demo targets. Every target that needs SuiteSparse
# depends on `deps`, which installs it only when missing (idempotent); the
# README, .ci/run and the Dockerfile all go through these targets.

GO        ?= go
BIN       ?= bin/gmlg
DEMO_DATA ?= runs/demo-data
DEMO_RUN  ?= runs/demo
APT_PKGS  := libsuitesparse-dev libopenblas-dev

.PHONY: all deps build demo test test-short fuzz bench vet fmt docker clean devkit

all: build

# Install the C libraries CHOLMOD needs, only when a package is missing.
deps:
	@missing=""; for p in $(APT_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "deps: $(APT_PKGS) already installed"; fi

build: deps
	$(GO) build -o $(BIN) ./cmd/gmlg

# The main job on the built-in synthetic dataset (see README).
# 20×20 grid, 5 sequences of 5 frames made from the reference's analytic
# metric; 50 L-BFGS iterations.
DEMO_LEARN ?= --t 0.003 --steps 10 --lambda-s 0.01 --skip-endpoints --max-iter 50

demo: build
	$(BIN) synth --force -o $(DEMO_DATA)
	$(BIN) learn --force -o $(DEMO_RUN) $(DEMO_LEARN) $(DEMO_DATA)
	@echo "pictures: $(DEMO_RUN)/metric-vs-truth.png, $(DEMO_RUN)/recs.png, $(DEMO_RUN)/loss.png; data: $(DEMO_DATA)/frames.png"

vet:
	$(GO) vet ./...

# The test command of the README: vet, every package's tests, the race
# detector on the cgo binding, the kernel and the folder locks, and the pure-Go build (vet and
# build of every package, cholmod's stub included, and the numerical tests);
# then the kernels' tests built with noasm (the scalar kernels on amd64), and
# a check that go generate leaves sparsechol's generated kernels as they are
# (it compares with a copy taken before, so it needs no git).
test: deps vet
	$(GO) test ./...
	$(GO) test -race ./cholmod/... ./kernel/... ./learn/rundir/
	CGO_ENABLED=0 $(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...
	GOARCH=arm64 CGO_ENABLED=0 $(GO) vet ./...
	CGO_ENABLED=0 $(GO) test -short ./cholmod/... ./kernel/... ./ot/... ./learn/...
	$(GO) test -tags noasm ./kernel/...
	@set -e; dir=kernel/sparsechol; gen="kernels_rows_amd64.s kernels_rows_amd64.go"; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for f in $$gen; do cp $$dir/$$f $$tmp/; done; \
	$(GO) generate ./$$dir/; \
	for f in $$gen; do \
	  cmp -s $$tmp/$$f $$dir/$$f || { echo "$$dir/$$f was out of date: go generate ./$$dir/ has rewritten it" >&2; exit 1; }; \
	done; echo "go generate ./$$dir/: the generated kernels are up to date"

test-short: deps
	$(GO) test -short ./...

# Run every fuzz target (each `func FuzzXxx` of a _test.go file, found by
# grep, so that new targets are included) for FUZZTIME each, one after the
# other; a finding stops it with a non-zero status and go test keeps the
# failing input under that package's testdata/fuzz/FuzzXxx.
FUZZTIME ?= 30s

fuzz: deps
	@set -e; grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do \
	  dir=$$(dirname "$$file"); \
	  for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$$file"); do \
	    echo "fuzz: $$name in $$dir for $(FUZZTIME)"; \
	    $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) "$$dir" || exit 1; \
	  done; \
	done

# Regenerate BENCHMARKS.md (long: every row, the colour rows included).
bench: build
	$(BIN) bench --markdown BENCHMARKS.md

# A kit for timing gmlg on a Linux x86-64 host that has neither Go nor
# SuiteSparse (bench/scaling.sh runs it): devkit/gmlg, the solve engine's
# benchmarks as devkit/sparsechol.test (run with -test.bench and
# -test.cpu), every shared library they load except glibc's own (which the
# host's loader must match), under their SONAMEs in devkit/lib, and with
# BASE=<git revision> the same program
# built from that revision as devkit/gmlg-base, for side-by-side runs. The
# revision is built in a temporary worktree, so the working tree is left as
# it is. A kit over DEVKIT_MAX_MIB is also packed into devkit.tar.gz.
DEVKIT_WT      ?= /tmp/gmlg-base-wt
DEVKIT_MAX_MIB ?= 60

devkit: deps
	rm -rf devkit devkit.tar.gz
	mkdir -p devkit/lib
	$(GO) build -o devkit/gmlg ./cmd/gmlg
	$(GO) test -c -o devkit/sparsechol.test ./kernel/sparsechol
	@if [ -n "$(BASE)" ]; then \
	  rev=$$(git rev-parse --verify "$(BASE)^{commit}") || exit 1; \
	  git worktree remove --force $(DEVKIT_WT) 2>/dev/null; git worktree prune; \
	  git worktree add --detach $(DEVKIT_WT) $$rev || exit 1; \
	  st=0; (cd $(DEVKIT_WT) && $(GO) build -o $(CURDIR)/devkit/gmlg-base ./cmd/gmlg) || st=$$?; \
	  git worktree remove --force $(DEVKIT_WT); \
	  [ $$st = 0 ] || { echo "devkit: building $(BASE) failed" >&2; exit $$st; }; \
	  echo "base $$rev" >devkit/MANIFEST; \
	fi
	@echo "new $$(git rev-parse HEAD)$$(git diff --quiet HEAD -- . || echo ' with uncommitted changes')" >>devkit/MANIFEST
	@set -e; \
	if ldd devkit/gmlg* devkit/*.test | grep 'not found'; then echo "devkit: unresolved libraries" >&2; exit 1; fi; \
	ldd devkit/gmlg* devkit/*.test | awk '$$2 == "=>" && $$3 ~ /^\// { print $$1, $$3 }' | sort -u | \
	while read -r name path; do \
	  case $$name in \
	    ld-linux*|libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*) echo "devkit: $$name from the host";; \
	    *) cp -L "$$path" devkit/lib/$$name; echo "lib $$name $$(readlink -f $$path)" >>devkit/MANIFEST;; \
	  esac; \
	done; \
	stray=$$(LD_LIBRARY_PATH=devkit/lib ldd devkit/gmlg* devkit/*.test | awk '$$2 == "=>" && $$3 ~ /^\// && $$3 !~ /^devkit\/lib\// { print $$1 }' | \
	  grep -Ev '^(libc|libm|libpthread|libdl|librt)\.so' | sort -u); \
	if [ -n "$$stray" ]; then echo "devkit: still loaded from the system: $$stray" >&2; exit 1; fi; \
	glibc=$$(objdump -T devkit/gmlg* devkit/*.test devkit/lib/* | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -n 1); \
	echo "needs $$glibc or newer on the host" >>devkit/MANIFEST; \
	cat devkit/MANIFEST; \
	mib=$$(du -sm devkit | cut -f1); echo "devkit: $$mib MiB"; \
	if [ $$mib -gt $(DEVKIT_MAX_MIB) ]; then \
	  tar -czf devkit.tar.gz devkit; echo "devkit: over $(DEVKIT_MAX_MIB) MiB, packed into devkit.tar.gz ($$(du -sm devkit.tar.gz | cut -f1) MiB)"; \
	fi

fmt:
	gofmt -l -w .

docker:
	docker build -t gmlg .

clean:
	rm -rf bin runs devkit devkit.tar.gz
