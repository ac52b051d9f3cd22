/* prov_check.c - hcemuProvenanceFill, hcemuProvenancePoison and hcemuProvenanceCheck
 * (include/hcemu_provenance.h, docs/PROVENANCE.md).
 *
 * The check walks each expected range element by element, classifies what it finds (right;
 * the poison; another input element; a sum naming its ranks; another number; no input's
 * value) and coalesces consecutive wrong elements of the same kind into one range: a copy
 * continues while the source element advances by one, a sum while the ranks' counts agree.
 * Each range's last writer comes from the executors' rings in prov.shm (HCEMU_PROVENANCE=1,
 * common/contract/prov_shm.h), mapped read-only on first use. */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/contract/job.h"
#include "common/contract/prov_shm.h"
#include "common/platform/log.h"
#include "common/platform/secure_dir.h"
#include "hcemu_provenance.h"
#include "host/acl/mem.h"
#include "host/acl/runtime.h"
#include "prov_pattern.h"
#include "text_put.h"

#define MAX_LINES 32u
#define LINE 640u

/* ---- prov.shm ------------------------------------------------------------------------------ */

static pthread_mutex_t shm_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct emu_prov_shm *shm;
/* Per device: writes its ring held at the last poison of its memory (older ones are not the
 * last writers of what the check reads). */
static _Atomic uint64_t marks[EMU_MAX_DEVICES];

static const struct emu_prov_shm *prov_shm(void)
{
    char path[EMU_PATH_MAX + 16];
    int fd = -1;
    struct stat st;

    pthread_mutex_lock(&shm_lock);
    if (shm == NULL && emu_rt.job_dir[0] != '\0' &&
        emu_job_path(path, sizeof(path), emu_rt.job_dir, "%s", EMU_PROV_FILE) == EMU_OK &&
        emu_secure_dir_open_path(path, O_RDONLY, 0, &fd) == EMU_OK) {
        if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(struct emu_prov_shm)) {
            void *p = mmap(NULL, sizeof(struct emu_prov_shm), PROT_READ, MAP_SHARED, fd, 0);
            if (p != MAP_FAILED &&
                __atomic_load_n(&((struct emu_prov_shm *)p)->magic, __ATOMIC_ACQUIRE) ==
                    EMU_PROV_MAGIC)
                shm = p;
            else if (p != MAP_FAILED)
                munmap(p, sizeof(struct emu_prov_shm));
        }
        close(fd);
    }
    const struct emu_prov_shm *m = shm;
    pthread_mutex_unlock(&shm_lock);
    return m;
}

/* ---- arguments ------------------------------------------------------------------------------ */

static HcclResult resolve(const void *buf, uint64_t bytes, const char *fn, struct emu_mem_ref *r)
{
    if (buf == NULL) {
        EMU_LOG_ERR("%s: the buffer is NULL", fn);
        return HCCL_E_PTR;
    }
    if (bytes == 0) {
        EMU_LOG_ERR("%s: count is 0", fn);
        return HCCL_E_PARA;
    }
    if (emu_mem_resolve(buf, bytes, fn, r) != EMU_OK)
        return HCCL_E_PTR;
    return HCCL_SUCCESS;
}

static HcclResult pattern_of(const hcemuProvSpec *spec, const char *fn, struct emu_prov_pat *p)
{
    if (spec == NULL) {
        EMU_LOG_ERR("%s: spec is NULL", fn);
        return HCCL_E_PTR;
    }
    if (spec->nRanks == 0 || spec->nRanks > EMU_PROV_MAX_RANKS || spec->rank >= spec->nRanks) {
        EMU_LOG_ERR("%s: nRanks %u is not in 1..%u or rank %u not below it", fn, spec->nRanks,
                    EMU_PROV_MAX_RANKS, spec->rank);
        return HCCL_E_PARA;
    }
    if (!emu_prov_pat_init(p, spec->dataType, spec->op, spec->nRanks)) {
        EMU_LOG_ERR("%s: no provenance pattern for data type %d with reduce op %d at %u ranks "
                    "(not supported)", fn, (int)spec->dataType, (int)spec->op, spec->nRanks);
        return HCCL_E_NOT_SUPPORT;
    }
    return HCCL_SUCCESS;
}

