/* lib/fiber_aarch64.S — fiber context switch for AArch64 (AAPCS64, see fiber.h).
 *
 * Saved on the suspended fiber's stack (176 bytes, 16-byte aligned):
 *   [sp+0..95]    x19..x28, x29 (frame pointer), x30 (link register)
 *   [sp+96..159]  d8..d15 (the callee-saved low halves of v8..v15)
 *   [sp+160]      FPCR (rounding mode, flush-to-zero), then padding
 */
#if defined(__aarch64__)

    .text

/* void spvjit_fiber_swap(void **save_sp, void *load_sp) */
    .globl  spvjit_fiber_swap
    .hidden spvjit_fiber_swap
    .type   spvjit_fiber_swap, %function
    .p2align 4
spvjit_fiber_swap:
    .cfi_startproc
    /* The CFI stays true across the stack switch: both stacks hold the
     * same frame shape, so profilers and debuggers unwind correctly. */
    sub     sp, sp, #176
    .cfi_adjust_cfa_offset 176
    stp     x19, x20, [sp, #0]
    stp     x21, x22, [sp, #16]
    stp     x23, x24, [sp, #32]
    stp     x25, x26, [sp, #48]
    stp     x27, x28, [sp, #64]
    stp     x29, x30, [sp, #80]
    .cfi_rel_offset x19, 0
    .cfi_rel_offset x20, 8
    .cfi_rel_offset x21, 16
    .cfi_rel_offset x22, 24
    .cfi_rel_offset x23, 32
    .cfi_rel_offset x24, 40
    .cfi_rel_offset x25, 48
    .cfi_rel_offset x26, 56
    .cfi_rel_offset x27, 64
    .cfi_rel_offset x28, 72
    .cfi_rel_offset x29, 80
    .cfi_rel_offset x30, 88
    stp     d8, d9, [sp, #96]
    stp     d10, d11, [sp, #112]
    stp     d12, d13, [sp, #128]
    stp     d14, d15, [sp, #144]
    mrs     x9, fpcr
    str     x9, [sp, #160]
    mov     x10, sp
    str     x10, [x0]
    mov     sp, x1
    ldr     x10, [sp, #160]
    /* Writing FPCR can stall the pipeline; skip it when nothing changes. */
    cmp     x9, x10
    b.eq    1f
    msr     fpcr, x10
1:
    ldp     x19, x20, [sp, #0]
    ldp     x21, x22, [sp, #16]
    ldp     x23, x24, [sp, #32]
    ldp     x25, x26, [sp, #48]
    ldp     x27, x28, [sp, #64]
    ldp     x29, x30, [sp, #80]
    ldp     d8, d9, [sp, #96]
    ldp     d10, d11, [sp, #112]
    ldp     d12, d13, [sp, #128]
    ldp     d14, d15, [sp, #144]
    add     sp, sp, #176
    .cfi_adjust_cfa_offset -176
    ret
    .cfi_endproc
    .size   spvjit_fiber_swap, .-spvjit_fiber_swap

/* First code a new fiber runs, entered by the `ret` of spvjit_fiber_swap
 * with a frame built by spvjit_fiber_init: x19 = function, x20 = argument,
 * x29 = 0 (ends frame-pointer backtraces).  The function never returns. */
    .globl  spvjit_fiber_trampoline
    .hidden spvjit_fiber_trampoline
    .type   spvjit_fiber_trampoline, %function
    .p2align 4
spvjit_fiber_trampoline:
    .cfi_startproc
    .cfi_undefined x30
    mov     x0, x20
    blr     x19
    brk     #0x3e8
    .cfi_endproc
    .size   spvjit_fiber_trampoline, .-spvjit_fiber_trampoline

#endif

    .section .note.GNU-stack,"",%progbits
