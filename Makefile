# ringlab: `make verify` is the main job, `make test` the test suite.
# Both install what they need first (scripts/deps.sh) and are quick when it
# is already there.

SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
CARGO ?= cargo
RINGLAB := target/release/ringlab
LOOM_ENV := RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=3

.PHONY: all deps build verify verify-deep test test-rust test-loom check prove mutants clean help

all: verify

help:
	@echo "make verify       every ci-tier TLC model, every Z3 proof, the mutation campaign; summary table"
	@echo "make test         cargo tests (proptest, TLC replay, trace validation), loom, TLC manifest, proofs, mutants"
	@echo "make verify-deep  as verify, plus the deep-tier models (bigger rings; minutes)"
	@echo "make deps         install Java, Maven, the TLC jar, libz3 (Debian 12, root)"

deps:
	@bash scripts/deps.sh

build: deps
	$(CARGO) build --release -p ringlab

verify: build
	$(RINGLAB) verify

verify-deep: build
	$(RINGLAB) verify --deep

check: build
	$(RINGLAB) check

prove: build
	$(RINGLAB) prove

mutants: build
	$(RINGLAB) mutants

test-rust: deps
	$(CARGO) test --workspace

test-loom: deps
	$(LOOM_ENV) $(CARGO) test -p ringlab-sim --release --test loom

test: build test-rust test-loom
	$(RINGLAB) check --quiet
	$(RINGLAB) prove --quiet
	$(RINGLAB) mutants --quiet

clean:
	$(CARGO) clean
