# mk/js.mk: the worker tier. Builds Duktape from Debian's duktape-dev amalgamation with a
# generated config (interrupt counter, exec-timeout hook, native stack check) and a few checked
# edits that let the timeout hook fire inside long native loops; no Duktape code is committed.

DUK_SRC   ?= /usr/share/duktape
DUK_GEN   := $(BUILD)/gen/duktape
DUK_OBJ   := $(BUILD)/gen/duktape.o
LIB_EXTRA_OBJ += $(DUK_OBJ)

# Duktape is third-party C: relaxed warnings, hidden symbols, and the build's sanitizers minus
# UBSan (its intentional type punning would abort a -fno-sanitize-recover build): ASan for
# SAN=1, ASan plus fuzzer coverage for the fuzz tree.
js_comma := ,
DUK_SANFLAGS := $(filter-out -fno-sanitize-recover=%,$(subst address$(js_comma)undefined,address,$(SANFLAGS)))
DUK_CFLAGS := $(DUK_SANFLAGS) -std=gnu17 $(OPT) -fPIC -fvisibility=hidden -pthread -w

# edit FILE TAG SED-EXPR [COUNT]: applies SED-EXPR and fails unless exactly COUNT (default 1)
# lines now carry TAG.
duk_edit = sed -i -e '$(3)' $(1) && n=$$(grep -c '$(2)' $(1)) && \
	if [ "$$n" != $(or $(4),1) ]; then echo "js.mk: Duktape edit $(2) matched $$n times" >&2; exit 1; fi

$(DUK_GEN)/duk_config.h: $(DUK_SRC)/duk_config.h src/js/duk_overrides.h mk/js.mk
	@mkdir -p $(@D)
	cp $(DUK_SRC)/duk_config.h $@.tmp
	sed -i -e '/__OVERRIDE_DEFINES__/r src/js/duk_overrides.h' -e '/__OVERRIDE_DEFINES__/d' $@.tmp
	@n=$$(grep -c SBX_OVERRIDES_BEGIN $@.tmp); if [ "$$n" != 1 ]; then \
		echo "js.mk: duk_config.h override marker matched $$n times" >&2; exit 1; fi
	mv $@.tmp $@

$(DUK_GEN)/duktape.h: $(DUK_SRC)/duktape.h
	@mkdir -p $(@D)
	cp $< $@

$(DUK_GEN)/duktape.c: $(DUK_SRC)/duktape.c src/js/duk_poll.inc mk/js.mk
	@mkdir -p $(@D)
	cp $< $@.tmp
	@$(call duk_edit,$@.tmp,SBX_EDIT_REGEXP,s|^\t\tre_ctx->steps_count++;$$|& SBX_DUK_POLL(re_ctx->thr); /* SBX_EDIT_REGEXP */|)
	@$(call duk_edit,$@.tmp,SBX_EDIT_GETPROP,s|^DUK_INTERNAL duk_bool_t duk_hobject_getprop(duk_hthread \*thr, duk_tval \*tv_obj, duk_tval \*tv_key) {$$|& SBX_DUK_POLL(thr); /* SBX_EDIT_GETPROP */|)
	@$(call duk_edit,$@.tmp,SBX_EDIT_HASPROP,s|^DUK_INTERNAL duk_bool_t duk_hobject_hasprop(duk_hthread \*thr, duk_tval \*tv_obj, duk_tval \*tv_key) {$$|& SBX_DUK_POLL(thr); /* SBX_EDIT_HASPROP */|)
	@$(call duk_edit,$@.tmp,SBX_EDIT_PUTPROP,s|^duk_hobject_putprop(duk_hthread \*thr, duk_tval \*tv_obj, duk_tval \*tv_key, duk_tval \*tv_val, duk_bool_t throw_flag) {$$|& SBX_DUK_POLL(thr); /* SBX_EDIT_PUTPROP */|)
	@$(call duk_edit,$@.tmp,SBX_EDIT_DELPROP,s|^DUK_INTERNAL duk_bool_t duk_hobject_delprop(duk_hthread \*thr, duk_tval \*tv_obj, duk_tval \*tv_key, duk_bool_t throw_flag) {$$|& SBX_DUK_POLL(thr); /* SBX_EDIT_DELPROP */|)
	@$(call duk_edit,$@.tmp,SBX_EDIT_STRSEARCH,s|^\t\t\tif (duk_memcmp((const void \*) p, (const void \*) q_start, (size_t) q_blen) == 0) {$$|\t\t\tSBX_DUK_POLL_COST(thr, 1 + (q_blen >> 8)); /* SBX_EDIT_STRSEARCH */\n&|)
	@$(call duk_edit,$@.tmp,SBX_EDIT_REPLACESPLIT,s|^\t\t\t\tif (duk_memcmp((const void \*) p, (const void \*) q_start, (size_t) q_blen) == 0) {$$|\t\t\t\tSBX_DUK_POLL_COST(thr, 1 + (q_blen >> 8)); /* SBX_EDIT_REPLACESPLIT */\n&|,2)
	@$(call duk_edit,$@.tmp,SBX_EDIT_FIRSTGC,s|^\tres->ms_prevent_count = 0;$$|& res->ms_trigger_counter = SBX_DUK_FIRST_GC_ALLOCS; /* SBX_EDIT_FIRSTGC */|)
	@$(call duk_edit,$@.tmp,SBX_EDIT_GCRETRY,s|^\t10 /\* Retry allocation after mark-and-sweep for this \\$$|\t3 /* SBX_EDIT_GCRETRY: guests cannot set finalizers so 3 rounds suffice \\|)
	cat src/js/duk_poll.inc >> $@.tmp
	mv $@.tmp $@

$(DUK_OBJ): $(DUK_GEN)/duktape.c $(DUK_GEN)/duktape.h $(DUK_GEN)/duk_config.h
	$(CC) $(DUK_CFLAGS) -I$(DUK_GEN) -c $< -o $@

# engine.c is the one file that includes duktape.h (the generated copy, not /usr/include's).
$(BUILD)/src/js/engine.o: $(DUK_GEN)/duktape.h $(DUK_GEN)/duk_config.h

# Snippets with expected results, run through `sbx eval` (tests/js/cases/*.js).
TEST_SUITES += js/snippets=python3,tests/js/run_snippets.py
TEST_DEPS += $(BUILD)/sbx

BENCH_WORKER_RUNS ?= 10000
.PHONY: bench-worker
bench-worker: $(BUILD)/bench/worker/bench_worker
	$(BUILD)/bench/worker/bench_worker --runs $(BENCH_WORKER_RUNS) --node bench/worker/node_peer.js

$(BUILD)/bench/worker/bench_worker: bench/worker/bench_worker.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
