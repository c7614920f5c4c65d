/* gnuplot started without a shell (cli.h, cli_gnuplot): what `plot` and
 * `study` draw with. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "cli/cli.h"

extern char **environ;

int cli_gnuplot(char *const *argv, char *err, size_t errlen) {
  int fd[2];
  if (pipe(fd) != 0) {
    errf(err, errlen, "pipe: %s", strerror(errno));
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawn_file_actions_addclose(&fa, fd[1]);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  if (rc != 0) {
    close(fd[0]);
    if (rc == ENOENT)
      errf(err, errlen, "gnuplot is not installed ('make deps' installs it)");
    else
      errf(err, errlen, "cannot start gnuplot: %s", strerror(rc));
    return -1;
  }
  /* Everything it says, keeping the end: its last line names the problem. */
  char text[8192];
  size_t n = 0;
  for (;;) {
    if (n > sizeof text / 2) { /* keep the newer half */
      memmove(text, text + n - sizeof text / 4, sizeof text / 4);
      n = sizeof text / 4;
    }
    ssize_t r = read(fd[0], text + n, sizeof text / 2 - 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += (size_t)r;
  }
  close(fd[0]);
  text[n] = 0;
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) text[--n] = 0;
  char *last = strrchr(text, '\n');
  last = last ? last + 1 : text;
  /* Its complaint follows "line N: "; the last line may add the system's. */
  const char *what = NULL;
  for (const char *t = text; (t = strstr(t, "line ")); t++) {
    size_t d = strspn(t + 5, "0123456789");
    if (d && t[5 + d] == ':' && t[6 + d] == ' ') what = t + 7 + d;
  }
  char why[512] = "";
  size_t wl = what ? strcspn(what, "\n") : 0;
  if (what) snprintf(why, sizeof why, ": %.*s", (int)wl, what);
  if (*last && (!what || last != what))
    snprintf(why + strlen(why), sizeof why - strlen(why), what ? " (%s)" : ": %s", last);
  if (WIFEXITED(st))
    errf(err, errlen, "gnuplot failed (exit %d)%s", WEXITSTATUS(st), why);
  else
    errf(err, errlen, "gnuplot was killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  return -1;
}

int cli_png_check(const char *path, char *err, size_t errlen) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  FILE *f = fopen(path, "rb");
  if (!f) {
    errf(err, errlen, "%s: cannot read the picture: %s", path, strerror(errno));
    return -1;
  }
  unsigned char h[8];
  const char *why = NULL;
  long long at = 8, size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (size == 0)
    why = "it is empty";
  else if (fseek(f, 0, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8 || memcmp(h, sig, 8))
    why = "it does not start as a PNG file";
  while (!why) {
    if (fseek(f, (long)at, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8) {
      why = "it is cut short (no IEND chunk)";
      break;
    }
    long long len = (long long)h[0] << 24 | h[1] << 16 | h[2] << 8 | h[3];
    at += 12 + len; /* length, type, data, CRC */
    if (at > size)
      why = "it is cut short (its last chunk is incomplete)";
    else if (!memcmp(h + 4, "IEND", 4)) {
      if (at != size) why = "it has bytes after its IEND chunk";
      break;
    }
  }
  fclose(f);
  if (!why) return 0;
  errf(err, errlen, "gnuplot's picture is not a whole PNG file: %s (%lld bytes)", why, size);
  return -1;
}

int cli_gnuplot_png(char *const *argv, afile *img, char *err, size_t errlen) {
  char why[1024], free_text[80] = "";
  int drawn = cli_gnuplot(argv, why, sizeof why) == 0;
  if (!drawn || cli_png_check(img->tmp, why, sizeof why) != 0) {
    double avail = disk_free_bytes(img->tmp);
    if (drawn && avail >= 0) /* the likely cause of a cut picture */
      snprintf(free_text, sizeof free_text, " (%.0f KiB free on its file system)", avail / 1024);
    afile_abort(img);
    errf(err, errlen, "%s%s", why, free_text);
    return -1;
  }
  return afile_commit(img, err, errlen);
}
