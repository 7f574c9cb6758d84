/*
 * A command prefix that starts ranks through another program: `qemu-s390x` for ranks of
 * another architecture, `numactl -l`, `valgrind -q`, a container runtime. The rank's argv
 * becomes the prefix's words followed by the program and its arguments; the first word is
 * what is executed (looked up in PATH like a program). Given as `mpirun --exec-prefix` /
 * METAMPI_EXEC_PREFIX for every rank, or as `exec_prefix` of a site in the metacomputer
 * description (docs/launcher.md, docs/metacomputer.md).
 *
 * Words are separated by blanks (spaces, tabs); nothing is quoted or expanded, so a prefix
 * with a quote or a backslash is refused rather than split in a way the user did not mean.
 */
#ifndef LAUNCH_EXEC_PREFIX_H
#define LAUNCH_EXEC_PREFIX_H

#include <stddef.h>

#define EXEC_PREFIX_MAX 1024   /* characters of one prefix */

/* 0 when text is a usable prefix (at least one word, at most EXEC_PREFIX_MAX characters, no
 * quote, backslash or control character); -1 with the reason in err (no trailing period,
 * e.g. "contains a quote or backslash ('): words are separated by blanks, nothing is
 * quoted"). */
int exec_prefix_check(const char *text, char *err, size_t errlen);

/* The argv of a rank started through prefix (checked): its words, then prog_argv's entries
 * (NULL-terminated). One allocation: free() releases it all. prefix NULL or blank: a copy of
 * prog_argv's pointers. */
char **exec_prefix_argv(const char *prefix, char *const *prog_argv);

#endif
