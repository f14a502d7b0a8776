/* js/error.cpp: what a result says about a thrown value: one line, "Name: message (line L,
 * column C)" (the file too when it is not the body's), and the guest's stack, e.stack as Node
 * prints it (the contexts use V8's stack format). Positions are the run's own: frames of the
 * async form's source (the AsyncFunction constructor names it) read as the body's. Guest getters
 * may run (and be stopped) while a value is described. */
#include "js/sm.h" /* first: see there */

#include <js/Conversions.h>
#include <js/Exception.h>
#include <js/Object.h>
#include <js/SavedFrameAPI.h>
#include <js/Stack.h>
#include <stdio.h>

#include "js/text.h"
extern "C" {
#include "util/alloc.h"
}

/* Longest guest-derived text in a message part (core caps messages at 512 bytes). */
#define PART_MAX 400
#define FILE_MAX 120
/* Longest stack kept; longer ones are cut at a line end (a deep recursion's frames). */
#define STACK_MAX (16u * 1024u)

/* Appends at most max bytes of the text of s to the NUL-terminated msg (cap bytes). */
static void append_js(JSContext *cx, char *msg, size_t cap, JSString *s, size_t max)
{
    struct sbx__buf b;
    size_t have = strlen(msg);
    if (!s || have + 1 >= cap)
        return;
    sbx__buf_init(&b, cap - 1 - have < max ? cap - 1 - have : max);
    sm_emit(cx, &b, s);
    if (b.len)
        memcpy(msg + have, b.data, b.len);
    msg[have + b.len] = '\0';
    sbx__buf_free(&b);
}

static void append_c(char *msg, size_t cap, const char *s)
{
    size_t have = strlen(msg);
    snprintf(msg + have, cap - have, "%s", s);
}

bool sm_is_error_object(JSContext *cx, JS::HandleValue v)
{
    if (!v.isObject())
        return false;
    JS::RootedObject obj(cx, &v.toObject());
    js::ESClass cls;
    return JS::GetBuiltinClass(cx, obj, &cls) && cls == js::ESClass::Error;
}

bool sm_append_prop(JSContext *cx, JS::HandleObject obj, const char *name, char *msg, size_t cap)
{
    JS::RootedValue v(cx);
    if (!JS_GetProperty(cx, obj, name, &v))
        return false;
    JSString *s = JS::ToString(cx, v);
    if (!s)
        return false;
    append_js(cx, msg, cap, s, PART_MAX);
    return true;
}

/* A position in the run's terms. */
struct where {
    char file[FILE_MAX + 1];
    unsigned long line, column;
    bool is_dynamic; /* a SyntaxError in code compiled at run time (eval, Function) */
    unsigned long call_line, call_column; /* then: where that compile was called */
};

static void map_file(const struct sm_source_map *map, struct where *w)
{
    if (map && map->from && strcmp(w->file, map->from) == 0) {
        snprintf(w->file, sizeof(w->file), "%s", map->to);
        if (w->is_dynamic) /* the line is the eval'd code's own */
            w->call_line =
                w->call_line > map->line_offset ? w->call_line - map->line_offset : w->call_line;
        else
            w->line = w->line > map->line_offset ? w->line - map->line_offset : w->line;
    }
}

/* Appends " (line L, column C)", or " (FILE, line L, column C)" for another file than the
 * body's. Nothing when the line is unknown. */
static void append_where(char *msg, size_t cap, const struct where *w)
{
    char text[FILE_MAX + 128];
    if (w->line == 0)
        return;
    if (w->is_dynamic) /* never shown as the body's own line */
        snprintf(text, sizeof(text),
                 " (line %lu, column %lu of the code given to eval or Function, called at line "
                 "%lu, column %lu)",
                 w->line, w->column, w->call_line, w->call_column);
    else if (strcmp(w->file, SM_BODY_FILE) == 0 || !w->file[0])
        snprintf(text, sizeof(text), " (line %lu, column %lu)", w->line, w->column);
    else
        snprintf(text, sizeof(text), " (%s, line %lu, column %lu)", w->file, w->line, w->column);
    append_c(msg, cap, text);
}

