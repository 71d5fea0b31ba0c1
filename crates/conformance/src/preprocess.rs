//! The first pass over a script, as packetdrill's lexer does it: comments
//! (`//` to the end of the line, `/* ... */`), conditional sections
//! (`#ifdef NAME`, `#ifndef NAME`, `#else`, `#endif`, where the defined
//! names are the selected platform), and option lines (`--name=value`).
//! Backtick shell commands are left for the lexer, which turns them into
//! events the interpreter ignores.
//!
//! Line numbers are kept: the text handed on has exactly one output line
//! per input line (dropped parts become empty), so errors point at the
//! script as written.

use crate::error::ParseError;

/// A `--name=value` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionLine {
    pub line: usize,
    pub name: String,
    pub value: Option<String>,
}

/// The script after the first pass.
#[derive(Debug, Clone, Default)]
pub struct Preprocessed {
    /// Source lines (1-based line `i + 1`), comments and inactive
    /// sections blanked out, option lines removed.
    pub lines: Vec<String>,
    pub options: Vec<OptionLine>,
}

/// Bound on `#ifdef` nesting (deeper nesting is refused, not followed).
const MAX_NESTING: usize = 64;

struct Cond {
    /// This section's own condition holds.
    taken: bool,
    /// The enclosing sections are active.
    parent_active: bool,
    seen_else: bool,
    line: usize,
}

/// Runs the first pass. `defined` are the names `#ifdef` tests for (the
/// platform, e.g. `FreeBSD`).
pub fn preprocess(text: &str, defined: &[&str]) -> Result<Preprocessed, ParseError> {
    let without_comments = strip_comments(text)?;
    let mut out = Preprocessed::default();
    let mut stack: Vec<Cond> = Vec::new();
    for (i, raw) in without_comments.lines().enumerate() {
        let line = i + 1;
        let active = stack.last().is_none_or(|c| c.parent_active && c.taken);
        let trimmed = raw.trim();
        if let Some(rest) = trimmed.strip_prefix('#') {
            let mut words = rest.split_whitespace();
            let directive = words.next().unwrap_or("");
            let arg = words.next();
            match directive {
                "ifdef" | "ifndef" => {
                    let name = arg.ok_or_else(|| {
                        ParseError::new(line, format!("#{directive} needs a name"))
                    })?;
                    if stack.len() >= MAX_NESTING {
                        return Err(ParseError::new(
                            line,
                            "conditional sections nested too deep",
                        ));
                    }
                    let is_defined = defined.contains(&name);
                    stack.push(Cond {
                        taken: if directive == "ifdef" {
                            is_defined
                        } else {
                            !is_defined
                        },
                        parent_active: active,
                        seen_else: false,
                        line,
                    });
                }
                "else" => {
                    let c = stack
                        .last_mut()
                        .ok_or_else(|| ParseError::new(line, "#else without #ifdef"))?;
                    if c.seen_else {
                        return Err(ParseError::new(line, "second #else in one section"));
                    }
                    c.seen_else = true;
                    c.taken = !c.taken;
                }
                "endif" => {
                    stack
                        .pop()
                        .ok_or_else(|| ParseError::new(line, "#endif without #ifdef"))?;
                }
                other => {
                    return Err(ParseError::new(
                        line,
                        format!("unsupported preprocessor directive #{other}"),
                    ));
                }
            }
            out.lines.push(String::new());
            continue;
        }
        if !active {
            out.lines.push(String::new());
            continue;
        }
        if let Some(opt) = trimmed.strip_prefix("--") {
            let (name, value) = match opt.split_once('=') {
                Some((n, v)) => (n.trim().to_string(), Some(v.trim().to_string())),
                None => (opt.trim().to_string(), None),
            };
            if name.is_empty() {
                return Err(ParseError::new(line, "empty option name"));
            }
            out.options.push(OptionLine { line, name, value });
            out.lines.push(String::new());
            continue;
        }
        out.lines.push(raw.to_string());
    }
    if let Some(c) = stack.last() {
        return Err(ParseError::new(c.line, "#ifdef without #endif"));
    }
    Ok(out)
}

/// Blanks out comments, keeping newlines (and so line numbers). String
/// literals are respected: `//` inside quotes is not a comment.
fn strip_comments(text: &str) -> Result<String, ParseError> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut line = 1usize;
    let mut in_string = false;
    let mut in_backticks = false;
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
            in_string = false;
            in_backticks = false;
            out.push('\n');
            continue;
        }
        if in_string {
            if c == '"' {
                in_string = false;
            }
            out.push(c);
            continue;
        }
        if in_backticks {
            if c == '`' {
                in_backticks = false;
            }
            out.push(c);
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '`' => {
                in_backticks = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                // To the end of the line.
                for d in chars.by_ref() {
                    if d == '\n' {
                        line += 1;
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let start = line;
                let mut closed = false;
                while let Some(d) = chars.next() {
                    if d == '\n' {
                        line += 1;
                        out.push('\n');
                    } else if d == '*' && chars.peek() == Some(&'/') {
                        chars.next();
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return Err(ParseError::new(start, "unterminated /* comment"));
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_branches_comments_and_options() {
        let text = "--tolerance_usecs=10000\n\
                    // a comment\n\
                    0.0 socket() = 3 // trailing\n\
                    #ifdef FreeBSD\n\
                    +0 freebsd() = 0\n\
                    #else\n\
                    +0 other() = 0\n\
                    #endif\n\
                    #ifdef Linux\n\
                    +0 linux() = 0\n\
                    #endif\n\
                    /* a\n\
                    block */ +0 after() = 0\n";
        let p = preprocess(text, &["FreeBSD"]).unwrap();
        assert_eq!(p.options.len(), 1);
        assert_eq!(p.options[0].name, "tolerance_usecs");
        assert_eq!(p.options[0].value.as_deref(), Some("10000"));
        assert_eq!(p.options[0].line, 1);
        assert_eq!(p.lines.len(), 13);
        assert_eq!(p.lines[2].trim(), "0.0 socket() = 3");
        assert_eq!(p.lines[4].trim(), "+0 freebsd() = 0");
        assert!(p.lines[6].is_empty(), "the #else branch is inactive");
        assert!(p.lines[9].is_empty(), "the Linux branch is inactive");
        assert_eq!(p.lines[12].trim(), "+0 after() = 0");
        let linux = preprocess(text, &["Linux"]).unwrap();
        assert_eq!(linux.lines[6].trim(), "+0 other() = 0");
        assert_eq!(linux.lines[9].trim(), "+0 linux() = 0");
    }

    #[test]
    fn unbalanced_sections_are_errors() {
        assert_eq!(preprocess("#ifdef X\n", &[]).unwrap_err().line, 1);
        assert_eq!(preprocess("\n#endif\n", &[]).unwrap_err().line, 2);
        assert_eq!(preprocess("#else\n", &[]).unwrap_err().line, 1);
        assert!(preprocess("#include <x>\n", &[]).is_err());
        assert!(preprocess("/* open\n", &[]).is_err());
    }

    #[test]
    fn comment_markers_inside_strings_are_kept() {
        let p = preprocess("+0 f(\"a//b\") = 0\n", &[]).unwrap();
        assert_eq!(p.lines[0], "+0 f(\"a//b\") = 0");
    }
}
