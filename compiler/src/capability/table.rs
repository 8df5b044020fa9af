//! `Table<K: Scope>`: one layer's authority over one axis as scoped evidence
//! `{positive, negative}` (spec §4.1), its judgment (`supports`, `excludes`, `evidence`,
//! `live`, `denies`, `withheld`), the verdict algebra (`Meet`, `Join`) and the table meet.
//!
//! Pure and generic: a scope says whether (and at which rank) it speaks to a subject; the
//! table never compares paths or names itself. It must never flatten a stack: the stack
//! folds per-layer verdicts (`stack.rs`).

use crate::capability::layer::Origin;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A scope of evidence: `Prefix`, `Place` (fs), `Any`, `Dir`, `File`, `Tool`, `Name` (exec).
pub trait Scope: Clone + Ord + fmt::Debug {
    /// What a question is about (a real path, a program).
    type Subject: ?Sized;
    /// The rank at which this scope, carrying evidence of this polarity, speaks to the
    /// subject; `None` when it does not hold for it. Higher ranks are more specific.
    fn speaks(&self, negative: bool, subject: &Self::Subject) -> Option<u32>;
    /// An upper bound on the rank `speaks` can return for this polarity, known without the
    /// subject: a judgment skips a scope that could not outrank what already speaks.
    fn bound(&self, _negative: bool) -> u32 {
        u32::MAX
    }
}

/// Belnap evidence: none, for, against, both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Evidence {
    pub positive: bool,
    pub negative: bool,
}

/// An entry that speaks: the layer it came from and where it was written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cited {
    pub layer: usize,
    pub origin: std::sync::Arc<Origin>,
}

/// Positive evidence at one scope: any arguments, or only these first arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Support {
    pub by: Cited,
    /// `None`: any arguments. `Some(set)`: a subcommand list (lists meet by intersection).
    pub only: Option<BTreeSet<String>>,
}

/// The evidence one scope carries in a table.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Cell {
    pub positive: Option<Support>,
    pub negative: Option<Cited>,
}

/// One piece of evidence to file at a scope (`Table::allow`, `Table::deny`), for
/// `Table::from_evidence`.
#[derive(Clone, Debug)]
pub enum Filed {
    Allow(Cited, Option<BTreeSet<String>>),
    Deny(Cited),
}

impl Cell {
    /// File evidence here: positives meet (the least entry cited, lists intersected), the
    /// least negative is cited. Order-independent: `min` and `meet_only` commute and
    /// associate.
    fn file(&mut self, f: Filed) {
        match f {
            Filed::Allow(by, only) => {
                self.positive = Some(match self.positive.take() {
                    None => Support { by, only },
                    Some(old) => Support {
                        by: old.by.min(by),
                        only: meet_only(old.only, only),
                    },
                });
            }
            Filed::Deny(by) => {
                self.negative = Some(match self.negative.take() {
                    None => by,
                    Some(old) => old.min(by),
                });
            }
        }
    }
    pub fn evidence(&self) -> Evidence {
        Evidence {
            positive: self.positive.is_some(),
            negative: self.negative.is_some(),
        }
    }
}

/// Why a table withholds a subject.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Withheld<K> {
    /// Nothing positive speaks to the subject in this layer.
    MissingAllowance { layer: usize },
    /// A negative speaks: one applicable exclusion, the least by (scope, entry).
    Excluded { scope: K, by: Cited },
    /// A subcommand list speaks and the first argument is outside it (or absent).
    Subcommand {
        scope: K,
        by: Cited,
        allowed: BTreeSet<String>,
        got: Option<String>,
    },
}

impl<K> Withheld<K> {
    /// Strength when layers disagree (spec §4.3): excluded, then missing, then subcommand.
    pub fn strength(&self) -> u8 {
        match self {
            Withheld::Excluded { .. } => 3,
            Withheld::MissingAllowance { .. } => 2,
            Withheld::Subcommand { .. } => 1,
        }
    }
    /// The reason as JSON spells it.
    pub fn reason(&self) -> &'static str {
        match self {
            Withheld::Excluded { .. } => "excluded",
            Withheld::MissingAllowance { .. } => "missing-allowance",
            Withheld::Subcommand { .. } => "subcommand",
        }
    }
    /// The layer that decided.
    pub fn layer(&self) -> usize {
        match self {
            Withheld::MissingAllowance { layer } => *layer,
            Withheld::Excluded { by, .. } | Withheld::Subcommand { by, .. } => by.layer,
        }
    }
    /// The entry that decided, when one did (a missing allowance has none).
    pub fn cited(&self) -> Option<&Cited> {
        match self {
            Withheld::MissingAllowance { .. } => None,
            Withheld::Excluded { by, .. } | Withheld::Subcommand { by, .. } => Some(by),
        }
    }
}

