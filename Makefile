# SowZero — one flat Makefile.
#   make            build ./sowzero (installs missing Debian packages first)
#   make test       build and run every Check suite (tests/test_*.c)
#   make test-mpi   distributed runs under mpirun (tests/test_mpi.c)
#   make asan       the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make tsan       the tests under ThreadSanitizer
#   make bench      the benchmarks (sowzero bench all)
#   make deps       install the Debian packages the project needs
#   make run        the main job on the default config
#   make format     clang-format every source file (format-check: CI's check)
#   make layout-check  includes down the dependency order, private headers private
#   make mutants    plant each mutation of tests/mutants.txt; all must be caught
#   make mutants-random SEED=S N=N  draw N mutations from seed S; report the survivors
#   make fuzz       run each fuzz harness FUZZ_SECONDS (docs/RELIABILITY.md)
#   make clean
# Without make (a bare Debian): sh make.sh TARGET installs it, then runs it.

BUILD   ?= build
CC      ?= cc
OPT     ?= -O2 -g
# Portable: runs on any x86-64 CPU with AVX2 and FMA (Haswell, Zen and later),
# so one binary serves a mixed cluster; the hot kernels pick AVX-512 and bf16
# at run time (target attributes). make ARCH=-march=native: this CPU only,
# for the last few percent (BENCHMARKS.md, docs/DISTRIBUTED.md).
ARCH    ?= -march=x86-64-v3
SAN     ?=
CFLAGS  += -std=c11 $(OPT) $(ARCH) $(SAN) -Wall -Wextra -Werror -D_GNU_SOURCE -MMD -MP -I.
LDFLAGS += $(SAN)

# pkg-config is asked lazily (recursive variables), after the deps step ran.
PKG_CFLAGS = $(shell pkg-config --cflags openblas ompi-c)
PKG_LIBS   = $(shell pkg-config --libs openblas ompi-c) -lpthread -lm
CHECK_LIBS = $(shell pkg-config --libs check)

