//! The one diagnostic model: a code, a severity, a message, a primary span, secondary
//! labels and help. Every stage (syntax, evaluation, typecheck, freeze, lints, composition)
//! reports through it, and it is rendered many ways (`human`, `json`, SARIF) from here.
//!
//! Pure: it never reads a file. Sources are registered in a [`SourceMap`] by the caller,
//! and line/column positions are computed from the bytes held there.

pub mod codes;
pub mod escape;
pub mod github;
pub mod human;
pub mod json;
pub mod page;
pub mod report;
pub mod sarif;

use std::fmt;
use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FileId(pub u32);

/// A byte range in one registered file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Self {
        Span {
            file,
            start,
            end: end.max(start),
        }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(
            self.file,
            self.start.min(other.start),
            self.end.max(other.end),
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary label: another place in a file that explains the primary one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One finding. `code` is an `E…` code for errors of the language and the freeze, or a
/// lint's name (`deputy-prefix`) for lint findings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// The primary location; `None` only for findings about no file at all (usage).
    pub span: Option<Span>,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(code: impl Into<String>, severity: Severity, message: impl Into<String>) -> Self {
        Diagnostic {
            code: code.into(),
            severity,
            message: message.into(),
            span: None,
            labels: Vec::new(),
            help: None,
            notes: Vec::new(),
        }
    }
    pub fn error(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, message)
    }
    pub fn warning(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, message)
    }
    pub fn note(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Note, message)
    }
    pub fn at(mut self, span: Span) -> Self {
        self.span = Some(span);
        self
    }
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A registered source file: its display name and its bytes (which need not be UTF-8).
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: Arc<str>,
    pub bytes: Arc<[u8]>,
    line_starts: Vec<usize>,
    /// The characters before every [`CHAR_STRIDE`]-th byte (a character index: a column
    /// costs at most one stride of counting, however long the line).
    chars_before: Vec<usize>,
    /// The byte offset past which the file is never quoted (its first lexing error);
    /// `None`: all of it is the profile's own text.
    quote_end: Option<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<Arc<str>>, bytes: impl Into<Arc<[u8]>>) -> Self {
        let bytes: Arc<[u8]> = bytes.into();
        let mut line_starts = vec![0];
        let mut chars_before = Vec::with_capacity(bytes.len() / CHAR_STRIDE + 1);
        let mut chars = 0;
        for (i, b) in bytes.iter().enumerate() {
            if i.is_multiple_of(CHAR_STRIDE) {
                chars_before.push(chars);
            }
            if (*b & 0xC0) != 0x80 {
                chars += 1;
            }
            if *b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        if bytes.len().is_multiple_of(CHAR_STRIDE) {
            chars_before.push(chars);
        }
        SourceFile {
            name: name.into(),
            bytes,
            line_starts,
            chars_before,
            quote_end: None,
        }
    }

    /// The byte offset past which nothing of this file may be quoted.
    pub fn quote_end(&self) -> usize {
        self.quote_end
            .map_or(self.bytes.len(), |e| e.min(self.bytes.len()))
    }

    /// The text, with invalid UTF-8 replaced (for display only).
    pub fn text_lossy(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// 1-based line and column of a byte offset; columns count characters (invalid
    /// UTF-8 bytes count one each).
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.bytes.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self.chars_to(offset) - self.chars_to(start);
        (line as u32 + 1, col as u32 + 1)
    }

    /// The characters before byte `offset` (at most the file's length), from the index.
    fn chars_to(&self, offset: usize) -> usize {
        let k = offset / CHAR_STRIDE;
        match self.chars_before.get(k) {
            Some(base) => base + count_chars(&self.bytes[k * CHAR_STRIDE..offset]),
            None => count_chars(&self.bytes[..offset]),
        }
    }
}

/// The stride of a file's character index, in bytes.
const CHAR_STRIDE: usize = 64;

fn count_chars(bytes: &[u8]) -> usize {
    // A character starts at every byte that is not a UTF-8 continuation byte.
    bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count()
}

