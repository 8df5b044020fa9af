//! The front end of one layer: its bytes from a [`Loader`], registered in the
//! [`SourceMap`], parsed, evaluated and typechecked into a `TypedProfile`; an unreadable
//! layer is the E0100 diagnostic. It freezes nothing and reads only through the loader.

use super::load::Loader;
use crate::diag::{Diagnostic, FileId, SourceMap, Span};
use crate::syntax::codes;
use crate::typecheck::profile::TypedProfile;

/// The result of the front end over a list of layers.
#[derive(Debug, Default)]
pub struct FrontEnd {
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
    /// One per layer, in order: `None` where the layer had an error.
    pub typed: Vec<(FileId, Option<TypedProfile>)>,
}

/// Register one layer in `sources` and run the front end on it.
pub fn front_end(
    sources: &mut SourceMap,
    loader: &dyn Loader,
    name: &str,
) -> (FileId, Option<TypedProfile>, Vec<Diagnostic>) {
    match loader.load(name) {
        Ok(bytes) => {
            let id = sources.add(name, bytes.clone());
            let (t, d) = crate::typecheck::check_source(id, &bytes);
            if let Some(end) = crate::syntax::quote_limit(id, &d) {
                sources.limit_quoting(id, end);
            }
            (id, t, d)
        }
        Err(msg) => {
            let id = sources.add(name, Vec::<u8>::new());
            let d = Diagnostic::error(codes::E0100, msg)
                .at(Span::new(id, 0, 0))
                .with_help("name a readable profile file, or `std:NAME` for a standard profile");
            (id, None, vec![d])
        }
    }
}

/// Run the front end over every layer in order.
pub fn check_files(loader: &dyn Loader, names: &[String]) -> FrontEnd {
    let mut fe = FrontEnd::default();
    for n in names {
        let (id, t, mut d) = front_end(&mut fe.sources, loader, n);
        fe.diagnostics.append(&mut d);
        fe.typed.push((id, t));
    }
    fe
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::load::{Embedded, Memory};

    #[test]
    fn std_profiles_check_clean_and_missing_layer_is_e0100() {
        let fe = check_files(
            &Embedded,
            &[
                "std:minimal".into(),
                "std:reasonable".into(),
                "std:dangerous".into(),
            ],
        );
        assert!(fe.diagnostics.is_empty(), "{:?}", fe.diagnostics);
        assert!(fe.typed.iter().all(|(_, t)| t.is_some()));
        let fe = check_files(&Memory::new(), &["missing.ral".into(), "std:nope".into()]);
        let codes: Vec<_> = fe.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, vec!["E0100", "E0100"]);
    }
}
