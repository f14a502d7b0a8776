# mk/integration.mk: the product as a whole: an embedder's build against the installed library.
TEST_SUITES += integration/embed=env,SAN=$(SAN),tests/integration/embed.sh
# Its `make install PREFIX=...` rebuilds libsbx and sbx (the module path is built in), in a copy of
# the build state: heavy, so it runs alone.
TEST_SERIAL += integration/embed

# The same snippets through the worker and the process tier must give identical results.
$(BUILD)/tests/integration/tiers: tests/integration/tiers.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
TEST_DEPS   += $(BUILD)/tests/integration/tiers
TEST_SUITES += integration/tiers=env,SBX_GUEST_BINARY=$(abspath $(BUILD)/sbx),$(BUILD)/tests/integration/tiers

# Soak: `make soak` runs the full counts; `make test` a short form (counts / SOAK_SCALE).
SOAK_SCALE ?= 20
$(BUILD)/tests/soak/soak: tests/soak/soak.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
TEST_DEPS   += $(BUILD)/tests/soak/soak
TEST_SUITES += integration/soak=env,SBX_GUEST_BINARY=$(abspath $(BUILD)/sbx),$(BUILD)/tests/soak/soak,$(SOAK_SCALE)
TEST_SERIAL += integration/soak
.PHONY: soak
soak: $(BUILD)/tests/soak/soak
	SBX_GUEST_BINARY=$(abspath $(BUILD)/sbx) $(BUILD)/tests/soak/soak 1
