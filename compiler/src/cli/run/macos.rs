//! `ralc run` on macOS: the admitted program and its Seatbelt profile rendered for it with
//! this launch's denial tag (`pipeline::seatbelt_launch`, `launch_tag`), the launch (`ralc_runtime::macos::launch`), and what is
//! said after it — the denial hints of
//! a failed run and the fork brake's possible part in an exit status 128. Building the
//! launch and wording its outcome are pure and built on every host; only `run` is macOS's.
//! It never launches what the stack refused or a profile the renderer refused.

use crate::capability::resolve::Resolve;
use crate::capability::stack::GrantStack;
use ralc_runtime::macos::{brake, Outcome};

/// The lines `ralc run` prints on stderr after the program ended.
pub fn after_run(stack: &GrantStack, r: &dyn Resolve, o: &Outcome) -> Vec<String> {
    let mut out = Vec::new();
    for h in crate::guard::denial::hints(stack, r, &o.denials) {
        out.push(format!("ralc run: hint: {h}"));
    }
    if let Some(e) = &o.log_error {
        out.push(format!(
            "ralc run: note: the sandbox's denials could not be read from the unified log: {e}"
        ));
    }
    if let Some(n) = brake::exit_note(o.code, o.nproc_limit, o.user_processes) {
        out.push(format!("ralc run: note: {n}"));
    }
    out
}

/// This launch's denial tag: ralc's pid and the wall-clock time (a clock before 1970
/// gives 0; the pid still tells two runs apart at one instant).
pub fn launch_tag() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    ralc_runtime::macos::denial_tag(std::process::id(), nanos)
}

/// Launch on macOS and say what followed; the program's exit status.
#[cfg(target_os = "macos")]
pub fn run(stack: &GrantStack, r: &dyn Resolve, program: &[String]) -> i32 {
    let tag = launch_tag();
    let launch = match crate::pipeline::seatbelt_launch(stack, r, program, &super::own_path(), &tag)
    {
        Ok(l) => l,
        Err(refused) => {
            eprintln!("ralc run: refused: {}", refused.words);
            return crate::cli::exit_for(&refused);
        }
    };
    match ralc_runtime::macos::launch::launch(&launch) {
        Ok(o) => {
            for line in after_run(stack, r, &o) {
                eprintln!("{line}");
            }
            o.code
        }
        Err(why) => {
            eprintln!("ralc run: refused: {why}; nothing ran");
            crate::cli::EXIT_REFUSED
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::launch::tests::{host, stack};
    use ralc_runtime::macos::unified_log::parse_line;

    #[test]
    fn after_a_failed_run_hints_and_the_128_note() {
        let o = Outcome {
            code: 128,
            nproc_limit: 700,
            user_processes: 188,
            denials: ["Sandbox: cat(5) deny(1) file-read-data /Users/u/.ssh/k"]
                .iter()
                .filter_map(|l| parse_line(l))
                .collect(),
            log_error: None,
        };
        let lines = after_run(&stack(), &host(), &o);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("ralc run: hint: refused read /Users/u/.ssh/k: "));
        assert!(lines[1].contains("700 processes"), "{lines:?}");
        let quiet = Outcome {
            code: 1,
            denials: Vec::new(),
            log_error: Some("log: not permitted".to_string()),
            ..o
        };
        let lines = after_run(&stack(), &host(), &quiet);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("could not be read"), "{lines:?}");
    }

    #[test]
    fn the_launch_tag_is_one_the_renderer_takes() {
        let t = launch_tag();
        assert!(crate::render::macos::valid_tag(&t), "{t}");
        assert!(
            t.starts_with(&format!("ralc-{:x}-", std::process::id())),
            "{t}"
        );
    }
}
