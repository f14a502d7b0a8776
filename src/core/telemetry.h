/* core/telemetry.h: how the tiers emit spans and metrics through the installed hooks.
 * Each call is one atomic load when no hooks are installed. */
#ifndef SBX_CORE_TELEMETRY_H
#define SBX_CORE_TELEMETRY_H

#include <stdbool.h>

#include <sbx/telemetry.h>

/* Returns the installed hooks, or NULL. */
const sbx_telemetry_hooks *sbx__telemetry_hooks(void);

/* Counts one policy denial: plugin.permission_denied_total{capability}. */
void sbx__telemetry_denied(const char *capability);

#endif
