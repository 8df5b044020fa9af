//! The Windows command line of a launch: each argument quoted so the Microsoft C runtime's
//! `CommandLineToArgvW` rules read back exactly the argument vector the guard admitted.
//! Portable (tested on every host); it must never let an argument split or merge.

/// One argument, quoted when it needs to be (blank, tab, quote, or empty).
pub fn quote_arg(arg: &str, out: &mut String) {
    if !arg.is_empty() && !arg.contains([' ', '\t', '\n', '\x0b', '"']) {
        out.push_str(arg);
        return;
    }
    out.push('"');
    let mut backslashes = 0usize;
    for c in arg.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' => {
                // 2n+1 backslashes and the quote: n literal backslashes and a literal quote
                out.extend(std::iter::repeat_n('\\', 2 * backslashes + 1));
                out.push('"');
                backslashes = 0;
            }
            _ => {
                out.extend(std::iter::repeat_n('\\', backslashes));
                backslashes = 0;
                out.push(c);
            }
        }
    }
    // backslashes before the closing quote are doubled
    out.extend(std::iter::repeat_n('\\', 2 * backslashes));
    out.push('"');
}

/// The command line of `program` and `args`: the program quoted the same way.
pub fn command_line(program: &str, args: &[String]) -> String {
    let mut out = String::new();
    quote_arg(program, &mut out);
    for a in args {
        out.push(' ');
        quote_arg(a, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `CommandLineToArgvW`'s reading of the arguments after the program (the documented
    /// rules), to check the quoting round-trips.
    fn parse(line: &str) -> Vec<String> {
        let mut args = Vec::new();
        let mut cur = String::new();
        let mut in_quotes = false;
        let mut have = false;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '\\' {
                let mut n = 0;
                while i < chars.len() && chars[i] == '\\' {
                    n += 1;
                    i += 1;
                }
                if i < chars.len() && chars[i] == '"' {
                    cur.extend(std::iter::repeat_n('\\', n / 2));
                    if n % 2 == 1 {
                        cur.push('"');
                        i += 1;
                    }
                } else {
                    cur.extend(std::iter::repeat_n('\\', n));
                }
                have = true;
                continue;
            }
            if c == '"' {
                in_quotes = !in_quotes;
                have = true;
            } else if (c == ' ' || c == '\t') && !in_quotes {
                if have {
                    args.push(std::mem::take(&mut cur));
                    have = false;
                }
            } else {
                cur.push(c);
                have = true;
            }
            i += 1;
        }
        if have {
            args.push(cur);
        }
        args
    }

    #[test]
    fn arguments_round_trip() {
        let cases: &[&[&str]] = &[
            &["a", "b c", ""],
            &["x\"y", "\\\\server\\share\\", "C:\\Program Files\\x\\"],
            &["a\\\\\"b", "tab\there", "trailing\\\\"],
            &["--flag=\"quoted value\"", "plain"],
        ];
        for args in cases {
            let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            let line = command_line("C:\\p\\prog.exe", &v);
            let back = parse(&line);
            assert_eq!(back[0], "C:\\p\\prog.exe");
            assert_eq!(&back[1..], &v[..], "{line}");
        }
    }
}