# The library, in dependency order (docs/ARCHITECTURE.md); the exporters are
# a library of their own so that nothing else links protobuf-c.
LIB_DIRS := base game egdb nn search arena trainer protocol
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
EXP_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard export/*.c)) $(BUILD)/gen/onnx/onnx.pb-c.o
CLI_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard cli/*.c))
# test_mpi drives mpirun: make test-mpi runs it (the normal build only;
# Open MPI's own allocations would trip the sanitizers' leak checks).
TEST_SRC := $(filter-out tests/test_mpi.c,$(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIB      := $(BUILD)/libsowzero.a
EXP_LIB  := $(BUILD)/libsowzero_export.a
DEPS_OK  := $(BUILD)/.deps-ok

.PHONY: all test test-mpi asan tsan bench deps run format format-check layout-check mutants mutants-random mutants-check clean
.DEFAULT_GOAL := all

all: sowzero

# The stamp records that the packages are present; scripts/install-deps.sh
# installs only what is missing.
$(DEPS_OK):
	@sh scripts/install-deps.sh
	@mkdir -p $(dir $@) && touch $@

deps:
	@sh scripts/install-deps.sh

# The shipped networks (models/) are found from the tree the binary is built in.
$(BUILD)/search/agent_net.o: CFLAGS += -DSOWZERO_MODELS_DIR='"$(CURDIR)/models"'

# The objects depend on the flags they were compiled with, so that
# `make ARCH=...` (or OPT, SAN) rebuilds them rather than linking old ones.
# (The flags as set here, before any target adds its own.)
FLAGS_STAMP := $(BUILD)/.cflags
FLAGS_NOW   := $(CC) $(CFLAGS)
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@
.PHONY: FORCE
FORCE:

$(BUILD)/%.o: %.c $(FLAGS_STAMP) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

# The int8 kernels name their instruction sets themselves (nn/nn_int8_kern.c):
# a base without AVX-512 keeps the AVX2 kernel AVX2 whatever ARCH says.
$(BUILD)/nn/nn_int8_kern.o: ARCH := -march=x86-64-v2

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(EXP_LIB): $(EXP_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The start-up check of the build's instructions (cli/isa.c) and the CPU
# detection it uses run on any x86-64, whatever ARCH says.
$(BUILD)/cli/isa.o $(BUILD)/base/cpu.o: CFLAGS += -march=x86-64 -mtune=generic

# `sowzero version` names the commit and the instruction set of the build.
SOWZERO_VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/cli/version.o: CFLAGS += -DSOWZERO_VERSION='"$(SOWZERO_VERSION)"' -DSOWZERO_ARCH='"$(ARCH)"'

$(BUILD)/sowzero: $(CLI_OBJ) $(EXP_LIB) $(LIB)
	$(CC) $(LDFLAGS) $^ $(PKG_LIBS) $(ONNX_LIBS) -o $@

sowzero: $(BUILD)/sowzero
	@if [ "$(BUILD)" = build ]; then cp $< $@; fi

# Objects before the library, whichever rule named them.
$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	$(CC) $(LDFLAGS) $(filter %.o,$^) $(filter %.a,$^) $(CHECK_LIBS) $(PKG_LIBS) -o $@

# The suites that include tests/gametest.h: the game suites share their
# skeleton, the search suites its helpers.
GAME_SUITES := oware namnam bao_kenya bao_laps kujifunza search agents alphabeta mcts_batch \
               mcts_values arena openings models properties search_time
$(GAME_SUITES:%=$(BUILD)/tests/test_%): $(BUILD)/tests/gametest.o

$(BUILD)/tests/test_export: $(BUILD)/tests/test_export.o $(EXP_LIB) $(LIB)
	$(CC) $(LDFLAGS) $^ $(CHECK_LIBS) $(PKG_LIBS) $(ONNX_LIBS) -o $@

# The fault-injection suite fails the library's allocations and thread
# starts one by one (tests/failalloc.h): its link routes them through
# tests/failalloc.c.
FAILALLOC_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,--wrap=posix_memalign,--wrap=pthread_create
$(BUILD)/tests/test_faults: $(BUILD)/tests/test_faults.o $(BUILD)/tests/failalloc.o $(LIB)
	$(CC) $(LDFLAGS) $(FAILALLOC_WRAP) $(filter %.o,$^) $(filter %.a,$^) $(CHECK_LIBS) $(PKG_LIBS) -o $@

# Each suite runs on its own so one failure names its module; all run even
# when one fails, and the target fails if any did.
TEST_ENV ?=
test: $(TEST_BIN) $(BUILD)/sowzero
	@fail=0; for t in $(TEST_BIN); do \
	  echo "== $$t"; env $(TEST_ENV) SOWZERO_BIN=$(BUILD)/sowzero $$t || fail=1; done; \
	  exit $$fail

# Distributed runs under mpirun (docs/DISTRIBUTED.md).
test-mpi: $(BUILD)/tests/test_mpi $(BUILD)/sowzero
	SOWZERO_BIN=$(BUILD)/sowzero $(BUILD)/tests/test_mpi

asan:
	@$(MAKE) --no-print-directory BUILD=build/asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  TEST_ENV="SOWZERO_TEST_SCALE=0.1 CK_TIMEOUT_MULTIPLIER=3" test

tsan:
	@$(MAKE) --no-print-directory BUILD=build/tsan OPT="-O1 -g" SAN="-fsanitize=thread" \
	  TEST_ENV="SOWZERO_TEST_SCALE=0.1 SOWZERO_TSAN=1 CK_TIMEOUT_MULTIPLIER=3" test

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

# Each mutation's original text occurs once in its file (part of make test:
# a list that drifted from the code fails here, not in a long run).
mutants-check:
	@python3 scripts/mutants.py --check
test: mutants-check

# Generated mutants (scripts/mutants_random.py): N single-line mutations drawn
# from SEED over the library's folders (FOLDERS=base,game to narrow them).
SEED ?= 1
N ?= 60
FOLDERS ?=
mutants-random: $(DEPS_OK)
	python3 scripts/mutants_random.py --seed $(SEED) --n $(N) $(if $(FOLDERS),--folders $(FOLDERS))

# The dependency order, private headers and file sizes of docs/ARCHITECTURE.md.
layout-check:
	@sh scripts/check-layout.sh

clean:
	rm -rf build sowzero python/sowzero/_core*.so

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

# ---- WebAssembly: the engine, search and network for the page and Node -----
# make web builds build/web/sowzero.mjs + sowzero.wasm with Debian's
# emscripten: the library parts the page needs (no trainer, arena, export),
# the benchmarks, and wasm/wasm.c (the module's exports). No OpenBLAS there:
# nn/blas_portable.c stands in (NN_PORTABLE_BLAS). Single-threaded, SIMD128.
# Emscripten 3.1.6 runs its JavaScript tools with Node and looks for Debian's
# acorn through NODE_PATH.
.PHONY: web serve-web
EMCC      ?= emcc
WEB_OUT   := build/web
WEB_SRC   := $(foreach d,base game egdb nn search protocol,$(wildcard $(d)/*.c)) cli/args.c \
             cli/bench.c cli/bench_engine.c cli/bench_search.c cli/bench_nn.c cli/bench_egdb.c \
             wasm/wasm.c
WEB_OBJ   := $(WEB_SRC:%.c=$(WEB_OUT)/obj/%.o)
WEB_CFLAGS = -std=c11 -O3 -msimd128 -msse2 -DNN_PORTABLE_BLAS -D_GNU_SOURCE -I. -Wall -Wextra \
             -Werror -Wno-null-pointer-subtraction -MMD -MP
WEB_LINK   = -sMODULARIZE -sEXPORT_ES6 -sEXPORT_NAME=createSowZero -sALLOW_MEMORY_GROWTH \
             -sINVOKE_RUN=0 -sEXIT_RUNTIME=0 -sENVIRONMENT=web,worker,node \
             -sEXPORTED_RUNTIME_METHODS=callMain,FS,UTF8ToString,stringToUTF8,lengthBytesUTF8 \
             -sEXPORTED_FUNCTIONS=_main,_malloc,_free
EMENV      = NODE_PATH=/usr/share/nodejs$${NODE_PATH:+:$$NODE_PATH}

$(WEB_OUT)/obj/%.o: %.c
	@command -v $(EMCC) >/dev/null || { echo "web: emscripten is not installed (sh scripts/install-deps.sh web)"; exit 1; }
	@mkdir -p $(dir $@)
	$(EMENV) $(EMCC) $(WEB_CFLAGS) -c $< -o $@

$(WEB_OUT)/sowzero.mjs: $(WEB_OBJ)
	$(EMENV) $(EMCC) -O3 $(WEB_LINK) $^ -o $@

web: $(WEB_OUT)/sowzero.mjs

# make test-web: the WebAssembly build against the native one (signatures,
# a protocol session byte for byte) and the page in Chromium, playing every
# game. make serve-web: the page on localhost (RUN=DIR serves a run's best
# network next to it).
.PHONY: test-web
test-web: web $(BUILD)/sowzero $(BUILD)/tests/export/dump_cases $(WEB_MODULES)
	@sh scripts/install-deps.sh web
	cd web && SOWZERO_BIN=$(abspath $(BUILD))/sowzero \
	  SOWZERO_DUMP=$(abspath $(BUILD))/tests/export/dump_cases \
	  node --test test/wasm.test.mjs test/browser.test.mjs

serve-web: web
	node web/serve.mjs $(if $(RUN),--run $(RUN))

-include $(WEB_OBJ:.o=.d)

# ---- Fuzzing: the harnesses of fuzz/ (docs/RELIABILITY.md) -------------------
# One harness a source (fuzz/NAME.c defines LLVMFuzzerTestOneInput), built
#   - with clang, libFuzzer, ASan and UBSan:  make fuzz-build, make fuzz
#     (each harness FUZZ_SECONDS on its seeds fuzz/corpus/NAME; new inputs go
#     to build/libfuzzer/corpus/NAME, crashes and hangs to build/libfuzzer/crashes/NAME)
#   - with the ordinary compiler and fuzz/driver.c (a main() that feeds
#     files): make fuzz-replay, part of make test, replays every seed and
#     every file of tests/data/fuzz/NAME (the crashes and hangs found)
#   - for AFL++: make fuzz-afl (afl-clang-fast and AFL++'s libFuzzer driver)
FUZZ_NAMES   := protocol setboard config agent weights replay record analysis
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?=
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
.PHONY: fuzz fuzz-build fuzz-replay fuzz-afl fuzz-seeds

# clang 14 takes the type checks of base/kv.h's table macros (a null pointer
# subtracted inside sizeof, never evaluated) for undefined behaviour.
build/libfuzzer/%.o build/afl/%.o: CFLAGS += -Wno-null-pointer-subtraction

$(BUILD)/fuzz/%-fuzzer: $(BUILD)/fuzz/%.o $(LIB)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer $^ $(PKG_LIBS) -o $@
$(BUILD)/fuzz/%-replay: $(BUILD)/fuzz/%.o $(BUILD)/fuzz/driver.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(PKG_LIBS) -o $@

fuzz-build:
	@sh scripts/install-deps.sh dev
	@$(MAKE) --no-print-directory BUILD=build/libfuzzer CC=$(FUZZ_CC) OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" $(FUZZ_NAMES:%=build/libfuzzer/fuzz/%-fuzzer)

# The protocol's dictionary serves the text harnesses; a harness that finds
# something fails the target and leaves the input in build/libfuzzer/crashes/NAME.
fuzz: fuzz-build
	@fail=0; for n in $(FUZZ_NAMES); do \
	  mkdir -p build/libfuzzer/corpus/$$n build/libfuzzer/crashes/$$n; \
	  case $$n in protocol|setboard|agent|config|record) dict=-dict=fuzz/protocol.dict ;; \
	    analysis) dict=-dict=fuzz/analysis.dict ;; *) dict= ;; esac; \
	  echo "== fuzz $$n: $(FUZZ_SECONDS) s, log build/libfuzzer/$$n.log"; \
	  build/libfuzzer/fuzz/$$n-fuzzer $$dict -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	    -print_final_stats=1 -artifact_prefix=build/libfuzzer/crashes/$$n/ $(FUZZ_FLAGS) \
	    build/libfuzzer/corpus/$$n fuzz/corpus/$$n >build/libfuzzer/$$n.log 2>&1 || fail=1; \
	  grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
	    build/libfuzzer/$$n.log | sed 's/^/   /'; \
	  grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)|invariant broken' \
	    build/libfuzzer/$$n.log | sed 's/^/   /'; \
	done; exit $$fail

# Every seed and every file of tests/data/fuzz/NAME must pass, but for the
# open findings listed in tests/data/fuzz/OPEN ("NAME/FILE  what breaks"):
# those are replayed with FUZZ_STRICT=1 (fuzz/fuzz.h) and must still fail.
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILD)/fuzz/%-replay)
.SECONDARY: $(FUZZ_NAMES:%=$(BUILD)/fuzz/%.o) $(BUILD)/fuzz/driver.o $(BUILD)/fuzz/mkseeds.o
fuzz-replay: $(FUZZ_REPLAY)
	@fail=0; open=tests/data/fuzz/OPEN; [ -f $$open ] || open=/dev/null; \
	for n in $(FUZZ_NAMES); do \
	  files=; for f in tests/data/fuzz/$$n/*; do [ -f "$$f" ] || continue; \
	    grep -q "^$$n/$${f##*/}[[:space:]]" $$open || files="$$files $$f"; done; \
	  $(BUILD)/fuzz/$$n-replay fuzz/corpus/$$n $$files || fail=1; done; \
	while read -r f why; do case "$$f" in ''|'#'*) continue ;; esac; \
	  if FUZZ_STRICT=1 $(BUILD)/fuzz/$${f%%/*}-replay tests/data/fuzz/$$f >/dev/null 2>&1; then \
	    echo "tests/data/fuzz/$$f passes now: remove it from $$open and its leniency from fuzz/"; fail=1; \
	  else echo "open finding, fails as expected: $$f"; fi; \
	done < $$open; exit $$fail
