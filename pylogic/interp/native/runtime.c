/* The run-time of an exported program (``pathlogic export --llvm``, pylogic/commands/export.py).
 *
 * The native engine's code (compile.py) runs inside Python: the segment table, the globals and
 * the C library (the interpreter's ``Builtins``) are Python's. An exported program has no
 * Python, so this file provides them, with the interpreter's semantics:
 *
 *  - memory: the interpreter's segmented memory (pylogic/interp/memory.py). Segment ids are
 *    handed out in the same order (globals 1..G, then every alloca/malloc, never reused), so
 *    addresses are the interpreter's; the segment table has compile.py's layout
 *    (``id, base, length`` entries, a direct part then a window, engine.py NativeMemory);
 *    the live-byte limit and the const-global (read-only) segments are checked the same way.
 *  - the C library: each ``plrt_<name>`` is the interpreter's ``Builtins.<name>`` (builtins.py)
 *    on the same arguments (64-bit integers; missing ones read as 0); a misuse the interpreter
 *    reports as a fault is a fault here (the program stops with status 70).
 *  - ``print`` writes the value and a newline; ``input`` reads the next integer of stdin.
 *  - exit()/abort() end the program with the interpreter's status; a run-time fault (bad
 *    address, division by zero, ...), the call-depth limit or the fuel limit print one
 *    ``pathlogic: run-time error: ...`` line on stderr and exit with 70 (machine.ERROR_STATUS),
 *    stdout holding what the program wrote before.
 *
 * Writes to stderr are dropped, as the interpreter drops them. Compiled by clang-14 into the
 * exported module at export time; the export refuses a module calling a builtin not defined
 * here (``PLRT(name)`` below is the list).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;
typedef uint64_t u64;

/* ---- the compiled module's state (compile.py _PRELUDE) */
extern i64 pl_steps, pl_fuel, pl_depth, pl_maxdepth, pl_abort;
extern i64 *pl_segtab;
extern i64 pl_segcap, pl_winmask, pl_nextid, pl_live, pl_peak, pl_limit;
extern i64 *pl_astack;
extern i64 pl_atop, pl_acap;
extern void *pl_cb_alloca, *pl_cb_frame, *pl_cb_builtin, *pl_cb_input, *pl_cb_print;

/* ---- what export.py emits beside it */
struct pl_global { i64 size; const unsigned char *init; i64 init_len; i64 readonly; };
extern const i64 pl_rt_nglobals;
extern const struct pl_global pl_rt_globals[];
extern const i64 pl_rt_fuel, pl_rt_maxdepth, pl_rt_memlimit, pl_rt_nparams;
extern const i64 pl_rt_stdout, pl_rt_stderr;  /* the FAKE_FILES stand-ins (conventions.py) */
i64 pl_rt_dispatch(i64 bid, i64 *args, i64 n);
i64 pl_rt_main(i64 *args);

#define ABORT_FAULT 1
#define ERROR_STATUS 70
#define MASK32 0xFFFFFFFFull
#define STACK_SIZE ((size_t)512 << 20)  /* engine.py STACK_SIZE */
#define ASTACK (1 << 20)                  /* engine.py ASTACK */

static const char *fault_message;
static i64 window;

static i64 fault(const char *message) {
    if (!fault_message) fault_message = message;
    pl_abort = ABORT_FAULT;
    return 0;
}

/* ---- output: one buffer, flushed on every way out */
static void out(const void *data, size_t n) { fwrite(data, 1, n, stdout); }

/* ---- segments */
static i64 slot(i64 sid) { return 3 * (sid < pl_segcap ? sid : pl_segcap + (sid & pl_winmask)); }

static unsigned char *is_heap;   /* per segment id: 1 for a malloc object */
static i64 heap_cap;
static i64 *readonly_ids;        /* const globals */
static i64 n_readonly;

