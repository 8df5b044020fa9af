//! The one structural path parser (spec §3.2): `parse_bytes` reads a byte string under
//! POSIX or Windows rules, on any host, into a [`Parsed`] head — its kind, namespace
//! facts, opening-separator spelling and length — from which every head predicate,
//! `.`/`..` folding (`fold_dots_under`) and sub-path joining (`join_under`) project.
//!
//! Pure: no I/O, no host query beyond [`PathRules::host`]. It must never fold inside a
//! head, nor let a joined sub-path re-root its base.

/// Which family's path rules to read a path under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathRules {
    Posix,
    Windows,
}

impl PathRules {
    /// The rules of the host this program runs on.
    pub const fn host() -> PathRules {
        if cfg!(windows) {
            PathRules::Windows
        } else {
            PathRules::Posix
        }
    }
    /// The other family.
    pub const fn other(self) -> PathRules {
        match self {
            PathRules::Posix => PathRules::Windows,
            PathRules::Windows => PathRules::Posix,
        }
    }
    /// Whether `b` separates components under these rules.
    pub const fn is_sep(self, b: u8) -> bool {
        match self {
            PathRules::Posix => b == b'/',
            PathRules::Windows => b == b'/' || b == b'\\',
        }
    }
    /// The separator a fold or join writes.
    pub const fn sep(self) -> u8 {
        match self {
            PathRules::Posix => b'/',
            PathRules::Windows => b'\\',
        }
    }
    /// The separator of a `PATH`-style list.
    pub const fn list_sep(self) -> char {
        match self {
            PathRules::Posix => ':',
            PathRules::Windows => ';',
        }
    }
    pub const fn name(self) -> &'static str {
        match self {
            PathRules::Posix => "POSIX",
            PathRules::Windows => "Windows",
        }
    }
}

/// The structural head of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HeadKind {
    /// `/…` under POSIX rules.
    Posix,
    /// `C:\…` (also `\\?\C:\…`).
    Drive { letter: u8 },
    /// `\\server\share\…` (also `\\?\UNC\server\share\…`); `volume`: a
    /// `\\?\Volume{…}\` volume-GUID head.
    Unc { volume: bool },
    /// `\…`: rooted on the current drive (also a `\??\` NT object path).
    Driveless,
    /// `C:x`: relative to drive C's own working directory.
    DriveRelative { letter: u8 },
    /// No head.
    Relative,
    /// `\\.\…`: the device namespace.
    Device,
    /// A two-separator or `\\?\` head that is no well-formed drive, share or device.
    Malformed,
}

/// Which OS namespace a Windows head opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Namespace {
    /// `\\?\`; `exact` when all three separators are `\`.
    Verbatim { exact: bool },
    /// `\\.\`; `exact` when all three separators are `\`.
    Device { exact: bool },
    /// `\??\`, the NT object manager's DOS devices directory.
    Object,
}

impl Namespace {
    /// Whether Win32 hands the rest to the kernel uninterpreted.
    pub fn is_exact(self) -> bool {
        match self {
            Namespace::Verbatim { exact } | Namespace::Device { exact } => exact,
            Namespace::Object => false,
        }
    }
}

/// How a head is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct HeadSpelling {
    pub namespace: Option<Namespace>,
    /// Opens with `/\` or `\/`.
    pub mixed_opening: bool,
    /// The first byte is `/`.
    pub opens_with_slash: bool,
}

/// A path's head, as `parse_bytes` read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed<'a> {
    pub raw: &'a [u8],
    pub rules: PathRules,
    pub kind: HeadKind,
    pub spelling: HeadSpelling,
    /// Bytes of `raw` that belong to the head (never folded). The whole path for a
    /// device, malformed or exact-namespace path.
    pub head_len: usize,
}

