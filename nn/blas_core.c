/* OpenBLAS's core against the CPU, and the kernel of each precision. */
#include "nn/blas_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "nn/nn.h"

#ifdef NN_PORTABLE_BLAS
#include "nn/blas_portable.h"
#else
#include <cblas.h>
#endif

const char *blas_core_name(void) {
#ifdef NN_PORTABLE_BLAS
  return "none";
#else
  const char *c = openblas_get_corename();
  return c ? c : "unknown";
#endif
}

void blas_version(char *buf, size_t len) {
#ifdef NN_PORTABLE_BLAS
  snprintf(buf, len, "none");
#else
  /* "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..." */
  const char *cfg = openblas_get_config();
  char v[32] = "unknown";
  if (cfg && !strncmp(cfg, "OpenBLAS ", 9))
    snprintf(v, sizeof v, "%.*s", (int)strcspn(cfg + 9, " "), cfg + 9);
  snprintf(buf, len, "%s", v);
#endif
}

void blas_state_get(blas_state *s) {
  memset(s, 0, sizeof *s);
  cpu_detect(&s->cpu);
  blas_version(s->version, sizeof s->version);
  snprintf(s->core, sizeof s->core, "%s", blas_core_name());
  const char *var = getenv("OPENBLAS_CORETYPE"), *own = getenv(BLAS_CORE_OWN_ENV);
  cpu_blas_choice ch;
  cpu_blas_decide(s->cpu.features, s->cpu.vendor, s->core, NULL, &ch);
  s->cpu_level = ch.cpu_level;
  s->core_level = ch.core_level;
  s->suggest = ch.use;
  s->set_by = "openblas";
  if (var && var[0]) {
    s->set_by = own && own[0] ? "sowzero" : "user";
    if (own) snprintf(s->own_core, sizeof s->own_core, "%s", own);
  }
}

int blas_core_advice(char *msg, size_t len) {
  blas_state s;
  blas_state_get(&s);
  if (len) msg[0] = 0;
  if (!s.suggest || !strcmp(s.set_by, "user")) return 0;
  if (!strcmp(s.set_by, "sowzero"))
    snprintf(
        msg, len,
        "OpenBLAS %s kept its %s kernels (%s) on a CPU with %s although OPENBLAS_CORETYPE=%s "
        "was set (a build without DYNAMIC_ARCH?): fp32 runs several times slower than it could",
        s.version, s.core, cpu_level_name(s.core_level), cpu_level_name(s.cpu_level),
        getenv("OPENBLAS_CORETYPE"));
  else
    snprintf(
        msg, len,
        "OpenBLAS %s runs its %s kernels (%s) on a CPU with %s: fp32 runs several times slower "
        "than it could; set OPENBLAS_CORETYPE=%s in the environment before the process starts",
        s.version, s.core, cpu_level_name(s.core_level), cpu_level_name(s.cpu_level), s.suggest);
  return 1;
}

/* ---- Kernels ------------------------------------------------------------------
 * One row per precision: its name and who says what its kernel is here. */
static void kernel_fp32(char *buf, size_t len) {
#ifdef NN_PORTABLE_BLAS
  snprintf(buf, len, "portable C sgemm");
#else
  const char *core = blas_core_name();
  int l = cpu_blas_core_level(core);
  snprintf(buf, len, "OpenBLAS %s sgemm (%s)", core, l < 0 ? "its own kernels" : cpu_level_name(l));
#endif
}

static void kernel_bf16(char *buf, size_t len) {
  if (nn_bf16_supported())
    snprintf(buf, len, "SowZero AVX512_BF16 kernel");
  else
    snprintf(buf, len, "unavailable (no AVX512_BF16)");
}

static void kernel_int8(char *buf, size_t len) {
  snprintf(buf, len, "SowZero int8 %s kernel", nn_int8_kernel_name(nn_int8_kernel_in_use()));
}