/* The window doubles until every live entry has its own slot (engine.py _grow_window). */
i64 pl_grow(void) {
    for (i64 w = window * 2; w <= ((i64)1 << 26); w *= 2) {
        i64 *table = calloc((size_t)(pl_segcap + w) * 3, sizeof(i64));
        if (!table) return 0;
        memcpy(table, pl_segtab, (size_t)pl_segcap * 3 * sizeof(i64));
        int clash = 0;
        for (i64 i = pl_segcap; i < pl_segcap + window && !clash; i++) {
            i64 *e = pl_segtab + 3 * i;
            if (!e[0]) continue;
            i64 *f = table + 3 * (pl_segcap + (e[0] & (w - 1)));
            if (f[0]) clash = 1;
            else { f[0] = e[0]; f[1] = e[1]; f[2] = e[2]; }
        }
        if (clash) { free(table); continue; }
        free(pl_segtab);
        pl_segtab = table;
        window = w;
        pl_winmask = w - 1;
        return 1;
    }
    return 0;
}

/* Memory.alloc: a zeroed object of ``size`` bytes with the next segment id. */
static i64 alloc(i64 size, int heap) {
    if (size < 0) return fault("negative allocation size");
    if ((u64)size > MASK32 || pl_live + size > pl_limit) return fault("memory limit exceeded");
    i64 sid = pl_nextid;
    while (pl_segtab[slot(sid)])
        if (!pl_grow()) return fault("segment table full");
    unsigned char *p = calloc((size_t)size + 1, 1);
    if (!p) return fault("out of memory");
    i64 *e = pl_segtab + slot(sid);
    e[0] = sid; e[1] = (i64)(uintptr_t)p; e[2] = size;
    pl_nextid = sid + 1;
    pl_live += size;
    if (pl_live > pl_peak) pl_peak = pl_live;
    if (sid >= heap_cap) {
        i64 cap = heap_cap ? heap_cap : 1024;
        while (cap <= sid) cap *= 2;
        is_heap = realloc(is_heap, (size_t)cap);
        memset(is_heap + heap_cap, 0, (size_t)(cap - heap_cap));
        heap_cap = cap;
    }
    is_heap[sid] = (unsigned char)heap;
    return sid << 32;
}

static void release(i64 sid) {
    i64 *e = pl_segtab + slot(sid);
    if (e[0] != sid) return;
    free((void *)(uintptr_t)e[1]);
    pl_live -= e[2];
    e[0] = e[1] = e[2] = 0;
    if (sid < heap_cap) is_heap[sid] = 0;
}

/* Memory.locate: the bytes [a, a+n) of one live object, or a fault (NULL). */
static unsigned char *at(i64 a, i64 n, int write) {
    i64 sid = (i64)((u64)a >> 32), off = (i64)((u64)a & MASK32);
    i64 *e = pl_segtab + slot(sid);
    if (sid == 0 || e[0] != sid || n < 0 || (u64)off + (u64)n > (u64)e[2]) {
        fault(a == 0 ? "null pointer access" : "access outside any live object");
        return NULL;
    }
    if (write)
        for (i64 k = 0; k < n_readonly; k++)
            if (readonly_ids[k] == sid) { fault("write into a constant global"); return NULL; }
    return (unsigned char *)(uintptr_t)e[1] + off;
}

/* Memory.cstring: the length of the NUL-terminated string at ``a`` (at most ``limit`` bytes
 * when limit >= 0), or -1 after a fault. */
static i64 cstring(i64 a, i64 limit, const unsigned char **text) {
    unsigned char *p = at(a, limit == 0 ? 0 : 1, 0);
    if (!p) return -1;
    i64 sid = (i64)((u64)a >> 32), off = (i64)((u64)a & MASK32);
    i64 room = pl_segtab[slot(sid) + 2] - off;
    i64 scan = limit >= 0 && limit < room ? limit : room;
    unsigned char *z = memchr(p, 0, (size_t)scan);
    *text = p;
    if (z) return z - p;
    if (limit >= 0 && limit <= room) return limit;
    fault("string read (no NUL terminator)");
    return -1;
}

static i64 wrap(i64 v, int bits) {
    u64 m = bits == 64 ? ~0ull : (1ull << bits) - 1, u = (u64)v & m;
    return bits < 64 && (u >> (bits - 1)) ? (i64)(u | ~m) : (i64)u;
}

