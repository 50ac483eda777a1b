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
 * Build: cc -shared -fPIC -O2 -o insn_count.so insn_count.c
 */
#include <stdint.h>
#include <stdio.h>
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
    (void)vcpu;
    snprintf(line, sizeof line, "ringlab-insn %u %llu\n", (unsigned)(uintptr_t)id, (unsigned long long)count);
    emit(line);
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
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        unsigned mid;
        if (is_marker(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn), &mid))
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)mid);
    }
}

static void on_exit(qemu_plugin_id_t id, void *p)
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
        } else {
            fprintf(stderr, "insn_count: unknown argument '%s' (only out=FILE)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_exit, NULL);
    return 0;
}
