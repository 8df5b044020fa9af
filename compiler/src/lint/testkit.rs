//! Test helpers: layers built by hand (as the freeze would produce them), with spans into a
//! registered source so locations are real. Test-only; never used by the pipeline.

use crate::capability::layer::{
    Capabilities, DeadGrant, ExecGrant, ExecKey, ExecRule, FsEntry, FsPolicy, LayerRole,
    LayerSource, NetOffline, Origin,
};
use crate::diag::{FileId, SourceMap, Span};
use crate::path::frozen::{FrozenPath, RealPath};
use crate::typecheck::profile::ExecPolicy;

/// Builds one layer whose entries each sit on their own line of a synthetic source.
pub struct LayerBuilder {
    pub name: String,
    pub text: String,
    lines: Vec<(String, String)>, // (kind, written) per line
    /// Exec directory keys: (surface, real, policy).
    exec: Option<Vec<(String, String, ExecPolicy)>>,
    fs: Option<FsSpec>,
    net_offline: bool,
    dead: Vec<String>,
    path: Option<(String, String)>,
    role: LayerRole,
}

#[derive(Default)]
struct FsSpec {
    read: Vec<(String, String)>,
    write: Vec<(String, String)>,
    deny: Vec<(String, String)>,
}

#[allow(
    dead_code,
    reason = "test kit: not every builder is used by every test"
)]
impl LayerBuilder {
    pub fn new(name: &str) -> Self {
        LayerBuilder {
            name: name.into(),
            text: String::new(),
            lines: Vec::new(),
            exec: None,
            fs: None,
            net_offline: false,
            dead: Vec::new(),
            path: None,
            role: LayerRole::Policy,
        }
    }
    /// An exec directory allowance (surface = real).
    pub fn exec_dir(self, p: &str, policy: ExecPolicy) -> Self {
        self.exec_dir_real(p, p, policy)
    }
    pub fn exec_dir_real(mut self, surface: &str, real: &str, policy: ExecPolicy) -> Self {
        // the freeze's real form of a directory has no trailing separator
        let real = if real.len() > 1 {
            real.trim_end_matches('/')
        } else {
            real
        };
        self.exec
            .get_or_insert_with(Vec::new)
            .push((surface.into(), real.into(), policy));
        self
    }
    /// `exec: []`: opining, admitting nothing.
    pub fn exec_empty(mut self) -> Self {
        self.exec.get_or_insert_with(Vec::new);
        self
    }
    pub fn read(self, p: &str) -> Self {
        self.read_real(p, p)
    }
    pub fn read_real(mut self, s: &str, r: &str) -> Self {
        self.fs
            .get_or_insert_with(FsSpec::default)
            .read
            .push((s.into(), r.into()));
        self
    }
    pub fn write(self, p: &str) -> Self {
        self.write_real(p, p)
    }
    pub fn write_real(mut self, s: &str, r: &str) -> Self {
        self.fs
            .get_or_insert_with(FsSpec::default)
            .write
            .push((s.into(), r.into()));
        self
    }
    pub fn deny(mut self, p: &str) -> Self {
        self.fs
            .get_or_insert_with(FsSpec::default)
            .deny
            .push((p.into(), p.into()));
        self
    }
    pub fn fs_empty(mut self) -> Self {
        self.fs.get_or_insert_with(FsSpec::default);
        self
    }
    pub fn offline(mut self) -> Self {
        self.net_offline = true;
        self
    }
    pub fn dead(mut self, written: &str) -> Self {
        self.dead.push(written.into());
        self
    }
    pub fn file_path(mut self, surface: &str, real: &str) -> Self {
        self.path = Some((surface.into(), real.into()));
        self
    }
    pub fn restrict(mut self) -> Self {
        self.role = LayerRole::Restrict;
        self
    }

