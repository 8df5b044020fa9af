//! `ralc render`.

use super::args::RenderArgs;

pub fn run(_args: &RenderArgs) -> i32 {
    eprintln!("ralc render: not built yet");
    1
}