/// The diagnostics a machine format reports of `diags`, bounded as the human one is: at
/// most [`human::MAX_PER_FILE`] of each file, in order, and how many more of each file
/// were left out (`(file name, count)`, for the format's one "N more not shown" entry).
pub fn capped<'a>(
    diags: &'a [Diagnostic],
    sources: &SourceMap,
) -> (Vec<&'a Diagnostic>, Vec<(String, usize)>) {
    use std::collections::BTreeMap;
    let mut drawn: BTreeMap<Option<FileId>, usize> = BTreeMap::new();
    let mut hidden: BTreeMap<Option<FileId>, usize> = BTreeMap::new();
    let mut kept = Vec::new();
    for d in diags {
        let file = d.span.map(|s| s.file);
        let n = drawn.entry(file).or_default();
        if *n >= human::MAX_PER_FILE {
            *hidden.entry(file).or_default() += 1;
        } else {
            *n += 1;
            kept.push(d);
        }
    }
    let more = hidden
        .into_iter()
        .map(|(f, n)| {
            let name = f
                .and_then(|f| sources.try_get(f))
                .map_or_else(|| "no file".to_string(), |f| format!("`{}`", f.name));
            (name, n)
        })
        .collect();
    (kept, more)
}

/// The wording of one "N more not shown" entry.
pub fn more_not_shown(name: &str, n: usize) -> String {
    format!(
        "{n} more diagnostic{} of {name} not shown",
        if n == 1 { "" } else { "s" }
    )
}

/// All files of one run, by [`FileId`].
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }
    /// Register a file; its name is escaped (`escape::text`) once, here, for every format.
    pub fn add(&mut self, name: impl Into<Arc<str>>, bytes: impl Into<Arc<[u8]>>) -> FileId {
        let id = FileId(self.files.len() as u32);
        let name: Arc<str> = name.into();
        let name: Arc<str> = match escape::text(&name) {
            std::borrow::Cow::Borrowed(_) => name,
            std::borrow::Cow::Owned(e) => Arc::from(e),
        };
        self.files.push(SourceFile::new(name, bytes));
        id
    }
    /// Never quote `id` past byte `end` (the end of its first lexing error): what follows
    /// may not be a profile at all. The earliest limit set wins.
    pub fn limit_quoting(&mut self, id: FileId, end: usize) {
        if let Some(f) = self.files.get_mut(id.0 as usize) {
            f.quote_end = Some(f.quote_end.map_or(end, |e| e.min(end)));
        }
    }
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }
    pub fn try_get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }
    /// File name, 1-based line and column of a span's start.
    pub fn locate(&self, span: Span) -> Location {
        let file = self.get(span.file);
        let (line, column) = file.line_col(span.start);
        let (end_line, end_column) = file.line_col(span.end);
        Location {
            file: file.name.clone(),
            line,
            column,
            end_line,
            end_column,
        }
    }
    /// The context a reader sees around a span: the whole lines it touches and one line
    /// on either side where there is one (without the last line's newline).
    pub fn context_of(&self, span: Span) -> Span {
        let file = self.get(span.file);
        let bytes = &file.bytes;
        let len = bytes.len();
        let end = span.end.min(len);
        let start = span.start.min(end);
        // the start of the line before the first touched line
        let line_start = |at: usize| {
            bytes[..at]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1)
        };
        let first = line_start(start);
        let first = if first == 0 { 0 } else { line_start(first - 1) };
        // the end of the line after the last touched line
        let line_end = |at: usize| {
            bytes[at..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(len, |i| at + i)
        };
        let last = line_end(end);
        let last = if last < len { line_end(last + 1) } else { len };
        // bounded: at most MAX_CONTEXT bytes each side of the span, on character starts
        let mut first = first.max(start.saturating_sub(MAX_CONTEXT));
        while first < start && (bytes[first] & 0xC0) == 0x80 {
            first += 1;
        }
        let mut last = last.min(end.saturating_add(MAX_CONTEXT));
        while last > end && last < len && (bytes[last] & 0xC0) == 0x80 {
            last -= 1;
        }
        Span::new(span.file, first, last)
    }
    /// The source text a span covers (lossy).
    /// The quotable text of a span (none past the file's quote limit); `None` when it
    /// is longer than [`MAX_SNIPPET`] bytes (a machine format then leaves it out).
    pub fn bounded_snippet(&self, span: Span) -> Option<String> {
        (span.end.saturating_sub(span.start) <= MAX_SNIPPET).then(|| self.snippet(span))
    }
    pub fn snippet(&self, span: Span) -> String {
        let file = self.get(span.file);
        let end = span.end.min(file.quote_end());
        let start = span.start.min(end);
        String::from_utf8_lossy(&file.bytes[start..end]).into_owned()
    }
}

