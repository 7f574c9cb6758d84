/* The predefined datatypes of MPI-3.1 C (§3.2.2, §5.9.4): size and extent of each against
 * its C type, names (§6.8), MPI_COMBINER_NAMED envelopes, the MINLOC/MAXLOC pair types laid
 * out as their C structs, MPI_Type_match_size, names of derived types (default empty, set,
 * truncated), and what may not be done to predefined types (contents, free). */
#include "dt_check.h"

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

static void check_named(MPI_Datatype t, int size, MPI_Aint extent, MPI_Aint true_extent,
                        const char *name)
{
    char got[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_TYPE(t, size, 0, extent, 0, true_extent);
    CHECK_ENVELOPE(t, 0, 0, 0, MPI_COMBINER_NAMED);
    CHECK_RC(MPI_Type_get_name(t, got, &len), MPI_SUCCESS);
    if (strcmp(got, name) != 0 || len != (int)strlen(name)) {
        fprintf(stderr, "name of %s is \"%s\" (%d)\n", name, got, len);
        CHECK(0);
    }
    /* committing a predefined type is allowed and changes nothing */
    CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
}

#define NAMED(h, ctype) check_named(h, (int)sizeof(ctype), sizeof(ctype), sizeof(ctype), #h)
#define PAIR(h, ctype)                                                                         \
    check_named(h, (int)(sizeof(ctype) + sizeof(int)), sizeof(struct { ctype a; int b; }),     \
                offsetof(struct { ctype a; int b; }, b) + sizeof(int), #h)

static void all_named(void)
{
    NAMED(MPI_CHAR, char);
    NAMED(MPI_SHORT, short);
    NAMED(MPI_INT, int);
    NAMED(MPI_LONG, long);
    NAMED(MPI_LONG_LONG_INT, long long);
    NAMED(MPI_SIGNED_CHAR, signed char);
    NAMED(MPI_UNSIGNED_CHAR, unsigned char);
    NAMED(MPI_UNSIGNED_SHORT, unsigned short);
    NAMED(MPI_UNSIGNED, unsigned);
    NAMED(MPI_UNSIGNED_LONG, unsigned long);
    NAMED(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    NAMED(MPI_FLOAT, float);
    NAMED(MPI_DOUBLE, double);
    NAMED(MPI_LONG_DOUBLE, long double);
    NAMED(MPI_WCHAR, wchar_t);
    NAMED(MPI_C_BOOL, _Bool);
    NAMED(MPI_INT8_T, int8_t);
    NAMED(MPI_INT16_T, int16_t);
    NAMED(MPI_INT32_T, int32_t);
    NAMED(MPI_INT64_T, int64_t);
    NAMED(MPI_UINT8_T, uint8_t);
    NAMED(MPI_UINT16_T, uint16_t);
    NAMED(MPI_UINT32_T, uint32_t);
    NAMED(MPI_UINT64_T, uint64_t);
    NAMED(MPI_C_COMPLEX, float _Complex);
    if (MPI_C_FLOAT_COMPLEX != MPI_C_COMPLEX) /* one handle in MPICH */
        NAMED(MPI_C_FLOAT_COMPLEX, float _Complex);
    NAMED(MPI_C_DOUBLE_COMPLEX, double _Complex);
    NAMED(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    NAMED(MPI_BYTE, unsigned char);
    NAMED(MPI_PACKED, unsigned char);
    NAMED(MPI_AINT, MPI_Aint);
    NAMED(MPI_OFFSET, MPI_Offset);
    NAMED(MPI_COUNT, MPI_Count);
    NAMED(MPI_CXX_BOOL, bool);
    NAMED(MPI_CXX_FLOAT_COMPLEX, float _Complex);
    NAMED(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
    NAMED(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);
    CHECK(MPI_LONG_LONG == MPI_LONG_LONG_INT);

    PAIR(MPI_FLOAT_INT, float);
    PAIR(MPI_DOUBLE_INT, double);
    PAIR(MPI_LONG_INT, long);
    PAIR(MPI_2INT, int);
    PAIR(MPI_SHORT_INT, short);
    PAIR(MPI_LONG_DOUBLE_INT, long double);
}

/* the pair types are usable as building blocks: an array of {double, int} */
static void pairs_in_types(void)
{
    MPI_Datatype v;
    CHECK_RC(MPI_Type_vector(2, 1, 1, MPI_DOUBLE_INT, &v), MPI_SUCCESS);
    CHECK_TYPE(v, 24, 0, 32, 0, 28);
    CHECK_RC(MPI_Type_free(&v), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 16},
                                    (MPI_Datatype[]){MPI_DOUBLE_INT, MPI_CHAR}, &v),
             MPI_SUCCESS);
    CHECK_TYPE(v, 13, 0, 24, 0, 17);
    MPI_Datatype inner[2];
    int ints[3];
    MPI_Aint addrs[2];
    CHECK_RC(MPI_Type_get_contents(v, 3, 2, 2, ints, addrs, inner), MPI_SUCCESS);
    CHECK(inner[0] == MPI_DOUBLE_INT && inner[1] == MPI_CHAR); /* predefined: not freed */
    CHECK_RC(MPI_Type_free(&v), MPI_SUCCESS);
}

static void match_size(void)
{
    static const struct { int cls, size; } ok[] = {
        {MPI_TYPECLASS_INTEGER, 1}, {MPI_TYPECLASS_INTEGER, 2}, {MPI_TYPECLASS_INTEGER, 4},
        {MPI_TYPECLASS_INTEGER, 8}, {MPI_TYPECLASS_REAL, 4},    {MPI_TYPECLASS_REAL, 8},
        {MPI_TYPECLASS_COMPLEX, 8}, {MPI_TYPECLASS_COMPLEX, 16},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        MPI_Datatype t;
        int size;
        CHECK_RC(MPI_Type_match_size(ok[i].cls, ok[i].size, &t), MPI_SUCCESS);
        CHECK_RC(MPI_Type_size(t, &size), MPI_SUCCESS);
        CHECK(size == ok[i].size);
        CHECK_ENVELOPE(t, 0, 0, 0, MPI_COMBINER_NAMED);
    }
#ifdef METAMPI
    /* metampi answers with C types (MPICH with Fortran ones, which it also has) */
    MPI_Datatype t;
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t), MPI_SUCCESS);
    CHECK(t == MPI_INT);
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t), MPI_SUCCESS);
    CHECK(t == MPI_DOUBLE);
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 8, &t), MPI_SUCCESS);
    CHECK(t == MPI_C_FLOAT_COMPLEX);
