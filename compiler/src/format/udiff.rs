//! A unified diff of two texts, line by line, for `ralc fmt --check`: `---`/`+++` headers
//! and `@@ -a,b +c,d @@` hunks with three lines of context. The common head and tail are
//! set aside first; what lies between is matched by a longest common subsequence when it
//! is small enough (`LCS_CELLS`), else shown as one replacement. Pure: text in, text
//! out.

/// The largest table (lines × lines) the longest-common-subsequence match builds.
const LCS_CELLS: usize = 4_000_000;
/// Lines of context around each change.
const CONTEXT: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Keep,
    Del,
    Add,
}

/// The edit script from `a` to `b`: each line of `a` kept or deleted, each of `b` kept
/// or added, in order.
fn script<'t>(a: &[&'t str], b: &[&'t str]) -> Vec<(Op, &'t str)> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let mut out: Vec<(Op, &str)> = a[..head].iter().map(|l| (Op::Keep, *l)).collect();
    if ma.len().saturating_mul(mb.len()) <= LCS_CELLS {
        // lcs[i][j]: the longest common subsequence of ma[i..] and mb[j..]
        let w = mb.len() + 1;
        let mut lcs = vec![0u32; (ma.len() + 1) * w];
        for i in (0..ma.len()).rev() {
            for j in (0..mb.len()).rev() {
                lcs[i * w + j] = if ma[i] == mb[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < ma.len() || j < mb.len() {
            if i < ma.len() && j < mb.len() && ma[i] == mb[j] {
                out.push((Op::Keep, ma[i]));
                i += 1;
                j += 1;
            } else if j == mb.len() || (i < ma.len() && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])
            {
                out.push((Op::Del, ma[i]));
                i += 1;
            } else {
                out.push((Op::Add, mb[j]));
                j += 1;
            }
        }
    } else {
        out.extend(ma.iter().map(|l| (Op::Del, *l)));
        out.extend(mb.iter().map(|l| (Op::Add, *l)));
    }
    out.extend(a[a.len() - tail..].iter().map(|l| (Op::Keep, *l)));
    out
}

/// The unified diff from `old` to `new`, labelled `old_name` and `new_name`; empty when
/// the texts are the same.
pub fn unified(old_name: &str, new_name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = script(&a, &b);
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    // the indices of changed lines, grouped into hunks that share context
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != Op::Keep).collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        // line numbers (1-based) of the hunk's first line on each side
        let before = &ops[..start];
        let old_at = before.iter().filter(|o| o.0 != Op::Add).count();
        let new_at = before.iter().filter(|o| o.0 != Op::Del).count();
        let hunk = &ops[start..end];
        let old_len = hunk.iter().filter(|o| o.0 != Op::Add).count();
        let new_len = hunk.iter().filter(|o| o.0 != Op::Del).count();
        let at = |n: usize, len: usize| if len == 0 { n } else { n + 1 };
        out.push_str(&format!(
            "@@ -{},{old_len} +{},{new_len} @@\n",
            at(old_at, old_len),
            at(new_at, new_len)
        ));
        for (op, line) in hunk {
            out.push(match op {
                Op::Keep => ' ',
                Op::Del => '-',
                Op::Add => '+',
            });
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_no_diff() {
        assert_eq!(unified("a", "b", "x\n", "x\n"), "");
    }

    #[test]
    fn one_hunk_with_context() {
        let old = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        assert_eq!(
            unified("p.ral", "p.ral (formatted)", old, new),
            "--- p.ral\n+++ p.ral (formatted)\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-five\n+5\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn distant_changes_make_two_hunks_and_a_missing_newline_is_said() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new = old
            .replacen("2\n", "two\n", 1)
            .replacen("19\n20\n", "19\n20", 1);
        let d = unified("a", "b", &old, &new);
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
        assert!(d.contains("-2\n+two\n"), "{d}");
        assert!(
            d.ends_with("-20\n+20\n\\ No newline at end of file\n"),
            "{d}"
        );
    }

    #[test]
    fn added_to_an_empty_file() {
        assert_eq!(
            unified("a", "b", "", "x\n"),
            "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n"
        );
    }
}
