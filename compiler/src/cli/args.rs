//! The clap definitions of every subcommand and the options they share (layers, the
//! freeze anchor, output format). Parsing only: no file is read here.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "ralc",
    version,
    about = "Policy compiler and linter for .ral capability profiles"
)]
pub struct Cli {
    /// Print errors only: no warnings or notes, no progress line, no human `why` answer
    /// (its exit code says it). Machine formats (json, sarif, github) are unchanged.
    #[arg(short = 'q', long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse, typecheck, freeze and lint profiles; report every diagnostic.
    #[command(
        after_help = "Example:\n  ralc check std-profiles/minimal.ral\n  ralc check -p base.ral -p project.ral --format json"
    )]
    Check(CheckArgs),
    /// Print the frozen layers: every entry's written text, surface, real path and origin.
    #[command(after_help = "Example:\n  ralc show std-profiles/reasonable.ral --format json")]
    Show(ShowArgs),
    /// Answer one judgment (exec, read, write, flag) with its reason and deciding entry.
    #[command(
        after_help = "Example:\n  ralc why -p std:minimal exec git status\n  ralc why -p profile.ral read ~/.ssh/id_ed25519\n  ralc why -p profile.ral --batch questions.txt"
    )]
    Why(WhyArgs),
    /// Render the stack for a kernel: macos (.sbpl), linux (JSON plan), windows (JSON plan).
    #[command(
        after_help = "Example:\n  ralc render --target linux -p std:minimal\n  ralc render --target linux --argv -p std:minimal -- /bin/true"
    )]
    Render(RenderArgs),
    /// Launch a program under the compiled plan (Linux: bwrap + Landlock + seccomp).
    #[command(after_help = "Example:\n  ralc run -p std:minimal -- ls -l")]
    Run(RunArgs),
    /// The deputy report, for code review: directories both runnable and writable, and the
    /// files the host runs later (git hooks and config, shell start-up files) left writable.
    #[command(after_help = "Example:\n  ralc deputy -p profile.ral --format github")]
    Deputy(DeputyArgs),
    /// What NEW grants that OLD did not (and the reverse), per axis, with the entries.
    #[command(
        after_help = "Example:\n  ralc diff old.ral new.ral\n  ralc diff --old -p base.ral --old -p old.ral --new -p base.ral --new -p new.ral --format json\n\nExit: 0 NEW does not widen, 1 it widens (or is incomparable), 2 usage or a broken profile."
    )]
    Diff(DiffArgs),
    /// Lay profiles out in the one canonical layout, in place; `--check` writes nothing and
    /// prints a diff of each file that is not formatted.
    #[command(
        after_help = "Example:\n  ralc fmt profile.ral\n  ralc fmt --check profiles/*.ral\n  ralc fmt - < profile.ral\n\nExit: 0 every file is formatted (or was rewritten), 1 --check found a file not formatted, 2 usage, or a file that cannot be read or does not parse (never rewritten)."
    )]
    Fmt(FmtArgs),
    /// Print the page for a diagnostic code or a lint.
    #[command(after_help = "Example:\n  ralc explain E0201\n  ralc explain deputy-prefix")]
    Explain(ExplainArgs),
    /// Print a shell completion script (bash, zsh or fish) on stdout.
    #[command(
        after_help = "Example:\n  ralc completions bash > ~/.local/share/bash-completion/completions/ralc\n  ralc completions zsh > ~/.zfunc/_ralc\n  ralc completions fish > ~/.config/fish/completions/ralc.fish"
    )]
    Completions(CompletionsArgs),
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Human,
    Json,
    Sarif,
    Github,
}

/// The layers of a stack, in order, and how to freeze them.
#[derive(Args, Debug, Clone, Default)]
pub struct StackArgs {
    /// A policy layer (repeatable, in stack order); `std:NAME` names a standard profile.
    #[arg(short = 'p', long = "profile", value_name = "FILE")]
    pub profiles: Vec<String>,
    /// A policy met into the stack; its own path becomes write-excluded (repeatable).
    #[arg(long = "restrict", value_name = "FILE")]
    pub restrict: Vec<String>,
    /// A fragment joined into the base (omitted axes add nothing; repeatable).
    #[arg(long = "extend", value_name = "FILE")]
    pub extend: Vec<String>,
    /// Read a relative layer name even when it is a link to a file outside the directory
    /// tree it was named from (refused by default: a checkout's link could name a secret).
    #[arg(long = "allow-outside-links")]
    pub allow_outside_links: bool,
    #[command(flatten)]
    pub anchor: AnchorArgs,
}