#endif
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    MPI_Datatype u;
    CHECK_ERR(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &u), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_match_size(MPI_TYPECLASS_REAL, 5, &u), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_match_size(12345, 4, &u), MPI_ERR_ARG);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL), MPI_SUCCESS);
}

static void names(void)
{
    MPI_Datatype t;
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
    CHECK_RC(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    CHECK(len == 0 && name[0] == '\0');
    CHECK_RC(MPI_Type_set_name(t, "pair of ints"), MPI_SUCCESS);
    CHECK_RC(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    CHECK(len == 12 && strcmp(name, "pair of ints") == 0);
    /* a name longer than MPI_MAX_OBJECT_NAME - 1 is truncated */
    char longname[3 * MPI_MAX_OBJECT_NAME];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK_RC(MPI_Type_set_name(t, longname), MPI_SUCCESS);
    CHECK_RC(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len);
    /* a dup does not inherit the name */
    MPI_Datatype d;
    CHECK_RC(MPI_Type_set_name(t, "original"), MPI_SUCCESS);
    CHECK_RC(MPI_Type_dup(t, &d), MPI_SUCCESS);
    CHECK_RC(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "original") == 0);
    CHECK_RC(MPI_Type_free(&d), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free(&t), MPI_SUCCESS);
}

static void predefined_misuse(void)
{
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    int ints[1];
    MPI_Aint addrs[1];
    MPI_Datatype types[1], t = MPI_INT, p = MPI_2INT;
    CHECK_ERR(MPI_Type_get_contents(MPI_INT, 1, 1, 1, ints, addrs, types), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_get_contents(MPI_2INT, 1, 1, 1, ints, addrs, types), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_free(&t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_free(&p), MPI_ERR_TYPE);
    CHECK(t == MPI_INT && p == MPI_2INT);
    /* still usable */
    int size;
    CHECK_RC(MPI_Type_size(MPI_2INT, &size), MPI_SUCCESS);
    CHECK(size == 8);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    all_named();
    pairs_in_types();
    match_size();
    names();
    predefined_misuse();
    dt_finish("dt_predefined");
    return 0;
}
