/* launchunits.c - <prefix>_launch_units.csv rows (launchunits.h). */
#include "read/launchunits.h"

#include <stdbool.h>
#include <string.h>

#include "read/csv.h"

static const char header[] = "Dispatch_Id,Launch_Unit";

int lu_read(struct csv_src *src, lu_row_fn add, void *ud, long *line, const char **what)
{
    const char *l;
    size_t len;
    int rc = csv_next_line(src, &l, &len);
    *line = 1;
    if (rc <= 0) {
        *what = rc < 0 ? "read error" : "empty file (expected the header Dispatch_Id,Launch_Unit)";
        return -1;
    }
    if (len != strlen(header) || memcmp(l, header, len) != 0) {
        *what = "not the header Dispatch_Id,Launch_Unit";
        return -1;
    }
    while ((rc = csv_next_line(src, &l, &len)) > 0) {
        *line = csv_line_no(src);
        if (len == 0)
            continue;
        if (csv_last_unterminated(src))
            return 0;   /* the writer was killed mid-row */
        uint64_t d, u;
        const char *end = l + len, *p = csv_scan_u64(l, end, &d);
        if (!p || p == end || *p != ',' || !(p = csv_scan_u64(p + 1, end, &u)) || p != end) {
            *what = "expected two unsigned numbers: Dispatch_Id,Launch_Unit";
            return -1;
        }
        if (u > UINT32_MAX) {
            *what = "Launch_Unit above 4294967295";
            return -1;
        }
        add(ud, d, u);
    }
    if (rc < 0) {
        *what = "read error";
        return -1;
    }
    return 0;
}
