/* sbx.h: the public API of libsbx, which runs untrusted code under a declared permission
 * policy in one of three tiers (worker, process, wasm). See README.md and docs/. */
#ifndef SBX_H
#define SBX_H

#include "sbx/error.h"
#include "sbx/policy.h"
#include "sbx/sandbox.h"
#include "sbx/telemetry.h"
#include "sbx/wasm.h"
#include "sbx/plugin.h"

#endif
