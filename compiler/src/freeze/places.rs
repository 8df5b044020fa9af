//! Reading a written entry's head (a place, a selector, or a path) and expanding places
//! (spec §3.1): `~`, `~/sub`, `cwd:[sub]`, `tempdir:[sub]`, `gitdir:[sub]`,
//! `xdg:KIND[/sub]` — each to a folded absolute surface under the host's rules. The
//! sub-path never discards its base and never re-roots it. It consults the disk only
//! through the `FreezeCtx` (gitdir discovery, the xdg containment check on real forms).

use super::codes;
use super::ctx::FreezeCtx;
use super::gitdir::{discover, BadPointer};
use super::toolchains::Selector;
use super::Failure;
use crate::path::basedir::{resolve_xdg_in, XdgKind, XdgSource};
use crate::path::identity::{path_within_under, Identity};
use crate::path::lex::{absolute_under, fold_dots_under, join_under, PathRules};

/// A place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place<'a> {
    Home,
    Cwd,
    Tempdir,
    Gitdir,
    /// The kind as written (checked at expansion).
    Xdg(&'a str),
}

/// How an entry's text opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head<'a> {
    Place {
        place: Place<'a>,
        sub: &'a str,
    },
    Selector(Selector),
    /// `path:/`, `cargo:bin`: a selector takes no sub-path.
    SelectorWithSub(Selector, &'a str),
    /// `foo:` — selector-shaped, but no selector is named so.
    UnknownSelector(&'a str),
    /// `~user`, `~x`: only `~` and `~/sub` are places.
    BadTilde,
    /// Anything else: an absolute path (of some family), a relative path, or a name.
    Path,
}

/// A selector-shaped prefix: a lowercase word of two or more letters before `:`.
fn selector_shape(text: &str) -> Option<(&str, &str)> {
    let (name, rest) = text.split_once(':')?;
    let ok = name.len() >= 2
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    ok.then_some((name, rest))
}

pub fn read_head(text: &str) -> Head<'_> {
    if text == "~" {
        return Head::Place {
            place: Place::Home,
            sub: "",
        };
    }
    if let Some(sub) = text.strip_prefix("~/") {
        return Head::Place {
            place: Place::Home,
            sub,
        };
    }
    if text.starts_with('~') {
        return Head::BadTilde;
    }
    for (prefix, place) in [
        ("cwd:", Place::Cwd),
        ("tempdir:", Place::Tempdir),
        ("gitdir:", Place::Gitdir),
    ] {
        if let Some(sub) = text.strip_prefix(prefix) {
            return Head::Place { place, sub };
        }
    }
    if let Some(rest) = text.strip_prefix("xdg:") {
        let end = rest.find(['/', '\\']).unwrap_or(rest.len());
        return Head::Place {
            place: Place::Xdg(&rest[..end]),
            sub: &rest[end..],
        };
    }
    if let Some((name, rest)) = selector_shape(text) {
        return match Selector::parse(name) {
            Some(s) if rest.is_empty() => Head::Selector(s),
            Some(s) => Head::SelectorWithSub(s, rest),
            None if rest.is_empty() => Head::UnknownSelector(name),
            None => Head::Path,
        };
    }
    Head::Path
}

fn home_of(ctx: &FreezeCtx, what: &str) -> Result<String, Failure> {
    let rules = ctx.rules();
    match ctx.home() {
        Some(h) if absolute_under(h, rules) => Ok(fold_dots_under(h, rules)),
        Some(h) => Err(Failure::new(
            codes::E0302,
            format!("{what} needs a home, and `HOME` (`{h}`) is not an absolute path"),
        )
        .help("set HOME to an absolute directory, or freeze with `--home DIR`")),
        None => Err(Failure::new(
            codes::E0302,
            format!("{what} needs a home, and `HOME` is unset or empty"),
        )
        .help("set HOME, or freeze with `--home DIR`")),
    }
}

fn join_sub(ctx: &FreezeCtx, base: &str, sub: &str, written: &str) -> Result<String, Failure> {
    join_under(base, sub, ctx.rules()).map_err(|_| {
        Failure::new(
            codes::E0307,
            format!("the sub-path `{sub}` of `{written}` names a volume of its own"),
        )
        .help("a sub-path is joined under its place; write a drive or share path on its own")
    })
}

