# The top allocation sites of massif's peak snapshot, in MB: python3 peak.py massif.out
import re, sys
lines = open(sys.argv[1]).read().split('\n')
peak = [i for i, l in enumerate(lines) if l.startswith('heap_tree=peak')][0]
j = peak
while not lines[j].startswith('mem_heap_B'):
    j -= 1
print(lines[j])
i = peak + 1
while i < len(lines) and not lines[i].startswith('#'):
    m = re.match(r'(\s*)n(\d+): (\d+) (.*)', lines[i])
    if m and len(m.group(1)) == 1:
        print(f"  {int(m.group(3)) / 1e6:7.1f} MB {m.group(4)[:110]}")
    i += 1