    fn line(&mut self, file: FileId, kind: &str, written: &str) -> Origin {
        let start = self.text.len();
        let line_text = format!("  {kind} '{written}'\n");
        self.text.push_str(&line_text);
        self.lines.push((kind.into(), written.into()));
        let key_start = start + kind.len() + 3;
        Origin {
            file: self.name.as_str().into(),
            line: self.lines.len() as u32,
            column: kind.len() as u32 + 4,
            span: Span::new(file, key_start, key_start + written.len() + 2),
            written: written.into(),
        }
    }

    /// Register the layer's text in `sources` and build the layer.
    pub fn build(mut self, sources: &mut SourceMap) -> Capabilities {
        // Spans are computed against the text built here; the file is registered last
        // with that text, so its id is known up front.
        let file = FileId(sources.files().count() as u32);
        let fp = |s: &str, r: &str| FrozenPath::from_parts(s, RealPath::from_resolved(r));
        let exec_spec = self.exec.take();
        let fs_spec = self.fs.take();
        let dead_spec = std::mem::take(&mut self.dead);
        let exec = exec_spec.map(|rules| {
            let mut v = Vec::new();
            for (s, r, policy) in rules {
                let o = self.line(file, "exec", &s);
                let key = ExecKey::Dir(fp(&s, &r));
                v.push(ExecRule {
                    key,
                    policy,
                    origin: o,
                });
            }
            ExecGrant::from_rules(v)
        });
        let fs = fs_spec.map(|spec| {
            let mut p = FsPolicy::default();
            for (s, r) in spec.read {
                let origin = self.line(file, "read", &s);
                p.read.push(FsEntry {
                    path: fp(&s, &r),
                    origin,
                });
            }
            for (s, r) in spec.write {
                let origin = self.line(file, "write", &s);
                p.write.push(FsEntry {
                    path: fp(&s, &r),
                    origin,
                });
            }
            for (s, r) in spec.deny {
                let origin = self.line(file, "deny", &s);
                p.deny.push(FsEntry {
                    path: fp(&s, &r),
                    origin,
                });
            }
            p
        });
        let net = if self.net_offline {
            Some(NetOffline {
                origin: self.line(file, "net", "offline"),
            })
        } else {
            None
        };
        let dead = dead_spec
            .iter()
            .map(|w| DeadGrant {
                origin: self.line(file, "exec", w),
                reason: "a selector that expands to no existing directory".into(),
            })
            .collect();
        let id = sources.add(self.name.clone(), self.text.clone().into_bytes());
        debug_assert_eq!(id, file);
        let mut c = Capabilities::empty(LayerSource {
            name: self.name.as_str().into(),
            role: self.role,
            path: self.path.as_ref().map(|(s, r)| fp(s, r)),
        });
        c.exec = exec;
        c.fs = fs;
        c.net = net;
        c.dead = dead;
        c
    }
}

/// Run one lint over layers (no typed profiles, no places).
pub fn check(
    lint: &dyn crate::lint::Lint,
    layers: &[Capabilities],
    sources: &SourceMap,
) -> Vec<crate::lint::Finding> {
    check_with(lint, layers, sources, &crate::lint::Places::default())
}

/// Run one lint over layers with places.
pub fn check_with(
    lint: &dyn crate::lint::Lint,
    layers: &[Capabilities],
    sources: &SourceMap,
    places: &crate::lint::Places,
) -> Vec<crate::lint::Finding> {
    let input = crate::lint::LintInput {
        layers,
        typed: &[],
        sources,
        places,
        stack: None,
        index: None,
    };
    let mut out = Vec::new();
    lint.check(&input, &mut out);
    out
}

/// The places of a test home, `/home/u` with its `xdg:config` at `/home/u/.config`.
pub fn test_places() -> crate::lint::Places {
    crate::lint::Places {
        home: Some(RealPath::from_resolved("/home/u")),
        xdg_config: Some(RealPath::from_resolved("/home/u/.config")),
        cwd: Some(RealPath::from_resolved("/home/u/proj")),
        gitdir: Some(RealPath::from_resolved("/home/u/proj/.git")),
    }
}