test: fuzz-replay

# The binary seeds (weights, replay, record) come from SowZero's writers.
$(BUILD)/fuzz/mkseeds: $(BUILD)/fuzz/mkseeds.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(PKG_LIBS) -o $@
fuzz-seeds: $(BUILD)/fuzz/mkseeds
	$(BUILD)/fuzz/mkseeds fuzz/corpus

fuzz-afl:
	@command -v afl-clang-fast >/dev/null || { echo "fuzz-afl: AFL++ is not installed (Debian: afl++)"; exit 1; }
	@mkdir -p build/afl/out
	@$(MAKE) --no-print-directory BUILD=build/afl CC=afl-clang-fast OPT="-O1 -g" \
	  SAN="$(FUZZ_SAN)" $(FUZZ_NAMES:%=build/afl/fuzz/%-fuzzer)

# ---- Python: the package sowzero over the library (docs/PYTHON.md) ---------
# make python builds python/sowzero/_core*.so in place from a -fPIC build of
# the library (build/pic); make test runs its pytest suite. Debian's Python
# (python3-dev, python3-numpy, python3-pytest) unless PYTHON names another.
# Not under the sanitizers: an instrumented module cannot load into python3.
PYTHON     ?= $(firstword $(wildcard /usr/bin/python3) python3)
PY_SUFFIX   = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_INCLUDE  = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_EXT      = python/sowzero/_core$(PY_SUFFIX)
.PHONY: python python-test python-install

