//! Long functions: every function of a source tree whose text, from its
//! `fn` to its closing brace, is longer than a bound, and whether it says
//! why at its top. A function over the bound must carry a line
//! `Long because: ...` (a `//` or `///` comment) in the comments and
//! attributes just above it or in the first lines of its body; the test
//! suite (`tests/long_functions.rs`) holds the workspace's sources to it.

use std::fmt;
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::Error;

/// The mark that a long function's length is meant.
pub const REASON_MARK: &str = "Long because:";

/// Lines of a body's start searched for the mark.
const BODY_LINES_SEARCHED: usize = 3;

/// A function over the bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongFn {
    pub file: PathBuf,
    /// The line of its `fn`.
    pub line: usize,
    pub name: String,
    /// Lines from its `fn` to its closing brace, both included.
    pub lines: usize,
    /// It carries a [`REASON_MARK`] line.
    pub has_reason: bool,
}

impl fmt::Display for LongFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{} {} ({} lines{})",
            self.file.display(),
            self.line,
            self.name,
            self.lines,
            if self.has_reason {
                ", reason given"
            } else {
                ", no reason"
            }
        )
    }
}

/// Every function of the `.rs` files under `dir` (recursively, in path
/// order) longer than `max_lines`.
pub fn long_functions(dir: &Path, max_lines: usize) -> Result<Vec<LongFn>, Error> {
    let mut files = Vec::new();
    rust_files(dir, &mut files)?;
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| Error::Io(f.clone(), e))?;
        out.extend(long_functions_in(&f, &text, max_lines)?);
    }
    Ok(out)
}

/// The functions of one file's `text` longer than `max_lines`.
pub fn long_functions_in(file: &Path, text: &str, max_lines: usize) -> Result<Vec<LongFn>, Error> {
    let ast = syn::parse_file(text).map_err(|e| Error::Parse(file.to_path_buf(), e))?;
    let lines: Vec<&str> = text.lines().collect();
    let mut v = FnVisitor {
        file,
        lines: &lines,
        max_lines,
        found: Vec::new(),
    };
    v.visit_file(&ast);
    Ok(v.found)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
    for e in entries {
        let p = e.map_err(|e| Error::Io(dir.to_path_buf(), e))?.path();
        if p.is_dir() {
            rust_files(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    Ok(())
}

struct FnVisitor<'a> {
    file: &'a Path,
    lines: &'a [&'a str],
    max_lines: usize,
    found: Vec<LongFn>,
}

impl FnVisitor<'_> {
    /// `item_start`: the first line of the item with its attributes (doc
    /// comments included); `fn_line`: its `fn`; `body`: its block.
    fn check(&mut self, name: String, item_start: usize, fn_line: usize, body: &syn::Block) {
        let open = body.brace_token.span.open().start().line;
        let close = body.brace_token.span.close().end().line;
        let lines = close + 1 - fn_line;
        if lines <= self.max_lines {
            return;
        }
        // Plain comments just above the attributes, the item's own
        // attributes and signature, and the body's first lines.
        let mut top = item_start;
        while top > 1 && self.line(top - 1).trim_start().starts_with("//") {
            top -= 1;
        }
        let has_reason =
            (top..=open + BODY_LINES_SEARCHED).any(|l| is_reason_comment(self.line(l)));
        self.found.push(LongFn {
            file: self.file.to_path_buf(),
            line: fn_line,
            name,
            lines,
            has_reason,
        });
    }

    /// Line `n` (1-based), empty past the end.
    fn line(&self, n: usize) -> &str {
        n.checked_sub(1)
            .and_then(|i| self.lines.get(i))
            .copied()
            .unwrap_or("")
    }
}

fn is_reason_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("//") && t.contains(REASON_MARK)
}

impl<'ast> Visit<'ast> for FnVisitor<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.check(
            f.sig.ident.to_string(),
            f.span().start().line,
            f.sig.fn_token.span.start().line,
            &f.block,
        );
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.check(
            f.sig.ident.to_string(),
            f.span().start().line,
            f.sig.fn_token.span.start().line,
            &f.block,
        );
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.check(
                f.sig.ident.to_string(),
                f.span().start().line,
                f.sig.fn_token.span.start().line,
                body,
            );
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(n: usize) -> String {
        (0..n).map(|i| format!("    let _x{i} = {i};\n")).collect()
    }

    #[test]
    fn a_function_over_the_bound_is_listed_with_its_length() {
        let text = format!(
            "fn short() {{\n{}}}\n\nfn long() {{\n{}}}\n",
            body(3),
            body(8)
        );
        let found = long_functions_in(Path::new("a.rs"), &text, 6).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].name, "long");
        assert_eq!(found[0].line, 7);
        assert_eq!(found[0].lines, 10);
        assert!(!found[0].has_reason);
    }

    #[test]
    fn a_reason_above_or_at_the_top_of_the_body_counts() {
        let above = format!(
            "// Long because: one dispatch match.\n/// Docs.\n#[inline]\nfn a() {{\n{}}}\n",
            body(8)
        );
        let inside = format!(
            "impl S {{\n    fn b(&self) {{\n        // Long because: a table.\n{}    }}\n}}\n",
            body(8)
        );
        let far = format!(
            "// Long because: too far away.\n\nfn c() {{\n{}}}\n",
            body(8)
        );
        for (text, want) in [(above, true), (inside, true), (far, false)] {
            let found = long_functions_in(Path::new("a.rs"), &text, 6).unwrap();
            assert_eq!(found.len(), 1, "{text}");
            assert_eq!(found[0].has_reason, want, "{text}");
        }
    }
}