HcclResult hcemuProvenanceFill(void *buf, uint64_t count, const hcemuProvSpec *spec,
                               uint32_t buffer, uint64_t first)
{
    struct emu_prov_pat p;
    struct emu_mem_ref r;
    HcclResult rc;

    if ((rc = pattern_of(spec, "hcemuProvenanceFill", &p)) != HCCL_SUCCESS)
        return rc;
    if (spec->rank >= spec->nRanks || buffer >= EMU_PROV_BUFFERS ||
        count > UINT64_MAX / p.size || first > UINT64_MAX - count) {
        EMU_LOG_ERR("hcemuProvenanceFill: rank %u of %u, buffer %u (0..%u) or count %" PRIu64
                    " out of range", spec->rank, spec->nRanks, buffer, EMU_PROV_BUFFERS - 1,
                    count);
        return HCCL_E_PARA;
    }
    if ((rc = resolve(buf, count * p.size, "hcemuProvenanceFill", &r)) != HCCL_SUCCESS)
        return rc;
    for (uint64_t e = 0; e < count; e++)
        emu_prov_pat_value(&p, spec->rank, buffer, first + e, r.host + e * p.size);
    return HCCL_SUCCESS;
}

HcclResult hcemuProvenancePoison(void *buf, uint64_t count, HcclDataType dataType)
{
    struct emu_prov_pat p;
    struct emu_mem_ref r;
    HcclResult rc;

    if (!emu_prov_pat_init(&p, dataType, HCCL_REDUCE_RESERVED, 1)) {
        EMU_LOG_ERR("hcemuProvenancePoison: no provenance pattern for data type %d (not "
                    "supported)", (int)dataType);
        return HCCL_E_NOT_SUPPORT;
    }
    if (count > UINT64_MAX / p.size) {
        EMU_LOG_ERR("hcemuProvenancePoison: count %" PRIu64 " out of range", count);
        return HCCL_E_PARA;
    }
    if ((rc = resolve(buf, count * p.size, "hcemuProvenancePoison", &r)) != HCCL_SUCCESS)
        return rc;
    const struct emu_prov_shm *m = r.dev >= 0 ? prov_shm() : NULL;
    if (m != NULL)
        atomic_store(&marks[r.dev], atomic_load(&m->dev[r.dev].next));
    memset(r.host, 0xff, count * p.size);
    return HCCL_SUCCESS;
}

/* ---- what an element holds ----------------------------------------------------------------- */

enum cls { RIGHT, NEVER, MOVED, SUMMED, NUMBER, ALIEN };

struct found {
    enum cls cls;
    uint32_t rank, buf; /* MOVED; NUMBER: the rank a max/min value belongs to */
    uint64_t elem;      /* MOVED: the input element found; NUMBER: the one expected */
    double num;         /* NUMBER */
    uint8_t want[8];    /* the expected bytes */
    int16_t cnt[EMU_PROV_MAX_RANKS]; /* SUMMED: times each rank was added, -1 = not seen */
};

struct run {
    uint64_t first, n; /* output elements */
    struct found f;    /* the first element's (SUMMED: counts merged over the run) */
    uint64_t last_elem;
    uint8_t raw[8];    /* the first element's bytes */
};

static void expand_mask(const hcemuProvRange *L, uint32_t n, uint64_t *mask)
{
    memset(mask, 0, 4 * sizeof(uint64_t));
    for (uint32_t r = 0; r < n; r++)
        if (L->rankMask == 0 || (r < 64 && ((L->rankMask >> r) & 1)))
            mask[r / 64] |= 1ull << (r % 64);
}

/* What the layout names: a code decoding to an input element past `bound` (one past the last
 * element any range names) or to a buffer no range names is no input's (a flipped bit). */
struct names {
    uint64_t bound;
    uint32_t bufs; /* bit b: a range names input buffer b */
};

