//! The macOS renderer: a pure function from a `SandboxProjection` (and, for a launch, the
//! admitted program and its denial tag) to a Seatbelt profile, `.sbpl` text. The fidelity
//! notes and the shipped base come first, then the grant's rules in precedence order — fs
//! allows, net, exec rules, exec ancestors, fs denies, pins — so every deny follows every
//! allow it carves (Seatbelt is reported to let the last matching rule win), and each
//! carve-out is also written in the order-independent `require-not` form. Every path is
//! emitted in both firmlink spellings; every deny carries the launch's tag
//! (`(with message TAG)`), so the unified log's reports of this run are found by it. It
//! never touches the disk, and never emits a path, name or tag it cannot spell: such a
//! render is refused (the caller exits 1), never weakened.

use crate::capability::projection::{ExecProjection, SandboxProjection};
use ralc_runtime::plan::within;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The policy-independent base every rendered profile starts with.
pub const BASE: &str = include_str!("macos-base.sbpl");

/// `sandbox-exec` reports a 64 KiB limit per profile object; the renderer warns past this.
pub const SIZE_WARNING: usize = 48 * 1024;
/// The limit itself.
pub const SIZE_LIMIT: usize = ralc_runtime::macos::PROFILE_LIMIT;

/// A door the base keeps shut, with the reason: data for the denial hint, since no grant
/// can open it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WithheldDoor {
    pub service: &'static str,
    pub reason: &'static str,
}

/// The Mach services the base withholds, and why.
pub const WITHHELD_DOORS: &[WithheldDoor] = &[
    WithheldDoor {
        service: "com.apple.coreservices.launchservicesd",
        reason: "launch services would start other applications outside the sandbox",
    },
    WithheldDoor {
        service: "com.apple.pasteboard.1",
        reason: "the pasteboard is the user's, readable and writable across applications",
    },
    WithheldDoor {
        service: "com.apple.SecurityServer",
        reason: "the security server holds the user's keychains",
    },
];

/// What the macOS system itself needs readable (and its libraries mappable executable)
/// for any program to start under a restricted fs: the system volume, the shared dyld
/// cache, the toolchain shims and what they select (the Command Line Tools — their SDK,
/// `usr/lib`, git's libexec — Xcode's developer directory and `xcode-select`'s link),
/// system configuration.
pub const SYSTEM_READ: &[&str] = &[
    "/Applications/Xcode.app/Contents/Developer",
    "/Library/Apple",
    "/Library/Developer/CommandLineTools",
    "/Library/Preferences",
    "/System",
    "/bin",
    "/private/etc",
    "/private/var/db/dyld",
    "/private/var/db/xcode_select_link",
    "/private/var/select",
    "/sbin",
    "/usr",
];

/// The developer tools' own caches in the user's Darwin cache directory
/// (`getconf DARWIN_USER_CACHE_DIR`, `/private/var/folders/XX/YYYY/C`): `xcrun`'s and
/// clang's. Readable and writable under a restricted fs, though no grant names them: the
/// directory is per user and known only to the running system, so it is matched by its
/// layout (the file modes keep other users' out). Said in the fidelity notes.
pub const DEVELOPER_CACHES: &[&str] = &[
    r"^/private/var/folders/[^/]+/[^/]+/C/(com\.apple\.DeveloperTools|clang|xcrun_db)(/|$)",
    r"^/var/folders/[^/]+/[^/]+/C/(com\.apple\.DeveloperTools|clang|xcrun_db)(/|$)",
];

/// The unix sockets name resolution needs (`mDNSResponder`): reachable with the network.
pub const NET_SOCKETS: &[&str] = &["/private/var/run/mDNSResponder"];

/// The denial tag of a profile rendered without a launch (`ralc render`): a launch
/// renders with its own (`runtime::macos::denial_tag`).
pub const DEFAULT_TAG: &str = "ralc";

/// Where the base takes the denial tag.
const TAG_SLOT: &str = "@TAG@";

/// The Mach services name resolution and certificate trust need: granted only with the
/// network, so `` `offline `` also closes DNS.
pub const NET_SERVICES: &[&str] = &[
    "com.apple.SystemConfiguration.DNSConfiguration",
    "com.apple.SystemConfiguration.configd",
    "com.apple.dnssd.service",
    "com.apple.trustd",
    "com.apple.trustd.agent",
];

