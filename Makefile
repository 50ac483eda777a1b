# ringlab: `make verify` is the main job, `make test` the test suite.
# Both install what they need first (scripts/deps.sh) and are quick when it
# is already there.

SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
CARGO ?= cargo
# Incremental state is several gigabytes for a one-off build of every test
# binary; set CARGO_INCREMENTAL=1 to keep it between edits.
export CARGO_INCREMENTAL ?= 0
RINGLAB := target/release/ringlab
LOOM_ENV := RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=3

.PHONY: all deps deps-mutants mutate build verify verify-deep test test-rest test-rust test-loom test-explorer check prove mutants report docs bench kernel-vm-test clean help

all: verify

help:
	@cat docs/src/two-commands.txt
	@echo "make verify-deep  as verify, plus the deep-tier models (bigger rings; minutes)"
	@echo "make mutate       the automatic mutation campaign over every spec and crate, score and survivors (hours)"
	@echo "make docs         render the guided tour (docs/) to target/ringlab/docs/index.html"
	@echo "make bench        performance as ratios to peers, one run: ring, simulator, TLC, live AF_XDP (minutes)"
	@echo "make kernel-vm-test  the kernel series: checkpatch, W=1, two kernels built and booted in qemu, xskxceiver, diff, faults"
	@echo "make deps         install Java, Maven, the TLC jar, libz3, Chromium, mdBook (Debian 12, root)"

deps:
	@bash scripts/deps.sh

deps-mutants: deps
	@bash scripts/deps.sh --mutants

build: deps
	$(CARGO) build --release -p ringlab

# --kernel: the kernel series built, booted and tested in qemu (make
# kernel-vm-test); the first run builds three kernels, later runs reuse them.
verify: build deps-mutants
	$(RINGLAB) verify --kernel --rust-mutants 1
	$(RINGLAB) diff --kernels host,vm:6.12 --scenarios 500 --seed 1

# After the deep tier, distributed TLC (TLCServer and two TLCWorker JVMs
# over loopback; safety only) must find the single-process run's and the
# manifest's distinct states (docs/src/distributed-tlc.md).
verify-deep: build
	$(RINGLAB) verify --deep
	$(RINGLAB) check --distributed 2 xsk-ring-comp4 xsk-ring-tx4
	$(RINGLAB) diff --kernels host,vm:6.12 --scenarios 5000 --seed 1

check: build
	$(RINGLAB) check

prove: build
	$(RINGLAB) prove

mutants: build
	$(RINGLAB) mutants

# The automatic mutation campaign, all of it: every mutant of every spec
# (TLC) and crate (cargo-mutants); hours. Scores and survivors on stdout,
# target/ringlab/mutate.json.
mutate: build deps-mutants
	$(RINGLAB) mutate

test-rust: deps
	$(CARGO) test --workspace

test-loom: deps
	$(LOOM_ENV) $(CARGO) test -p ringlab-sim --release --test loom --test loom_copytx --test loom_devmem --test loom_xsk_rx --test loom_iouring --test loom_napi

# make test runs each test once. Every test target a mutant's killer
# names runs in `ringlab verify`, without the mutant first (its baseline)
# and then with each mutant, loom's included; test-rest runs the others
# (`ringlab mutants --other-tests` names them), built with the features
# verify builds the killers with (the mutants compiled in, switched off
# at run time) so that both share one build. test-rust and test-loom
# still run everything, for a quick loop without the campaign.
test-rest: build
	@t=$$($(RINGLAB) mutants --other-tests plain) || exit 1; \
	echo "$(CARGO) test --workspace --lib --bins --examples $$t"; \
	$(CARGO) test --workspace --lib --bins --examples $$t
	@f=$$($(RINGLAB) mutants --other-tests features) || exit 1; \
	echo "$(CARGO) test --workspace --doc $$f"; \
	$(CARGO) test --workspace --doc $$f
	@t=$$($(RINGLAB) mutants --other-tests loom) || exit 1; \
	if [ -n "$$t" ]; then \
	    echo "$(LOOM_ENV) $(CARGO) test -p ringlab-sim --release $$t"; \
	    $(LOOM_ENV) $(CARGO) test -p ringlab-sim --release $$t; \
	fi

# The campaign (`ringlab verify`: models, proofs, mutants) runs once and
# writes the report the browser test then opens; the automatic campaign's
# sample is one mutant per spec here (make verify takes three). Each
# mutant's Rust checks stop at the first (cheapest) that kills it
# (--first-kill); make verify runs every one.
# The kernel series' checks that need no VM (checkpatch, git am + W=1 per
# patch) run here for every series; the VM pipeline is in make verify /
# make kernel-vm-test.
test: build test-rest
	$(RINGLAB) verify --quiet --mutate-sample 1 --first-kill
	@for s in $(KERNEL_SERIES); do \
	    echo "$(RINGLAB) kernel-test --no-vm --series $$s"; \
	    $(RINGLAB) kernel-test --no-vm --series $$s || exit 1; \
	done
	$(MAKE) --no-print-directory test-explorer
	bash scripts/test-docs.sh

# The explorer page and the verification report in headless Chromium
# (playwright-core, Debian's chromium); needs a report (`ringlab verify`).
EXPLORER_TEST := verify/report/test
test-explorer: deps
	cd $(EXPLORER_TEST) && npm ci --no-audit --no-fund --silent && node --test

report: build
	$(RINGLAB) report

# Ring against rtrb and crossbeam, the simulator, TLC on 1 and 2 workers,
# AF_XDP copy mode against AF_PACKET on veth (SKIP without root); tables
# on stdout, charts and bench.json in target/ringlab/report/bench/.
bench: build
	$(RINGLAB) bench

docs:
	@bash scripts/deps.sh --docs
	mdbook build docs
	@echo "tour: target/ringlab/docs/index.html"

# Every series of kernel/patches/ (a folder with a cover letter) against
# linux 6.12.117, each with its mutants (kernel/patches/mutants/<series>/):
# checkpatch.pl --strict, git am + W=1 per patch, the released and the
# patched kernel (and the series plus each mutant) built from
# kernel/vm/config.fragment and booted in qemu; in each guest xskxceiver,
# the differential campaigns and fault injection, then one more boot with
# the reproducers alone. Builds are cached in target/ringlab/kernel-vm/.
# Every series runs; the target fails if any did.
KERNEL_SERIES := $(patsubst %/0000-cover-letter.patch,%,$(sort $(wildcard kernel/patches/*/0000-cover-letter.patch)))
kernel-vm-test: build
	@rc=0; for s in $(KERNEL_SERIES); do \
	    m=$$(ls kernel/patches/mutants/$$(basename $$s)/*.patch 2>/dev/null | sed 's/^/--mutant /'); \
	    echo "$(RINGLAB) kernel-test --series $$s" $$m; \
	    $(RINGLAB) kernel-test --series $$s $$m || rc=1; \
	done; exit $$rc

clean:
	$(CARGO) clean