static void classify(const struct emu_prov_pat *p, const hcemuProvRange *L, const uint64_t *mask,
                     const struct names *nm, uint64_t j, const uint8_t *v, struct found *f)
{
    uint8_t *want = f->want;
    uint64_t in = L->inElem + (j - L->outElem);
    double x;

    f->cls = RIGHT;
    if (L->kind == hcemuProvCopy || p->fill == EMU_PROV_MOVE) {
        emu_prov_pat_value(p, L->rank, L->buffer, in, want);
        if (memcmp(want, v, p->size) == 0)
            return;
    } else {
        double r = emu_prov_pat_reduced(p, in, mask);
        emu_prov_pat_encode(p, r, want);
        if (emu_prov_pat_number(p, v, &x) && x == r)
            return;
    }
    if (emu_prov_pat_poison(p, v)) {
        f->cls = NEVER;
        return;
    }
    if (p->fill == EMU_PROV_MOVE) {
        f->cls = emu_prov_pat_decode_move(p, v, L->rank, in, &f->rank, &f->buf, &f->elem) &&
                         f->elem < nm->bound && ((nm->bufs >> f->buf) & 1)
                     ? MOVED
                     : ALIEN;
        return;
    }
    if (!emu_prov_pat_number(p, v, &x)) {
        f->cls = ALIEN;
        return;
    }
    f->num = x;
    if (p->fill == EMU_PROV_SUM) {
        if (x < 0 || x >= ldexp(1, (int)(2 * p->digits))) {
            f->cls = ALIEN;
            return;
        }
        f->cls = SUMMED;
        for (uint32_t r = 0; r < p->nranks; r++)
            f->cnt[r] = -1;
        uint64_t d = (uint64_t)x;
        for (uint32_t k = 0; k < p->digits; k++, d >>= 2)
            f->cnt[emu_prov_pat_digit_rank(p, in, k)] = (int16_t)(d & 3);
        return;
    }
    f->cls = NUMBER;
    f->elem = in;
    if (p->fill == EMU_PROV_MAXMIN && (x < 1 || x > p->nranks))
        f->cls = ALIEN; /* max/min: rank r holds (r + e) mod n + 1 */
    else if (p->fill == EMU_PROV_MAXMIN)
        f->rank = (uint32_t)(((uint64_t)x - 1 + p->nranks - in % p->nranks) % p->nranks);
}

/* Whether element f continues run r (and merge it in). */
static bool continues(const struct emu_prov_pat *p, struct run *r, const struct found *f)
{
    if (r->f.cls != f->cls)
        return false;
    switch (f->cls) {
    case MOVED:
        if (f->rank != r->f.rank || f->buf != r->f.buf || f->elem != r->last_elem + 1)
            return false;
        r->last_elem = f->elem;
        return true;
    case SUMMED:
        for (uint32_t k = 0; k < p->nranks; k++)
            if (f->cnt[k] >= 0 && r->f.cnt[k] >= 0 && f->cnt[k] != r->f.cnt[k])
                return false;
        for (uint32_t k = 0; k < p->nranks; k++)
            if (r->f.cnt[k] < 0)
                r->f.cnt[k] = f->cnt[k];
        return true;
    case NUMBER: return p->fill != EMU_PROV_PROD || f->num == r->f.num;
    default: return true;
    }
}

/* ---- words --------------------------------------------------------------------------------- */


static const char *op_word(HcclReduceOp op)
{
    static const char *const w[] = {"sum", "product", "max", "min"};
    return (unsigned)op < 4 ? w[op] : "reduction";
}

static void span(char *s, size_t len, size_t *at, uint64_t a, uint64_t n)
{
    if (n == 1)
        emu_text_put(s, len, at, "%" PRIu64, a);
    else
        emu_text_put(s, len, at, "%" PRIu64 "..%" PRIu64, a, a + n - 1);
}

static void input_of(char *s, size_t len, size_t *at, uint32_t rank, uint32_t buf, uint64_t e,
                     uint64_t n)
{
    emu_text_put(s, len, at, "rank %u's input ", rank);
    if (buf != 0)
        emu_text_put(s, len, at, "%u ", buf);
    emu_text_put(s, len, at, "element ");
    span(s, len, at, e, n);
}

/* "ranks 0..7" or "ranks 0,2,5". */
static void rank_set(char *s, size_t len, size_t *at, const uint64_t *mask, uint32_t n)
{
    uint32_t k = 0, all = 1;
    for (uint32_t r = 0; r < n; r++)
        all &= (uint32_t)(mask[r / 64] >> (r % 64)) & 1;
    if (all && n > 2) {
        emu_text_put(s, len, at, "ranks 0..%u", n - 1);
        return;
    }
    for (uint32_t r = 0; r < n; r++)
        if ((mask[r / 64] >> (r % 64)) & 1)
            emu_text_put(s, len, at, "%s%u", k++ ? "," : "ranks ", r);
}

static void expected(const struct emu_prov_pat *p, const hcemuProvRange *L, const uint64_t *mask,
                     const struct run *r, char *s, size_t len, size_t *at)
{
    uint64_t in = L->inElem + (r->first - L->outElem);
    if (L->kind == hcemuProvCopy) {
        input_of(s, len, at, L->rank, L->buffer, in, r->n);
        return;
    }
    emu_text_put(s, len, at, "the %s of ", op_word(p->op));
    rank_set(s, len, at, mask, p->nranks);
    emu_text_put(s, len, at, " at input ");
    if (L->buffer != 0)
        emu_text_put(s, len, at, "%u ", L->buffer);
    emu_text_put(s, len, at, "element ");
    span(s, len, at, in, r->n);
}

/* Bytes of the run's first element that differ from the expected. */
static uint32_t bytes_off(const struct emu_prov_pat *p, const struct run *r)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < p->size; i++)
        n += r->f.want[i] != r->raw[i];
    return n;
}