python: $(DEPS_OK)
	@$(MAKE) --no-print-directory BUILD=build/pic OPT="$(OPT) -fPIC" build/pic/libsowzero.a
	@$(MAKE) --no-print-directory python-ext

.PHONY: python-ext
python-ext: $(PY_EXT)
PY_SRC      = python/sowzero/_core.c python/sowzero/_agents.c
$(PY_EXT): $(PY_SRC) python/sowzero/_core.h build/pic/libsowzero.a
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -fPIC -I$(PY_INCLUDE) $(PKG_CFLAGS) -shared $(PY_SRC) \
	  build/pic/libsowzero.a $(PKG_LIBS) -o $@

python-test: python $(BUILD)/sowzero $(BUILD)/tests/export/dump_cases
	cd python && SOWZERO_BIN=$(abspath $(BUILD))/sowzero \
	  SOWZERO_DUMP=$(abspath $(BUILD))/tests/export/dump_cases \
	  PYTHONPATH=. $(PYTHON) -m pytest -q -p no:cacheprovider tests

ifeq ($(SAN),)
test: python-test
endif

# Makes `python3 -c "import sowzero"` work from anywhere for this user: a
# .pth file in the user's site-packages naming this tree's python/ folder.
python-install: python
	@d=$$($(PYTHON) -m site --user-site) && mkdir -p "$$d" && \
	  echo "$(abspath python)" > "$$d/sowzero.pth" && echo "wrote $$d/sowzero.pth"