fn is_letter(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

/// Read `raw` under `rules`.
pub fn parse_bytes(raw: &[u8], rules: PathRules) -> Parsed<'_> {
    let mut spelling = HeadSpelling {
        opens_with_slash: raw.first() == Some(&b'/'),
        ..HeadSpelling::default()
    };
    let (kind, head_len) = match rules {
        PathRules::Posix => {
            if raw.first() == Some(&b'/') {
                (HeadKind::Posix, 1)
            } else {
                (HeadKind::Relative, 0)
            }
        }
        PathRules::Windows => windows_head(raw, &mut spelling),
    };
    Parsed {
        raw,
        rules,
        kind,
        spelling,
        head_len: head_len.min(raw.len()),
    }
}

fn windows_head(raw: &[u8], spelling: &mut HeadSpelling) -> (HeadKind, usize) {
    let sep = |i: usize| raw.get(i).is_some_and(|b| *b == b'/' || *b == b'\\');
    let at = |i: usize| raw.get(i).copied();
    if sep(0) && sep(1) {
        spelling.mixed_opening = at(0) != at(1);
    }
    // \??\ : the NT object namespace (backslash-spelled only; `/??/` is a driveless path).
    if raw.starts_with(b"\\??\\") {
        spelling.namespace = Some(Namespace::Object);
        return (HeadKind::Driveless, 1);
    }
    if sep(0) && sep(1) && matches!(at(2), Some(b'?') | Some(b'.')) && sep(3) {
        let exact = raw[..4].iter().filter(|b| **b == b'\\').count() == 3;
        if at(2) == Some(b'.') {
            spelling.namespace = Some(Namespace::Device { exact });
            return (HeadKind::Device, raw.len());
        }
        spelling.namespace = Some(Namespace::Verbatim { exact });
        let rest = &raw[4..];
        let (kind, len) = verbatim_head(rest);
        if kind == HeadKind::Malformed {
            return (HeadKind::Malformed, raw.len());
        }
        return (kind, if exact { raw.len() } else { 4 + len });
    }
    if sep(0) && sep(1) {
        // \\server\share
        let (ok, len) = server_share(raw, 2);
        if !ok {
            return (HeadKind::Malformed, raw.len());
        }
        return (HeadKind::Unc { volume: false }, len);
    }
    if at(0).is_some_and(is_letter) && at(1) == Some(b':') {
        let letter = raw[0].to_ascii_uppercase();
        if sep(2) {
            return (HeadKind::Drive { letter }, 3);
        }
        return (HeadKind::DriveRelative { letter }, 2);
    }
    if sep(0) {
        return (HeadKind::Driveless, 1);
    }
    (HeadKind::Relative, 0)
}

/// `server\share[\]` starting at `start`: whether both names are there, and the head end.
fn server_share(raw: &[u8], start: usize) -> (bool, usize) {
    let is_sep = |b: u8| b == b'/' || b == b'\\';
    let mut i = start;
    let s0 = i;
    while i < raw.len() && !is_sep(raw[i]) {
        i += 1;
    }
    if i == s0 || i >= raw.len() {
        return (false, raw.len());
    }
    i += 1; // separator after server
    let h0 = i;
    while i < raw.len() && !is_sep(raw[i]) {
        i += 1;
    }
    if i == h0 {
        return (false, raw.len());
    }
    if i < raw.len() {
        i += 1; // the separator after the share belongs to the head
    }
    (true, i)
}

/// The head after `\\?\`: a drive, `UNC\server\share`, or a `Volume{…}` GUID.
fn verbatim_head(rest: &[u8]) -> (HeadKind, usize) {
    let is_sep = |b: u8| b == b'/' || b == b'\\';
    if rest.len() >= 2 && is_letter(rest[0]) && rest[1] == b':' {
        let letter = rest[0].to_ascii_uppercase();
        if rest.len() == 2 {
            return (HeadKind::Drive { letter }, 2);
        }
        if is_sep(rest[2]) {
            return (HeadKind::Drive { letter }, 3);
        }
        return (HeadKind::Malformed, rest.len());
    }
    if rest.len() > 4 && rest[..3].eq_ignore_ascii_case(b"UNC") && is_sep(rest[3]) {
        let (ok, len) = server_share(rest, 4);
        if ok {
            return (HeadKind::Unc { volume: false }, len);
        }
        return (HeadKind::Malformed, rest.len());
    }
    if rest.len() >= 8 && rest[..7].eq_ignore_ascii_case(b"Volume{") {
        if let Some(close) = rest.iter().position(|b| *b == b'}') {
            let mut len = close + 1;
            if rest.get(len).is_some_and(|b| is_sep(*b)) {
                len += 1;
            } else if len != rest.len() {
                return (HeadKind::Malformed, rest.len());
            }
            return (HeadKind::Unc { volume: true }, len);
        }
    }
    (HeadKind::Malformed, rest.len())
}