/* An Error's own position: fileName, lineNumber, columnNumber. */
static bool error_where(JSContext *cx, JS::HandleObject obj, struct where *w)
{
    JS::RootedValue file(cx), line(cx), column(cx);
    if (!JS_GetProperty(cx, obj, "fileName", &file) ||
        !JS_GetProperty(cx, obj, "lineNumber", &line) ||
        !JS_GetProperty(cx, obj, "columnNumber", &column))
        return false;
    w->file[0] = '\0';
    if (file.isString())
        append_js(cx, w->file, sizeof(w->file), file.toString(), FILE_MAX);
    w->line = line.isNumber() && line.toNumber() >= 1 && line.toNumber() < 1e9
                  ? (unsigned long)line.toNumber()
                  : 0;
    w->column = column.isNumber() && column.toNumber() >= 0 && column.toNumber() < 1e9
                    ? (unsigned long)column.toNumber()
                    : 0;
    return true;
}

/* The compiler gives SyntaxErrors 0-based columns (ErrorMetadata, in 102); runtime errors take
 * their position from the 1-based frame that made them. A SyntaxError whose position is not its
 * own top frame's (a compile error has none, or its eval's caller) is the compiler's: made
 * 1-based, as the stack's and Node's are. */
static void fix_compile_column(JSContext *cx, JS::HandleObject obj, struct where *w)
{
    mozilla::Maybe<JSExnType> type = JS_GetErrorType(JS::ObjectValue(*obj));
    if (type.isNothing() || *type != JSEXN_SYNTAXERR)
        return;
    JS::RootedObject frame(cx, JS::ExceptionStackOrNull(obj));
    uint32_t line = 0, column = 0;
    if (frame && JS::GetSavedFrameLine(cx, nullptr, frame, &line) == JS::SavedFrameResult::Ok &&
        JS::GetSavedFrameColumn(cx, nullptr, frame, &column) == JS::SavedFrameResult::Ok &&
        line == w->line && column == w->column)
        return;
    w->column++;
    /* With a frame in the same file at another place, the compiler was called at run time
     * (eval, Function): the position is in that code, which is named after the caller's file;
     * the frame is where it was called. (A RegExp's pattern error has its caller's position;
     * one from a self-hosted frame has another file.) */
    JS::RootedString source(cx);
    char frame_file[FILE_MAX + 1] = "";
    if (!frame || (line == w->line && column == w->column) ||
        JS::GetSavedFrameSource(cx, nullptr, frame, &source) != JS::SavedFrameResult::Ok)
        return;
    append_js(cx, frame_file, sizeof(frame_file), source, FILE_MAX);
    w->is_dynamic = strcmp(frame_file, w->file) == 0;
    w->call_line = line;
    w->call_column = column;
}

/* The top frame of the stack captured where a non-Error value was thrown. */
static void frame_where(JSContext *cx, JS::HandleObject frame, struct where *w)
{
    JS::RootedString file(cx);
    uint32_t line = 0, column = 0;
    w->file[0] = '\0';
    w->line = 0;
    if (!frame || JS::GetSavedFrameSource(cx, nullptr, frame, &file) != JS::SavedFrameResult::Ok ||
        JS::GetSavedFrameLine(cx, nullptr, frame, &line) != JS::SavedFrameResult::Ok ||
        JS::GetSavedFrameColumn(cx, nullptr, frame, &column) != JS::SavedFrameResult::Ok)
        return;
    append_js(cx, w->file, sizeof(w->file), file, FILE_MAX);
    w->line = line;
    w->column = column;
}

/* Copies stack text s to b, with map->from's positions in the run's terms: "(FROM:L:C)" and
 * "at FROM:L:C" become the body's file with line L - offset. */
static void map_stack(const char *s, size_t len, const struct sm_source_map *map,
                      struct sbx__buf *b)
{
    size_t from_len = map && map->from ? strlen(map->from) : 0;
    for (size_t i = 0; i < len;) {
        if (!from_len || len - i <= from_len || memcmp(s + i, map->from, from_len) != 0 ||
            s[i + from_len] != ':') {
            sbx__buf_append(b, s + i, 1);
            i++;
            continue;
        }
        i += from_len + 1;
        unsigned long line = 0;
        for (; i < len && s[i] >= '0' && s[i] <= '9' && line < 100000000ul; i++)
            line = line * 10 + (unsigned long)(s[i] - '0');
        char text[64];
        int n = snprintf(text, sizeof(text), "%s:%lu", map->to,
                         line > map->line_offset ? line - map->line_offset : line);
        sbx__buf_append(b, text, (size_t)n);
    }
}

