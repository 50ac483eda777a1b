//! The marker kernel/vm/insn-count/insn_count.c recognises: `nopl
//! 0x524cIIII(%rax)`, a no-op nothing else emits ("RL" in its
//! displacement's high half), its id IIII in the low half. Executed in the
//! guest, it makes the plugin write its running instruction count.

/// Executes marker `id` (0..=15: the ids are immediates of the
/// instruction, so each has its own copy of it).
pub fn mark(id: u16) {
    macro_rules! at {
        ($($n:literal)*) => {
            match id {
                $($n => emit::<$n>(),)*
                _ => {}
            }
        };
    }
    at!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

#[inline(always)]
fn emit<const ID: u8>() {
    #[cfg(target_arch = "x86_64")]
    // Safety: a no-op that reads and writes nothing (nopl ignores its operand).
    unsafe {
        std::arch::asm!(".byte 0x0f, 0x1f, 0x80, {id}, 0x00, 0x4c, 0x52", id = const ID, options(nostack, preserves_flags));
    }
}
