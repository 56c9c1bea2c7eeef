/* nodepath.c - node of a trace file (folder name) and of a telemetry file
 * (metadata "node"); contract in nodepath.h. */
#include "read/nodepath.h"

#include "read/telemetry.h"
#include "util/xalloc.h"

#include <string.h>

/* path without the root prefix and its '/' (the whole path when not under root). */
static const char *below(const char *root, const char *path)
{
    size_t n = root ? strlen(root) : 0;
    while (n > 1 && root[n - 1] == '/')
        n--;
    if (n && strncmp(path, root, n) == 0 && path[n] == '/')
        return path + n + 1;
    return path;
}

bool rp_path_in_node(const char *root, const char *path, const char *node)
{
    size_t len = node ? strlen(node) : 0;
    if (len == 0)
        return false;
    const char *s = below(root, path);
    for (const char *slash; (slash = strchr(s, '/')); s = slash + 1)
        if ((size_t)(slash - s) == len && strncmp(s, node, len) == 0)
            return true;
    return false;
}

char *rp_telem_node(const char *path)
{
    struct br_telem *t = br_telem_open(path);
    if (!t)
        return NULL;
    const char *v = br_telem_meta(t, "node");
    char *node = v && *v && strcmp(v, "none") != 0 ? xstrdup(v) : NULL;
    br_telem_close(t);
    return node;
}
