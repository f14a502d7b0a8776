/* jail/plan.h: parent-side building of a struct sbx__jail_spec (mount list, Landlock rules, argv,
 * environment). Everything the child reads is allocated here, before clone3. */
#ifndef SBX_JAIL_PLAN_H
#define SBX_JAIL_PLAN_H

#include "jail/jail.h"

/* Plans the guest filesystem under spec->root_dir: system binds, /proc, /dev, /tmp, the
 * read-only run input directory at /sbx (input_dir may be NULL) and the policy's fs grants.
 * A missing grant source gives SBX_E_INVALID_OPTIONS with the reason in err. */
sbx_err sbx__jail_plan_fs(struct sbx__jail_spec *spec, const struct sbx_policy *p,
                          const char *input_dir, char *err, size_t errlen);

/* Plans argv, the environment (policy->env only) and the exec candidates for argv[0]. */
sbx_err sbx__jail_plan_exec(struct sbx__jail_spec *spec, const struct sbx_policy *p,
                            const char *const *argv);

/* Finds the host program's argv area for pid 1 to overwrite (spec->title_*); read once from
 * /proc/self/stat, left empty when it cannot be read. */
void sbx__jail_plan_title(struct sbx__jail_spec *spec);

/* Frees what the plan functions allocated; safe on a zeroed or partly built spec. */
void sbx__jail_plan_free(struct sbx__jail_spec *spec);

#endif
