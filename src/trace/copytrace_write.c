/* copytrace_write.c - rows of memory_copy_trace.csv (schema: copytrace.h).
 * Strings quoted and numbers bare, as rocprofv3's CSV writer does.
 */
#include "trace/copytrace.h"

const char ct_header[] =
    "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\","
    "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Bytes\"\n";

static const char *const dir_names[CT_NDIR] = {
    "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE",
    "MEMORY_COPY_DEVICE_TO_DEVICE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_SET_DEVICE",
};
static const char *const dir_labels[CT_NDIR] = { "H2D", "D2H", "D2D", "P2P", "H2H", "set" };

const char *ct_dir_name(enum ct_dir d)
{
    return (unsigned)d < CT_NDIR ? dir_names[d] : "";
}

const char *ct_dir_label(enum ct_dir d)
{
    return (unsigned)d < CT_NDIR ? dir_labels[d] : "";
}

static void agent(FILE *fp, int32_t a)
{
    if (a == CT_HOST)
        fputs("\"Host\"", fp);
    else
        fprintf(fp, "\"Agent %d\"", (int)a);
}

int ct_write_row(FILE *fp, const struct ct_copy *c)
{
    fprintf(fp, "\"%s\",\"%s\",%llu,", c->dir == CT_SET ? "MEMORY_SET" : "MEMORY_COPY",
            ct_dir_name(c->dir), (unsigned long long)c->stream);
    agent(fp, c->src_agent);
    fputc(',', fp);
    agent(fp, c->dst_agent);
    int n = fprintf(fp, ",%llu,%llu,%llu,", (unsigned long long)c->correlation,
                    (unsigned long long)c->start_ns, (unsigned long long)c->end_ns);
    if (c->bytes != CT_BYTES_UNKNOWN)
        n = fprintf(fp, "%llu", (unsigned long long)c->bytes);
    fputc('\n', fp);
    return n < 0 || ferror(fp) ? -1 : 0;
}
