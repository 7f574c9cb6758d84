#include "rdv_key.h"

#include <openssl/crypto.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rdv_key_load(const char *path, auth_key_t *k, char *err, size_t errlen)
{
    if (!path) {
        int rc = auth_key_take_env(RDV_KEY_ENV, k); /* no child of ours inherits it */
        if (rc == 0) {
            snprintf(err, errlen, "no job key: give --key-file FILE or set %s (make a key "
                     "file with metampi-rendezvous --make-key FILE)", RDV_KEY_ENV);
            return -1;
        }
        if (rc < 0) {
            snprintf(err, errlen, "%s is not a job key (expected %d hex digits)", RDV_KEY_ENV,
                     AUTH_KEY_HEX);
            return -1;
        }
        return 0;
    }
    /* O_NONBLOCK: a FIFO (or a device) must not hold us in open(); fstat refuses it next */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        if (errno == ELOOP)
            snprintf(err, errlen, "the key file '%s' is a symbolic link; give the file itself",
                     path);
        else
            snprintf(err, errlen, "cannot open the key file '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    char buf[AUTH_KEY_HEX + 3];
    ssize_t n = -1;
    uid_t me = geteuid();
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read the key file '%s': %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "the key file '%s' is not a regular file (%s)", path,
                 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
                 : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
    } else if (st.st_uid != me && st.st_uid != 0) {
        snprintf(err, errlen, "the key file '%s' belongs to uid %u, not to this user (uid %u) "
                 "or root: its owner could have put any key in it", path, (unsigned)st.st_uid,
                 (unsigned)me);
    } else if (st.st_mode & 077) {
        snprintf(err, errlen, "the key file '%s' may be read or written by others (mode "
                 "%04o); make it private with chmod 600 '%s'", path,
                 (unsigned)(st.st_mode & 07777), path);
    } else if ((n = read(fd, buf, sizeof buf - 1)) < 0) {
        snprintf(err, errlen, "cannot read the key file '%s': %s", path, strerror(errno));
    }
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    if (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    int bad = auth_key_from_hex(buf, k) != 0;
    OPENSSL_cleanse(buf, sizeof buf);
    if (bad) {
        snprintf(err, errlen, "the key file '%s' does not hold a job key (expected %d hex "
                 "digits and at most a newline)", path, AUTH_KEY_HEX);
        return -1;
    }
    return 0;
}

int rdv_key_create(const char *path, char *err, size_t errlen)
{
    auth_key_t k;
    if (auth_key_generate(&k) != 0) {
        snprintf(err, errlen, "cannot make a key: the system has no randomness to give");
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create the key file '%s': %s", path, strerror(errno));
        return -1;
    }
    char line[AUTH_KEY_HEX + 2];
    auth_key_to_hex(&k, line);
    line[AUTH_KEY_HEX] = '\n';
    line[AUTH_KEY_HEX + 1] = '\0';
    /* the umask may have taken bits away, never added: 0600 holds */
    ssize_t w = write(fd, line, AUTH_KEY_HEX + 1);
    int e = errno;
    if (close(fd) != 0 && w == AUTH_KEY_HEX + 1) {
        w = -1;
        e = errno;
    }
    if (w != AUTH_KEY_HEX + 1) {
        snprintf(err, errlen, "cannot write the key file '%s': %s", path,
                 w < 0 ? strerror(e) : "short write");
        unlink(path);
        return -1;
    }
    return 0;
}