/// A rendered Seatbelt profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatbeltProfile {
    /// The profile text (empty when refused).
    pub text: String,
    /// Why the profile cannot be rendered (empty: it can).
    pub refused: Vec<String>,
    /// Where the profile is broader than the grant, or cannot express it (also written at
    /// the head of `text` as `;; fidelity:` comments).
    pub fidelity: Vec<String>,
}

impl SeatbeltProfile {
    /// The profile's size in bytes, as `sandbox-exec -p` would receive it.
    pub fn size(&self) -> usize {
        self.text.len()
    }
}

/// The firmlink pairs: each path under one spelling is also emitted under the other.
const FIRMLINKS: &[(&str, &str)] = &[
    ("/etc", "/private/etc"),
    ("/tmp", "/private/tmp"),
    ("/var", "/private/var"),
];

/// Both spellings of a path (itself first, then its firmlink twin, if any).
pub fn spellings(path: &str) -> Vec<String> {
    let mut out = vec![path.to_string()];
    for (short, long) in FIRMLINKS {
        if within(path, short) {
            out.push(format!("{long}{}", &path[short.len()..]));
        } else if within(path, long) {
            out.push(format!("{short}{}", &path[long.len()..]));
        }
    }
    out
}

/// A path in its short firmlink spelling (`/private/tmp/x` → `/tmp/x`), so two
/// spellings of one path are one entry (`spellings` adds the other back).
pub fn canonical(path: &str) -> String {
    canonical_cow(path).into_owned()
}

/// `canonical`, borrowing a path that is already in its short spelling.
fn canonical_cow(path: &str) -> Cow<'_, str> {
    for (short, long) in FIRMLINKS {
        if within(path, long) {
            return Cow::Owned(format!("{short}{}", &path[long.len()..]));
        }
    }
    Cow::Borrowed(path)
}

/// Paths in their canonical spelling, sorted, once each (borrowed where already so).
fn norm<'a>(paths: impl IntoIterator<Item = &'a String>) -> Vec<Cow<'a, str>> {
    let mut v: Vec<Cow<'a, str>> = paths.into_iter().map(|p| canonical_cow(p)).collect();
    v.sort();
    v.dedup();
    v
}

/// An SBPL string literal, or why the path cannot be spelled (a control character).
fn quote(s: &str) -> Result<String, String> {
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return Err(format!(
            "{s:?} holds a control character ({:?}) that a Seatbelt profile cannot spell",
            c
        ));
    }
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    Ok(q)
}

/// A regex matching any path whose last component is `name`, ASCII letters in either case
/// (the default APFS volume is case-insensitive), metacharacters and `"` escaped with `\`
/// (as Codex writes its `#"…"` literals).
fn name_regex(name: &str) -> Result<String, String> {
    if name.is_empty() || name.contains('/') {
        return Err(format!(
            "the vetoed name {name:?} cannot be spelled as a Seatbelt regex"
        ));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(format!(
            "the vetoed name {name:?} holds a control character ({c:?})"
        ));
    }
    let mut r = String::from("#\"/");
    for c in name.chars() {
        if c.is_ascii_alphabetic() {
            let _ = write!(r, "[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase());
        } else if "\\.^$*+?()[]{}|\"".contains(c) {
            // A regex metacharacter, or the quote that would end the `#"…"` literal.
            r.push('\\');
            r.push(c);
        } else {
            r.push(c);
        }
    }
    r.push_str("$\"");
    Ok(r)
}

/// The entries of the sorted `paths` strictly beneath `prefix`: a contiguous run, found by
/// binary search (no pass over every pair of prefix and exclusion).
fn strictly_within<'p, 'a>(paths: &'p [&'a str], prefix: &str) -> &'p [&'a str] {
    if paths.is_empty() {
        return paths;
    }
    let dir = if prefix == "/" {
        "/".to_string()
    } else {
        format!("{prefix}/")
    };
    let start = paths.partition_point(|x| *x < dir.as_str());
    let n = paths[start..]
        .iter()
        .take_while(|x| x.starts_with(&dir) && **x != prefix)
        .count();
    &paths[start..start + n]
}

/// Every proper ancestor of `path` (`/` excluded: the base reads it), outermost first.
fn ancestors(path: &str) -> Vec<&str> {
    let mut out: Vec<&str> = parents(path).collect();
    out.reverse();
    out
}

/// Every proper ancestor of `path` (`/` excluded), innermost first, borrowed.
fn parents(path: &str) -> impl Iterator<Item = &str> {
    let mut at = path;
    std::iter::from_fn(move || {
        let (parent, _) = at.rsplit_once('/')?;
        if parent.is_empty() {
            return None;
        }
        at = parent;
        Some(parent)
    })
}