/* What precision=auto does: a run measures (nn_auto_choose); the fixed
 * ranking is what it takes where nothing is timed. */
static void kernel_auto(char *buf, size_t len) {
  nn_precision p = nn_precision_auto();
  snprintf(buf, len, "measured at start-up (unmeasured: takes %s)", nn_precision_name(p));
}

static const struct {
  const char *precision;
  void (*name)(char *buf, size_t len);
} kernel_rows[] = {
    {"fp32", kernel_fp32}, {"bf16", kernel_bf16}, {"int8", kernel_int8}, {"auto", kernel_auto}};

int blas_kernels(blas_kernel *out, int max) {
  int n = 0;
  for (size_t i = 0; i < sizeof kernel_rows / sizeof kernel_rows[0] && n < max; i++, n++) {
    out[n].precision = kernel_rows[i].precision;
    kernel_rows[i].name(out[n].kernel, sizeof out[n].kernel);
  }
  return n;
}

/* ---- Reports ------------------------------------------------------------------ */
static void who_line(const blas_state *s, char *buf, size_t len) {
  if (!strcmp(s->set_by, "sowzero"))
    snprintf(buf, len, "set by SowZero: OpenBLAS chose %s", s->own_core[0] ? s->own_core : "?");
  else if (!strcmp(s->set_by, "user"))
    snprintf(buf, len, "OPENBLAS_CORETYPE set by the user");
  else
    snprintf(buf, len, "OpenBLAS's own choice");
}

void blas_system_line(char *buf, size_t len) {
  blas_state s;
  blas_state_get(&s);
  char cpu[160], feat[160], who[96];
  cpu_describe(&s.cpu, cpu, sizeof cpu);
  cpu_features_string(s.cpu.features, feat, sizeof feat);
  who_line(&s, who, sizeof who);
  blas_kernel k[BLAS_KERNELS_MAX];
  int n = blas_kernels(k, BLAS_KERNELS_MAX);
  size_t at = (size_t)snprintf(buf, len, "CPU %s, %s (%s); OpenBLAS %s core %s (%s); kernels:", cpu,
                               cpu_level_name(s.cpu_level), feat, s.version, s.core, who);
  for (int i = 0; i < n && at < len; i++)
    at +=
        (size_t)snprintf(buf + at, len - at, "%s %s %s", i ? "," : "", k[i].precision, k[i].kernel);
}

int blas_system_json(char *buf, size_t len) {
  blas_state s;
  blas_state_get(&s);
  char feat[160], desc[160];
  cpu_features_string(s.cpu.features, feat, sizeof feat);
  cpu_describe(&s.cpu, desc, sizeof desc);
  json_writer w;
  json_writer_init(&w, buf, len);
  json_put_string(&w, "cpu", desc);
  json_put_string(&w, "cpu_vendor", s.cpu.vendor);
  json_put_int(&w, "cpu_family", s.cpu.family);
  json_put_int(&w, "cpu_model", s.cpu.model);
  json_put_string(&w, "cpu_level", cpu_level_name(s.cpu_level));
  json_put_string(&w, "cpu_features", feat);
  json_begin_object(&w, "blas");
  json_put_string(&w, "name", "OpenBLAS");
  json_put_string(&w, "version", s.version);
  json_put_string(&w, "core", s.core);
  json_put_string(&w, "core_level", s.core_level < 0 ? "unknown" : cpu_level_name(s.core_level));
  json_put_string(&w, "set_by", s.set_by);
  json_put_string(&w, "own_core", s.own_core);
  json_end_object(&w);
  blas_kernel k[BLAS_KERNELS_MAX];
  int n = blas_kernels(k, BLAS_KERNELS_MAX);
  json_begin_object(&w, "kernels");
  for (int i = 0; i < n; i++) json_put_string(&w, k[i].precision, k[i].kernel);
  json_end_object(&w);
  return json_writer_done(&w);
}