impl Parsed<'_> {
    /// Absolute under its rules: POSIX `/…`; Windows drive, UNC, device or malformed.
    pub fn is_absolute(&self) -> bool {
        match self.rules {
            PathRules::Posix => self.kind == HeadKind::Posix,
            PathRules::Windows => matches!(
                self.kind,
                HeadKind::Drive { .. }
                    | HeadKind::Unc { .. }
                    | HeadKind::Device
                    | HeadKind::Malformed
            ),
        }
    }
    /// Opens with `/\` or `\/` (Windows rules).
    pub fn is_mixed_head(&self) -> bool {
        self.spelling.mixed_opening
    }
    /// A `\??\` NT object path.
    pub fn is_nt_object(&self) -> bool {
        self.spelling.namespace == Some(Namespace::Object)
    }
    /// An exact `\\?\` or `\\.\` head: Win32 hands the rest over uninterpreted.
    pub fn has_os_namespace_head(&self) -> bool {
        self.spelling.namespace.is_some_and(Namespace::is_exact)
    }
    /// The bytes after a 4-byte `\\?\` / `\\.\` / `\??\` prefix.
    pub fn namespace_tail(&self) -> Option<&[u8]> {
        self.spelling
            .namespace
            .map(|_| &self.raw[4.min(self.raw.len())..])
    }
    /// The path without a `\\?\` prefix (for a verbatim drive or UNC, the Win32 spelling).
    pub fn without_verbatim_prefix(&self) -> Vec<u8> {
        match (self.spelling.namespace, self.kind) {
            (Some(Namespace::Verbatim { .. }), HeadKind::Drive { .. }) => self.raw[4..].to_vec(),
            (Some(Namespace::Verbatim { .. }), HeadKind::Unc { volume: false }) => {
                let mut v = b"\\\\".to_vec();
                v.extend_from_slice(&self.raw[8.min(self.raw.len())..]);
                v
            }
            _ => self.raw.to_vec(),
        }
    }
    /// Whether a fold respells this head with `\` (Windows, no namespace, spelling not
    /// part of the meaning).
    fn respell_head(&self) -> bool {
        self.rules == PathRules::Windows
            && self.spelling.namespace.is_none()
            && matches!(
                self.kind,
                HeadKind::Drive { .. }
                    | HeadKind::Unc { .. }
                    | HeadKind::Driveless
                    | HeadKind::DriveRelative { .. }
                    | HeadKind::Relative
            )
    }
    /// Whether the head is rooted (a `..` cannot climb above it).
    fn is_rooted(&self) -> bool {
        !matches!(
            self.kind,
            HeadKind::Relative | HeadKind::DriveRelative { .. }
        )
    }
    /// Whether the path is kept whole by a fold.
    fn kept_whole(&self) -> bool {
        matches!(self.kind, HeadKind::Device | HeadKind::Malformed) || self.has_os_namespace_head()
    }
}

/// The longest path a freeze resolves, in bytes (Linux's `PATH_MAX`).
pub const PATH_MAX_BYTES: usize = 4096;
/// The most components a path a freeze resolves may have.
pub const MAX_COMPONENTS: usize = 256;