/// A layer's verdict: granted by an entry (`None`: no entry needed, e.g. the discard
/// device), or withheld.
pub type Verdict<K> = Result<Option<Cited>, Withheld<K>>;

/// The meet of two verdicts: both must grant; the stronger reason wins, ties broken by
/// the least withheld (deterministic, order-independent).
pub fn meet_verdict<K: Ord + Clone>(a: Verdict<K>, b: Verdict<K>) -> Verdict<K> {
    match (a, b) {
        (Ok(x), Ok(y)) => Ok(min_opt(x, y)),
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => Err(e),
        (Err(x), Err(y)) => Err(stronger(x, y)),
    }
}

/// The join of two verdicts: either grants; the weaker reason is reported.
pub fn join_verdict<K: Ord + Clone>(a: Verdict<K>, b: Verdict<K>) -> Verdict<K> {
    match (a, b) {
        (Ok(x), Ok(y)) => Ok(min_opt(x, y)),
        (Ok(x), Err(_)) | (Err(_), Ok(x)) => Ok(x),
        (Err(x), Err(y)) => Err(weaker(x, y)),
    }
}

fn min_opt(x: Option<Cited>, y: Option<Cited>) -> Option<Cited> {
    match (x, y) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn stronger<K: Ord>(x: Withheld<K>, y: Withheld<K>) -> Withheld<K> {
    match x.strength().cmp(&y.strength()) {
        std::cmp::Ordering::Greater => x,
        std::cmp::Ordering::Less => y,
        std::cmp::Ordering::Equal => x.min(y),
    }
}

fn weaker<K: Ord>(x: Withheld<K>, y: Withheld<K>) -> Withheld<K> {
    match x.strength().cmp(&y.strength()) {
        std::cmp::Ordering::Less => x,
        std::cmp::Ordering::Greater => y,
        // the dual of `stronger`'s tie-break, so meet and join form one total order
        std::cmp::Ordering::Equal => x.max(y),
    }
}

/// Anything that judges a subject (a table, or a meet or join of judges).
pub trait Judge<K: Scope> {
    fn verdict(&self, subject: &K::Subject, first_arg: Option<&str>) -> Verdict<K>;
}

/// `a ∧ b`, judged pointwise.
#[derive(Clone, Debug)]
pub struct Meet<A, B>(pub A, pub B);
/// `a ∨ b`, judged pointwise.
#[derive(Clone, Debug)]
pub struct Join<A, B>(pub A, pub B);

impl<K: Scope, A: Judge<K>, B: Judge<K>> Judge<K> for Meet<A, B> {
    fn verdict(&self, s: &K::Subject, arg: Option<&str>) -> Verdict<K> {
        meet_verdict(self.0.verdict(s, arg), self.1.verdict(s, arg))
    }
}

impl<K: Scope, A: Judge<K>, B: Judge<K>> Judge<K> for Join<A, B> {
    fn verdict(&self, s: &K::Subject, arg: Option<&str>) -> Verdict<K> {
        join_verdict(self.0.verdict(s, arg), self.1.verdict(s, arg))
    }
}

impl<K: Scope, J: Judge<K> + ?Sized> Judge<K> for &J {
    fn verdict(&self, s: &K::Subject, arg: Option<&str>) -> Verdict<K> {
        (**self).verdict(s, arg)
    }
}

/// One layer's table for one axis: scopes with their evidence, sorted by scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table<K> {
    layer: usize,
    cells: BTreeMap<K, Cell>,
}

