//! Tokens of the script language, after the preprocessor.
//!
//! Numbers, names, IPv4 and IPv6 addresses and gap blocks (`2:3`) are all
//! one kind of token, a [`Tok::Word`]: the parser reads each according to
//! where it stands. A colon belongs to a word when a letter, digit or
//! colon follows it (`fe80::1`, `2:3`), and is punctuation otherwise
//! (`sctp: INIT`).

use crate::error::ParseError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Word(String),
    Str(String),
    /// `...`
    Ellipsis,
    /// A backtick shell command (ignored by the interpreter).
    Command(String),
    Punct(char),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
}

/// Bound on the tokens of one script.
const MAX_TOKENS: usize = 1 << 20;

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == ':'
}

/// Splits preprocessed lines into tokens.
pub fn tokenize(lines: &[String]) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    for (i, text) in lines.iter().enumerate() {
        let line = i + 1;
        let chars: Vec<char> = text.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            if out.len() >= MAX_TOKENS {
                return Err(ParseError::new(line, "script too long"));
            }
            let c = chars[k];
            if c.is_whitespace() {
                k += 1;
                continue;
            }
            if c == '.' && chars.get(k + 1) == Some(&'.') && chars.get(k + 2) == Some(&'.') {
                out.push(Token {
                    tok: Tok::Ellipsis,
                    line,
                });
                k += 3;
                continue;
            }
            if c == '"' {
                let start = k + 1;
                let end = (start..chars.len())
                    .find(|&j| chars[j] == '"')
                    .ok_or_else(|| ParseError::new(line, "unterminated string"))?;
                out.push(Token {
                    tok: Tok::Str(chars[start..end].iter().collect()),
                    line,
                });
                k = end + 1;
                continue;
            }
            if c == '`' {
                let start = k + 1;
                let end = (start..chars.len())
                    .find(|&j| chars[j] == '`')
                    .ok_or_else(|| ParseError::new(line, "unterminated command"))?;
                out.push(Token {
                    tok: Tok::Command(chars[start..end].iter().collect()),
                    line,
                });
                k = end + 1;
                continue;
            }
            if is_word_char(c) && c != ':' {
                let start = k;
                while k < chars.len() {
                    let d = chars[k];
                    if d == '.' && chars.get(k + 1) == Some(&'.') && chars.get(k + 2) == Some(&'.')
                    {
                        break;
                    }
                    if d == ':' {
                        let next = chars.get(k + 1).copied();
                        if next.is_some_and(|n| n.is_ascii_alphanumeric() || n == ':') {
                            k += 1;
                            continue;
                        }
                        break;
                    }
                    if !is_word_char(d) {
                        break;
                    }
                    k += 1;
                }
                out.push(Token {
                    tok: Tok::Word(chars[start..k].iter().collect()),
                    line,
                });
                continue;
            }
            if "[](){},;=|<>+-*~:%".contains(c) {
                out.push(Token {
                    tok: Tok::Punct(c),
                    line,
                });
                k += 1;
                continue;
            }
            return Err(ParseError::new(line, format!("unexpected character {c:?}")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Tok> {
        tokenize(&[s.to_string()])
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    fn w(s: &str) -> Tok {
        Tok::Word(s.to_string())
    }

    #[test]
    fn words_addresses_and_punctuation() {
        assert_eq!(
            words("+0.1 < 224.0.0.0 > 192.168.0.1 sctp: INIT[tsn=0, ...]"),
            vec![
                Tok::Punct('+'),
                w("0.1"),
                Tok::Punct('<'),
                w("224.0.0.0"),
                Tok::Punct('>'),
                w("192.168.0.1"),
                w("sctp"),
                Tok::Punct(':'),
                w("INIT"),
                Tok::Punct('['),
                w("tsn"),
                Tok::Punct('='),
                w("0"),
                Tok::Punct(','),
                Tok::Ellipsis,
                Tok::Punct(']'),
            ]
        );
        assert_eq!(
            words("addr=fe80::250:56ff:fe24:9e6], gaps=[2:2]"),
            vec![
                w("addr"),
                Tok::Punct('='),
                w("fe80::250:56ff:fe24:9e6"),
                Tok::Punct(']'),
                Tok::Punct(','),
                w("gaps"),
                Tok::Punct('='),
                Tok::Punct('['),
                w("2:2"),
                Tok::Punct(']'),
            ]
        );
        assert_eq!(
            words("read(3,..., 200) = -1 `sysctl x`"),
            vec![
                w("read"),
                Tok::Punct('('),
                w("3"),
                Tok::Punct(','),
                Tok::Ellipsis,
                Tok::Punct(','),
                w("200"),
                Tok::Punct(')'),
                Tok::Punct('='),
                Tok::Punct('-'),
                w("1"),
                Tok::Command("sysctl x".into()),
            ]
        );
        assert_eq!(
            words("sctp(tag=1): x \"a.b\""),
            vec![
                w("sctp"),
                Tok::Punct('('),
                w("tag"),
                Tok::Punct('='),
                w("1"),
                Tok::Punct(')'),
                Tok::Punct(':'),
                w("x"),
                Tok::Str("a.b".into())
            ]
        );
    }

    #[test]
    fn bad_characters_are_reported_with_their_line() {
        let e = tokenize(&["ok".into(), "bad @".into()]).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(tokenize(&["\"open".into()]).is_err());
    }
}
