/* The writer's architecture at the start of MPI_PACKED buffers (see packed_arch.h). */
#include "datatype/engine/packed_arch.h"

#include <string.h>

static const unsigned char MAGIC[4] = { 'M', 'P', 'K', 1 };

void packed_arch_write_of(const arch_desc_t *a, void *out)
{
    unsigned char *p = out;
    memset(p, 0, PACKED_ARCH_HEADER);
    memcpy(p, MAGIC, sizeof MAGIC);
    arch_encode(a, p + sizeof MAGIC);
}

void packed_arch_write(void *out)
{
    packed_arch_write_of(arch_local(), out);
}

int packed_arch_read(const void *buf, size_t size, arch_desc_t *writer)
{
    const unsigned char *p = buf;
    return buf && size >= PACKED_ARCH_HEADER && !memcmp(p, MAGIC, sizeof MAGIC) &&
           arch_decode(p + sizeof MAGIC, writer) == 0;
}
