//! The lattice laws of spec §4.2 as property tests (10,000 cases each) over random fs and
//! exec tables, stacks and subjects: the table meet is pointwise the meet of verdicts; the
//! verdict algebra is commutative, associative, idempotent and absorbing with top and bottom
//! identities; attenuation is monotone; and the compiled index judges exactly as the table.

use super::exec::{ExecScope, ExecSubject};
use super::fs::FsScope;
use super::index::{subject_keys, Rules};
use super::stack::GrantStack;
use super::table::{join_verdict, meet_verdict, Cited, Judge, Table, Verdict, Withheld};
use super::testkit::{fp, origin, FakeHost, L};
use crate::path::frozen::RealPath;
use proptest::prelude::*;
use std::collections::BTreeSet;

const COMPONENTS: &[&str] = &["a", "b", "A", "c"];
const ARGS: &[&str] = &["x", "y", "z"];

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(COMPONENTS), 0..4)
        .prop_map(|cs| format!("/{}", cs.join("/")))
}

fn cite(layer: usize, line: u32) -> Cited {
    Cited {
        layer,
        origin: origin("t", line, "e").into(),
    }
}

#[derive(Clone, Debug)]
enum FsOpn {
    Allow(String),
    Deny(String),
}

fn fs_table(layer: usize) -> impl Strategy<Value = Table<FsScope>> {
    prop::collection::vec(
        prop_oneof![
            3 => path().prop_map(FsOpn::Allow),
            1 => path().prop_map(FsOpn::Deny),
        ],
        0..6,
    )
    .prop_map(move |ops| {
        let mut t = Table::new(layer);
        for (i, op) in ops.into_iter().enumerate() {
            let line = u32::try_from(i).unwrap_or(0);
            match op {
                FsOpn::Allow(p) => t.allow(FsScope::Prefix(fp(&p)), cite(layer, line), None),
                FsOpn::Deny(p) => t.deny(FsScope::Prefix(fp(&p)), cite(layer, line)),
            }
        }
        t
    })
}

fn only() -> impl Strategy<Value = Option<BTreeSet<String>>> {
    prop_oneof![
        2 => Just(None),
        1 => prop::collection::btree_set(prop::sample::select(ARGS).prop_map(String::from), 1..3)
            .prop_map(Some),
    ]
}

fn exec_table(layer: usize) -> impl Strategy<Value = Table<ExecScope>> {
    let entry = prop_oneof![
        path().prop_map(|p| ExecScope::Dir(fp(&p))),
        path().prop_map(|p| ExecScope::File(fp(&p))),
        prop::sample::select(COMPONENTS).prop_map(|n| ExecScope::Name(n.to_lowercase())),
        Just(ExecScope::Any),
    ];
    prop::collection::vec((entry, any::<bool>(), only()), 0..6).prop_map(move |ops| {
        let mut t = Table::new(layer);
        for (i, (scope, negative, only)) in ops.into_iter().enumerate() {
            let line = u32::try_from(i).unwrap_or(0);
            // Name is negative only, Any positive only, by construction
            let negative = match scope {
                ExecScope::Name(_) => true,
                ExecScope::Any => false,
                _ => negative,
            };
            if negative {
                t.deny(scope, cite(layer, line));
            } else {
                t.allow(scope, cite(layer, line), only);
            }
        }
        t
    })
}

fn exec_subject() -> impl Strategy<Value = (ExecSubject, Option<String>)> {
    (
        path(),
        prop::sample::select(COMPONENTS),
        prop::option::of(prop::sample::select(&["x", "y", "w"][..]).prop_map(String::from)),
    )
        .prop_map(|(p, invoked, arg)| {
            (
                ExecSubject::new(invoked, RealPath::from_resolved(p), Vec::new()),
                arg,
            )
        })
}

/// The outcome class: granted (whoever granted), or withheld with its reason and citation.
fn class<K>(v: Verdict<K>) -> Result<(), Withheld<K>> {
    v.map(|_| ())
}