/* ---- callbacks of functions with stacksave/stackrestore (engine.py _alloca, _frame) */
struct frame { i64 *ids; i64 n, cap; };
static struct frame *frames;
static i64 nframes, frames_cap;

static i64 cb_alloca(i64 fid, i64 size) {
    (void)fid;
    i64 a = alloc(size, 0);
    if (pl_abort || !nframes) return a;
    struct frame *f = &frames[nframes - 1];
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 8;
        f->ids = realloc(f->ids, (size_t)f->cap * sizeof(i64));
    }
    f->ids[f->n++] = (i64)((u64)a >> 32);
    return a;
}

static void cb_frame(i64 op, i64 fid) {
    (void)fid;
    if (op == 0) {
        if (nframes == frames_cap) {
            frames_cap = frames_cap ? 2 * frames_cap : 64;
            frames = realloc(frames, (size_t)frames_cap * sizeof(struct frame));
        }
        frames[nframes++] = (struct frame){0, 0, 0};
    } else if (nframes) {
        struct frame *f = &frames[--nframes];
        for (i64 k = 0; k < f->n; k++) release(f->ids[k]);
        free(f->ids);
    }
}

static i64 cb_input(void) {
    long long v;
    if (scanf("%lld", &v) != 1) return fault("input exhausted");
    return v;
}

static void cb_print(i64 v) { printf("%lld\n", (long long)v); }

/* ---- the C library: Builtins.<name> (builtins.py) */
#define PLRT(name) i64 plrt_##name(i64 *a, i64 n)
#define ARG(k) ((k) < n ? a[k] : 0)

static i64 write_to(i64 stream, const void *data, size_t len) {
    if (stream == pl_rt_stdout) out(data, len);
    else if (stream != pl_rt_stderr) return fault("unsupported stream (only stdout and stderr)");
    return 0;
}

PLRT(zero) { (void)a; (void)n; return 0; }
PLRT(putchar) { unsigned char c = (unsigned char)ARG(0); out(&c, 1); return c; }
PLRT(puts) {
    const unsigned char *s; i64 len = cstring(ARG(0), -1, &s);
    if (len < 0) return 0;
    out(s, (size_t)len); out("\n", 1);
    return len + 1;
}
PLRT(fputs) {
    const unsigned char *s; i64 len = cstring(ARG(0), -1, &s);
    if (len < 0) return 0;
    write_to(ARG(1), s, (size_t)len);
    return 1;
}
PLRT(fputc) { unsigned char c = (unsigned char)ARG(0); write_to(ARG(1), &c, 1); return c; }
PLRT(fwrite) {
    i64 len = ARG(1) * ARG(2);
    unsigned char *p = at(ARG(0), len, 0);
    if (!p && len) return 0;
    write_to(ARG(3), p, (size_t)len);
    return ARG(1) ? ARG(2) : 0;
}

/* Builtins.format: C printf of integers and strings into a growing buffer. */
struct buf { char *p; size_t n, cap; };
static void put(struct buf *b, const void *s, size_t k) {
    if (b->n + k + 1 > b->cap) {
        while (b->n + k + 1 > b->cap) b->cap = b->cap ? 2 * b->cap : 256;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, s, k);
    b->n += k;
}
static void pad(struct buf *b, char c, i64 k) { while (k-- > 0) put(b, &c, 1); }

