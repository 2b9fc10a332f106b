/* The convolution drivers' shared helpers: the per-thread scratch buffers of
 * conv_scratch.h and the blocked transpose of conv.h. */
#include "conv.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "conv_scratch.h"
#include "gemm_kernels.h"

/* conv_scratch.h: one set of slots per thread through a pthread key, so that
 * the buffers of threads that end are freed. Buffers above CONV_KEEP_BYTES
 * are freed after each use. */
#define CONV_KEEP_BYTES ((size_t)64 << 20)
/* plan cache entries per thread (at most 8 MB with RB_CONV_PLAN_MAX_BYTES) */
enum { CONV_PLANS = 8, CONV_PLAN_KEY_MAX = 256 };
typedef struct {
  unsigned char key[CONV_PLAN_KEY_MAX];
  size_t key_bytes;
  uint64_t used; /* the thread's use counter at the last find or new */
  void *data;
} conv_plan;
typedef struct {
  void *buf[RB_CONV_SCRATCH_SLOTS];
  size_t size[RB_CONV_SCRATCH_SLOTS];
  conv_plan plan[CONV_PLANS];
  uint64_t uses;
} conv_scratch;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p) {
  conv_scratch *s = p;
  for (int i = 0; i < RB_CONV_SCRATCH_SLOTS; ++i) free(s->buf[i]);
  for (int i = 0; i < CONV_PLANS; ++i) free(s->plan[i].data);
  free(s);
}
static void scratch_init(void) { pthread_key_create(&scratch_key, scratch_free); }

static conv_scratch *scratch_get(void) {
  pthread_once(&scratch_once, scratch_init);
  conv_scratch *s = pthread_getspecific(scratch_key);
  if (!s) {
    s = calloc(1, sizeof *s);
    if (!s || pthread_setspecific(scratch_key, s) != 0) {
      free(s);
      return NULL;
    }
  }
  return s;
}

void *rb_conv_scratch(int slot, size_t bytes) {
  conv_scratch *s = scratch_get();
  if (!s) return NULL;
  if (bytes > s->size[slot] || !s->buf[slot]) {
    free(s->buf[slot]);
    s->size[slot] = (bytes + 4095) / 4096 * 4096;
    s->buf[slot] = aligned_alloc(64, s->size[slot] ? s->size[slot] : 4096);
    if (!s->buf[slot]) s->size[slot] = 0;
  }
  return s->buf[slot];
}

void rb_conv_scratch_done(int slot) {
  pthread_once(&scratch_once, scratch_init);
  conv_scratch *s = pthread_getspecific(scratch_key);
  if (s && s->size[slot] > CONV_KEEP_BYTES) {
    free(s->buf[slot]);
    s->buf[slot] = NULL;
    s->size[slot] = 0;
  }
}

void *rb_conv_big_scratch(size_t bytes, void **owned) {
  *owned = bytes > RB_CONV_BIG_KEEP ? aligned_alloc(64, bytes) : NULL;
  return bytes > RB_CONV_BIG_KEEP ? *owned : rb_l3_scratch(bytes);
}

void *rb_conv_plan_find(const void *key, size_t key_bytes) {
  conv_scratch *s = scratch_get();
  if (!s || key_bytes > CONV_PLAN_KEY_MAX) return NULL;
  for (int i = 0; i < CONV_PLANS; ++i) {
    conv_plan *p = &s->plan[i];
    if (p->data && p->key_bytes == key_bytes && !memcmp(p->key, key, key_bytes)) {
      p->used = ++s->uses;
      return p->data;
    }
  }
  return NULL;
}

void *rb_conv_plan_new(const void *key, size_t key_bytes, size_t bytes) {
  conv_scratch *s = scratch_get();
  if (!s || key_bytes > CONV_PLAN_KEY_MAX || bytes > RB_CONV_PLAN_MAX_BYTES) return NULL;
  conv_plan *p = &s->plan[0];
  for (int i = 1; i < CONV_PLANS; ++i)
    if (s->plan[i].used < p->used) p = &s->plan[i];
  free(p->data);
  p->data = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  if (!p->data) {
    p->used = 0;
    return NULL;
  }
  memcpy(p->key, key, key_bytes);
  p->key_bytes = key_bytes;
  p->used = ++s->uses;
  return p->data;
}

/* Blocked so that both the rows read and the rows written stay in cache. */
#define CONV_TRANSPOSE(T)                                                                   \
  do {                                                                                      \
    const T *sb = src;                                                                      \
    T *db = dst;                                                                            \
    for (int64_t b = 0; b < batch; ++b, sb += rows * cols, db += rows * cols)               \
      for (int64_t i0 = 0; i0 < rows; i0 += 16)                                             \
        for (int64_t j0 = 0; j0 < cols; j0 += 16) {                                         \
          const int64_t i1 = rows - i0 < 16 ? rows : i0 + 16;                               \
          const int64_t j1 = cols - j0 < 16 ? cols : j0 + 16;                               \
          for (int64_t i = i0; i < i1; ++i)                                                 \
            for (int64_t j = j0; j < j1; ++j) db[j * rows + i] = sb[i * cols + j];          \
        }                                                                                   \
  } while (0)

void rb_conv_transpose(int dtype, int64_t batch, int64_t rows, int64_t cols, const void *src,
                       void *dst) {
  if (dtype == RB_F32)
    CONV_TRANSPOSE(float);
  else
    CONV_TRANSPOSE(double);
}
