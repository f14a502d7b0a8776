/* core/policy_json.h: conversion between a resolved policy and its JSON form (jansson). */
#ifndef SBX_CORE_POLICY_JSON_H
#define SBX_CORE_POLICY_JSON_H

#include <jansson.h>

#include "core/policy.h"

/* Validates a JSON object into a new policy (the one validation path for parse and with). */
sbx_err sbx__policy_from_json(const json_t *root, struct sbx_policy **out, char *err,
                              size_t errlen);

/* Returns the resolved policy as a JSON object with every default filled in, or NULL. */
json_t *sbx__policy_to_jobj(const struct sbx_policy *p);

/* Formats a one-line message into buf: control characters in what the user wrote are escaped. */
void sbx__policy_message(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Says "out of memory" in err; returns SBX_E_NOMEM. */
sbx_err sbx__policy_nomem(char *err, size_t errlen);

#endif