/// The most bytes of context a region is widened by on each side of its span.
pub const MAX_CONTEXT: usize = 240;
/// The longest span quoted as a machine format's snippet, in bytes.
pub const MAX_SNIPPET: usize = 4096;

/// A resolved position, as the renderers print it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    pub file: Arc<str>,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// Counts of errors and warnings (notes are not counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
}

impl Summary {
    pub fn of(diags: &[Diagnostic]) -> Self {
        let mut s = Summary::default();
        for d in diags {
            match d.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
                Severity::Note => {}
            }
        }
        s
    }
}

/// Sort diagnostics into a stable order: by file, then position, then code.
pub fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| {
        let ka = a.span.map(|s| (s.file, s.start, s.end));
        let kb = b.span.map(|s| (s.file, s.start, s.end));
        ka.cmp(&kb)
            .then_with(|| a.code.cmp(&b.code))
            .then_with(|| a.message.cmp(&b.message))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_from_the_index_match_counting() {
        let mut text = String::new();
        for i in 0..400 {
            text.push(match i % 7 {
                0 => 'ü',
                1 => '\n',
                2 => '😀',
                _ => 'a',
            });
            if i % 97 == 0 {
                text.push_str(&"x".repeat(130));
            }
        }
        let f = SourceFile::new("t", text.as_bytes().to_vec());
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        for off in 0..=text.len() {
            let line = starts.iter().rposition(|s| *s <= off).unwrap();
            let col = count_chars(&text.as_bytes()[starts[line]..off]);
            assert_eq!(f.line_col(off), (line as u32 + 1, col as u32 + 1), "{off}");
        }
        assert_eq!(SourceFile::new("e", Vec::new()).line_col(0), (1, 1));
    }

    #[test]
    fn context_is_the_touched_lines_and_one_either_side() {
        let mut sm = SourceMap::new();
        let f = sm.add("p", b"a\nbb\ncc\ndd\ne".to_vec());
        // "cc" (offsets 5..7): lines 2..4
        assert_eq!(sm.snippet(sm.context_of(Span::new(f, 5, 7))), "bb\ncc\ndd");
        // the first line has no line before it; the last none after
        assert_eq!(sm.snippet(sm.context_of(Span::new(f, 0, 1))), "a\nbb");
        assert_eq!(sm.snippet(sm.context_of(Span::new(f, 11, 12))), "dd\ne");
        // a span over the whole file is its own context
        let whole = sm.context_of(Span::new(f, 0, 12));
        assert_eq!((whole.start, whole.end), (0, 12));
    }

    #[test]
    fn line_and_column_are_one_based_and_count_characters() {
        let f = SourceFile::new("p.ral", "ab\nßx y\n".as_bytes().to_vec());
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        // 'ß' is two bytes, one character
        assert_eq!(f.line_col(5), (2, 2));
        assert_eq!(f.line_col(7), (2, 4));
    }

    #[test]
    fn summary_counts_errors_and_warnings_only() {
        let d = vec![
            Diagnostic::error("E0201", "x"),
            Diagnostic::warning("dead-grant", "y"),
            Diagnostic::note("n", "z"),
        ];
        assert_eq!(
            Summary::of(&d),
            Summary {
                errors: 1,
                warnings: 1
            }
        );
    }
}
