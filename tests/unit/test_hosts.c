/* hosts_parse_mapping: PMI_process_mapping values as MPICH's hydra and our mpirun write them. */
#include "runtime/hosts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void expect(const char *value, int size, const int *want)
{
    int got[16];
    int rc = hosts_parse_mapping(value, got, size);
    if (!want) {
        if (rc == 0) {
            fprintf(stderr, "FAIL: '%s' (size %d) accepted\n", value, size);
            failures++;
        }
        return;
    }
    if (rc != 0 || memcmp(got, want, (size_t)size * sizeof *got) != 0) {
        fprintf(stderr, "FAIL: '%s' (size %d) rc=%d\n", value, size, rc);
        failures++;
    }
}

int main(void)
{
    expect("(vector,(0,1,4))", 4, (int[]){ 0, 0, 0, 0 });
    expect("(vector,(0,2,2))", 4, (int[]){ 0, 0, 1, 1 });
    expect("(vector,(0,2,2),(2,1,1))", 5, (int[]){ 0, 0, 1, 1, 2 });
    expect("(vector,(0,4,1))", 3, (int[]){ 0, 1, 2 }); /* more slots than ranks */
    expect("(vector,(0,1,2))", 3, NULL);                 /* too few */
    expect("(vector,(0,1,x))", 1, NULL);
    expect("", 1, NULL);
    expect("(vector,(0,1,1)", 1, NULL);
    if (failures)
        return 1;
    puts("hosts: ok");
    return 0;
}