/* _format_int */
static void format_int(struct buf *b, const char *flags, i64 width, i64 prec, char conv,
                       i64 value, int is_signed) {
    char digits[80], prefix[3] = "";
    u64 mag = is_signed && value < 0 ? (u64)0 - (u64)value : (u64)value;
    snprintf(digits, sizeof digits, conv == 'o' ? "%llo" : conv == 'x' ? "%llx" :
             conv == 'X' ? "%llX" : "%llu", (unsigned long long)mag);
    if (prec >= 0) {
        if (mag == 0 && prec == 0) digits[0] = 0;
        else {
            size_t len = strlen(digits);
            if ((i64)len < prec && prec < 64) {
                memmove(digits + (prec - len), digits, len + 1);
                memset(digits, '0', (size_t)prec - len);
            }
        }
    }
    int neg = is_signed && value < 0;
    if (neg) strcpy(prefix, "-");
    else if ((conv == 'd' || conv == 'i') && strchr(flags, '+')) strcpy(prefix, "+");
    else if ((conv == 'd' || conv == 'i') && strchr(flags, ' ')) strcpy(prefix, " ");
    if (strchr(flags, '#')) {
        if (conv == 'o' && digits[0] != '0') {
            memmove(digits + 1, digits, strlen(digits) + 1);
            digits[0] = '0';
        } else if ((conv == 'x' || conv == 'X') && value != 0) {
            prefix[0] = '0'; prefix[1] = conv; prefix[2] = 0;
        }
    }
    i64 lp = (i64)strlen(prefix), ld = (i64)strlen(digits), body = lp + ld;
    if (body < width && strchr(flags, '-')) {
        put(b, prefix, (size_t)lp); put(b, digits, (size_t)ld); pad(b, ' ', width - body);
    } else if (body < width && strchr(flags, '0') && prec < 0) {
        put(b, prefix, (size_t)lp); pad(b, '0', width - body); put(b, digits, (size_t)ld);
    } else {
        pad(b, ' ', width - body); put(b, prefix, (size_t)lp); put(b, digits, (size_t)ld);
    }
}

static void format_text(struct buf *b, const char *flags, i64 width, const void *s, i64 len) {
    if (!strchr(flags, '-')) pad(b, ' ', width - len);
    put(b, s, (size_t)len);
    if (strchr(flags, '-')) pad(b, ' ', width - len);
}

/* printf's arguments: the call's own (0 when there are no more), or an x86-64 ``va_list``
 * (Builtins._va_args: gp registers while gp_offset <= 40, then 8-byte overflow slots). */
struct args { i64 *a; i64 n, used; i64 ap, gp, overflow, save; };

/* The va_list header is read once, when the call starts (the va_list itself is not changed). */
static int va_start_args(struct args *s) {
    if (!s->ap) return 1;
    unsigned char *p = at(s->ap, 24, 0);
    if (!p) return 0;
    uint32_t gp;
    memcpy(&gp, p, 4); memcpy(&s->overflow, p + 8, 8); memcpy(&s->save, p + 16, 8);
    s->gp = gp;
    return 1;
}

static i64 next_arg(struct args *s) {
    if (!s->ap) return s->used < s->n ? s->a[s->used++] : 0;
    i64 addr, v;
    if (s->gp <= 40) { addr = s->save + s->gp; s->gp += 8; }
    else { addr = s->overflow; s->overflow += 8; }
    unsigned char *q = at(addr, 8, 0);
    if (!q) return 0;
    memcpy(&v, q, 8);
    return v;
}

