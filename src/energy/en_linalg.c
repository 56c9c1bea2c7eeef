/* en_linalg.c - the fit's small dense linear algebra (en_int.h): inverse of a
 * symmetric positive definite matrix through its Cholesky factor, and the
 * eigen decomposition of a symmetric matrix by cyclic Jacobi rotations
 * (G. H. Golub, C. F. Van Loan, Matrix Computations, 4th ed., §4.2 and
 * §8.5). Matrices are p x p row-major with p at most a few dozen, so the
 * O(p^3) methods cost nothing next to building them.
 */
#include "energy/en_int.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int en_spd_inverse(double *a, uint32_t p)
{
    /* a = L Lᵀ, L in the lower triangle. */
    for (uint32_t j = 0; j < p; j++) {
        double d = a[j * p + j];
        for (uint32_t k = 0; k < j; k++)
            d -= a[j * p + k] * a[j * p + k];
        if (!(d > 0))
            return -1;
        d = sqrt(d);
        a[j * p + j] = d;
        for (uint32_t i = j + 1; i < p; i++) {
            double s = a[i * p + j];
            for (uint32_t k = 0; k < j; k++)
                s -= a[i * p + k] * a[j * p + k];
            a[i * p + j] = s / d;
        }
    }
    /* L⁻¹ in place (lower triangle). */
    for (uint32_t j = 0; j < p; j++) {
        a[j * p + j] = 1.0 / a[j * p + j];
        for (uint32_t i = j + 1; i < p; i++) {
            double s = 0;
            for (uint32_t k = j; k < i; k++)
                s -= a[i * p + k] * a[k * p + j];
            a[i * p + j] = s / a[i * p + i];
        }
    }
    /* a⁻¹ = L⁻ᵀ L⁻¹, symmetric. */
    double *inv = xcalloc((size_t)p * p + 1, sizeof(*inv));
    for (uint32_t i = 0; i < p; i++)
        for (uint32_t j = 0; j <= i; j++) {
            double s = 0;
            for (uint32_t k = i; k < p; k++)
                s += a[k * p + i] * a[k * p + j];
            inv[i * p + j] = inv[j * p + i] = s;
        }
    memcpy(a, inv, (size_t)p * p * sizeof(*a));
    free(inv);
    return 0;
}

void en_sym_eigen(double *a, uint32_t p, double *w, double *v)
{
    for (uint32_t i = 0; i < p; i++)
        for (uint32_t j = 0; j < p; j++)
            v[i * p + j] = i == j;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, diag = 0;
        for (uint32_t i = 0; i < p; i++)
            for (uint32_t j = 0; j < p; j++) {
                double sq = a[i * p + j] * a[i * p + j];
                if (i == j)
                    diag += sq;
                else
                    off += sq;
            }
        if (off <= 1e-30 * diag || off == 0)
            break;
        for (uint32_t k = 0; k + 1 < p; k++)
            for (uint32_t l = k + 1; l < p; l++) {
                double akl = a[k * p + l];
                if (akl == 0)
                    continue;
                /* Rotation angle that zeroes a[k][l]. */
                double theta = (a[l * p + l] - a[k * p + k]) / (2 * akl);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (uint32_t i = 0; i < p; i++) {
                    double aik = a[i * p + k], ail = a[i * p + l];
                    a[i * p + k] = c * aik - s * ail;
                    a[i * p + l] = s * aik + c * ail;
                }
                for (uint32_t i = 0; i < p; i++) {
                    double aki = a[k * p + i], ali = a[l * p + i];
                    a[k * p + i] = c * aki - s * ali;
                    a[l * p + i] = s * aki + c * ali;
                }
                for (uint32_t i = 0; i < p; i++) {
                    double vik = v[i * p + k], vil = v[i * p + l];
                    v[i * p + k] = c * vik - s * vil;
                    v[i * p + l] = s * vik + c * vil;
                }
            }
    }
    for (uint32_t i = 0; i < p; i++)
        w[i] = a[i * p + i];
}
