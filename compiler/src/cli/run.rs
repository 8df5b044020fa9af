//! `ralc run`.

use super::args::RunArgs;

pub fn run(_args: &RunArgs) -> i32 {
    eprintln!("ralc run: not built yet");
    1
}
