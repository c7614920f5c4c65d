/* Harness: training configs (trainer/config.h): an INI file and --set
 * overrides through config_load.
 *
 * Input: the INI text, then optionally a line "%%" followed by override
 * lines ("section.key=value", as `sowzero train --set` passes them; at most
 * MAX_OVER). The text goes to a scratch file (fuzz/fuzz.h). Checked:
 *   - a refused config says why in one line;
 *   - a refusal never locates an override at line 0 of the file: it names
 *     the override;
 *   - overrides of distinct keys are checked together, in any order: the
 *     same overrides reversed are refused or accepted alike, and accepted
 *     they make the same config;
 *   - an accepted one, written back by config_write (the resolved config a
 *     run keeps), loads again without overrides and writes the same text:
 *     what a run writes is what it reads on resume.
 * (An override value a config file could not hold, such as "random
 * ;greedy", is refused: it once came back from config.ini as another.) */
#include "fuzz/fuzz.h"
#include "trainer/config.h"

#define MAX_OVER 16

/* config_write into a malloc'd string. */
static char *written(const train_config *c) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  FUZZ_CHECK(f, "open_memstream");
  FUZZ_CHECK(config_write(c, f) == 0, "config_write failed");
  fclose(f);
  return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  size_t ini_len = size;
  char *over[MAX_OVER];
  int n_over = 0;
  /* "%%" alone on a line ends the INI text. */
  for (size_t i = 0; i + 2 <= size; i++)
    if ((i == 0 || text[i - 1] == '\n') && !strncmp(text + i, "%%", 2) &&
        (i + 2 == size || text[i + 2] == '\n')) {
      ini_len = i;
      char *save = NULL;
      if (i + 2 < size)
        for (char *t = strtok_r(text + i + 3, "\n", &save); t && n_over < MAX_OVER;
             t = strtok_r(NULL, "\n", &save))
          over[n_over++] = t;
      break;
    }
  const char *path = fuzz_path("config.ini");
  fuzz_write(path, data, ini_len);

  train_config *c = malloc(sizeof *c), *c2 = malloc(sizeof *c2);
  char err[1024] = "", err2[1024] = "";
  /* The same overrides reversed, when no key comes twice. */
  char *rev[MAX_OVER];
  int distinct = 1;
  for (int i = 0; i < n_over; i++) {
    rev[i] = over[n_over - 1 - i];
    size_t ki = strcspn(over[i], "=");
    for (int j = 0; j < i; j++)
      if (strcspn(over[j], "=") == ki && !strncmp(over[i], over[j], ki)) distinct = 0;
  }
  int bad = config_load(c, path, n_over, over, err, sizeof err) != 0;
  if (distinct && n_over > 1) {
    int bad2 = config_load(c2, path, n_over, rev, err2, sizeof err2) != 0;
    FUZZ_CHECK(bad == bad2, "overrides refused in one order only: '%s' / '%s'", err, err2);
    if (!bad) {
      char *a = written(c), *b = written(c2);
      FUZZ_CHECK(!strcmp(a, b), "overrides in another order make another config");
      free(a);
      free(b);
    }
  }
  if (bad) {
    FUZZ_CHECK_MESSAGE(err);
    /* The message's own location, not a value it quotes (which may hold
     * any text, this one included). */
    char at0[4810];
    snprintf(at0, sizeof at0, "%s:0:", path);
    FUZZ_CHECK(strncmp(err, at0, strlen(at0)) != 0, "an override located at line 0: %s", err);
  } else {
    char *once = written(c);
    const char *again = fuzz_path("resolved.ini");
    fuzz_write(again, once, strlen(once));
    FUZZ_CHECK(config_load(c2, again, 0, NULL, err, sizeof err) == 0,
               "the written config does not load: %s\n%s", err, once);
    char *twice = written(c2);
    FUZZ_CHECK(!strcmp(once, twice), "the written config reads back as another:\n%s\n----\n%s",
               once, twice);
    free(twice);
    free(once);
  }
  free(c);
  free(c2);
  free(text);
  return 0;
}