/// Whether a path is within the freeze's bounds: at most [`PATH_MAX_BYTES`] bytes and
/// [`MAX_COMPONENTS`] non-empty components (either separator counted under Windows rules).
/// Checked before any work proportional to the path's shape is done.
pub fn within_limits(raw: &str, rules: PathRules) -> bool {
    // n non-empty components take at least 2n - 1 bytes: a short path needs no count
    if raw.len() < 2 * MAX_COMPONENTS {
        return true;
    }
    raw.len() <= PATH_MAX_BYTES
        && raw
            .as_bytes()
            .split(|b| rules.is_sep(*b))
            .filter(|c| !c.is_empty())
            .count()
            <= MAX_COMPONENTS
}

/// Absolute under `rules`.
pub fn absolute_under(raw: &str, rules: PathRules) -> bool {
    parse_bytes(raw.as_bytes(), rules).is_absolute()
}

/// Absolute on this host.
pub fn is_absolute(raw: &str) -> bool {
    absolute_under(raw, PathRules::host())
}

/// Whether a path can be a working directory under `rules`: POSIX `/…`; Windows a drive
/// or share path.
pub fn is_working_directory(raw: &str, rules: PathRules) -> bool {
    let p = parse_bytes(raw.as_bytes(), rules);
    match rules {
        PathRules::Posix => p.kind == HeadKind::Posix,
        PathRules::Windows => matches!(p.kind, HeadKind::Drive { .. } | HeadKind::Unc { .. }),
    }
}

/// A Windows path absolute to the kernel but with no parsed prefix (`\x`, `\\?\bad`),
/// which would descend or climb from the current drive: refused by walks.
pub fn is_unparsed_head(raw: &str) -> bool {
    let p = parse_bytes(raw.as_bytes(), PathRules::Windows);
    matches!(p.kind, HeadKind::Driveless | HeadKind::Malformed) && !p.is_nt_object()
}

/// A sub-path with its leading separators (under `rules`) stripped.
pub fn relative_suffix(sub: &str, rules: PathRules) -> &str {
    sub.trim_start_matches(|c: char| c.is_ascii() && rules.is_sep(c as u8))
}

/// A non-namespace drive or drive-relative head (Windows rules).
pub fn has_drive(raw: &str) -> bool {
    let p = parse_bytes(raw.as_bytes(), PathRules::Windows);
    p.spelling.namespace.is_none()
        && matches!(
            p.kind,
            HeadKind::Drive { .. } | HeadKind::DriveRelative { .. }
        )
}

/// A UNC (network) head under Windows rules.
pub fn is_network(raw: &str) -> bool {
    matches!(
        parse_bytes(raw.as_bytes(), PathRules::Windows).kind,
        HeadKind::Unc { volume: false }
    )
}

/// A `\\?\C:\` verbatim drive.
pub fn is_verbatim_drive(raw: &str) -> bool {
    let p = parse_bytes(raw.as_bytes(), PathRules::Windows);
    matches!(p.spelling.namespace, Some(Namespace::Verbatim { .. }))
        && matches!(p.kind, HeadKind::Drive { .. })
}

/// A `\\?\Volume{…}` volume-GUID head.
pub fn is_volume_guid(raw: &str) -> bool {
    matches!(
        parse_bytes(raw.as_bytes(), PathRules::Windows).kind,
        HeadKind::Unc { volume: true }
    )
}

/// The root alone: `/` (POSIX), or a drive root / `\` (Windows), after folding.
pub fn is_bare_root(raw: &str, rules: PathRules) -> bool {
    let folded = fold_dots_under(raw, rules);
    let p = parse_bytes(folded.as_bytes(), rules);
    match p.kind {
        HeadKind::Posix | HeadKind::Driveless => folded.len() == 1,
        HeadKind::Drive { .. } => p.head_len >= folded.len() || folded.len() <= 3,
        HeadKind::Unc { .. } => p.head_len >= folded.len(),
        _ => false,
    }
}

/// Fold `.` and `..` past the head only, joining names with the rules' separator.
/// Windows non-namespace heads are respelled with `\`; device, malformed and exact
/// namespace paths are kept whole; a trailing separator is dropped (save for a root).
pub fn fold_dots_under(raw: &str, rules: PathRules) -> String {
    fold_dots_cow(raw, rules).into_owned()
}

