/* error.c - error and warning printing, with an optional capture sink. */
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>

static br_error_sink g_sink;
static void *g_sink_ctx;

void br_error_set_sink(br_error_sink sink, void *ctx)
{
    g_sink = sink;
    g_sink_ctx = ctx;
}

void br_error_get_sink(br_error_sink *sink, void **ctx)
{
    *sink = g_sink;
    *ctx = g_sink_ctx;
}

static void emit(int is_warning, const char *prefix, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void emit(int is_warning, const char *prefix, const char *fmt, va_list ap)
{
    char buf[4096];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    if (g_sink) {
        g_sink(g_sink_ctx, is_warning, buf);
        return;
    }
    fprintf(stderr, "benchrun: %s%s\n", prefix, buf);
}

int br_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(0, "", fmt, ap);
    va_end(ap);
    return -1;
}

void br_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(1, "warning: ", fmt, ap);
    va_end(ap);
}

int br_error_at(const char *file, long line, long col, const char *fmt, ...)
{
    char where[1024];
    if (line > 0 && col > 0)
        snprintf(where, sizeof(where), "%s:%ld:%ld: ", file, line, col);
    else if (line > 0)
        snprintf(where, sizeof(where), "%s:%ld: ", file, line);
    else
        snprintf(where, sizeof(where), "%s: ", file);
    va_list ap;
    va_start(ap, fmt);
    char msg[4096];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return br_error("%s%s", where, msg);
}
