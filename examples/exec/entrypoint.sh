#!/bin/sh
# A container entrypoint: the image's own command under `prealloc exec`.
#   COPY entrypoint.sh /usr/local/bin/
#   ENTRYPOINT ["/usr/local/bin/entrypoint.sh"]
#   CMD ["etcd", "--data-dir", "/var/lib/etcd"]
# prealloc is PID 1: it passes SIGTERM on to the program, reaps orphans
# and exits with the program's status.  Under the default seccomp profiles
# of Docker and containerd io_uring is refused: calls fall back to Linux AIO.
exec prealloc exec -- "$@"
