/* telemetry/text.h: escaping for the two wire formats. Label values and span attributes can come
 * from a guest (capability names), so every string is emitted as valid UTF-8: an invalid byte
 * becomes U+FFFD rather than corrupting the document. */
#ifndef SBX_TELEMETRY_TEXT_H
#define SBX_TELEMETRY_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"

/* Appends a string literal. */
#define SBX__LIT(b, lit) sbx__buf_append((b), "" lit, sizeof(lit) - 1)

/* Appends s as a quoted JSON string. */
bool sbx__telemetry_json_string(struct sbx__buf *b, const char *s);
/* Appends s unescaped, with invalid UTF-8 repaired (a protobuf string). */
bool sbx__telemetry_utf8(struct sbx__buf *b, const char *s);
/* Appends v as a JSON string of decimal digits (the OTLP/JSON form of 64-bit integers). */
bool sbx__telemetry_json_u64(struct sbx__buf *b, uint64_t v);
/* Appends a finite double in the shortest form that round-trips. */
bool sbx__telemetry_json_double(struct sbx__buf *b, double v);
/* Appends s escaped as a Prometheus label value (\\, \" and \n), without quotes. */
bool sbx__telemetry_prom_label_value(struct sbx__buf *b, const char *s);
/* Appends s escaped as Prometheus HELP text (\\ and \n). */
bool sbx__telemetry_prom_help(struct sbx__buf *b, const char *s);
/* Appends s as a Prometheus metric (or, with is_label, label) name: characters outside
 * [a-zA-Z0-9_:] become '_', runs of '_' collapse, a leading digit gets a '_' prefix. */
bool sbx__telemetry_prom_name(struct sbx__buf *b, const char *s, bool is_label);

#endif