/// Where the profile text goes: kept (`render`), or only counted (`measure`: the same
/// bytes written, their length added up, none stored).
struct Text {
    keep: bool,
    buf: String,
    len: usize,
}

impl Text {
    fn push_str(&mut self, s: &str) {
        self.len += s.len();
        if self.keep {
            self.buf.push_str(s);
        }
    }
}

impl std::fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

/// The profile text under construction: rules and comments, with the first spelling
/// failure kept as a refusal.
struct Out {
    text: Text,
    refused: Vec<String>,
    /// The denial tag as an SBPL string, for `(with message …)`.
    tag: String,
}

/// The length of `quote(s)` for a string with no control character.
fn quoted_len(s: &str) -> usize {
    s.len() + 2 + s.bytes().filter(|b| matches!(b, b'"' | b'\\')).count()
}

/// Whether no two of `paths` share a spelling and none fails to quote: each is in its
/// canonical (short) spelling, with no control character, and they are strictly sorted.
/// (A canonical path's twin is a long spelling, which no other canonical path is.)
fn distinct_spellings<P: AsRef<str>>(paths: &[P]) -> bool {
    paths.windows(2).all(|w| w[0].as_ref() < w[1].as_ref())
        && paths.iter().map(AsRef::as_ref).all(|p| {
            !p.chars().any(char::is_control) && !FIRMLINKS.iter().any(|(_, long)| within(p, long))
        })
}

impl Out {
    fn section(&mut self, title: &str) {
        let _ = write!(self.text, "\n;; {title}\n");
    }
    /// A deny's operations followed by the tag, `OPS (with message "TAG")`; an allow's as
    /// given.
    fn ops_of<'o>(&self, action: &str, ops: &'o str) -> Cow<'o, str> {
        if action == "deny" {
            Cow::Owned(format!("{ops} (with message {})", self.tag))
        } else {
            Cow::Borrowed(ops)
        }
    }
    /// `(ACTION OPS FILTER…)` with one `(KIND "path")` filter per spelling of each path.
    fn rule<P: AsRef<str>>(&mut self, action: &str, ops: &str, kind: &str, paths: &[P]) {
        if paths.is_empty() {
            return;
        }
        let ops = self.ops_of(action, ops);
        let ops = ops.as_ref();
        if !self.text.keep && distinct_spellings(paths) {
            // Measured: no filter repeats and none is refused, so the rule's length is
            // the sum of its filters' (the order `sort` would give does not change it).
            let mut filters = 0;
            let mut len = 0;
            for p in paths.iter().map(AsRef::as_ref) {
                let q = quoted_len(p);
                filters += 1;
                len += kind.len() + 3 + q;
                for (short, long) in FIRMLINKS {
                    if within(p, short) {
                        filters += 1;
                        len += kind.len() + 3 + q - short.len() + long.len();
                    }
                }
            }
            let head = action.len() + ops.len() + 5; // "(A O\n  "
            self.text.len += head + len + 3 * (filters - 1) + 2; // "\n  " between, ")\n"
            return;
        }
        let mut filters = Vec::new();
        for p in paths {
            for s in spellings(p.as_ref()) {
                match quote(&s) {
                    Ok(q) => filters.push(format!("({kind} {q})")),
                    Err(e) => self.refused.push(e),
                }
            }
        }
        filters.sort();
        filters.dedup();
        let _ = write!(self.text, "({action} {ops}\n  ");
        for (i, f) in filters.iter().enumerate() {
            if i > 0 {
                self.text.push_str("\n  ");
            }
            self.text.push_str(f);
        }
        self.text.push_str(")\n");
    }
    /// An allowance under `prefix` that also excludes each of `carved` within it, in the
    /// order-independent form: `(require-all (subpath P) (require-not (literal X))
    /// (require-not (subpath X)) …)`, one per spelling of the prefix.
    fn carved(&mut self, ops: &str, prefix: &str, carved: &[&str]) {
        for p in spellings(prefix) {
            let mut parts = Vec::new();
            match quote(&p) {
                Ok(q) => parts.push(format!("(subpath {q})")),
                Err(e) => {
                    self.refused.push(e);
                    continue;
                }
            }
            for x in carved {
                for s in spellings(x) {
                    match quote(&s) {
                        Ok(q) => {
                            parts.push(format!("(require-not (literal {q}))"));
                            parts.push(format!("(require-not (subpath {q}))"));
                        }
                        Err(e) => self.refused.push(e),
                    }
                }
            }
            let _ = write!(self.text, "(allow {ops}\n  (require-all\n    ");
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    self.text.push_str("\n    ");
                }
                self.text.push_str(part);
            }
            self.text.push_str("))\n");
        }
    }
}