/* Returns 0 after a fault. */
static int format(struct buf *b, i64 fmt, struct args *args) {
    const unsigned char *f;
    i64 flen = cstring(fmt, -1, &f);
    if (flen < 0 || !va_start_args(args)) return 0;
#define NEXT() next_arg(args)
    for (i64 i = 0; i < flen;) {
        if (f[i] != '%') { put(b, f + i, 1); i++; continue; }
        i64 j = i + 1;
        char flags[80]; size_t nf = 0;
        while (j < flen && strchr("-+ #0", f[j]) && nf + 2 < sizeof flags) flags[nf++] = (char)f[j++];
        flags[nf] = 0;
        i64 width = 0, prec = -1;
        if (j < flen && f[j] == '*') { j++; width = -2; }
        else while (j < flen && f[j] >= '0' && f[j] <= '9') width = width * 10 + (f[j++] - '0');
        if (j < flen && f[j] == '.') {
            j++;
            if (j < flen && f[j] == '*') { j++; prec = -2; }
            else { prec = 0; while (j < flen && f[j] >= '0' && f[j] <= '9') prec = prec * 10 + (f[j++] - '0'); }
        }
        int len_bits = 32, umask_bits = 32;   /* _SIGNED_BITS, _UNSIGNED_MASK */
        if (j + 1 < flen && f[j] == 'h' && f[j + 1] == 'h') { len_bits = umask_bits = 8; j += 2; }
        else if (j + 1 < flen && f[j] == 'l' && f[j + 1] == 'l') { len_bits = umask_bits = 64; j += 2; }
        else if (j < flen && f[j] == 'h') { len_bits = umask_bits = 16; j++; }
        else if (j < flen && strchr("ljztLq", f[j])) { len_bits = umask_bits = 64; j++; }
        if (j >= flen) { put(b, f + i, 1); i++; continue; }   /* no conversion: a plain '%' */
        char conv = (char)f[j];
        i = j + 1;
        if (conv == '%') { put(b, "%", 1); continue; }
        if (width == -2) {
            i64 w = wrap(NEXT(), 32);
            if (w < 0) { if (nf + 2 < sizeof flags) { flags[nf++] = '-'; flags[nf] = 0; } w = -w; }
            width = w;
        }
        if (prec == -2) { i64 p = wrap(NEXT(), 32); prec = p >= 0 ? p : -1; }
        if (conv == 'n') { fault("printf: %n is not supported"); return 0; }
        i64 v = NEXT();
        if (conv == 'd' || conv == 'i') {
            format_int(b, flags, width, prec, conv, wrap(v, len_bits), 1);
        } else if (conv == 'u' || conv == 'x' || conv == 'X' || conv == 'o') {
            u64 m = umask_bits == 64 ? ~0ull : (1ull << umask_bits) - 1;
            format_int(b, flags, width, prec, conv, (i64)((u64)v & m), 0);
        } else if (conv == 'c') {
            unsigned char c = (unsigned char)v;
            format_text(b, flags, width, &c, 1);
        } else if (conv == 's') {
            const unsigned char *s;
            i64 len = cstring(v, prec, &s);
            if (len < 0) return 0;
            format_text(b, flags, width, s, len);
        } else if (conv == 'p') {
            char text[40];
            if (v) snprintf(text, sizeof text, "%#llx", (unsigned long long)v);
            else strcpy(text, "(nil)");
            format_text(b, flags, width, text, (i64)strlen(text));
        } else {
            fault("printf: unsupported conversion");
            return 0;
        }
    }
#undef NEXT
    return 1;
}

static i64 print_to(i64 stream, i64 fmt, struct args args) {
    struct buf b = {0, 0, 0};
    if (format(&b, fmt, &args)) write_to(stream, b.p, b.n);
    free(b.p);
    return (i64)b.n;
}

static i64 print_into(i64 dst, int bounded, i64 size, i64 fmt, struct args args) {
    struct buf b = {0, 0, 0};
    if (format(&b, fmt, &args)) {
        i64 k = bounded ? ((u64)size ? ((u64)size - 1 < b.n ? (i64)size - 1 : (i64)b.n) : -1) : (i64)b.n;
        if (k >= 0) {
            unsigned char *p = at(dst, k + 1, 1);
            if (p) { memcpy(p, b.p, (size_t)k); p[k] = 0; }
        }
    }
    free(b.p);
    return (i64)b.n;
}

#define REST(k) ((struct args){n > (k) ? a + (k) : a, n > (k) ? n - (k) : 0, 0, 0, 0, 0, 0})
#define VA(k) ((struct args){0, 0, 0, ARG(k), 0, 0, 0})
PLRT(printf) { return print_to(pl_rt_stdout, ARG(0), REST(1)); }
PLRT(fprintf) { return print_to(ARG(0), ARG(1), REST(2)); }
PLRT(sprintf) { return print_into(ARG(0), 0, 0, ARG(1), REST(2)); }
PLRT(snprintf) { return print_into(ARG(0), 1, ARG(1), ARG(2), REST(3)); }
PLRT(printf_chk) { return print_to(pl_rt_stdout, ARG(1), REST(2)); }
PLRT(fprintf_chk) { return print_to(ARG(0), ARG(2), REST(3)); }
PLRT(sprintf_chk) { return print_into(ARG(0), 0, 0, ARG(3), REST(4)); }
PLRT(snprintf_chk) { return print_into(ARG(0), 1, ARG(1), ARG(4), REST(5)); }
PLRT(vprintf) { return print_to(pl_rt_stdout, ARG(0), VA(1)); }
PLRT(vfprintf) { return print_to(ARG(0), ARG(1), VA(2)); }
PLRT(vsprintf) { return print_into(ARG(0), 0, 0, ARG(1), VA(2)); }
PLRT(vsnprintf) { return print_into(ARG(0), 1, ARG(1), ARG(2), VA(3)); }
PLRT(vprintf_chk) { return print_to(pl_rt_stdout, ARG(1), VA(2)); }
PLRT(vfprintf_chk) { return print_to(ARG(0), ARG(2), VA(3)); }
PLRT(vsprintf_chk) { return print_into(ARG(0), 0, 0, ARG(3), VA(4)); }
PLRT(vsnprintf_chk) { return print_into(ARG(0), 1, ARG(1), ARG(4), VA(5)); }

