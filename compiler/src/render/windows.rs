//! The Windows back end: a pure function from a `SandboxProjection` (and the admitted
//! program's path) to a `WindowsPlan`, over an injected directory lister for the carve.
//! Each (canonical path, kind) grant becomes a stamp carrying its capability and SIDs;
//! write prefixes are `rw`, the rest of the read region `ro`, the program image `ro`;
//! each exclusion is carved out of the allowances around it (`windows_carve`); `offline`
//! withholds the network capabilities.
//!
//! Refused before anything is stamped, each in its own words: an exclusion on or around
//! an allowance (the program image included), a drive or volume root (the universal
//! prefix), a network (UNC) path, a device path or reserved device name, a directory on
//! the way that cannot be listed, and `offline` over an unrestricted file system. It must
//! never read the disk itself, and never grant what an exclusion covers.

use super::windows_carve::carve;
use crate::capability::projection::{ExecProjection, FsProjection, SandboxProjection};
use crate::capability::stack::DISCARD;
use crate::path::windows::{
    canonical, collision_key_of, within_collision, within_stored, WindowsPathRefusal,
};
use ralc_runtime::plan::windows::{
    Carve, GrantKind, Lister, Network, Stamp, WindowsPlan, NETWORK_CAPABILITY_SIDS,
};

/// Render the plan. `program`: the admitted program's real path, when the plan launches
/// one.
///
/// In sections: the network and the exec note (`network_and_exec`), an unrestricted
/// file system (`unrestricted`), the canonical paths (`Canonical::of`), what cannot be
/// carved (`refuse_uncarvable`) and the exclusion lists, then the stamps (`stamp`,
/// `settle_stamps`). Each refusing section stops the plan there.
pub fn render(
    projection: &SandboxProjection,
    program: Option<&str>,
    lister: &dyn Lister,
) -> WindowsPlan {
    let mut plan = WindowsPlan::empty();
    network_and_exec(projection, &mut plan);
    let Some(fs) = &projection.fs else {
        unrestricted(projection, &mut plan);
        return plan;
    };
    plan.confined = true;
    let c = Canonical::of(fs, program, &mut plan);
    let mut allowances = c.allowances();
    refuse_uncarvable(&c, &allowances, &mut plan);
    plan.exclusions = c.deny.clone();
    plan.exclusions.sort();
    plan.exclusions.dedup();
    // a write exclusion inside a full one is already withheld whole
    plan.write_exclusions = c
        .write_deny
        .iter()
        .filter(|x| !c.deny.iter().any(|d| within_collision(x, d)))
        .cloned()
        .collect();
    plan.write_exclusions.sort();
    plan.write_exclusions.dedup();
    if !plan.refused.is_empty() {
        return plan;
    }
    if let Some(img) = &c.image {
        allowances.push((img.clone(), GrantKind::Ro));
        plan.program = img.clone();
    }
    let stamps = stamp(&c, &allowances, lister, &mut plan);
    if !plan.refused.is_empty() {
        return plan;
    }
    plan.stamps = settle_stamps(stamps);
    plan.fidelity.sort();
    plan.fidelity.dedup();
    plan
}

/// The network capabilities, or none offline; the note that exec rules stay the guard's.
fn network_and_exec(projection: &SandboxProjection, plan: &mut WindowsPlan) {
    if projection.net_offline {
        plan.network = Network::Withheld;
    } else {
        plan.network_sids = NETWORK_CAPABILITY_SIDS
            .iter()
            .map(|s| s.to_string())
            .collect();
    }
    if let ExecProjection::Restricted(_) = projection.exec {
        plan.fidelity.push(
            "exec rules are kept by the in-process guard: under an AppContainer the child \
             may run any file it may read"
                .to_string(),
        );
    }
}

/// An unrestricted file system: nothing is stamped; `offline` cannot be expressed.
fn unrestricted(projection: &SandboxProjection, plan: &mut WindowsPlan) {
    if projection.net_offline {
        plan.refused.push(
            "`offline over an unrestricted file system cannot be expressed: an \
             AppContainer withholds every path no ACE grants, so restrict fs or drop \
             `offline"
                .to_string(),
        );
    } else {
        plan.fidelity.push(
            "the file system is unrestricted: nothing is stamped and the launch runs \
             outside an AppContainer, in the Job Object"
                .to_string(),
        );
    }
}

/// The projection's paths in canonical form, each list sorted; reads beneath a write
/// prefix dropped.
struct Canonical {
    write: Vec<String>,
    read: Vec<String>,
    deny: Vec<String>,
    write_deny: Vec<String>,
    image: Option<String>,
}