/// Render the Seatbelt profile. `program` is the admitted program's real path for a
/// launch (empty: the stack's profile alone); `self_path` is ralc's executable on the
/// target, which every profile write-protects.
///
/// The sections in precedence order, each its own function: `fs_allows`, `net`,
/// `exec_rules` (and their ancestors), `fs_denies`, `pins`; then
/// `Out::finish` refuses what the target cannot take.
pub fn render(projection: &SandboxProjection, program: &str, self_path: &str) -> SeatbeltProfile {
    render_tagged(projection, program, self_path, DEFAULT_TAG)
}

/// [`render`] for a launch: every deny, the default's included, carries `tag`
/// (`(with message "TAG")`), so the unified log's reports of this run are found by it,
/// whatever process made them. A tag other than ASCII letters, digits, `.`, `_` and `-`
/// (1 to 64 of them) refuses the render.
pub fn render_tagged(
    projection: &SandboxProjection,
    program: &str,
    self_path: &str,
    tag: &str,
) -> SeatbeltProfile {
    let fidelity = fidelity(projection);
    let (text, _, refused) =
        write_profile(projection, program, self_path, tag, &fidelity, true).finish(self_path);
    SeatbeltProfile {
        text,
        refused,
        fidelity,
    }
}

/// Whether `tag` can be a denial tag: 1 to 64 ASCII letters, digits, `.`, `_`, `-`.
pub fn valid_tag(tag: &str) -> bool {
    (1..=64).contains(&tag.len())
        && tag
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Where the profile for `projection` is broader than the grant or cannot express it.
pub fn fidelity(projection: &SandboxProjection) -> Vec<String> {
    let mut out = Vec::new();
    if projection.fs.is_some() {
        out.push(format!(
            "readable and mappable executable: the system paths programs need to start ({})",
            SYSTEM_READ.join(", ")
        ));
        out.push(
            "writable: the developer tools' caches in the user's Darwin cache directory \
             (C/com.apple.DeveloperTools, C/clang, C/xcrun_db), matched by the \
             /private/var/folders layout"
                .to_string(),
        );
        out.push(
            "unix sockets: reachable where the grant reads (with the network) or writes \
             (offline), less the exclusions; mDNSResponder's with the network"
                .to_string(),
        );
    }
    if projection.net_offline {
        out.push(
            "offline: loopback is the host's, not the program's own: every service \
             listening on the host's localhost is reachable (Linux gives the program a \
             loopback of its own); binding the wildcard address is refused, bind localhost"
                .to_string(),
        );
    }
    out
}

/// What [`render`] would give, without the text: `size` is its `SeatbeltProfile::size()`
/// (0 when refused) and `refused` its refusals, the same. The profile is written by the
/// same code into a counter instead of a string (for the `seatbelt-size` lint, which
/// reports the size of a profile that may run to megabytes).
pub fn measure(projection: &SandboxProjection, program: &str, self_path: &str) -> Measured {
    let fidelity = fidelity(projection);
    let (_, size, refused) = write_profile(
        projection,
        program,
        self_path,
        DEFAULT_TAG,
        &fidelity,
        false,
    )
    .finish(self_path);
    Measured { size, refused }
}

/// The size and refusals of a profile [`measure`]d.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measured {
    pub size: usize,
    pub refused: Vec<String>,
}

/// The whole profile into a `Text` that keeps it (`keep`) or only counts it.
fn write_profile(
    projection: &SandboxProjection,
    program: &str,
    self_path: &str,
    tag: &str,
    fidelity: &[String],
    keep: bool,
) -> Out {
    let mut o = Out {
        text: Text {
            keep,
            buf: String::new(),
            len: 0,
        },
        refused: Vec::new(),
        tag: format!("\"{tag}\""),
    };
    if !valid_tag(tag) {
        o.refused.push(format!(
            "the denial tag {tag:?} is not 1 to 64 ASCII letters, digits, '.', '_' or '-'"
        ));
    }
    let _ = write!(
        o.text,
        ";; Rendered by ralc {} from a SandboxProjection. Precedence is section order:\n\
         ;; fs allows, net, exec rules, exec ancestors, fs denies, pins.\n",
        env!("CARGO_PKG_VERSION")
    );
    for f in fidelity {
        let _ = writeln!(o.text, ";; fidelity: {f}");
    }
    let _ = write!(
        o.text,
        "(version 1)\n(deny default (with message {}))\n",
        o.tag
    );
    for (i, piece) in BASE.split(TAG_SLOT).enumerate() {
        if i > 0 {
            let tag = o.tag.clone();
            o.text.push_str(&tag);
        }
        o.text.push_str(piece);
    }
    let (denies, write_denies) = fs_allows(&mut o, projection);
    net(&mut o, projection);
    exec_rules(&mut o, projection, program, self_path);
    fs_denies(&mut o, &denies, &write_denies);
    pins(&mut o, projection, &denies, &write_denies, self_path);
    o
}

