/*
 * A qemu TCG plugin counting the guest's instructions (kernel and user,
 * every vCPU) and writing the running count each time the guest executes
 * ringlab's marker, so a guest program can bracket a piece of work and
 * read its cost in instructions, which TCG does not distort as it does
 * time.
 *
 * The marker is `nopl 0x524cIIII(%rax)` (0f 1f 80, then the 32-bit
 * displacement little-endian): a no-op whose displacement's high half,
 * "RL", nothing else emits; its low half IIII is the marker's id.
 *
 * Run qemu with -accel tcg,thread=single: one thread runs every vCPU, so
 * the inline add on one shared counter is exact.
 *
 * Output (out=FILE, else qemu's log, -d plugin): one line a marker,
 * `ringlab-insn ID COUNT`, and `ringlab-insn total COUNT` at exit.
 *
 * profile=1 also counts each translated block's own instructions and, at
 * every odd marker (a case's end; its start is the marker before), writes
 * `ringlab-prof ID PC COUNT` for each block that ran since the previous
 * marker: PC is the block's first guest address, COUNT its instructions.
 * The host maps PCs to functions with the kernel's System.map.
 *
 * Build: cc -shared -fPIC -O2 -o insn_count.so insn_count.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few declarations of qemu's plugin API (qemu-plugin.h, API version
 * 1 as in qemu 7.2) this plugin uses; qemu resolves them at load. */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t count;
static FILE *out;

/* profile=1: one record per translated block; a block translated again
 * gets another record, which the host adds up by PC. */
struct block {
    uint64_t pc;
    uint64_t insns; /* executed, since the start */
    uint64_t mark;  /* insns at the previous marker */
};
static int profile;
static struct block **blocks;
static size_t n_blocks, cap_blocks;
static int profile_lost; /* a block went uncounted: no memory */

static void emit(const char *line)
{
    if (out) {
        fputs(line, out);
        /* flushed now: the VM may be stopped rather than exit */
        fflush(out);
    } else {
        qemu_plugin_outs(line);
    }
}

/* The whole block's instructions are added as it starts, so a marker's
 * count includes the rest of its block: a few instructions, the same
 * for every marker of a program, which a difference of two cancels. */
static void on_marker(unsigned int vcpu, void *id)
{
    char line[80];
    unsigned mid = (unsigned)(uintptr_t)id;
    (void)vcpu;
    snprintf(line, sizeof line, "ringlab-insn %u %llu\n", mid, (unsigned long long)count);
    emit(line);
    if (profile_lost && (mid & 1))
        emit("ringlab-prof lost\n");
    for (size_t i = 0; i < n_blocks; i++) {
        struct block *b = blocks[i];
        uint64_t d = b->insns - b->mark;
        b->mark = b->insns;
        if (d && (mid & 1)) {
            snprintf(line, sizeof line, "ringlab-prof %u %llx %llu\n", mid, (unsigned long long)b->pc,
                     (unsigned long long)d);
            emit(line);
        }
    }
}

/* A record for the block, counted inline like the total; NULL when out of
 * memory, and the profile says so at exit. */
static struct block *new_block(uint64_t pc)
{
    struct block *b;
    if (n_blocks == cap_blocks) {
        size_t cap = cap_blocks ? 2 * cap_blocks : 4096;
        struct block **nb = realloc(blocks, cap * sizeof *nb);
        if (!nb)
            return NULL;
        blocks = nb;
        cap_blocks = cap;
    }
    b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->pc = pc;
    blocks[n_blocks++] = b;
    return b;
}

static int is_marker(const uint8_t *b, size_t n, unsigned *id)
{
    if (n != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80 || b[5] != 0x4c || b[6] != 0x52)
        return 0;
    *id = b[3] | (unsigned)b[4] << 8;
    return 1;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &count, n);
    if (profile) {
        struct block *b = new_block(qemu_plugin_tb_vaddr(tb));
        if (b)
            qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->insns, n);
        else
            profile_lost = 1;
    }
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        unsigned mid;
        if (is_marker(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn), &mid))
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)mid);
    }
}

static void on_quit(qemu_plugin_id_t id, void *p)
{
    char line[80];
    (void)id;
    (void)p;
    snprintf(line, sizeof line, "ringlab-insn total %llu\n", (unsigned long long)count);
    emit(line);
    if (out)
        fclose(out);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                                              char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            out = fopen(argv[i] + 4, "w");
            if (!out) {
                fprintf(stderr, "insn_count: cannot write %s\n", argv[i] + 4);
                return -1;
            }
        } else if (strcmp(argv[i], "profile=1") == 0) {
            profile = 1;
        } else {
            fprintf(stderr, "insn_count: unknown argument '%s' (only out=FILE, profile=1)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_quit, NULL);
    return 0;
}
