/* js/script.cpp: scripts compiled once per process and run in many realms (a sandbox's
 * preloads). A JS::Stencil may not cross runtimes, and each pool thread has its
 * own (one instantiated in another runtime crashed that runtime's destructor: platform's
 * notes). So the first thread to need a script compiles it and keeps the encoded stencil for
 * the process; every other thread decodes its own copy (no parse) and keeps it in a small
 * per-thread cache, each entry holding a reference to the script. A retired script (its
 * sandbox gone) leaves each cache at that thread's next run; the rest go at thread end. */
#include "js/sm.h" /* first: see there */

#include <js/CompilationAndEvaluation.h>
#include <js/SourceText.h>
#include <js/Transcoding.h>
#include <js/experimental/JSStencil.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "util/alloc.h"
}

/* Scripts kept decoded per thread; the least recently used goes first. */
#define CACHE_MAX 64

struct sm_script {
    std::atomic<int> refs;   /* owners and thread caches */
    std::atomic<int> owners; /* sandboxes and their jobs: at 0 the script is retired */
    std::atomic<bool> is_retired;
    pthread_mutex_t lock; /* encoded */
    char *name;           /* the file name in stacks and messages */
    char *source;         /* UTF-8, NUL-terminated */
    size_t len;
    JS::TranscodeBuffer *encoded; /* once some thread compiled it */
};

struct cache_entry {
    struct sm_script *script;
    JS::Stencil *stencil;
    uint64_t used; /* tick of the last use */
};

struct cache {
    struct cache_entry entries[CACHE_MAX];
    size_t count;
    uint64_t tick;
};

/* On the heap: the module's thread-locals live in glibc's small static TLS surplus. */
static thread_local struct cache *self_cache;

static struct cache *my_cache(void)
{
    if (!self_cache)
        self_cache = static_cast<struct cache *>(sbx__calloc(1, sizeof(struct cache)));
    return self_cache;
}

struct sm_script *sm_script_new(const char *name, const char *source, size_t len)
{
    struct sm_script *s = static_cast<struct sm_script *>(sbx__calloc(1, sizeof(*s)));
    if (!s)
        return nullptr;
    new (&s->refs) std::atomic<int>(1);
    new (&s->owners) std::atomic<int>(1);
    new (&s->is_retired) std::atomic<bool>(false);
    pthread_mutex_init(&s->lock, nullptr);
    s->name = sbx__strdup(name);
    s->source = static_cast<char *>(sbx__mallocn(len + 1, 1)); /* NULs may be in strings */
    if (s->source) {
        memcpy(s->source, source, len);
        s->source[len] = '\0';
    }
    s->len = len;
    if (!s->name || !s->source) {
        sm_script_release(s);
        return nullptr;
    }
    return s;
}

static void script_unref(struct sm_script *s)
{
    if (!s || s->refs.fetch_sub(1) != 1)
        return;
    js_delete(s->encoded);
    sbx__free(s->name);
    sbx__free(s->source);
    pthread_mutex_destroy(&s->lock);
    sbx__free(s);
}

void sm_script_release(struct sm_script *s)
{
    if (!s)
        return;
    if (s->owners.fetch_sub(1) == 1)
        s->is_retired.store(true);
    script_unref(s);
}

void sm_script_ref(struct sm_script *s)
{
    s->owners.fetch_add(1);
    s->refs.fetch_add(1);
}

extern "C" struct sbx__js_script *sbx__js_script_new(const char *name, const char *source,
                                                     size_t len)
{
    return reinterpret_cast<struct sbx__js_script *>(sm_script_new(name, source, len));
}

extern "C" void sbx__js_script_ref(struct sbx__js_script *s)
{
    if (s)
        sm_script_ref(reinterpret_cast<struct sm_script *>(s));
}

extern "C" void sbx__js_script_release(struct sbx__js_script *s)
{
    sm_script_release(reinterpret_cast<struct sm_script *>(s));
}

const char *sm_script_name(const struct sm_script *s)
{
    return s->name;
}

static void drop_entry(struct cache *c, size_t i)
{
    JS::StencilRelease(c->entries[i].stencil);
    script_unref(c->entries[i].script);
    c->entries[i] = c->entries[--c->count];
}