/// The unix-socket operations: a connect is `network-outbound`, a listening socket's
/// `bind` and `accept` are `network-bind` and `network-inbound`, each matched by the
/// socket's path.
const SOCKET_OPS: &str = "network-bind network-inbound network-outbound";

/// The fs allows: everything, or the reads (with the floor and the system's) and the
/// writes, each prefix with an exclusion inside carved; the metadata of their ancestors.
/// The exclusions and write exclusions, normalised, for the later sections.
fn fs_allows<'a>(
    o: &mut Out,
    projection: &'a SandboxProjection,
) -> (Vec<Cow<'a, str>>, Vec<Cow<'a, str>>) {
    o.section("fs allows");
    let Some(fs) = &projection.fs else {
        o.text
            .push_str("(allow file-read*)\n(allow file-write*)\n(allow file-map-executable)\n");
        return (Vec::new(), Vec::new());
    };
    let mut metadata: BTreeSet<&str> = BTreeSet::new();
    let mut last_parent: Option<&str> = None;
    let denies = norm(&fs.deny);
    let write_denies = norm(&fs.write_deny);
    let mut read = norm(fs.read.iter().chain(&fs.floor));
    read.extend(SYSTEM_READ.iter().map(|s| canonical_cow(s)));
    read.sort();
    read.dedup();
    let write = norm(&fs.write);
    // What may be read may also be mapped executable: dylibs outside the shared cache
    // (Homebrew's, Python extension modules, proc-macros, Node addons). A unix socket is
    // reached where the grant reads with the network, where it writes offline (`net`);
    // the carve-outs and the fs denies keep an exclusion's sockets out either way.
    let read_ops = if projection.net_offline {
        "file-read* file-map-executable"
    } else {
        "file-read* file-map-executable network-outbound"
    };
    let write_ops = "file-write* network-bind network-inbound network-outbound";
    for (ops, list) in [(read_ops, &read), (write_ops, &write)] {
        // Prefixes with nothing excluded beneath them share one rule; each one
        // with an exclusion inside is its own order-independent carve-out.
        let mut plain: Vec<&str> = Vec::new();
        let mut carve: Vec<&str> = denies.iter().map(|d| &**d).collect();
        if ops == write_ops {
            carve.extend(write_denies.iter().map(|d| &**d));
            carve.sort();
            carve.dedup();
        }
        for p in list.iter() {
            let inside = strictly_within(&carve, p);
            if inside.is_empty() {
                plain.push(p);
            } else {
                o.carved(ops, p, inside);
            }
            // sorted paths: a run of siblings shares every ancestor, added once
            let parent = parents(p).next();
            if parent != last_parent {
                metadata.extend(parents(p));
                last_parent = parent;
            }
        }
        o.rule("allow", ops, "subpath", &plain);
    }
    if !metadata.is_empty() {
        let m: Vec<&str> = metadata.into_iter().collect();
        o.rule("allow", "file-read-metadata", "literal", &m);
    }
    o.text.push_str("(allow file-read* file-write*");
    for r in DEVELOPER_CACHES {
        let _ = write!(o.text, "\n  (regex #\"{r}\")");
    }
    o.text.push_str(")\n");
    (denies, write_denies)
}

