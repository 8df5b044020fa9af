//! The one `PATH` walk: absolute entries only (never an empty or relative one, which
//! would search the working directory). Pure over an injected executable-file check.

use super::lex::{absolute_under, join_under, PathRules};

/// The absolute entries of a `PATH` value, in order, duplicates kept once.
pub fn path_entries(path_var: &str, rules: PathRules) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in path_var.split(rules.list_sep()) {
        if !e.is_empty() && absolute_under(e, rules) && !out.iter().any(|o| o == e) {
            out.push(e.to_string());
        }
    }
    out
}

/// The first `entry/name` that `is_exec_file` accepts. A name holding a separator is
/// not searched.
pub fn which_in(
    name: &str,
    entries: &[String],
    rules: PathRules,
    is_exec_file: impl Fn(&str) -> bool,
) -> Option<String> {
    if name.is_empty() || name.bytes().any(|b| rules.is_sep(b)) || name == "." || name == ".." {
        return None;
    }
    entries
        .iter()
        .filter_map(|e| join_under(e, name, rules).ok())
        .find(|c| is_exec_file(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_entries_only() {
        let e = path_entries("/usr/bin::.:bin:/bin:/usr/bin", PathRules::Posix);
        assert_eq!(e, vec!["/usr/bin".to_string(), "/bin".to_string()]);
        let found = which_in("ls", &e, PathRules::Posix, |p| p == "/bin/ls");
        assert_eq!(found.as_deref(), Some("/bin/ls"));
        assert_eq!(which_in("a/ls", &e, PathRules::Posix, |_| true), None);
    }
}
