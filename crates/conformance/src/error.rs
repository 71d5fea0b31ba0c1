//! Errors: a script that cannot be read, and a script that ran but did
//! not pass.

use std::fmt;

/// A script that cannot be parsed (or uses something the interpreter does
/// not support), with the line it happened on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl ParseError {
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        ParseError {
            line,
            message: message.into(),
        }
    }
}

/// What kind of check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// An outbound packet differs from the script's `>` line.
    WrongPacket,
    /// The `>` line's packet was never sent (within its time window).
    MissingPacket,
    /// The engine sent a packet the script did not expect.
    UnexpectedPacket,
    /// A packet or event happened outside its time window.
    WrongTime,
    /// A system call returned something other than the script says.
    SyscallResult,
    /// The script asks for something the interpreter cannot do.
    Unsupported,
    /// An inbound packet could not be built from its description.
    BadInbound,
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            FailureKind::WrongPacket => "wrong packet",
            FailureKind::MissingPacket => "missing packet",
            FailureKind::UnexpectedPacket => "unexpected packet",
            FailureKind::WrongTime => "wrong time",
            FailureKind::SyscallResult => "system call",
            FailureKind::Unsupported => "unsupported",
            FailureKind::BadInbound => "bad inbound packet",
        };
        f.write_str(s)
    }
}

/// The first check of a script that did not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Failure {
    /// Script line of the event being run.
    pub line: usize,
    pub kind: FailureKind,
    pub message: String,
    /// The script's packet or value, rendered.
    pub expected: Option<String>,
    /// What the engine did, rendered.
    pub actual: Option<String>,
}

impl Failure {
    pub fn new(line: usize, kind: FailureKind, message: impl Into<String>) -> Self {
        Failure {
            line,
            kind,
            message: message.into(),
            expected: None,
            actual: None,
        }
    }

    pub fn expected(mut self, e: impl Into<String>) -> Self {
        self.expected = Some(e.into());
        self
    }

    pub fn actual(mut self, a: impl Into<String>) -> Self {
        self.actual = Some(a.into());
        self
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}: {}", self.line, self.kind, self.message)?;
        if let Some(e) = &self.expected {
            write!(f, "\n    expected: {e}")?;
        }
        if let Some(a) = &self.actual {
            write!(f, "\n    actual:   {a}")?;
        }
        Ok(())
    }
}