/// The exec rules, in rank order: directories, then files (the program and ralc among
/// them), then name vetoes; then the metadata of their ancestors.
fn exec_rules(o: &mut Out, projection: &SandboxProjection, program: &str, self_path: &str) {
    o.section("exec rules");
    let mut exec_ancestors: BTreeSet<String> = BTreeSet::new();
    let mut last_parent: Option<String> = None;
    let mut add_ancestors = |p: &str| {
        // a run of siblings shares every ancestor, added once
        let parent = parents(p).next();
        if parent == last_parent.as_deref() {
            return;
        }
        last_parent = parent.map(str::to_owned);
        for a in parents(p) {
            if !exec_ancestors.contains(a) {
                exec_ancestors.insert(a.to_owned());
            }
        }
    };
    match &projection.exec {
        ExecProjection::Unrestricted => o.text.push_str("(allow process-exec)\n"),
        ExecProjection::Restricted(k) => {
            let dirs = norm(&k.allow_dirs);
            o.rule(
                "allow",
                "file-read* file-map-executable process-exec",
                "subpath",
                &dirs,
            );
            let launch: Vec<String> = [program, self_path]
                .iter()
                .filter(|p| !p.is_empty())
                .map(|p| p.to_string())
                .collect();
            let files = norm(
                k.allow_files
                    .iter()
                    .chain(&k.carriers)
                    .chain(&k.link_targets)
                    .chain(&launch),
            );
            o.rule(
                "allow",
                "file-read* file-map-executable process-exec",
                "literal",
                &files,
            );
            o.rule("deny", "process-exec", "subpath", &norm(&k.deny_dirs));
            o.rule("deny", "process-exec", "literal", &norm(&k.deny_files));
            for n in &k.deny_names {
                match name_regex(n) {
                    Ok(r) => {
                        let ops = o.ops_of("deny", "process-exec").into_owned();
                        let _ = writeln!(o.text, "(deny {ops} (regex {r}))");
                    }
                    Err(e) => o.refused.push(e),
                }
            }
            for p in dirs.iter().chain(&files) {
                add_ancestors(p);
            }
        }
    }
    o.section("exec ancestors");
    let anc: Vec<String> = exec_ancestors.into_iter().collect();
    o.rule("allow", "file-read-metadata", "literal", &anc);
}

/// The fs denies: each exclusion whole (its unix sockets too), each write exclusion's
/// writes.
fn fs_denies(o: &mut Out, denies: &[Cow<'_, str>], write_denies: &[Cow<'_, str>]) {
    o.section("fs denies");
    let ops = format!("file-read* file-write* file-map-executable {SOCKET_OPS}");
    o.rule("deny", &ops, "literal", denies);
    o.rule("deny", &ops, "subpath", denies);
    o.rule("deny", "file-write*", "literal", write_denies);
}

