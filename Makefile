# SowZero — one flat Makefile.
#   make            build ./sowzero (installs missing Debian packages first)
#   make test       build and run every Check suite (tests/test_*.c)
#   make asan       the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make tsan       the tests under ThreadSanitizer
#   make bench      the benchmarks (sowzero bench all)
#   make deps       install the Debian packages the project needs
#   make run        the main job on the default config
#   make format     clang-format every source file
#   make clean

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

LIB_SRC  := $(wildcard base/*.c game/*.c nn/*.c trainer/*.c) $(filter-out cli/main.c,$(wildcard cli/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIB      := $(BUILD)/libsowzero.a
DEPS_OK  := $(BUILD)/.deps-ok

.PHONY: all test asan tsan bench deps run format clean
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

$(BUILD)/sowzero: $(BUILD)/cli/main.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(PKG_LIBS) -o $@

sowzero: $(BUILD)/sowzero
	@if [ "$(BUILD)" = build ]; then cp $< $@; fi

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	$(CC) $(LDFLAGS) $^ $(CHECK_LIBS) $(PKG_LIBS) -o $@

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
	./sowzero demo configs/oware.ini

format:
	clang-format -i $(wildcard */*.c */*.h)

clean:
	rm -rf build sowzero

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Optional: the same network in PyTorch (Debian's python3-torch), same threads.
.PHONY: bench-torch
bench-torch:
	python3 scripts/bench_torch.py