impl<K: Scope> Table<K> {
    /// An empty table of this layer: admits nothing (the bottom).
    pub fn new(layer: usize) -> Self {
        Table {
            layer,
            cells: BTreeMap::new(),
        }
    }
    pub fn layer(&self) -> usize {
        self.layer
    }
    /// The scopes and their evidence, in scope order.
    pub fn cells(&self) -> impl Iterator<Item = (&K, &Cell)> {
        self.cells.iter()
    }
    /// The scopes and their evidence, in scope order, moved out of the table.
    pub fn into_cells(self) -> impl Iterator<Item = (K, Cell)> {
        self.cells.into_iter()
    }
    fn slot(&mut self, scope: K) -> &mut Cell {
        self.cells.entry(scope).or_default()
    }
    /// Add positive evidence; at one scope positives meet (lists intersect).
    pub fn allow(&mut self, scope: K, by: Cited, only: Option<BTreeSet<String>>) {
        self.slot(scope).file(Filed::Allow(by, only));
    }
    /// Add negative evidence; the least entry is kept as the citation.
    pub fn deny(&mut self, scope: K, by: Cited) {
        self.slot(scope).file(Filed::Deny(by));
    }
    /// The table of `layer` holding all this evidence, as filing each piece with
    /// `allow`/`deny` in any order would give; built from one sort of the scopes (a
    /// profile's entries come in runs already in order) instead of a search per piece.
    pub fn from_evidence(layer: usize, mut evidence: Vec<(K, Filed)>) -> Self {
        evidence.sort_by(|a, b| a.0.cmp(&b.0));
        let mut cells: Vec<(K, Cell)> = Vec::with_capacity(evidence.len());
        for (k, f) in evidence {
            match cells.last_mut() {
                Some((last, cell)) if *last == k => cell.file(f),
                _ => {
                    let mut cell = Cell::default();
                    cell.file(f);
                    cells.push((k, cell));
                }
            }
        }
        Table {
            layer,
            cells: cells.into_iter().collect(),
        }
    }
    /// The evidence written at exactly this scope.
    pub fn evidence(&self, scope: &K) -> Evidence {
        self.cell(scope).map(Cell::evidence).unwrap_or_default()
    }
    fn cell(&self, scope: &K) -> Option<&Cell> {
        self.cells.get(scope)
    }
    /// Whether some positive evidence speaks to the subject (at any rank).
    pub fn supports(&self, s: &K::Subject) -> bool {
        self.cells
            .iter()
            .any(|(k, c)| c.positive.is_some() && k.speaks(false, s).is_some())
    }
    /// Whether some negative evidence speaks to the subject (at any rank).
    pub fn excludes(&self, s: &K::Subject) -> bool {
        self.cells
            .iter()
            .any(|(k, c)| c.negative.is_some() && k.speaks(true, s).is_some())
    }
    /// The scopes carrying live positive evidence (not cancelled at the same scope).
    pub fn live(&self) -> impl Iterator<Item = (&K, &Support)> {
        self.cells
            .iter()
            .filter_map(|(k, c)| match (&c.positive, &c.negative) {
                (Some(p), None) => Some((k, p)),
                _ => None,
            })
    }
    /// The scopes carrying negative evidence.
    pub fn denies(&self) -> impl Iterator<Item = (&K, &Cited)> {
        self.cells
            .iter()
            .filter_map(|(k, c)| c.negative.as_ref().map(|n| (k, n)))
    }
    /// The table's judgment of a subject: `None` when it grants.
    pub fn withheld(&self, s: &K::Subject, first_arg: Option<&str>) -> Option<Withheld<K>> {
        self.decide(self.cells.iter(), s, first_arg).err()
    }
    /// Judge over a subset of cells (an index's candidates); the subset must contain every
    /// cell that speaks to the subject.
    pub fn decide<'a>(
        &'a self,
        cells: impl Iterator<Item = (&'a K, &'a Cell)>,
        s: &K::Subject,
        first_arg: Option<&str>,
    ) -> Verdict<K> {
        self.decide_bounded(
            cells.map(|(k, c)| (k, c, [k.bound(true), k.bound(false)])),
            s,
            first_arg,
        )
    }

    /// `decide` with each cell's rank bounds (`[negative, positive]`, as `Scope::bound`
    /// gives them) already known, so a compiled table computes them once.
    pub fn decide_bounded<'a>(
        &'a self,
        cells: impl Iterator<Item = (&'a K, &'a Cell, [u32; 2])>,
        s: &K::Subject,
        first_arg: Option<&str>,
    ) -> Verdict<K> {
        let mut best: Option<u32> = None;
        let mut neg: Option<(&K, &Cited)> = None;
        let mut pos: Option<(&K, &Cited)> = None;
        // borrowed while one list speaks; intersected (owned) only when several do
        let mut only: Option<std::borrow::Cow<'a, BTreeSet<String>>> = None;
        let mut only_by: Option<(&K, &Cited)> = None;
        for (k, c, bounds) in cells {
            for (negative, bound) in [(true, bounds[0]), (false, bounds[1])] {
                let present = if negative {
                    c.negative.is_some()
                } else {
                    c.positive.is_some()
                };
                if !present || best.is_some_and(|b| bound < b) {
                    continue;
                }
                let Some(rank) = k.speaks(negative, s) else {
                    continue;
                };
                if best.is_some_and(|b| rank < b) {
                    continue;
                }
                if best.is_none_or(|b| rank > b) {
                    best = Some(rank);
                    neg = None;
                    pos = None;
                    only = None;
                    only_by = None;
                }
                if negative {
                    if let Some(by) = &c.negative {
                        neg = least(neg, (k, by));
                    }
                } else if let Some(sup) = &c.positive {
                    pos = least(pos, (k, &sup.by));
                    if let Some(set) = &sup.only {
                        only_by = least(only_by, (k, &sup.by));
                        only = Some(match only {
                            None => std::borrow::Cow::Borrowed(set),
                            Some(cur) => {
                                std::borrow::Cow::Owned(cur.intersection(set).cloned().collect())
                            }
                        });
                    }
                }
            }
        }
        if let Some((k, by)) = neg {
            return Err(Withheld::Excluded {
                scope: k.clone(),
                by: by.clone(),
            });
        }
        let Some((_, by)) = pos else {
            return Err(Withheld::MissingAllowance { layer: self.layer });
        };
        if let (Some(set), Some((k, lby))) = (only, only_by) {
            if !first_arg.is_some_and(|a| set.contains(a)) {
                return Err(Withheld::Subcommand {
                    scope: k.clone(),
                    by: lby.clone(),
                    allowed: set.into_owned(),
                    got: first_arg.map(str::to_owned),
                });
            }
            return Ok(Some(lby.clone()));
        }
        Ok(Some(by.clone()))
    }
}