fn cfg() -> ProptestConfig {
    ProptestConfig::with_cases(10_000)
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn fs_meet_is_pointwise(a in fs_table(0), b in fs_table(1), s in path()) {
        let m = a.meet(&b);
        let want = a.verdict(&s, None).is_ok() && b.verdict(&s, None).is_ok();
        prop_assert_eq!(m.verdict(&s, None).is_ok(), want);
        prop_assert_eq!(Judge::verdict(&super::table::Meet(&a, &b), &*s, None).is_ok(), want);
    }

    #[test]
    fn exec_meet_is_pointwise(a in exec_table(0), b in exec_table(1), (s, arg) in exec_subject()) {
        let m = a.meet(&b);
        let arg = arg.as_deref();
        let want = a.verdict(&s, arg).is_ok() && b.verdict(&s, arg).is_ok();
        prop_assert_eq!(m.verdict(&s, arg).is_ok(), want);
    }

    #[test]
    fn join_is_pointwise(a in fs_table(0), b in fs_table(1), s in path()) {
        let want = a.verdict(&s, None).is_ok() || b.verdict(&s, None).is_ok();
        prop_assert_eq!(Judge::verdict(&super::table::Join(&a, &b), &*s, None).is_ok(), want);
    }

    #[test]
    fn verdict_algebra_laws(a in exec_table(0), b in exec_table(1), c in exec_table(2),
                            (s, arg) in exec_subject()) {
        let arg = arg.as_deref();
        let (va, vb, vc) = (a.verdict(&s, arg), b.verdict(&s, arg), c.verdict(&s, arg));
        let m = |x: &Verdict<ExecScope>, y: &Verdict<ExecScope>| meet_verdict(x.clone(), y.clone());
        let j = |x: &Verdict<ExecScope>, y: &Verdict<ExecScope>| join_verdict(x.clone(), y.clone());
        // commutative
        prop_assert_eq!(m(&va, &vb), m(&vb, &va));
        prop_assert_eq!(j(&va, &vb), j(&vb, &va));
        // associative
        prop_assert_eq!(m(&m(&va, &vb), &vc), m(&va, &m(&vb, &vc)));
        prop_assert_eq!(j(&j(&va, &vb), &vc), j(&va, &j(&vb, &vc)));
        // idempotent
        prop_assert_eq!(m(&va, &va), va.clone());
        prop_assert_eq!(j(&va, &va), va.clone());
        // absorbing
        prop_assert_eq!(class(m(&va, &j(&va, &vb))), class(va.clone()));
        prop_assert_eq!(class(j(&va, &m(&va, &vb))), class(va.clone()));
        // monotone: a meet never admits what either side withholds
        if m(&va, &vb).is_ok() {
            prop_assert!(va.is_ok() && vb.is_ok());
        }
    }

    #[test]
    fn top_and_bottom_identities(a in exec_table(0), (s, arg) in exec_subject()) {
        let arg = arg.as_deref();
        let mut top = Table::new(1);
        top.allow(ExecScope::Any, cite(1, 0), None);
        let bottom: Table<ExecScope> = Table::new(1);
        let va = a.verdict(&s, arg);
        prop_assert_eq!(class(a.meet(&top).verdict(&s, arg)), class(va.clone()));
        prop_assert_eq!(class(meet_verdict(va.clone(), top.verdict(&s, arg))), class(va.clone()));
        prop_assert!(a.meet(&bottom).verdict(&s, arg).is_err());
        prop_assert_eq!(join_verdict(va.clone(), bottom.verdict(&s, arg)).is_ok(), va.is_ok());
        prop_assert!(join_verdict(va, top.verdict(&s, arg)).is_ok());
    }

    #[test]
    fn evidence_filed_at_once_is_evidence_filed_one_by_one(
        ops in prop::collection::vec((0..4usize, any::<bool>(), only(), 0..6u32), 0..12),
        rotate in 0..12usize,
    ) {
        use super::table::Filed;
        let scope = |i: usize| match i {
            0 => ExecScope::Any,
            1 => ExecScope::Dir(fp("/a")),
            2 => ExecScope::File(fp("/a/b")),
            _ => ExecScope::Name("c".into()),
        };
        let filed = |negative: bool, only: &Option<BTreeSet<String>>, line: u32| {
            if negative {
                Filed::Deny(cite(0, line))
            } else {
                Filed::Allow(cite(0, line), only.clone())
            }
        };
        let mut one = Table::new(0);
        for (i, negative, only, line) in &ops {
            if *negative {
                one.deny(scope(*i), cite(0, *line));
            } else {
                one.allow(scope(*i), cite(0, *line), only.clone());
            }
        }
        // the same evidence in another order, filed at once
        let mut ev: Vec<_> = ops
            .iter()
            .map(|(i, negative, only, line)| (scope(*i), filed(*negative, only, *line)))
            .collect();
        if !ev.is_empty() {
            let k = rotate % ev.len();
            ev.rotate_left(k);
            ev.reverse();
        }
        let at_once = Table::from_evidence(0, ev);
        prop_assert_eq!(at_once, one);
    }

    #[test]
    fn index_judges_as_the_table(a in fs_table(0), e in exec_table(0), s in path(),
                                 (x, arg) in exec_subject()) {
        let keys = subject_keys(&s);
        let r = Rules::compile(a.clone());
        prop_assert_eq!(r.judge(&s, &keys, None), a.verdict(&s, None));
        prop_assert_eq!(r.verdict(&s, None), a.verdict(&s, None));
        prop_assert!(r.cells().eq(a.cells()));
        prop_assert!(r.live().eq(a.live()));
        let keys = subject_keys(x.real().as_str());
        let arg = arg.as_deref();
        let r = Rules::compile(e.clone());
        prop_assert_eq!(r.judge(&x, &keys, arg), e.verdict(&x, arg));
        prop_assert_eq!(r.verdict(&x, arg), e.verdict(&x, arg));
        prop_assert!(r.cells().eq(e.cells()));
    }

    #[test]
    fn stacks_are_monotone(ra in prop::collection::vec(path(), 0..4),
                           da in prop::collection::vec(path(), 0..2),
                           rb in prop::collection::vec(path(), 0..4),
                           xb in prop::collection::vec(path(), 0..3),
                           s in path()) {
        let mut a = L::new("a");
        for p in &ra { a = a.read(p); }
        for p in &da { a = a.deny(p); }
        let mut b = L::new("b").fs_empty();
        for p in &rb { b = b.write(p); }
        for p in &xb { b = b.dir(p, super::testkit::allow()); }
        let (a, b) = (a.done(), b.done());
        let h = FakeHost::new();
        let one = GrantStack::new(vec![a.clone()]);
        let both = GrantStack::new(vec![a.clone(), b.clone()]);
        let swapped = GrantStack::new(vec![b.clone(), a.clone()]);
        if both.read(&s, &h).is_ok() {
            prop_assert!(one.read(&s, &h).is_ok());
        }
        if both.admit(&s, &[], &h).is_ok() {
            prop_assert!(one.admit(&s, &[], &h).is_ok());
        }
        prop_assert_eq!(both.write(&s, &h).is_ok(), swapped.write(&s, &h).is_ok());
        // extend never grants what neither side grants, and (the fragment here excluding
        // nothing) keeps all the policy grants
        let mut ext = a.clone();
        ext.extend(&b);
        let e = GrantStack::new(vec![ext]);
        let bs = GrantStack::new(vec![b.clone()]);
        if e.read(&s, &h).is_ok() {
            prop_assert!(one.read(&s, &h).is_ok() || bs.read(&s, &h).is_ok());
        }
        if one.read(&s, &h).is_ok() {
            prop_assert!(e.read(&s, &h).is_ok());
        }
        if da.is_empty() && bs.read(&s, &h).is_ok() {
            prop_assert!(e.read(&s, &h).is_ok());
        }
    }
}
