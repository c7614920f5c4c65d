# SowZero — one flat Makefile.
#   make            build ./sowzero (installs missing Debian packages first)
#   make test       build and run every Check suite (tests/test_*.c)
#   make asan       the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make tsan       the tests under ThreadSanitizer
#   make bench      the benchmarks (sowzero bench all)
#   make deps       install the Debian packages the project needs
#   make run        the main job on the default config
#   make format     clang-format every source file (format-check: CI's check)
#   make clean
# Without make (a bare Debian): sh make.sh TARGET installs it, then runs it.

BUILD   ?= build
CC      ?= cc
OPT     ?= -O2 -g
# Every machine of this project is the same kind, and CI builds where it runs.
ARCH    ?= -march=native
SAN     ?=
CFLAGS  += -std=c11 $(OPT) $(ARCH) $(SAN) -Wall -Wextra -Werror -D_GNU_SOURCE -MMD -MP -I.
LDFLAGS += $(SAN)

# pkg-config is asked lazily (recursive variables), after the deps step ran.
PKG_CFLAGS = $(shell pkg-config --cflags openblas)
PKG_LIBS   = $(shell pkg-config --libs openblas) -lpthread -lm
CHECK_LIBS = $(shell pkg-config --libs check)

# The library, in dependency order (docs/ARCHITECTURE.md); the exporters are
# a library of their own so that nothing else links protobuf-c.
LIB_DIRS := base game nn search arena trainer protocol
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
EXP_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard export/*.c)) $(BUILD)/gen/onnx/onnx.pb-c.o
CLI_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard cli/*.c))
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIB      := $(BUILD)/libsowzero.a
EXP_LIB  := $(BUILD)/libsowzero_export.a
DEPS_OK  := $(BUILD)/.deps-ok

.PHONY: all test asan tsan bench deps run format format-check layout-check mutants clean
.DEFAULT_GOAL := all

all: sowzero

# The stamp records that the packages are present; scripts/install-deps.sh
# installs only what is missing.
$(DEPS_OK):
	@sh scripts/install-deps.sh
	@mkdir -p $(dir $@) && touch $@

deps:
	@sh scripts/install-deps.sh

$(BUILD)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(EXP_LIB): $(EXP_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/sowzero: $(CLI_OBJ) $(EXP_LIB) $(LIB)
	$(CC) $(LDFLAGS) $^ $(PKG_LIBS) $(ONNX_LIBS) -o $@

sowzero: $(BUILD)/sowzero
	@if [ "$(BUILD)" = build ]; then cp $< $@; fi

# Objects before the library, whichever rule named them.
$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	$(CC) $(LDFLAGS) $(filter %.o,$^) $(filter %.a,$^) $(CHECK_LIBS) $(PKG_LIBS) -o $@

# The suites that include tests/gametest.h: the game suites share their
# skeleton, the search suites its helpers.
GAME_SUITES := oware namnam bao_kenya bao_laps kujifunza search agents alphabeta mcts_batch mcts_values
$(GAME_SUITES:%=$(BUILD)/tests/test_%): $(BUILD)/tests/gametest.o

$(BUILD)/tests/test_export: $(BUILD)/tests/test_export.o $(EXP_LIB) $(LIB)
	$(CC) $(LDFLAGS) $^ $(CHECK_LIBS) $(PKG_LIBS) $(ONNX_LIBS) -o $@

# Each suite runs on its own so one failure names its module; all run even
# when one fails, and the target fails if any did.
TEST_ENV ?=
test: $(TEST_BIN) $(BUILD)/sowzero
	@fail=0; for t in $(TEST_BIN); do \
	  echo "== $$t"; env $(TEST_ENV) SOWZERO_BIN=$(BUILD)/sowzero $$t || fail=1; done; \
	  exit $$fail

asan:
	@$(MAKE) --no-print-directory BUILD=build/asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  TEST_ENV="SOWZERO_TEST_SCALE=0.1" test

tsan:
	@$(MAKE) --no-print-directory BUILD=build/tsan OPT="-O1 -g" SAN="-fsanitize=thread" \
	  TEST_ENV="SOWZERO_TEST_SCALE=0.1 SOWZERO_TSAN=1" test

bench: sowzero
	./sowzero bench all

run: sowzero
	./sowzero train configs/oware.ini

# Every C file we write (not build/ or web/node_modules/); format-check is
# what CI runs: it fails on any file clang-format would change.
FORMAT_SRC = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build/*' -not -path './web/*')
format:
	clang-format -i $(FORMAT_SRC)

format-check:
	clang-format --dry-run -Werror $(FORMAT_SRC)

# The mutation check (tests/mutants.txt): every planted bug must be caught.
# MUTANTS=subset runs the part CI runs; MUTANTS_ONLY=ID,ID a few.
MUTANTS ?=
MUTANTS_ONLY ?=
mutants: $(DEPS_OK)
	python3 scripts/mutants.py $(if $(filter subset,$(MUTANTS)),--subset) \
	  $(if $(MUTANTS_ONLY),--only $(MUTANTS_ONLY))

# The dependency order, private headers and file sizes of docs/ARCHITECTURE.md.
layout-check:
	@sh scripts/check-layout.sh

clean:
	rm -rf build sowzero

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Optional: the same network in PyTorch (Debian's python3-torch), same threads.
.PHONY: bench-torch
bench-torch:
	python3 scripts/bench_torch.py

# ---- Network exports (ONNX, JSON), the web front end and their tests --------
# The ONNX schema is the onnx.proto that Debian's libonnx-dev ships; protoc-c
# turns it into C at build time (nothing generated is committed). The stamp
# depends on the package list, so a new package gets installed on old trees.
ONNX_PROTO_ROOT ?= /usr/include
GEN        := $(BUILD)/gen
ONNX_LIBS   = $(shell pkg-config --libs libprotobuf-c)

$(DEPS_OK): scripts/install-deps.sh

$(GEN)/onnx/onnx.pb-c.c: $(DEPS_OK)
	@mkdir -p $(GEN)
	protoc-c --c_out=$(GEN) --proto_path=$(ONNX_PROTO_ROOT) onnx/onnx.proto
$(GEN)/onnx/onnx.pb-c.h: $(GEN)/onnx/onnx.pb-c.c
$(GEN)/onnx/onnx.pb-c.o: $(GEN)/onnx/onnx.pb-c.c
	$(CC) $(CFLAGS) -I$(GEN) -c $< -o $@
$(BUILD)/export/export.o $(BUILD)/tests/test_export.o: $(GEN)/onnx/onnx.pb-c.h
$(BUILD)/export/export.o $(BUILD)/tests/test_export.o: CFLAGS += -I$(GEN)

# make test-export: exports checked in ONNX Runtime, the JSON evaluator and
# the browser page (tests/export/run.sh). Node packages come from
# web/package-lock.json through npm ci; Chromium from Debian.
.PHONY: test-export
WEB_MODULES := web/node_modules/.package-lock.json

$(BUILD)/tests/export/dump_cases: $(BUILD)/tests/export/dump_cases.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(PKG_LIBS) -o $@

$(WEB_MODULES): web/package.json web/package-lock.json
	@command -v npm >/dev/null || { echo "test-export: npm (Node.js 20) is not installed"; exit 1; }
	cd web && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund

test-export: $(BUILD)/sowzero $(BUILD)/tests/export/dump_cases $(WEB_MODULES)
	@sh scripts/install-deps.sh web
	sh tests/export/run.sh $(BUILD)
