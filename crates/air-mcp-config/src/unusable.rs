//! Why a server of a configuration cannot be used from a page ([`Unusable`]):
//! said as a type, worded by the app (the text here is the English).

/// Why a configured server cannot be used from a page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unusable {
    #[error("not an object")]
    NotAnObject,
    #[error("its url is not text")]
    UrlNotText,
    /// The address (as written) is not `http(s)://`.
    #[error("{0} is not an http(s) address; a page reaches servers over HTTP only")]
    NotHttp(String),
    #[error("its headers are not an object")]
    HeadersNotAnObject,
    /// The header named is not text.
    #[error("its headers value {0} is not text")]
    HeaderNotText(String),
    #[error("its environment is not an object")]
    EnvNotAnObject,
    /// The variable named is not text.
    #[error("its environment value {0} is not text")]
    EnvNotText(String),
    #[error("its command has no path")]
    CommandWithoutPath,
    #[error("its command is not text")]
    CommandNotText,
    #[error("a stdio server without a command")]
    StdioWithoutCommand,
    #[error("neither a url nor a command")]
    NothingToRun,
    #[error("its command is empty")]
    EmptyCommand,
    #[error("an argument is not text")]
    ArgumentNotText,
    #[error("its args are not a list")]
    ArgsNotAList,
    /// The environment variable's name a shell would not take.
    #[error("its environment variable {0:?} is not a variable name")]
    BadVariableName(String),
    #[error("it has a placeholder with no name (${{}})")]
    NamelessPlaceholder,
    /// A word Windows PowerShell would hand the program otherwise than shown.
    #[error("the word {word:?} {trouble}. Use the line for sh (WSL, Git Bash) or change the configuration")]
    PowerShell { word: String, trouble: PowerShellTrouble },
    /// A word holding `mark`, which cmd.exe (starting `program`) reads its own way.
    #[error("the word {word:?} holds {}, which cmd.exe takes as {}: Windows starts {program:?} through cmd.exe, which would run something else than the line shows. Use the line for sh (WSL, Git Bash) or change the configuration", mark_shown(*mark), cmd_reading(*mark))]
    Cmd { word: String, mark: char, program: String },
}

/// What Windows PowerShell (5.1, and up to 7.2) does to a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PowerShellTrouble {
    #[error("holds a double quote (\"), which Windows PowerShell passes to the program unescaped, so the program would get other words than the line shows")]
    Quote,
    #[error("is empty, and Windows PowerShell drops an empty word instead of passing it")]
    Empty,
    #[error("ends with a backslash and holds a blank: Windows PowerShell quotes it so that the backslash escapes the closing quote")]
    TrailingBackslash,
}

/// How cmd.exe reads `mark`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmdReading {
    Separator,
    Redirection,
    Variable,
    Escape,
    LineEnd,
}

impl CmdReading {
    pub fn of(mark: char) -> Self {
        match mark {
            '&' | '|' => Self::Separator,
            '<' | '>' => Self::Redirection,
            '%' | '!' => Self::Variable,
            '^' => Self::Escape,
            _ => Self::LineEnd,
        }
    }
}

fn cmd_reading(mark: char) -> &'static str {
    match CmdReading::of(mark) {
        CmdReading::Separator => "a command separator",
        CmdReading::Redirection => "a redirection",
        CmdReading::Variable => "a variable's mark",
        CmdReading::Escape => "its escape character",
        CmdReading::LineEnd => "the end of the command",
    }
}

/// `mark` as a person reads it: a line break named, any other quoted.
fn mark_shown(mark: char) -> String {
    if matches!(mark, '\r' | '\n') { "a line break".to_owned() } else { format!("{mark:?}") }
}
