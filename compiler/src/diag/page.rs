//! The one page renderer: what `ralc explain NAME` prints and the sections of the
//! generated `docs/codes.md` and `docs/lints.md`, for diagnostic codes and lints alike.
//! A [`Page`] is data (a heading and sections); this module only lays it out as terminal
//! text or as markdown. Pure text, never reads anything.

/// One page: a code's or a lint's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The name it is filed under (`E0201`, `deputy-prefix`): the markdown heading.
    pub name: String,
    /// The first line of the terminal page.
    pub head: String,
    pub sections: Vec<Section>,
}

/// One section of a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Its heading on the terminal (`Fix`); `None`: a paragraph without one.
    pub text_title: Option<String>,
    /// Its heading in markdown (`Fix`), written in bold before the body.
    pub md_title: Option<String>,
    pub body: String,
    /// A profile: indented on the terminal, a `ral` block in markdown.
    pub example: bool,
    /// Where it appears.
    pub shown: Shown,
}

/// Where a section appears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    Both,
    TextOnly,
    MarkdownOnly,
}

impl Section {
    /// A paragraph on both, with the given headings.
    pub fn prose(text_title: Option<&str>, md_title: Option<&str>, body: &str) -> Self {
        Section {
            text_title: text_title.map(str::to_string),
            md_title: md_title.map(str::to_string),
            body: body.to_string(),
            example: false,
            shown: Shown::Both,
        }
    }
    /// An example profile on both.
    pub fn example(text_title: Option<&str>, md_title: Option<&str>, body: &str) -> Self {
        Section {
            example: true,
            ..Section::prose(text_title, md_title, body)
        }
    }
    /// This section on one medium only.
    pub fn only(mut self, shown: Shown) -> Self {
        self.shown = shown;
        self
    }
}

impl Page {
    /// The terminal page (`ralc explain`).
    pub fn text(&self) -> String {
        let mut s = self.head.clone();
        for sec in self
            .sections
            .iter()
            .filter(|s| s.shown != Shown::MarkdownOnly)
        {
            s.push_str("\n\n");
            if let Some(t) = &sec.text_title {
                s.push_str(&format!("{t}:\n\n"));
            }
            if sec.example {
                s.push_str(&indent(&sec.body));
            } else {
                s.push_str(&sec.body);
            }
        }
        s.push('\n');
        s
    }

    /// The page as a markdown section under a heading of `level` (`##`, `###`).
    pub fn markdown(&self, level: &str) -> String {
        let mut s = format!("\n{level} {}\n", self.name);
        for sec in self.sections.iter().filter(|s| s.shown != Shown::TextOnly) {
            s.push('\n');
            match (&sec.md_title, sec.example) {
                (Some(t), false) => s.push_str(&format!("**{t}.** {}", sec.body)),
                (None, false) => s.push_str(&sec.body),
                (Some(t), true) => s.push_str(&format!("**{t}.**\n\n```ral\n{}\n```", sec.body)),
                (None, true) => s.push_str(&format!("```ral\n{}\n```", sec.body)),
            }
            s.push('\n');
        }
        s
    }
}

/// `s` with its first letter upper case.
pub fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_markdown_lay_out_the_same_sections() {
        let p = Page {
            name: "E0001".into(),
            head: "E0001: a title".into(),
            sections: vec![
                Section::prose(None, Some("A title"), "What it means."),
                Section::example(Some("Example"), None, "[a: 1]\n[b: 2]"),
                Section::prose(None, None, "Markdown only.").only(Shown::MarkdownOnly),
                Section::prose(Some("Fix"), Some("Fix"), "Do this."),
            ],
        };
        assert_eq!(
            p.text(),
            "E0001: a title\n\nWhat it means.\n\nExample:\n\n    [a: 1]\n    [b: 2]\n\nFix:\n\nDo this.\n"
        );
        assert_eq!(
            p.markdown("###"),
            "\n### E0001\n\n**A title.** What it means.\n\n```ral\n[a: 1]\n[b: 2]\n```\n\nMarkdown only.\n\n**Fix.** Do this.\n"
        );
        assert_eq!(capitalised("émoi"), "Émoi");
    }
}