void sm_scripts_sweep(void)
{
    struct cache *c = self_cache;
    for (size_t i = 0; c && i < c->count;)
        if (c->entries[i].script->is_retired.load())
            drop_entry(c, i);
        else
            i++;
}

void sm_scripts_thread_end(void)
{
    struct cache *c = self_cache;
    while (c && c->count)
        drop_entry(c, 0);
    sbx__free(c);
    self_cache = nullptr;
}

static void script_options(JS::CompileOptions &opts, const struct sm_script *s)
{
    opts.setFileAndLine(s->name, 1);
    /* Bytecode for every function now: a realm never parses the source again (a lazy one
     * would be parsed in each realm at its first call). */
    opts.setForceFullParse();
}

/* Compiles s on this thread and, the first time in the process, keeps its encoding (under
 * s->lock). A script that does not compile is compiled again by the next run that needs it
 * (that run reports the SyntaxError). */
static JS::Stencil *compile(JSContext *cx, struct sm_script *s)
{
    JS::CompileOptions opts(cx);
    script_options(opts, s);
    JS::SourceText<mozilla::Utf8Unit> src;
    if (!src.init(cx, s->source, s->len, JS::SourceOwnership::Borrowed))
        return nullptr;
    RefPtr<JS::Stencil> st = JS::CompileGlobalScriptToStencil(cx, opts, src);
    if (st && !s->encoded) {
        JS::TranscodeBuffer *buf = js_new<JS::TranscodeBuffer>();
        if (buf && JS::EncodeStencil(cx, st, *buf) == JS::TranscodeResult::Ok)
            s->encoded = buf;
        else
            js_delete(buf); /* the next thread compiles again */
    }
    return st.forget().take();
}

static JS::Stencil *decode(JSContext *cx, struct sm_script *s, JS::TranscodeBuffer *bytes)
{
    JS::CompileOptions opts(cx);
    script_options(opts, s);
    JS::DecodeOptions dopts(opts);
    JS::TranscodeRange range(bytes->begin(), bytes->length());
    RefPtr<JS::Stencil> st;
    if (JS::DecodeStencil(cx, dopts, range, getter_AddRefs(st)) != JS::TranscodeResult::Ok) {
        if (!JS_IsExceptionPending(cx))
            JS_ReportErrorASCII(cx, "sbx: %s did not decode", s->name);
        return nullptr;
    }
    return st.forget().take();
}

/* Makes room for one entry: the least recently used goes. */
static void cache_room(struct cache *c)
{
    if (c->count < CACHE_MAX)
        return;
    size_t oldest = 0;
    for (size_t i = 1; i < c->count; i++)
        if (c->entries[i].used < c->entries[oldest].used)
            oldest = i;
    drop_entry(c, oldest);
}

JS::Stencil *sm_script_stencil(JSContext *cx, struct sm_script *s)
{
    struct cache *c = my_cache();
    if (!c) {
        JS_ReportOutOfMemory(cx);
        return nullptr;
    }
    for (size_t i = 0; i < c->count; i++)
        if (c->entries[i].script == s) {
            c->entries[i].used = ++c->tick;
            return c->entries[i].stencil;
        }
    pthread_mutex_lock(&s->lock);
    JS::TranscodeBuffer *bytes = s->encoded;
    JS::Stencil *st = nullptr;
    if (!bytes)
        st = compile(cx, s);
    pthread_mutex_unlock(&s->lock);
    if (bytes) /* immutable once published */
        st = decode(cx, s, bytes);
    if (!st)
        return nullptr;
    cache_room(c);
    s->refs.fetch_add(1);
    c->entries[c->count++] = {s, st, ++c->tick};
    return st;
}

bool sm_script_run(JSContext *cx, struct sm_script *s, JS::MutableHandleValue rval)
{
    JS::Stencil *st = sm_script_stencil(cx, s);
    if (!st)
        return false;
    JS::CompileOptions opts(cx);
    script_options(opts, s);
    JS::InstantiateOptions iopts(opts);
    JS::RootedScript script(cx, JS::InstantiateGlobalStencil(cx, iopts, st));
    return script && JS_ExecuteScript(cx, script, rval);
}
