/* cmp_dendro.c - leaf order and link colours of a dendrogram, as
 * scipy.cluster.hierarchy.dendrogram(Z) decides them with its defaults
 * (no truncation, no count/distance sort; scipy 1.10 hierarchy.py
 * _dendrogram_calculate_info): a depth-first walk from the root, left child
 * Z[i][0] before right child Z[i][1]. Each link's colour is chosen between
 * its two subtrees: at or above the threshold it is "C0" and, if the walk
 * was below the threshold, the palette moves on; below it the link takes
 * the current palette colour ("C1".."C9", cycling). The threshold defaults
 * to 0.7 x the largest height (scipy's color_threshold=None).
 *
 * The walk uses an explicit stack, so a chain of thousands of merges does
 * not exhaust the C stack.
 */
#include "compare/compare.h"

#include "util/error.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* matplotlib's default property cycle (tab10), "C0".."C9". */
static const char *const tab10[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };
static const char *const cnames[] = { "C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9" };
enum { PALETTE = 9 };   /* below-threshold colours C1..C9 */

const char *cmp_color_name(int c)
{
    return cnames[c >= 0 && c < 10 ? c : 0];
}

const char *cmp_color_hex(int c)
{
    return tab10[c >= 0 && c < 10 ? c : 0];
}

struct frame {
    size_t node;
    int phase;     /* 0: left subtree next, 1: colour, right next, 2: done */
};

struct walk {
    double t;
    int current;   /* palette index 0..8 */
    bool below;    /* the last link coloured was below t */
};

static int link_colour(struct walk *w, double h)
{
    if (h >= w->t || w->t <= 0) {
        if (w->below)
            w->current = (w->current + 1) % PALETTE;
        w->below = false;
        return 0;
    }
    w->below = true;
    return w->current + 1;
}

/* Each input's cluster: its highest ancestor whose link lies below the
 * threshold (itself when its parent link is at or above it). */
static void flat_clusters(double (*Z)[4], size_t n, struct cmp_dendro *d)
{
    size_t *parent = xmalloc((2 * n - 1) * sizeof(*parent));
    size_t *num = xmalloc((2 * n - 1) * sizeof(*num));
    for (size_t i = 0; i < 2 * n - 1; i++)
        parent[i] = SIZE_MAX, num[i] = 0;
    for (size_t r = 0; r + 1 < n; r++)
        parent[(size_t)Z[r][0]] = parent[(size_t)Z[r][1]] = n + r;
    d->cluster = xmalloc(n * sizeof(*d->cluster));
    d->cluster_color = xmalloc((n + 1) * sizeof(*d->cluster_color));
    d->cluster_color[0] = 0;
    for (size_t p = 0; p < n; p++) {          /* left to right: clusters numbered in order */
        size_t top = d->leaves[p];
        while (parent[top] != SIZE_MAX && Z[parent[top] - n][2] < d->threshold)
            top = parent[top];
        if (!num[top]) {
            num[top] = ++d->nclusters;
            d->cluster_color[num[top]] = top < n ? 0 : d->link_color[top - n];
        }
        d->cluster[d->leaves[p]] = num[top];
    }
    free(parent);
    free(num);
}

int cmp_dendrogram(double (*Z)[4], size_t n, double threshold, struct cmp_dendro *d)
{
    memset(d, 0, sizeof(*d));
    if (n < 2)
        return br_error("compare: a dendrogram needs at least 2 workloads");
    double mx = Z[0][2];
    for (size_t i = 1; i + 1 < n; i++)
        mx = Z[i][2] > mx ? Z[i][2] : mx;
    struct walk w = { .t = threshold < 0 ? mx * 0.7 : threshold };
    d->threshold = w.t;
    d->leaves = xmalloc(n * sizeof(*d->leaves));
    d->pos = xmalloc(n * sizeof(*d->pos));
    d->link_color = xmalloc((n - 1) * sizeof(*d->link_color));
    d->leaf_color = xmalloc(n * sizeof(*d->leaf_color));
    struct frame *st = xmalloc(n * sizeof(*st));
    size_t sp = 0, nleaves = 0;
    st[sp++] = (struct frame){ 2 * n - 2, 0 };
    while (sp > 0) {
        struct frame *f = &st[sp - 1];
        if (f->node < n) {
            d->pos[f->node] = nleaves;
            d->leaves[nleaves++] = f->node;
            sp--;
        } else if (f->phase == 0) {
            f->phase = 1;
            st[sp++] = (struct frame){ (size_t)Z[f->node - n][0], 0 };
        } else if (f->phase == 1) {
            f->phase = 2;
            d->link_color[f->node - n] = link_colour(&w, Z[f->node - n][2]);
            st[sp++] = (struct frame){ (size_t)Z[f->node - n][1], 0 };
        } else {
            sp--;
        }
    }
    free(st);
    for (size_t r = 0; r + 1 < n; r++)
        for (int side = 0; side < 2; side++)
            if ((size_t)Z[r][side] < n)
                d->leaf_color[(size_t)Z[r][side]] = d->link_color[r];
    flat_clusters(Z, n, d);
    return 0;
}

void cmp_dendro_release(struct cmp_dendro *d)
{
    free(d->cluster), free(d->cluster_color);
    free(d->leaves), free(d->pos), free(d->link_color), free(d->leaf_color);
    memset(d, 0, sizeof(*d));
}
