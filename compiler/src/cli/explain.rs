//! `ralc explain`.

use super::args::ExplainArgs;

pub fn run(_args: &ExplainArgs) -> i32 {
    eprintln!("ralc explain: not built yet");
    1
}
