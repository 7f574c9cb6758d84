#!/bin/sh
# Usage: CC=<compiler> ac_check_func.sh FUNCTION
# Exit status 0 iff FUNCTION links, decided exactly as autoconf's AC_CHECK_FUNC decides it
# (the AC_LANG_FUNC_LINK_TRY program of autoconf 2.71: no header, a dummy prototype, one call,
# then `$CC $CFLAGS $CPPFLAGS $LDFLAGS -o conftest conftest.c $LIBS`). Nothing is assumed about
# the library beyond what the linker sees, which is how configure scripts detect MPI features.
set -u
func=${1:?usage: CC=cc ac_check_func.sh FUNCTION}
: "${CC:?set CC to the compiler to probe}"

dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
cat > "$dir/conftest.c" <<EOC
/* Define $func to an innocuous variant, in case <limits.h> declares $func.  */
#define $func innocuous_$func
#include <limits.h>
#undef $func

/* Override any GCC internal prototype to avoid an error.
   Use char because int might match the return type of a GCC
   builtin and then its argument prototype would still apply.  */
#ifdef __cplusplus
extern "C"
#endif
char $func ();
/* The GNU C library defines this for functions which it implements
    to always fail with ENOSYS.  Some functions are actually named
    something starting with __ and the normal name is an alias.  */
#if defined __stub_$func || defined __stub___$func
choke me
#endif

int
main (void)
{
return $func ();
  ;
  return 0;
}
EOC
# Unquoted on purpose: CC, CFLAGS, LDFLAGS and LIBS are word lists, as in configure.
# shellcheck disable=SC2086
if $CC ${CFLAGS-} ${CPPFLAGS-} ${LDFLAGS-} -o "$dir/conftest" "$dir/conftest.c" ${LIBS-} \
        > "$dir/config.log" 2>&1; then
    echo "checking for $func... yes"
    exit 0
fi
echo "checking for $func... no"
sed 's/^/| /' "$dir/config.log"
exit 1
