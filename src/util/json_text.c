/* util/json_text.c: see json_text.h. One pass each, no recursion: the validator keeps the open
 * containers as one byte each in a growable stack. */
#include "util/json_text.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"
#include "util/utf8.h"

enum expect { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, COLON, NEXT };

struct stack {
    char *data;
    size_t count, cap;
};

static bool push(struct stack *st, char c)
{
    if (st->count == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        char *grown = sbx__reallocn(st->data, cap, 1);
        if (!grown)
            return false;
        st->data = grown;
        st->cap = cap;
    }
    st->data[st->count++] = c;
    return true;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int hex4(const char *s, size_t left)
{
    int v = 0;
    if (left < 4)
        return -1;
    for (int k = 0; k < 4; k++) {
        char c = s[k];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Returns the index just past the string starting at s[i] == '"', or 0 if it is ill-formed. */
static size_t scan_string(const char *s, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            return i + 1;
        if (c < 0x20)
            return 0;
        if (c != '\\')
            continue;
        if (++i >= len)
            return 0;
        if (s[i] == 'u') {
            if (hex4(s + i + 1, len - i - 1) < 0)
                return 0;
            i += 4;
        } else if (!strchr("\"\\/bfnrt", s[i]) || s[i] == '\0') {
            return 0;
        }
    }
    return 0;
}

static size_t digits(const char *s, size_t len, size_t i)
{
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    return i;
}

/* A number or true/false/null at s[i]; returns the index past it, or 0. */
static size_t scan_scalar(const char *s, size_t len, size_t i)
{
    static const char *const words[] = {"true", "false", "null"};
    for (size_t w = 0; w < 3; w++) {
        size_t n = strlen(words[w]);
        if (len - i >= n && memcmp(s + i, words[w], n) == 0)
            return i + n;
    }
    size_t start = i, j;
    if (i < len && s[i] == '-')
        i++;
    if (i < len && s[i] == '0')
        i++;
    else if (i < len && s[i] >= '1' && s[i] <= '9')
        i = digits(s, len, i);
    else
        return 0;
    if (i < len && s[i] == '.') {
        if ((j = digits(s, len, i + 1)) == i + 1)
            return 0;
        i = j;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        if ((j = digits(s, len, i)) == i)
            return 0;
        i = j;
    }
    return i > start ? i : 0;
}

/* One step at s[*i] (not whitespace) in state *ex; false when the text is not JSON there. */
static bool step(const char *s, size_t len, size_t *i, enum expect *ex, struct stack *st)
{
    char c = s[*i];
    char top = st->count ? st->data[st->count - 1] : 0;
    size_t next = *i + 1;
    switch (*ex) {
    case VALUE_OR_CLOSE:
    case VALUE:
        if (*ex == VALUE_OR_CLOSE && c == ']')
            st->count--, *ex = NEXT;
        else if (c == '[' || c == '{')
            *ex = c == '[' ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
        else if (c == '"')
            next = scan_string(s, len, *i), *ex = NEXT;
        else
            next = scan_scalar(s, len, *i), *ex = NEXT;
        if ((c == '[' || c == '{') && !push(st, c))
            return false;
        break;
    case KEY_OR_CLOSE:
    case KEY:
        if (*ex == KEY_OR_CLOSE && c == '}')
            st->count--, *ex = NEXT;
        else if (c == '"')
            next = scan_string(s, len, *i), *ex = COLON;
        else
            return false;
        break;
    case COLON:
        if (c != ':')
            return false;
        *ex = VALUE;
        break;
    case NEXT:
        if (c == ',' && top)
            *ex = top == '[' ? VALUE : KEY;
        else if (top && c == (top == '[' ? ']' : '}'))
            st->count--;
        else
            return false;
        break;
    }
    *i = next;
    return next != 0;
}

bool sbx__json_text_is_valid(const char *s, size_t len)
{
    if (!s || !sbx__utf8_is_valid(s, len))
        return false;
    struct stack st = {0};
    enum expect ex = VALUE;
    size_t i = 0;
    bool ok = true;
    for (;;) {
        while (i < len && is_ws(s[i]))
            i++;
        if (i == len)
            break;
        if (!step(s, len, &i, &ex, &st)) {
            ok = false;
            break;
        }
    }
    sbx__free(st.data);
    return ok && ex == NEXT && st.count == 0;
}

static bool is_high(int cp)
{
    return cp >= 0xD800 && cp <= 0xDBFF;
}

static bool is_low(int cp)
{
    return cp >= 0xDC00 && cp <= 0xDFFF;
}

size_t sbx__json_text_replace_lone_surrogates(char *s, size_t len)
{
    size_t fixed = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"') {
            in_string = !in_string;
        } else if (in_string && s[i] == '\\' && i + 1 < len) {
            int cp = s[i + 1] == 'u' ? hex4(s + i + 2, len - i - 2) : -1;
            if (is_high(cp) && i + 11 < len && s[i + 6] == '\\' && s[i + 7] == 'u' &&
                is_low(hex4(s + i + 8, len - i - 8))) {
                i += 11; /* a pair: kept */
            } else if (is_high(cp) || is_low(cp)) {
                memcpy(s + i + 2, "fffd", 4);
                fixed++;
                i += 5;
            } else {
                i += 1; /* the escaped character */
            }
        }
    }
    return fixed;
}
