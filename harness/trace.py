# gdb script of harness/trace.sh: stop at FUNC in the bench kernel, step it
# one instruction at a time to its return and write the program counters to
# OUT.  Run inside gdb (gdb -batch -ex "source harness/trace.py").
#
# FUNC takes the VMA in its first argument (%rdi; x0 with TRACE_ARCH=arm64);
# only calls for a VMA of LEN bytes are traced, and only once the serial log
# holds AFTER (the line "bench KIND" of the case before the one wanted).
# A call that runs longer than MAX instructions is given up (it is some
# other case), unless PARTIAL is set: then its first MAX instructions are
# the trace.  LEN 0 traces the first call after AFTER whatever its
# arguments (FUNC need not take a VMA); MINLEN, with LEN 0, takes a VMA of
# at least MINLEN bytes; SKIP skips that many of the calls that match.
import os
import gdb

FN = os.environ['TRACE_FUNC']
LEN = int(os.environ['TRACE_LEN'], 0)
MINLEN = int(os.environ.get('TRACE_MINLEN', '0'), 0)
AFTER = os.environ.get('TRACE_AFTER', '')
MAX = int(os.environ.get('TRACE_MAX', '40000'))
SKIP = int(os.environ.get('TRACE_SKIP', '0'))
PARTIAL = os.environ.get('TRACE_PARTIAL', '') not in ('', '0')
OUT = os.environ['TRACE_OUT']
ARM64 = os.environ.get('TRACE_ARCH', 'x86_64') == 'arm64'
SERIAL = os.environ['TRACE_SERIAL']
MASK = (1 << 64) - 1
inf = gdb.selected_inferior()


def reg(expr):
    return int(gdb.parse_and_eval('(long)' + expr)) & MASK


def rd(addr):
    return int.from_bytes(inf.read_memory(addr, 8).tobytes(), 'little')


gdb.execute('target remote :' + os.environ['TRACE_PORT'])
gdb.execute('hbreak *0x%x' % reg('&' + FN))
while True:
    gdb.execute('continue')
    vma = reg('$x0' if ARM64 else '$rdi')
    if LEN and rd(vma + 8) - rd(vma) != LEN:
        continue
    if MINLEN and rd(vma + 8) - rd(vma) < MINLEN:
        continue
    with open(SERIAL, errors='replace') as f:
        if AFTER and AFTER not in f.read():
            continue
    if SKIP:
        SKIP -= 1
        continue
    # Where the call returns to: the link register at the first
    # instruction (before a paciasp signs it), the top of the stack on x86.
    ret = reg('$x30') if ARM64 else rd(reg('$rsp'))
    pcs = []
    while len(pcs) < MAX:
        pc = reg('$pc')
        if pc == ret:
            break
        pcs.append(pc)
        gdb.execute('stepi', to_string=True)
    if len(pcs) >= MAX and not PARTIAL:
        print('trace.py: longer than %d instructions, skipped' % MAX)
        continue
    with open(OUT, 'w') as f:
        f.write('\n'.join('%x' % p for p in pcs) + '\n')
    print('trace.py: %d instructions' % len(pcs))
    break
gdb.execute('kill')