fn least<'a, K: Ord>(
    cur: Option<(&'a K, &'a Cited)>,
    new: (&'a K, &'a Cited),
) -> Option<(&'a K, &'a Cited)> {
    match cur {
        Some(c) if c <= new => Some(c),
        _ => Some(new),
    }
}

/// Two subcommand restrictions meet by intersection (`None`: any arguments).
pub fn meet_only(
    a: Option<BTreeSet<String>>,
    b: Option<BTreeSet<String>>,
) -> Option<BTreeSet<String>> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(x), Some(y)) => Some(x.intersection(&y).cloned().collect()),
    }
}

impl<K: Scope> Judge<K> for Table<K> {
    fn verdict(&self, s: &K::Subject, arg: Option<&str>) -> Verdict<K> {
        self.decide(self.cells.iter(), s, arg)
    }
}

/// Scopes that have a subject of their own (the subject the scope names), so a table
/// meet can judge each allowance at its own subject.
pub trait Own: Scope {
    fn own(&self) -> Box<Self::Subject>;
}

impl<K: Own> Table<K> {
    /// The table meet (spec §4.2): every exclusion of either side, and each allowance kept
    /// at the meet of both sides' verdicts at its own subject (a subcommand list at the
    /// intersection of both sides' lists there). The laws are its property tests.
    pub fn meet(&self, other: &Table<K>) -> Table<K> {
        let mut out = Table::new(self.layer.min(other.layer));
        for (k, c) in self.cells.iter().chain(other.cells.iter()) {
            if let Some(n) = &c.negative {
                out.deny(k.clone(), n.clone());
            }
        }
        for (k, c) in self.cells.iter().chain(other.cells.iter()) {
            let Some(sup) = &c.positive else { continue };
            let own = k.own();
            let (Some(a), Some(b)) = (self.support_at(&*own), other.support_at(&*own)) else {
                continue;
            };
            let only = meet_only(meet_only(a, b), sup.only.clone());
            out.allow(k.clone(), sup.by.clone(), only);
        }
        out
    }

    /// What positive evidence decides at a subject, ignoring arguments: `None` withheld,
    /// `Some(None)` any arguments, `Some(Some(set))` only these.
    fn support_at(&self, s: &K::Subject) -> Option<Option<BTreeSet<String>>> {
        match self.verdict(s, None) {
            Ok(_) => Some(None),
            Err(Withheld::Subcommand { allowed, .. }) => Some(Some(allowed)),
            Err(_) => None,
        }
    }
}