/// `fold_dots_under`, borrowing `raw` when it is already folded (an absolute POSIX path
/// whose every name is neither empty, `.` nor `..`: the fold would give it back).
pub fn fold_dots_cow(raw: &str, rules: PathRules) -> std::borrow::Cow<'_, str> {
    if rules == PathRules::Posix && is_folded_posix(raw) {
        std::borrow::Cow::Borrowed(raw)
    } else {
        std::borrow::Cow::Owned(fold_dots_general(raw, rules))
    }
}

/// An absolute POSIX path the fold leaves as it is: `/`, or `/` and names, none empty,
/// `.` or `..` (so no doubled or trailing separator).
fn is_folded_posix(raw: &str) -> bool {
    let b = raw.as_bytes();
    if b == b"/" {
        return true;
    }
    if b.first() != Some(&b'/') {
        return false;
    }
    // one pass over the bytes: each name (between separators, and to the end) checked
    let mut start = 1;
    for i in 1..=b.len() {
        if i == b.len() || b[i] == b'/' {
            if matches!(&b[start..i], b"" | b"." | b"..") {
                return false;
            }
            start = i + 1;
        }
    }
    true
}

/// The fold itself, for any path under any rules.
fn fold_dots_general(raw: &str, rules: PathRules) -> String {
    let p = parse_bytes(raw.as_bytes(), rules);
    if p.kind_whole_guard() {
        return raw.to_string();
    }
    let head_bytes = &raw.as_bytes()[..p.head_len];
    let mut head: Vec<u8> = if p.respell_head() {
        head_bytes
            .iter()
            .map(|b| if *b == b'/' { b'\\' } else { *b })
            .collect()
    } else {
        head_bytes.to_vec()
    };
    let tail = &raw.as_bytes()[p.head_len..];
    let mut names: Vec<&[u8]> = Vec::new();
    for name in tail.split(|b| rules.is_sep(*b)) {
        match name {
            b"" | b"." => {}
            b".." => match names.last() {
                Some(last) if *last != b".." => {
                    names.pop();
                }
                _ => {
                    if !p.is_rooted() {
                        names.push(name);
                    }
                }
            },
            _ => names.push(name),
        }
    }
    let sep = rules.sep();
    let mut out = Vec::new();
    // a relative path's drive-shaped first name keeps a `.\` before it
    if rules == PathRules::Windows
        && p.kind == HeadKind::Relative
        && names
            .first()
            .is_some_and(|n| n.len() >= 2 && is_letter(n[0]) && n[1] == b':')
    {
        head = vec![b'.', sep];
    }
    out.extend_from_slice(&head);
    for (i, n) in names.iter().enumerate() {
        let needs_sep = i > 0 || (!out.is_empty() && !out.last().is_some_and(|b| rules.is_sep(*b)));
        if needs_sep && !(i == 0 && matches!(p.kind, HeadKind::DriveRelative { .. })) {
            out.push(sep);
        }
        out.extend_from_slice(n);
    }
    if out.is_empty() && p.kind == HeadKind::Relative {
        out.push(b'.');
    }
    // `\??\` alone keeps its separator, so the fold keeps the NT object namespace
    if p.is_nt_object() && out == b"\\??" {
        out.push(b'\\');
    }
    String::from_utf8(out).unwrap_or_else(|_| raw.to_string())
}

impl Parsed<'_> {
    fn kind_whole_guard(&self) -> bool {
        self.kept_whole()
    }
}

/// Why a sub-path may not be joined under a base.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubpathRefusal {
    /// It names a volume of its own under Windows rules (absolute there, a share or
    /// namespace head, or a drive at any component): joining would re-root the base.
    Rerooting,
}

