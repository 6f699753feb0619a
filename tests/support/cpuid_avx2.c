/* A process that sees an x86-64 CPU with AVX2 but neither AVX-512 nor VNNI, on a CPU that
 * has them: loaded with LD_PRELOAD, it turns on Linux's CPUID faulting (arch_prctl
 * ARCH_SET_CPUID), so every CPUID instruction traps; the handler runs the real
 * instruction and clears the feature bits before it returns.  Libraries that choose their
 * kernels by CPUID (ONNX Runtime's MLAS, numpy) then take their AVX2 paths.
 * tests/support/cpu.py builds it; docs/dependencies.md says how to run tests under it. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* Leaf 7, sub-leaf 0: AVX512F, DQ, IFMA, PF, ER, CD, BW, VL (EBX); VBMI, VBMI2, VNNI,
 * BITALG, VPOPCNTDQ (ECX); 4VNNIW, 4FMAPS, VP2INTERSECT, FP16 (EDX).  Sub-leaf 1: AVX-VNNI,
 * AVX512_BF16, AVX-VNNI-INT8 (EAX). */
#define EBX7 ((1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) | (1u << 28) \
              | (1u << 30) | (1u << 31))
#define ECX7 ((1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14))
#define EDX7 ((1u << 2) | (1u << 3) | (1u << 8) | (1u << 23))
#define EAX71 ((1u << 4) | (1u << 5) | (1u << 23))

static void on_fault(int sig, siginfo_t *info, void *raw) {
    (void)info;
    ucontext_t *context = raw;
    greg_t *reg = context->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)reg[REG_RIP];
    if (ip[0] != 0x0f || ip[1] != 0xa2) { /* not CPUID: a real fault */
        signal(sig, SIG_DFL);
        return;
    }
    unsigned leaf = (unsigned)reg[REG_RAX], sub = (unsigned)reg[REG_RCX], a, b, c, d;
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
    __cpuid_count(leaf, sub, a, b, c, d);
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0);
    if (leaf == 7 && sub == 0) {
        b &= ~EBX7;
        c &= ~ECX7;
        d &= ~EDX7;
    } else if (leaf == 7 && sub == 1) {
        a &= ~EAX71;
    }
    reg[REG_RAX] = a;
    reg[REG_RBX] = b;
    reg[REG_RCX] = c;
    reg[REG_RDX] = d;
    reg[REG_RIP] += 2;
}

__attribute__((constructor)) static void start(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &action, NULL);
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0);
}
