//! A forgiving JSON reader for what models write inside calls: strict JSON
//! plus single-quoted strings, unquoted keys, trailing commas, raw line
//! breaks in strings and Python's `True`/`False`/`None`. Nesting is limited
//! so that no input can exhaust the stack.

use serde_json::{Map, Number, Value};

const MAX_DEPTH: usize = 64;

/// The whole text as one value.
pub(super) fn parse(text: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str(text) {
        return Some(v);
    }
    let (v, n) = parse_prefix(text.trim())?;
    text.trim()[n..].trim().is_empty().then_some(v)
}

/// One value at the start of `text`, and how many bytes it took.
pub(super) fn parse_prefix(text: &str) -> Option<(Value, usize)> {
    let mut r = Reader { s: text, i: 0 };
    let v = r.value(0)?;
    Some((v, r.i))
}

struct Reader<'a> {
    s: &'a str,
    i: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.s[self.i..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += c.len_utf8();
        Some(c)
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match self.peek()? {
            '{' => self.object(depth),
            '[' => self.array(depth),
            q @ ('"' | '\'') => self.string(q).map(Value::String),
            c if c == '-' || c == '+' || c == '.' || c.is_ascii_digit() => self.number(),
            c if c.is_alphabetic() => match self.word().as_str() {
                "true" | "True" => Some(Value::Bool(true)),
                "false" | "False" => Some(Value::Bool(false)),
                "null" | "None" => Some(Value::Null),
                _ => None,
            },
            _ => None,
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        self.bump();
        let mut map = Map::new();
        loop {
            self.ws();
            match self.peek()? {
                '}' => {
                    self.bump();
                    return Some(Value::Object(map));
                }
                q @ ('"' | '\'') => {
                    let key = self.string(q)?;
                    self.entry(key, &mut map, depth)?;
                }
                c if c.is_alphabetic() || c == '_' => {
                    let key = self.word();
                    self.entry(key, &mut map, depth)?;
                }
                _ => return None,
            }
            self.ws();
            match self.bump()? {
                ',' => {}
                '}' => return Some(Value::Object(map)),
                _ => return None,
            }
        }
    }

    fn entry(&mut self, key: String, map: &mut Map<String, Value>, depth: usize) -> Option<()> {
        self.ws();
        if self.bump()? != ':' {
            return None;
        }
        let v = self.value(depth + 1)?;
        map.insert(key, v);
        Some(())
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        self.bump();
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.peek()? == ']' {
                self.bump();
                return Some(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.bump()? {
                ',' => {}
                ']' => return Some(Value::Array(items)),
                _ => return None,
            }
        }
    }

    fn word(&mut self) -> String {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.bump();
        }
        self.s[start..self.i].to_owned()
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')) {
            self.bump();
        }
        let text = &self.s[start..self.i];
        if let Ok(n) = serde_json::from_str::<Number>(text) {
            return Some(Value::Number(n));
        }
        // `+1`, `.5`, `1.`: what JSON forbids but a number all the same.
        let f: f64 = text.parse().ok()?;
        Number::from_f64(f).map(Value::Number)
    }

    fn string(&mut self, quote: char) -> Option<String> {
        self.bump();
        let mut out = String::new();
        loop {
            match self.bump()? {
                c if c == quote => return Some(out),
                '\\' => match self.bump()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'u' => out.push(self.unicode()?),
                    other => out.push(other),
                },
                c => out.push(c),
            }
        }
    }

    /// The 4 hex digits after `\u` (and a low surrogate after a high
    /// one); an unpaired surrogate becomes U+FFFD.
    fn unicode(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        if !(0xD800..0xDC00).contains(&hi) {
            return Some(char::from_u32(hi).unwrap_or('\u{FFFD}'));
        }
        if self.s[self.i..].starts_with("\\u") {
            let save = self.i;
            self.i += 2;
            if let Some(lo) = self.hex4().filter(|lo| (0xDC00..0xE000).contains(lo)) {
                return Some(char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)).unwrap_or('\u{FFFD}'));
            }
            self.i = save;
        }
        Some('\u{FFFD}')
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.s.get(self.i..self.i + 4)?;
        let v = u32::from_str_radix(digits, 16).ok()?;
        self.i += 4;
        Some(v)
    }
}