/// Whether a sub-path would re-root a join under Windows rules (checked on every host:
/// a profile is portable).
pub fn classify_subpath(sub: &str) -> Result<(), SubpathRefusal> {
    let p = parse_bytes(sub.as_bytes(), PathRules::Windows);
    if p.spelling.namespace.is_some()
        || p.is_mixed_head()
        || matches!(
            p.kind,
            HeadKind::Drive { .. }
                | HeadKind::Unc { .. }
                | HeadKind::Device
                | HeadKind::DriveRelative { .. }
        )
    {
        return Err(SubpathRefusal::Rerooting);
    }
    let drive_at_component = sub
        .as_bytes()
        .split(|b| *b == b'/' || *b == b'\\')
        .any(|c| c.len() >= 2 && is_letter(c[0]) && c[1] == b':');
    if drive_at_component {
        return Err(SubpathRefusal::Rerooting);
    }
    Ok(())
}

/// Join `sub` onto `base` one component at a time with the rules' separator, its leading
/// separators stripped (a sub-path never discards its base), then fold. Refuses a
/// sub-path that would re-root the join.
pub fn join_under(base: &str, sub: &str, rules: PathRules) -> Result<String, SubpathRefusal> {
    classify_subpath(sub)?;
    let sep = rules.sep() as char;
    let mut out = String::with_capacity(base.len() + 1 + sub.len());
    out.push_str(base);
    for name in sub.split(|c: char| c == '/' || (rules == PathRules::Windows && c == '\\')) {
        if name.is_empty() {
            continue;
        }
        if !out.ends_with(|c: char| rules.is_sep(c as u8) && c.is_ascii()) {
            out.push(sep);
        }
        out.push_str(name);
    }
    // most joins need no fold: the joined text is kept, not copied
    Ok(match fold_dots_cow(&out, rules) {
        std::borrow::Cow::Borrowed(_) => out,
        std::borrow::Cow::Owned(folded) => folded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use PathRules::*;

    #[test]
    fn within_limits_counts_components_only_where_there_could_be_too_many() {
        let count = |raw: &str| raw.split(['/', '\\']).filter(|c| !c.is_empty()).count();
        for n in [250, 255, 256, 257, 300] {
            for raw in [
                "/a".repeat(n),
                "a/".repeat(n),
                "/ab".repeat(n),
                "//a".repeat(n),
            ] {
                let want = raw.len() <= PATH_MAX_BYTES && count(&raw) <= MAX_COMPONENTS;
                assert_eq!(within_limits(&raw, Posix), want, "{n} {}", raw.len());
                assert_eq!(within_limits(&raw, Windows), want, "{n} {}", raw.len());
            }
        }
    }

    #[test]
    fn an_already_folded_posix_path_folds_to_itself_and_others_as_before() {
        let cases = [
            "/",
            "/a",
            "/a/b",
            "/a/b/",
            "//a",
            "/a//b",
            "/./a",
            "/a/.",
            "/a/..",
            "/..",
            "/a/../b",
            "/.a/..b/...",
            "a/b",
            "",
            ".",
            "/a\\b",
            "/é/ü",
            "/a/b/./c/../d",
        ];
        for raw in cases {
            for rules in [Posix, Windows] {
                let fast = fold_dots_cow(raw, rules);
                assert_eq!(fast, fold_dots_general(raw, rules), "{raw:?} {rules:?}");
                assert_eq!(
                    matches!(fast, std::borrow::Cow::Borrowed(_)),
                    rules == Posix && fold_dots_general(raw, rules) == raw && raw.starts_with('/'),
                    "{raw:?} {rules:?}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_borrowing_fold_is_the_fold(raw in "[/a.\\\\]{0,12}") {
            for rules in [Posix, Windows] {
                proptest::prop_assert_eq!(
                    fold_dots_under(&raw, rules),
                    fold_dots_general(&raw, rules)
                );
            }
        }
    }

    #[test]
    fn heads() {
        assert_eq!(parse_bytes(b"/usr", Posix).kind, HeadKind::Posix);
        assert_eq!(parse_bytes(b"/usr", Windows).kind, HeadKind::Driveless);
        assert_eq!(
            parse_bytes(b"C:\\x", Windows).kind,
            HeadKind::Drive { letter: b'C' }
        );
        assert_eq!(
            parse_bytes(b"c:x", Windows).kind,
            HeadKind::DriveRelative { letter: b'C' }
        );
        assert_eq!(
            parse_bytes(b"//srv/sh/x", Windows).kind,
            HeadKind::Unc { volume: false }
        );
        assert_eq!(parse_bytes(b"//srv/sh/x", Windows).head_len, 9);
        assert_eq!(parse_bytes(b"\\\\.\\NUL", Windows).kind, HeadKind::Device);
        assert_eq!(parse_bytes(b"\\\\srv", Windows).kind, HeadKind::Malformed);
        assert!(parse_bytes(b"\\??\\C:\\x", Windows).is_nt_object());
        assert!(parse_bytes(b"/\\x\\y", Windows).is_mixed_head());
    }

    #[test]
    fn folds() {
        assert_eq!(fold_dots_under("/a/b/../c/./d/", Posix), "/a/c/d");
        assert_eq!(fold_dots_under("/../..", Posix), "/");
        assert_eq!(fold_dots_under("C:/a/b/..", Windows), "C:\\a");
        assert_eq!(
            fold_dots_under("//srv/sh/a/../b", Windows),
            "\\\\srv\\sh\\b"
        );
        assert_eq!(
            fold_dots_under("\\\\?\\C:\\a\\..\\b", Windows),
            "\\\\?\\C:\\a\\..\\b"
        );
        assert_eq!(fold_dots_under("a/../../b", Posix), "../b");
        assert_eq!(fold_dots_under("./C:x", Windows), ".\\C:x");
    }

    #[test]
    fn predicates() {
        assert!(absolute_under("/x", Posix) && !absolute_under("/x", Windows));
        assert!(absolute_under("C:\\x", Windows) && !absolute_under("C:\\x", Posix));
        assert!(absolute_under("\\\\.\\NUL", Windows) && absolute_under("\\\\srv", Windows));
        assert!(has_drive("c:x") && has_drive("C:\\") && !has_drive("\\\\?\\C:\\"));
        assert!(is_network("\\\\srv\\sh") && !is_network("\\\\?\\Volume{x}\\"));
        assert!(is_verbatim_drive("\\\\?\\C:\\x") && !is_verbatim_drive("C:\\x"));
        assert!(is_volume_guid("\\\\?\\Volume{1-2}\\x"));
        assert!(
            is_bare_root("/", Posix) && is_bare_root("//.", Posix) && !is_bare_root("/a", Posix)
        );
        assert!(
            is_bare_root("C:\\", Windows)
                && is_bare_root("c:/", Windows)
                && !is_bare_root("C:\\a", Windows)
        );
        assert!(is_working_directory("/a", Posix) && !is_working_directory("/a", Windows));
        assert!(is_unparsed_head("\\x") && !is_unparsed_head("C:\\x"));
        assert_eq!(relative_suffix("//a/b", Posix), "a/b");
        assert_eq!(relative_suffix("\\a", Windows), "a");
        assert_eq!(relative_suffix("\\a", Posix), "\\a");
        let p = parse_bytes(b"\\\\?\\UNC\\srv\\sh\\x", Windows);
        assert_eq!(p.without_verbatim_prefix(), b"\\\\srv\\sh\\x".to_vec());
        assert_eq!(
            parse_bytes(b"\\\\.\\NUL", Windows).namespace_tail(),
            Some(&b"NUL"[..])
        );
    }

    #[test]
    fn joins() {
        assert_eq!(
            join_under("/h/.config", "/etc", Posix).unwrap(),
            "/h/.config/etc"
        );
        assert_eq!(
            join_under("/h/.config", "//etc", Posix).unwrap(),
            "/h/.config/etc"
        );
        assert!(join_under("/h", "C:\\x", Posix).is_err());
        assert!(join_under("/h", "a/D:/x", Posix).is_err());
        assert!(join_under("/h", "\\\\srv\\sh", Posix).is_err());
        assert!(join_under("/h", "//srv/sh", Posix).is_err());
        assert!(join_under("/h", "\\\\?\\C:\\x", Posix).is_err());
    }
}
