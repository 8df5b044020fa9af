//! Fuzz `ralc fmt`'s layout on any bytes: it must never panic and never fail its own
//! check (a layout that would not parse back to the same tree, comments and directive
//! covers); a file that does not parse is refused with diagnostics; what it prints is a
//! fixed point.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ralc::diag::FileId;
use ralc::format::{format_source, Refusal};

fuzz_target!(|data: &[u8]| {
    match format_source(FileId(0), data) {
        Ok(out) => match format_source(FileId(0), out.as_bytes()) {
            Ok(again) => assert_eq!(again, out, "not a fixed point"),
            Err(e) => panic!("its own layout is refused: {e:?}"),
        },
        Err(Refusal::Syntax(d)) => assert!(!d.is_empty()),
        Err(Refusal::Unfaithful(why)) => panic!("unfaithful layout: {why}"),
    }
});
