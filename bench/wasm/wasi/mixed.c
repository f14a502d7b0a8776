/* bench/wasm/wasi/mixed.c: a mixed workload: formats and parses strings, counts words in an
 * open-addressing hash table, then sorts the entries with qsort. ROUNDS sets the size. bench()
 * returns the checksum; run-wasi.sh links it with main.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ROUNDS
#define ROUNDS 300
#endif
#define WORDS 10000
#define SLOTS (1u << 14)

struct entry {
    char key[24];
    uint32_t count;
};

static struct entry table[SLOTS];

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (uint8_t)*s++) * 16777619u;
    return h;
}

static void add(const char *w)
{
    for (uint32_t i = hash(w) & (SLOTS - 1);; i = (i + 1) & (SLOTS - 1)) {
        if (!table[i].key[0]) {
            strncpy(table[i].key, w, sizeof(table[i].key) - 1);
            table[i].count = 1;
            return;
        }
        if (strcmp(table[i].key, w) == 0) {
            table[i].count++;
            return;
        }
    }
}

static int by_count(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->key, y->key);
}

static uint32_t round_once(uint32_t seed, char *text, size_t cap)
{
    size_t len = 0;
    for (int i = 0; i < WORDS; i++) {
        seed = seed * 1103515245u + 12345u;
        len += (size_t)snprintf(text + len, cap - len, "w%u-%x ", (seed >> 16) % 5000, i % 7);
    }
    memset(table, 0, sizeof(table));
    for (char *p = text, *end; *p; p = end + 1) {
        end = strchr(p, ' ');
        *end = '\0';
        add(p);
    }
    size_t n = 0;
    for (uint32_t i = 0; i < SLOTS; i++)
        if (table[i].key[0])
            table[n++] = table[i];
    qsort(table, n, sizeof(table[0]), by_count);
    return (uint32_t)strtoul(table[0].key + 1, NULL, 10) + table[0].count + (uint32_t)n;
}

int bench(void)
{
    size_t cap = (size_t)WORDS * 24;
    char *text = malloc(cap);
    if (!text)
        return -1;
    uint32_t sum = 0;
    for (int r = 0; r < ROUNDS; r++)
        sum += round_once((uint32_t)r * 7919u, text, cap);
    free(text);
    return (int)sum;
}