impl Canonical {
    /// Canonical forms; a path that is not a Windows path (the POSIX discard device) is
    /// not this kernel's, and a refused one is named.
    fn of(fs: &FsProjection, program: Option<&str>, plan: &mut WindowsPlan) -> Canonical {
        let write = canon(&fs.write, "write", plan);
        let read_all = canon(&fs.read, "read", plan);
        let deny = canon(&fs.deny, "exclusion", plan);
        let write_deny = canon(&fs.write_deny, "write exclusion", plan);
        let image = match program {
            Some(p) => match canonical(p) {
                Ok(c) => Some(c),
                Err(r) => {
                    plan.refused
                        .push(format!("the program image: {}", r.message(p)));
                    None
                }
            },
            None => None,
        };
        let read: Vec<String> = read_all
            .into_iter()
            .filter(|r| !write.iter().any(|w| within_stored(w, r)))
            .collect();
        Canonical {
            write,
            read,
            deny,
            write_deny,
            image,
        }
    }

    /// The allowances: each write prefix `rw`, each read `ro`.
    fn allowances(&self) -> Vec<(String, GrantKind)> {
        self.write
            .iter()
            .map(|w| (w.clone(), GrantKind::Rw))
            .chain(self.read.iter().map(|r| (r.clone(), GrantKind::Ro)))
            .collect()
    }
}

fn canon(paths: &[String], role: &str, plan: &mut WindowsPlan) -> Vec<String> {
    let mut out = Vec::new();
    for p in paths {
        if p == DISCARD {
            continue;
        }
        match canonical(p) {
            Ok(c) => out.push(c),
            Err(WindowsPathRefusal::NotAbsolute) => plan
                .fidelity
                .push(format!("{role} `{p}` is not a Windows path: dropped")),
            Err(r) => plan.refused.push(format!("{role}: {}", r.message(p))),
        }
    }
    out.sort();
    out.dedup();
    out
}

/// An exclusion on or around an allowance (or the program image), or a write exclusion
/// on or around an `rw` allowance, cannot be carved: refused.
fn refuse_uncarvable(c: &Canonical, allowances: &[(String, GrantKind)], plan: &mut WindowsPlan) {
    for x in &c.deny {
        for (a, kind) in allowances {
            if within_collision(x, a) {
                plan.refused.push(format!(
                    "the exclusion `{x}` lies on or around the {} allowance `{a}`: a deny \
                     stamps nothing on Windows and an allowance inside it cannot be carved",
                    kind.as_str()
                ));
            }
        }
        if let Some(img) = &c.image {
            if within_collision(x, img) {
                plan.refused.push(format!(
                    "the program image `{img}` lies under the exclusion `{x}`: it must be \
                     granted read-only to run, and a deny stamps nothing on Windows"
                ));
            }
        }
    }
    for x in &c.write_deny {
        for (a, kind) in allowances {
            if *kind == GrantKind::Rw && within_collision(x, a) {
                plan.refused.push(format!(
                    "the write exclusion `{x}` lies on or around the rw allowance `{a}`, \
                     which cannot be carved"
                ));
            }
        }
    }
}

/// Stamp each allowance, carving what it holds; a write exclusion stays readable where a
/// read region reaches it.
fn stamp(
    c: &Canonical,
    allowances: &[(String, GrantKind)],
    lister: &dyn Lister,
    plan: &mut WindowsPlan,
) -> Vec<(String, GrantKind)> {
    let mut stamps: Vec<(String, GrantKind)> = Vec::new();
    for (a, kind) in allowances {
        let mut inside: Vec<String> = c
            .deny
            .iter()
            .filter(|x| within_collision(a, x))
            .cloned()
            .collect();
        if *kind == GrantKind::Rw {
            inside.extend(
                c.write_deny
                    .iter()
                    .filter(|x| within_collision(a, x))
                    .cloned(),
            );
        }
        if inside.is_empty() {
            stamps.push((a.clone(), *kind));
            continue;
        }
        match carve(a, *kind, &inside, lister) {
            Ok(cv) => {
                if !cv.listed {
                    plan.fidelity.push(format!(
                        "`{a}` holds exclusions and was not listed here: only the directories \
                         on the way are granted (their listing); the launch carves it over the \
                         disk"
                    ));
                }
                for l in &cv.links {
                    plan.fidelity
                        .push(format!("`{l}` is a link beside an exclusion: not granted"));
                }
                stamps.extend(cv.stamps);
                plan.carves.push(Carve {
                    allowance: a.clone(),
                    kind: *kind,
                    exclusions: inside,
                    listed: cv.listed,
                });
            }
            Err(e) => plan.refused.push(e),
        }
    }
    for x in &c.write_deny {
        let readable = allowances.iter().any(|(a, _)| within_stored(a, x))
            && !c.deny.iter().any(|d| within_collision(d, x));
        if readable {
            stamps.push((x.clone(), GrantKind::Ro));
        }
    }
    stamps
}

