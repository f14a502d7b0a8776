# mk/test262.mk: ECMAScript conformance. `make test262` runs ../shared/test262's sample through
# the worker tier in one process (tests/test262/) against an expected-failures list;
# TEST262_UPDATE=1 rewrites the list, TEST262_ARGS adds runner options (--filter TEXT,
# --every N, --verbose). `make test262-process` runs every TEST262_PROCESS_EVERY'th test through
# the process tier, `make test262-node` the sample under Node. `make test` runs the list checks
# and the ES2015+ cross-tier snippets.

# The engine named in the expected-failures list.
SBX_JS_ENGINE ?= spidermonkey
# Suite entries separate arguments with commas (scripts/run-tests.sh).
t262_empty :=
t262_sp    := $(t262_empty) $(t262_empty)
t262_comma := ,
TEST262_DIR      ?= ../shared/test262
TEST262_EXPECTED ?= tests/test262/expected-failures.txt
TEST262_ARGS     ?=
# Per test. The slowest passing tests take 2.5 s on an idle machine (decodeURI's full code-point
# walks), 3x that under the sanitizers; the margin is for a loaded CI host.
TEST262_TIMEOUT_MS ?= $(if $(filter 1,$(SAN)),30000,10000)
# The sanitizer build is 3-5x slower: it runs every 5th test of the worker tier (all areas still),
# every 60th of the process tier.
TEST262_EVERY ?= $(if $(filter 1,$(SAN)),5,1)
TEST262_PROCESS_EVERY ?= $(if $(filter 1,$(SAN)),60,20)
TEST262_SRC := $(wildcard tests/test262/*.c)
TEST262_BIN := $(BUILD)/tests/test262/test262
TEST262_RUN := $(TEST262_BIN) --root $(TEST262_DIR) --expected $(TEST262_EXPECTED) \
               --engine $(SBX_JS_ENGINE) --timeout-ms $(TEST262_TIMEOUT_MS)

$(TEST262_BIN): $(TEST262_SRC) tests/test262/test262.h $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $(TEST262_SRC) $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)

TEST_DEPS   += $(TEST262_BIN)
TEST_SUITES += js/test262=$(subst $(t262_sp),$(t262_comma),$(strip $(TEST262_RUN) --every $(TEST262_EVERY)))
TEST_SERIAL += js/test262
# The runner itself: a mini sample of tests built to pass and to fail, judged as expected.
TEST_SUITES += js/test262-selftest=env,TEST262=$(TEST262_BIN),sh,tests/test262/selftest.sh
TEST_SERIAL += js/test262-selftest

.PHONY: test262 test262-process test262-node
test262: $(TEST262_BIN)
	$(TEST262_RUN) $(if $(TEST262_UPDATE),--update) $(TEST262_ARGS)

# The process tier's guest is the same engine, so the same list holds there: make test runs every
# TEST262_PROCESS_EVERY'th test (a process per test: the whole sample takes 1 min on Duktape,
# about 6 on SpiderMonkey's start-up cost; TEST262_PROCESS_EVERY=1).
TEST262_PROCESS_RUN := env SBX_GUEST_BINARY=$(abspath $(BUILD)/sbx) $(TEST262_RUN) --backend process \
                       --every $(TEST262_PROCESS_EVERY)
TEST_SUITES += js/test262-process=$(subst $(t262_sp),$(t262_comma),$(strip $(TEST262_PROCESS_RUN)))
test262-process: $(TEST262_BIN) $(BUILD)/sbx
	$(TEST262_PROCESS_RUN) $(TEST262_ARGS)

# The pass rate of Node on the same sample and guest body, for comparison (not a check).
test262-node:
	node tests/test262/node_peer.js $(TEST262_DIR)

# ES2015+ snippets through both tiers (tests/integration/tiers.c), each with its expected value
# and stdout.
# Their expectations are checked against Node itself by es2015_node.js.
ES2015_CASES := $(sort $(wildcard tests/integration/es2015/*.js))
TEST_SUITES += integration/tiers-es2015=env,SBX_GUEST_BINARY=$(abspath $(BUILD)/sbx),$(BUILD)/tests/integration/tiers$(subst $(t262_sp),,$(addprefix $(t262_comma),$(ES2015_CASES)))
TEST_SUITES += integration/es2015-node=node,tests/integration/es2015_node.js