/* process */
PLRT(abort) { (void)a; (void)n; fflush(stdout); _Exit(134); }
PLRT(exit) { (void)n; fflush(stdout); _Exit((int)(ARG(0) & 0xFF)); }
PLRT(assert_fail) {
    const unsigned char *s = (const unsigned char *)"?";
    i64 len = 1;
    if (ARG(0)) { len = cstring(ARG(0), -1, &s); if (len < 0) return 0; }
    out("assertion failed: ", 18); out(s, (size_t)len); out("\n", 1);
    fflush(stdout);
    _Exit(134);
}
PLRT(stacksave) { (void)a; (void)n; return nframes ? frames[nframes - 1].n : 0; }
PLRT(stackrestore) {
    if (!nframes) return 0;
    struct frame *f = &frames[nframes - 1];
    i64 mark = ARG(0);
    if (mark < 0) mark = 0;
    for (i64 k = mark; k < f->n; k++) release(f->ids[k]);
    if (mark < f->n) f->n = mark;
    return 0;
}

/* heap */
PLRT(malloc) { return alloc(ARG(0), 1); }
PLRT(calloc) { return alloc(ARG(0) * ARG(1), 1); }
static i64 free_heap(i64 p) {   /* Memory.free_heap */
    if (!p) return 0;
    i64 sid = (i64)((u64)p >> 32);
    if ((p & MASK32) || pl_segtab[slot(sid)] != sid || sid >= heap_cap || !is_heap[sid])
        return fault("free of a pointer not returned by malloc (or freed already)");
    release(sid);
    return 0;
}
PLRT(free) { return free_heap(ARG(0)); }
PLRT(realloc) {
    i64 size = ARG(1), p = ARG(0), q = alloc(size, 1);
    if (pl_abort) return 0;
    if (p) {
        unsigned char *src = at(p, 0, 0);
        if (!src) return 0;
        i64 sid = (i64)((u64)p >> 32), room = pl_segtab[slot(sid) + 2] - (p & MASK32);
        i64 k = room < size ? room : size;
        unsigned char *old = malloc((size_t)k + 1);
        memcpy(old, src, (size_t)k);
        free_heap(p);
        if (!pl_abort) { unsigned char *dst = at(q, k, 1); if (dst) memcpy(dst, old, (size_t)k); }
        free(old);
    }
    return q;
}
PLRT(strdup) {
    const unsigned char *s; i64 len = cstring(ARG(0), -1, &s);
    if (len < 0) return 0;
    unsigned char *copy = malloc((size_t)len + 1);
    memcpy(copy, s, (size_t)len);
    copy[len] = 0;
    i64 q = alloc(len + 1, 1);
    if (!pl_abort) memcpy(at(q, len + 1, 1), copy, (size_t)len + 1);
    free(copy);
    return q;
}

