/* SPDX-License-Identifier: MIT */
/* What a transport prober uses to reach its device (see device_io.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "probes/device_io.h"
#include "base/util.h"

bool pa_probe_query_ok(char *reason, size_t len, const char *what, int r)
{
	if (r == 0)
		return true;
	if (reason[0])
		return false;
	if (r > 0)
		snprintf(reason, len, "%s: device status 0x%x", what, (unsigned int)r);
	else if (r == -ENOSYS)
		snprintf(reason, len, "%s: built without the library to ask the device", what);
	else if (r == -EOPNOTSUPP)
		snprintf(reason, len, "%s: not supported by the device", what);
	else if (r == -ENOENT)
		snprintf(reason, len, "%s: not in sysfs and no device node to ask", what);
	else
		snprintf(reason, len, "%s: %s", what, strerror(-r));
	return false;
}

int pa_probe_open_node(const char *devnode, dev_t dev)
{
	struct stat st;
	int fd = open(devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != dev) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

#ifdef PA_TEST_HOOKS
static const void *test_io[PA_TRANSPORT_SCSI + 1];

void pa_probe_set_io(enum pa_transport t, const void *io)
{
	if ((size_t)t < PA_ARRAY_SIZE(test_io))
		test_io[t] = io;
}
#endif

const void *pa_probe_io(enum pa_transport t, const void *real_io, int fd)
{
#ifdef PA_TEST_HOOKS
	if ((size_t)t < PA_ARRAY_SIZE(test_io) && test_io[t])
		return test_io[t];
#else
	(void)t;
#endif
	return fd >= 0 ? real_io : NULL;
}