/// The stamps sorted, once each; a listing beside a broader grant on the same object
/// adds nothing.
fn settle_stamps(mut stamps: Vec<(String, GrantKind)>) -> Vec<Stamp> {
    stamps.sort();
    stamps.dedup();
    let broader: Vec<String> = stamps
        .iter()
        .filter(|(_, k)| *k != GrantKind::Ls)
        .map(|(p, _)| p.clone())
        .collect();
    stamps.retain(|(p, k)| *k != GrantKind::Ls || !broader.contains(p));
    stamps
        .into_iter()
        .map(|(p, k)| {
            let lock = collision_key_of(&p);
            Stamp::new(&p, k, lock)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ralc_runtime::plan::windows::{EntryKind, ListError};

    struct Blind;
    impl Lister for Blind {
        fn list(&self, _dir: &str) -> Result<Vec<(String, EntryKind)>, ListError> {
            Err(ListError::Unavailable)
        }
    }

    fn fs(read: &[&str], write: &[&str], deny: &[&str]) -> SandboxProjection {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut read = v(read);
        read.extend(v(write));
        read.push(DISCARD.to_string());
        let mut write = v(write);
        write.push(DISCARD.to_string());
        SandboxProjection {
            fs: Some(FsProjection {
                read,
                write,
                floor: vec![],
                deny: v(deny),
                write_deny: vec![],
                links: vec![],
            }),
            exec: ExecProjection::Unrestricted,
            net_offline: true,
        }
    }

    #[test]
    fn regions_become_stamps() {
        let p = render(
            &fs(
                &["C:\\tools"],
                &["C:\\Users\\me\\proj", "c:/Users/me/proj/sub"],
                &[],
            ),
            Some("C:\\tools\\bin\\cargo.exe"),
            &Blind,
        );
        assert!(p.refused.is_empty(), "{:?}", p.refused);
        let got: Vec<(String, GrantKind, bool)> = p
            .stamps
            .iter()
            .map(|s| (s.path.clone(), s.kind, s.inherit))
            .collect();
        assert_eq!(
            got,
            [
                ("C:\\Users\\me\\proj".to_string(), GrantKind::Rw, true),
                ("C:\\Users\\me\\proj\\sub".to_string(), GrantKind::Rw, true),
                ("C:\\tools".to_string(), GrantKind::Ro, true),
                ("C:\\tools\\bin\\cargo.exe".to_string(), GrantKind::Ro, true),
            ]
        );
        assert_eq!(p.network, Network::Withheld);
        assert!(p.network_sids.is_empty());
        assert_eq!(p.program, "C:\\tools\\bin\\cargo.exe");
        assert!(p
            .stamps
            .iter()
            .all(|s| s.low_label == (s.kind == GrantKind::Rw)));
        assert_eq!(p.stamps[0].lock, "c:\\users\\me\\proj");
    }

    #[test]
    fn each_refusal_has_its_words() {
        let cases: &[(SandboxProjection, Option<&str>, &str)] = &[
            (fs(&["C:\\"], &[], &[]), None, "universal prefix"),
            (fs(&[], &["D:/"], &[]), None, "universal prefix"),
            (
                fs(
                    &["\\\\?\\Volume{0b5d1c9e-1111-2222-3333-444455556666}\\"],
                    &[],
                    &[],
                ),
                None,
                "universal prefix",
            ),
            (fs(&["\\\\srv\\share\\x"], &[], &[]), None, "network (UNC)"),
            (fs(&[], &["C:\\p"], &["C:\\p"]), None, "on or around"),
            (fs(&[], &["C:\\p\\q"], &["c:\\P"]), None, "on or around"),
            (
                fs(&[], &["C:\\p"], &["C:\\tools"]),
                Some("C:\\tools\\x.exe"),
                "program image",
            ),
            (fs(&["C:\\x\\con.txt"], &[], &[]), None, "reserved device"),
        ];
        for (proj, prog, words) in cases {
            let p = render(proj, *prog, &Blind);
            assert!(
                p.refused.iter().any(|r| r.contains(words)),
                "{words}: {:?}",
                p.refused
            );
            assert!(p.stamps.is_empty(), "nothing is stamped when refused");
        }
    }

    #[test]
    fn an_unrestricted_stack_renders_an_empty_plan() {
        let p = render(&SandboxProjection::default(), None, &Blind);
        assert!(p.stamps.is_empty() && p.refused.is_empty() && !p.confined);
        assert_eq!(p.network, Network::Granted);
        assert_eq!(p.network_sids.len(), 3);
        let offline = SandboxProjection {
            net_offline: true,
            ..SandboxProjection::default()
        };
        assert!(!render(&offline, None, &Blind).refused.is_empty());
    }

    #[test]
    fn an_exclusion_inside_is_carved_and_listed() {
        let p = render(&fs(&[], &["C:\\p"], &["C:\\p\\conf\\secret"]), None, &Blind);
        assert!(p.refused.is_empty(), "{:?}", p.refused);
        let got: Vec<String> = p
            .stamps
            .iter()
            .map(|s| format!("{} {}", s.kind.as_str(), s.path))
            .collect();
        assert_eq!(got, ["ls C:\\p", "ls C:\\p\\conf"]);
        assert_eq!(p.exclusions, ["C:\\p\\conf\\secret"]);
        assert_eq!(p.carves.len(), 1);
        assert!(!p.carves[0].listed);
    }
}
