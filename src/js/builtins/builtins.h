/* js/builtins/builtins.h: the ECMAScript 2023-2025 built-ins SpiderMonkey 102 lacks
 * (docs/worker.md, "Built-ins beyond SpiderMonkey 102"), added to each realm when the engine
 * creates the class they belong to: the global's addProperty hook sees the engine define `Array`,
 * `String`, `Map`... and installs that class's additions then, so a run pays only for the classes
 * it uses. Natives in C++ where the algorithm is a loop over elements; the iterator helpers and
 * Array.fromAsync are JavaScript (iterator.js, compiled once per process like the platform's
 * modules) behind natives. */
#ifndef SBX_JS_BUILTINS_H
#define SBX_JS_BUILTINS_H

#include "js/sm.h" /* first: see there */

/* The global class's hooks (js/platform/platform.cpp composes them with its own). */
bool sm_builtins_add_property(JSContext *cx, JS::HandleObject global, JS::HandleId id,
                              JS::HandleValue v);
bool sm_builtins_resolve(JSContext *cx, JS::HandleObject global, JS::HandleId id, bool *resolvedp);
bool sm_builtins_may_resolve(jsid id);
bool sm_builtins_enumerate(JSContext *cx, JS::HandleObject global, JS::MutableHandleIdVector props,
                           bool enumerable_only);

/* Run by each fresh realm before guest code: makes the error classes the engine needs to report
 * a stack overflow (see builtins.cpp). */
bool sm_builtins_realm_begin(JSContext *cx, JS::HandleObject global);

/* Defines the natives iterator.js uses (pristine: a guest cannot reach or replace them). */
bool sm_builtins_natives(JSContext *cx, JS::HandleObject natives);

/* What the files here share. */

/* The realm's built-ins state (js/builtins/builtins.cpp), or NULL with an exception pending. */
JSObject *sm_bi_state(JSContext *cx);

enum sm_bi_slot {
    SM_BI_INSTALLED,      /* Int32: bits of enum sm_bi_class already installed */
    SM_BI_ARRAY_SORT,     /* the realm's original Array.prototype.sort */
    SM_BI_TA_SORT,        /* and %TypedArray%.prototype.sort */
    SM_BI_ITERATOR,       /* the realm's Iterator constructor (iterator.cpp) */
    SM_BI_ITERATOR_PROTO, /* %IteratorPrototype% */
    SM_BI_SLOT_COUNT
};

/* Installers, one per class the engine creates lazily; ctor is what it defines on the global. */
bool sm_bi_install_array(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_typed_array(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_object(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_map(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_promise(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_string(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_set(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_regexp(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_array_buffer(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_data_view(JSContext *cx, JS::HandleObject ctor);
bool sm_bi_install_math(JSContext *cx, JS::HandleObject math);
bool sm_bi_install_iterator(JSContext *cx); /* %IteratorPrototype%'s helpers */

/* The Iterator constructor of the realm (created on first use). */
bool sm_bi_iterator_ctor(JSContext *cx, JS::MutableHandleObject out);

/* Spec operations. */

/* ToIntegerOrInfinity(v). */
bool sm_bi_to_integer(JSContext *cx, JS::HandleValue v, double *out);
/* LengthOfArrayLike(obj). */
bool sm_bi_length(JSContext *cx, JS::HandleObject obj, double *out);
/* Get(obj, ToString(index)) for any index up to 2^53 - 1. */
bool sm_bi_get_index(JSContext *cx, JS::HandleObject obj, double index, JS::MutableHandleValue vp);
/* Calls the named export of iterator.js with this and args (the natives that forward to it). */
bool sm_bi_call_js(JSContext *cx, const char *name, JS::CallArgs &args);

/* Throws the engine's message number msg (js/friend/ErrorNumbers.msg) with its arguments;
 * returns false. */
bool sm_bi_throw(JSContext *cx, unsigned msg, const char *a0 = nullptr, const char *a1 = nullptr,
                 const char *a2 = nullptr);

#endif