/* Takes stack text (guest text) into *out, mapped and cut at a line end within STACK_MAX. */
static void take_stack(JSContext *cx, JSString *s, const struct sm_source_map *map, char **out)
{
    struct sbx__buf raw, mapped;
    sbx__buf_init(&raw, STACK_MAX * 2);
    sm_emit(cx, &raw, s);
    sbx__buf_init(&mapped, STACK_MAX * 2);
    map_stack(raw.data ? raw.data : "", raw.len, map, &mapped);
    size_t len = mapped.len;
    while (len > 0 && mapped.data[len - 1] == '\n')
        len--;
    if (len > STACK_MAX) {
        len = STACK_MAX;
        while (len > 0 && mapped.data[len] != '\n')
            len--;
    }
    /* Only frames make a stack: a SyntaxError's is its first line alone. */
    bool has_frames = memmem(mapped.data ? mapped.data : "", len, "    at ", 7) != nullptr;
    if (len > 0 && has_frames && !mapped.is_oom && !raw.is_oom)
        *out = sbx__strndup(mapped.data, len);
    sbx__buf_free(&raw);
    sbx__buf_free(&mapped);
}

/* The stack of an error that has no frames (a compile error: the compiler runs before any
 * frame): its first line and its own position, "    at FILE:L:C", so every guest error has one. */
static char *position_stack(const char *head, size_t len, const struct where *w)
{
    char at[FILE_MAX + 64];
    int n = snprintf(at, sizeof(at), "\n    at %s:%lu:%lu", w->file[0] ? w->file : SM_BODY_FILE,
                     w->line, w->column);
    char *s = static_cast<char *>(sbx__mallocn(len + (size_t)n + 1, 1));
    if (s) {
        memcpy(s, head, len);
        memcpy(s + len, at, (size_t)n + 1);
    }
    return s;
}

/* *stack = head + "\n" + *stack (unchanged when out of memory). */
static void prepend_head(char **stack, const char *head, size_t len)
{
    size_t n = strlen(*stack);
    char *s = static_cast<char *>(sbx__mallocn(len + 1 + n + 1, 1));
    if (!s)
        return;
    memcpy(s, head, len);
    s[len] = '\n';
    memcpy(s + len + 1, *stack, n + 1);
    sbx__free(*stack);
    *stack = s;
}

static bool describe_error(JSContext *cx, JS::HandleValue exc, const struct sm_source_map *map,
                           char *msg, size_t cap, char **stack)
{
    JS::RootedObject obj(cx, &exc.toObject());
    size_t head = strlen(msg);
    if (!sm_append_prop(cx, obj, "name", msg, cap))
        return false;
    append_c(msg, cap, ": ");
    struct where w = {};
    if (!sm_append_prop(cx, obj, "message", msg, cap) || !error_where(cx, obj, &w))
        return false;
    size_t head_end = strlen(msg);
    fix_compile_column(cx, obj, &w);
    map_file(map, &w);
    append_where(msg, cap, &w);
    JS::RootedValue s(cx);
    if (!JS_GetProperty(cx, obj, "stack", &s))
        return false;
    if (s.isString())
        take_stack(cx, s.toString(), map, stack);
    if (!*stack && w.line)
        *stack = position_stack(msg + head, head_end - head, &w);
    return true;
}

bool sm_describe(JSContext *cx, JS::HandleValue exc, JS::HandleObject thrown_at,
                 const struct sm_source_map *map, char *msg, size_t cap, char **stack)
{
    *stack = nullptr;
    if (sm_is_error_object(cx, exc))
        return describe_error(cx, exc, map, msg, cap, stack);
    struct sbx__buf b;
    sbx__buf_init(&b, PART_MAX);
    bool ok = sm_console_text(cx, exc, &b);
    size_t head = strlen(msg);
    append_c(msg, cap, "uncaught ");
    if (ok && b.len) {
        size_t have = strlen(msg), n = sbx__js_utf8_cut(b.data, b.len, cap - 1 - have);
        memcpy(msg + have, b.data, n);
        msg[have + n] = '\0';
    }
    sbx__buf_free(&b);
    size_t head_end = strlen(msg);
    struct where w = {};
    frame_where(cx, thrown_at, &w);
    map_file(map, &w);
    append_where(msg, cap, &w);
    JS::RootedString text(cx);
    if (ok && thrown_at && JS::BuildStackString(cx, nullptr, thrown_at, &text) && text)
        take_stack(cx, text, map, stack);
    if (*stack) /* frames alone: the first line says what was thrown, as an Error's does */
        prepend_head(stack, msg + head, head_end - head);
    return ok;
}
