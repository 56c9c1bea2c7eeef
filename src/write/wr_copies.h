/* wr_copies.h - the memory copy part of analyze's outputs (wr_copies.c):
 * summary.json "copies" (source, files, totals, by_direction H2D/D2H/D2D/
 * P2P/H2H/set with copies, bytes, copies_without_bytes, time_s, GB_per_s,
 * per_pass) and report.md's "benchrun: memory copies and sets" section. */
#ifndef BR_WRITE_WR_COPIES_H
#define BR_WRITE_WR_COPIES_H

#include <jansson.h>
#include <stdio.h>

#include "write/analysis.h"

/* The "copies" object, or JSON null when no input has a copy trace. */
json_t *wr_copies_json(const struct wr_info *in);
void wr_copies_md(FILE *fp, const struct wr_info *in);

#endif
