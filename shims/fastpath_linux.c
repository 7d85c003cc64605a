//go:build linux && cgo

// The shims' fast path: a constructor that runs before the Go runtime
// starts. Starting the sandbox binary's runtime and package initialisers
// costs milliseconds, more than a shimmed `git status` may add; so when a
// shim is called with an argv the Go path already allowed (same policy
// cache, working directory, home and state dir, within allowTTL seconds),
// this code execs the real tool at once. Anything unusual returns, and
// the Go path (shims.Main) decides as always. fastcache_linux.go writes
// the entries and documents the format; both sides must agree on it.
// Every buffer is bounded; a key that does not fit is not cached.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEY_MAX 16384
#define PATH_BUF 4096
#define ALLOW_TTL 600

static const char *default_shims[] = {
	"git", "npm", "npx", "yarn", "pnpm", "pip", "pip3", "curl", "wget",
	"ssh", "scp", "rsync", "docker", "kubectl", "gh", "sudo", "su", NULL,
};

struct key {
	char b[KEY_MAX];
	size_t n;
	int ok;
};

static void put(struct key *k, const char *s) {
	size_t l = strlen(s);
	if (!k->ok || k->n + l + 1 > sizeof(k->b)) {
		k->ok = 0;
		return;
	}
	memcpy(k->b + k->n, s, l + 1); // with its NUL: the separator
	k->n += l + 1;
}

static int listed(const char *name) {
	for (int i = 0; default_shims[i]; i++)
		if (strcmp(name, default_shims[i]) == 0)
			return 1;
	const char *extra = getenv("SANDBOX_SHIMS");
	size_t l = strlen(name);
	for (const char *p = extra; p && *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == l && strncmp(p, name, l) == 0)
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static uint64_t fnv1a(const char *b, size_t n) {
	uint64_t h = 14695981039346656037ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

// build_key is the entry's content: see fastcache_linux.go.
static int build_key(struct key *k, const char *dir, const char *name, int argc, char **argv) {
	char path[PATH_BUF], buf[160], cwd[PATH_BUF];
	struct stat st;
	k->n = 0;
	k->ok = 1;
	if (snprintf(path, sizeof path, "%s/.policy-cache", dir) >= (int)sizeof path || stat(path, &st) != 0)
		return 0;
	if (getcwd(cwd, sizeof cwd) == NULL)
		return 0;
	snprintf(buf, sizeof buf, "%llu:%llu:%lld:%lld.%09ld", (unsigned long long)st.st_dev,
		(unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	put(k, "sandbox-shim-allow/1");
	put(k, buf);
	put(k, cwd);
	put(k, getenv("HOME") ? getenv("HOME") : "");
	put(k, getenv("XDG_STATE_HOME") ? getenv("XDG_STATE_HOME") : "");
	put(k, name);
	for (int i = 1; i < argc; i++)
		put(k, argv[i]);
	return k->ok;
}

// cached reports whether a fresh entry holding exactly key exists in the
// private cache directory.
static int cached(const struct key *k) {
	static char want[KEY_MAX + 1];
	char dir[PATH_BUF], path[PATH_BUF];
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	struct timespec now;
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (snprintf(dir, sizeof dir, "%s/sandbox-shims-%u", tmp, (unsigned)getuid()) >= (int)sizeof dir)
		return 0;
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0)
		return 0;
	if (snprintf(path, sizeof path, "%s/%016llx", dir, (unsigned long long)fnv1a(k->b, k->n)) >= (int)sizeof path)
		return 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() &&
		 (size_t)st.st_size == k->n && clock_gettime(CLOCK_REALTIME, &now) == 0 &&
		 st.st_mtim.tv_sec <= now.tv_sec && now.tv_sec - st.st_mtim.tv_sec < ALLOW_TTL;
	if (ok) {
		size_t got = 0;
		while (got <= k->n) {
			ssize_t r = read(fd, want + got, k->n + 1 - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		ok = got == k->n && memcmp(want, k->b, k->n) == 0;
	}
	close(fd);
	return ok;
}

static int same(const struct stat *a, const struct stat *b) {
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

// next copies the PATH entry at *p into entry (empty when it does not fit)
// and advances *p past it; it returns 0 at the end of PATH.
static int next(const char **p, char *entry, size_t size) {
	if (*p == NULL)
		return 0;
	const char *e = strchr(*p, ':');
	size_t n = e ? (size_t)(e - *p) : strlen(*p);
	entry[0] = 0;
	if (n < size) {
		memcpy(entry, *p, n);
		entry[n] = 0;
	}
	*p = e ? e + 1 : NULL;
	return 1;
}

// exec_real execs the first NAME on PATH after the shim directory, as
// shims' lookReal finds it: relative entries, entries that are the shim
// directory and this executable are skipped. It returns only when there
// is none or exec fails.
static void exec_real(const char *dir, const char *name, char **argv, char **envp) {
	struct stat shim, self, st;
	const char *path = getenv("PATH"), *p;
	char entry[PATH_BUF], cand[PATH_BUF];
	if (!path || !*path || stat(dir, &shim) != 0 || stat("/proc/self/exe", &self) != 0)
		return;
	const char *start = path;
	for (p = path; next(&p, entry, sizeof entry);) {
		if (entry[0] && stat(entry, &st) == 0 && same(&st, &shim)) {
			start = p;
			break;
		}
	}
	for (p = start; next(&p, entry, sizeof entry);) {
		if (entry[0] != '/' || (stat(entry, &st) == 0 && same(&st, &shim)))
			continue;
		if (snprintf(cand, sizeof cand, "%s/%s", entry, name) >= (int)sizeof cand)
			continue;
		if (stat(cand, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0 || same(&st, &self))
			continue;
		execve(cand, argv, envp);
		return;
	}
}

__attribute__((constructor)) static void sandbox_shim_fastpath(int argc, char **argv, char **envp) {
	static struct key k;
	if (argc < 1 || !argv || !argv[0])
		return;
	const char *name = strrchr(argv[0], '/');
	name = name ? name + 1 : argv[0];
	const char *dir = getenv("SANDBOX_SHIM_DIR");
	const char *off = getenv("SANDBOX_SHIM_NOFAST");
	if (!dir || dir[0] != '/' || (off && off[0]) || strncmp(name, "sandbox", 7) == 0 || !listed(name))
		return;
	if (!build_key(&k, dir, name, argc, argv) || !cached(&k))
		return;
	exec_real(dir, name, argv, envp);
}