/// Expand a place to a folded absolute surface.
pub fn expand_place(
    ctx: &FreezeCtx,
    place: Place<'_>,
    sub: &str,
    written: &str,
) -> Result<String, Failure> {
    let rules = ctx.rules();
    let base = match place {
        Place::Home => home_of(ctx, &format!("`{written}`"))?,
        Place::Cwd => {
            let cwd = ctx.cwd_surface();
            if !absolute_under(cwd, rules) {
                return Err(Failure::new(
                    codes::E0322,
                    format!("`{written}` needs the working directory, and `{cwd}` is not absolute"),
                )
                .help("freeze with `--cwd DIR` naming an absolute directory"));
            }
            cwd.to_string()
        }
        Place::Tempdir => match ctx.var("TMPDIR").filter(|t| absolute_under(t, rules)) {
            Some(t) => fold_dots_under(t, rules),
            None => {
                if rules == PathRules::Windows {
                    match ctx.var("TEMP").filter(|t| absolute_under(t, rules)) {
                        Some(t) => fold_dots_under(t, rules),
                        None => "C:\\Windows\\Temp".to_string(),
                    }
                } else {
                    "/tmp".to_string()
                }
            }
        },
        Place::Gitdir => discover(ctx).map_err(|e| match e {
            BadPointer::Unclaimed { pointer, target } => Failure::new(
                codes::E0313,
                format!(
                    "`{written}`: the `.git` pointer `{pointer}` leads to `{target}`, which does not name this working tree back"
                ),
            )
            .help("a `.git` file is followed only to a git directory whose `gitdir` file or `core.worktree` names this working tree"),
            BadPointer::NoGitdirLine { pointer } => Failure::new(
                codes::E0314,
                format!("`{written}`: the `.git` pointer file `{pointer}` has no `gitdir:` line"),
            )
            .help("repair or remove the `.git` file"),
            BadPointer::Unreadable { pointer, error } => Failure::new(
                codes::E0315,
                format!("`{written}`: the `.git` pointer file `{pointer}` cannot be read ({error})"),
            )
            .help("make the `.git` file readable, or freeze from another directory"),
            BadPointer::Symlinked { pointer } => Failure::new(
                codes::E0315,
                format!("`{written}`: `{pointer}` is a symbolic link; git never writes one, so it is not followed"),
            )
            .help("replace the link with the git directory itself, or freeze from another directory"),
        })?,
        Place::Xdg(kind_text) => {
            let Some(kind) = XdgKind::parse(kind_text) else {
                let known = XdgKind::ALL
                    .iter()
                    .map(|k| format!("`{}`", k.name()))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(Failure::new(
                    codes::E0304,
                    format!("`{written}`: unknown xdg kind `{kind_text}`; the kinds are {known}"),
                ));
            };
            let home = home_of(ctx, &format!("`{written}`"))?;
            let get = |k: &str| ctx.var(k).map(str::to_string);
            let Some((dir, from)) = resolve_xdg_in(kind, get, Some(&home), rules) else {
                return Err(Failure::new(
                    codes::E0306,
                    format!("`{written}`: `{}` is unset and `xdg:{}` has no default under home", kind.var(), kind.name()),
                )
                .help(format!("set {} to an absolute directory", kind.var())));
            };
            let dir = fold_dots_under(&dir, rules);
            // the sub-path is joined first: its `..` folds before the judgment, so
            // `xdg:config/../../etc` cannot climb out of home
            let joined = join_sub(ctx, &dir, sub, written)?;
            // judged on real forms: a symlink out of home is not contained
            let real_home = ctx.real_of(&home);
            let real_dir = ctx.real_of(&joined);
            let inside = match (&real_home, &real_dir) {
                (Ok(h), Ok(d)) => path_within_under(Identity::Stored, rules, h.as_str(), d.as_str()),
                _ => false,
            };
            if !inside {
                let lands = real_dir
                    .map(|r| r.as_str().to_string())
                    .unwrap_or_else(|_| joined.clone());
                let via = match from {
                    XdgSource::Override(v) => format!("{v}={dir}"),
                    XdgSource::HomeDefault => format!("the default `{dir}`"),
                };
                let climbs = if sub.is_empty() {
                    String::new()
                } else {
                    format!(" and the sub-path `{sub}`")
                };
                return Err(Failure::new(
                    codes::E0305,
                    format!("`{written}` lands at `{lands}` (through {via}{climbs}), outside home `{home}`"),
                )
                .help("an xdg: place must lie under home; grant the directory by its absolute path if that is meant"));
            }
            return Ok(joined);
        }
    };
    join_sub(ctx, &base, sub, written)
}
