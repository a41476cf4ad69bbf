#!/usr/bin/env python3
"""Opcode histogram per kernel from `cuobjdump -sass <binary>` output (stdin).

Answers "what does the multiplication compile to" without reading thousands of
SASS lines: total instructions and the main opcode families per function.
  cuobjdump -sass cuzk-gpu-bench | python3 sass_histogram.py [name-filter]
"""
import collections
import re
import sys

flt = sys.argv[1] if len(sys.argv) > 1 else ""
func = None
counts = collections.OrderedDict()
for line in sys.stdin:
    m = re.match(r"\s+Function : (\S+)", line)
    if m:
        func = m.group(1)
        if flt in func:
            counts[func] = collections.Counter()
        continue
    if func is None or func not in counts:
        continue
    m = re.match(r"\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
    if m:
        op = m.group(1)
        counts[func][op] += 1
        counts[func]["<all>"] += 1

for f, c in counts.items():
    fam = collections.Counter()
    for op, n in c.items():
        if op == "<all>":
            continue
        fam[op.split(".")[0]] += n
    short = re.sub(r"_ZN4cuzk4cuda\w*?(MulChainKernel|DifPassKernel|BitReverseKernel|ElementwiseKernel|BuildTwiddlesKernel)", r"\1", f)[:90]
    print(f"{short}: {c['<all>']} instructions")
    print("   families: " + ", ".join(f"{k} {v}" for k, v in fam.most_common(14)))
    print("   variants: " + ", ".join(f"{k} {v}" for k, v in c.most_common(16) if k != "<all>"))