/// The freeze anchor: freeze as this machine would, or as another would.
#[derive(Args, Debug, Clone, Default)]
pub struct AnchorArgs {
    /// Freeze with this home directory (sets HOME).
    #[arg(long, value_name = "DIR", global = true)]
    pub home: Option<PathBuf>,
    /// Freeze with this working directory.
    #[arg(long, value_name = "DIR", global = true)]
    pub cwd: Option<PathBuf>,
    /// Set an environment variable for the freeze (repeatable).
    #[arg(long = "env", value_name = "K=V", global = true)]
    pub env: Vec<String>,
    /// Start the freeze's environment empty (then --env and --home apply).
    #[arg(long = "env-clear", global = true)]
    pub env_clear: bool,
}

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// Profile files (layers in order), as positional arguments.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    #[command(flatten)]
    pub stack: StackArgs,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Set a lint to allow (repeatable).
    #[arg(short = 'A', value_name = "LINT")]
    pub allow: Vec<String>,
    /// Set a lint to warn (repeatable).
    #[arg(short = 'W', value_name = "LINT")]
    pub warn: Vec<String>,
    /// Set a lint to deny (repeatable).
    #[arg(short = 'D', value_name = "LINT")]
    pub deny: Vec<String>,
    /// Forbid a lint (repeatable): denied, and no `# ralc: allow(…)` in a profile lowers
    /// it (rustc's `-F`; what a CI reviewing someone else's profile uses).
    #[arg(long = "forbid", short = 'F', value_name = "LINT")]
    pub forbid: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct ShowArgs {
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    #[command(flatten)]
    pub stack: StackArgs,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Args, Debug, Clone)]
pub struct WhyArgs {
    #[command(flatten)]
    pub stack: StackArgs,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Answer one question per line of FILE (`-` for stdin), one JSON answer per line.
    #[arg(long, value_name = "FILE")]
    pub batch: Option<String>,
    /// The question: `exec PROGRAM [ARGS…]`, `read PATH`, `write PATH`, `flag NAME`.
    #[arg(
        value_name = "QUESTION",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub question: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Macos,
    Linux,
    Windows,
}

#[derive(Args, Debug, Clone)]
pub struct RenderArgs {
    #[arg(long, value_enum)]
    pub target: Target,
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    #[command(flatten)]
    pub stack: StackArgs,
    /// Print the bwrap command line, one argument per line (linux only).
    #[arg(long)]
    pub argv: bool,
    /// ralc's executable on the target (default: this ralc's own, canonicalised).
    #[arg(long = "self", value_name = "PATH")]
    pub self_path: Option<PathBuf>,
    /// The program the plan launches, and its arguments (after `--`).
    #[arg(last = true, value_name = "PROGRAM")]
    pub program: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub stack: StackArgs,
    /// Also report every path access the plan refused (a read outside the region, of a
    /// masked deny, a write into the read-only region); supervises every path call, so
    /// the program runs slower (Linux).
    #[arg(long)]
    pub explain: bool,
    /// How the hints after the run are written on stderr: `human`, or `json` (one object
    /// per refusal a line).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// The program and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub program: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct DeputyArgs {
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    #[command(flatten)]
    pub stack: StackArgs,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Exit 1 when there is a finding.
    #[arg(long)]
    pub deny: bool,
    /// Exit 1 when there is a finding, and report every finding: no `# ralc: allow(…)`
    /// directive in a profile hides one (what a CI reviewing someone else's profile uses).
    #[arg(long)]
    pub forbid: bool,
}

#[derive(Args, Debug, Clone)]
pub struct ExplainArgs {
    /// A diagnostic code (`E0201`) or a lint name (`deputy-prefix`).
    pub name: String,
}

#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// The two-file short form: OLD NEW.
    #[arg(value_name = "FILE", num_args = 0..=2)]
    pub files: Vec<String>,
    /// A layer of OLD: `-p FILE`, `--restrict FILE` or `--extend FILE` (repeatable).
    #[arg(long, num_args = 2, value_names = ["ROLE", "FILE"], allow_hyphen_values = true, action = clap::ArgAction::Append)]
    pub old: Vec<String>,
    /// A layer of NEW, as for `--old`.
    #[arg(long, num_args = 2, value_names = ["ROLE", "FILE"], allow_hyphen_values = true, action = clap::ArgAction::Append)]
    pub new: Vec<String>,
    #[command(flatten)]
    pub anchor: AnchorArgs,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Args, Debug, Clone)]
pub struct FmtArgs {
    /// Profile files to format in place; `-` reads standard input and writes the
    /// formatted text on standard output.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
    /// Write nothing: print a unified diff of each file that is not formatted, and exit 1
    /// if there is one.
    #[arg(long)]
    pub check: bool,
}

/// The shells `ralc completions` writes for.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}
