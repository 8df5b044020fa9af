//! The warrant: what the trampoline runs and the confinement it enters, compiled in the
//! parent and carried on a sealed memfd at a fixed descriptor slot (never argv). Also the
//! one descriptor slot table. The encoding is canonical (decode re-encodes and compares)
//! and size-capped. It never decodes anything lenient.

/// The hand-off descriptor slots, one table.
pub mod slot {
    /// bwrap's options (`--args`).
    pub const ARGS: i32 = 98;
    /// The warrant.
    pub const WARRANT: i32 = 99;
    /// The reach socket: the trampoline reports it started (a socketpair, which unlike a
    /// pipe cannot be reopened through /proc).
    pub const REACH: i32 = 100;
    /// The Landlock ruleset.
    pub const RULESET: i32 = 101;
    /// ralc's own pin, the trampoline bwrap execs.
    pub const PIN: i32 = 102;
    /// The seccomp programs.
    pub const SECCOMP: i32 = 103;
    pub const SECCOMP_MAX: usize = 4;
    /// One mount handle per bind, open-ended and last.
    pub const MOUNT: i32 = 107;
    /// The first hand-off slot (the trampoline closes everything from here up).
    pub const FIRST: i32 = ARGS;
}

/// The magic and version line.
pub const MAGIC: &str = "ralc-warrant/3";
/// The largest warrant accepted.
pub const MAX_BYTES: usize = 8 << 20;

/// The confinement the trampoline enters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confinement {
    /// bwrap and seccomp alone.
    Unconfined,
    /// A Landlock ruleset at `slot::RULESET` handling these rights.
    Landlock { handled: u64 },
}

/// A warrant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warrant {
    pub confinement: Confinement,
    /// `Some(inode)`: `` `offline `` — the trampoline refuses to run in this host network
    /// namespace.
    pub host_netns: Option<u64>,
    /// `Some(inode)`: the host's mount namespace; the trampoline refuses to run in it (a
    /// bwrap that built no envelope).
    pub host_mntns: Option<u64>,
    /// The program's real path.
    pub real: String,
    /// Its `argv[0]` spelling.
    pub argv0: String,
    /// `Some`: install the supervision filter and hand its listener back over the reach
    /// socket before the exec (`supervise`); the trampoline refuses if it cannot.
    pub supervise: Option<super::supervise::Watch>,
    pub args: Vec<String>,
}

impl Warrant {
    /// NUL-terminated fields behind the magic.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut field = |s: &str| {
            out.extend_from_slice(s.as_bytes());
            out.push(0);
        };
        field(MAGIC);
        field(&match self.confinement {
            Confinement::Unconfined => "unconfined".to_string(),
            Confinement::Landlock { handled } => format!("landlock:{handled}"),
        });
        for ns in [self.host_netns, self.host_mntns] {
            field(&match ns {
                None => "-".to_string(),
                Some(n) => n.to_string(),
            });
        }
        field(&self.real);
        field(&self.argv0);
        field(match self.supervise {
            None => "-",
            Some(super::supervise::Watch::Default) => "supervise",
            Some(super::supervise::Watch::Explain) => "explain",
        });
        for a in &self.args {
            field(a);
        }
        out
    }

    /// Decode, refusing anything that does not re-encode to the same bytes.
    pub fn decode(bytes: &[u8]) -> Result<Warrant, String> {
        if bytes.len() > MAX_BYTES {
            return Err(format!("the warrant exceeds {MAX_BYTES} bytes"));
        }
        let Some(body) = bytes.strip_suffix(&[0]) else {
            return Err("the warrant does not end its last field".to_string());
        };
        let mut fields = Vec::new();
        for f in body.split(|b| *b == 0) {
            fields.push(
                std::str::from_utf8(f).map_err(|_| "a warrant field is not UTF-8".to_string())?,
            );
        }
        if fields.len() < 7 || fields[0] != MAGIC {
            return Err("not a ralc warrant of this version".to_string());
        }
        let confinement = match fields[1] {
            "unconfined" => Confinement::Unconfined,
            other => {
                let n = other
                    .strip_prefix("landlock:")
                    .and_then(|n| n.parse::<u64>().ok())
                    .ok_or_else(|| format!("unknown confinement {other:?}"))?;
                Confinement::Landlock { handled: n }
            }
        };
        let ns = |f: &str| match f {
            "-" => Ok(None),
            n => n
                .parse::<u64>()
                .map(Some)
                .map_err(|_| "bad namespace field".to_string()),
        };
        let w = Warrant {
            confinement,
            host_netns: ns(fields[2])?,
            host_mntns: ns(fields[3])?,
            real: fields[4].to_string(),
            argv0: fields[5].to_string(),
            supervise: match fields[6] {
                "-" => None,
                "supervise" => Some(super::supervise::Watch::Default),
                "explain" => Some(super::supervise::Watch::Explain),
                other => return Err(format!("unknown supervision {other:?}")),
            },
            args: fields[7..].iter().map(|s| s.to_string()).collect(),
        };
        if w.real.is_empty() || !w.real.starts_with('/') {
            return Err("the warrant's program is not an absolute path".to_string());
        }
        if w.encode() != bytes {
            return Err("the warrant's encoding is not canonical".to_string());
        }
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Warrant {
        Warrant {
            confinement: Confinement::Landlock { handled: 8193 },
            host_netns: Some(4026531840),
            host_mntns: None,
            real: "/usr/bin/true".into(),
            argv0: "true".into(),
            supervise: Some(super::super::supervise::Watch::Default),
            args: vec!["a".into(), String::new(), "c d".into()],
        }
    }

    #[test]
    fn round_trip() {
        let w = sample();
        assert_eq!(Warrant::decode(&w.encode()), Ok(w));
    }

    #[test]
    fn non_canonical_is_refused() {
        let w = sample();
        let text = String::from_utf8(w.encode()).unwrap();
        let padded = text.replace("landlock:8193", "landlock:08193");
        assert!(Warrant::decode(padded.as_bytes()).is_err());
        let netns = text.replace("4026531840", "+4026531840");
        assert!(Warrant::decode(netns.as_bytes()).is_err());
        let mut trunc = w.encode();
        trunc.pop();
        assert!(Warrant::decode(&trunc).is_err());
        assert!(Warrant::decode(b"ralc-warrant/2\0unconfined\0-\0-\0/x\0x\0\0").is_err());
        assert!(Warrant::decode(&vec![b'a'; MAX_BYTES + 1]).is_err());
    }

    #[test]
    fn supervision_round_trips_and_an_unknown_one_is_refused() {
        use super::super::supervise::Watch;
        for sup in [None, Some(Watch::Default), Some(Watch::Explain)] {
            let w = Warrant {
                supervise: sup,
                ..sample()
            };
            assert_eq!(Warrant::decode(&w.encode()), Ok(w));
        }
        let text = String::from_utf8(sample().encode()).unwrap();
        let odd = text.replace("\0supervise\0", "\0watch\0");
        assert!(Warrant::decode(odd.as_bytes()).is_err());
    }

    proptest! {
        #[test]
        fn decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(w) = Warrant::decode(&bytes) {
                prop_assert_eq!(w.encode(), bytes);
            }
        }

        #[test]
        fn any_warrant_round_trips(args in proptest::collection::vec("[^\\x00]{0,8}", 0..5)) {
            let w = Warrant { args, ..sample() };
            prop_assert_eq!(Warrant::decode(&w.encode()), Ok(w));
        }
    }
}