/* memory and strings */
static i64 compare(const unsigned char *x, const unsigned char *y, i64 k) {
    for (i64 i = 0; i < k; i++) if (x[i] != y[i]) return (i64)x[i] - (i64)y[i];
    return 0;
}
PLRT(memcmp) {
    unsigned char *x = at(ARG(0), ARG(2), 0), *y;
    if (!x) return 0;
    if (!(y = at(ARG(1), ARG(2), 0))) return 0;
    return compare(x, y, ARG(2));
}
PLRT(strlen) { const unsigned char *s; i64 len = cstring(ARG(0), -1, &s); return len < 0 ? 0 : len; }
PLRT(strcmp) {
    const unsigned char *x, *y;
    i64 lx = cstring(ARG(0), -1, &x); if (lx < 0) return 0;
    i64 ly = cstring(ARG(1), -1, &y); if (ly < 0) return 0;
    return compare(x, y, (lx < ly ? lx : ly) + 1);   /* the NULs included */
}
PLRT(strncmp) {
    i64 k = ARG(2);
    if (k == 0) return 0;
    const unsigned char *x, *y;
    i64 lx = cstring(ARG(0), k, &x); if (lx < 0) return 0;
    i64 ly = cstring(ARG(1), k, &y); if (ly < 0) return 0;
    i64 m = (lx < ly ? lx : ly) + 1;
    if ((u64)m > (u64)k) m = k;
    for (i64 i = 0; i < m; i++) {
        int cx = i < lx ? x[i] : 0, cy = i < ly ? y[i] : 0;
        if (cx != cy) return cx - cy;
    }
    return 0;
}
PLRT(strcpy) {
    const unsigned char *s; i64 len = cstring(ARG(1), -1, &s);
    if (len < 0) return 0;
    unsigned char *d = at(ARG(0), len + 1, 1);
    if (d) memmove(d, s, (size_t)len + 1);
    return ARG(0);
}
PLRT(strncpy) {
    i64 k = ARG(2);
    if (!k) return ARG(0);
    const unsigned char *s; i64 len = cstring(ARG(1), k, &s);
    if (len < 0) return 0;
    unsigned char *d = at(ARG(0), k, 1);
    if (d) { memmove(d, s, (size_t)len); memset(d + len, 0, (size_t)(k - len)); }
    return ARG(0);
}
PLRT(strcat) {
    const unsigned char *x, *s;
    i64 lx = cstring(ARG(0), -1, &x); if (lx < 0) return 0;
    i64 ls = cstring(ARG(1), -1, &s); if (ls < 0) return 0;
    unsigned char *d = at(ARG(0) + lx, ls + 1, 1);
    if (d) memmove(d, s, (size_t)ls + 1);
    return ARG(0);
}
PLRT(strchr) {
    const unsigned char *s; i64 len = cstring(ARG(0), -1, &s);
    if (len < 0) return 0;
    unsigned char c = (unsigned char)ARG(1);
    for (i64 i = 0; i <= len; i++) if (s[i] == c || (i == len && c == 0)) return ARG(0) + i;
    return 0;
}
PLRT(strrchr) {
    const unsigned char *s; i64 len = cstring(ARG(0), -1, &s);
    if (len < 0) return 0;
    unsigned char c = (unsigned char)ARG(1);
    if (c == 0) return ARG(0) + len;
    for (i64 i = len - 1; i >= 0; i--) if (s[i] == c) return ARG(0) + i;
    return 0;
}

/* numbers */
PLRT(abs) { i64 x = wrap(ARG(0), 32); return wrap(x < 0 ? -x : x, 32); }
PLRT(labs) { i64 x = ARG(0); return x < 0 ? (i64)(0 - (u64)x) : x; }