/// The pins: renaming a parent cannot carry denied bytes out; ralc's own file is
/// protected.
fn pins(
    o: &mut Out,
    projection: &SandboxProjection,
    denies: &[Cow<'_, str>],
    write_denies: &[Cow<'_, str>],
    self_path: &str,
) {
    o.section("pins");
    let mut pins: BTreeSet<&str> = BTreeSet::new();
    let write: BTreeSet<Cow<'_, str>> = match &projection.fs {
        Some(fs) => norm(&fs.write).into_iter().collect(),
        None => BTreeSet::new(),
    };
    if projection.fs.is_some() {
        for x in denies.iter().chain(write_denies) {
            // Outermost first: once an ancestor lies within a write prefix, so do the rest.
            let mut inside = false;
            for a in ancestors(x) {
                inside = inside || write.contains(a) || write.contains("/");
                if inside {
                    pins.insert(a);
                }
            }
        }
    }
    pins.extend(ancestors(self_path));
    let pins: Vec<&str> = pins.into_iter().collect();
    o.rule("deny", "file-write*", "literal", &[self_path.to_string()]);
    o.rule("deny", "file-write-unlink", "literal", &pins);
}

/// The network's allows, one meaning of `` `offline `` on every kernel
/// (docs/backends.md): offline, the loopback (and, from `fs_allows`, unix sockets inside
/// the write region); online, every IP address, the name services and their socket (and
/// unix sockets wherever the grant reads). An exclusion's sockets stay unreachable: they
/// are carved out of the fs allows and denied by the fs denies, which follow.
fn net(o: &mut Out, projection: &SandboxProjection) {
    o.section("net");
    let restricted = projection.fs.is_some();
    if projection.net_offline {
        o.text.push_str(
            ";; offline: the loopback; no other address, no name resolution\n\
             (allow network-outbound (remote ip \"localhost:*\"))\n\
             (allow network-bind network-inbound (local ip \"localhost:*\"))\n",
        );
        if !restricted {
            // Unrestricted fs: the write region is everywhere.
            let _ = writeln!(o.text, "(allow {SOCKET_OPS} (subpath \"/\"))");
        }
        return;
    }
    if restricted {
        o.text.push_str(
            "(allow network-outbound (remote ip \"*:*\"))\n\
             (allow network-bind network-inbound (local ip \"*:*\"))\n",
        );
        o.rule("allow", "network-outbound", "literal", NET_SOCKETS);
    } else {
        o.text.push_str("(allow network*)\n");
    }
    o.text.push_str("(allow mach-lookup");
    for s in NET_SERVICES {
        let _ = write!(o.text, "\n  (global-name \"{s}\")");
    }
    o.text.push_str(")\n");
}

impl Out {
    /// The profile's text (empty when only measured), its size, and its refusals (a
    /// relative ralc path, a text over the size limit); a refused profile has no text
    /// and size 0.
    fn finish(mut self, self_path: &str) -> (String, usize, Vec<String>) {
        if !self_path.starts_with('/') {
            self.refused
                .push(format!("ralc's own path {self_path:?} is not absolute"));
        }
        if self.text.len > SIZE_LIMIT {
            self.refused.push(format!(
                "the profile is {} bytes, over the {SIZE_LIMIT}-byte limit sandbox-exec reports",
                self.text.len
            ));
        }
        self.refused.sort();
        self.refused.dedup();
        if self.refused.is_empty() {
            (self.text.buf, self.text.len, self.refused)
        } else {
            (String::new(), 0, self.refused)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn firmlinks_are_spelled_both_ways_and_canonical_is_the_short_one() {
        assert_eq!(spellings("/tmp/x"), vec!["/tmp/x", "/private/tmp/x"]);
        assert_eq!(
            spellings("/private/var/db"),
            vec!["/private/var/db", "/var/db"]
        );
        assert_eq!(spellings("/etc"), vec!["/etc", "/private/etc"]);
        assert_eq!(spellings("/tmpfoo"), vec!["/tmpfoo"]);
        assert_eq!(spellings("/Users/u"), vec!["/Users/u"]);
        assert_eq!(canonical("/private/tmp/a"), "/tmp/a");
        assert_eq!(canonical("/private"), "/private");
        assert_eq!(canonical("/tmp"), "/tmp");
    }

    #[test]
    fn strings_are_escaped_and_control_characters_refused() {
        assert_eq!(quote("/a b").unwrap(), "\"/a b\"");
        assert_eq!(quote("/a\"b\\c").unwrap(), "\"/a\\\"b\\\\c\"");
        assert_eq!(quote("/é").unwrap(), "\"/é\"");
        assert!(quote("/a\nb").is_err());
        assert!(quote("/a\0b").is_err());
    }

    #[test]
    fn vetoed_names_match_the_last_component_in_either_case() {
        assert_eq!(name_regex("sh").unwrap(), "#\"/[sS][hH]$\"");
        assert_eq!(name_regex("c++").unwrap(), "#\"/[cC]\\+\\+$\"");
        assert_eq!(name_regex("a.b").unwrap(), "#\"/[aA]\\.[bB]$\"");
        assert_eq!(name_regex("a\"b").unwrap(), "#\"/[aA]\\\"[bB]$\"");
        assert!(name_regex("").is_err());
        assert!(name_regex("a/b").is_err());
    }

    #[test]
    fn the_base_opens_none_of_the_doors_it_says_it_withholds() {
        for d in WITHHELD_DOORS {
            assert!(!BASE.contains(d.service), "{}", d.service);
            assert!(!d.reason.is_empty());
        }
        for s in NET_SERVICES {
            assert!(
                !BASE.contains(s),
                "{s} is the net section's, not the base's"
            );
        }
    }

    #[test]
    fn ancestors_are_proper_and_outermost_first() {
        assert_eq!(ancestors("/a/b/c"), vec!["/a", "/a/b"]);
        assert_eq!(parents("/a/b/c").collect::<Vec<_>>(), vec!["/a/b", "/a"]);
        assert!(ancestors("/a").is_empty());
        assert!(ancestors("/").is_empty());
    }

    /// `measure` gives what `render` would: the rendered length and the same refusals.
    #[test]
    fn the_measured_size_is_the_rendered_length() {
        use crate::capability::projection::{FsProjection, KernelExecRules};
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let many = |n: usize, at: &str| {
            (0..n)
                .map(|i| format!("{at}/d{}/f{}", i / 100, i % 100))
                .collect::<Vec<_>>()
        };
        let fs = |read: Vec<String>, deny: Vec<String>| FsProjection {
            read,
            write: v(&[
                "/tmp/w",
                "/private/var/folders/x",
                "/Users/u/\"q\"",
                "/Users/u/b\\s",
            ]),
            floor: v(&["/dev/null", "/private/etc/hosts", "/etc/hosts"]),
            deny,
            write_deny: v(&["/tmp/w/lock", "/Users/u/\"q\"/.git"]),
            links: vec![],
        };
        let exec = |files: Vec<String>, names: &[&str]| {
            ExecProjection::Restricted(KernelExecRules {
                allow_dirs: v(&[
                    "/usr/bin",
                    "/opt/homebrew/bin",
                    "/tmp/tools",
                    "/private/tmp/tools",
                ]),
                allow_files: files,
                deny_dirs: v(&["/usr/bin/sub"]),
                deny_files: v(&["/usr/bin/sudo", "/private/etc/x"]),
                deny_names: v(names),
                carriers: v(&["/bin/sh"]),
                link_targets: v(&["/usr/lib/x"]),
            })
        };
        let cases = [
            SandboxProjection::default(),
            SandboxProjection {
                fs: Some(fs(
                    v(&[
                        "/Users/u/proj",
                        "/tmp/x",
                        "/private/tmp/x",
                        "/var",
                        "/a b/\"c\"",
                    ]),
                    v(&["/Users/u/proj/.env", "/tmp/x/secret", "/var/db"]),
                )),
                exec: exec(v(&["/usr/local/bin/git", "/private/etc/y"]), &["sh", "c++"]),
                net_offline: true,
            },
            // unsorted, repeated and long-spelled paths
            SandboxProjection {
                fs: Some(fs(
                    v(&["/z", "/a", "/z", "/private/etc/a", "/etc/a", "/etc"]),
                    Vec::new(),
                )),
                exec: exec(v(&["/b", "/a", "/b"]), &[]),
                net_offline: false,
            },
            // refused: a control character, a name that is no regex
            SandboxProjection {
                fs: Some(fs(
                    v(&["/ok", "/bad\nline", "/tmp/tab\there"]),
                    v(&["/ok/\u{7}"]),
                )),
                exec: exec(v(&["/x\u{1}"]), &["a/b"]),
                net_offline: false,
            },
            // near the warning, and over the limit
            SandboxProjection {
                fs: Some(fs(many(1200, "/Users/u/data"), Vec::new())),
                exec: exec(many(100, "/opt/t"), &[]),
                net_offline: false,
            },
            SandboxProjection {
                fs: Some(fs(many(5000, "/tmp/c"), v(&["/tmp/c/d1/f1"]))),
                exec: exec(many(5000, "/opt/tools"), &["git"]),
                net_offline: false,
            },
        ];
        let mut sizes = Vec::new();
        for (i, p) in cases.iter().enumerate() {
            for (program, self_path) in [
                ("", "/usr/local/bin/ralc"),
                ("/tmp/prog", "/private/tmp/ralc"),
                ("", "relative/ralc"),
            ] {
                let r = render(p, program, self_path);
                let m = measure(p, program, self_path);
                assert_eq!(m.size, r.size(), "case {i} {program:?} {self_path:?}");
                assert_eq!(m.refused, r.refused, "case {i} {program:?} {self_path:?}");
                sizes.push(m.size);
            }
        }
        // the cases reach every outcome: quiet, near, over (size 0: refused) and refused
        assert!(
            sizes.iter().any(|s| (1..SIZE_WARNING).contains(s)),
            "{sizes:?}"
        );
        assert!(
            sizes
                .iter()
                .any(|s| (SIZE_WARNING..=SIZE_LIMIT).contains(s)),
            "{sizes:?}"
        );
        let over = measure(&cases[5], "", "/usr/local/bin/ralc");
        assert!(
            over.refused.iter().any(|r| r.contains("bytes, over")),
            "{over:?}"
        );
        assert!(!measure(&cases[3], "", "/x/ralc").refused.is_empty());
    }

    #[test]
    fn the_base_comes_first_and_a_refused_render_has_no_text() {
        let p = render(&SandboxProjection::default(), "", "/x/ralc");
        assert!(p.refused.is_empty());
        let base_at = p.text.find("(version 1)").unwrap();
        assert!(p.text[..base_at].lines().all(|l| l.starts_with(";;")));
        assert!(p.size() < SIZE_WARNING);
        let p = render(&SandboxProjection::default(), "", "relative/ralc");
        assert!(p.text.is_empty() && !p.refused.is_empty());
    }
}
