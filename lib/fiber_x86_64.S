/* lib/fiber_x86_64.S — fiber context switch for x86-64 System V (see fiber.h).
 *
 * Saved on the suspended fiber's stack, lowest address first:
 *   [sp+0] MXCSR (4 bytes), x87 control word (2 bytes), padding
 *   [sp+8] r15, r14, r13, r12, rbx, rbp, then the return address.
 * These are all the registers the ABI says a callee must preserve; the
 * vector registers are caller-saved, so a call to the switch already
 * treats them as clobbered.
 */
#if defined(__x86_64__)

    .text

/* void spvjit_fiber_swap(void **save_sp, void *load_sp) */
    .globl  spvjit_fiber_swap
    .hidden spvjit_fiber_swap
    .type   spvjit_fiber_swap, @function
    .p2align 4
spvjit_fiber_swap:
    .cfi_startproc
    /* The CFI below stays true across the stack switch: both stacks hold
     * the same frame shape, so profilers and debuggers unwind correctly. */
    pushq   %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbp, 0
    pushq   %rbx
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbx, 0
    pushq   %r12
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r12, 0
    pushq   %r13
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r13, 0
    pushq   %r14
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r14, 0
    pushq   %r15
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r15, 0
    subq    $8, %rsp
    .cfi_adjust_cfa_offset 8
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
    /* Loads the size of the stores above, so they forward without a stall. */
    movl    (%rsp), %eax
    movzwl  4(%rsp), %edx
    movq    %rsp, (%rdi)
    movq    %rsi, %rsp
    /* Loading MXCSR and the x87 control word is slow (fldcw serializes the
     * x87 unit): skip it when the resumed context has the same values. */
    cmpl    (%rsp), %eax
    jne     2f
    cmpw    4(%rsp), %dx
    jne     2f
1:
    .cfi_remember_state
    addq    $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq    %r15
    .cfi_adjust_cfa_offset -8
    popq    %r14
    .cfi_adjust_cfa_offset -8
    popq    %r13
    .cfi_adjust_cfa_offset -8
    popq    %r12
    .cfi_adjust_cfa_offset -8
    popq    %rbx
    .cfi_adjust_cfa_offset -8
    popq    %rbp
    .cfi_adjust_cfa_offset -8
    ret
2:
    .cfi_restore_state
    ldmxcsr (%rsp)
    fldcw   4(%rsp)
    jmp     1b
    .cfi_endproc
    .size   spvjit_fiber_swap, .-spvjit_fiber_swap

/* First code a new fiber runs, entered by the `ret` of spvjit_fiber_swap
 * with a frame built by spvjit_fiber_init: r12 = function, r13 = argument.
 * The stack pointer is 16-byte aligned here, as a call needs.  The function
 * never returns; the trap catches a bug if it does. */
    .globl  spvjit_fiber_trampoline
    .hidden spvjit_fiber_trampoline
    .type   spvjit_fiber_trampoline, @function
    .p2align 4
spvjit_fiber_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    movq    %r13, %rdi
    call    *%r12
    ud2
    .cfi_endproc
    .size   spvjit_fiber_trampoline, .-spvjit_fiber_trampoline

#endif

    .section .note.GNU-stack,"",@progbits