static i64 strto(i64 s, i64 endp, i64 base, int is_signed) {   /* Builtins._strto */
    const unsigned char *t; i64 len = cstring(s, -1, &t);
    if (len < 0) return 0;
    i64 i = 0;
    while (i < len && strchr(" \t\n\v\f\r", t[i])) i++;
    int neg = 0;
    if (i < len && (t[i] == '+' || t[i] == '-')) { neg = t[i] == '-'; i++; }
    base = wrap(base, 32);
    if ((base == 0 || base == 16) && i + 2 < len && t[i] == '0' && (t[i + 1] | 32) == 'x' &&
        strchr("0123456789abcdefABCDEF", t[i + 2]) && t[i + 2]) { i += 2; base = 16; }
    else if (base == 0) base = i < len && t[i] == '0' ? 8 : 10;
    i64 start = i;
    int over = 0;
    u64 value = 0;   /* saturates: only its sign and clamping matter beyond 64 bits */
    while (i < len) {
        int c = t[i], d = c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'z' ? (c | 32) - 'a' + 10 : 99;
        if (d >= base) break;
        if (value > (~0ull - (u64)d) / (u64)base) over = 1;
        value = value * (u64)base + (u64)d;
        i++;
    }
    if (i == start) { i = 0; value = 0; neg = 0; over = 0; }
    if (endp) {
        unsigned char *p = at(endp, 8, 1);
        if (!p) return 0;
        i64 e = s + i;
        memcpy(p, &e, 8);
    }
    if (is_signed) {
        if (over || (!neg && value > (u64)INT64_MAX)) return neg ? INT64_MIN : INT64_MAX;
        if (neg) return value > (u64)INT64_MAX + 1 ? INT64_MIN : (i64)(0 - value);
        return (i64)value;
    }
    if (over) return -1;
    return neg ? (i64)(0 - value) : (i64)value;
}
PLRT(strtol) { return strto(ARG(0), ARG(1), ARG(2), 1); }
PLRT(strtoul) { return strto(ARG(0), ARG(1), ARG(2), 0); }
PLRT(atoi) { return wrap(strto(ARG(0), 0, 10, 1), 32); }
PLRT(atol) { return strto(ARG(0), 0, 10, 1); }
PLRT(toupper) { i64 c = wrap(ARG(0), 32); return c >= 97 && c <= 122 ? c - 32 : c; }
PLRT(tolower) { i64 c = wrap(ARG(0), 32); return c >= 65 && c <= 90 ? c + 32 : c; }

/* ---- start: the interpreter's run (engine.py NativeMachine.run, machine.py) */
static i64 entry_args[64];
static i64 result;

static void *run_entry(void *unused) {
    (void)unused;
    result = pl_rt_main(entry_args);
    return NULL;
}

int main(int argc, char **argv) {
    pl_segcap = 1024;
    while (pl_segcap < pl_rt_nglobals + 256) pl_segcap *= 2;
    window = (i64)1 << 18;
    pl_winmask = window - 1;
    pl_segtab = calloc((size_t)(pl_segcap + window) * 3, sizeof(i64));
    pl_astack = calloc(ASTACK, sizeof(i64));
    pl_acap = ASTACK;
    pl_limit = pl_rt_memlimit;
    pl_fuel = pl_rt_fuel;
    pl_maxdepth = pl_rt_maxdepth + 1;   /* engine.py reset */
    pl_cb_alloca = (void *)cb_alloca; pl_cb_frame = (void *)cb_frame;
    pl_cb_builtin = (void *)pl_rt_dispatch; pl_cb_input = (void *)cb_input;
    pl_cb_print = (void *)cb_print;
    readonly_ids = calloc((size_t)pl_rt_nglobals + 1, sizeof(i64));
    for (i64 k = 0; k < pl_rt_nglobals; k++) {
        const struct pl_global *g = &pl_rt_globals[k];
        i64 addr = alloc(g->size > g->init_len ? g->size : g->init_len, 0);
        if (pl_abort || addr != (k + 1) << 32) break;
        memcpy(at(addr, g->init_len, 0), g->init, (size_t)g->init_len);
        if (g->readonly) readonly_ids[n_readonly++] = k + 1;
    }
    for (int k = 1; k < argc && k <= 64; k++)   /* the entry's arguments (``run --args``) */
        entry_args[k - 1] = strtoll(argv[k], NULL, 0);
    if (!pl_abort) {
        pthread_attr_t attr;
        pthread_t th;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, STACK_SIZE);   /* deep PIR recursion is native */
        if (pthread_create(&th, &attr, run_entry, NULL)) { fault("no thread for the run"); }
        else pthread_join(th, NULL);
    }
    fflush(stdout);
    if (pl_abort || pl_steps > pl_fuel) {
        const char *why = pl_abort == 2 || (!pl_abort) ? "fuel exhausted" :
                          pl_abort == 3 ? "call depth limit exceeded" :
                          fault_message ? fault_message : "fault";
        fprintf(stderr, "pathlogic: run-time error: %s\n", why);
        return ERROR_STATUS;
    }
    return (int)(result & 0xFF);
}
