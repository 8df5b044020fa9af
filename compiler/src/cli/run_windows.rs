//! `ralc run` on Windows: the stack compiled as this machine freezes it, the program
//! admitted by the in-process guard first (as on Linux), the projection rendered to a
//! `WindowsPlan` over the live disk (the carve lists it now), and the plan applied by the
//! runtime's Windows launch. Exit: the program's, 126 refused, 127 missing, 2 usage.
//! It must never start the program when the plan or the launch refuses.

use super::args::RunArgs;
use super::stack::compile_stack;
use super::EXIT_REFUSED;
use crate::capability::resolve::Resolve;
use ralc_runtime::windows::launch::launch;
use ralc_runtime::windows::lister::LiveLister;
use ralc_runtime::windows::store::Store;

pub fn run(args: &RunArgs) -> i32 {
    let s = &args.stack;
    if s.profiles.is_empty() && s.restrict.is_empty() && s.extend.is_empty() {
        eprintln!("ralc run: name at least one profile (-p FILE or -p std:NAME)");
        return super::EXIT_USAGE;
    }
    let (compiled, stack) = match compile_stack(s, &[], "ralc run") {
        Ok(x) => x,
        Err((code, msg)) => {
            eprintln!("{msg}");
            return code;
        }
    };
    let r: &dyn Resolve = &compiled.ctx;
    let (admitted, projection) = match crate::pipeline::admit_and_project(&stack, r, &args.program)
    {
        Ok(x) => x,
        Err(refused) => {
            eprintln!("ralc run: refused: {}", refused.words);
            return super::exit_for(&refused);
        }
    };
    let program = admitted.program_real().as_str().to_string();
    let plan = crate::render::windows::render(&projection, Some(&program), &LiveLister);
    if !plan.refused.is_empty() {
        eprintln!(
            "ralc run: refused: {}; nothing ran",
            plan.refused.join("; ")
        );
        return EXIT_REFUSED;
    }
    let Some(local) = compiled.ctx.var("LOCALAPPDATA") else {
        eprintln!(
            "ralc run: refused: LOCALAPPDATA is unset, so the stamp store has no home; nothing ran"
        );
        return EXIT_REFUSED;
    };
    let store = Store::at(&std::path::Path::new(local).join("ralc").join("stamps.json"));
    let mut argv = vec![program];
    argv.extend(admitted.args().iter().cloned());
    match launch(&plan, &argv, r.cwd(), &store) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ralc run: refused: {e}");
            EXIT_REFUSED
        }
    }
}
