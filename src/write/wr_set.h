/* wr_set.h - an output folder written as a set: every file goes
 * into a hidden sibling folder .<out>.tmp.<pid>, which replaces the output
 * folder in one step once all are complete (fs_replace_dir: an atomic
 * exchange on Linux), so a kill or a full disk leaves the previous set
 * whole, never new CSVs beside an old report.html.
 *
 *   char *tmp = NULL;
 *   if (wr_set_begin(out, &tmp) == 0) { write files into tmp ...; wr_set_commit(out, &tmp); }
 *   wr_set_abort(&tmp);                 // after a failure: removes tmp (no-op once committed)
 *
 * Files someone else put in the old folder are carried over (hard links).
 * An existing folder that is not an analysis (files but no summary.json)
 * or holds a subfolder is refused, since it is replaced as a whole. The
 * temporary folders of killed runs (their pid is gone) are removed by the
 * next wr_set_begin. */
#ifndef BR_WRITE_WR_SET_H
#define BR_WRITE_WR_SET_H

/* Checks out_dir, creates the temporary folder (*tmp, allocated). 0 or -1. */
int wr_set_begin(const char *out_dir, char **tmp);
/* The same for another command's set: cmd and kind name it in messages
 * ("energy", "an energy"), marker is the file that marks its folders
 * (analyze: summary.json). */
int wr_set_begin_for(const char *out_dir, const char *cmd, const char *kind, const char *marker,
                     char **tmp);
/* Puts *tmp in place of out_dir; frees and clears *tmp. 0 or -1 (printed). */
int wr_set_commit(const char *out_dir, char **tmp);
/* Removes an uncommitted *tmp and its files; frees and clears it. */
void wr_set_abort(char **tmp);

#endif
