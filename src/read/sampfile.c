/* sampfile.c - read and write <pass>/launch_sampling.json (sampfile.h). */
#include "read/sampfile.h"

#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A non-negative integer member; -1 (printed) when absent or not one. */
static int member(const char *name, json_t *o, const char *key, uint64_t *v)
{
    json_t *j = json_object_get(o, key);
    if (!json_is_integer(j) || json_integer_value(j) < 0)
        return br_error("%s: \"%s\": expected a non-negative integer", name, key);
    *v = (uint64_t)json_integer_value(j);
    return 0;
}

int sf_parse(const char *name, const char *text, size_t len, bool *sampled,
             struct xp_sampling *s)
{
    json_error_t je;
    json_t *o = json_loadb(text, len, 0, &je);
    if (!o)
        return br_error_at(name, je.line, je.column, "%s", je.text);
    int rc = 0;
    const char *mode = json_string_value(json_object_get(o, "launches"));
    if (!json_is_object(o) || !mode) {
        rc = br_error("%s: expected an object with \"launches\": \"all\" or \"sampled\"", name);
    } else if (!strcmp(mode, "all")) {
        *sampled = false;
    } else if (!strcmp(mode, "sampled")) {
        struct xp_sampling n;
        const char *unit = json_string_value(json_object_get(o, "unit"));
        json_t *td = json_object_get(o, "trace_durations");
        if (member(name, o, "first", &n.plan.first) || member(name, o, "every", &n.plan.every) ||
            member(name, o, "blocks_per_phase", &n.plan.blocks_per_phase) ||
            member(name, o, "seed", &n.plan.seed)) {
            rc = -1;
        } else if (n.plan.every == 0) {
            rc = br_error("%s: \"every\" must be at least 1", name);
        } else if (!unit || (strcmp(unit, "signature") && strcmp(unit, "kernel"))) {
            rc = br_error("%s: \"unit\": expected \"signature\" or \"kernel\"", name);
        } else if (td && (!json_is_string(td) || (strcmp(json_string_value(td), "kernel") &&
                                                  strcmp(json_string_value(td), "launch events")))) {
            rc = br_error("%s: \"trace_durations\": expected \"kernel\" or \"launch events\"", name);
        } else {
            n.unit = strcmp(unit, "kernel") ? XP_UNIT_SIGNATURE : XP_UNIT_KERNEL;
            n.kernel_times = !td || !strcmp(json_string_value(td), "kernel");
            *s = n;
            *sampled = true;
        }
    } else {
        rc = br_error("%s: \"launches\": expected \"all\" or \"sampled\", got \"%s\"", name, mode);
    }
    json_decref(o);
    return rc;
}

int sf_load(const char *dir, bool *sampled, struct xp_sampling *s)
{
    *sampled = false;
    char *path = fs_path_join(dir, SF_FILE);
    if (!fs_exists(path)) {
        free(path);
        return 0;
    }
    size_t len = 0;
    char *text = fs_read_file(path, &len);
    int rc = text ? sf_parse(path, text, len, sampled, s) : br_error("cannot read '%s'", path);
    free(text);
    free(path);
    return rc;
}

char *sf_format(const struct xp_sampling *s, const char *collector)
{
    json_t *o = s ? json_pack("{s:s, s:I, s:I, s:I, s:I, s:s, s:s, s:s}", "launches", "sampled",
                              "first", (json_int_t)s->plan.first, "every",
                              (json_int_t)s->plan.every, "blocks_per_phase",
                              (json_int_t)s->plan.blocks_per_phase, "seed",
                              (json_int_t)s->plan.seed, "unit",
                              s->unit == XP_UNIT_KERNEL ? "kernel" : "signature", "collector",
                              collector ? collector : "", "trace_durations",
                              s->kernel_times ? "kernel" : "launch events")
                  : json_pack("{s:s}", "launches", "all");
    char *js = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    char *text = xasprintf("%s\n", js);
    free(js);
    json_decref(o);
    return text;
}
