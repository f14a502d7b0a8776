/* core/telemetry.c: the process-wide hook table. Readers take one acquire load, so the cost
 * with no hooks installed is a load and a branch per instrument. */
#include "core/telemetry.h"

#include <stdatomic.h>
#include <stddef.h>

static sbx_telemetry_hooks installed;
static _Atomic(const sbx_telemetry_hooks *) current;

void sbx_telemetry_set_hooks(const sbx_telemetry_hooks *hooks)
{
    if (!hooks) {
        atomic_store_explicit(&current, NULL, memory_order_release);
        return;
    }
    installed = *hooks;
    atomic_store_explicit(&current, &installed, memory_order_release);
}

const sbx_telemetry_hooks *sbx__telemetry_hooks(void)
{
    return atomic_load_explicit(&current, memory_order_acquire);
}

void sbx__telemetry_denied(const char *capability)
{
    const sbx_telemetry_hooks *h = sbx__telemetry_hooks();
    if (!h || !h->counter_add)
        return;
    sbx_attr attr = {"capability", capability ? capability : "unknown"};
    h->counter_add(h->user, "plugin.permission_denied_total", 1, &attr, 1);
}