static void holds(const struct emu_prov_pat *p, const struct run *r, char *s, size_t len,
                  size_t *at)
{
    const struct found *f = &r->f;
    bool unseen = false;

    switch (f->cls) {
    case NEVER: emu_text_put(s, len, at, "never written (still the poison)"); return;
    case MOVED:
        input_of(s, len, at, f->rank, f->buf, f->elem, r->n);
        if (r->n == 1 && p->size > 1 && bytes_off(p, r) == 1)
            emu_text_put(s, len, at, " (or a corrupted byte: one byte off the expected)");
        return;
    case SUMMED:
        emu_text_put(s, len, at, "a sum of ranks ");
        for (uint32_t k = 0, first = 1; k < p->nranks; k++) {
            for (int16_t c = 0; c < f->cnt[k]; c++, first = 0)
                emu_text_put(s, len, at, "%s%u", first ? "" : ",", k);
            unseen |= f->cnt[k] < 0;
        }
        if (f->num == 0)
            emu_text_put(s, len, at, "(none: 0)");
        if (r->n == 1 && p->size > 1 && bytes_off(p, r) == 1)
            emu_text_put(s, len, at, " (or a corrupted byte: one byte off the expected)");
        if (unseen)
            emu_text_put(s, len, at, " (ranks whose weight the type cannot carry at these "
                                     "elements not shown)");
        return;
    case NUMBER:
        if (p->fill == EMU_PROV_PROD && r->n == 1)
            emu_text_put(s, len, at, "a product counting rank %" PRIu64 "'s factor 2 %.0f "
                         "time(s)", f->elem % p->nranks, log2(fabs(f->num)));
        else if (p->fill == EMU_PROV_PROD) /* the factor 2 is rank e mod n's at element e */
            emu_text_put(s, len, at, "a product counting each element's factor 2 (rank e mod %u's) "
                         "%.0f time(s)", p->nranks, log2(fabs(f->num)));
        else
            emu_text_put(s, len, at, "rank %u's value (%g)", f->rank, f->num);
        return;
    default:
        emu_text_put(s, len, at, "a value no input holds (0x");
        for (uint32_t i = p->size; i-- > 0;)
            emu_text_put(s, len, at, "%02x", r->raw[i]);
        emu_text_put(s, len, at, "%s)", bytes_off(p, r) == 1 ? ", one byte off the expected" : "");
        return;
    }
}

static void writer(int dev, const void *out, uint64_t elem, uint32_t size, char *s, size_t len,
                   size_t *at)
{
    const struct emu_prov_shm *m = dev >= 0 ? prov_shm() : NULL;
    struct emu_prov_write w;

    if (dev < 0) {
        emu_text_put(s, len, at, "last writer unknown: the output is host memory");
        return;
    }
    if (m == NULL) {
        emu_text_put(s, len, at, "last writer unknown: run with HCEMU_PROVENANCE=1 to have it "
                                 "named");
        return;
    }
    if (!emu_prov_last_writer(m, (uint32_t)dev, (uint64_t)(uintptr_t)out + elem * size,
                              atomic_load(&marks[dev]), &w)) {
        emu_text_put(s, len, at, "no data-plane write into it recorded since the poison");
        return;
    }
    emu_text_put(s, len, at, "last written by ");
    if (w.rank != UINT32_MAX)
        emu_text_put(s, len, at, "rank %u ", w.rank);
    emu_text_put(s, len, at, "thread %u", w.thread);
    if (w.label[0] != '\0' && strncmp(w.label, "rank ", 5) != 0)
        emu_text_put(s, len, at, " '%s'", w.label);
    emu_text_put(s, len, at, ", task %" PRIu64 " of device %u (%s), at %s", w.seq, w.tdev, w.kind,
                 w.site);
}

/* ---- the check ----------------------------------------------------------------------------- */

struct report {
    uint32_t rank;
    char *buf;
    size_t len, at;
    uint32_t lines, ranges;
    uint64_t wrong;
};

