# mk/integration.mk: the product as a whole: an embedder's build against the installed library.
TEST_SUITES += integration/embed=tests/integration/embed.sh

# The same snippets through the worker and the process tier must give identical results.
$(BUILD)/tests/integration/tiers: tests/integration/tiers.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
TEST_DEPS   += $(BUILD)/tests/integration/tiers
TEST_SUITES += integration/tiers=env,SBX_GUEST_BINARY=$(abspath $(BUILD)/sbx),$(BUILD)/tests/integration/tiers
