#!/bin/sh
# End-to-end `ralc why --batch` timing through the release binary (docs/performance-model.md).
# Usage: compiler/benches/why-batch.sh [N] [DISTINCT]   (defaults: 100000 questions, 1000
# distinct subjects cycled; DISTINCT=N makes every subject distinct). Build first with
# `cargo build --release -p ralc --bin ralc`. The stack: std:reasonable, std:dangerous and a
# --restrict layer written here. Prints wall/user/sys of three runs.
set -eu
N=${1:-100000}
D=${2:-1000}
BIN=${RALC:-target/release/ralc}
Q=${TMPDIR:-/tmp}/ralc-why-batch-$N-$D.txt
H=${HOME:-/root}
R=${TMPDIR:-/tmp}/ralc-why-batch-restrict.ral
cat > "$R" <<'RAL'
# the third layer: a CI restriction (exec from the system roots and cargo, git limited to
# read-only subcommands, curl vetoed; read everywhere, write the project and temp)
[
  exec: ['/usr/': 'allow', '/bin/': 'allow', '~/.cargo/': 'allow', git: [status, diff, log], curl: 'deny'],
  fs: [read: ['/'], write: ['cwd:', 'tempdir:']],
]
RAL
awk -v n="$N" -v d="$D" -v h="$H" 'BEGIN {
  split("status push log", sc, " ");
  for (i = 0; i < n; i++) {
    j = i % d;
    k = i % 4;
    if (k == 0) {
      m = j % 5;
      if (m == 0) p = "git";
      else if (m == 1) p = "/usr/bin/tool" j;
      else if (m == 2) p = h "/.cargo/bin/cargo-" j;
      else if (m == 3) p = "/opt/x/bin/t" j;
      else p = "/usr/bin/ls";
      printf "exec %s %s\n", p, sc[j % 3 + 1];
    } else if (k == 3) {
      print "flag net";
    } else {
      m = (k == 1 ? j : (j * 7) % d) % 6;
      if (m == 0) p = h "/proj/src/m" j ".rs";
      else if (m == 1) p = h "/.ssh/id_" j;
      else if (m == 2) p = "/usr/lib/x86_64-linux-gnu/lib" j ".so";
      else if (m == 3) p = "/etc/conf" j;
      else if (m == 4) p = "/etc/passwd";
      else p = "/var/log/l" j;
      printf "%s %s\n", (k == 1 ? "read" : "write"), p;
    }
  }
}' > "$Q"
echo "questions: $(wc -l < "$Q") in $Q (distinct subjects: $D); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in 1 2 3; do
  /usr/bin/time -f "run $run: %e s wall, %U s user, %S s sys, %M KiB max" \
    "$BIN" why -p std:reasonable -p std:dangerous --restrict "$R" --batch "$Q" > "${Q%.txt}.out" || true
done
echo "answers: $(wc -l < "${Q%.txt}.out")"