static void emit(const struct emu_prov_pat *p, const hcemuProvRange *L, const uint64_t *mask,
                 const struct run *r, int dev, const void *out, struct report *rep)
{
    char line[LINE];
    size_t at = 0;

    rep->ranges++;
    rep->wrong += r->n;
    if (rep->lines >= MAX_LINES)
        return;
    rep->lines++;
    emu_text_put(line, sizeof(line), &at, "provenance: rank %u's output element%s ", rep->rank,
        r->n > 1 ? "s" : "");
    span(line, sizeof(line), &at, r->first, r->n);
    emu_text_put(line, sizeof(line), &at, ": %s",
                 r->f.cls == NEVER ? "" : r->n > 1 ? "hold " : "holds ");
    holds(p, r, line, sizeof(line), &at);
    emu_text_put(line, sizeof(line), &at, "; should hold ");
    expected(p, L, mask, r, line, sizeof(line), &at);
    emu_text_put(line, sizeof(line), &at, "; ");
    writer(dev, out, r->first, p->size, line, sizeof(line), &at);
    EMU_LOG_ERR("%s", line);
    if (rep->buf != NULL)
        emu_text_put(rep->buf, rep->len, &rep->at, "%s\n", line);
}

static void check_range(const struct emu_prov_pat *p, const hcemuProvRange *L, const uint8_t *v,
                        const struct names *nm, int dev, const void *out, struct report *rep)
{
    static _Thread_local struct run cur;
    static _Thread_local struct found f;
    uint64_t mask[4];
    bool open = false;

    expand_mask(L, p->nranks, mask);
    for (uint64_t j = L->outElem; j < L->outElem + L->count; j++) {
        const uint8_t *x = v + j * p->size;
        classify(p, L, mask, nm, j, x, &f);
        if (open && f.cls != RIGHT && continues(p, &cur, &f)) {
            cur.n++;
            continue;
        }
        if (open)
            emit(p, L, mask, &cur, dev, out, rep);
        open = f.cls != RIGHT;
        if (open) {
            cur.first = j;
            cur.n = 1;
            cur.f = f;
            cur.last_elem = f.elem;
            memcpy(cur.raw, x, p->size);
        }
    }
    if (open)
        emit(p, L, mask, &cur, dev, out, rep);
}

HcclResult hcemuProvenanceCheck(const void *out, uint64_t count, const hcemuProvSpec *spec,
                                const hcemuProvRange *layout, uint32_t nRanges,
                                uint64_t *wrongElems, char *report, size_t reportLen)
{
    struct emu_prov_pat p;
    struct emu_mem_ref r;
    HcclResult rc;

    if ((rc = pattern_of(spec, "hcemuProvenanceCheck", &p)) != HCCL_SUCCESS)
        return rc;
    if (layout == NULL && nRanges != 0) {
        EMU_LOG_ERR("hcemuProvenanceCheck: layout is NULL");
        return HCCL_E_PTR;
    }
    for (uint32_t i = 0; i < nRanges; i++) {
        const hcemuProvRange *L = &layout[i];
        if (L->count > count || L->outElem > count - L->count || L->kind > hcemuProvSkip ||
            L->inElem > UINT64_MAX - L->count ||
            L->buffer >= EMU_PROV_BUFFERS || (L->kind == hcemuProvCopy && L->rank >= p.nranks) ||
            (L->kind == hcemuProvReduce && p.fill == EMU_PROV_MOVE)) {
            EMU_LOG_ERR("hcemuProvenanceCheck: layout range %u (output elements %" PRIu64
                        " +%" PRIu64 ", kind %d, rank %u, buffer %u) does not fit the output of "
                        "%" PRIu64 " elements or the spec", i, L->outElem, L->count,
                        (int)L->kind, L->rank, L->buffer, count);
            return HCCL_E_PARA;
        }
    }
    if (count > UINT64_MAX / p.size)
        return HCCL_E_PARA;
    if ((rc = resolve(out, count * p.size, "hcemuProvenanceCheck", &r)) != HCCL_SUCCESS)
        return rc;
    struct report rep = {.rank = spec->rank, .buf = reportLen > 0 ? report : NULL,
                         .len = reportLen};
    if (rep.buf != NULL)
        rep.buf[0] = '\0';
    struct names nm = {0, 0};
    for (uint32_t i = 0; i < nRanges; i++) {
        if (layout[i].inElem + layout[i].count > nm.bound)
            nm.bound = layout[i].inElem + layout[i].count;
        nm.bufs |= 1u << layout[i].buffer;
    }
    for (uint32_t i = 0; i < nRanges; i++)
        if (layout[i].kind != hcemuProvSkip)
            check_range(&p, &layout[i], r.host, &nm, r.dev, out, &rep);
    if (rep.ranges > rep.lines) {
        EMU_LOG_ERR("provenance: ... and %u more wrong ranges", rep.ranges - rep.lines);
        emu_text_put(rep.buf, rep.len, &rep.at, "... and %u more wrong ranges\n",
                     rep.ranges - rep.lines);
    }
    if (wrongElems != NULL)
        *wrongElems = rep.wrong;
    return HCCL_SUCCESS;
}
