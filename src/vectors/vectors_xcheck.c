/* vectors_xcheck.c - the seed's optional inst_power cross-check: with
 * --dendrogram-dir DIR (or $DENDROGRAM_DIR), run minos-analysis'
 * DIR/dendrogram.py calculate_power_distribution() (python3) on the same
 * samples the vectors were binned from (the kept samples of every GPU, in a
 * temporary CSV with the telemetry columns) and record in cross_check whether
 * its inst_power equals benchrun's ("matched" / "differs"), as the seed's
 * build_sampling_json.py does; without a folder it says "none".
 *
 * The call is calculate_power_distribution(df) with df a pandas DataFrame of
 * those samples (a dict of column lists when pandas is missing), returning
 * the fractions per bin: the seed README says the function reads the
 * inst_power_W column (older versions read power_from_e: that KeyError is an
 * error here too). minos-analysis is not public; this interface is inferred
 * from the seed's README, not read from its code.
 */
#include "vectors/vectors_int.h"

#include "read/telemetry.h"
#include "util/error.h"
#include "util/textesc.h"
#include "util/fsutil.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char none_text[] =
    "none: dendrogram.py not given (--dendrogram-dir / $DENDROGRAM_DIR); inst_power from the "
    "built-in binning, which implements the same algorithm";

static const char bridge[] =
    "import json, sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "import dendrogram\n"
    "try:\n"
    "    import pandas\n"
    "    df = pandas.read_csv(sys.argv[2])\n"
    "except ImportError:\n"
    "    import csv\n"
    "    with open(sys.argv[2]) as f:\n"
    "        rows = list(csv.DictReader(f))\n"
    "    df = {k: [float(r[k]) for r in rows] for k in (rows[0] if rows else {})}\n"
    "v = dendrogram.calculate_power_distribution(df)\n"
    "print(json.dumps([float(x) for x in v]))\n";

static void put_num(FILE *fp, double v, bool last)
{
    if (isnan(v))
        fputs("nan", fp);
    else
        fprintf(fp, "%.17g", v);
    fputc(last ? '\n' : ',', fp);
}

/* The kept samples of every GPU, as vec_compute kept them, into the
 * temporary file fd (path for messages). */
static int write_samples(const struct vec_result *r, int fd, const char *path)
{
    FILE *fp = fdopen(fd, "w");
    if (!fp) {
        close(fd);
        return br_error("cannot write '%s'", path);
    }
    fputs("timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,"
          "hotspot_temp_C\n", fp);
    static const enum telem_col cols[5] = { TELEM_SOCKET_POWER, TELEM_INST_POWER,
        TELEM_GFX_CLOCK, TELEM_EDGE_TEMP, TELEM_HOTSPOT_TEMP };
    int rc = 0;
    for (size_t i = 0; i < r->ngpus && rc == 0; i++) {
        int64_t ws, we;
        bool trim = vec_gpu_window(r, &r->gpus[i], &ws, &we);
        struct br_telem *t = br_telem_open(r->gpus[i].path);
        if (!t) {
            rc = -1;
            break;
        }
        struct br_telem_row row;
        while ((rc = br_telem_next(t, &row)) > 0) {
            if (trim && (row.timestamp_ns < ws || row.timestamp_ns > we))
                continue;
            fprintf(fp, "%lld,", (long long)row.timestamp_ns);
            for (int c = 0; c < 5; c++)
                put_num(fp, row.v[cols[c]], c == 4);
        }
        rc = rc < 0 ? -1 : 0;
        br_telem_close(t);
    }
    if (fclose(fp) != 0 && rc == 0)
        rc = br_error("cannot write '%s'", path);
    return rc;
}

/* The last non-empty line of text (python's error), for the message. */
static const char *last_line(struct strbuf *sb)
{
    while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
        sb->buf[--sb->len] = '\0';
    char *nl = strrchr(sb->buf, '\n');
    return nl ? nl + 1 : sb->buf;
}

/* Compares dendrogram.py's vector (JSON list in out) with benchrun's pooled
 * inst_power, both rounded to 4 decimals as the vectors are written. */
static int compare(struct vec_result *r, const char *dir, const char *out)
{
    json_error_t err;
    json_t *theirs = json_loads(out, 0, &err);
    if (!json_is_array(theirs)) {
        json_decref(theirs);
        return br_error("%s/dendrogram.py: calculate_power_distribution did not give a list "
                        "of numbers (got '%.80s')", dir, out);
    }
    const struct vec_hist *h = &r->pooled[0];   /* inst_power */
    size_t n = r->nedges[0] - 1, k = json_array_size(theirs);
    json_t *ours = json_array();
    double maxd = 0;
    bool same = k == n;
    for (size_t i = 0; i < n; i++) {
        double a = vec_fraction(h, i);
        json_array_append_new(ours, json_real(isnan(a) ? 0 : a));
        if (i < k) {
            double b = vec_round4(json_number_value(json_array_get(theirs, i)));
            maxd = fmax(maxd, fabs(a - b));
            same = same && a == b;
        }
    }
    free(r->cross_check);
    r->cross_check = same
        ? xasprintf("matched: %s/dendrogram.py calculate_power_distribution gives the same "
                    "inst_power (%zu bins)", dir, n)
        : xasprintf("differs: %s/dendrogram.py calculate_power_distribution gives another "
                    "inst_power (%zu bins, benchrun %zu, largest difference %.4f)", dir, k, n, maxd);
    r->cross_check_detail = json_pack("{s:o, s:s, s:o, s:o, s:b}", "dendrogram_dir", esc_json_string(dir),
        "function", "calculate_power_distribution(df)", "dendrogram_inst_power", theirs,
        "benchrun_inst_power", ours, "matched", same);
    return 0;
}

int vec_cross_check(const struct vec_opts *o, struct vec_result *r)
{
    const char *dir = o->dendrogram_dir;
    if (!dir || !*dir) {
        r->cross_check = xstrdup(none_text);
        return 0;
    }
    char *py = fs_path_join(dir, "dendrogram.py");
    if (!fs_exists(py)) {
        free(py);
        return br_error("no dendrogram.py in '%s' (--dendrogram-dir or $DENDROGRAM_DIR): fix the "
                        "folder, or unset it to skip the cross-check", dir);
    }
    free(py);
    char *csv = xasprintf("%s/benchrun-xcheck-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int fd = mkstemp(csv);
    int rc = fd < 0 ? br_error("cannot create a temporary file '%s'", csv)
                    : write_samples(r, fd, csv);
    struct strbuf out, errb;
    sb_init(&out);
    sb_init(&errb);
    int status = 0;
    if (rc == 0) {
        const char *argv[] = { "python3", "-c", bridge, dir, csv, NULL };
        rc = proc_capture(argv, &out, &errb, &status);
    }
    if (rc == 0 && status == 127)
        rc = br_error("--dendrogram-dir: python3 not found (it runs dendrogram.py)");
    else if (rc == 0 && status != 0)
        rc = br_error("%s/dendrogram.py failed: %s%s", dir, last_line(&errb),
                      strstr(errb.buf, "power_from_e") ? " (that dendrogram.py predates "
                      "inst_power_W: drop --dendrogram-dir, the vectors do not need it)" : "");
    else if (rc == 0)
        rc = compare(r, dir, out.buf);
    if (fd >= 0)
        unlink(csv);
    free(csv);
    sb_release(&out);
    sb_release(&errb);
    return rc;
}
