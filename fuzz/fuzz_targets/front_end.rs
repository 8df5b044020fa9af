//! Fuzz the whole front end: any bytes through parse, evaluate and typecheck must never
//! panic, and every diagnostic's span must lie inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ralc::diag::FileId;

fuzz_target!(|data: &[u8]| {
    let (program, _) = ralc::syntax::parse(FileId(0), data);
    let (value, _) = ralc::eval::evaluate(&program);
    if let Some(v) = value {
        let _ = ralc::typecheck::check_value(&v);
    }
    let (_, diags) = ralc::typecheck::check_source(FileId(0), data);
    for d in diags {
        if let Some(s) = d.span {
            assert!(s.start <= s.end && s.end <= data.len());
        }
    }
});
